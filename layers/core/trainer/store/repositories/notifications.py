"""notification_settings and notification_deliveries: what a user wants delivered, and one record per
(user, local day) of what was.

The delivery record is the Notifier's idempotency key: `claim` is a conditional upsert that only one
caller wins per (user, day) — a first delivery, a deferred one whose time has come, or one whose sender
died (claimed longer ago than STALE_CLAIM). `due_deferred` is, with the program pipeline's reads, one of
the reads not scoped to a user: the hourly run's, through the partial index on `not_before`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, time, timedelta
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from trainer.store.repositories import Conn, RepositoryError, UserId, set_clause

STALE_CLAIM = timedelta(minutes=3)
"""Three times the Notifier's timeout (template.yaml): a record still `sending` after this lost its sender
(its Lambda retry, or the hourly run, sends it again)."""
DELIVERY_STATUSES = ("deferred", "sending", "sent", "failed", "skipped")
FINAL_STATUSES = ("sent", "failed", "skipped")
PHONE_NUMBER = r"^\+[1-9][0-9]{6,14}$"

DEFAULT_NOTIFICATION_SETTINGS: dict[str, Any] = {
    "push_enabled": True,
    "morning_hour": None,
    "quiet_start": None,
    "quiet_end": None,
    "sms_enabled": False,
    "phone_number": None,
    "phone_verified_at": None,
}
_SETTINGS = "push_enabled, morning_hour, quiet_start, quiet_end, sms_enabled, phone_number, phone_verified_at"
_SETTABLE = frozenset(DEFAULT_NOTIFICATION_SETTINGS)
_OPEN = (
    "(notification_deliveries.status = 'deferred'"
    " OR (notification_deliveries.status = 'sending' AND notification_deliveries.claimed_at < %(stale)s))"
)
"""A record a delivery may still take: deferred, or claimed by a sender that died (ON CONFLICT's WHERE)."""
_DELIVERY = (
    "id, user_id, day, workout_id, status, reason, title, message, deep_link, channels, detail, not_before,"
    " attempts, claimed_at, sent_at, created_at, updated_at"
)


# --- settings -------------------------------------------------------------------------------------


async def get_settings(conn: Conn, user_id: UserId) -> dict[str, Any]:
    """The user's notification settings, or the defaults when none are stored."""
    cur = await conn.execute(f"SELECT {_SETTINGS} FROM notification_settings WHERE user_id = %s", (user_id,))
    row = await cur.fetchone()
    return dict(row) if row else dict(DEFAULT_NOTIFICATION_SETTINGS)


async def replace_settings(conn: Conn, user_id: UserId, values: Mapping[str, Any]) -> dict[str, Any]:
    """Store the given settings (the others keep their stored or default values); the database's checks
    (quiet period both ends or neither, SMS only with a verified number) are checked first."""
    unknown = set(values) - _SETTABLE
    if unknown:
        raise RepositoryError(f"unknown notification setting {sorted(unknown)[0]!r}")
    merged = {**await get_settings(conn, user_id), **values}
    check_settings(merged)
    names = sorted(values)
    if not names:
        return merged
    query = sql.SQL(
        "INSERT INTO notification_settings (user_id, {columns}) VALUES (%(user_id)s, {placeholders})"
        " ON CONFLICT (user_id) DO UPDATE SET {assignments}, updated_at = now() RETURNING " + _SETTINGS
    ).format(
        columns=sql.SQL(", ").join(sql.Identifier(n) for n in names),
        placeholders=sql.SQL(", ").join(sql.Placeholder(n) for n in names),
        assignments=set_clause(names),
    )
    cur = await conn.execute(query, {**{n: values[n] for n in names}, "user_id": user_id})
    row = await cur.fetchone()
    assert row is not None
    return dict(row)


def check_settings(values: Mapping[str, Any]) -> None:
    hour = values.get("morning_hour")
    if hour is not None and (isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23):
        raise RepositoryError("morning_hour must be an hour, 0-23")
    start, end = values.get("quiet_start"), values.get("quiet_end")
    if (start is None) != (end is None):
        raise RepositoryError("quiet hours need both quiet_start and quiet_end (or neither)")
    if start is not None and (not isinstance(start, time) or not isinstance(end, time)):
        raise RepositoryError("quiet_start and quiet_end must be times of day")
    if start is not None and start == end:
        raise RepositoryError("quiet_start and quiet_end must differ")
    if (values.get("phone_number") is None) != (values.get("phone_verified_at") is None):
        raise RepositoryError("a phone number is stored only once it is verified")
    if values.get("sms_enabled") and not values.get("phone_number"):
        raise RepositoryError("SMS needs a verified phone number")


# --- deliveries -----------------------------------------------------------------------------------


async def user_exists(conn: Conn, user_id: UserId) -> bool:
    """Whether the user still exists (a late event for a deleted account delivers and records nothing)."""
    cur = await conn.execute("SELECT EXISTS (SELECT 1 FROM users WHERE id = %s) AS found", (user_id,))
    row = await cur.fetchone()
    return bool(row and row["found"])


async def get_delivery(conn: Conn, user_id: UserId, day: date) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_DELIVERY} FROM notification_deliveries WHERE user_id = %s AND day = %s", (user_id, day)
    )
    return await cur.fetchone()


