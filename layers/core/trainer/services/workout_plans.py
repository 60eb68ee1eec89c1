"""Calendar plans (workout_plans): labelled sessions laid out over several weeks, scheduled with the
plan in one transaction. Not the generated training plans (trainer.services.training_plans)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import plans as repo
from trainer.store.repositories import schedule

PLAN_STATUSES: tuple[str, ...] = repo.PLAN_STATUSES


@dataclass(frozen=True)
class PlanSession:
    """One workout a calendar plan puts on the calendar."""

    scheduled_date: datetime
    workout_type: str
    notes: str | None = None


class WorkoutPlanService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def with_status(self, status: str = "active") -> list[Row]:
        """Plans with the status ('all': every plan), the newest start first."""
        async with self._scope.use() as conn:
            return await repo.list_plans(conn, self._scope.user, status)

    async def create(
        self,
        *,
        plan_name: str,
        start_date: date,
        duration_weeks: int,
        goal_description: str | None = None,
        workouts_per_week: int | None = None,
        preferred_days: list[str] | None = None,
        workout_types: list[str] | None = None,
        sessions: Sequence[PlanSession] = (),
    ) -> tuple[Row, list[Row]]:
        """The plan and its scheduled workouts (in the order of `sessions`), written together or not
        at all."""
        async with self._scope.use(write=True) as conn:
            plan = await repo.create_plan(
                conn,
                self._scope.user,
                plan_name=plan_name,
                start_date=start_date,
                duration_weeks=duration_weeks,
                goal_description=goal_description,
                workouts_per_week=workouts_per_week,
                preferred_days=preferred_days,
                workout_types=workout_types,
            )
            scheduled = [
                await schedule.schedule_workout(
                    conn,
                    self._scope.user,
                    scheduled_date=session.scheduled_date,
                    workout_type=session.workout_type,
                    notes=session.notes,
                    plan_id=plan["id"],
                )
                for session in sessions
            ]
        return plan, scheduled
