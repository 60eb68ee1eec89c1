"""Which of the user's goals an exercise serves: a goal's kind from its words, and an exercise's share
of each goal it fits."""

from __future__ import annotations

from collections.abc import Mapping

from trainer.domain.catalog import CatalogEntry
from trainer.domain.prescriptions import goal_kind

STRENGTH_CATEGORIES = {"strength", "powerlifting", "olympic weightlifting", "strongman"}


def entry_kind(entry: CatalogEntry) -> str:
    if entry.category in STRENGTH_CATEGORIES:
        return "strength"
    return entry.category


GOAL_FIT: dict[str, dict[str, float]] = {
    "strength": {"strength": 1.0, "hypertrophy": 1.0, "general": 1.0, "power": 0.5, "endurance": 0.3},
    "cardio": {"endurance": 1.0, "general": 0.6, "power": 0.2},
    "plyometrics": {"power": 1.0, "endurance": 0.7, "general": 0.5, "strength": 0.2},
    "stretching": {"mobility": 1.0, "general": 0.2},
}
FALLBACK_GOAL = {
    "strength": "Strength",
    "cardio": "Cardio",
    "plyometrics": "Power",
    "stretching": "Mobility",
}


def goal_shares(entry: CatalogEntry, goals: Mapping[str, float]) -> list[tuple[str, float]]:
    """The user's goals this exercise serves, as shares summing to 1 (its own kind's when none does)."""
    fits = goal_fits(entry, goals)
    return rounded_shares(fits) if fits else [(FALLBACK_GOAL.get(entry_kind(entry), "Strength"), 1.0)]


def goal_fits(entry: CatalogEntry, goals: Mapping[str, float]) -> dict[str, float]:
    """goal -> weight x fit for the user's goals this exercise serves."""
    fit = GOAL_FIT.get(entry_kind(entry), GOAL_FIT["strength"])
    return {g: w * fit[goal_kind(g)] for g, w in goals.items() if fit.get(goal_kind(g), 0) > 0}


def rounded_shares(weights: Mapping[str, float], keep: int = 3) -> list[tuple[str, float]]:
    top = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:keep]
    total = sum(w for _, w in top)
    shares = [(n, round(w / total, 2)) for n, w in top]
    shares = [(n, s) for n, s in shares if s > 0] or [(top[0][0], 1.0)]
    remainder = round(1.0 - sum(s for _, s in shares), 2)
    shares[0] = (shares[0][0], round(shares[0][1] + remainder, 2))
    return shares
