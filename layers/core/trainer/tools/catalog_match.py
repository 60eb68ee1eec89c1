"""The catalogue entry a logged exercise name means, and the muscle and goal shares a history entry
takes from it when the call gives none."""

from __future__ import annotations

from typing import Any

from trainer.domain.catalog import CatalogEntry, load_catalog
from trainer.domain.workout import GoalShare, MuscleShare
from trainer.tools.base import ToolError

CATALOG_CATEGORY_GOALS: dict[str, str] = {
    "strength": "Strength", "powerlifting": "Strength", "olympic weightlifting": "Strength",
    "strongman": "Strength", "cardio": "Cardio", "stretching": "Flexibility", "plyometrics": "Power",
}  # fmt: skip
CATALOG_ALIASES: dict[str, str] = {
    "run": "Running, Treadmill", "cycling": "Bicycling", "biking": "Bicycling", "bike": "Bicycling",
    "cycle": "Bicycling",
}  # fmt: skip
CATALOG_EQUIPMENT_PREFIXES = ("barbell", "dumbbell", "bodyweight", "machine")
TYPE_GOALS: dict[str, str] = {
    "reps": "Strength",
    "hold": "Stability",
    "duration": "Cardio",
    "intervals": "Cardio",
}


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
