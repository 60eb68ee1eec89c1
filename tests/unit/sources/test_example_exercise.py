"""The example exercise the model reads in <user_data> (trainer.sources.example_exercise): in the user's
units, its load the one the progression rule gives, so the workout checks never flag it (the example
the prompt carried before jumped 57.5 kg to 70 kg, and every example was in kilograms)."""

from __future__ import annotations

from datetime import date

import pytest
from trainer.domain.loading import LoadSteps
from trainer.domain.progression import exercise_histories, progression_target
from trainer.domain.workout import Exercise
from trainer.domain.workout_checks import load_jump
from trainer.sources.example_exercise import (
    EXAMPLE_NAME,
    EXAMPLE_RANGE,
    example_exercise,
    example_history,
    example_lines,
)
from trainer.sources.user_data import render_user_data
from trainer.tools.exercise_input import ExerciseInput

TODAY = date(2026, 12, 7)


def _target(unit: str) -> object:
    histories = exercise_histories(example_history(unit, TODAY), unit)
    target = progression_target(EXAMPLE_NAME, histories, LoadSteps.for_unit(unit), rep_range=EXAMPLE_RANGE)
    assert target is not None
    return target


def _as_exercise(arguments: dict[str, object]) -> Exercise:
    return Exercise.model_validate(ExerciseInput.model_validate(arguments).filled())


@pytest.mark.parametrize(("unit", "load"), [("kg", 62.5), ("lbs", 140)])
def test_the_example_is_the_rules_next_step_in_the_users_unit(unit: str, load: float) -> None:
    example = example_exercise(unit, TODAY)
    target = _target(unit)
    assert example["load_unit"] == unit and example["load_each"] == [load] * 3
    assert example["reps"] == [target.reps] * 3 == [8] * 3  # type: ignore[attr-defined]
    # a compound lift in 8-12 rests 90 s (NSCA Essentials 4th ed., ch. 17: hypertrophy 30-90 s), as the
    # composer and the plans rest it (trainer.domain.prescriptions.rest_seconds)
    assert example["rest_sec"] == 90
    assert load_jump(_as_exercise(example), target) is None  # type: ignore[arg-type]


def test_the_checks_flag_the_jump_the_old_example_made() -> None:
    """The old example (57.5 kg last session, prescribed 70 kg) is what load_jump reports: the test
    above would fail on it."""
    history = [{**row, "load_each": [57.5] * 3} for row in example_history("kg", TODAY)]
    histories = exercise_histories(history, "kg")
    target = progression_target(EXAMPLE_NAME, histories, LoadSteps.for_unit("kg"), rep_range=EXAMPLE_RANGE)
    assert target is not None
    old = {**example_exercise("kg", TODAY), "reps": [10, 10, 8, 6], "sets": 4, "load_each": [60, 60, 65, 70]}
    assert load_jump(_as_exercise(old), target) is not None


def test_the_block_says_it_is_an_illustration_and_gives_a_pace_in_the_users_unit() -> None:
    miles = "\n".join(example_lines("lbs", "mi", TODAY))
    assert "not their history" in miles and '"8:51/mi"' in miles and "kg" not in miles
    assert '"5:30/km"' in "\n".join(example_lines("kg", "km", TODAY))


def test_the_user_data_block_carries_it_in_the_users_units() -> None:
    settings = {"weight_unit": "lb", "distance_unit": "mi", "timezone": "UTC", "preferred_days": []}
    text = render_user_data(None, settings, [], TODAY)
    assert '"load_unit":"lbs"' in text and text.index("<example_exercise>") < text.index("</user_data>")
