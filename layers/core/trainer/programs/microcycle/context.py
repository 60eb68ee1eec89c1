"""What one week's prescriptions read, resolved once (`WeekContext`): the user's rules, preferences and
load steps, the progression histories (all of them, and this phase's), and the history rows a planned
workout adds for the recovery of the week's later days."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from trainer.domain.fatigue import fatigue_reason
from trainer.domain.loading import LoadSteps
from trainer.domain.movements import name_key
from trainer.domain.prescriptions import rpe_in_words, target_rpe
from trainer.domain.progression import ExerciseHistory, exercise_histories, next_target
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
    leading_goal,
)


def progression_rows(
    plan: FitnessPlan,
    week_number: int,
    rows: Iterable[Mapping[str, Any]],
    timezone: str,
    taken: Iterable[int] = (),
) -> list[Mapping[str, Any]]:
    """The loaded sessions progression reads, without those logged in the plan's earlier deload
    weeks, planned or `taken` for fatigue (a deload is neither a failed session nor a new base)."""
    tz = zone(timezone)
    weeks = {*plan.deload_weeks, *taken}
    skipped = {d for w in weeks if w < week_number for d in week_dates(plan, w)}
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


STALL_DAYS = 14
"""A lift counts toward a fatigue deload when it was trained in the last two weeks."""


class WeekContext:
    """What one week's prescriptions read, resolved once."""

    def __init__(self, plan: FitnessPlan, week_number: int, inputs: PlanInputs) -> None:
        self.plan = plan
        self.week = week_number
        self.inputs = inputs
        self.unit = inputs.weight_unit
        self.level = LEVEL_OF_EXPERIENCE.get(inputs.experience, "intermediate")
        self.rules = constraints_for(inputs.equipment, inputs.preferences, inputs.experience, inputs.history)
        self.prefs = preference_constraints(inputs.preferences)
        self.steps = LoadSteps.for_unit(self.unit, inputs.location_items)
        tz = zone(inputs.timezone)
        taken = inputs.deloads_taken
        rows = progression_rows(plan, week_number, inputs.progression_history, inputs.timezone, taken)
        self.histories: dict[str, ExerciseHistory] = exercise_histories(rows, self.unit, tz)
        phase_start = week_start(plan, plan.microcycle_for(week_number).start_week)
        in_phase = [
            r for r in rows if r.get("performed_at") and local_day(r["performed_at"], tz) >= phase_start
        ]
        self.phase_histories = exercise_histories(in_phase, self.unit, tz)
        """This phase's sessions: progression within a phase reads them only (its rep ranges)."""
        self.recent = progression_rows(plan, week_number, inputs.history, inputs.timezone, taken)
        self.light = self.prefs.intensity == "light"
        phase = plan.microcycle_for(week_number)
        style = leading_goal(inputs.category_goals, inputs.goal_text)
        self.target_rpe = rpe_in_words(phase.intensity) or target_rpe(style, self.level)
        """The effort a new range starts at: the phase's (its intensity's lowest RPE), else the goal's."""
        planned = is_deload(plan, week_number)
        self.fatigue = None if planned else self._fatigue(week_number)
        """Why this week is a deload the calendar did not plan (None: it is not one)."""
        self.deload = planned or self.fatigue is not None

    def _fatigue(self, week_number: int) -> str | None:
        """A deload brought forward by fatigue (trainer.domain.fatigue), never right after a deload."""
        plan, inputs = self.plan, self.inputs
        if week_number == 1 or {week_number - 1} & {*plan.deload_weeks, *inputs.deloads_taken}:
            return None
        since = inputs.now - timedelta(days=STALL_DAYS)
        stalled, trained = [], 0
        for day in plan.microcycle_for(week_number).weekly_pattern:
            for slot in day.slots:
                history = self.phase_histories.get(name_key(slot.exercise))
                if slot.kind != "reps" or history is None or history.sessions[-1].performed_at < since:
                    continue
                trained += 1
                low = slot.rep_low or 8
                rule = next_target(history, self.steps, (low, slot.rep_high or max(low, 12))).rule
                if rule == "deload" and slot.exercise not in stalled:
                    stalled.append(slot.exercise)
        return fatigue_reason(inputs.readiness, stalled, trained)
