"""generate_workout: a whole workout from the model's exercises, fitted to the user (today's readiness:
the check-in, else the phone's health data, and other apps' long leg sessions; the loads their location
can make), stored as the current workout and its artifact, and reviewed
(problems to fix, each exercise's progression target)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, ValidationError

from trainer.domain.progression import ProgressionTarget
from trainer.domain.workout import STRICT_NUMBERS, Exercise, Workout
from trainer.domain.workout_checks import WorkoutReview
from trainer.services.day_readiness import BASIS_WORDS
from trainer.store.models import CURRENT_WORKOUT_KEY, EventType
from trainer.tools.base import StatusMessage, Tool, ToolContext, not_shown
from trainer.tools.communication import ARTIFACTS_KEY, DISPLAYABLES_KEY
from trainer.tools.current_workout import (
    ARTIFACT_TYPE,
    SCHEMA_VERSION,
    ExerciseBrief,
    WorkoutChange,
    as_json,
    exercise_detail,
    new_id,
    workout_summary,
)
from trainer.tools.exercise_input import WorkoutInput, user_goal_weights
from trainer.tools.fitting import fit_workout
from trainer.tools.wording import ReplyContext, count_words, joined, prescription

logger = logging.getLogger(__name__)


class GeneratedSummary(BaseModel):
    exercise_count: int
    estimated_duration_min: float
    muscles_targeted: list[str]
    primary_goals: list[str] = []


def _brief(ex: dict[str, Any]) -> ExerciseBrief:
    return ExerciseBrief(
        id=ex["id"],
        exercise_name=ex["exercise_name"],
        exercise_type=ex["exercise_type"],
        order=ex["order"],
        detail=exercise_detail(ex),
    )


class GenerateArgs(BaseModel):
    model_config = STRICT_NUMBERS
    workout: WorkoutInput = Field(
        description="The whole workout: a title and its exercises (order 1, 2, 3...)"
    )


class ExerciseTarget(BaseModel):
    """The progression target of one exercise of a generated workout (None: no history to go on)."""

    exercise_id: str
    exercise_name: str
    target: ProgressionTarget | None = None


def _sent(arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The exercises a generate_workout call sent, read back as its own argument model (a result stored
    before results kept the prescribed exercises)."""
    try:
        workout = GenerateArgs.model_validate(arguments).workout
    except ValidationError:
        return []
    return [e.model_dump(mode="json", exclude_none=True) for e in workout.exercises]


AdjustedFrom = Literal["check_in", "health_data", "other_workouts"]


class GenerateResult(WorkoutChange):
    workout_id: str
    artifact_id: str
    title: str
    exercise_count: int
    summary: GeneratedSummary
    exercises: list[ExerciseBrief]
    problems: list[str] = Field(default_factory=list)
    targets: list[ExerciseTarget] = Field(default_factory=list)
    """Per exercise, in order: the next load and reps progression computes from the user's history."""
    adjustments: list[str] = Field(default_factory=list)
    """What the server changed to fit today's readiness, and why (say it to the user)."""
    adjusted_from: AdjustedFrom | None = None
    """What the adjustments answer: today's check-in, the phone's health data, or other apps' workouts."""
    prescribed: list[dict[str, Any]] = Field(default_factory=list)
    """The exercises as stored (loads fitted to the location, in the user's unit)."""

    def unfinished(self) -> str | None:
        return "the problems above need fixing before the workout is delivered" if self.problems else None

    def delivery_note(self) -> str | None:
        return not_shown(self.artifact_id)

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        sent = {str(e.get("exercise_name", "")).lower(): e for e in self.prescribed or _sent(arguments)}
        lines = [f"Here's {self.title}, {count_words(len(self.exercises), 'exercise', 'exercises')}:"]
        for brief in self.exercises:
            detail = prescription(sent.get(brief.exercise_name.lower(), {}))
            lines.append(f"{brief.order}. {brief.exercise_name}" + (f": {detail}" if detail else ""))
        if self.adjustments:
            lines.append(
                f"Based on {BASIS_WORDS[self.adjusted_from or 'check_in']} I {joined(self.adjustments)}."
            )
        return "\n".join(lines)


