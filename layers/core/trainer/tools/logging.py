"""Logging what the user did: the current workout's exercises (mark_exercise_complete one at a time,
log_workout the rest, which closes the workout) and an exercise done outside it
(log_completed_exercise). Each writes history rows and distribution tracking together in one
transaction. The family's corrections (adjust, undo) are in trainer.tools.log_corrections; `TOOLS`
lists all five in the order the model sees them.

The current workout lives in session state under `current_workout`; its exercises carry ids
('ex_...') and `completed` flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field, model_validator

from trainer.domain.workout import (
    STRICT_NUMBERS,
    Distance,
    GoalShare,
    HoldSeconds,
    Load,
    LoadUnit,
    MuscleShare,
    Reps,
)
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.catalog_match import default_shares
from trainer.tools.effort import EFFORT_FIELDS, EffortIn
from trainer.tools.log_corrections import AdjustLoggedExercise, UndoLoggedExercise
from trainer.tools.logged_entries import (
    DISTANCE_HELP,
    LOAD_EACH_HELP,
    LOAD_HELP,
    MINUTES_HELP,
    NOTES_HELP,
    SETS_HELP,
    DistanceUnitArg,
    LoggedExercise,
    actual_loads,
    fit_to_sets,
    logged_line,
    logged_text,
)
from trainer.tools.wording import ReplyContext, count_words, joined


async def current_workout(ctx: ToolContext) -> dict[str, Any]:
    workout = await ctx.get_state(CURRENT_WORKOUT_KEY)
    if not workout or not workout.get("exercises"):
        raise ToolError("no active workout: generate a workout first (or use log_completed_exercise)")
    return workout


def find_exercise(workout: dict[str, Any], ref: str, *, by_name: bool = False) -> dict[str, Any]:
    """An exercise of the workout by id ('ex_...'), order number ('2'), or (optionally) name."""
    exercises: list[dict[str, Any]] = workout.get("exercises") or []
    key = ref.strip()
    for ex in exercises:
        if ex.get("id") == key:
            return ex
    if key.isdigit():
        for ex in exercises:
            if ex.get("order") == int(key):
                return ex
    if by_name:
        matches = [ex for ex in exercises if str(ex.get("exercise_name", "")).strip().lower() == key.lower()]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise ToolError(f"{key!r} appears {len(matches)} times in the workout; give the exercise_id")
    listed = ", ".join(f"{ex.get('order')}. {ex.get('exercise_name')} ({ex.get('id')})" for ex in exercises)
    raise ToolError(f"exercise {key!r} is not in the current workout: {listed}")


def _join_notes(*parts: str | None) -> str | None:
    text = "; ".join(p.strip() for p in parts if p and p.strip())
    return text or None


def planned_entry(
    planned: dict[str, Any],
    *,
    sets: int | None = None,
    reps: list[int] | None = None,
    load: float | None = None,
    load_each: list[float] | None = None,
    load_unit: str | None = None,
    duration_min: float | None = None,
    distance: float | None = None,
    distance_unit: str | None = None,
    rpe: float | None = None,
    rpe_each: list[float] | None = None,
    notes: str | None = None,
    weight_unit: str,
    default_distance_unit: str,
) -> dict[str, Any]:
    """The history entry for a planned exercise: what was actually done, defaulting to the plan."""
    kind = planned["exercise_type"]
    actual_sets = (
        sets
        or (len(reps) if reps else None)
        or (len(load_each) if load_each and len(load_each) > 1 else None)
        or planned.get("sets")
    )
    entry: dict[str, Any] = {
        "exercise_name": planned["exercise_name"],
        "exercise_type": kind,
        "sets": actual_sets if kind in ("reps", "hold") else None,
        "muscles": planned.get("muscles_utilized") or [],
        "goals": planned.get("goals_addressed") or [],
        "rpe": rpe,
        "rpe_each": fit_to_sets(rpe_each, actual_sets) if rpe_each and len(rpe_each) > 1 else rpe_each,
        "notes": notes,
        "rest_sec": planned.get("rest_sec"),
    }
    if kind == "reps":
        entry["reps"] = reps or fit_to_sets(planned.get("reps"), actual_sets)
        planned_unit = planned.get("load_unit") or weight_unit
        given = load is not None or bool(load_each)
        unit = (load_unit or weight_unit) if given else planned_unit
        loads = actual_loads(
            actual_sets,
            load=load,
            load_each=load_each,
            planned=planned.get("load_each") if unit == planned_unit else None,
        )
        if loads is not None:
            entry["load_each"] = loads
            entry["load_unit"] = unit
    elif kind == "hold":
        entry["hold_sec"] = fit_to_sets(planned.get("hold_sec"), actual_sets)
    elif kind == "duration":
        entry["duration_min"] = duration_min or planned.get("duration_min")
        entry["distance"] = distance if distance is not None else planned.get("distance")
        if entry["distance"] is not None:
            entry["distance_unit"] = distance_unit or planned.get("distance_unit") or default_distance_unit
    else:
        entry["rounds"] = planned.get("rounds")
        entry["work_sec"] = planned.get("work_sec")
        entry["duration_min"] = duration_min
    return entry


class CompletedExerciseIn(EffortIn):
    model_config = STRICT_NUMBERS
    exercise_id: str | None = Field(default=None, max_length=64, description="Its id (ex_...) or order")
    exercise_name: str | None = Field(default=None, max_length=120, description="Name, when no id is known")
    sets: int | None = Field(default=None, ge=1, le=20, description=SETS_HELP)
    reps: list[Reps] | None = Field(default=None, max_length=20, description="Reps done per set")
    load: float | None = Field(default=None, ge=0, le=2000, description=LOAD_HELP)
    load_each: list[Load] | None = Field(
        default=None, min_length=1, max_length=20, description=LOAD_EACH_HELP
    )
    load_unit: LoadUnit | None = None
    duration_min: float | None = Field(default=None, gt=0, le=600)
    distance: Distance | None = None
    distance_unit: DistanceUnitArg | None = None
    notes: str | None = Field(default=None, max_length=1000)

    @model_validator(mode="after")
    def _identified(self) -> Self:
        if not (self.exercise_id or self.exercise_name):
            raise ValueError("give exercise_id or exercise_name")
        if self.reps and any(r < 1 for r in self.reps):
            raise ValueError("reps must be positive")
        return self


class LogWorkoutArgs(BaseModel):
    model_config = STRICT_NUMBERS
    completed_exercises: list[CompletedExerciseIn] = Field(
        min_length=1, max_length=40, description="Exercises of the current workout that were done"
    )
    workout_notes: str | None = Field(default=None, max_length=1000, description=NOTES_HELP)


def _planned_for(workout: dict[str, Any], item: CompletedExerciseIn) -> dict[str, Any]:
    """The planned exercise an entry refers to: by id or order, else by name."""
    if item.exercise_id:
        try:
            return find_exercise(workout, item.exercise_id, by_name=True)
        except ToolError:
            if not item.exercise_name:
                raise
    return find_exercise(workout, item.exercise_name or "", by_name=True)


class LogWorkoutResult(ToolResult):
    logged_count: int
    total_in_workout: int
    logged: list[LoggedExercise] = Field(default_factory=list)
    already_logged: list[str] = Field(default_factory=list)
    """Names of exercises of the workout that were marked complete (logged) before."""
    workout_id: str | None = None

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        items = [f"{row.exercise_name} {logged_text(row)}".strip() for row in self.logged]
        text = f"Logged your workout: {'; '.join(items)}. Nice work!" if items else ""
        if already := self.already_logged:
            text += f" {joined(already)} {'was' if len(already) == 1 else 'were'} logged before."
        return text.strip() or "Nothing new to log - every exercise was logged before."


class LogWorkout(Tool[LogWorkoutArgs, LogWorkoutResult]):
    name = "log_workout"
    can_finish = True
    description = (
        "Log the done exercises of the current workout (what is not given defaults to the plan) and "
        "close the workout."
    )
    Args = LogWorkoutArgs
    Result = LogWorkoutResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Saving your workout...", done="Workout logged"
    )
    category = "summary"

    async def execute(self, args: LogWorkoutArgs, ctx: ToolContext) -> LogWorkoutResult:
        workout = await current_workout(ctx)
        chosen: list[tuple[dict[str, Any], CompletedExerciseIn]] = []
        skipped: list[str] = []
        for item in args.completed_exercises:
            planned = _planned_for(workout, item)
            if any(p is planned for p, _ in chosen):
                raise ToolError(f"{planned['exercise_name']} is listed twice")
            if planned.get("completed"):
                skipped.append(planned["exercise_name"])
            else:
                chosen.append((planned, item))
        settings = await ctx.user_data.settings.get()
        entries = [
            {
                **planned_entry(
                    planned,
                    sets=item.sets,
                    reps=item.reps,
                    load=item.load,
                    load_each=item.load_each,
                    load_unit=item.load_unit,
                    duration_min=item.duration_min,
                    distance=item.distance,
                    distance_unit=item.distance_unit,
                    **item.effort(),
                    notes=_join_notes(item.notes, args.workout_notes),
                    weight_unit=settings.weight_unit,
                    default_distance_unit=settings.distance_unit,
                ),
                "workout_id": workout.get("workout_id"),
                "session_id": ctx.session_id,
            }
            for planned, item in chosen
        ]
        rows = await ctx.user_data.history.log(entries, units=settings, now=ctx.now())
        await ctx.delete_state(CURRENT_WORKOUT_KEY)
        return LogWorkoutResult(
            logged_count=len(rows),
            total_in_workout=len(workout["exercises"]),
            logged=[LoggedExercise.from_row(r) for r in rows],
            already_logged=skipped,
            workout_id=workout.get("workout_id"),
        )

    def format(self, result: LogWorkoutResult) -> str:
        lines = [f"logged {result.logged_count} of {result.total_in_workout} exercises; workout closed"]
        lines.extend(f"  {logged_line(r)}" for r in result.logged)
        if result.already_logged:
            lines.append(f"  already logged before: {', '.join(result.already_logged)}")
        return "\n".join(lines)


class MarkExerciseCompleteArgs(EffortIn):
    model_config = STRICT_NUMBERS
    exercise_id: str = Field(min_length=1, max_length=64, description="Its id (ex_...) or order number")
    actual_sets: int | None = Field(default=None, ge=1, le=20, description=SETS_HELP)
    actual_reps: list[Reps] | None = Field(default=None, max_length=20, description="Reps done per set")
    actual_load: float | None = Field(default=None, ge=0, le=2000, description=LOAD_HELP)
    actual_load_each: list[Load] | None = Field(
        default=None, min_length=1, max_length=20, description=LOAD_EACH_HELP
    )
    actual_duration_min: float | None = Field(default=None, gt=0, le=600, description=MINUTES_HELP)
    notes: str | None = Field(default=None, max_length=1000, description=NOTES_HELP)


class MarkExerciseCompleteResult(ToolResult):
    exercise_id: str | None = None
    """The current-workout id (ex_...) of the exercise marked complete."""
    logged: LoggedExercise
    remaining: int
    """Exercises of the workout not completed yet."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        to_go = (
            f" {count_words(self.remaining, 'exercise', 'exercises')} to go."
            if self.remaining
            else " That's the lot!"
        )
        return f"Logged {self.logged.exercise_name}: {logged_text(self.logged)}.{to_go}"


