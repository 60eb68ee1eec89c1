"""training_plans, plan_weeks, plan_workouts: generated programs, their built weeks and planned days.

A plan is created `pending`, then marked `ready` (markdown + plan JSON, made the user's active plan) or
`failed`. Activating a plan supersedes what was there: the previous active plan stops (its days from the
new start on are removed), and the label-only `workout_plans` of `create_workout_plan` are cancelled with
their sessions still to come. A week is built once: `claim_week` inserts its `plan_weeks` row (or takes
over a failed or stale one) and only the caller that claimed it builds it; `save_week` writes its days.
`due_plans` is the scheduler's cross-user read, on the partial index over `next_week_due_at`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any

from psycopg.types.json import Jsonb

from trainer.domain.weekdays import WEEKDAYS
from trainer.store.repositories import Conn, RepositoryError, UserId, as_uuid

PLAN_STATUSES = ("pending", "ready", "failed")
DAY_KINDS = ("training", "rest")
WORKOUT_STATUSES = ("scheduled", "completed", "skipped", "missed")
MESSAGE_LIMIT = 1600
STALE_CLAIM = timedelta(minutes=15)
"""A week still `building` after this long is taken to have died with its builder."""
_PLAN = (
    "id, status, error, title, weeks, days_per_week, session_minutes, training_days, start_date, timezone,"
    " request, active, next_week, next_week_due_at, created_at, updated_at"
)
_FULL_PLAN = _PLAN + ", markdown, plan"
_WEEK = "plan_id, week_number, status, deload, start_date, error, attempts, claimed_at, built_at"
_DAY = (
    "id, plan_id, week_number, date, weekday, kind, focus, workout, notes, recovery_notes, message,"
    " published_at, status, created_at, updated_at"
)


def _plan_id(value: Any) -> Any:
    return as_uuid(value, "plan id")


def _check_plan_fields(weeks: int, training_days: Sequence[str], session_minutes: int) -> list[str]:
    if isinstance(weeks, bool) or not isinstance(weeks, int) or not 4 <= weeks <= 16:
        raise RepositoryError("a plan lasts 4 to 16 weeks")
    days: list[str] = [d for d in WEEKDAYS if d in set(training_days)]
    if len(days) != len(list(training_days)) or not days:
        raise RepositoryError(f"training days must be distinct weekday names ({', '.join(WEEKDAYS)})")
    if (
        isinstance(session_minutes, bool)
        or not isinstance(session_minutes, int)
        or not 15 <= session_minutes <= 180
    ):
        raise RepositoryError("a session lasts 15 to 180 minutes")
    return days


async def create_plan(
    conn: Conn,
    user_id: UserId,
    *,
    weeks: int,
    training_days: Sequence[str],
    session_minutes: int,
    start_date: date,
    timezone: str = "UTC",
    request: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A `pending` plan: what the app polls while the plan is built."""
    days = _check_plan_fields(weeks, training_days, session_minutes)
    cur = await conn.execute(
        "INSERT INTO training_plans (user_id, weeks, days_per_week, session_minutes, training_days,"
        f" start_date, timezone, request) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING {_PLAN}",
        (user_id, weeks, len(days), session_minutes, days, start_date, timezone, Jsonb(dict(request or {}))),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def pending_plan(conn: Conn, user_id: UserId) -> dict[str, Any] | None:
    """The user's plan being built, if any (at most one: training_plans_one_pending_uq)."""
    cur = await conn.execute(
        f"SELECT {_PLAN} FROM training_plans WHERE user_id = %s AND status = 'pending'", (user_id,)
    )
    return await cur.fetchone()


async def store_plan_documents(
    conn: Conn, user_id: UserId, plan_id: Any, *, title: str, markdown: str, plan: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The plan's documents on a plan still `pending`: its first week is built from them before the plan
    is `ready` (None when the plan is not the user's or not pending)."""
    cur = await conn.execute(
        "UPDATE training_plans SET title = %s, markdown = %s, plan = %s, updated_at = now()"
        f" WHERE user_id = %s AND id = %s AND status = 'pending' RETURNING {_FULL_PLAN}",
        (title.strip()[:120], markdown, Jsonb(dict(plan)), user_id, _plan_id(plan_id)),
    )
    return await cur.fetchone()


async def get_plan(conn: Conn, user_id: UserId, plan_id: Any) -> dict[str, Any] | None:
    """The plan with its markdown and JSON, or None (another user's plan is never found)."""
    cur = await conn.execute(
        f"SELECT {_FULL_PLAN} FROM training_plans WHERE user_id = %s AND id = %s",
        (user_id, _plan_id(plan_id)),
    )
    return await cur.fetchone()


async def get_active_plan(conn: Conn, user_id: UserId) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_FULL_PLAN} FROM training_plans WHERE user_id = %s AND active", (user_id,)
    )
    return await cur.fetchone()


async def list_plans(conn: Conn, user_id: UserId, *, limit: int = 20) -> list[dict[str, Any]]:
    """The user's plans, newest first, without their documents."""
    cur = await conn.execute(
        f"SELECT {_PLAN} FROM training_plans WHERE user_id = %s ORDER BY created_at DESC, id LIMIT %s",
        (user_id, max(1, min(limit, 100))),
    )
    return await cur.fetchall()


async def mark_ready(
    conn: Conn,
    user_id: UserId,
    plan_id: Any,
    *,
    title: str,
    markdown: str,
    plan: Mapping[str, Any],
    next_week: int | None = 1,
    next_week_due_at: datetime | None = None,
    activate: bool = True,
) -> dict[str, Any] | None:
    """Store the plan's documents and make it `ready` (and the user's active plan, superseding the
    previous one), in one transaction. None when the plan is not the user's."""
    target = _plan_id(plan_id)
    async with conn.transaction():
        await lock_user_plans(conn, user_id)
        cur = await conn.execute(
            "UPDATE training_plans SET status = 'ready', error = NULL, title = %s, markdown = %s, plan = %s,"
            " next_week = %s, next_week_due_at = %s, updated_at = now()"
            f" WHERE user_id = %s AND id = %s RETURNING {_PLAN}",
            (title.strip()[:120], markdown, Jsonb(dict(plan)), next_week, next_week_due_at, user_id, target),
        )
        row = await cur.fetchone()
        if row is None:
            return None
        if activate:
            await supersede(conn, user_id, target, row["start_date"], row["timezone"])
            cur = await conn.execute(
                f"UPDATE training_plans SET active = true WHERE user_id = %s AND id = %s RETURNING {_PLAN}",
                (user_id, target),
            )
            row = await cur.fetchone()
    return row


async def lock_user_plans(conn: Conn, user_id: UserId) -> None:
    """Serialises, until the transaction ends, the transactions that change which of the user's plans
    is active: two plans made ready at once take turns instead of both passing the `active` check and
    one failing on training_plans_one_active_uq."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s::text, 7))", (str(user_id),))


async def supersede(conn: Conn, user_id: UserId, keep: Any, from_date: date, timezone: str = "UTC") -> None:
    """Retire everything a new plan replaces from `from_date` on: the active plan (its days still to
    come), the label-only plans of `create_workout_plan` and their sessions still scheduled."""
    await conn.execute(
        "UPDATE training_plans SET active = false, next_week_due_at = NULL, updated_at = now()"
        " WHERE user_id = %s AND active AND id <> %s",
        (user_id, keep),
    )
    await conn.execute(
        "DELETE FROM plan_workouts WHERE user_id = %s AND plan_id <> %s AND date >= %s"
        " AND status = 'scheduled'",
        (user_id, keep, from_date),
    )
    await conn.execute(
        "UPDATE scheduled_workouts SET status = 'cancelled', updated_at = now()"
        " WHERE user_id = %s AND plan_id IS NOT NULL AND status = 'scheduled'"
        " AND (scheduled_date AT TIME ZONE %s)::date >= %s",
        (user_id, timezone, from_date),
    )
    await conn.execute(
        "UPDATE workout_plans SET status = 'cancelled', updated_at = now()"
        " WHERE user_id = %s AND status = 'active'",
        (user_id,),
    )


async def mark_failed(conn: Conn, user_id: UserId, plan_id: Any, error: str) -> dict[str, Any] | None:
    cur = await conn.execute(
        "UPDATE training_plans SET status = 'failed', error = %s, updated_at = now()"
        f" WHERE user_id = %s AND id = %s AND status <> 'ready' RETURNING {_PLAN}",
        ((error or "failed").strip()[:2000], user_id, _plan_id(plan_id)),
    )
    return await cur.fetchone()


async def update_document(
    conn: Conn,
    user_id: UserId,
    plan_id: Any,
    *,
    markdown: str,
    plan: Mapping[str, Any],
    title: str | None = None,
) -> dict[str, Any] | None:
    """Replace a ready plan's documents (a modification with its history entry)."""
    cur = await conn.execute(
        "UPDATE training_plans SET markdown = %s, plan = %s, title = coalesce(%s, title), updated_at = now()"
        f" WHERE user_id = %s AND id = %s AND status = 'ready' RETURNING {_PLAN}",
        (markdown, Jsonb(dict(plan)), title, user_id, _plan_id(plan_id)),
    )
    return await cur.fetchone()


# --- weeks ----------------------------------------------------------------------------------------


async def claim_week(
    conn: Conn,
    user_id: UserId,
    plan_id: Any,
    week_number: int,
    *,
    start_date: date,
    deload: bool = False,
    now: datetime,
) -> bool:
    """True for the one caller that gets to build the week: the first, or one taking over a failed
    build or one stale for STALE_CLAIM. A duplicate delivery gets False."""
    cur = await conn.execute(
        "INSERT INTO plan_weeks (plan_id, user_id, week_number, start_date, deload, claimed_at)"
        " SELECT id, user_id, %(week)s, %(start)s, %(deload)s, %(now)s FROM training_plans"
        " WHERE user_id = %(user)s AND id = %(plan)s"
        " AND (status = 'ready' OR (status = 'pending' AND plan IS NOT NULL AND %(week)s = 1))"
        " ON CONFLICT (plan_id, week_number) DO UPDATE SET status = 'building', error = NULL,"
        " attempts = plan_weeks.attempts + 1, claimed_at = EXCLUDED.claimed_at, deload = EXCLUDED.deload"
        " WHERE plan_weeks.status = 'failed'"
        " OR (plan_weeks.status = 'building' AND plan_weeks.claimed_at < %(stale)s)"
        " RETURNING week_number",
        {
            "week": week_number,
            "start": start_date,
            "deload": deload,
            "now": now,
            "user": user_id,
            "plan": _plan_id(plan_id),
            "stale": now - STALE_CLAIM,
        },
    )
    return await cur.fetchone() is not None


def _day_values(user_id: UserId, plan_id: Any, week_number: int, day: Mapping[str, Any]) -> tuple[Any, ...]:
    kind = day.get("kind")
    if kind not in DAY_KINDS:
        raise RepositoryError(f"a day is one of {', '.join(DAY_KINDS)}")
    weekday = day.get("weekday")
    if weekday not in WEEKDAYS:
        raise RepositoryError("a day needs its weekday name")
    workout = day.get("workout")
    if (kind == "training") != isinstance(workout, Mapping):
        raise RepositoryError("a training day has a workout and a rest day none")
    message = day.get("message")
    if message is not None and len(message) > MESSAGE_LIMIT:
        raise RepositoryError(f"a message is at most {MESSAGE_LIMIT} characters")
    return (
        user_id, plan_id, week_number, day["date"], weekday, kind, (day.get("focus") or None),
        Jsonb(dict(workout)) if isinstance(workout, Mapping) else None, Jsonb(list(day.get("notes") or [])),
        (day.get("recovery_notes") or None), message,
    )  # fmt: skip


async def save_week(
    conn: Conn,
    user_id: UserId,
    plan_id: Any,
    week_number: int,
    days: Sequence[Mapping[str, Any]],
    *,
    start_date: date,
    deload: bool = False,
    now: datetime,
    next_week: int | None = None,
    next_week_due_at: datetime | None = None,
) -> list[dict[str, Any]]:
    """Write the week's days (replacing any earlier version of the week) and mark it ready, in one
    transaction; with `next_week`, the plan's schedule moves on (`next_week_due_at` None: nothing due).
    Days are {date, weekday, kind, focus, workout (JSON), notes, recovery_notes, message}."""
    target = _plan_id(plan_id)
    rows = [_day_values(user_id, target, week_number, d) for d in days]
    async with conn.transaction():
        cur = await conn.execute(
            "INSERT INTO plan_weeks (plan_id, user_id, week_number, start_date, deload, status, claimed_at,"
            " built_at) SELECT id, user_id, %(week)s, %(start)s, %(deload)s, 'ready', %(now)s, %(now)s"
            " FROM training_plans"
            " WHERE user_id = %(user)s AND id = %(plan)s"
            " ON CONFLICT (plan_id, week_number) DO UPDATE SET status = 'ready', error = NULL,"
            " built_at = EXCLUDED.built_at, deload = EXCLUDED.deload RETURNING week_number",
            {
                "week": week_number,
                "start": start_date,
                "deload": deload,
                "now": now,
                "user": user_id,
                "plan": target,
            },
        )
        if await cur.fetchone() is None:
            raise RepositoryError("plan not found")
        await conn.execute(
            "DELETE FROM plan_workouts WHERE user_id = %s AND plan_id = %s AND week_number = %s",
            (user_id, target, week_number),
        )
        saved: list[dict[str, Any]] = []
        for values in rows:
            cur = await conn.execute(
                "INSERT INTO plan_workouts (user_id, plan_id, week_number, date, weekday, kind, focus,"
                " workout, notes, recovery_notes, message)"
                f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING {_DAY}",
                values,
            )
            row = await cur.fetchone()
            assert row is not None
            saved.append(row)
        if next_week is not None:
            await conn.execute(
                "UPDATE training_plans SET next_week = %s, next_week_due_at = %s, updated_at = now()"
                " WHERE user_id = %s AND id = %s",
                (next_week, next_week_due_at, user_id, target),
            )
    return saved


async def fail_week(conn: Conn, user_id: UserId, plan_id: Any, week_number: int, error: str) -> None:
    await conn.execute(
        "UPDATE plan_weeks SET status = 'failed', error = %s"
        " WHERE user_id = %s AND plan_id = %s AND week_number = %s AND status = 'building'",
        ((error or "failed").strip()[:2000], user_id, _plan_id(plan_id), week_number),
    )


async def list_weeks(conn: Conn, user_id: UserId, plan_id: Any) -> list[dict[str, Any]]:
    cur = await conn.execute(
        f"SELECT {_WEEK} FROM plan_weeks WHERE user_id = %s AND plan_id = %s ORDER BY week_number",
        (user_id, _plan_id(plan_id)),
    )
    return await cur.fetchall()


async def list_plan_days(conn: Conn, user_id: UserId, plan_id: Any) -> list[dict[str, Any]]:
    """Every planned day of a plan, in date order."""
    cur = await conn.execute(
        f"SELECT {_DAY} FROM plan_workouts WHERE user_id = %s AND plan_id = %s ORDER BY date",
        (user_id, _plan_id(plan_id)),
    )
    return await cur.fetchall()


async def week_days(conn: Conn, user_id: UserId, plan_id: Any, week_number: int) -> list[dict[str, Any]]:
    cur = await conn.execute(
        f"SELECT {_DAY} FROM plan_workouts WHERE user_id = %s AND plan_id = %s AND week_number = %s"
        " ORDER BY date",
        (user_id, _plan_id(plan_id), week_number),
    )
    return await cur.fetchall()


# --- days -----------------------------------------------------------------------------------------


async def list_workouts(
    conn: Conn, user_id: UserId, date_from: date, date_to: date, *, limit: int = 100
) -> list[dict[str, Any]]:
    """The active plan's days from `date_from` to `date_to` (both included), in date order."""
    if date_to < date_from:
        raise RepositoryError("the end date is before the start date")
    cur = await conn.execute(
        f"SELECT {', '.join('w.' + c.strip() for c in _DAY.split(','))} FROM plan_workouts w"
        " JOIN training_plans p ON p.id = w.plan_id AND p.user_id = w.user_id AND p.active"
        " WHERE w.user_id = %s AND w.date BETWEEN %s AND %s ORDER BY w.date, w.created_at LIMIT %s",
        (user_id, date_from, date_to, max(1, min(limit, 400))),
    )
    return await cur.fetchall()


async def get_workout(conn: Conn, user_id: UserId, workout_id: Any) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_DAY} FROM plan_workouts WHERE user_id = %s AND id = %s",
        (user_id, as_uuid(workout_id, "workout id")),
    )
    return await cur.fetchone()


