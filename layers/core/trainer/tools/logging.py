"""Exercise logging (seed 000 §4.5, seed 002 §6.4 log_workout): history rows and distribution tracking
change together in one transaction, and undo reverses both.

The current workout lives in session state under `current_workout`; its exercises carry ids
('ex_...') and `completed` flags. log_workout logs from it and then clears it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field, computed_field, model_validator

from trainer.domain.catalog import CatalogEntry, load_catalog
from trainer.domain.workout import (
    STRICT_NUMBERS,
    Distance,
    DistanceUnit,
    ExerciseType,
    GoalShare,
    HoldSeconds,
    Load,
    LoadUnit,
    MuscleShare,
    Reps,
    per_set_loads_text,
)
from trainer.services.history import HISTORY_COLUMNS
from trainer.services.rows import plain
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.data import number_text

DistanceUnitArg = Literal["km", "mi"]

CATALOG_CATEGORY_GOALS: dict[str, str] = {
    "strength": "Strength", "powerlifting": "Strength", "olympic weightlifting": "Strength",
    "strongman": "Strength", "cardio": "Cardio", "stretching": "Flexibility", "plyometrics": "Power",
}  # fmt: skip
CATALOG_ALIASES: dict[str, str] = {
    "run": "Running, Treadmill", "cycling": "Bicycling", "biking": "Bicycling", "bike": "Bicycling",
    "cycle": "Bicycling",
}  # fmt: skip
CATALOG_EQUIPMENT_PREFIXES = ("barbell", "dumbbell", "bodyweight", "machine")
LOAD_HELP = (
    "The heaviest (top) set's load; with only this, the plan's per-set loads are kept when their "
    "heaviest is this load, else every set is logged at it. Use load_each for different loads per set"
)
LOAD_EACH_HELP = "Load of each set, e.g. [60, 60, 65] for a pyramid (one value: every set)"
TYPE_GOALS: dict[str, str] = {
    "reps": "Strength",
    "hold": "Stability",
    "duration": "Cardio",
    "intervals": "Cardio",
}


Rpe = Annotated[float, Field(ge=1, le=10)]
Rir = Annotated[float, Field(ge=0, le=9)]
RPE_HELP = "Effort of the hardest set, RPE 1-10 (or give rir)"
RPE_EACH_HELP = "RPE of each set, e.g. [7, 8, 9] (one value: every set)"
RIR_HELP = "Reps in reserve of the hardest set, instead of rpe (stored as RPE = 10 - RIR)"
RIR_EACH_HELP = "Reps in reserve of each set, instead of rpe_each"


def effort_fields(
    rpe: float | None = None,
    rpe_each: list[float] | None = None,
    rir: float | None = None,
    rir_each: list[float] | None = None,
) -> dict[str, Any]:
    """{rpe, rpe_each} from an effort given as RPE or reps in reserve (RPE = 10 - RIR), overall or per
    set; the entry's `rpe` is the hardest set's unless given. ValueError when both forms are given."""
    if rpe is not None and rir is not None:
        raise ValueError("give rpe or rir, not both")
    if rpe_each and rir_each:
        raise ValueError("give rpe_each or rir_each, not both")
    each = list(rpe_each) if rpe_each else [10 - v for v in rir_each] if rir_each else None
    top = rpe if rpe is not None else (10 - rir if rir is not None else None)
    if each is not None and top is not None and top != max(each):
        raise ValueError("the overall effort is the hardest set's: it must equal the highest per-set RPE")
    if top is None and each:
        top = max(each)
    return {"rpe": top, "rpe_each": each}


class EffortIn(BaseModel):
    """How hard the sets felt: RPE or reps in reserve, for the hardest set or per set."""

    model_config = STRICT_NUMBERS
    rpe: float | None = Field(default=None, ge=1, le=10, description=RPE_HELP)
    rpe_each: list[Rpe] | None = Field(default=None, min_length=1, max_length=20, description=RPE_EACH_HELP)
    rir: float | None = Field(default=None, ge=0, le=9, description=RIR_HELP)
    rir_each: list[Rir] | None = Field(default=None, min_length=1, max_length=20, description=RIR_EACH_HELP)

    @model_validator(mode="after")
    def _one_effort_form(self) -> Self:
        effort_fields(self.rpe, self.rpe_each, self.rir, self.rir_each)
        return self

    def effort(self) -> dict[str, Any]:
        return effort_fields(self.rpe, self.rpe_each, self.rir, self.rir_each)


EFFORT_FIELDS = {"rpe", "rpe_each", "rir", "rir_each"}


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


def _fit(values: list[Any] | None, sets: int | None) -> list[Any] | None:
    """A per-set list resized to `sets` (extra values dropped, the last value repeated)."""
    if not values or not sets or len(values) == sets:
        return values
    return values[:sets] if len(values) > sets else values + [values[-1]] * (sets - len(values))


def _join_notes(*parts: str | None) -> str | None:
    text = "; ".join(p.strip() for p in parts if p and p.strip())
    return text or None


def actual_loads(
    sets: int | None,
    *,
    load: float | None = None,
    load_each: list[float] | None = None,
    planned: list[float] | None = None,
) -> list[float] | None:
    """The load of every set done. `load_each` gives them one per set (one value: every set);
    a single `load` is the heaviest (top) set: the plan's per-set loads stay when their heaviest is
    that load (a 60/60/65 pyramid logged as 65), otherwise every set was done at it."""
    if load_each:
        loads = list(load_each) * (sets or 1) if len(load_each) == 1 else list(load_each)
        if sets is not None and len(loads) != sets:
            raise ToolError(f"load_each needs one load per set ({sets}), got {len(loads)}")
        if load is not None and load != max(loads):
            raise ToolError(
                f"load is the heaviest set: it must equal the largest of load_each ({max(loads):g}), "
                f"not {load:g}; give load_each alone"
            )
        return loads
    fitted = _fit(planned, sets)
    if load is None:
        return fitted
    if fitted and max(fitted) == load:
        return fitted
    return [load] * (sets or 1)


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
        "rpe_each": _fit(rpe_each, actual_sets) if rpe_each and len(rpe_each) > 1 else rpe_each,
        "notes": notes,
        "rest_sec": planned.get("rest_sec"),
    }
    if kind == "reps":
        entry["reps"] = reps or _fit(planned.get("reps"), actual_sets)
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
        entry["hold_sec"] = _fit(planned.get("hold_sec"), actual_sets)
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


class MuscleShareRow(BaseModel):
    """A muscle share as history stores it (names as logged)."""

    muscle: str
    share: float


class GoalShareRow(BaseModel):
    goal: str
    share: float


class LoggedExercise(BaseModel):
    """One workout_history row (seed 000 §4.5): what was done, with its history id."""

    id: str
    performed_at: datetime
    exercise_name: str
    exercise_type: ExerciseType
    sets: int | None = None
    reps: list[int] | None = None
    load_each: list[float] | None = None
    load_unit: LoadUnit | None = None
    hold_sec: list[int] | None = None
    duration_min: float | None = None
    distance: float | None = None
    distance_unit: DistanceUnit | None = None
    rounds: int | None = None
    work_sec: int | None = None
    rest_sec: int | None = None
    rpe: float | None = None
    rpe_each: list[float] | None = None
    muscles: list[MuscleShareRow] = Field(default_factory=list)
    goals: list[GoalShareRow] = Field(default_factory=list)
    session_id: str | None = None
    workout_id: str | None = None
    notes: str | None = None
    created_at: datetime

    @computed_field  # type: ignore[prop-decorator]
    @property
    def load(self) -> float | None:
        """The heaviest set's load, for readers that use one load per entry."""
        return max(self.load_each) if self.load_each else None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> LoggedExercise:
        return cls.model_validate(plain(row))