class MarkExerciseComplete(Tool[MarkExerciseCompleteArgs, MarkExerciseCompleteResult]):
    name = "mark_exercise_complete"
    can_finish = True
    description = (
        "Log one exercise of the current workout as done (what is not given defaults to the plan); the "
        "workout stays open."
    )
    Args = MarkExerciseCompleteArgs
    Result = MarkExerciseCompleteResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Logging exercise...", done="Exercise logged"
    )
    category = "summary"

    async def execute(self, args: MarkExerciseCompleteArgs, ctx: ToolContext) -> MarkExerciseCompleteResult:
        workout = await current_workout(ctx)
        planned = find_exercise(workout, args.exercise_id)
        if planned.get("completed"):
            raise ToolError(f"{planned['exercise_name']} is already logged (undo_logged_exercise to redo it)")
        if args.actual_reps and any(r < 1 for r in args.actual_reps):
            raise ToolError("actual_reps must be positive")
        settings = await ctx.user_data.settings.get()
        entry = planned_entry(
            planned,
            sets=args.actual_sets,
            reps=args.actual_reps,
            load=args.actual_load,
            load_each=args.actual_load_each,
            duration_min=args.actual_duration_min,
            **args.effort(),
            notes=args.notes,
            weight_unit=settings.weight_unit,
            default_distance_unit=settings.distance_unit,
        )
        entry.update(workout_id=workout.get("workout_id"), session_id=ctx.session_id)
        rows = await ctx.user_data.history.log([entry], units=settings, now=ctx.now())
        planned["completed"] = True
        await ctx.put_state(CURRENT_WORKOUT_KEY, workout)
        remaining = sum(1 for ex in workout["exercises"] if not ex.get("completed"))
        return MarkExerciseCompleteResult(
            exercise_id=planned.get("id"),
            logged=LoggedExercise.from_row(rows[0]),
            remaining=remaining,
        )

    def format(self, result: MarkExerciseCompleteResult) -> str:
        return f"logged: {logged_line(result.logged)}; {result.remaining} exercises left"


