"""Preferences: permanent, expiring at `expires_at`, or consumed by the next generated workout."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from trainer.services.models import Preference
from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import MalformedId
from trainer.store.repositories import preferences as repo


class PreferenceService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def active(self, now: datetime | None = None) -> list[Row]:
        """The preferences not expired at `now`, oldest first."""
        async with self._scope.use() as conn:
            return await repo.list_active(conn, self._scope.user, now)

    async def create(
        self,
        *,
        type: str,
        description: str,
        guidance: str = "",
        expires_at: datetime | str | None = None,
        delete_after_use: bool = False,
        now: datetime | None = None,
    ) -> Preference:
        async with self._scope.use(write=True) as conn:
            row = await repo.create_preference(
                conn,
                self._scope.user,
                type=type,
                description=description,
                guidance=guidance,
                expires_at=expires_at,
                delete_after_use=delete_after_use,
                now=now,
            )
        return Preference.from_row(row)

    async def delete(self, preference_id: Any) -> Preference | None:
        """The deleted preference; None when the user has none with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                row = await repo.delete_preference(conn, self._scope.user, preference_id)
            except MalformedId:
                return None
        return Preference.from_row(row) if row else None

    async def consume_one_shot(self) -> list[Preference]:
        """Delete the next-workout-only preferences (once a workout was generated); returns them."""
        async with self._scope.use(write=True) as conn:
            rows = await repo.consume_delete_after_use(conn, self._scope.user)
        return [Preference.from_row(row) for row in rows]
