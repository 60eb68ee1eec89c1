"""Workout generation and modification tools (seed 002 §6.4, seed 000 §4.9).

The current workout, the displayables and the artifacts are session state in the session store
(not process memory: Lambda keeps none between invocations).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError

from trainer.domain.progression import ProgressionTarget
from trainer.domain.workout import STRICT_NUMBERS, Exercise, ExerciseType, Workout, exercise_line
from trainer.domain.workout_checks import WorkoutReview
from trainer.store.models import CURRENT_WORKOUT_KEY, EventType
from trainer.tools.artifacts import ExerciseJson
from trainer.tools.base import (
    AnyTool,
    DeliveredArtifact,
    Reply,
    StatusMessage,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    validation_summary,
)
from trainer.tools.communication import ARTIFACTS_KEY, DISPLAYABLES_KEY
from trainer.tools.exercise_input import ExerciseInput, WorkoutInput, user_goal_weights
from trainer.tools.fitting import fit_workout

logger = logging.getLogger(__name__)

ARTIFACT_TYPE = "exercise_list"
SCHEMA_VERSION = "1"
PROTECTED_FIELDS = frozenset({"id", "exercise_type", "type"})
PER_SET_FIELDS = ("reps", "hold_sec", "load_each")
SECONDS_PER_REP = 3.0


def _new_id(prefix: str, nbytes: int, taken: set[str]) -> str:
    while True:
        candidate = f"{prefix}{secrets.token_hex(nbytes)}"
        if candidate not in taken:
            return candidate


def new_exercise_id(taken: set[str]) -> str:
    """An exercise id (ex_...) not among `taken`."""
    return _new_id("ex_", 3, taken)


def estimate_duration_min(exercises: list[Exercise]) -> int:
    """Rough session length: work plus rest for every exercise."""
    seconds = 0.0
    for ex in exercises:
        match ex.exercise_type:
            case "reps":
                seconds += sum(r * SECONDS_PER_REP for r in ex.reps or []) + (ex.sets or 0) * (
                    ex.rest_sec or 0
                )
            case "hold":
                seconds += sum(ex.hold_sec or []) + (ex.sets or 0) * (ex.rest_sec or 0)
            case "duration":
                seconds += (ex.duration_min or 0) * 60
            case "intervals":
                seconds += (ex.rounds or 0) * ((ex.work_sec or 0) + (ex.rest_sec or 0))
    return max(1, round(seconds / 60))


def muscles_targeted(exercises: list[Exercise]) -> list[str]:
    totals: dict[str, float] = {}
    for ex in exercises:
        for m in ex.muscles_utilized:
            totals[m.muscle] = totals.get(m.muscle, 0.0) + m.share
    return [name for name, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))]


def workout_summary(workout: Workout, exercises: list[Exercise]) -> dict[str, Any]:
    given = workout.summary
    return {
        "exercise_count": len(exercises),
        "estimated_duration_min": (
            given.estimated_duration_min
            if given and given.estimated_duration_min
            else estimate_duration_min(exercises)
        ),
        "muscles_targeted": (
            given.muscles_targeted if given and given.muscles_targeted else muscles_targeted(exercises)
        ),
        "primary_goals": list(given.primary_goals) if given else [],
    }


def _dump(ex: Exercise) -> dict[str, Any]:
    return ex.model_dump(mode="json", exclude_none=True)


class ExerciseBrief(BaseModel):
    """One exercise of a workout as a result lists it."""

    id: str
    exercise_name: str
    exercise_type: ExerciseType
    order: int
    detail: str = ""


class ExerciseRef(BaseModel):
    id: str
    exercise_name: str


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
        detail=_line(ex),
    )


class WorkoutChange(ToolResult):
    """A result that changed the current workout: the reply carries its exercises, the SSE frame the
    id of the workout's artifact."""

    workout_id: str | None = None
    artifact_id: str | None = None

    def add_to_reply(self, reply: Reply) -> None:
        reply.workout_changed = True

    def delivered_artifact(self) -> DeliveredArtifact | None:
        return DeliveredArtifact(self.artifact_id, None) if self.artifact_id else None