class GenerateWorkout(Tool[GenerateArgs, GenerateResult]):
    name = "generate_workout"
    can_finish = True
    description = (
        "Create a workout, which becomes the current workout; the result gives an id per exercise, each "
        "exercise's progression target, and any problem to fix (equipment, recovery, preferences, loads)."
    )
    Args = GenerateArgs
    Result = GenerateResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Creating your workout...", done="Workout ready"
    )
    category = "full"

    async def execute(self, args: GenerateArgs, ctx: ToolContext) -> GenerateResult:
        goals = await user_goal_weights(ctx, args.workout.exercises)
        workout, fit = await fit_workout(args.workout.to_workout(goals), ctx)
        displayables = await ctx.get_state(DISPLAYABLES_KEY) or {}
        workouts: dict[str, Any] = displayables.setdefault("workouts", {})
        known_exercises: dict[str, Any] = displayables.setdefault("exercises", {})
        artifacts = await ctx.get_state(ARTIFACTS_KEY) or {}

        taken = set(known_exercises)
        exercises: list[Exercise] = []
        for ex in sorted(workout.exercises, key=lambda e: e.order):
            ex_id = new_id("ex_", 3, taken)
            taken.add(ex_id)
            exercises.append(ex.model_copy(update={"id": ex_id}))
        workout_id = f"workout_{len(workouts) + 1}"
        artifact_id = new_id("art_", 6, set(artifacts))
        summary = workout_summary(workout, exercises)
        title = workout.title or _default_title(summary["muscles_targeted"])
        dumped = [as_json(ex) for ex in exercises]
        created_at = ctx.now().isoformat()

        current = {
            "workout_id": workout_id,
            "title": title,
            "exercises": dumped,
            "summary": summary,
            "artifact_id": artifact_id,
            "created_at": created_at,
        }
        artifact = {
            "artifact_id": artifact_id,
            "type": ARTIFACT_TYPE,
            "schema_version": SCHEMA_VERSION,
            "title": title,
            "summary": {
                "exercise_count": summary["exercise_count"],
                "estimated_duration_min": summary["estimated_duration_min"],
                "muscles_targeted": summary["muscles_targeted"],
            },
            "auto_start": False,
            "payload": {"workout_id": workout_id, "title": title, "exercises": dumped, "summary": summary},
        }
        workouts[workout_id] = {
            "exercise_ids": [ex["id"] for ex in dumped],
            "metadata": {"title": title, **summary},
            "artifact_id": artifact_id,
        }
        for item in dumped:
            known_exercises[item["id"]] = item
        artifacts[artifact_id] = artifact

        await ctx.put_state(CURRENT_WORKOUT_KEY, current)
        await ctx.put_state(DISPLAYABLES_KEY, displayables)
        await ctx.put_state(ARTIFACTS_KEY, artifacts)
        await ctx.append_event(EventType.ARTIFACT, artifact)

        review = await _review(workout.model_copy(update={"exercises": exercises}), ctx)
        await _after_generation(ctx)
        targets = review.targets if len(review.targets) == len(exercises) else [None] * len(exercises)
        return GenerateResult(
            artifact_id=artifact_id,
            workout_id=workout_id,
            title=title,
            exercise_count=len(dumped),
            summary=GeneratedSummary.model_validate(summary),
            exercises=[_brief(ex) for ex in dumped],
            problems=review.problems,
            adjustments=fit.changes if fit else [],
            adjusted_from=fit.basis if fit else None,
            prescribed=dumped,
            targets=[
                ExerciseTarget(exercise_id=ex["id"], exercise_name=ex["exercise_name"], target=target)
                for ex, target in zip(dumped, targets, strict=True)
            ],
        )

    def format(self, result: GenerateResult) -> str:
        lines = [
            f'Created {result.workout_id} "{result.title}" with {result.exercise_count} exercises:',
            *(
                f"  {ex.id}: {ex.exercise_name} ({ex.exercise_type}) [order: {ex.order}]"
                + (f" - {ex.detail}" if ex.detail else "")
                for ex in result.exercises
            ),
        ]
        if result.adjustments:
            lines.append(
                f"Adjusted to {BASIS_WORDS[result.adjusted_from or 'check_in']} (tell the user): "
                + "; ".join(result.adjustments)
            )
        known = [(t, t.target) for t in result.targets if t.target is not None]
        if known:
            lines.append("Progression targets from the user's history (next load x reps per set):")
            lines.extend(
                f"  {t.exercise_id} {t.exercise_name}: {_target_text(target)} - {target.reasoning}"
                for t, target in known
            )
        if result.problems:
            lines.append("Problems to fix before delivering:")
            lines.extend(f"  - {p}" for p in result.problems)
        return "\n".join(lines)


def _default_title(muscles: list[str]) -> str:
    return f"{' & '.join(muscles[:2])} Workout" if muscles else "Your Workout"


def _target_text(target: ProgressionTarget) -> str:
    load = f"{target.load:.2f}".rstrip("0").rstrip(".")
    return f"{load} {target.unit} x {target.reps}"


async def _review(workout: Workout, ctx: ToolContext) -> WorkoutReview:
    if ctx.coach is None:
        return WorkoutReview()
    try:
        return await ctx.coach.review_workout(workout, ctx)
    except Exception:
        logger.exception("workout checks failed")
        return WorkoutReview()


async def _after_generation(ctx: ToolContext) -> None:
    if ctx.coach is None:
        return
    try:
        await ctx.coach.after_generation(ctx)
    except Exception:
        logger.exception("after-generation step failed")
