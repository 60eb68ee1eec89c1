"""Milestone goals: specific targets (run a 5K, bench 100 kg) with their progress."""

from __future__ import annotations

from datetime import date
from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import MalformedId
from trainer.store.repositories import milestones as repo

MILESTONE_STATUSES: tuple[str, ...] = repo.MILESTONE_STATUSES


class MilestoneService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def with_status(self, status: str = "active") -> list[Row]:
        """Milestones with the status ('all': every one), the soonest target date first."""
        async with self._scope.use() as conn:
            return await repo.list_milestones(conn, self._scope.user, status)

    async def create(
        self,
        *,
        goal_name: str,
        goal_type: str = "other",
        target_value: float | None = None,
        target_unit: str | None = None,
        target_date: date | None = None,
        current_value: float | None = None,
        time_limit_min: float | None = None,
        target_reps: int | None = None,
    ) -> Row:
        async with self._scope.use(write=True) as conn:
            return await repo.create_milestone(
                conn,
                self._scope.user,
                goal_name=goal_name,
                goal_type=goal_type,
                target_value=target_value,
                target_unit=target_unit,
                target_date=target_date,
                current_value=current_value,
                time_limit_min=time_limit_min,
                target_reps=target_reps,
            )

    async def update_progress(self, milestone_id: Any, current_value: float) -> Row | None:
        """None when the user has no milestone with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.update_progress(conn, self._scope.user, milestone_id, current_value)
            except MalformedId:
                return None

    async def set_status(
        self, milestone_id: Any, status: str, *, current_value: float | None = None
    ) -> Row | None:
        """Mark it achieved (stamped), abandoned or active again, with its progress first when
        `current_value` is given, in one transaction; None when the user has no milestone with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                if current_value is not None:
                    progressed = await repo.update_progress(
                        conn, self._scope.user, milestone_id, current_value
                    )
                    if progressed is None:
                        return None
                return await repo.set_status(conn, self._scope.user, milestone_id, status)
            except MalformedId:
                return None
