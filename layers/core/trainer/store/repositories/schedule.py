"""scheduled_workouts: planned future sessions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from psycopg import sql
from psycopg.types.json import Jsonb

from trainer.domain.reach import out_of_reach
from trainer.store.repositories import Conn, RepositoryError, UserId, as_uuid, set_clause

SCHEDULE_STATUSES = ("scheduled", "completed", "skipped", "cancelled")
_COLUMNS = "id, scheduled_date, workout_type, duration_minutes, notes, exercises, status, plan_id, created_at"


async def schedule_workout(
    conn: Conn,
    user_id: UserId,
    *,
    scheduled_date: datetime | str,
    workout_type: str,
    duration_minutes: int | None = None,
    notes: str | None = None,
    exercises: list[dict[str, Any]] | None = None,
    plan_id: Any = None,
    timezone: str = "UTC",
) -> dict[str, Any]:
    """Add a workout; a scheduled_date without an offset is local time in `timezone`."""
    values = _validate(
        {
            "scheduled_date": scheduled_date,
            "workout_type": workout_type,
            "duration_minutes": duration_minutes,
            "notes": notes,
            "exercises": exercises or [],
        },
        timezone,
    )
    cur = await conn.execute(
        "INSERT INTO scheduled_workouts (user_id, scheduled_date, workout_type, duration_minutes, notes,"
        f" exercises, plan_id) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
        (
            user_id, values["scheduled_date"], values["workout_type"], values["duration_minutes"],
            values["notes"], values["exercises"], as_uuid(plan_id, "plan id") if plan_id else None,
        ),
    )  # fmt: skip
    row = await cur.fetchone()
    assert row is not None
    return row


async def update_scheduled(
    conn: Conn, user_id: UserId, workout_id: Any, *, timezone: str = "UTC", **changes: Any
) -> dict[str, Any] | None:
    """Change the given fields (scheduled_date, workout_type, duration_minutes, notes, exercises, status)."""
    values = _validate({k: v for k, v in changes.items() if v is not None}, timezone)
    target = as_uuid(workout_id, "workout id")
    if not values:
        cur = await conn.execute(
            f"SELECT {_COLUMNS} FROM scheduled_workouts WHERE user_id = %s AND id = %s", (user_id, target)
        )
        return await cur.fetchone()
    query = sql.SQL(
        "UPDATE scheduled_workouts SET {}, updated_at = now() WHERE user_id = %(user_id)s AND id = %(id)s"
        " RETURNING " + _COLUMNS
    ).format(set_clause(values))
    cur = await conn.execute(query, {**values, "user_id": user_id, "id": target})
    return await cur.fetchone()


async def delete_scheduled(conn: Conn, user_id: UserId, workout_id: Any) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"DELETE FROM scheduled_workouts WHERE user_id = %s AND id = %s RETURNING {_COLUMNS}",
        (user_id, as_uuid(workout_id, "workout id")),
    )
    return await cur.fetchone()


async def list_upcoming(
    conn: Conn, user_id: UserId, *, days_ahead: int = 7, now: datetime | None = None
) -> list[dict[str, Any]]:
    """Workouts still 'scheduled' from now to now + days_ahead, soonest first."""
    start = now or datetime.now(UTC)
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM scheduled_workouts WHERE user_id = %s AND status = 'scheduled'"
        " AND scheduled_date >= %s AND scheduled_date < %s ORDER BY scheduled_date, id LIMIT 100",
        (user_id, start - timedelta(hours=12), start + timedelta(days=days_ahead)),
    )
    return await cur.fetchall()


async def list_between(conn: Conn, user_id: UserId, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Every workout scheduled with start <= scheduled_date < end, whatever its status, oldest first
    (what adherence reads)."""
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM scheduled_workouts WHERE user_id = %s"
        " AND scheduled_date >= %s AND scheduled_date < %s ORDER BY scheduled_date, id LIMIT 1000",
        (user_id, start, end),
    )
    return await cur.fetchall()


def _validate(changes: dict[str, Any], timezone: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, value in changes.items():
        if name == "scheduled_date":
            values[name] = _local_timestamp(value, timezone)
        elif name == "workout_type":
            text = str(value or "").strip()
            if not 1 <= len(text) <= 100:
                raise RepositoryError("workout_type must be 1-100 characters")
            values[name] = text
        elif name == "duration_minutes":
            if value is None:
                values[name] = None
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= 600:
                raise RepositoryError("duration_minutes must be between 1 and 600")
            values[name] = int(value)
        elif name == "notes":
            values[name] = (str(value).strip()[:2000] or None) if value is not None else None
        elif name == "exercises":
            if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
                raise RepositoryError("exercises must be a list of objects")
            values[name] = Jsonb(value)
        elif name == "status":
            if value not in SCHEDULE_STATUSES:
                raise RepositoryError(f"status must be one of {', '.join(SCHEDULE_STATUSES)}")
            values[name] = value
        else:
            raise RepositoryError(f"unknown field {name!r}")
    return values


def _local_timestamp(value: Any, timezone: str) -> datetime:
    if isinstance(value, datetime):
        parsed = value
    else:
        try:
            parsed = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise RepositoryError(f"scheduled_date {str(value)[:40]!r} is not an ISO timestamp") from None
    if parsed.tzinfo is None:
        try:
            parsed = parsed.replace(tzinfo=ZoneInfo(timezone))
        except (ZoneInfoNotFoundError, ValueError):
            parsed = parsed.replace(tzinfo=UTC)
    if (problem := out_of_reach(parsed)) is not None:
        raise RepositoryError(f"the date {problem}")
    return parsed
