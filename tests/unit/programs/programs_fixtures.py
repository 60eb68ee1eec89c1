"""Shared builders for the program tests: inputs for a user, logged rows, completing a week."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from trainer.domain.workout import Workout
from trainer.programs.microcycle.dates import nominal_time
from trainer.programs.models import PlanInputs, PlanWeek

NOW = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)  # a Monday morning
GYM = [
    "barbell",
    "bench",
    "cable",
    "dumbbell",
    "machine",
    "pull-up bar",
    "rack",
    "treadmill",
    "stationary bike",
]


def inputs(**changes: Any) -> PlanInputs:
    data: dict[str, Any] = {
        "now": NOW,
        "start_date": date(2026, 3, 2),
        "weeks": 12,
        "training_days": ["Monday", "Tuesday", "Thursday", "Friday"],
        "session_minutes": 60,
        "experience": "intermediate",
        "category_goals": {"Strength": 60.0, "Hypertrophy": 40.0},
        "equipment": list(GYM),
    }
    data.update(changes)
    return PlanInputs.model_validate(data)


def logged(
    name: str,
    load: float | None,
    reps: list[int],
    at: datetime,
    muscles: list[dict[str, Any]] | None = None,
    unit: str = "kg",
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "exercise_name": name,
        "exercise_type": "reps",
        "sets": len(reps),
        "reps": reps,
        "performed_at": at,
        "muscles": muscles or [{"muscle": "Chest", "share": 1.0}],
    }
    if load is not None:
        row.update(load_each=[load] * len(reps), load_unit=unit)
    return row


def workout_rows(workout: Workout, at: datetime) -> list[dict[str, Any]]:
    """A workout logged as done exactly as prescribed (every set, every rep, every load)."""
    rows = []
    for ex in workout.exercises:
        row: dict[str, Any] = {
            "exercise_name": ex.exercise_name,
            "exercise_type": ex.exercise_type,
            "sets": ex.sets,
            "reps": ex.reps,
            "hold_sec": ex.hold_sec,
            "duration_min": ex.duration_min,
            "performed_at": at,
            "muscles": [m.model_dump() for m in ex.muscles_utilized],
        }
        if ex.load_each:
            row.update(load_each=list(ex.load_each), load_unit=ex.load_unit)
        rows.append(row)
    return rows


def completed(week: PlanWeek, timezone: str = "UTC") -> list[dict[str, Any]]:
    """Every training day of the week done as prescribed, at the day's planned time."""
    rows: list[dict[str, Any]] = []
    for day in week.days:
        if day.workout is not None:
            rows += workout_rows(day.workout, nominal_time(day.date, timezone))
    return rows


def after(base: PlanInputs, rows: list[dict[str, Any]], moment: datetime) -> PlanInputs:
    """The inputs a later week is built from: the same user with more history, at `moment`."""
    return base.model_copy(
        update={
            "now": moment,
            "history": [*base.history, *rows],
            "progression_history": [*base.progression_history, *[r for r in rows if r.get("load_each")]],
        }
    )


def week_start_moment(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=1)
