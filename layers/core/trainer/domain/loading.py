"""Loads a lifter can actually set up (docs/training-model.md#loads-you-can-make): per implement, in the
user's unit, from what the current location lists or, when it lists nothing, the standard equipment.

- A barbell never carries less than the empty bar (the location's listed bar, else 20 kg / 45 lb; an
  EZ bar 10 kg / 25 lb); with a plate list it carries the bar plus pairs of those plates, without one
  the bar plus pairs of the smallest common plates (steps of 2.5 kg / 5 lb).
- Dumbbells and kettlebells come in the weights the location lists, else in the standard fixed
  weights of each unit (`DUMBBELLS`, `KETTLEBELLS`): never 0, never a weight no rack holds.
- Machines and cables move in pin steps of 2.5 kg / 5 lb.
- A load exactly halfway between two settable loads rounds to the lighter one, whatever the source.
- A workout converted to another unit keeps real implements: each load becomes the nearest weight of
  that implement in the new unit (a 25 lb dumbbell is a 12 kg one, 1 kg is a 2 lb dumbbell, never 0).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from trainer.domain.equipment import normalise_equipment
from trainer.domain.movements import equipment_class
from trainer.domain.units import (
    WeightUnit,
    convert_distance,
    convert_pace,
    convert_weight,
    distance_unit,
    round_distance,
    weight_unit,
)
from trainer.domain.workout import Exercise, Workout

PLATE_STEP: dict[str, float] = {"kg": 2.5, "lbs": 5.0}
"""A pair of the smallest common plates (1.25 kg, 2.5 lb): the step of a bar, a machine or a cable."""
EMPTY_BARS: dict[str, dict[str, float]] = {
    "barbell": {"kg": 20.0, "lbs": 45.0},
    "ez curl bar": {"kg": 10.0, "lbs": 25.0},
}
"""The bar a location without a listed one is assumed to have (a standard Olympic bar, an EZ bar)."""
BARBELL_MAX: dict[str, float] = {"kg": 400.0, "lbs": 880.0}
_STANDARD_DUMBBELLS_KG = (*range(1, 11), *range(12, 62, 2))
_STANDARD_DUMBBELLS_LB = (2, 3, 5, 8, 10, 12, *range(15, 155, 5))
DUMBBELLS: dict[str, tuple[float, ...]] = {
    "kg": tuple(float(w) for w in _STANDARD_DUMBBELLS_KG),
    "lbs": tuple(float(w) for w in _STANDARD_DUMBBELLS_LB),
}
"""Fixed dumbbells as gyms stock them: 1-10 kg by 1 kg then by 2 kg; 2, 3, 5, 8, 10, 12 lb then by 5 lb."""
KETTLEBELLS: dict[str, tuple[float, ...]] = {
    "kg": (4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0, 28.0, 32.0, 36.0, 40.0,
           44.0, 48.0),
    "lbs": (5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0, 60.0, 70.0, 80.0, 90.0,
            100.0),
}  # fmt: skip
"""Kettlebells as made: 2 kg steps to 28 kg, then the 4 kg competition steps; 5 lb steps to 60 lb."""
HANDHELD = ("dumbbell", "kettlebell")
_EPS = 1e-6


def _weights(items: Iterable[Mapping[str, Any] | str], kind: str, unit: str) -> tuple[float, ...]:
    found: set[float] = set()
    for item in items:
        if not isinstance(item, Mapping):
            continue
        name = str(item.get("name") or "")
        is_kind = normalise_equipment(name) == kind if kind != "plate" else "plate" in name.lower()
        if not is_kind:
            continue
        source = str(item.get("unit") or unit)
        for value in item.get("weights") or []:
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue
            if number > 0:
                found.add(round(convert_weight(number, source, unit), 2))
    return tuple(sorted(found))


def nearest_of(values: Iterable[float], load: float) -> float:
    """The value nearest `load`; exactly halfway between two, the lighter."""
    return min(values, key=lambda w: (round(abs(w - load), 6), w))


def _nearest_step(load: float, base: float, step: float) -> float:
    """base + k x step nearest `load` (k >= 0), halfway rounding down."""
    k = max(0, math.ceil((load - base) / step - 0.5 - 1e-9))
    return round(base + k * step, 2)


@dataclass(frozen=True)
class LoadSteps:
    """What loads a user can set up, per implement, in their unit."""

    unit: WeightUnit
    plate_step: float
    dumbbells: tuple[float, ...] = ()
    """The dumbbells the location lists (() when it lists none)."""
    kettlebells: tuple[float, ...] = ()
    plates: tuple[float, ...] = ()
    """The plate weights the location lists (each loaded in pairs, one per side)."""
    bar: float | None = None
    """The barbell's listed weight (None: a standard bar)."""

    @classmethod
    def for_unit(cls, unit: str, location_equipment: Iterable[Mapping[str, Any] | str] = ()) -> LoadSteps:
        """Default steps for the unit, refined by the weights the current location lists."""
        u = weight_unit(unit)
        items = list(location_equipment)
        plates = _weights(items, "plate", u)
        bars = _weights(items, "barbell", u)
        return cls(
            unit=u,
            plate_step=2 * plates[0] if plates else PLATE_STEP[u],
            dumbbells=_weights(items, "dumbbell", u),
            kettlebells=_weights(items, "kettlebell", u),
            plates=plates,
            bar=bars[-1] if bars else None,
        )

    def empty_bar(self, equipment_class: str | None = "barbell") -> float:
        """The lightest a bar can be loaded: the bar itself."""
        if equipment_class == "barbell" and self.bar is not None:
            return self.bar
        return EMPTY_BARS.get(equipment_class or "", EMPTY_BARS["barbell"])[self.unit]

    @cached_property
    def barbell_loads(self) -> tuple[float, ...]:
        """Every total a barbell can carry with the listed plates (the bar plus pairs of them, any
        number of each, up to BARBELL_MAX); () when the location lists no plates."""
        if not self.plates:
            return ()
        return barbell_totals(self.empty_bar(), self.plates, BARBELL_MAX[self.unit])

    def listed(self, equipment_class: str | None) -> tuple[float, ...]:
        """The loads the location's listed weights allow for an implement (() when it lists none): a
        goblet squat takes a dumbbell or a kettlebell, so either list serves when only one is listed."""
        if equipment_class == "dumbbell":
            return self.dumbbells or self.kettlebells
        if equipment_class == "kettlebell":
            return self.kettlebells or self.dumbbells
        if equipment_class == "barbell":
            return self.barbell_loads
        return ()

    def _ladder(self, equipment_class: str | None) -> tuple[float, ...]:
        """The settable loads of an implement that comes in fixed weights: listed, else standard."""
        listed = self.listed(equipment_class)
        if listed:
            return listed
        if equipment_class == "dumbbell":
            return DUMBBELLS[self.unit]
        if equipment_class == "kettlebell":
            return KETTLEBELLS[self.unit]
        return ()

    def _base(self, equipment_class: str | None) -> float:
        """The lightest load of an implement in steps: the empty bar, else one step."""
        return self.empty_bar(equipment_class) if equipment_class in EMPTY_BARS else self.plate_step

    def lightest(self, equipment_class: str | None) -> float:
        ladder = self._ladder(equipment_class)
        return ladder[0] if ladder else self._base(equipment_class)

    def nearest(self, load: float, equipment_class: str | None, *, ceiling: float | None = None) -> float:
        """The settable load nearest `load` (halfway: the lighter), not above `ceiling` when one is given
        (the lightest settable load when even that is above it)."""
        ladder = self._ladder(equipment_class)
        if ladder:
            allowed = [w for w in ladder if ceiling is None or w <= ceiling + _EPS] or [ladder[0]]
            return nearest_of(allowed, load)
        base, step = self._base(equipment_class), self.plate_step
        value = _nearest_step(load, base, step)
        while ceiling is not None and value > ceiling + _EPS and value - step >= base - _EPS:
            value = round(value - step, 2)
        return value

    def down(self, load: float, equipment_class: str | None) -> float:
        """The heaviest settable load at or below `load` (the lightest one if none is)."""
        return self.nearest(load, equipment_class, ceiling=load)

    def up(self, load: float, equipment_class: str | None) -> float | None:
        """The next settable load above `load` (None when nothing heavier is there)."""
        ladder = self._ladder(equipment_class)
        if ladder:
            return next((w for w in ladder if w > load + _EPS), None)
        base, step = self._base(equipment_class), self.plate_step
        value = _nearest_step(load, base, step)
        return value if value > load + _EPS else round(value + step, 2)

    def heavier(self, load: float, equipment_class: str | None, limit: float) -> tuple[float, ...]:
        """The settable loads above `load` up to `limit`, lightest first."""
        ladder = self._ladder(equipment_class)
        if ladder:
            return tuple(w for w in ladder if load + _EPS < w <= limit + _EPS)
        found = []
        value = self.up(load, equipment_class)
        while value is not None and value <= limit + _EPS:
            found.append(value)
            value = round(value + self.plate_step, 2)
        return tuple(found)


