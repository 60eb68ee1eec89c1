"""Coaching services wired into the agent: the offline model's planner (composer on real user
data) and the `WorkoutCoach` the workout tools call (checks against the user, progression targets,
delete-after-use preferences)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from trainer.agent.training_context import load_training_facts
from trainer.domain.composer import compose_replacement, compose_workout, parse_request_muscles
from trainer.domain.workout import Exercise, Workout
from trainer.domain.workout_checks import WorkoutReview, review_workout
from trainer.store.db import Database
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.store.ports import SessionStore
from trainer.tools.base import ToolContext
from trainer.tools.preferences import consume_after_generation


def _utcnow() -> datetime:
    return datetime.now(UTC)


class CoachPlanner:
    """The OfflinePlanner of trainer.llm.offline: real workouts from the catalog composer."""

    def __init__(self, db: Database, store: SessionStore, clock: Callable[[], datetime] = _utcnow) -> None:
        self._db = db
        self._store = store
        self._clock = clock

    async def compose_workout(self, user_id: str, request_text: str) -> Workout:
        facts = await load_training_facts(self._db, user_id, self._clock())
        return compose_workout(facts.composer_request(request_text))

    async def current_workout(self, session_id: str) -> dict[str, Any] | None:
        return await self._store.get_state(session_id, CURRENT_WORKOUT_KEY)

    async def compose_replacement(
        self, user_id: str, session_id: str, exercise: dict[str, Any], request_text: str
    ) -> Exercise:
        facts = await load_training_facts(self._db, user_id, self._clock())
        current = await self.current_workout(session_id) or {}
        in_workout = [str(e.get("exercise_name", "")) for e in current.get("exercises", [])]
        old = Exercise.model_validate(exercise)
        return compose_replacement(facts.composer_request(request_text), old, avoid_names=in_workout)


class CoachServices:
    """`trainer.tools.base.WorkoutCoach` on the domain database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def check_workout(self, workout: Workout, ctx: ToolContext) -> list[str]:
        """Problems with a workout for this user right now; reported to the model, never blocking."""
        return (await self.review_workout(workout, ctx)).problems

    async def review_workout(self, workout: Workout, ctx: ToolContext) -> WorkoutReview:
        """The problems (load jumps beyond the progression rule included) and each exercise's target."""
        facts = await load_training_facts(self._db, ctx.user_id, ctx.now())
        requested, _ = parse_request_muscles(ctx.user_message)
        return review_workout(workout, facts.check_context(requested))

    async def after_generation(self, ctx: ToolContext) -> None:
        await consume_after_generation(ctx)
