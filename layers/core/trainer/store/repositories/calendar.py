"""calendar_entries (migration 0015): the active plan's days and the calendar's scheduled workouts as
one set of entries with one set of ids, and the writes that keep a plan day's id wherever it goes
(moving a plan day exchanges its date with the day it moves onto, in one statement).

An entry row: id, source ('plan' | 'calendar'), plan_id, week_number, date (the user's local day),
scheduled_date, kind, workout_type, duration_minutes, notes, exercises, status, created_at, updated_at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from psycopg.types.json import Jsonb

from trainer.domain.weekdays import WEEKDAYS
from trainer.store.repositories import Conn, RepositoryError, UserId, as_uuid

ENTRY = (
    "id, source, plan_id, week_number, date, scheduled_date, kind, workout_type, duration_minutes, notes,"
    " exercises, status, created_at, updated_at"
)
_DAY = (
    "id, plan_id, week_number, date, weekday, kind, focus, workout, notes, recovery_notes, message,"
    " published_at, status, created_at, updated_at"
)


async def list_upcoming(
    conn: Conn, user_id: UserId, *, days_ahead: int = 7, now: datetime | None = None
) -> list[dict[str, Any]]:
    """Training entries still 'scheduled' from now (12 hours back: a day's entry at midnight) to now +
    days_ahead, soonest first."""
    start = now or datetime.now(UTC)
    cur = await conn.execute(
        f"SELECT {ENTRY} FROM calendar_entries WHERE user_id = %s AND kind = 'training'"
        " AND status = 'scheduled' AND scheduled_date >= %s AND scheduled_date < %s"
        " ORDER BY scheduled_date, id LIMIT 100",
        (user_id, start - timedelta(hours=12), start + timedelta(days=days_ahead)),
    )
    return await cur.fetchall()


async def list_between(conn: Conn, user_id: UserId, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Every training entry with start <= scheduled_date < end, whatever its status, oldest first."""
    cur = await conn.execute(
        f"SELECT {ENTRY} FROM calendar_entries WHERE user_id = %s AND kind = 'training'"
        " AND scheduled_date >= %s AND scheduled_date < %s ORDER BY scheduled_date, id LIMIT 1000",
        (user_id, start, end),
    )
    return await cur.fetchall()


async def get_entry(conn: Conn, user_id: UserId, entry_id: Any) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {ENTRY} FROM calendar_entries WHERE user_id = %s AND id = %s",
        (user_id, as_uuid(entry_id, "workout id")),
    )
    return await cur.fetchone()


async def scheduled_in_range(
    conn: Conn, user_id: UserId, date_from: date, date_to: date, *, limit: int = 200
) -> list[dict[str, Any]]:
    """The calendar's own workouts (not the plan's days) whose local day is in the range, cancelled ones
    left out, in date order."""
    cur = await conn.execute(
        "SELECT s.id, s.scheduled_date, s.workout_type, s.duration_minutes, s.notes, s.exercises, s.status,"
        " s.plan_id, s.created_at, s.updated_at, e.date FROM scheduled_workouts s"
        " JOIN calendar_entries e ON e.id = s.id AND e.user_id = s.user_id"
        " WHERE s.user_id = %s AND e.date BETWEEN %s AND %s AND s.status <> 'cancelled'"
        " ORDER BY s.scheduled_date, s.id LIMIT %s",
        (user_id, date_from, date_to, max(1, min(limit, 400))),
    )
    return await cur.fetchall()


# --- plan days ------------------------------------------------------------------------------------


async def plan_day(
    conn: Conn, user_id: UserId, workout_id: Any, *, lock: bool = False
) -> dict[str, Any] | None:
    """A day of the active plan, with the plan's time zone and training days."""
    cur = await conn.execute(
        f"SELECT {', '.join('w.' + c.strip() for c in _DAY.split(','))}, p.timezone, p.training_days,"
        " p.start_date AS plan_start FROM plan_workouts w"
        " JOIN training_plans p ON p.id = w.plan_id AND p.user_id = w.user_id AND p.active"
        " WHERE w.user_id = %s AND w.id = %s" + (" FOR UPDATE OF w" if lock else ""),
        (user_id, as_uuid(workout_id, "workout id")),
    )
    return await cur.fetchone()


async def plan_day_on(conn: Conn, user_id: UserId, plan_id: Any, day: date) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_DAY} FROM plan_workouts WHERE user_id = %s AND plan_id = %s AND date = %s",
        (user_id, as_uuid(plan_id, "plan id"), day),
    )
    return await cur.fetchone()


async def plan_days_from(conn: Conn, user_id: UserId, plan_id: Any, start: date) -> list[dict[str, Any]]:
    """The plan's days from `start` on (and the day before, for recovery), in date order."""
    cur = await conn.execute(
        f"SELECT {_DAY} FROM plan_workouts WHERE user_id = %s AND plan_id = %s AND date >= %s"
        " ORDER BY date FOR UPDATE",
        (user_id, as_uuid(plan_id, "plan id"), start - timedelta(days=1)),
    )
    return await cur.fetchall()


