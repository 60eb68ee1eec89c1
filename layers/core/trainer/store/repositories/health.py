"""health_samples and health_consents: the phone's health data and the user's consent per type of it
(migration 0023, docs/health-data.md). Every statement is scoped by `user_id`, but for the retention purge,
which deletes every user's samples older than the cutoff.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from trainer.store.repositories import Conn, UserId

_SAMPLE = "kind, sample_id, platform, start_at, end_at, value, unit, source, details, received_at"


@dataclass(frozen=True)
class SampleRow:
    """One sample as it is written."""

    sample_id: str
    kind: str
    start_at: datetime
    end_at: datetime
    value: float
    unit: str
    source: str
    details: dict[str, Any] | None = None


async def consents(conn: Conn, user_id: UserId, *, lock: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
    """data_type -> {granted, changed_at} of the types the user ever answered; `lock`: those types' rows
    are held (FOR SHARE) until the transaction ends, so a withdrawal cannot slip between a check and the
    writes it allowed."""
    if lock:
        cur = await conn.execute(
            "SELECT data_type, granted, changed_at FROM health_consents"
            " WHERE user_id = %s AND data_type = ANY(%s) ORDER BY data_type FOR SHARE",
            (user_id, list(lock)),
        )
    else:
        cur = await conn.execute(
            "SELECT data_type, granted, changed_at FROM health_consents WHERE user_id = %s"
            " ORDER BY data_type",
            (user_id,),
        )
    return {row["data_type"]: dict(row) for row in await cur.fetchall()}


async def set_consent(conn: Conn, user_id: UserId, data_type: str, granted: bool) -> dict[str, Any]:
    """Records the answer; `changed_at` moves only when the answer changes."""
    cur = await conn.execute(
        "INSERT INTO health_consents (user_id, data_type, granted) VALUES (%s, %s, %s)"
        " ON CONFLICT (user_id, data_type) DO UPDATE SET granted = excluded.granted,"
        " changed_at = CASE WHEN health_consents.granted = excluded.granted"
        "   THEN health_consents.changed_at ELSE now() END"
        " RETURNING data_type, granted, changed_at",
        (user_id, data_type, granted),
    )
    row = await cur.fetchone()
    assert row is not None
    return dict(row)


async def delete_kinds(conn: Conn, user_id: UserId, kinds: Sequence[str]) -> int:
    cur = await conn.execute(
        "DELETE FROM health_samples WHERE user_id = %s AND kind = ANY(%s)", (user_id, list(kinds))
    )
    return cur.rowcount


async def insert_samples(conn: Conn, user_id: UserId, platform: str, samples: Sequence[SampleRow]) -> int:
    """Stores the samples in one statement; one whose (user, platform, sample id) is already stored is
    left as it is. How many were new."""
    if not samples:
        return 0
    cur = await conn.execute(
        "INSERT INTO health_samples (user_id, platform, sample_id, kind, start_at, end_at, value, unit,"
        " source, details)"
        " SELECT %s, %s, s.* FROM unnest(%s::text[], %s::text[], %s::timestamptz[], %s::timestamptz[],"
        " %s::float8[], %s::text[], %s::text[], %s::jsonb[])"
        " AS s(sample_id, kind, start_at, end_at, value, unit, source, details)"
        " ON CONFLICT (user_id, platform, sample_id) DO NOTHING",
        (
            user_id,
            platform,
            [s.sample_id for s in samples],
            [s.kind for s in samples],
            [s.start_at for s in samples],
            [s.end_at for s in samples],
            [s.value for s in samples],
            [s.unit for s in samples],
            [s.source for s in samples],
            [Jsonb(s.details) if s.details is not None else None for s in samples],
        ),
    )
    return cur.rowcount


async def daily(
    conn: Conn, user_id: UserId, kinds: Sequence[str], *, since: datetime, until: datetime, timezone: str
) -> list[dict[str, Any]]:
    """Per kind and local day (the day a sample ended in `timezone`): {kind, day, samples, mean, mean_ln,
    total} over the samples that ended in [since, until)."""
    cur = await conn.execute(
        "SELECT kind, (end_at AT TIME ZONE %(tz)s)::date AS day, count(*) AS samples, avg(value) AS mean,"
        " avg(ln(greatest(value, 1e-9))) AS mean_ln, sum(value) AS total"
        " FROM health_samples WHERE user_id = %(user)s AND kind = ANY(%(kinds)s)"
        " AND end_at >= %(since)s AND end_at < %(until)s GROUP BY 1, 2 ORDER BY 1, 2",
        {"tz": timezone, "user": user_id, "kinds": list(kinds), "since": since, "until": until},
    )
    return await cur.fetchall()


async def samples(
    conn: Conn, user_id: UserId, kind: str, *, since: datetime, until: datetime, limit: int = 500
) -> list[dict[str, Any]]:
    """The samples of a kind that ended in [since, until), oldest first."""
    cur = await conn.execute(
        f"SELECT {_SAMPLE} FROM health_samples WHERE user_id = %s AND kind = %s AND end_at >= %s"
        " AND end_at < %s ORDER BY end_at, sample_id LIMIT %s",
        (user_id, kind, since, until, limit),
    )
    return await cur.fetchall()


async def kind_totals(conn: Conn, user_id: UserId) -> list[dict[str, Any]]:
    """Per kind stored: {kind, samples, newest_end}."""
    cur = await conn.execute(
        "SELECT kind, count(*) AS samples, max(end_at) AS newest_end FROM health_samples"
        " WHERE user_id = %s GROUP BY kind ORDER BY kind",
        (user_id,),
    )
    return await cur.fetchall()


async def workout_minutes(conn: Conn, user_id: UserId, activities: Sequence[str]) -> float:
    """Minutes of the stored workouts of these activities (the whole retention window)."""
    cur = await conn.execute(
        "SELECT coalesce(sum(value), 0) AS minutes FROM health_samples"
        " WHERE user_id = %s AND kind = 'workout' AND details ->> 'activity' = ANY(%s)",
        (user_id, list(activities)),
    )
    row = await cur.fetchone()
    return float(row["minutes"]) if row else 0.0


async def purge_ended_before(conn: Conn, cutoff: datetime, *, limit: int) -> int:
    """Deletes up to `limit` samples (of any user) that ended before `cutoff`, oldest first."""
    cur = await conn.execute(
        "DELETE FROM health_samples h USING ("
        "  SELECT user_id, platform, sample_id FROM health_samples WHERE end_at < %s ORDER BY end_at LIMIT %s"
        ") old WHERE h.user_id = old.user_id AND h.platform = old.platform AND h.sample_id = old.sample_id",
        (cutoff, limit),
    )
    return cur.rowcount
