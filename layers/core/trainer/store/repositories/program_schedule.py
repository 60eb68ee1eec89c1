"""The program pipeline's bookkeeping beside `programs`: a plan's build claimed once, a plan's schedule moved
on only from the week it names, a failed week put off, and the morning run's cross-user read.

`morning_workouts` is, with `programs.due_plans`, the only read not scoped to one user: it starts from the
active plans of the zones in their morning hour (index `training_plans_active_timezone_idx`) and joins
each plan's day on its unique (plan_id, date), so a run reads the users whose morning it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from trainer.store.repositories import Conn, UserId, as_uuid

STALE_PLAN_CLAIM = timedelta(minutes=15)
"""A plan still being built after this long is taken to have died with its builder."""


def _plan_id(value: Any) -> Any:
    return as_uuid(value, "plan id")


async def claim_plan(conn: Conn, user_id: UserId, plan_id: Any, now: datetime) -> bool:
    """True for the one caller that gets to build a pending plan (or takes over a stale build)."""
    cur = await conn.execute(
        "UPDATE training_plans SET build_claimed_at = %(now)s, updated_at = now()"
        " WHERE user_id = %(user)s AND id = %(plan)s AND status = 'pending'"
        " AND (build_claimed_at IS NULL OR build_claimed_at < %(stale)s) RETURNING id",
        {"now": now, "user": user_id, "plan": _plan_id(plan_id), "stale": now - STALE_PLAN_CLAIM},
    )
    return await cur.fetchone() is not None


async def release_plan(conn: Conn, user_id: UserId, plan_id: Any) -> None:
    """Give up a claim (the build stopped on an error a retry may not meet)."""
    await conn.execute(
        "UPDATE training_plans SET build_claimed_at = NULL"
        " WHERE user_id = %s AND id = %s AND status = 'pending'",
        (user_id, _plan_id(plan_id)),
    )


async def stale_pending_plans(conn: Conn, before: datetime, *, limit: int = 100) -> list[dict[str, Any]]:
    """Plans still pending whose request (or builder's claim) is older than `before`, oldest first: a lost
    `PlanRequested`, or a builder that died. Reads the pending index only."""
    cur = await conn.execute(
        "SELECT id, user_id, created_at, build_claimed_at FROM training_plans WHERE status = 'pending'"
        " AND coalesce(build_claimed_at, created_at) < %s ORDER BY created_at, id LIMIT %s",
        (before, max(1, min(limit, 1000))),
    )
    return await cur.fetchall()


async def advance_week(
    conn: Conn, user_id: UserId, plan_id: Any, *, from_week: int, next_week: int, due_at: datetime | None
) -> bool:
    """Move the plan's schedule from `from_week` to `next_week` (due at `due_at`; None: nothing due), only
    if it still names `from_week`."""
    cur = await conn.execute(
        "UPDATE training_plans SET next_week = %s, next_week_due_at = %s, updated_at = now()"
        " WHERE user_id = %s AND id = %s AND next_week = %s AND active RETURNING id",
        (next_week, due_at, user_id, _plan_id(plan_id), from_week),
    )
    return await cur.fetchone() is not None


async def defer_week(conn: Conn, user_id: UserId, plan_id: Any, week_number: int, until: datetime) -> bool:
    """Put off a week whose build failed (the scheduler tries it again at `until`)."""
    cur = await conn.execute(
        "UPDATE training_plans SET next_week_due_at = %s, updated_at = now()"
        " WHERE user_id = %s AND id = %s AND next_week = %s AND next_week_due_at IS NOT NULL RETURNING id",
        (until, user_id, _plan_id(plan_id), week_number),
    )
    return await cur.fetchone() is not None


async def week_row(conn: Conn, user_id: UserId, plan_id: Any, week_number: int) -> dict[str, Any] | None:
    cur = await conn.execute(
        "SELECT plan_id, week_number, status, deload, start_date, error, attempts, claimed_at, built_at"
        " FROM plan_weeks WHERE user_id = %s AND plan_id = %s AND week_number = %s",
        (user_id, _plan_id(plan_id), week_number),
    )
    return await cur.fetchone()


async def unpublish(conn: Conn, user_id: UserId, workout_id: Any) -> None:
    """Undo `programs.mark_published` when the event could not be sent (the next run sends it)."""
    await conn.execute(
        "UPDATE plan_workouts SET published_at = NULL WHERE user_id = %s AND id = %s",
        (user_id, as_uuid(workout_id, "workout id")),
    )


async def morning_workouts(
    conn: Conn, day: date, timezones: Sequence[str], *, limit: int = 500
) -> list[dict[str, Any]]:
    """The active plans' training days on `day` not yet published, for plans in `timezones`."""
    if not timezones:
        return []
    cur = await conn.execute(
        "SELECT w.id, w.user_id, w.plan_id, w.week_number, w.date, w.weekday, w.kind, w.focus, w.workout,"
        " w.notes, w.recovery_notes, w.message, p.title AS plan_title, p.timezone"
        " FROM training_plans p"
        " JOIN plan_workouts w ON w.plan_id = p.id AND w.user_id = p.user_id AND w.date = %s"
        " WHERE p.active AND p.timezone = ANY(%s) AND w.kind = 'training' AND w.status = 'scheduled'"
        " AND w.published_at IS NULL ORDER BY w.id LIMIT %s",
        (day, list(timezones), max(1, min(limit, 5000))),
    )
    return await cur.fetchall()
