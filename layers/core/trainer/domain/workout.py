"""The structured workout payload, validated strictly so a bad workout comes back
to the model as an observation it can fix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trainer.domain.muscles import Muscle

ExerciseType = Literal["reps", "hold", "duration", "intervals"]
GroupType = Literal["circuit", "superset", "giant_set", "warmup", "cooldown", "sequence"]
LoadUnit = Literal["kg", "lbs"]
DistanceUnit = Literal["km", "mi"]

SHARE_TOLERANCE = 0.01

Reps = Annotated[int, Field(ge=1, le=1000)]
HoldSeconds = Annotated[int, Field(ge=1, le=3600)]
Load = Annotated[float, Field(ge=0, le=2000)]
"""A load in kg or lbs (a heavy deadlift is under 500 kg)."""
Distance = Annotated[float, Field(gt=0, le=1000)]
"""A distance in km or mi."""
Minutes = Annotated[float, Field(gt=0, le=600)]
STRICT_NUMBERS = ConfigDict(extra="forbid", allow_inf_nan=False)
"""Models the model or a client fills: no unknown fields, no NaN or infinity."""

TYPE_REQUIRED: dict[str, tuple[str, ...]] = {
    "reps": ("sets", "reps", "rest_sec"),
    "hold": ("sets", "hold_sec", "rest_sec"),
    "duration": ("duration_min",),
    "intervals": ("rounds", "work_sec", "rest_sec"),
}
TYPE_FIELDS: dict[str, frozenset[str]] = {
    "reps": frozenset({"sets", "reps", "rest_sec", "load_each", "load_unit"}),
    "hold": frozenset({"sets", "hold_sec", "rest_sec"}),
    "duration": frozenset({"duration_min", "distance", "distance_unit", "target_pace"}),
    "intervals": frozenset({"rounds", "work_sec", "rest_sec"}),
}
ALL_TYPE_FIELDS: frozenset[str] = frozenset().union(*TYPE_FIELDS.values())


class MuscleShare(BaseModel):
    model_config = STRICT_NUMBERS
    muscle: Muscle
    share: float = Field(ge=0, le=1)


class GoalShare(BaseModel):
    model_config = STRICT_NUMBERS
    goal: str = Field(min_length=1, max_length=80)
    share: float = Field(ge=0, le=1)


class ExerciseGroup(BaseModel):
    model_config = STRICT_NUMBERS
    id: str = Field(min_length=1, max_length=60, description="Shared by every exercise of the group")
    type: GroupType
    position: int = Field(ge=1, le=30, description="Order within the group, 1-indexed")
    name: str | None = Field(default=None, max_length=120, description="First exercise of the group only")
    rounds: int | None = Field(default=None, ge=1, le=100, description="First exercise of the group only")
    rest_between_rounds_sec: int | None = Field(
        default=None, ge=0, le=3600, description="First exercise only"
    )


class ExerciseFields(BaseModel):
    """The fields of an exercise with their types and bounds (what a JSON Schema can say); `Exercise`
    adds the rules between fields."""

    model_config = STRICT_NUMBERS

    id: str | None = Field(
        default=None, max_length=64, description="Assigned by the server; omit when creating"
    )
    exercise_name: str = Field(min_length=1, max_length=120)
    exercise_type: ExerciseType
    order: int = Field(ge=1, le=100, description="Position in the workout, 1-indexed")
    muscles_utilized: list[MuscleShare] = Field(min_length=1, description="Shares sum to 1.0")
    goals_addressed: list[GoalShare] = Field(min_length=1, description="Shares sum to 1.0")
    reasoning: str = Field(min_length=1, max_length=300)
    equipment: list[Annotated[str, Field(max_length=80)]] = Field(
        default_factory=list, max_length=20, description="Equipment needed; [] for none"
    )
    group: ExerciseGroup | None = None
    sets: int | None = Field(default=None, ge=1, le=20)
    reps: list[Reps] | None = Field(default=None, description="Target reps per set (reps type)")
    load_each: list[Load] | None = Field(default=None, description="Load per set; omit for bodyweight")
    load_unit: LoadUnit | None = None
    hold_sec: list[HoldSeconds] | None = Field(default=None, description="Hold seconds per set (hold type)")
    rest_sec: int | None = Field(default=None, ge=0, le=900)
    duration_min: Minutes | None = None
    distance: Distance | None = None
    distance_unit: DistanceUnit | None = None
    target_pace: str | None = Field(default=None, max_length=40)
    rounds: int | None = Field(default=None, ge=1, le=100)
    work_sec: int | None = Field(default=None, ge=1, le=3600)
    completed: bool = False


class Exercise(ExerciseFields):
    """One exercise. Fields beyond the common ones depend on `exercise_type`."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        problems = field_problems(self) + share_problems(self.muscles_utilized, self.goals_addressed)
        if problems:
            raise ValueError("; ".join(problems))
        return self