def logged_line(row: LoggedExercise) -> str:
    """'Bench Press 3x10 @60kg RPE 8' (seed 000 §4.11 Category 2) with the history id."""
    parts = [row.exercise_name]
    reps = row.reps or []
    holds = row.hold_sec or []
    sets = row.sets or len(reps) or len(holds)
    loads = list(row.load_each or [])
    if len({float(v) for v in loads}) > 1:
        parts.append(per_set_loads_text(loads, row.load_unit or "", reps))
    else:
        if reps:
            parts.append(
                f"{sets}x{reps[0]}" if len(set(reps)) == 1 else f"{sets}x[{','.join(map(str, reps))}]"
            )
        elif holds:
            parts.append(
                f"{sets}x{holds[0]}s" if len(set(holds)) == 1 else f"{sets}x[{','.join(map(str, holds))}]s"
            )
        if loads and loads[0]:
            parts.append(f"@{number_text(loads[0])}{row.load_unit or ''}")
    if row.rounds:
        parts.append(f"{row.rounds} rounds")
    if row.duration_min:
        parts.append(f"{number_text(row.duration_min)} min")
    if row.distance:
        parts.append(f"{number_text(row.distance, 2)}{row.distance_unit or ''}")
    each = row.rpe_each or []
    if len({float(v) for v in each}) > 1:
        parts.append("RPE " + "/".join(number_text(v) for v in each))
    elif row.rpe is not None:
        parts.append(f"RPE {number_text(row.rpe)}")
    return " ".join(parts) + f" (id={row.id})"