def _line(ex: dict[str, Any]) -> str:
    try:
        return exercise_line(ex)
    except (ValidationError, ValueError):
        return ""


class GenerateArgs(BaseModel):
    model_config = STRICT_NUMBERS
    workout: WorkoutInput = Field(
        description="The complete workout: title, exercises (1-indexed order), summary"
    )


class ExerciseTarget(BaseModel):
    """The progression target of one exercise of a generated workout (None: no history to go on)."""

    exercise_id: str
    exercise_name: str
    target: ProgressionTarget | None = None


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
    """What the server changed to fit today's readiness check-in, and why (say it to the user)."""
    prescribed: list[dict[str, Any]] = Field(default_factory=list)
    """The exercises as stored (loads fitted to the location, in the user's unit)."""

    def unfinished(self) -> str | None:
        return "the problems above need fixing before the workout is delivered" if self.problems else None

    def delivery_note(self) -> str | None:
        return (
            f"IMPORTANT: You MUST now call message_notify_user with artifact_id={self.artifact_id} "
            "to show this workout to the user."
        )


class GenerateWorkout(Tool[GenerateArgs, GenerateResult]):
    name = "generate_workout"
    can_finish = True
    description = (
        "Create a structured workout (an exercise_list artifact) that becomes the current workout. "
        "Each exercise follows one of 4 types: reps, hold, duration or intervals. Returns artifact_id, "
        "workout_id and an id per exercise; final: true delivers it. A request for a body part or "
        "muscles ('upper body', 'arms') means every exercise mainly trains those muscles; a beginner "
        "gets beginner-level exercises."
    )
    Args = GenerateArgs
    Result = GenerateResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Creating your workout...", done="Workout ready"
    )
    category = "full"

    async def execute(self, args: GenerateArgs, ctx: ToolContext) -> GenerateResult:
        goals = await user_goal_weights(ctx, args.workout.exercises)
        workout, adjustments = await fit_workout(args.workout.to_workout(goals), ctx)
        displayables = await ctx.get_state(DISPLAYABLES_KEY) or {}
        workouts: dict[str, Any] = displayables.setdefault("workouts", {})
        known_exercises: dict[str, Any] = displayables.setdefault("exercises", {})
        artifacts = await ctx.get_state(ARTIFACTS_KEY) or {}

        taken = set(known_exercises)
        exercises: list[Exercise] = []
        for ex in sorted(workout.exercises, key=lambda e: e.order):
            ex_id = _new_id("ex_", 3, taken)
            taken.add(ex_id)
            exercises.append(ex.model_copy(update={"id": ex_id}))
        workout_id = f"workout_{len(workouts) + 1}"
        artifact_id = _new_id("art_", 6, set(artifacts))
        summary = workout_summary(workout, exercises)
        title = workout.title or _default_title(summary["muscles_targeted"])
        dumped = [_dump(ex) for ex in exercises]
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
            adjustments=adjustments,
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
                "Adjusted to today's readiness check-in (tell the user): " + "; ".join(result.adjustments)
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


async def _check(workout: Workout, ctx: ToolContext) -> list[str]:
    if ctx.coach is None:
        return []
    try:
        return [str(p) for p in await ctx.coach.check_workout(workout, ctx)]
    except Exception:
        logger.exception("workout checks failed")
        return []


async def _after_generation(ctx: ToolContext) -> None:
    if ctx.coach is None:
        return
    try:
        await ctx.coach.after_generation(ctx)
    except Exception:
        logger.exception("after-generation step failed")


async def load_current_workout(ctx: ToolContext) -> dict[str, Any]:
    current = await ctx.get_state(CURRENT_WORKOUT_KEY)
    if not current or not current.get("exercises"):
        raise ToolError("No active workout in this session. Create one with generate_workout first.")
    return current


