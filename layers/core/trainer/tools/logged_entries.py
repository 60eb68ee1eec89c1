"""A logged exercise as the logging tools read it back (one workout_history row, with its history id),
the line the model sees for it, and the loads of the sets it records."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from trainer.domain.workout import DistanceUnit, ExerciseType, LoadUnit, per_set_loads_text
from trainer.services.rows import plain
from trainer.tools.base import ToolError
from trainer.tools.wording import number_text, prescription

DistanceUnitArg = Literal["km", "mi"]

LOAD_HELP = "The top set's load"
LOAD_EACH_HELP = "Each set's load, when they differ"
SETS_HELP = "Sets done"
MINUTES_HELP = "Minutes it took"
DISTANCE_HELP = "In distance_unit"
NOTES_HELP = "The user's words about it"


def fit_to_sets(values: list[Any] | None, sets: int | None) -> list[Any] | None:
    """A per-set list resized to `sets` (extra values dropped, the last value repeated)."""
    if not values or not sets or len(values) == sets:
        return values
    return values[:sets] if len(values) > sets else values + [values[-1]] * (sets - len(values))


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
    fitted = fit_to_sets(planned, sets)
    if load is None:
        return fitted
    if fitted and max(fitted) == load:
        return fitted
    return [load] * (sets or 1)


class MuscleShareRow(BaseModel):
    """A muscle share as history stores it (names as logged)."""

    muscle: str
    share: float


class GoalShareRow(BaseModel):
    goal: str
    share: float


class LoggedExercise(BaseModel):
    """One workout_history row: what was done, with its history id."""

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
    """'Bench Press 3x10 @60kg RPE 8' with the history id: the short confirmation the model reads after a
    log or a correction (a tool's `category` "summary")."""
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


def logged_text(row: LoggedExercise) -> str:
    """What a logged entry holds, in words ('3 x 10 at 60 kg')."""
    return prescription(row.model_dump(mode="json"))