async def defer(
    conn: Conn,
    user_id: UserId,
    day: date,
    *,
    not_before: datetime,
    detail: Mapping[str, Any],
    reason: str,
    now: datetime,
    workout_id: Any = None,
) -> bool:
    """Record the day's delivery as deferred until `not_before` (a new record, one still deferred, or a
    claim whose sender died); False when the day's delivery was claimed or done meanwhile."""
    cur = await conn.execute(
        "INSERT INTO notification_deliveries (user_id, day, workout_id, status, reason, detail, not_before)"
        " VALUES (%(user)s, %(day)s, %(workout)s, 'deferred', %(reason)s, %(detail)s, %(not_before)s)"
        " ON CONFLICT (user_id, day) DO UPDATE SET reason = EXCLUDED.reason, detail = EXCLUDED.detail,"
        " not_before = EXCLUDED.not_before, workout_id = EXCLUDED.workout_id, status = 'deferred',"
        " claimed_at = NULL, updated_at = now()"
        f" WHERE {_OPEN} RETURNING id",
        {
            "user": user_id,
            "day": day,
            "workout": workout_id,
            "reason": reason,
            "detail": Jsonb(dict(detail)),
            "not_before": not_before,
            "stale": now - STALE_CLAIM,
        },
    )
    return await cur.fetchone() is not None


async def claim(
    conn: Conn,
    user_id: UserId,
    day: date,
    *,
    now: datetime,
    detail: Mapping[str, Any],
    workout_id: Any = None,
) -> dict[str, Any] | None:
    """The day's delivery record, now `sending` and claimed at `now`, for the one caller that may
    deliver it; None when another did or does (a duplicate event). `detail` is kept until the claim
    ends, so a claim whose sender died is sent again by the hourly run."""
    cur = await conn.execute(
        "INSERT INTO notification_deliveries (user_id, day, workout_id, status, claimed_at, attempts, detail)"
        " VALUES (%(user)s, %(day)s, %(workout)s, 'sending', %(now)s, 1, %(detail)s)"
        " ON CONFLICT (user_id, day) DO UPDATE SET status = 'sending', claimed_at = EXCLUDED.claimed_at,"
        " not_before = NULL, detail = EXCLUDED.detail,"
        " workout_id = coalesce(EXCLUDED.workout_id, notification_deliveries.workout_id),"
        " attempts = notification_deliveries.attempts + 1, updated_at = now()"
        f" WHERE {_OPEN} RETURNING {_DELIVERY}",
        {
            "user": user_id,
            "day": day,
            "workout": workout_id,
            "now": now,
            "stale": now - STALE_CLAIM,
            "detail": Jsonb(dict(detail)),
        },
    )
    return await cur.fetchone()


