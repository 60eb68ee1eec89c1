"""The generated training plans, as the user reads them: their plans, one plan with its weeks and days,
the plan to show, the planned days of a range. The program pipeline (trainer.programs.pipeline) builds
and changes them on its own repository; this is their read side for routes and tools."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import MalformedId
from trainer.store.repositories import programs as repo


@dataclass(frozen=True)
class PlanDetail:
    plan: Row
    """The plan with its markdown and structured document."""
    weeks: list[Row]
    """The weeks built (or being built), in order."""
    days: list[Row]
    """Every planned day, in date order."""


@dataclass(frozen=True)
class ShownPlan:
    plan: Row
    built_weeks: list[int]
    """The numbers of the weeks that are ready."""


class TrainingPlanService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def newest(self, *, limit: int = 20) -> list[Row]:
        """The user's plans, newest first, without their documents."""
        async with self._scope.use() as conn:
            return await repo.list_plans(conn, self._scope.user, limit=limit)

    async def exists(self) -> bool:
        """Whether the user has any plan (being built, ready or failed)."""
        return bool(await self.newest(limit=1))

    async def detail(self, plan_id: Any) -> PlanDetail | None:
        """None when the user has no plan with that id."""
        async with self._scope.use() as conn:
            try:
                plan = await repo.get_plan(conn, self._scope.user, plan_id)
            except MalformedId:
                return None
            if plan is None:
                return None
            weeks = await repo.list_weeks(conn, self._scope.user, plan_id)
            days = await repo.list_plan_days(conn, self._scope.user, plan_id)
        return PlanDetail(plan=plan, weeks=weeks, days=days)

    async def shown(self) -> ShownPlan | None:
        """The plan to tell the user about: one still being built (the newest), else the active plan,
        else the newest (a failed one); None without plans."""
        async with self._scope.use() as conn:
            newest = await repo.list_plans(conn, self._scope.user, limit=1)
            plan = newest[0] if newest and newest[0]["status"] == "pending" else None
            plan = (
                plan or await repo.get_active_plan(conn, self._scope.user) or (newest[0] if newest else None)
            )
            if plan is None:
                return None
            weeks = await repo.list_weeks(conn, self._scope.user, plan["id"])
        return ShownPlan(plan=plan, built_weeks=[w["week_number"] for w in weeks if w["status"] == "ready"])

    async def workouts(self, date_from: date, date_to: date, *, limit: int = 100) -> list[Row]:
        """The planned days from `date_from` to `date_to` (both included), in date order."""
        async with self._scope.use() as conn:
            return await repo.list_workouts(conn, self._scope.user, date_from, date_to, limit=limit)

    async def workout(self, workout_id: Any) -> Row | None:
        """One planned day; None when the user has none with that id."""
        async with self._scope.use() as conn:
            try:
                return await repo.get_workout(conn, self._scope.user, workout_id)
            except MalformedId:
                return None
