"""Distribution debt: how far the training actually done is from the user's goal weights.

The tracking table keeps running totals per goal category and per muscle, so debt is O(1) per name:
each logged exercise adds its shares times its *work*. Work is one unit per exercise (a 5-set
squat and a 20-minute run count the same), so totals read as "exercise-equivalents" and the
split by share is what matters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

WORK_PER_EXERCISE = 1.0
_EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class DistributionRow:
    name: str
    target: float
    """Normalised goal weight, 0..1."""
    actual: float
    """This name's fraction of all tracked work, 0..1."""
    debt: float
    """target - actual: positive means under-represented."""


def normalise_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """Fractions summing to 1 (non-positive weights dropped); {} when nothing is positive."""
    positive = {k: float(v) for k, v in weights.items() if v and v > 0}
    total = sum(positive.values())
    return {k: v / total for k, v in positive.items()} if total > 0 else {}


def distribution_report(targets: Mapping[str, float], totals: Mapping[str, float]) -> list[DistributionRow]:
    """One row per goal name plus any name with tracked work, sorted by debt (largest first)."""
    target = normalise_weights(targets)
    actual = normalise_weights(totals)
    names = set(target) | {k for k, v in totals.items() if v and v > 0}
    rows = [
        DistributionRow(
            name=n,
            target=target.get(n, 0.0),
            actual=actual.get(n, 0.0),
            debt=target.get(n, 0.0) - actual.get(n, 0.0),
        )
        for n in names
    ]
    rows.sort(key=lambda r: (-r.debt, r.name))
    return rows


def shares_of(items: Iterable[Mapping[str, Any] | Any], key: str) -> dict[str, float]:
    """{name: share} from [{muscle|goal|name: ..., share: ...}] dicts or MuscleShare/GoalShare models."""
    result: dict[str, float] = {}
    for item in items or []:
        if isinstance(item, Mapping):
            name = item.get(key) or item.get("name")
            share = item.get("share")
        else:
            name, share = getattr(item, key, None), getattr(item, "share", None)
        if name and share is not None:
            result[str(name)] = result.get(str(name), 0.0) + float(share)
    return result


def add_shares(
    totals: Mapping[str, float], shares: Mapping[str, float], work: float = WORK_PER_EXERCISE
) -> dict[str, float]:
    """New totals after logging one exercise with these shares."""
    updated = dict(totals)
    for name, share in shares.items():
        updated[name] = updated.get(name, 0.0) + share * work
    return updated


def remove_shares(
    totals: Mapping[str, float], shares: Mapping[str, float], work: float = WORK_PER_EXERCISE
) -> dict[str, float]:
    """New totals after undoing one logged exercise; never below zero, emptied names dropped."""
    updated = dict(totals)
    for name, share in shares.items():
        left = updated.get(name, 0.0) - share * work
        if left > _EPSILON:
            updated[name] = left
        else:
            updated.pop(name, None)
    return updated


def exercise_increments(exercise: Mapping[str, Any] | Any) -> tuple[dict[str, float], dict[str, float]]:
    """(muscle shares, goal shares) of a logged exercise: an Exercise, or a history row with
    'muscles'/'muscles_utilized' and 'goals'/'goals_addressed'."""
    if isinstance(exercise, Mapping):
        muscles = exercise.get("muscles_utilized") or exercise.get("muscles") or []
        goals = exercise.get("goals_addressed") or exercise.get("goals") or []
    else:
        muscles, goals = exercise.muscles_utilized, exercise.goals_addressed
    return shares_of(muscles, "muscle"), shares_of(goals, "goal")
