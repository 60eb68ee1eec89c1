"""What a checkpoint keeps of a session's state beyond the workout (its `current_state`): the user's
temporary preferences (expiring or next-workout-only) and current location, read from Postgres.

A checkpoint replaces the events that told the model about them, so without these lines a "no
jumping this week" said an hour ago would vanish from the context until something fetched the
preferences again. The turn's synchronous checkpoint reads them through its pool
(`from_database`); the checkpoint job, which runs once in a while, opens one connection per
checkpoint (`from_url`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from trainer.chat.checkpoint import StateProvider
from trainer.services.user_data import UserData
from trainer.sources.formatters import day_label, zone
from trainer.store.db import Database
from trainer.store.models import Session


async def read_session_state(conn: Any, user_id: str, now: datetime | None = None) -> dict[str, str]:
    """`temporary_preferences` and `current_location` lines, each only when there is something."""
    data = UserData.on_connection(conn, user_id)
    active = await data.preferences.active(now or datetime.now(UTC))
    temporary = [p for p in active if p.get("expires_at") or p.get("delete_after_use")]
    location = await data.locations.current()
    state: dict[str, str] = {}
    if temporary:
        timezone = (await data.settings.get()).timezone or "UTC"
        state["temporary_preferences"] = "; ".join(_preference_line(p, timezone) for p in temporary)
    if location:
        state["current_location"] = str(location["name"])
    return state


def _preference_line(preference: dict[str, Any], timezone: str) -> str:
    line = f"{preference['type']}: {preference['description']}"
    if preference.get("expires_at"):
        line += f" (until {day_label(preference['expires_at'], zone(timezone))})"
    if preference.get("delete_after_use"):
        line += " (next workout only)"
    return line


def from_database(db: Database) -> StateProvider:
    async def provide(session: Session) -> dict[str, str]:
        async with db.connection() as conn:
            return await read_session_state(conn, session.user_id)

    return provide


def from_url(database_url: Callable[[], Awaitable[str | None]]) -> StateProvider:
    """A provider that connects once per checkpoint to the URL `database_url()` gives (none: no lines)."""

    async def provide(session: Session) -> dict[str, str]:
        from psycopg import AsyncConnection
        from psycopg.rows import dict_row

        from trainer.store.db import POOLER_SAFE

        url = await database_url()
        if not url:
            return {}
        async with await AsyncConnection.connect(url, row_factory=dict_row, **POOLER_SAFE) as conn:
            return await read_session_state(conn, session.user_id)

    return provide
