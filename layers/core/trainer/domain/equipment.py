"""Equipment names: one canonical spelling per item, what a location offers, what an exercise lacks.

Bodyweight work needs nothing, so 'bodyweight' is always available and never missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

BODYWEIGHT = "bodyweight"

_ALIASES: dict[str, str] = {
    "body only": BODYWEIGHT, "body weight": BODYWEIGHT, "bodyweight": BODYWEIGHT, "none": BODYWEIGHT,
    "no equipment": BODYWEIGHT, "": BODYWEIGHT,
    "dumbbells": "dumbbell", "db": "dumbbell", "dbs": "dumbbell",
    "barbells": "barbell", "olympic barbell": "barbell", "olympic bar": "barbell",
    "kettlebells": "kettlebell", "kettle bell": "kettlebell", "kettle bells": "kettlebell",
    "pull up bar": "pull-up bar", "pullup bar": "pull-up bar", "chin up bar": "pull-up bar",
    "chin-up bar": "pull-up bar", "pull-up bar": "pull-up bar", "doorway pull-up bar": "pull-up bar",
    "e-z curl bar": "ez curl bar", "ez bar": "ez curl bar", "ez-bar": "ez curl bar",
    "ez curl bar": "ez curl bar", "curl bar": "ez curl bar",
    "band": "bands", "resistance band": "bands", "resistance bands": "bands", "bands": "bands",
    "cable machine": "cable", "cables": "cable", "cable station": "cable", "cable crossover": "cable",
    "bench": "bench", "weight bench": "bench", "flat bench": "bench", "adjustable bench": "bench",
    "incline bench": "bench", "benches": "bench",
    "dip station": "dip station", "dip bars": "dip station", "dip bar": "dip station",
    "parallel bars": "dip station", "parallettes": "dip station",
    "medicine ball": "medicine ball", "med ball": "medicine ball", "medicine balls": "medicine ball",
    "exercise ball": "exercise ball", "stability ball": "exercise ball", "swiss ball": "exercise ball",
    "foam roller": "foam roll", "foam roll": "foam roll",
    "machines": "machine", "weight machine": "machine", "weight machines": "machine",
    "smith machine": "smith machine",
    "squat rack": "rack", "power rack": "rack", "rack": "rack",
    "treadmill": "treadmill", "treadmills": "treadmill",
    "exercise bike": "stationary bike", "stationary bike": "stationary bike", "spin bike": "stationary bike",
    "recumbent bike": "stationary bike", "bike": "bicycle", "bicycle": "bicycle",
    "rower": "rowing machine", "rowing machine": "rowing machine", "erg": "rowing machine",
    "elliptical": "elliptical", "elliptical trainer": "elliptical", "cross trainer": "elliptical",
    "stairmaster": "stair climber", "stair climber": "stair climber", "step mill": "stair climber",
    "jump rope": "jump rope", "skipping rope": "jump rope", "rope": "jump rope",
    "plyo box": "box", "plyometric box": "box", "box": "box", "step": "box", "aerobic step": "box",
}  # fmt: skip

_IMPLIES: dict[str, frozenset[str]] = {
    "smith machine": frozenset({"machine"}),
    "rack": frozenset(),
}
"""Items that also provide a coarser catalog category (a Smith machine is a machine)."""

FULL_GYM: frozenset[str] = frozenset({
    "barbell", "dumbbell", "kettlebell", "cable", "machine", "smith machine", "bench", "rack", "pull-up bar",
    "dip station", "ez curl bar", "bands", "medicine ball", "exercise ball", "foam roll", "treadmill",
    "stationary bike", "rowing machine", "elliptical", "stair climber", "box", "jump rope",
})  # fmt: skip
_FULL_GYM_NAMES = frozenset({"full gym", "gym", "commercial gym", "full commercial gym"})
EVERY_ITEM: frozenset[str] = (FULL_GYM | frozenset(_ALIASES.values()) | {"other"}) - {BODYWEIGHT}
"""Every item an exercise of the catalog can need: what 'no equipment' rules out."""
NO_EQUIPMENT = re.compile(
    r"\b(?:with |using )?(?:no|without(?: any)?|zero) equipment\b"
    r"|\bbody ?weight only\b|\bnothing but my body\b",
    re.IGNORECASE,
)
"""Words that say there is no equipment at all (the session is bodyweight only)."""


@lru_cache(maxsize=4096)
def normalise_equipment(name: str) -> str:
    """Canonical lower-case spelling: 'Dumbbells' -> 'dumbbell', 'Pull-up Bar' -> 'pull-up bar',
    'body only' / 'none' -> 'bodyweight'. Unknown names are kept, lower-cased and trimmed."""
    key = re.sub(r"\s+", " ", name.strip().lower().replace("_", " "))
    if key in _ALIASES:
        return _ALIASES[key]
    if key.endswith("machine") and key not in ("cable machine", "rowing machine", "smith machine"):
        return "machine"
    if key.endswith("s") and key[:-1] in _ALIASES:
        return _ALIASES[key[:-1]]
    return key


def _item_name(item: Mapping[str, Any] | str) -> str | None:
    if isinstance(item, str):
        return item
    if item.get("available") is False or item.get("quantity") == 0:
        return None
    for key in ("name", "equipment_name", "equipment", "item"):
        value = item.get(key)
        if isinstance(value, str):
            return value
    return None


def available_equipment(location_equipment: Iterable[Mapping[str, Any] | str]) -> set[str]:
    """Canonical names of everything a location offers (strings or rows with a 'name'-like key),
    plus 'bodyweight'. 'Full gym' expands to a standard commercial gym."""
    available = {BODYWEIGHT}
    for item in location_equipment:
        name = _item_name(item)
        if name is None:
            continue
        if name.strip().lower() in _FULL_GYM_NAMES:
            available |= FULL_GYM
            continue
        canonical = normalise_equipment(name)
        available.add(canonical)
        available |= _IMPLIES.get(canonical, frozenset())
    return available


def missing_equipment(required: Iterable[str], available: Iterable[str]) -> set[str]:
    """Required items (canonical names) that are not available; bodyweight is never missing."""
    have = {normalise_equipment(a) for a in available} | {BODYWEIGHT}
    for item in list(have):
        have |= _IMPLIES.get(item, frozenset())
    return {n for n in (normalise_equipment(r) for r in required) if n not in have}