async def workout_on(conn: Conn, user_id: UserId, day: date) -> dict[str, Any] | None:
    """The planned day on `day`: the active plan's, else the newest plan's."""
    cur = await conn.execute(
        f"SELECT {', '.join('w.' + c.strip() for c in _DAY.split(','))} FROM plan_workouts w"
        " JOIN training_plans p ON p.id = w.plan_id AND p.user_id = w.user_id"
        " WHERE w.user_id = %s AND w.date = %s ORDER BY p.active DESC, p.created_at DESC LIMIT 1",
        (user_id, day),
    )
    return await cur.fetchone()


async def replace_day(
    conn: Conn,
    user_id: UserId,
    workout_id: Any,
    *,
    kind: str,
    workout: Mapping[str, Any] | None,
    focus: str | None = None,
    notes: Sequence[str] = (),
    recovery_notes: str | None = None,
    message: str | None = None,
) -> dict[str, Any] | None:
    """A planned day rebuilt (the user changed it): its workout or recovery notes and its message."""
    if kind not in DAY_KINDS or (kind == "training") != isinstance(workout, Mapping):
        raise RepositoryError("a training day has a workout and a rest day none")
    if message is not None and len(message) > MESSAGE_LIMIT:
        raise RepositoryError(f"a message is at most {MESSAGE_LIMIT} characters")
    cur = await conn.execute(
        "UPDATE plan_workouts SET kind = %s, workout = %s, focus = %s, notes = %s, recovery_notes = %s,"
        " message = %s, published_at = NULL, updated_at = now()"
        f" WHERE user_id = %s AND id = %s RETURNING {_DAY}",
        (
            kind,
            Jsonb(dict(workout)) if workout is not None else None,
            focus,
            Jsonb(list(notes)),
            recovery_notes,
            message,
            user_id,
            as_uuid(workout_id, "workout id"),
        ),
    )
    return await cur.fetchone()


