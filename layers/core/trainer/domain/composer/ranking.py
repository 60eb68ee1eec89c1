"""The soft ranking of the exercises the hard rules allow, in priority order: temporary preferences,
the explicit request (muscles, and exercises named: 'a leg workout with squats'), permanent
preferences, distribution debt, goal weights, then history (familiar exercises up, ones done in the
last 72 h down); and the picker that takes the best next one, spread over muscles and movement
patterns."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from trainer.domain.catalog import CatalogEntry
from trainer.domain.composer.goals import goal_fits
from trainer.domain.composer.session_plan import SessionPlan, pattern_of
from trainer.domain.composer.staples import CONDITIONING_EXERCISES, STAPLE_EXERCISES
from trainer.domain.workout_checks import name_key

MAX_PER_PRIMARY = 2

BASELINE: dict[str, float] = {
    "Chest": 1.0, "Back": 1.0, "Quadriceps": 1.0, "Hamstrings": 0.8, "Glutes": 0.8, "Shoulders": 0.8,
    "Abs": 0.6, "Biceps": 0.4, "Triceps": 0.4, "Calves": 0.3, "Lower Back": 0.3, "Trapezius": 0.2,
}  # fmt: skip
"""Balanced full-body emphasis when nothing else says what to train."""


def muscle_priority(plan: SessionPlan) -> dict[str, float]:
    """Share-weighted tiers: distribution debt, then muscle goal weights (a balanced full-body
    baseline when no tier above says what to train)."""
    weights: dict[str, float] = {}
    for m, debt in plan.muscle_debt.items():
        weights[m] = weights.get(m, 0.0) + 4.0 * debt
    for m, w in plan.muscle_goals.items():
        weights[m] = weights.get(m, 0.0) + 2.0 * w
    if not (plan.targets or plan.perm_muscles or plan.muscle_goals):
        for m, w in BASELINE.items():
            weights[m] = weights.get(m, 0.0) + w
    return weights


def tier_match(entry: CatalogEntry, muscles: set[str]) -> float:
    """How squarely an exercise hits a requested set: mostly whether its primary muscle is in it."""
    if not muscles:
        return 0.0
    return 0.7 * (entry.primary_muscle in muscles) + 0.3 * sum(s for m, s in entry.muscles if m in muscles)


def score(entry: CatalogEntry, plan: SessionPlan, muscle_weights: Mapping[str, float]) -> float:
    """Relevance (what to train, in priority order) scaled by how good a pick the movement is,
    plus a small history term (familiar exercises up, ones done in the last 72 h down)."""
    relevance = 1000.0 * tier_match(entry, plan.temp_muscles) + 100.0 * tier_match(entry, plan.focus)
    relevance += 10.0 * tier_match(entry, plan.perm_muscles)
    relevance += sum(share * muscle_weights.get(m, 0.0) for m, share in entry.muscles)
    fits = goal_fits(entry, plan.goals)
    total_fit = sum(fits.values())
    if total_fit:
        relevance += sum(3.0 * plan.goal_debt.get(g, 0.0) * f / total_fit for g, f in fits.items())
        relevance += 1.5 * total_fit
    quality = 1.0 + 0.6 * (entry.name in STAPLE_EXERCISES or entry.name in CONDITIONING_EXERCISES)
    quality += 0.1 * (entry.mechanic == "compound")
    quality += 0.05 * bool(entry.equipment and entry.equipment != ("bench",)) - 0.02 * len(entry.name.split())
    key = name_key(entry.name)
    history = 0.05 * (key in plan.familiar_names) - 0.1 * (key in plan.recent_names)
    return relevance * quality + history + 0.01 * quality


def rank(entries: Iterable[CatalogEntry], plan: SessionPlan) -> list[tuple[float, CatalogEntry]]:
    weights = muscle_priority(plan)
    scored = [(score(e, plan, weights), e) for e in entries]
    scored.sort(key=lambda se: (-se[0], se[1].name))
    return scored


class Picker:
    """The next best exercise for a session: ranked, spread over muscles and movement patterns."""

    def __init__(self, ranked: list[tuple[float, CatalogEntry]], plan: SessionPlan, planned: int) -> None:
        self.ranked = list(ranked)
        self.per_primary: Counter[str] = Counter()
        self.per_pattern: Counter[str] = Counter()
        self.taken: set[str] = set()
        self.targets = plan.targets
        self.focus_limit = max(MAX_PER_PRIMARY + 1, math.ceil(0.8 * planned / max(1, len(self.targets))))

    def take(self, entry: CatalogEntry) -> None:
        self.taken.add(name_key(entry.name))
        self.per_primary[entry.primary_muscle] += 1
        if pattern := pattern_of(entry.name):
            self.per_pattern[pattern] += 1

    def next(self, *, relaxed: bool = False) -> CatalogEntry | None:
        best: tuple[float, int] | None = None
        for i, (score, entry) in enumerate(self.ranked):
            if name_key(entry.name) in self.taken:
                continue
            count = self.per_primary[entry.primary_muscle]
            limit = self.focus_limit if entry.primary_muscle in self.targets else MAX_PER_PRIMARY
            if count >= limit and not relaxed:
                continue
            pattern = pattern_of(entry.name)
            repeats = self.per_pattern[pattern] if pattern else 0
            adjusted = score * (0.7**count) * (0.8**repeats) if score > 0 else score - count - repeats
            if best is None or adjusted > best[0]:
                best = (adjusted, i)
        if best is None:
            return None
        _, entry = self.ranked.pop(best[1])
        self.take(entry)
        return entry