def find_exercise(exercises: list[dict[str, Any]], exercise_id: str) -> int:
    """Index of the exercise named by its id (ex_...) or its order number ("1")."""
    key = exercise_id.strip()
    for i, ex in enumerate(exercises):
        if ex.get("id") == key:
            return i
    number = key.lstrip("#")
    if number.isdigit():
        for i, ex in enumerate(exercises):
            if ex.get("order") == int(number):
                return i
    valid = ", ".join(
        f"{ex.get('id')} (order {ex.get('order')}: {ex.get('exercise_name')})" for ex in exercises
    )
    raise ToolError(f"Exercise '{exercise_id}' not found in the current workout. Valid: {valid}")


def _renumber(exercises: list[dict[str, Any]]) -> None:
    for i, ex in enumerate(exercises, start=1):
        ex["order"] = i


def _repair_groups(exercises: list[dict[str, Any]]) -> None:
    """After a removal: positions 1..n again, group header on the new first member, and a group
    too small for its type dissolves."""
    members: dict[str, list[dict[str, Any]]] = {}
    for ex in exercises:
        if ex.get("group"):
            members.setdefault(ex["group"]["id"], []).append(ex)
    for group in members.values():
        group.sort(key=lambda e: e["group"]["position"])
        header = {k: group[0]["group"].get(k) for k in ("name", "rounds", "rest_between_rounds_sec")}
        for position, ex in enumerate(group, start=1):
            ex["group"]["position"] = position
        for ex in group:
            for k in header:
                ex["group"].pop(k, None)
        for k, v in header.items():
            if v is not None:
                group[0]["group"][k] = v
        kind = group[0]["group"]["type"]
        too_small = (kind == "superset" and len(group) != 2) or (
            kind in ("circuit", "giant_set") and len(group) < 3
        )
        if too_small or not group:
            for ex in group:
                ex.pop("group", None)


def _validated_workout(current: dict[str, Any], exercises: list[dict[str, Any]]) -> list[dict[str, Any]]:
    try:
        workout = Workout.model_validate({"title": current.get("title"), "exercises": exercises})
    except ValidationError as exc:
        raise ToolError(f"The change would make the workout invalid: {validation_summary(exc)}") from exc
    return [_dump(ex) for ex in workout.exercises]


UNADJUSTED_KEY = "before_readiness"
"""The current workout as made ({title, exercises}), kept while a readiness check-in has adjusted it
(trainer.tools.readiness); any other edit drops it, so a later check-in starts from the edit."""


async def save_current_workout(
    ctx: ToolContext,
    current: dict[str, Any],
    exercises: list[dict[str, Any]],
    *,
    unadjusted: dict[str, Any] | None = None,
) -> None:
    """Writes the workout back and keeps the displayables and the artifact payload in step.
    `unadjusted`: the exercises before a readiness adjustment (only check_readiness passes them)."""
    current = {k: v for k, v in current.items() if k != UNADJUSTED_KEY}
    if unadjusted is not None:
        current[UNADJUSTED_KEY] = unadjusted
    exercises = sorted(exercises, key=lambda e: e["order"])
    summary = dict(current.get("summary") or {})
    models = [Exercise.model_validate(e) for e in exercises]
    summary["exercise_count"] = len(exercises)
    summary["estimated_duration_min"] = estimate_duration_min(models)
    summary["muscles_targeted"] = muscles_targeted(models)
    current = {**current, "exercises": exercises, "summary": summary}
    await ctx.put_state(CURRENT_WORKOUT_KEY, current)

    displayables = await ctx.get_state(DISPLAYABLES_KEY) or {}
    workouts = displayables.setdefault("workouts", {})
    known = displayables.setdefault("exercises", {})
    workout_id = current.get("workout_id")
    if workout_id:
        entry = workouts.setdefault(workout_id, {"artifact_id": current.get("artifact_id")})
        entry["exercise_ids"] = [e["id"] for e in exercises]
        entry["metadata"] = {"title": current.get("title"), **summary}
    for ex in exercises:
        known[ex["id"]] = ex
    await ctx.put_state(DISPLAYABLES_KEY, displayables)

    artifact_id = current.get("artifact_id")
    if artifact_id:
        artifacts = await ctx.get_state(ARTIFACTS_KEY) or {}
        artifact = artifacts.get(artifact_id)
        if artifact is not None:
            artifact["summary"] = {
                "exercise_count": summary["exercise_count"],
                "estimated_duration_min": summary["estimated_duration_min"],
                "muscles_targeted": summary["muscles_targeted"],
            }
            artifact["payload"] = {**artifact.get("payload", {}), "exercises": exercises, "summary": summary}
            await ctx.put_state(ARTIFACTS_KEY, artifacts)


