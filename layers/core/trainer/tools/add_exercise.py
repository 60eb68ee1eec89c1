"""add_exercise_to_workout: one exercise added to the current workout at a position (or at the end),
checked against the rest of the workout."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from trainer.domain.workout import STRICT_NUMBERS, Workout
from trainer.tools.artifacts import ExerciseJson
from trainer.tools.base import StatusMessage, Tool, ToolContext, not_shown
from trainer.tools.communication import DISPLAYABLES_KEY
from trainer.tools.current_workout import (
    WorkoutChange,
    exercise_detail,
    load_current_workout,
    new_id,
    renumber,
    save_current_workout,
    validated_exercises,
)
from trainer.tools.exercise_input import ExerciseInput, user_goal_weights
from trainer.tools.wording import ReplyContext, prescription

logger = logging.getLogger(__name__)


async def _check(workout: Workout, ctx: ToolContext) -> list[str]:
    if ctx.coach is None:
        return []
    try:
        return [str(p) for p in await ctx.coach.check_workout(workout, ctx)]
    except Exception:
        logger.exception("workout checks failed")
        return []


class NewExercise(ExerciseInput):
    """An exercise for add_exercise_to_workout: `order` is where it goes (default: the end)."""

    order: int | None = Field(  # type: ignore[assignment]
        default=None, ge=1, le=100, description="Position in the workout; omit to add it at the end"
    )


class AddArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise: NewExercise = Field(description="Its order is where it goes (default: the end)")
    reason: str | None = Field(default=None, max_length=300, description="Why, in a few words")


class AddResult(WorkoutChange):
    exercise_id: str
    exercise: ExerciseJson
    exercise_count: int
    order: int
    reason: str | None = None
    problems: list[str] = Field(default_factory=list)

    def unfinished(self) -> str | None:
        return "the problems above need fixing before the workout is delivered" if self.problems else None

    def delivery_note(self) -> str | None:
        if not self.artifact_id:
            return None
        return not_shown(self.artifact_id)

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        where = (
            "at the end"
            if self.order == self.exercise_count
            else f"as exercise {self.order} of {self.exercise_count}"
        )
        return f"Added {self.exercise.get('exercise_name')} {where}: {prescription(self.exercise)}."


class AddExerciseToWorkout(Tool[AddArgs, AddResult]):
    name = "add_exercise_to_workout"
    can_finish = True
    description = "Add one exercise to the current workout, at its order or at the end; later ones move down."
    shared_arguments: ClassVar[Mapping[str, str]] = {"exercise": "generate_workout"}
    Args = AddArgs
    Result = AddResult
    status: ClassVar[StatusMessage | None] = StatusMessage(start="Adding exercise...", done="Exercise added")
    category = "summary"

    async def execute(self, args: AddArgs, ctx: ToolContext) -> AddResult:
        current = await load_current_workout(ctx)
        exercises = [dict(e) for e in current["exercises"]]
        taken = {e["id"] for e in exercises}
        displayables = await ctx.get_state(DISPLAYABLES_KEY) or {}
        taken |= set(displayables.get("exercises") or {})
        added = args.exercise.filled(await user_goal_weights(ctx, [args.exercise]))
        added["id"] = new_id("ex_", 3, taken)
        position = min(args.exercise.order or len(exercises) + 1, len(exercises) + 1)
        exercises.insert(position - 1, added)
        renumber(exercises)
        exercises = validated_exercises(current, exercises)
        await save_current_workout(ctx, current, exercises)
        new = next(e for e in exercises if e["id"] == added["id"])
        problems = await _check(
            Workout.model_validate({"title": current.get("title"), "exercises": exercises}), ctx
        )
        return AddResult(
            exercise_id=new["id"],
            exercise=new,
            exercise_count=len(exercises),
            order=new["order"],
            reason=args.reason,
            problems=problems,
            workout_id=current.get("workout_id"),
            artifact_id=current.get("artifact_id"),
        )

    def format(self, result: AddResult) -> str:
        new = result.exercise
        lines = [
            f"Added {result.exercise_id}: {new['exercise_name']} ({new['exercise_type']}) "
            f"[order: {result.order}] - {exercise_detail(new)}; "
            f"the workout now has {result.exercise_count} exercises"
        ]
        if result.problems:
            lines.append("Problems to fix before delivering:")
            lines.extend(f"  - {p}" for p in result.problems)
        return "\n".join(lines)
