"""Category goals (free names) and muscle goals (the 16 muscles), as weights that sum to 1."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import goals as repo


class GoalService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def categories(self) -> list[Row]:
        """{category, description, weight}, the heaviest first."""
        async with self._scope.use() as conn:
            return await repo.list_category_goals(conn, self._scope.user)

    async def muscles(self) -> list[Row]:
        """{muscle, weight}, the heaviest first."""
        async with self._scope.use() as conn:
            return await repo.list_muscle_goals(conn, self._scope.user)

    async def set_categories(self, goals: list[dict[str, Any]]) -> list[Row]:
        """Replace the category goals with [{category, description?, percentage}], normalised."""
        async with self._scope.use(write=True) as conn:
            return await repo.set_category_goals(conn, self._scope.user, goals)

    async def set_muscles(self, goals: Mapping[str, float]) -> list[Row]:
        """Replace the muscle goals with {muscle: percentage}, normalised."""
        async with self._scope.use(write=True) as conn:
            return await repo.set_muscle_goals(conn, self._scope.user, goals)
