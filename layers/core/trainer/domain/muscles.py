"""The 16 canonical muscles and their recovery classes."""

from __future__ import annotations

from typing import Literal

Muscle = Literal[
    "Chest", "Back", "Shoulders", "Biceps", "Triceps", "Abs", "Lower Back", "Quadriceps",
    "Hamstrings", "Glutes", "Calves", "Trapezius", "Abductors", "Adductors", "Forearms", "Neck",
]  # fmt: skip

MUSCLES: tuple[str, ...] = (
    "Chest", "Back", "Shoulders", "Biceps", "Triceps", "Abs", "Lower Back", "Quadriceps",
    "Hamstrings", "Glutes", "Calves", "Trapezius", "Abductors", "Adductors", "Forearms", "Neck",
)  # fmt: skip

LARGE_MUSCLES: frozenset[str] = frozenset(
    {"Chest", "Back", "Quadriceps", "Hamstrings", "Glutes", "Lower Back"}
)
"""Need 48 h between hard sessions; every other muscle is small and needs 24 h."""

UPPER_BODY = frozenset({"Chest", "Back", "Shoulders", "Biceps", "Triceps", "Trapezius", "Forearms", "Neck"})
LOWER_BODY = frozenset({"Quadriceps", "Hamstrings", "Glutes", "Calves", "Abductors", "Adductors"})
CORE = frozenset({"Abs", "Lower Back"})


def region_of(muscle: str) -> str:
    """The part of the body a muscle belongs to: 'upper', 'lower' or 'core'."""
    return "upper" if muscle in UPPER_BODY else "lower" if muscle in LOWER_BODY else "core"


def canonical_muscle(name: str) -> str | None:
    """Case- and space-insensitive lookup of a canonical muscle name."""
    key = name.strip().lower().replace("_", " ")
    for muscle in MUSCLES:
        if muscle.lower() == key:
            return muscle
    return None


def recovery_hours(muscle: str) -> int:
    return 48 if muscle in LARGE_MUSCLES else 24
