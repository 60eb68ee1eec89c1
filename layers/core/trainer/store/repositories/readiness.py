"""readiness_entries: the user's check-ins, newest first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from trainer.store.repositories import Conn, UserId

_COLUMNS = (
    "id, recorded_at, sleep_hours, sleep_quality, energy, stress, soreness, last_session_rpe, notes,"
    " created_at"
)


async def add_entry(
    conn: Conn,
    user_id: UserId,
    *,
    recorded_at: datetime | None = None,
    sleep_hours: float | None = None,
    sleep_quality: int | None = None,
    energy: int | None = None,
    stress: int | None = None,
    soreness: dict[str, int] | None = None,
    last_session_rpe: float | None = None,
    notes: str | None = None,
) -> dict[str, Any]:
    cur = await conn.execute(
        "INSERT INTO readiness_entries (user_id, recorded_at, sleep_hours, sleep_quality, energy, stress,"
        " soreness, last_session_rpe, notes) VALUES (%s, coalesce(%s, now()), %s, %s, %s, %s, %s, %s, %s)"
        f" RETURNING {_COLUMNS}",
        (
            user_id,
            recorded_at,
            sleep_hours,
            sleep_quality,
            energy,
            stress,
            Jsonb(soreness or {}),
            last_session_rpe,
            notes,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def list_entries(
    conn: Conn, user_id: UserId, *, since: datetime | None = None, limit: int = 30
) -> list[dict[str, Any]]:
    """Check-ins newest first, recorded at or after `since` when given."""
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM readiness_entries WHERE user_id = %s"
        " AND (%s::timestamptz IS NULL OR recorded_at >= %s) ORDER BY recorded_at DESC, id LIMIT %s",
        (user_id, since, since, limit),
    )
    return await cur.fetchall()