class ReplacementExercise(ExerciseInput):
    """An exercise for swap_exercise: `order` defaults to the replaced exercise's position."""

    order: int | None = Field(default=None, ge=1, description="Defaults to the replaced exercise's order")  # type: ignore[assignment]


class SwapArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(min_length=1, description="Exercise id (ex_...) or order number ('1')")
    new_exercise: ReplacementExercise = Field(description="The full replacement exercise")
    reason: str | None = Field(default=None, max_length=300)


class SwapResult(WorkoutChange):
    old_id: str
    old_name: str
    old_exercise: ExerciseRef
    new_exercise: ExerciseJson
    new_id: str
    reason: str | None = None


class SwapExercise(Tool[SwapArgs, SwapResult]):
    name = "swap_exercise"
    can_finish = True
    description = (
        "Replace one exercise of the current workout with a new one (same schema as generate_workout "
        "exercises). Identify it by id (ex_...) or order number. Keep the movement pattern and a similar "
        "difficulty (an incline press for another loaded press, not push-ups) unless the user asks otherwise."
    )
    Args = SwapArgs
    Result = SwapResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Finding alternative...", done="Exercise swapped"
    )
    category = "summary"

    async def execute(self, args: SwapArgs, ctx: ToolContext) -> SwapResult:
        current = await load_current_workout(ctx)
        exercises = [dict(e) for e in current["exercises"]]
        index = find_exercise(exercises, args.exercise_id)
        old = exercises[index]
        taken = {e["id"] for e in exercises}
        displayables = await ctx.get_state(DISPLAYABLES_KEY) or {}
        taken |= set(displayables.get("exercises") or {})
        replacement = args.new_exercise.filled(await user_goal_weights(ctx, [args.new_exercise]))
        replacement["id"] = _new_id("ex_", 3, taken)
        replacement["order"] = old["order"]
        if "group" not in replacement and old.get("group"):
            replacement["group"] = old["group"]
        requested_order = args.new_exercise.order
        exercises[index] = replacement
        if requested_order is not None and requested_order != old["order"]:
            exercises.pop(index)
            exercises.insert(min(requested_order, len(exercises) + 1) - 1, replacement)
            _renumber(exercises)
        exercises = _validated_workout(current, exercises)
        await save_current_workout(ctx, current, exercises)
        new = next(e for e in exercises if e["id"] == replacement["id"])
        return SwapResult(
            old_id=old["id"],
            old_name=old["exercise_name"],
            old_exercise=ExerciseRef(id=old["id"], exercise_name=old["exercise_name"]),
            new_exercise=new,
            new_id=new["id"],
            reason=args.reason,
            workout_id=current.get("workout_id"),
            artifact_id=current.get("artifact_id"),
        )

    def format(self, result: SwapResult) -> str:
        new = result.new_exercise
        return (
            f"Replaced {result.old_id} ({result.old_name}) → {new['id']}: {new['exercise_name']} "
            f"({new['exercise_type']}) [order: {new['order']}] - {_line(new)}"
        )


class AdjustArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(min_length=1, description="Exercise id (ex_...) or order number ('1')")
    adjustments: dict[str, Any] = Field(
        min_length=1,
        description=(
            'Fields to change, e.g. {"sets": 4, "reps": [8, 8, 8, 8], "load_each": [60, 60, 60, 60], '
            '"rest_sec": 90} or {"order": 1}. Not id or exercise_type (use swap_exercise).'
        ),
    )


class AdjustResult(WorkoutChange):
    exercise_id: str
    exercise_name: str
    adjustments: dict[str, Any]
    old_values: dict[str, Any]
    changes_summary: str
    exercise: ExerciseJson


class AdjustExercise(Tool[AdjustArgs, AdjustResult]):
    name = "adjust_exercise"
    can_finish = True
    description = (
        "Modify fields of one exercise in the current workout (sets, reps, load_each, rest_sec, "
        "hold_sec, duration_min, rounds, work_sec, order, ...). Only include fields you want to change."
    )
    Args = AdjustArgs
    Result = AdjustResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Adjusting exercise...", done="Exercise updated"
    )
    category = "summary"

    async def execute(self, args: AdjustArgs, ctx: ToolContext) -> AdjustResult:
        protected = sorted(PROTECTED_FIELDS & set(args.adjustments))
        if protected:
            raise ToolError(
                f"Cannot change {', '.join(protected)} with adjust_exercise; "
                "use swap_exercise to replace the exercise with one of another type"
            )
        current = await load_current_workout(ctx)
        exercises = [dict(e) for e in current["exercises"]]
        index = find_exercise(exercises, args.exercise_id)
        old = exercises[index]
        changes = dict(args.adjustments)
        new_order = changes.pop("order", None)
        merged = {**old, **changes}
        if "sets" in changes:
            _resize_per_set_lists(merged, changes)
        merged = {k: v for k, v in merged.items() if v is not None}
        try:
            validated = _dump(Exercise.model_validate(merged))
        except ValidationError as exc:
            raise ToolError(f"Invalid adjustment for {old['id']}: {validation_summary(exc)}") from exc
        exercises[index] = validated
        if new_order is not None:
            if not isinstance(new_order, int) or new_order < 1:
                raise ToolError("'order' must be a positive integer")
            exercises.pop(index)
            exercises.insert(min(new_order, len(exercises) + 1) - 1, validated)
            _renumber(exercises)
        exercises = _validated_workout(current, exercises)
        await save_current_workout(ctx, current, exercises)
        updated = next(e for e in exercises if e["id"] == old["id"])
        changed_keys = sorted(k for k in set(old) | set(updated) if old.get(k) != updated.get(k))
        old_values = {k: old.get(k) for k in changed_keys}
        summary = ", ".join(f"{k} {_short(old.get(k))}→{_short(updated.get(k))}" for k in changed_keys)
        return AdjustResult(
            exercise_id=old["id"],
            exercise_name=updated["exercise_name"],
            adjustments=args.adjustments,
            old_values=old_values,
            changes_summary=summary or "no change",
            exercise=updated,
            workout_id=current.get("workout_id"),
            artifact_id=current.get("artifact_id"),
        )

    def format(self, result: AdjustResult) -> str:
        return f"Updated {result.exercise_id}: {result.exercise_name} - {result.changes_summary}"


def _resize_per_set_lists(merged: dict[str, Any], changes: dict[str, Any]) -> None:
    """Changing `sets` alone stretches or trims the per-set lists (repeating the last value)."""
    sets = merged.get("sets")
    if not isinstance(sets, int) or sets < 1:
        return
    for name in PER_SET_FIELDS:
        values = merged.get(name)
        if name in changes or not isinstance(values, list) or not values:
            continue
        merged[name] = values[:sets] + [values[-1]] * max(0, sets - len(values))


