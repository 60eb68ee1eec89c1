"""What one week's prescriptions read, resolved once (`WeekContext`): the user's rules, preferences and
load steps, the progression histories (all of them, and this phase's), and the history rows a planned
workout adds for the recovery of the week's later days."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from trainer.domain.progression import (
    ExerciseHistory,
    LoadSteps,
    exercise_histories,
)
from trainer.domain.workout import Workout
from trainer.domain.workout_checks import (
    preference_constraints,
)
from trainer.domain.workout_grouping import local_day, zone
from trainer.programs.microcycle.dates import (
    is_deload,
    week_dates,
    week_start,
)
from trainer.programs.models import (
    FitnessPlan,
    PlanInputs,
)
from trainer.programs.selection import (
    LEVEL_OF_EXPERIENCE,
    constraints_for,
)


def progression_rows(
    plan: FitnessPlan, week_number: int, rows: Iterable[Mapping[str, Any]], timezone: str
) -> list[Mapping[str, Any]]:
    """The loaded sessions progression reads, without those logged in the plan's earlier deload
    weeks (a deload is not a failed session)."""
    tz = zone(timezone)
    skipped = {d for w in plan.deload_weeks if w < week_number for d in week_dates(plan, w)}
    return [
        r for r in rows if r.get("performed_at") is None or local_day(r["performed_at"], tz) not in skipped
    ]


def training_rows(workout: Workout, at: datetime) -> list[dict[str, Any]]:
    """A planned workout as history rows at `at` (recovery): its main work, holds left out."""
    return [
        {
            "performed_at": at,
            "exercise_name": ex.exercise_name,
            "exercise_type": ex.exercise_type,
            "muscles": [m.model_dump() for m in ex.muscles_utilized],
        }
        for ex in workout.exercises
        if ex.exercise_type != "hold" and (ex.group is None or ex.group.type not in ("warmup", "cooldown"))
    ]


class WeekContext:
    """What one week's prescriptions read, resolved once."""

    def __init__(self, plan: FitnessPlan, week_number: int, inputs: PlanInputs) -> None:
        self.plan = plan
        self.week = week_number
        self.inputs = inputs
        self.deload = is_deload(plan, week_number)
        self.unit = inputs.weight_unit
        self.level = LEVEL_OF_EXPERIENCE.get(inputs.experience, "intermediate")
        self.rules = constraints_for(inputs.equipment, inputs.preferences, inputs.experience, inputs.history)
        self.prefs = preference_constraints(inputs.preferences)
        self.steps = LoadSteps.for_unit(self.unit, inputs.location_items)
        tz = zone(inputs.timezone)
        rows = progression_rows(plan, week_number, inputs.progression_history, inputs.timezone)
        self.histories: dict[str, ExerciseHistory] = exercise_histories(rows, self.unit, tz)
        phase_start = week_start(plan, plan.microcycle_for(week_number).start_week)
        in_phase = [
            r for r in rows if r.get("performed_at") and local_day(r["performed_at"], tz) >= phase_start
        ]
        self.phase_histories = exercise_histories(in_phase, self.unit, tz)
        """This phase's sessions: progression within a phase reads them only (its rep ranges)."""
        self.recent = progression_rows(plan, week_number, inputs.history, inputs.timezone)
        self.light = self.prefs.intensity == "light"
