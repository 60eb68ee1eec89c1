"""Readiness check-ins: stored as entries; the latest one of the last READINESS_HOURS counts for today."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import readiness as repo

READINESS_HOURS = 18
"""A check-in speaks for the day it was made: one older than this no longer adjusts a workout."""


class ReadinessService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def check_in(self, **fields: Any) -> Row:
        """Store one check-in (sleep_hours, sleep_quality, energy, stress, soreness, last_session_rpe,
        notes, recorded_at); returns the stored row."""
        async with self._scope.use(write=True) as conn:
            return await repo.add_entry(conn, self._scope.user, **fields)

    async def recent(self, *, days: int = 14, limit: int = 30) -> list[Row]:
        since = datetime.now(UTC) - timedelta(days=days)
        async with self._scope.use() as conn:
            return await repo.list_entries(conn, self._scope.user, since=since, limit=limit)

    async def today(self, now: datetime | None = None) -> Row | None:
        """The newest check-in of the last READINESS_HOURS, or None."""
        since = (now or datetime.now(UTC)) - timedelta(hours=READINESS_HOURS)
        async with self._scope.use() as conn:
            rows = await repo.list_entries(conn, self._scope.user, since=since, limit=1)
        return rows[0] if rows else None