def barbell_totals(bar: float, plates: Iterable[float], limit: float) -> tuple[float, ...]:
    """The bar plus any sum of plate pairs (each plate usable any number of times), up to `limit`."""
    pairs = sorted({round(2 * p * 100) for p in plates if p > 0} - {0})  # hundredths of the unit
    if not pairs or limit < bar:
        return (round(bar, 2),)
    grain = math.gcd(*pairs)
    cells = int((limit - bar) * 100) // grain
    reachable = [False] * (cells + 1)
    reachable[0] = True
    for pair in (p // grain for p in pairs):
        for total in range(pair, cells + 1):
            reachable[total] = reachable[total] or reachable[total - pair]
    return tuple(round(bar + total * grain / 100, 2) for total, ok in enumerate(reachable) if ok)


def converted_load(load: float, source: str, target: str, equipment_class: str | None) -> float:
    """A load in another unit as the nearest weight of the same implement in that unit (a kg load
    stays exact when the unit does not change)."""
    if weight_unit(source) == weight_unit(target):
        return load
    return LoadSteps.for_unit(target).nearest(convert_weight(load, source, target), equipment_class)


def convert_exercise(exercise: Exercise, weight_unit_: str, distance_unit_: str) -> Exercise:
    """The same exercise with loads and distances in the given units, each load a real implement."""
    wu, du = weight_unit(weight_unit_), distance_unit(distance_unit_)
    update: dict[str, object] = {}
    if exercise.load_each is not None and exercise.load_unit and exercise.load_unit != wu:
        cls = equipment_class(exercise.exercise_name, exercise.equipment)
        update["load_each"] = [converted_load(v, exercise.load_unit, wu, cls) for v in exercise.load_each]
        update["load_unit"] = wu
    if exercise.distance is not None and exercise.distance_unit and exercise.distance_unit != du:
        update["distance"] = round_distance(convert_distance(exercise.distance, exercise.distance_unit, du))
        update["distance_unit"] = du
    if exercise.target_pace:
        update["target_pace"] = convert_pace(exercise.target_pace, du)
    if not update:
        return exercise
    return Exercise.model_validate({**exercise.model_dump(), **update})


def convert_workout(workout: Workout, weight_unit: str, distance_unit: str) -> Workout:
    """The workout with every load and distance expressed in the user's units."""
    exercises = [convert_exercise(e, weight_unit, distance_unit) for e in workout.exercises]
    return workout.model_copy(update={"exercises": exercises})
