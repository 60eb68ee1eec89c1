"""The example exercise of the `<user_data>` block: one exercise as generate_workout takes it, in the
user's units, its load the one the progression rule gives after a session that reached the top of its
rep range (trainer.domain.progression), and a pace in the user's distance unit.

Written by the same code that checks a workout's loads, so the example can neither drift from the rule
nor be flagged by it (it once jumped 57.5 kg to 70 kg, which the checks then reported as a problem),
and it is never in kilograms for a user who lifts in pounds. A model copies an example's shape; the
numbers here are an illustration, never the user's history, and the block says so."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta

from trainer.domain.loading import LoadSteps
from trainer.domain.prescriptions import rest_seconds
from trainer.domain.progression import exercise_histories, progression_target
from trainer.domain.units import convert_pace, weight_unit

EXAMPLE_NAME = "Barbell Bench Press"
LAST_LOAD = {"kg": 60.0, "lbs": 135.0}
"""The last session's load in the example: a standard bar with a pair of plates in each unit."""
RECENT_REPS = (8, 10, 12)
"""Three sessions at that load, a week apart: the 8-12 range, its top reached last time, so the rule's
next step is one load step up, back to 8 reps."""
EXAMPLE_RANGE = (8, 12)
"""The range the example is prescribed in (the NSCA's hypertrophy range, trainer.domain.prescriptions)."""
SETS = 3
EXAMPLE_PACE_KM = "5:30/km"


def example_history(unit: str, today: date) -> list[dict[str, object]]:
    """The sessions the example's load follows from, as history rows in `unit`."""
    last = datetime.combine(today - timedelta(days=3), time(18), tzinfo=UTC)
    return [
        {
            "exercise_name": EXAMPLE_NAME,
            "exercise_type": "reps",
            "sets": SETS,
            "reps": [reps] * SETS,
            "load_each": [LAST_LOAD[unit]] * SETS,
            "load_unit": unit,
            "performed_at": last - timedelta(weeks=len(RECENT_REPS) - n),
        }
        for n, reps in enumerate(RECENT_REPS, start=1)
    ]


def example_exercise(unit_said: str, today: date) -> dict[str, object]:
    """The example as generate_workout's exercise arguments, loads in the weight unit ('lb' or 'lbs'
    both mean pounds)."""
    unit = weight_unit(unit_said)
    histories = exercise_histories(example_history(unit, today), unit)
    target = progression_target(EXAMPLE_NAME, histories, LoadSteps.for_unit(unit), rep_range=EXAMPLE_RANGE)
    if target is None:  # the rule always has a target for an exercise with history
        raise ValueError("no progression target for the example")
    load = _number(target.load)
    return {
        "exercise_name": EXAMPLE_NAME,
        "exercise_type": "reps",
        "order": 1,
        "sets": SETS,
        "reps": [target.reps] * SETS,
        "load_each": [load] * SETS,
        "load_unit": unit,
        "rest_sec": rest_seconds(target.rep_low, compound=True),
        "reasoning": (
            f"Main press. Last time {_number(target.last_load)} {unit} x {target.last_reps}, the top "
            f"of {target.rep_low}-{target.rep_high} reps: one step up."
        ),
    }


def example_lines(weight_unit_said: str, distance_unit_said: str, today: date) -> list[str]:
    """The `<example_exercise>` block of `<user_data>`."""
    pace = convert_pace(EXAMPLE_PACE_KM, distance_unit_said)
    exercise = json.dumps(example_exercise(weight_unit_said, today), separators=(",", ":"))
    return [
        "",
        "<example_exercise>",
        "The format and the load rule, in this user's units (an illustration, not their history):",
        exercise,
        f'A run\'s target_pace: "{pace}".',
        "</example_exercise>",
    ]


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 2)