async def set_message(conn: Conn, user_id: UserId, workout_id: Any, message: str) -> dict[str, Any] | None:
    """Cache the day's text message."""
    if not message or len(message) > MESSAGE_LIMIT:
        raise RepositoryError(f"a message is 1 to {MESSAGE_LIMIT} characters")
    cur = await conn.execute(
        "UPDATE plan_workouts SET message = %s, updated_at = now()"
        f" WHERE user_id = %s AND id = %s RETURNING {_DAY}",
        (message, user_id, as_uuid(workout_id, "workout id")),
    )
    return await cur.fetchone()


async def mark_published(conn: Conn, user_id: UserId, workout_id: Any, at: datetime) -> bool:
    """True the first time only (the daily `WorkoutReady` is published once per day)."""
    cur = await conn.execute(
        "UPDATE plan_workouts SET published_at = %s WHERE user_id = %s AND id = %s AND published_at IS NULL"
        " RETURNING id",
        (at, user_id, as_uuid(workout_id, "workout id")),
    )
    return await cur.fetchone() is not None


async def set_workout_status(
    conn: Conn, user_id: UserId, workout_id: Any, status: str
) -> dict[str, Any] | None:
    if status not in WORKOUT_STATUSES:
        raise RepositoryError(f"status must be one of {', '.join(WORKOUT_STATUSES)}")
    cur = await conn.execute(
        "UPDATE plan_workouts SET status = %s, updated_at = now()"
        f" WHERE user_id = %s AND id = %s RETURNING {_DAY}",
        (status, user_id, as_uuid(workout_id, "workout id")),
    )
    return await cur.fetchone()


# --- the scheduler's read (across users) ----------------------------------------------------------


async def due_plans(conn: Conn, now: datetime, *, limit: int = 1000) -> list[dict[str, Any]]:
    """Active plans whose next week is due at `now`, soonest first: the one read that is not scoped
    to a user (the hourly scheduler). It scans the partial index's due entries only."""
    cur = await conn.execute(
        "SELECT id, user_id, next_week, next_week_due_at, weeks, start_date, timezone FROM training_plans"
        " WHERE active AND next_week_due_at IS NOT NULL AND next_week_due_at <= %s"
        " ORDER BY next_week_due_at, id LIMIT %s",
        (now, max(1, min(limit, 10000))),
    )
    return await cur.fetchall()
