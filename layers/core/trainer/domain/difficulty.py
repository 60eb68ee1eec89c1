"""Harder and easier, computed: the changes that make one prescribed exercise harder or easier by one
step. Load moves first (one step the user's plates or dumbbells allow), then reps, then sets; a hold
moves by 10 seconds, a timed block by 5 minutes, interval rounds by one. "Harder" never lowers an
exercise's work (load x reps x sets, reps x sets without a load, seconds x sets for holds) and "easier"
never raises it (tests/unit/domain/test_request_properties.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from trainer.domain.loading import LoadSteps
from trainer.domain.movements import equipment_class

Direction = Literal["harder", "easier"]
REP_STEP = 2
HOLD_STEP = 10
MINUTES_STEP = 5
MIN_REPS = 1
MIN_HOLD = 5


def work(exercise: Mapping[str, Any]) -> float:
    """An exercise's work in one number: load x reps summed over sets (reps alone without a load),
    hold seconds summed over sets, minutes of a timed block, rounds x work seconds of intervals."""
    kind = exercise.get("exercise_type") or "reps"
    sets = int(exercise.get("sets") or 0)
    if kind == "hold":
        return float(sum(_fit(list(exercise.get("hold_sec") or []), sets)))
    if kind == "duration":
        return float(exercise.get("duration_min") or 0)
    if kind == "intervals":
        return float(int(exercise.get("rounds") or 0) * int(exercise.get("work_sec") or 0))
    reps = _fit(list(exercise.get("reps") or []), sets)
    loads = _fit([float(v) for v in exercise.get("load_each") or []], sets)
    if loads and len(loads) == len(reps):
        return sum(load * r for load, r in zip(loads, reps, strict=True))
    return float(sum(reps))


def _fit(values: list[Any], count: int) -> list[Any]:
    if not values or count <= 0:
        return values[:count] if count > 0 else []
    return values[:count] + [values[-1]] * max(0, count - len(values))


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 2)


def step_changes(
    exercise: Mapping[str, Any], direction: Direction, steps: LoadSteps | None = None
) -> dict[str, Any]:
    """The fields to change to make the exercise one step harder or easier (empty: nothing can move)."""
    kind = exercise.get("exercise_type") or "reps"
    sign = 1 if direction == "harder" else -1
    sets = int(exercise.get("sets") or 0)
    if kind == "hold" and exercise.get("hold_sec"):
        holds = [max(MIN_HOLD, int(h) + sign * HOLD_STEP) for h in exercise["hold_sec"]]
        return {"hold_sec": holds} if holds != list(exercise["hold_sec"]) else _sets(exercise, sign)
    if kind == "duration" and exercise.get("duration_min"):
        minutes = max(MINUTES_STEP, float(exercise["duration_min"]) + sign * MINUTES_STEP)
        return {"duration_min": _number(minutes)} if minutes != float(exercise["duration_min"]) else {}
    if kind == "intervals" and exercise.get("rounds"):
        rounds = max(1, int(exercise["rounds"]) + sign)
        return {"rounds": rounds} if rounds != int(exercise["rounds"]) else {}
    reps = [int(r) for r in exercise.get("reps") or []]
    loads = [float(v) for v in exercise.get("load_each") or []]
    if loads:
        unit = str(exercise.get("load_unit") or "kg")
        ladder = steps or LoadSteps.for_unit(unit)
        implement = equipment_class(str(exercise.get("exercise_name", "")), exercise.get("equipment") or [])
        moved = [ladder.up(v, implement) if sign > 0 else _down(ladder, v, implement) for v in loads]
        if all(m is not None for m in moved):
            new = [_number(float(m)) for m in moved if m is not None]
            if (sign > 0 and all(n > o for n, o in zip(new, loads, strict=True))) or (
                sign < 0 and all(n < o for n, o in zip(new, loads, strict=True))
            ):
                return {"load_each": new}
    if reps:
        new_reps = [max(MIN_REPS, r + sign * REP_STEP) for r in reps]
        if new_reps != reps:
            return {"reps": new_reps}
    return _sets(exercise, sign) if sets else {}


def _down(ladder: LoadSteps, load: float, implement: str | None) -> float | None:
    lower = ladder.down(load - 0.01, implement) if load > 0.01 else None
    return lower if lower is not None and lower < load else None


def _sets(exercise: Mapping[str, Any], sign: int) -> dict[str, Any]:
    sets = int(exercise.get("sets") or 0)
    count = sets + sign
    if count < 1 or count == sets:
        return {}
    changes: dict[str, Any] = {"sets": count}
    for name in ("reps", "load_each", "hold_sec"):
        values = list(exercise.get(name) or [])
        if values:
            changes[name] = _fit(values, count)
    return changes
