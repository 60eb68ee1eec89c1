"""Logged exercises and the running distribution totals they feed: a log, a correction and an undo
change both in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from trainer.services.models import UserSettings
from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import MalformedId
from trainer.store.repositories import history as repo

HISTORY_COLUMNS: tuple[str, ...] = repo.HISTORY_COLUMNS
"""The fields of a logged exercise (what a correction may replace)."""


days_back_start = repo.days_back_start


class HistoryService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def recent(self, *, days_back: int = 14, limit: int = 15, now: datetime | None = None) -> list[Row]:
        """At most `limit` exercises logged in the last `days_back` days, newest first."""
        async with self._scope.use() as conn:
            return await repo.list_recent(conn, self._scope.user, days_back=days_back, limit=limit, now=now)

    async def between(self, start: datetime | None, end: datetime | None) -> list[Row]:
        """Every exercise with start <= performed_at < end (None: unbounded), oldest first."""
        async with self._scope.use() as conn:
            return await repo.list_between(conn, self._scope.user, start, end)

    async def recent_loaded_by_exercise(
        self, *, days_back: int, per_exercise: int, now: datetime | None = None
    ) -> list[Row]:
        """The newest `per_exercise` loaded sessions of each exercise of the last `days_back` days,
        oldest first (what progression reads)."""
        async with self._scope.use() as conn:
            return await repo.recent_loaded_by_exercise(
                conn, self._scope.user, days_back=days_back, per_exercise=per_exercise, now=now
            )

    async def distribution(self) -> Row:
        """Running totals: logged_count, category_total, muscle_total, category/muscle {name: total}."""
        async with self._scope.use() as conn:
            return await repo.distribution_totals(conn, self._scope.user)

    async def get(self, history_id: Any) -> Row | None:
        async with self._scope.use() as conn:
            try:
                return await repo.get_logged(conn, self._scope.user, history_id)
            except MalformedId:
                return None

    async def log(
        self, entries: Sequence[dict[str, Any]], *, units: UserSettings, now: datetime | None = None
    ) -> list[Row]:
        """Log exercises (loads and distances without a unit are in the user's `units`)."""
        async with self._scope.use(write=True) as conn:
            return await repo.log_exercises(
                conn,
                self._scope.user,
                entries,
                default_weight_unit=units.weight_unit,
                default_distance_unit=units.distance_unit,
                now=now,
            )

    async def replace(
        self, history_id: Any, entry: dict[str, Any], *, units: UserSettings, now: datetime | None = None
    ) -> tuple[Row, Row] | None:
        """Replace a logged exercise with a whole corrected entry: (old row, new row); None when the
        user has none with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.update_logged(
                    conn,
                    self._scope.user,
                    history_id,
                    entry,
                    default_weight_unit=units.weight_unit,
                    default_distance_unit=units.distance_unit,
                    now=now,
                )
            except MalformedId:
                return None

    async def delete(self, history_id: Any, *, session_id: str | None = None) -> Row | None:
        """The deleted row; None when the user has none with that id (with `session_id`: none logged
        in that chat session)."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.delete_logged(conn, self._scope.user, history_id, session_id=session_id)
            except MalformedId:
                return None

    async def logged_in_session(self, session_id: str) -> list[Row]:
        """The exercises logged in one chat session, newest first."""
        async with self._scope.use() as conn:
            return await repo.logged_in_session(conn, self._scope.user, session_id)
