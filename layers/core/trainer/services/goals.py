"""Category goals (free names) and muscle goals (the 16 muscles), as weights that sum to 1."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import goals as repo


def weights_by_category(rows: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Category goal rows as {category: weight}: what the composer, the plan builders and the
    distribution report weigh exercises by."""
    return {str(row["category"]): float(row["weight"]) for row in rows}


def weights_by_muscle(rows: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Muscle goal rows as {muscle: weight}."""
    return {str(row["muscle"]): float(row["weight"]) for row in rows}


class GoalService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def category_weights(self) -> dict[str, float]:
        """{category: weight}, summing to 1 ({} without goals)."""
        return weights_by_category(await self.categories())

    async def muscle_weights(self) -> dict[str, float]:
        """{muscle: weight}, summing to 1 ({} without goals)."""
        return weights_by_muscle(await self.muscles())

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
