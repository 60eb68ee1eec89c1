"""The `WorkoutCoach` the workout tools call, on the domain database: checks against the user,
progression targets, delete-after-use preferences."""

from __future__ import annotations

from trainer.domain.composer.request import parse_request_muscles
from trainer.domain.workout import Workout
from trainer.domain.workout_checks import WorkoutReview, review_workout
from trainer.sources.training_facts import load_training_facts
from trainer.store.db import Database
from trainer.tools.base import ToolContext
from trainer.tools.preferences import consume_after_generation


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
