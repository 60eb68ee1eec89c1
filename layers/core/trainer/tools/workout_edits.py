"""The edits of one exercise of the current workout: swap it for another (swap_exercise), change its
fields (adjust_exercise), remove it (remove_exercise). Each validates the whole workout before it
writes it back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError

from trainer.domain.workout import STRICT_NUMBERS, Exercise
from trainer.tools.artifacts import ExerciseJson
from trainer.tools.base import StatusMessage, Tool, ToolContext, ToolError, validation_summary
from trainer.tools.communication import DISPLAYABLES_KEY
from trainer.tools.current_workout import (
    ExerciseRef,
    WorkoutChange,
    as_json,
    exercise_detail,
    find_exercise,
    load_current_workout,
    new_id,
    renumber,
    save_current_workout,
    validated_exercises,
)
from trainer.tools.exercise_input import ExerciseInput, user_goal_weights
from trainer.tools.wording import ReplyContext, count_words, prescription, seconds_text, what_it_was

PROTECTED_FIELDS = frozenset({"id", "exercise_type", "type"})
PER_SET_FIELDS = ("reps", "hold_sec", "load_each")


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


class ReplacementExercise(ExerciseInput):
    """An exercise for swap_exercise: `order` defaults to the replaced exercise's position."""

    order: int | None = Field(default=None, ge=1, description="Defaults to the replaced exercise's order")  # type: ignore[assignment]


EXERCISE_ID = "Its id (ex_...) or order number"
REASON = "Why, in a few words"


class SwapArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(min_length=1, description=EXERCISE_ID)
    new_exercise: ReplacementExercise = Field(
        description="The replacement; order defaults to the replaced one's"
    )
    reason: str | None = Field(default=None, max_length=300, description=REASON)


def adjusted_text(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """'Dumbbell Bench Press: 3 x 10 at 22.5 kg (was 20)'; rest changes say the rest."""
    text = f"{after.get('exercise_name')}: {prescription(after)}"
    if before.get("rest_sec") != after.get("rest_sec") and after.get("rest_sec") is not None:
        text += f", {seconds_text(after['rest_sec'])} rest between sets"
    was = what_it_was(before, after)
    return f"{text} ({was})" if was else text


class SwapResult(WorkoutChange):
    old_id: str
    old_name: str
    old_exercise: ExerciseRef
    new_exercise: ExerciseJson
    new_id: str
    reason: str | None = None

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        new = self.new_exercise
        return f"Swapped {self.old_name} for {new.get('exercise_name')}: {prescription(new)}."


class SwapExercise(Tool[SwapArgs, SwapResult]):
    name = "swap_exercise"
    can_finish = True
    description = (
        "Replace one exercise of the current workout. Keep its movement pattern and difficulty (an "
        "incline press for a loaded press, not push-ups) unless the user asks otherwise."
    )
    shared_arguments: ClassVar[Mapping[str, str]] = {"new_exercise": "generate_workout"}
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
        replacement["id"] = new_id("ex_", 3, taken)
        replacement["order"] = old["order"]
        if "group" not in replacement and old.get("group"):
            replacement["group"] = old["group"]
        requested_order = args.new_exercise.order
        exercises[index] = replacement
        if requested_order is not None and requested_order != old["order"]:
            exercises.pop(index)
            exercises.insert(min(requested_order, len(exercises) + 1) - 1, replacement)
            renumber(exercises)
        exercises = validated_exercises(current, exercises)
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
            f"({new['exercise_type']}) [order: {new['order']}] - {exercise_detail(new)}"
        )


class AdjustArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(min_length=1, description=EXERCISE_ID)
    adjustments: dict[str, Any] = Field(
        min_length=1,
        description='Only what changes, e.g. {"sets": 4, "reps": [8, 8, 8, 8]}; not id or exercise_type',
    )


class AdjustResult(WorkoutChange):
    exercise_id: str
    exercise_name: str
    adjustments: dict[str, Any]
    old_values: dict[str, Any]
    changes_summary: str
    exercise: ExerciseJson

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        after = self.exercise
        if not self.old_values:
            return f"{after.get('exercise_name')} already had that - nothing changed."
        return f"Updated {adjusted_text({**after, **self.old_values}, after)}."


class AdjustExercise(Tool[AdjustArgs, AdjustResult]):
    name = "adjust_exercise"
    can_finish = True
    description = "Change fields of one exercise of the current workout (sets, reps, loads, rest, order...)."
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
            validated = as_json(Exercise.model_validate(merged))
        except ValidationError as exc:
            raise ToolError(f"Invalid adjustment for {old['id']}: {validation_summary(exc)}") from exc
        exercises[index] = validated
        if new_order is not None:
            if not isinstance(new_order, int) or new_order < 1:
                raise ToolError("'order' must be a positive integer")
            exercises.pop(index)
            exercises.insert(min(new_order, len(exercises) + 1) - 1, validated)
            renumber(exercises)
        exercises = validated_exercises(current, exercises)
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
    exercise_id: str = Field(min_length=1, description=EXERCISE_ID)
    reason: str | None = Field(default=None, max_length=300, description=REASON)


class RemainingExercise(BaseModel):
    id: str
    order: int


class RemoveResult(WorkoutChange):
    exercise_id: str
    removed_exercise: ExerciseRef
    remaining_count: int
    remaining: list[RemainingExercise]
    reason: str | None = None

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        left = count_words(self.remaining_count, "exercise", "exercises")
        return f"Removed {self.removed_exercise.exercise_name} - {left} left."


class RemoveExercise(Tool[RemoveArgs, RemoveResult]):
    name = "remove_exercise"
    can_finish = True
    description = "Remove one exercise from the current workout; later ones move up."
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
        renumber(exercises)
        exercises = [{**e, "group": dict(e["group"])} if e.get("group") else e for e in exercises]
        _repair_groups(exercises)
        exercises = validated_exercises(current, exercises)
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
