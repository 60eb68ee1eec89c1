"""Weight and distance units: conversion, practical rounding, and whole-workout conversion."""

from __future__ import annotations

import re
from typing import Literal, cast

from trainer.domain.workout import Exercise, Workout

WeightUnit = Literal["kg", "lbs"]
DistanceUnit = Literal["km", "mi"]

KG_PER_LB = 0.45359237
KM_PER_MI = 1.609344
LOAD_INCREMENT: dict[str, float] = {"kg": 2.5, "lbs": 5.0}
"""Smallest practical jump between loads: 2.5 kg or 5 lb."""

_WEIGHT_ALIASES = {
    "kg": "kg",
    "kgs": "kg",
    "kilo": "kg",
    "kilos": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "lb": "lbs",
    "lbs": "lbs",
    "pound": "lbs",
    "pounds": "lbs",
}
_DISTANCE_ALIASES = {
    "km": "km",
    "kms": "km",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "mi": "mi",
    "mile": "mi",
    "miles": "mi",
}
_PACE = re.compile(r"^\s*(\d+):([0-5]\d)\s*/\s*(km|mi)\s*$")


def weight_unit(value: str) -> WeightUnit:
    """Canonical weight unit ('kg' or 'lbs') for a spelling such as 'lb', 'Pounds' or 'KG'."""
    unit = _WEIGHT_ALIASES.get(value.strip().lower())
    if unit is None:
        raise ValueError(f"unknown weight unit '{value}' (use kg or lbs)")
    return cast(WeightUnit, unit)


def distance_unit(value: str) -> DistanceUnit:
    """Canonical distance unit ('km' or 'mi')."""
    unit = _DISTANCE_ALIASES.get(value.strip().lower())
    if unit is None:
        raise ValueError(f"unknown distance unit '{value}' (use km or mi)")
    return cast(DistanceUnit, unit)


def kg_to_lbs(kg: float) -> float:
    return kg / KG_PER_LB


def lbs_to_kg(lbs: float) -> float:
    return lbs * KG_PER_LB


def km_to_mi(km: float) -> float:
    return km / KM_PER_MI


def mi_to_km(mi: float) -> float:
    return mi * KM_PER_MI


def convert_weight(value: float, from_unit: str, to_unit: str) -> float:
    src, dst = weight_unit(from_unit), weight_unit(to_unit)
    if src == dst:
        return value
    return kg_to_lbs(value) if src == "kg" else lbs_to_kg(value)


def convert_distance(value: float, from_unit: str, to_unit: str) -> float:
    src, dst = distance_unit(from_unit), distance_unit(to_unit)
    if src == dst:
        return value
    return km_to_mi(value) if src == "km" else mi_to_km(value)


def round_to_increment(value: float, increment: float) -> float:
    """Nearest multiple of `increment` (halves round up), never negative."""
    if increment <= 0:
        raise ValueError("increment must be positive")
    steps = int(value / increment + 0.5 + 1e-9) if value > 0 else 0
    return round(steps * increment, 4)


def round_load(value: float, unit: str) -> float:
    """A load rounded to what plates allow: multiples of 2.5 kg or 5 lb."""
    return round_to_increment(value, LOAD_INCREMENT[weight_unit(unit)])


def round_distance(value: float) -> float:
    return round(value, 2)


def convert_pace(pace: str, to_unit: str) -> str:
    """'5:00/km' -> '8:03/mi'. Anything that is not m:ss/unit comes back unchanged."""
    match = _PACE.match(pace)
    if not match:
        return pace
    minutes, seconds, unit = int(match[1]), int(match[2]), match[3]
    dst = distance_unit(to_unit)
    if unit == dst:
        return pace
    per_unit = minutes * 60 + seconds
    converted = per_unit * KM_PER_MI if unit == "km" else per_unit / KM_PER_MI
    total = round(converted)
    return f"{total // 60}:{total % 60:02d}/{dst}"


def convert_exercise(exercise: Exercise, weight_unit_: str, distance_unit_: str) -> Exercise:
    """The same exercise with loads and distances in the given units (loads rounded to plates)."""
    wu, du = weight_unit(weight_unit_), distance_unit(distance_unit_)
    update: dict[str, object] = {}
    if exercise.load_each is not None and exercise.load_unit and exercise.load_unit != wu:
        update["load_each"] = [
            round_load(convert_weight(v, exercise.load_unit, wu), wu) for v in exercise.load_each
        ]
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