def _short(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ",".join(str(v) for v in value) + "]"
    if value is None:
        return "none"
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


class RemoveArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(min_length=1, description="Exercise id (ex_...) or order number ('1')")
    reason: str | None = Field(default=None, max_length=300)


class RemainingExercise(BaseModel):
    id: str
    order: int


class RemoveResult(WorkoutChange):
    exercise_id: str
    removed_exercise: ExerciseRef
    remaining_count: int
    remaining: list[RemainingExercise]
    reason: str | None = None


class RemoveExercise(Tool[RemoveArgs, RemoveResult]):
    name = "remove_exercise"
    can_finish = True
    description = "Remove one exercise from the current workout; the exercises after it move up one position."
    Args = RemoveArgs
    Result = RemoveResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Removing exercise...", done="Exercise removed"
    )
    category = "confirmation"

    async def execute(self, args: RemoveArgs, ctx: ToolContext) -> RemoveResult:
        current = await load_current_workout(ctx)
        exercises = [dict(e) for e in current["exercises"]]
        index = find_exercise(exercises, args.exercise_id)
        if len(exercises) == 1:
            raise ToolError(
                "This is the only exercise in the workout; generate a new workout instead of removing it"
            )
        removed = exercises.pop(index)
        _renumber(exercises)
        exercises = [{**e, "group": dict(e["group"])} if e.get("group") else e for e in exercises]
        _repair_groups(exercises)
        exercises = _validated_workout(current, exercises)
        await save_current_workout(ctx, current, exercises)
        return RemoveResult(
            exercise_id=removed["id"],
            removed_exercise=ExerciseRef(id=removed["id"], exercise_name=removed["exercise_name"]),
            remaining_count=len(exercises),
            remaining=[RemainingExercise(id=e["id"], order=e["order"]) for e in exercises],
            reason=args.reason,
            workout_id=current.get("workout_id"),
            artifact_id=current.get("artifact_id"),
        )

    def format(self, result: RemoveResult) -> str:
        orders = ", ".join(f"{e.id} {e.order}" for e in result.remaining)
        return (
            f"Removed {result.exercise_id} ({result.removed_exercise.exercise_name}); "
            f"{result.remaining_count} remain, orders now: {orders}"
        )


class NewExercise(ExerciseInput):
    """An exercise for add_exercise_to_workout: `order` is where it goes (default: the end)."""

    order: int | None = Field(  # type: ignore[assignment]
        default=None, ge=1, le=100, description="Position in the workout; omit to add it at the end"
    )


class AddArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise: NewExercise = Field(
        description="The exercise to add (same schema as generate_workout exercises, without id)"
    )
    reason: str | None = Field(default=None, max_length=300)


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
        return f"Deliver the updated workout with message_notify_user and artifact_id={self.artifact_id}."


class AddExerciseToWorkout(Tool[AddArgs, AddResult]):
    name = "add_exercise_to_workout"
    can_finish = True
    description = (
        "Add one exercise to the current workout, at a position (order) or at the end; the exercises "
        "from that position move down one. Same schema as generate_workout exercises (omit id). "
        "Deliver the updated workout with message_notify_user and the workout's artifact_id."
    )
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
        added["id"] = _new_id("ex_", 3, taken)
        position = min(args.exercise.order or len(exercises) + 1, len(exercises) + 1)
        exercises.insert(position - 1, added)
        _renumber(exercises)
        exercises = _validated_workout(current, exercises)
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
            f"[order: {result.order}] - {_line(new)}; the workout now has {result.exercise_count} exercises"
        ]
        if result.problems:
            lines.append("Problems to fix before delivering:")
            lines.extend(f"  - {p}" for p in result.problems)
        return "\n".join(lines)


def workout_tools() -> list[AnyTool]:
    return [GenerateWorkout(), SwapExercise(), AdjustExercise(), RemoveExercise(), AddExerciseToWorkout()]


TOOLS: list[AnyTool] = workout_tools()