class CompletedExerciseIn(EffortIn):
    model_config = STRICT_NUMBERS
    exercise_id: str | None = Field(default=None, max_length=64, description="Current-workout id or order")
    exercise_name: str | None = Field(default=None, max_length=120, description="Name, when no id is known")
    sets: int | None = Field(default=None, ge=1, le=20)
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
    workout_notes: str | None = Field(default=None, max_length=1000)


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


class LogWorkout(Tool[LogWorkoutArgs, LogWorkoutResult]):
    name = "log_workout"
    can_finish = True
    description = (
        "Log the completed exercises of the current workout to history (actual sets/reps/load default to "
        "the plan). Ends the workout session."
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
    exercise_id: str = Field(
        min_length=1, max_length=64, description="Current-workout exercise id or order number"
    )
    actual_sets: int | None = Field(default=None, ge=1, le=20)
    actual_reps: list[Reps] | None = Field(default=None, max_length=20, description="Reps done per set")
    actual_load: float | None = Field(default=None, ge=0, le=2000, description=LOAD_HELP)
    actual_load_each: list[Load] | None = Field(
        default=None, min_length=1, max_length=20, description=LOAD_EACH_HELP
    )
    actual_duration_min: float | None = Field(default=None, gt=0, le=600)
    notes: str | None = Field(default=None, max_length=1000)


class MarkExerciseCompleteResult(ToolResult):
    exercise_id: str | None = None
    """The current-workout id (ex_...) of the exercise marked complete."""
    logged: LoggedExercise
    remaining: int
    """Exercises of the workout not completed yet."""


class MarkExerciseComplete(Tool[MarkExerciseCompleteArgs, MarkExerciseCompleteResult]):
    name = "mark_exercise_complete"
    can_finish = True
    description = (
        "Mark one exercise of the current workout as done, logging the actual performance (defaults to "
        "the plan). The workout stays open."
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
    exercise_name: str = Field(min_length=1, max_length=120)
    exercise_type: Literal["reps", "hold", "duration", "intervals"]
    sets: int | None = Field(default=None, ge=1, le=20)
    reps: list[Reps] | None = Field(default=None, max_length=20, description="Reps per set (reps type)")
    load: float | None = Field(
        default=None,
        ge=0,
        le=2000,
        description="One load for every set (the heaviest, if they differed); omit for bodyweight",
    )
    load_each: list[Load] | None = Field(
        default=None, min_length=1, max_length=20, description=LOAD_EACH_HELP
    )
    load_unit: LoadUnit | None = Field(default=None, description="Defaults to the user's weight unit")
    hold_sec: list[HoldSeconds] | None = Field(
        default=None, max_length=20, description="Seconds per hold (hold type)"
    )
    duration_min: float | None = Field(default=None, gt=0, le=600)
    distance: Distance | None = None
    distance_unit: DistanceUnitArg | None = Field(default=None, description="Defaults to the user's unit")
    muscles_utilized: list[MuscleShare] | None = Field(
        default=None, description="Defaults from the exercise catalog when the name is known"
    )
    goals_addressed: list[GoalShare] | None = None
    performed_at: datetime | None = Field(default=None, description="ISO timestamp; defaults to now")
    notes: str | None = Field(default=None, max_length=1000)

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


class LogCompletedExercise(Tool[LogCompletedExerciseArgs, LogCompletedExerciseResult]):
    name = "log_completed_exercise"
    can_finish = True
    description = (
        "Log an exercise the user did outside the current workout to their history (updates distribution "
        "tracking). Muscles default from the exercise catalog; give muscles_utilized for unknown names."
    )
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


def _compact(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum()).rstrip("s")


def _word_set(name: str) -> set[str]:
    words = "".join(ch if ch.isalnum() else " " for ch in name.lower()).split()
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words}


def catalog_entry(name: str) -> CatalogEntry | None:
    """The catalog entry for a logged name: exact (ignoring case, punctuation, spacing and a plural
    's'), else its barbell/dumbbell/bodyweight/machine form ('Squat' -> 'Barbell Squat'), else the
    shortest strength or cardio name containing every word ('Running' -> 'Running, Treadmill')."""
    catalog = load_catalog()
    exact = catalog.get(CATALOG_ALIASES.get(_compact(name), name))
    if exact is not None:
        return exact
    hits = catalog.search(name, limit=60)
    wanted = _compact(name)
    for candidate in ("", *CATALOG_EQUIPMENT_PREFIXES):
        found = next((e for e in hits if _compact(e.name) == candidate + wanted), None)
        if found is not None:
            return found
    words = _word_set(name)
    close = [
        e
        for e in hits
        if words <= _word_set(e.name)
        and len(_word_set(e.name)) <= len(words) + 2
        and e.category in ("strength", "cardio")
    ]
    return min(close, key=lambda e: (len(_word_set(e.name)), e.name), default=None)


def _default_shares(
    args: LogCompletedExerciseArgs,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    return default_shares(args.exercise_name, args.exercise_type, args.muscles_utilized, args.goals_addressed)


def default_shares(
    name: str,
    kind: str,
    muscles_given: list[MuscleShare] | None = None,
    goals_given: list[GoalShare] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    """Muscle and goal shares from the arguments, else from the catalog entry for the name."""
    entry = catalog_entry(name)
    if muscles_given:
        muscles = [m.model_dump() for m in muscles_given]
    elif entry is not None:
        muscles = [{"muscle": m, "share": s} for m, s in entry.muscles]
    else:
        similar = ", ".join(e.name for e in load_catalog().search(name, limit=5))
        hint = f" (similar catalog names: {similar})" if similar else ""
        raise ToolError(
            f"'{name}' is not in the exercise catalog{hint}: give muscles_utilized "
            "([{muscle, share}] over the 16 muscles)"
        )
    if goals_given:
        goals = [g.model_dump() for g in goals_given]
    else:
        goal = CATALOG_CATEGORY_GOALS.get(entry.category, "") if entry else ""
        goals = [{"goal": goal or TYPE_GOALS[kind], "share": 1.0}]
    matched = entry.name if entry is not None and not muscles_given else None
    return muscles, goals, matched


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
        min_length=1, max_length=64, description="History id (uuid) of the logged exercise to correct"
    )
    exercise_name: str | None = Field(
        default=None,
        min_length=1,
        max_length=120,
        description="The exercise actually done, when the wrong one was logged; its muscles and goals "
        "come from the exercise catalog unless muscles_utilized / goals_addressed are given",
    )
    exercise_type: ExerciseType | None = Field(
        default=None, description="Only when the corrected exercise has another type"
    )
    sets: int | None = Field(default=None, ge=1, le=20)
    reps: list[Reps] | None = Field(default=None, min_length=1, max_length=20, description="Reps per set")
    load: float | None = Field(
        default=None,
        ge=0,
        le=2000,
        description="One load for every set (the heaviest, if they differed); load_each for per-set loads",
    )
    load_each: list[Load] | None = Field(
        default=None, min_length=1, max_length=20, description=LOAD_EACH_HELP
    )
    load_unit: LoadUnit | None = None
    hold_sec: list[HoldSeconds] | None = Field(default=None, min_length=1, max_length=20)
    duration_min: float | None = Field(default=None, gt=0, le=600)
    distance: Distance | None = None
    distance_unit: DistanceUnitArg | None = None
    rounds: int | None = Field(default=None, ge=1, le=100)
    work_sec: int | None = Field(default=None, ge=1, le=3600)
    rest_sec: int | None = Field(default=None, ge=0, le=900)
    rpe: float | None = Field(default=None, ge=1, le=10)
    performed_at: datetime | None = Field(default=None, description="ISO timestamp, when the date was wrong")
    notes: str | None = Field(default=None, max_length=1000)
    muscles_utilized: list[MuscleShare] | None = Field(default=None, min_length=1)
    goals_addressed: list[GoalShare] | None = Field(default=None, min_length=1)

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
            entry[name] = _fit(entry.get(name), sets)
    if kind == "reps":
        unit = args.load_unit or entry.get("load_unit") or weight_unit
        if args.load is not None or args.load_each is not None:
            entry["load_each"] = actual_loads(sets, load=args.load, load_each=args.load_each)
        else:
            entry["load_each"] = _fit(entry.get("load_each"), sets)
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


class AdjustLoggedExercise(Tool[AdjustLoggedExerciseArgs, AdjustLoggedExerciseResult]):
    name = "adjust_logged_exercise"
    can_finish = True
    description = (
        "Correct an exercise already logged to history, by its history id: sets, reps, loads (per set), "
        "hold times, duration, distance, RPE, date, notes, or the exercise itself. Only give what changes. "
        "The goal and muscle distribution is corrected with it (the old entry's share is replaced)."
    )
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


class UndoLoggedExercise(Tool[UndoLoggedExerciseArgs, UndoLoggedExerciseResult]):
    name = "undo_logged_exercise"
    can_finish = True
    description = (
        "Delete an exercise logged in THIS conversation (a mistake or the wrong exercise) by its history id. "
        "Entries logged before the conversation are never deleted: correct them with adjust_logged_exercise."
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


TOOLS: list[AnyTool] = [
    LogWorkout(),
    LogCompletedExercise(),
    UndoLoggedExercise(),
    MarkExerciseComplete(),
    AdjustLoggedExercise(),
]
