"""What a user's day holds, for GET /today: the active plan's day, the workouts scheduled on the local
day, and the workout generated once for a day with neither (daily_workouts, one per user and day)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from psycopg.types.json import Jsonb

from trainer.store.repositories import Conn, UserId

_PLAN_DAY = (
    "w.id, w.plan_id, w.week_number, w.date, w.weekday, w.kind, w.focus, w.workout, w.notes,"
    " w.recovery_notes, w.message, w.status, w.published_at, w.created_at, w.updated_at,"
    " p.title AS plan_title"
)
_SCHEDULED = (
    "id, scheduled_date, workout_type, duration_minutes, notes, exercises, status, plan_id, created_at"
)
_DAILY = "id, day, title, workout, message, created_at"


async def active_plan_day(conn: Conn, user_id: UserId, day: date) -> dict[str, Any] | None:
    """The active plan's day on `day` (training or rest), or None."""
    cur = await conn.execute(
        f"SELECT {_PLAN_DAY} FROM plan_workouts w"
        " JOIN training_plans p ON p.id = w.plan_id AND p.user_id = w.user_id"
        " WHERE w.user_id = %s AND w.date = %s AND p.active",
        (user_id, day),
    )
    return await cur.fetchone()


async def scheduled_between(
    conn: Conn, user_id: UserId, start: datetime, end: datetime
) -> list[dict[str, Any]]:
    """Workouts still scheduled in [start, end), earliest first."""
    cur = await conn.execute(
        f"SELECT {_SCHEDULED} FROM scheduled_workouts WHERE user_id = %s AND status = 'scheduled'"
        " AND scheduled_date >= %s AND scheduled_date < %s ORDER BY scheduled_date, id",
        (user_id, start, end),
    )
    return await cur.fetchall()


async def daily_workout(conn: Conn, user_id: UserId, day: date) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_DAILY} FROM daily_workouts WHERE user_id = %s AND day = %s", (user_id, day)
    )
    return await cur.fetchone()


async def keep_daily_workout(
    conn: Conn, user_id: UserId, day: date, *, title: str | None, workout: Mapping[str, Any], message: str
) -> dict[str, Any]:
    """The day's generated workout: this one, or the one stored first when two requests raced."""
    cur = await conn.execute(
        "INSERT INTO daily_workouts (user_id, day, title, workout, message) VALUES (%s, %s, %s, %s, %s)"
        f" ON CONFLICT (user_id, day) DO NOTHING RETURNING {_DAILY}",
        (user_id, day, title, Jsonb(dict(workout)), message),
    )
    row = await cur.fetchone()
    if row is not None:
        return row
    stored = await daily_workout(conn, user_id, day)
    assert stored is not None
    return stored
