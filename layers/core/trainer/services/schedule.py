"""Scheduled workouts: planned future sessions on the user's calendar."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import MalformedId
from trainer.store.repositories import schedule as repo

SCHEDULE_STATUSES: tuple[str, ...] = repo.SCHEDULE_STATUSES


class ScheduleService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def upcoming(self, *, days_ahead: int = 7, now: datetime | None = None) -> list[Row]:
        """Workouts still scheduled from now to `days_ahead` days on, soonest first."""
        async with self._scope.use() as conn:
            return await repo.list_upcoming(conn, self._scope.user, days_ahead=days_ahead, now=now)

    async def between(self, start: datetime, end: datetime) -> list[Row]:
        """Workouts scheduled from `start` (inclusive) to `end`, any status, oldest first."""
        async with self._scope.use() as conn:
            return await repo.list_between(conn, self._scope.user, start, end)

    async def add(
        self,
        *,
        scheduled_date: datetime,
        workout_type: str,
        duration_minutes: int | None = None,
        notes: str | None = None,
        exercises: list[dict[str, Any]] | None = None,
    ) -> Row:
        async with self._scope.use(write=True) as conn:
            return await repo.schedule_workout(
                conn,
                self._scope.user,
                scheduled_date=scheduled_date,
                workout_type=workout_type,
                duration_minutes=duration_minutes,
                notes=notes,
                exercises=exercises,
            )

    async def update(self, workout_id: Any, **changes: Any) -> Row | None:
        """Change the given fields (scheduled_date, workout_type, duration_minutes, notes, exercises,
        status); None when the user has no scheduled workout with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.update_scheduled(conn, self._scope.user, workout_id, **changes)
            except MalformedId:
                return None

    async def delete(self, workout_id: Any) -> Row | None:
        """The deleted workout; None when the user has none with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.delete_scheduled(conn, self._scope.user, workout_id)
            except MalformedId:
                return None
