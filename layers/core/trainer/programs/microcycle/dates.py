"""Where a plan week falls: its dates, when it is due to be built, whether it is a deload, each day's
pattern, and the hour a planned day is taken as trained."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from trainer.domain.workout_grouping import zone
from trainer.programs.models import (
    DayPattern,
    FitnessPlan,
)

NOMINAL_HOUR = 18
"""A planned day is taken as trained at 18:00 local time (recovery between the week's days)."""


def week_start(plan: FitnessPlan, week_number: int) -> date:
    return plan.start_date + timedelta(days=7 * (week_number - 1))


def week_dates(plan: FitnessPlan, week_number: int) -> list[date]:
    start = week_start(plan, week_number)
    return [start + timedelta(days=i) for i in range(7)]


def week_due_at(start_date: date, week_number: int, timezone: str) -> datetime:
    """When week N is due to be built: local midnight of its first day (aware)."""
    return datetime.combine(
        start_date + timedelta(days=7 * (week_number - 1)), time(0), tzinfo=zone(timezone)
    )


def nominal_time(day: date, timezone: str) -> datetime:
    return datetime.combine(day, time(NOMINAL_HOUR), tzinfo=zone(timezone))


def is_deload(plan: FitnessPlan, week_number: int) -> bool:
    return week_number in plan.deload_weeks


def pattern_for(plan: FitnessPlan, week_number: int, weekday: str) -> DayPattern | None:
    cycle = plan.microcycle_for(week_number)
    return next((d for d in cycle.weekly_pattern if d.weekday == weekday), None)
