"""Between the program models and their rows (trainer.store.repositories.programs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainer.domain.workout import Workout
from trainer.programs.models import FitnessPlan, PlanDay, PlanWeek


def day_row(day: PlanDay) -> dict[str, Any]:
    """What `programs.save_week` stores for a day (the workout as JSON, without empty fields)."""
    return {
        "date": day.date,
        "weekday": day.weekday,
        "kind": day.kind,
        "focus": day.focus,
        "workout": day.workout.model_dump(mode="json", exclude_none=True) if day.workout else None,
        "notes": list(day.notes),
        "recovery_notes": day.recovery_notes,
        "message": day.message,
    }


def week_rows(week: PlanWeek) -> list[dict[str, Any]]:
    return [day_row(day) for day in week.days]


def plan_of(row: Mapping[str, Any]) -> FitnessPlan:
    """The plan a `training_plans` row holds (status ready)."""
    if not row.get("plan"):
        raise ValueError("the plan is not ready")
    return FitnessPlan.model_validate(row["plan"])


def day_of(row: Mapping[str, Any]) -> PlanDay:
    """A `plan_workouts` row as a day."""
    workout = row.get("workout")
    return PlanDay(
        date=row["date"],
        weekday=row["weekday"],
        kind=row["kind"],
        focus=row.get("focus"),
        workout=Workout.model_validate(workout) if workout else None,
        notes=list(row.get("notes") or []),
        recovery_notes=row.get("recovery_notes"),
        message=row.get("message"),
    )