def field_problems(ex: ExerciseFields) -> list[str]:
    """The rules between an exercise's fields its type sets (required, foreign, one value per set, units)."""
    problems: list[str] = []
    kind = ex.exercise_type
    for name in TYPE_REQUIRED[kind]:
        if getattr(ex, name) is None:
            problems.append(f"'{name}' is required for {kind} exercises")
    foreign = sorted(f for f in ALL_TYPE_FIELDS - TYPE_FIELDS[kind] if getattr(ex, f) is not None)
    if foreign:
        problems.append(f"{', '.join(foreign)} not allowed for {kind} exercises")
    for name in ("reps", "hold_sec", "load_each"):
        values = getattr(ex, name)
        if values is not None:
            if ex.sets is not None and len(values) != ex.sets:
                problems.append(f"'{name}' needs one value per set ({ex.sets}), got {len(values)}")
            if any(v <= 0 for v in values) and name != "load_each":
                problems.append(f"'{name}' values must be positive")
            if name == "load_each" and any(v < 0 for v in values):
                problems.append("'load_each' values must not be negative")
    if ex.load_each is not None and ex.load_unit is None:
        problems.append("'load_unit' is required with 'load_each'")
    if ex.distance is not None and ex.distance_unit is None:
        problems.append("'distance_unit' is required with 'distance'")
    return problems


def share_problems(muscles: Sequence[MuscleShare] | None, goals: Sequence[GoalShare] | None) -> list[str]:
    """Muscle shares and goal shares each sum to 1, no muscle twice (a list not given: nothing to check)."""
    problems: list[str] = []
    if muscles is not None:
        muscle_sum = sum(m.share for m in muscles)
        if abs(muscle_sum - 1.0) > SHARE_TOLERANCE:
            problems.append(f"muscles_utilized shares sum to {muscle_sum:.2f}, must be 1.0")
        if len({m.muscle for m in muscles}) != len(muscles):
            problems.append("muscles_utilized lists a muscle twice")
    if goals is not None:
        goal_sum = sum(g.share for g in goals)
        if abs(goal_sum - 1.0) > SHARE_TOLERANCE:
            problems.append(f"goals_addressed shares sum to {goal_sum:.2f}, must be 1.0")
    return problems


class WorkoutSummary(BaseModel):
    model_config = STRICT_NUMBERS
    estimated_duration_min: float | None = Field(default=None, gt=0, le=1440)
    primary_goals: list[Annotated[str, Field(max_length=80)]] = Field(default_factory=list, max_length=20)
    muscles_targeted: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=20)


class Workout(BaseModel):
    model_config = STRICT_NUMBERS
    title: str | None = Field(default=None, max_length=120)
    exercises: list[Exercise] = Field(min_length=1, max_length=30)
    summary: WorkoutSummary | None = None

    @model_validator(mode="after")
    def _check_order_and_groups(self) -> Self:
        problems = order_problems(self.exercises)
        if problems:
            raise ValueError("; ".join(problems))
        return self