async def set_plan_dates(conn: Conn, user_id: UserId, dates: Mapping[Any, date]) -> None:
    """Give plan days new dates, all in one statement (the days may exchange dates). A date keeps its
    plan week: callers move days within the weeks that are built."""
    if not dates:
        return
    ids = [as_uuid(k, "workout id") for k in dates]
    days = list(dates.values())
    names = [WEEKDAYS[d.weekday()] for d in days]
    await conn.execute(
        "UPDATE plan_workouts w SET date = v.day, weekday = v.weekday,"
        " week_number = coalesce((SELECT pw.week_number FROM plan_weeks pw WHERE pw.plan_id = w.plan_id"
        "   AND v.day >= pw.start_date AND v.day < pw.start_date + 7), w.week_number),"
        " updated_at = now()"
        " FROM unnest(%s::uuid[], %s::date[], %s::text[]) AS v(id, day, weekday)"
        " WHERE w.user_id = %s AND w.id = v.id",
        (ids, days, names, user_id),
    )


async def set_day_content(
    conn: Conn,
    user_id: UserId,
    workout_id: Any,
    *,
    kind: str,
    workout: Mapping[str, Any] | None,
    focus: str | None,
    notes: Sequence[str],
    recovery_notes: str | None = None,
) -> dict[str, Any] | None:
    """A plan day's content replaced (a missed session carried onto it, a dropped session made a rest
    day, extra sets): its message is cleared to be written again."""
    if (kind == "training") != isinstance(workout, Mapping):
        raise RepositoryError("a training day has a workout and a rest day none")
    cur = await conn.execute(
        "UPDATE plan_workouts SET kind = %s, workout = %s, focus = %s, notes = %s, recovery_notes = %s,"
        f" message = NULL, published_at = NULL, updated_at = now() WHERE user_id = %s AND id = %s"
        f" RETURNING {_DAY}",
        (
            kind,
            Jsonb(dict(workout)) if workout is not None else None,
            (focus or None) and str(focus)[:60],
            Jsonb([str(n)[:300] for n in notes][-10:]),
            recovery_notes,
            user_id,
            as_uuid(workout_id, "workout id"),
        ),
    )
    return await cur.fetchone()


async def set_plan_days(
    conn: Conn, user_id: UserId, plan_id: Any, days: Sequence[str], *, document: Mapping[str, Any] | None
) -> None:
    """The plan's training days (and its document with them) from now on."""
    ordered = [d for d in WEEKDAYS if d in set(days)]
    await conn.execute(
        "UPDATE training_plans SET training_days = %s, days_per_week = %s, plan = coalesce(%s, plan),"
        " updated_at = now() WHERE user_id = %s AND id = %s",
        (ordered, len(ordered), Jsonb(dict(document)) if document is not None else None, user_id,
         as_uuid(plan_id, "plan id")),
    )  # fmt: skip


# --- missed sessions ------------------------------------------------------------------------------


async def users_with_missed(conn: Conn, now: datetime, *, limit: int = 1000) -> list[Any]:
    """Users whose active plan has a training day before their local today still 'scheduled' (the
    daily run's cross-user read)."""
    cur = await conn.execute(
        "SELECT DISTINCT w.user_id FROM plan_workouts w"
        " JOIN training_plans p ON p.id = w.plan_id AND p.user_id = w.user_id AND p.active"
        " WHERE w.kind = 'training' AND w.status = 'scheduled'"
        " AND w.date < (%s::timestamptz AT TIME ZONE p.timezone)::date LIMIT %s",
        (now, max(1, min(limit, 10000))),
    )
    return [r["user_id"] for r in await cur.fetchall()]


async def claim_missed(conn: Conn, user_id: UserId, today: date) -> list[dict[str, Any]]:
    """The active plan's training days before `today` still 'scheduled' with nothing logged that day
    (in the plan's time zone), marked 'missed' by this call: each day is claimed once, so a second run
    finds none. Days with something logged are marked 'completed'."""
    await conn.execute(
        "UPDATE plan_workouts w SET status = 'completed', updated_at = now() FROM training_plans p"
        " WHERE p.id = w.plan_id AND p.user_id = w.user_id AND p.active AND w.user_id = %s"
        " AND w.kind = 'training' AND w.status = 'scheduled' AND w.date < %s"
        " AND EXISTS (SELECT 1 FROM workout_history h WHERE h.user_id = w.user_id"
        "   AND (h.performed_at AT TIME ZONE p.timezone)::date = w.date)",
        (user_id, today),
    )
    cur = await conn.execute(
        "UPDATE plan_workouts w SET status = 'missed', updated_at = now() FROM training_plans p"
        " WHERE p.id = w.plan_id AND p.user_id = w.user_id AND p.active AND w.user_id = %s"
        " AND w.kind = 'training' AND w.status = 'scheduled' AND w.date < %s"
        f" RETURNING {', '.join('w.' + c.strip() for c in _DAY.split(','))}",
        (user_id, today),
    )
    return sorted(await cur.fetchall(), key=lambda r: r["date"])


async def missed_since(conn: Conn, user_id: UserId, since: date) -> list[dict[str, Any]]:
    """The active plan's missed days from `since` on, in date order."""
    cur = await conn.execute(
        f"SELECT {', '.join('w.' + c.strip() for c in _DAY.split(','))} FROM plan_workouts w"
        " JOIN training_plans p ON p.id = w.plan_id AND p.user_id = w.user_id AND p.active"
        " WHERE w.user_id = %s AND w.status = 'missed' AND w.date >= %s ORDER BY w.date",
        (user_id, since),
    )
    return await cur.fetchall()