class LogCompletedExerciseArgs(EffortIn):
    model_config = STRICT_NUMBERS
    exercise_name: str = Field(min_length=1, max_length=120, description="As the user says it")
    exercise_type: Literal["reps", "hold", "duration", "intervals"] = Field(
        description="As in generate_workout"
    )
    sets: int | None = Field(default=None, ge=1, le=20, description=SETS_HELP)
    reps: list[Reps] | None = Field(default=None, max_length=20, description="Reps per set")
    load: float | None = Field(
        default=None, ge=0, le=2000, description="The top set's load; omit for bodyweight"
    )
    load_each: list[Load] | None = Field(
        default=None, min_length=1, max_length=20, description=LOAD_EACH_HELP
    )
    load_unit: LoadUnit | None = Field(default=None, description="Defaults to the user's weight unit")
    hold_sec: list[HoldSeconds] | None = Field(default=None, max_length=20, description="Seconds per hold")
    duration_min: float | None = Field(default=None, gt=0, le=600, description=MINUTES_HELP)
    distance: Distance | None = Field(default=None, description=DISTANCE_HELP)
    distance_unit: DistanceUnitArg | None = Field(default=None, description="Defaults to the user's unit")
    muscles_utilized: list[MuscleShare] | None = Field(
        default=None, description="Only for an exercise the catalogue lacks"
    )
    goals_addressed: list[GoalShare] | None = Field(
        default=None, description="Only for an exercise the catalogue lacks"
    )
    performed_at: datetime | None = Field(default=None, description="ISO timestamp; defaults to now")
    notes: str | None = Field(default=None, max_length=1000, description=NOTES_HELP)

    @model_validator(mode="after")
    def _fields_for_type(self) -> Self:
        needs = {"reps": "reps", "hold": "hold_sec"}
        required = needs.get(self.exercise_type)
        if required and not getattr(self, required):
            raise ValueError(f"'{required}' is required for {self.exercise_type} exercises")
        if (
            self.exercise_type in ("duration", "intervals")
            and self.duration_min is None
            and self.distance is None
        ):
            raise ValueError(f"'duration_min' (or distance) is required for {self.exercise_type} exercises")
        for name in ("reps", "hold_sec"):
            values = getattr(self, name)
            if values and any(v < 1 for v in values):
                raise ValueError(f"'{name}' values must be positive")
            if values and self.sets is not None and len(values) not in (1, self.sets):
                raise ValueError(f"'{name}' needs one value per set ({self.sets}), got {len(values)}")
        if self.load_each:
            if self.exercise_type != "reps":
                raise ValueError("'load_each' is for reps exercises")
            sets = self.sets or (len(self.reps) if self.reps and len(self.reps) > 1 else None)
            if sets is not None and len(self.load_each) not in (1, sets):
                raise ValueError(f"'load_each' needs one value per set ({sets}), got {len(self.load_each)}")
            if self.load is not None and self.load != max(self.load_each):
                raise ValueError("'load' is the heaviest set: it must equal the largest of 'load_each'")
        return self


