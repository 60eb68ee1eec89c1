"""Corrections to the exercise log: a logged entry corrected in place (adjust_logged_exercise) and one
logged in this conversation taken back (undo_logged_exercise). History rows and distribution tracking
change together in one transaction, and an undo reverses both."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Self

from pydantic import BaseModel, Field, model_validator

from trainer.domain.workout import (
    STRICT_NUMBERS,
    Distance,
    ExerciseType,
    GoalShare,
    HoldSeconds,
    Load,
    LoadUnit,
    MuscleShare,
    Reps,
)
from trainer.services.history import HISTORY_COLUMNS
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.tools.base import StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.catalog_match import default_shares
from trainer.tools.logged_entries import (
    LOAD_EACH_HELP,
    DistanceUnitArg,
    LoggedExercise,
    actual_loads,
    fit_to_sets,
    logged_line,
    logged_text,
)
from trainer.tools.wording import ReplyContext, day_phrase, day_text, what_it_was

LOGGED_TYPE_FIELDS: dict[str, frozenset[str]] = {
    "reps": frozenset({"sets", "reps", "load_each", "load_unit", "rest_sec"}),
    "hold": frozenset({"sets", "hold_sec", "rest_sec"}),
    "duration": frozenset({"duration_min", "distance", "distance_unit"}),
    "intervals": frozenset({"rounds", "work_sec", "rest_sec", "duration_min"}),
}
"""The fields a history row of each type keeps (a correction to another type drops the rest)."""
TYPE_FIELD_ARGS = (
    "sets", "reps", "load", "load_each", "load_unit", "hold_sec", "duration_min", "distance", "distance_unit",
    "rounds", "work_sec", "rest_sec",
)  # fmt: skip
PER_SET_LOGGED = ("reps", "hold_sec", "load_each")
CORRECTABLE = (
    "exercise_name", "exercise_type", "sets", "reps", "load", "load_each", "load_unit", "hold_sec",
    "duration_min", "distance", "distance_unit", "rounds", "work_sec", "rest_sec", "rpe", "performed_at",
    "notes", "muscles_utilized", "goals_addressed",
)  # fmt: skip


class AdjustLoggedExerciseArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(
        min_length=1, max_length=64, description="History id (uuid) of the logged exercise"
    )
    exercise_name: str | None = Field(
        default=None,
        min_length=1,
        max_length=120,
        description="The exercise actually done, when the wrong one was logged",
    )
    exercise_type: ExerciseType | None = Field(
        default=None, description="Only when the corrected exercise has another type"
    )
    sets: int | None = Field(default=None, ge=1, le=20, description="Sets done")
    reps: list[Reps] | None = Field(default=None, min_length=1, max_length=20, description="Reps per set")
    load: float | None = Field(default=None, ge=0, le=2000, description="One load for every set")
    load_each: list[Load] | None = Field(
        default=None, min_length=1, max_length=20, description=LOAD_EACH_HELP
    )
    load_unit: LoadUnit | None = Field(default=None, description="The unit the loads are in")
    hold_sec: list[HoldSeconds] | None = Field(
        default=None, min_length=1, max_length=20, description="Seconds per hold"
    )
    duration_min: float | None = Field(default=None, gt=0, le=600, description="Minutes it took")
    distance: Distance | None = Field(default=None, description="In distance_unit")
    distance_unit: DistanceUnitArg | None = Field(default=None, description="The unit of distance")
    rounds: int | None = Field(default=None, ge=1, le=100, description="Rounds done")
    work_sec: int | None = Field(default=None, ge=1, le=3600, description="Work seconds per round")
    rest_sec: int | None = Field(default=None, ge=0, le=900, description="Rest seconds")
    rpe: float | None = Field(default=None, ge=1, le=10, description="Effort of the hardest set, RPE 1-10")
    performed_at: datetime | None = Field(default=None, description="ISO timestamp, when the date was wrong")
    notes: str | None = Field(default=None, max_length=1000, description="The user's words about it")
    muscles_utilized: list[MuscleShare] | None = Field(
        default=None, min_length=1, description="Only for a name the catalogue does not know"
    )
    goals_addressed: list[GoalShare] | None = Field(
        default=None, min_length=1, description="Only for a name the catalogue does not know"
    )

    @model_validator(mode="after")
    def _something_to_change(self) -> Self:
        if all(getattr(self, name) is None for name in CORRECTABLE):
            raise ValueError("give at least one field to correct")
        return self


def corrected_entry(
    old: dict[str, Any], args: AdjustLoggedExerciseArgs, weight_unit: str
) -> tuple[dict[str, Any], str | None]:
    """The whole history entry after the correction (pure): the logged row with the given fields
    replaced, per-set lists resized when only `sets` changes, the fields of another type dropped,
    and muscles and goals re-derived when the exercise changes. Also the catalog name they came from."""
    entry: dict[str, Any] = {key: old.get(key) for key in HISTORY_COLUMNS}
    kind = args.exercise_type or old["exercise_type"]
    if kind != old["exercise_type"]:
        for name in set().union(*LOGGED_TYPE_FIELDS.values()) - LOGGED_TYPE_FIELDS[kind]:
            entry[name] = None
    entry["exercise_type"] = kind
    given = {name for name in TYPE_FIELD_ARGS if getattr(args, name) is not None}
    foreign = sorted(given - LOGGED_TYPE_FIELDS[kind] - ({"load"} if kind == "reps" else set()))
    if foreign:
        raise ToolError(f"{', '.join(foreign)} not part of a {kind} exercise")
    for name in ("hold_sec", "duration_min", "distance", "distance_unit", "rounds", "work_sec"):
        if getattr(args, name) is not None:
            entry[name] = getattr(args, name)
    for name in ("rest_sec", "rpe", "performed_at", "notes"):
        if getattr(args, name) is not None:
            entry[name] = getattr(args, name)
    if args.rpe is not None:
        entry["rpe_each"] = None  # one effort now stands for the entry
    if args.reps is not None:
        entry["reps"] = list(args.reps)
    sets = args.sets
    if sets is None:
        per_set: list[Any] | None = args.reps or args.hold_sec or args.load_each
        sets = len(per_set) if per_set and len(per_set) > 1 else entry.get("sets")
    if kind in ("reps", "hold"):
        entry["sets"] = sets
        for name in PER_SET_LOGGED:
            if name == "load_each" or getattr(args, name) is not None:
                continue
            entry[name] = fit_to_sets(entry.get(name), sets)
    if kind == "reps":
        unit = args.load_unit or entry.get("load_unit") or weight_unit
        if args.load is not None or args.load_each is not None:
            entry["load_each"] = actual_loads(sets, load=args.load, load_each=args.load_each)
        else:
            entry["load_each"] = fit_to_sets(entry.get("load_each"), sets)
        entry["load_unit"] = unit if entry["load_each"] else None
    _require_type_fields(entry, kind)
    matched = None
    name_changed = (
        args.exercise_name is not None
        and args.exercise_name.strip().lower() != str(old["exercise_name"]).strip().lower()
    )
    if args.exercise_name is not None:
        entry["exercise_name"] = args.exercise_name.strip()
    if name_changed:
        muscles, goals, matched = default_shares(
            entry["exercise_name"], kind, args.muscles_utilized, args.goals_addressed
        )
        entry.update(muscles=muscles, goals=goals)
    else:
        if args.muscles_utilized:
            entry["muscles"] = [m.model_dump() for m in args.muscles_utilized]
        if args.goals_addressed:
            entry["goals"] = [g.model_dump() for g in args.goals_addressed]
    return entry, matched


def _require_type_fields(entry: dict[str, Any], kind: str) -> None:
    needed = {"reps": ("reps",), "hold": ("hold_sec",)}.get(kind, ())
    missing = [name for name in needed if not entry.get(name)]
    if kind in ("duration", "intervals") and entry.get("duration_min") is None and not entry.get("distance"):
        missing.append("duration_min")
    if missing:
        raise ToolError(f"a {kind} exercise needs {', '.join(missing)}: give it with the correction")


class AdjustLoggedExerciseResult(ToolResult):
    before: LoggedExercise
    after: LoggedExercise
    catalog_match: str | None = None
    """The catalog entry the new muscles and goals came from, when the exercise changed."""

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        before, after = self.before, self.after
        was = what_it_was(before.model_dump(mode="json"), after.model_dump(mode="json"))
        when = ""
        if before.performed_at != after.performed_at:
            when = f", now on {day_text(after.performed_at.astimezone(ctx.zone).date(), ctx.today)}"
        if not was and not when:
            return f"That {after.exercise_name} entry already says that - nothing changed."
        return (
            f"Corrected {after.exercise_name}: {logged_text(after)}"
            + (f" ({was})" if was else "")
            + f"{when}."
        )


class AdjustLoggedExercise(Tool[AdjustLoggedExerciseArgs, AdjustLoggedExerciseResult]):
    name = "adjust_logged_exercise"
    can_finish = True
    description = (
        "Correct a logged exercise by its history id: only the fields that change, as log_completed_exercise "
        "takes them (rpe for the hardest set)."
    )
    fields_as_in = "log_completed_exercise"
    Args = AdjustLoggedExerciseArgs
    Result = AdjustLoggedExerciseResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Correcting your log...", done="Log corrected"
    )
    category = "summary"

    async def execute(self, args: AdjustLoggedExerciseArgs, ctx: ToolContext) -> AdjustLoggedExerciseResult:
        missing = f"logged exercise {args.exercise_id} not found"
        async with ctx.user_data.transaction() as data:
            old = await data.history.get(args.exercise_id)
            if old is None:
                raise ToolError(missing)
            settings = await data.settings.get()
            entry, matched = corrected_entry(old, args, settings.weight_unit)
            changed = await data.history.replace(args.exercise_id, entry, units=settings, now=ctx.now())
        if changed is None:
            raise ToolError(missing)
        before, after = changed
        return AdjustLoggedExerciseResult(
            before=LoggedExercise.from_row(before),
            after=LoggedExercise.from_row(after),
            catalog_match=matched,
        )

    def format(self, result: AdjustLoggedExerciseResult) -> str:
        text = f"corrected: {logged_line(result.before)} -> {logged_line(result.after)}"
        if result.catalog_match:
            text += f" (muscles from catalog: {result.catalog_match})"
        return text


class UndoLoggedExerciseArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(
        min_length=1, max_length=64, description="History id (uuid) of the logged exercise"
    )


class UndoLoggedExerciseResult(ToolResult):
    removed: LoggedExercise

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        row = self.removed
        day = day_phrase(row.performed_at.astimezone(ctx.zone).date(), ctx.today)
        detail = f"{logged_text(row)}, " if logged_text(row) else ""
        return f"Removed {row.exercise_name} ({detail}logged {day}) from your history."


class UndoLoggedExercise(Tool[UndoLoggedExerciseArgs, UndoLoggedExerciseResult]):
    name = "undo_logged_exercise"
    can_finish = True
    description = (
        "Delete an exercise logged in this conversation, by its history id; one logged before it is "
        "corrected with adjust_logged_exercise instead."
    )
    Args = UndoLoggedExerciseArgs
    Result = UndoLoggedExerciseResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Removing logged exercise...", done="Exercise removed"
    )
    category = "confirmation"

    async def execute(self, args: UndoLoggedExerciseArgs, ctx: ToolContext) -> UndoLoggedExerciseResult:
        history = ctx.user_data.history
        row = await history.delete(args.exercise_id, session_id=ctx.session_id)
        if row is None:
            if await history.get(args.exercise_id) is not None:
                raise ToolError(
                    f"logged exercise {args.exercise_id} was logged before this conversation: undo only "
                    "removes what this conversation logged (nothing was deleted); correct it with "
                    "adjust_logged_exercise instead"
                )
            raise ToolError(f"logged exercise {args.exercise_id} not found")
        await _reopen_in_current_workout(ctx, row)
        return UndoLoggedExerciseResult(removed=LoggedExercise.from_row(row))

    def format(self, result: UndoLoggedExerciseResult) -> str:
        return f"removed: {logged_line(result.removed)}"


async def _reopen_in_current_workout(ctx: ToolContext, row: dict[str, Any]) -> None:
    """An undone exercise of the still-open workout becomes not completed again."""
    workout = await ctx.get_state(CURRENT_WORKOUT_KEY)
    if not workout or not row.get("workout_id") or workout.get("workout_id") != row["workout_id"]:
        return
    name = str(row["exercise_name"]).lower()
    for ex in workout.get("exercises") or []:
        if ex.get("completed") and str(ex.get("exercise_name", "")).lower() == name:
            ex["completed"] = False
            await ctx.put_state(CURRENT_WORKOUT_KEY, workout)
            return
