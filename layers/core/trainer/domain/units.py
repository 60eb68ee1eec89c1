"""Weight and distance units and their conversion (a converted workout keeps real implements:
trainer.domain.loading.convert_workout)."""

from __future__ import annotations

import re
from typing import Literal, cast

WeightUnit = Literal["kg", "lbs"]
DistanceUnit = Literal["km", "mi"]

KG_PER_LB = 0.45359237
KM_PER_MI = 1.609344

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
