"""workout_plans: multi-week plans (scheduled workouts and milestones may point at one)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from trainer.domain.reach import out_of_reach
from trainer.store.repositories import Conn, RepositoryError, UserId
from trainer.store.repositories.settings import normalise_weekdays

PLAN_STATUSES = ("active", "completed", "paused", "cancelled")
_COLUMNS = (
    "id, plan_name, goal_description, start_date, end_date, duration_weeks, workouts_per_week,"
    " preferred_days, workout_types, status, created_at"
)


async def create_plan(
    conn: Conn,
    user_id: UserId,
    *,
    plan_name: str,
    start_date: date | str,
    duration_weeks: int,
    goal_description: str | None = None,
    workouts_per_week: int | None = None,
    preferred_days: list[str] | None = None,
    workout_types: list[str] | None = None,
) -> dict[str, Any]:
    name = (plan_name or "").strip()
    if not 1 <= len(name) <= 200:
        raise RepositoryError("plan_name must be 1-200 characters")
    start = parse_date(start_date, "start_date")
    if (
        isinstance(duration_weeks, bool)
        or not isinstance(duration_weeks, int)
        or not 1 <= duration_weeks <= 104
    ):
        raise RepositoryError("duration_weeks must be a whole number between 1 and 104")
    if workouts_per_week is not None and (
        isinstance(workouts_per_week, bool)
        or not isinstance(workouts_per_week, int)
        or not 1 <= workouts_per_week <= 14
    ):
        raise RepositoryError("workouts_per_week must be between 1 and 14")
    types = [str(t).strip()[:100] for t in (workout_types or []) if str(t).strip()]
    cur = await conn.execute(
        "INSERT INTO workout_plans (user_id, plan_name, goal_description, start_date, end_date,"
        " duration_weeks, workouts_per_week, preferred_days, workout_types)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        f" RETURNING {_COLUMNS}",
        (
            user_id, name, (goal_description or "").strip()[:2000] or None, start,
            start + timedelta(weeks=duration_weeks, days=-1), duration_weeks, workouts_per_week,
            normalise_weekdays(preferred_days or []), types,
        ),
    )  # fmt: skip
    row = await cur.fetchone()
    assert row is not None
    return row


async def list_plans(conn: Conn, user_id: UserId, status: str = "active") -> list[dict[str, Any]]:
    """Plans with the given status ('all' for every plan), newest start first."""
    if status != "all" and status not in PLAN_STATUSES:
        raise RepositoryError(f"status must be one of {', '.join((*PLAN_STATUSES, 'all'))}")
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM workout_plans WHERE user_id = %s AND (%s = 'all' OR status = %s)"
        " ORDER BY start_date DESC, id LIMIT 50",
        (user_id, status, status),
    )
    return await cur.fetchall()


def parse_date(value: Any, what: str) -> date:
    """An ISO date from model or user input, within reach (trainer.domain.reach)."""
    if isinstance(value, datetime):
        value = value.date()
    if isinstance(value, date):
        parsed = value
    else:
        try:
            parsed = date.fromisoformat(str(value).strip()[:10])
        except ValueError:
            raise RepositoryError(f"{what} {str(value)[:40]!r} is not an ISO date") from None
    if (problem := out_of_reach(parsed)) is not None:
        raise RepositoryError(f"{what} {problem}")
    return parsed