async def finish(
    conn: Conn,
    user_id: UserId,
    day: date,
    *,
    claimed_at: datetime,
    status: str,
    reason: str | None,
    channels: Sequence[Mapping[str, Any]],
    title: str | None = None,
    message: str | None = None,
    deep_link: str | None = None,
    sent_at: datetime | None = None,
) -> dict[str, Any] | None:
    """Close the claim taken at `claimed_at` with its outcome; None if the claim was lost meanwhile."""
    if status not in FINAL_STATUSES:
        raise RepositoryError(f"a delivery ends sent, failed or skipped, not {status!r}")
    cur = await conn.execute(
        "UPDATE notification_deliveries SET status = %(status)s, reason = %(reason)s,"
        " channels = %(channels)s, title = %(title)s, message = %(message)s, deep_link = %(link)s,"
        " sent_at = %(sent_at)s,"
        " detail = '{}', updated_at = now()"
        " WHERE user_id = %(user)s AND day = %(day)s AND status = 'sending' AND claimed_at = %(claimed)s"
        f" RETURNING {_DELIVERY}",
        {
            "status": status,
            "reason": reason[:200] if reason else None,
            "channels": Jsonb([dict(c) for c in channels]),
            "title": title[:200] if title else None,
            "message": message,
            "link": deep_link,
            "sent_at": sent_at,
            "user": user_id,
            "day": day,
            "claimed": claimed_at,
        },
    )
    return await cur.fetchone()


async def skip(
    conn: Conn,
    user_id: UserId,
    day: date,
    *,
    reason: str,
    now: datetime,
    workout_id: Any = None,
    title: str | None = None,
) -> bool:
    """Record the day as skipped (a new record, one still deferred, or a claim whose sender died); False
    when it was claimed or done meanwhile."""
    cur = await conn.execute(
        "INSERT INTO notification_deliveries (user_id, day, workout_id, status, reason, title)"
        " VALUES (%(user)s, %(day)s, %(workout)s, 'skipped', %(reason)s, %(title)s)"
        " ON CONFLICT (user_id, day) DO UPDATE SET status = 'skipped', reason = EXCLUDED.reason,"
        " not_before = NULL, claimed_at = NULL, detail = '{}', title = EXCLUDED.title, updated_at = now()"
        f" WHERE {_OPEN} RETURNING id",
        {
            "user": user_id,
            "day": day,
            "workout": workout_id,
            "reason": reason[:200],
            "title": title[:200] if title else None,
            "stale": now - STALE_CLAIM,
        },
    )
    return await cur.fetchone() is not None


async def list_deliveries(
    conn: Conn, user_id: UserId, *, before: date | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """The user's delivery records, newest day first, those before `before` when given."""
    cur = await conn.execute(
        f"SELECT {_DELIVERY} FROM notification_deliveries WHERE user_id = %s"
        " AND (%s::date IS NULL OR day < %s::date) ORDER BY day DESC LIMIT %s",
        (user_id, before, before, max(1, min(limit, 101))),
    )
    return await cur.fetchall()


async def due_deferred(
    conn: Conn, now: datetime, *, after: tuple[datetime, Any] | None = None, limit: int = 500
) -> list[dict[str, Any]]:
    """Deferred deliveries whose time has come (every user's), soonest first; `after` is the last
    (not_before, id) of the previous page."""
    cur = await conn.execute(
        "SELECT id, user_id, day, detail, not_before FROM notification_deliveries"
        " WHERE status = 'deferred' AND not_before <= %(now)s"
        " AND (%(after_at)s::timestamptz IS NULL OR (not_before, id) > (%(after_at)s, %(after_id)s::uuid))"
        " ORDER BY not_before, id LIMIT %(limit)s",
        {
            "now": now,
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": max(1, min(limit, 5000)),
        },
    )
    return await cur.fetchall()


async def stale_claims(conn: Conn, now: datetime, *, limit: int = 500) -> list[dict[str, Any]]:
    """Deliveries still `sending` STALE_CLAIM after their claim (their sender died), oldest first."""
    cur = await conn.execute(
        "SELECT id, user_id, day, detail, claimed_at FROM notification_deliveries"
        " WHERE status = 'sending' AND claimed_at < %s ORDER BY claimed_at, id LIMIT %s",
        (now - STALE_CLAIM, max(1, min(limit, 5000))),
    )
    return await cur.fetchall()