class LogCompletedExerciseResult(ToolResult):
    logged: LoggedExercise
    catalog_match: str | None = None
    """The catalog entry the muscles and goals came from, when the call gave none."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        detail = logged_text(self.logged)
        return f"Logged {self.logged.exercise_name}" + (f": {detail}." if detail else ".")


class LogCompletedExercise(Tool[LogCompletedExerciseArgs, LogCompletedExerciseResult]):
    name = "log_completed_exercise"
    can_finish = True
    description = "Log an exercise the user did outside the current workout."
    shared_arguments: ClassVar[Mapping[str, str]] = {
        "muscles_utilized": "generate_workout",
        "goals_addressed": "generate_workout",
    }
    Args = LogCompletedExerciseArgs
    Result = LogCompletedExerciseResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Logging exercise...", done="Exercise logged"
    )
    category = "summary"

    async def execute(self, args: LogCompletedExerciseArgs, ctx: ToolContext) -> LogCompletedExerciseResult:
        entry = args.model_dump(
            exclude_none=True,
            exclude={"muscles_utilized", "goals_addressed", "load", "load_each", *EFFORT_FIELDS},
        )
        entry.update({k: v for k, v in args.effort().items() if v is not None})
        muscles, goals, matched = _default_shares(args)
        entry.update(muscles=muscles, goals=goals, session_id=ctx.session_id)
        sets = (
            args.sets
            or (len(args.reps) if args.reps and len(args.reps) > 1 else None)
            or (len(args.load_each) if args.load_each else None)
            or 1
        )
        loads = actual_loads(sets, load=args.load, load_each=args.load_each)
        if loads is not None:
            entry.update(load_each=loads, sets=sets)
        settings = await ctx.user_data.settings.get()
        if loads is not None:
            entry["load_unit"] = args.load_unit or settings.weight_unit
        if args.distance is not None:
            entry["distance_unit"] = args.distance_unit or settings.distance_unit
        rows = await ctx.user_data.history.log([entry], units=settings, now=ctx.now())
        return LogCompletedExerciseResult(logged=LoggedExercise.from_row(rows[0]), catalog_match=matched)

    def format(self, result: LogCompletedExerciseResult) -> str:
        text = f"logged: {logged_line(result.logged)}"
        if result.catalog_match:
            text += f" (muscles from catalog: {result.catalog_match})"
        return text


def _default_shares(
    args: LogCompletedExerciseArgs,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    return default_shares(args.exercise_name, args.exercise_type, args.muscles_utilized, args.goals_addressed)


TOOLS: list[AnyTool] = [
    LogWorkout(),
    LogCompletedExercise(),
    UndoLoggedExercise(),
    MarkExerciseComplete(),
    AdjustLoggedExercise(),
]