class ClientWorkout(BaseModel):
    """The workout the app is showing, sent back with a message: the exercises a turn's reply gave it
    (with the ids and `completed` flags the server set). Every field is typed and bounded as in a
    workout; the rules between fields are not enforced here (the turn only shows it to the model)."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    workout_id: str | None = Field(default=None, max_length=64)
    title: str | None = Field(default=None, max_length=120)
    exercises: list[ExerciseFields] = Field(default_factory=list, max_length=30)


def order_problems(exercises: Sequence[ExerciseFields]) -> list[str]:
    """Orders 1..n without gaps or repeats, and the group rules."""
    problems: list[str] = []
    orders = [e.order for e in exercises]
    if sorted(orders) != list(range(1, len(orders) + 1)):
        problems.append(f"'order' values must be 1..{len(orders)} without gaps or repeats, got {orders}")
    problems.extend(group_problems(exercises))
    return problems


def group_problems(exercises: Sequence[ExerciseFields]) -> list[str]:
    """Group rules: shared id and type, positions 1..n, name/rounds/rest only on position 1,
    members contiguous in order, supersets of 2 and circuits/giant sets of 3+."""
    problems: list[str] = []
    groups: dict[str, list[ExerciseFields]] = {}
    for ex in sorted(exercises, key=lambda e: e.order):
        if ex.group is not None:
            groups.setdefault(ex.group.id, []).append(ex)
    for gid, members in groups.items():
        types = {m.group.type for m in members if m.group}
        if len(types) > 1:
            problems.append(f"group '{gid}' mixes types {sorted(types)}")
        positions = sorted(m.group.position for m in members if m.group)
        if positions != list(range(1, len(members) + 1)):
            problems.append(f"group '{gid}' positions must be 1..{len(members)}, got {positions}")
        for m in members:
            g = m.group
            if g and g.position != 1 and (g.name or g.rounds or g.rest_between_rounds_sec is not None):
                problems.append(
                    f"group '{gid}': name/rounds/rest_between_rounds_sec belong on position 1 only"
                )
        orders = [m.order for m in members]
        if orders != list(range(orders[0], orders[0] + len(orders))):
            problems.append(f"group '{gid}' members must be consecutive in the workout order")
        kind = next(iter(types)) if len(types) == 1 else None
        if kind == "superset" and len(members) != 2:
            problems.append(f"superset '{gid}' needs exactly 2 exercises, has {len(members)}")
        if kind in ("circuit", "giant_set") and len(members) < 3:
            problems.append(f"{kind} '{gid}' needs 3 or more exercises, has {len(members)}")
    return problems


def exercise_line(ex: Exercise | dict[str, Any]) -> str:
    """Compact one-line description used by formatters: '4x[10,10,8,6] @ 60kg', '3x[45]s hold'."""
    e = ex if isinstance(ex, Exercise) else Exercise.model_validate(ex)
    match e.exercise_type:
        case "reps":
            reps = ",".join(str(r) for r in e.reps or [])
            if e.load_each and len(set(e.load_each)) > 1:
                return f"{per_set_loads_text(e.load_each, e.load_unit or '', e.reps)}, rest {e.rest_sec}s"
            load = f" @ {_num(e.load_each[0])}{e.load_unit}" if e.load_each else ""
            return f"{e.sets}x[{reps}]{load}, rest {e.rest_sec}s"
        case "hold":
            holds = ",".join(str(h) for h in e.hold_sec or [])
            return f"{e.sets}x[{holds}]s hold, rest {e.rest_sec}s"
        case "duration":
            extra = f", {_num(e.distance)}{e.distance_unit}" if e.distance else ""
            pace = f" @ {e.target_pace}" if e.target_pace else ""
            return f"{_num(e.duration_min)} min{extra}{pace}"
        case "intervals":
            return f"{e.rounds} rounds x {e.work_sec}s on / {e.rest_sec}s off"
    return ""


def per_set_loads_text(loads: Sequence[float], unit: str, reps: Sequence[int] | None = None) -> str:
    """Loads that differ between sets, one per set, in words: '3 sets: 60, 60, 65 kg', with the reps
    ('x 10 reps' when every set had the same, else 'x 12, 10, 8 reps')."""
    text = f"{len(loads)} sets: {', '.join(_num(v) for v in loads)} {unit}".rstrip()
    if reps:
        shown = str(reps[0]) if len(set(reps)) == 1 else ", ".join(str(r) for r in reps)
        text += f" x {shown} reps"
    return text


def _num(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
