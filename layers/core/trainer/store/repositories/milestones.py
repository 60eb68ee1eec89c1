"""milestone_goals: specific targets (run a 5K, bench 100 kg) with progress."""

from __future__ import annotations

from datetime import date
from typing import Any

from trainer.store.repositories import Conn, RepositoryError, UserId, as_uuid, decimal_number
from trainer.store.repositories.plans import parse_date

MILESTONE_TYPES = ("distance", "weight", "reps", "time", "event", "other")
MILESTONE_STATUSES = ("active", "achieved", "abandoned")
_COLUMNS = (
    "id, goal_name, goal_type, target_value, target_unit, target_date, current_value, status, plan_id,"
    " created_at, achieved_at, time_limit_min, target_reps"
)


async def create_milestone(
    conn: Conn,
    user_id: UserId,
    *,
    goal_name: str,
    goal_type: str = "other",
    target_value: float | None = None,
    target_unit: str | None = None,
    target_date: date | str | None = None,
    current_value: float | None = None,
    time_limit_min: float | None = None,
    target_reps: int | None = None,
) -> dict[str, Any]:
    """A milestone with every number of its target: the value and unit, a time limit on a distance
    ('5 km under 30 minutes') and the reps at a load ('100 kg for 5')."""
    name = (goal_name or "").strip()
    if not 1 <= len(name) <= 200:
        raise RepositoryError("goal_name must be 1-200 characters")
    if goal_type not in MILESTONE_TYPES:
        raise RepositoryError(f"goal_type must be one of {', '.join(MILESTONE_TYPES)}")
    cur = await conn.execute(
        "INSERT INTO milestone_goals (user_id, goal_name, goal_type, target_value, target_unit, target_date,"
        " current_value, time_limit_min, target_reps)"
        f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
        (
            user_id, name, goal_type, decimal_number(target_value, "target_value", minimum=0),
            (target_unit or "").strip()[:50] or None,
            parse_date(target_date, "target_date") if target_date else None,
            decimal_number(current_value, "current_value", minimum=0),
            decimal_number(time_limit_min, "time_limit_min", minimum=0, maximum=100000, strict=True),
            _reps(target_reps),
        ),
    )  # fmt: skip
    row = await cur.fetchone()
    assert row is not None
    return row


async def update_progress(
    conn: Conn, user_id: UserId, milestone_id: Any, current_value: float
) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"UPDATE milestone_goals SET current_value = %s, updated_at = now()"
        f" WHERE user_id = %s AND id = %s RETURNING {_COLUMNS}",
        (
            decimal_number(current_value, "current_value", minimum=0),
            user_id,
            as_uuid(milestone_id, "milestone id"),
        ),
    )
    return await cur.fetchone()


async def set_status(conn: Conn, user_id: UserId, milestone_id: Any, status: str) -> dict[str, Any] | None:
    """Mark achieved (stamps achieved_at), abandoned, or active again."""
    if status not in MILESTONE_STATUSES:
        raise RepositoryError(f"status must be one of {', '.join(MILESTONE_STATUSES)}")
    cur = await conn.execute(
        "UPDATE milestone_goals SET status = %s,"
        " achieved_at = CASE WHEN %s = 'achieved' THEN coalesce(achieved_at, now()) END, updated_at = now()"
        f" WHERE user_id = %s AND id = %s RETURNING {_COLUMNS}",
        (status, status, user_id, as_uuid(milestone_id, "milestone id")),
    )
    return await cur.fetchone()


async def list_milestones(conn: Conn, user_id: UserId, status: str = "active") -> list[dict[str, Any]]:
    if status != "all" and status not in MILESTONE_STATUSES:
        raise RepositoryError(f"status must be one of {', '.join((*MILESTONE_STATUSES, 'all'))}")
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM milestone_goals WHERE user_id = %s AND (%s = 'all' OR status = %s)"
        " ORDER BY target_date NULLS LAST, created_at, id LIMIT 50",
        (user_id, status, status),
    )
    return await cur.fetchall()


def _reps(value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10000:
        raise RepositoryError("target_reps must be a whole number between 1 and 10000")
    return value
