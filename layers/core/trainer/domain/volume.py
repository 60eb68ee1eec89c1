"""Weekly volume per muscle: how hard sets are counted, and the landmarks a week of training is held to
(docs/training-model.md#weekly-volume).

- Counting: a set counts 1 for the exercise's primary muscle (its largest share) and 0.5 for each other
  muscle with at least a 20% share, the "fractional" count that fits the dose-response data best
  (Pelland et al. 2024, "The Resistance Training Dose-Response", SportRxiv: indirect sets as 0.5).
- Landmarks (weekly hard sets for each trained major muscle): toward size at least 10 (Schoenfeld,
  Ogborn & Krieger 2017, J Sports Sci 35(11): gains rise with volume, 10+ sets a week clearly above
  fewer) and about 12-20 as the productive range for trained lifters (Baz-Valle et al. 2022, J Hum
  Kinet 81: 12-20 sets, more giving little); toward strength or power at least 6 (Ralston et al.
  2017, Sports Med 47: 5-9 sets a week and more beat fewer); general fitness and endurance at least 4
  (ACSM 2011 position stand, Garber et al.: 2-4 sets per muscle group, 2-3 days a week). Nothing above
  20 (22 for an advanced lifter) whatever the goal.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAJOR_MUSCLES: tuple[str, ...] = ("Chest", "Back", "Shoulders", "Quadriceps", "Hamstrings", "Glutes")
"""The muscles a plan must give enough direct work when it trains them."""
SECONDARY_SHARE = 0.2
SECONDARY_SET = 0.5


def set_weights(muscles: Mapping[str, float]) -> dict[str, float]:
    """What one set counts for each muscle: 1 for the primary, 0.5 for each muscle with >= 20%."""
    if not muscles:
        return {}
    primary = max(sorted(muscles), key=lambda m: muscles[m])
    weights = {primary: 1.0}
    for muscle, share in muscles.items():
        if muscle != primary and share >= SECONDARY_SHARE:
            weights[muscle] = SECONDARY_SET
    return weights


def weekly_sets(items: Iterable[tuple[Mapping[str, float], float]]) -> dict[str, float]:
    """Muscle -> hard sets from (muscle shares, sets) pairs."""
    totals: dict[str, float] = defaultdict(float)
    for muscles, sets in items:
        for muscle, weight in set_weights(muscles).items():
            totals[muscle] += weight * sets
    return dict(totals)


@dataclass(frozen=True)
class Landmarks:
    low: float
    """The fewest weekly hard sets for each trained major muscle."""
    high: float
    """The most weekly hard sets for any muscle."""
    target: float
    """Where an ordinary phase aims (a volume phase aims higher, a peak lower)."""


GOAL_LANDMARKS: dict[str, tuple[float, float]] = {
    "hypertrophy": (10.0, 13.0),
    "strength": (6.0, 10.0),
    "power": (6.0, 8.0),
    "general": (4.0, 9.0),
    "endurance": (4.0, 8.0),
    "mobility": (4.0, 6.0),
}
"""Goal -> (the least, an ordinary phase's aim) in weekly hard sets per trained major muscle."""
MOST_SETS: dict[str, float] = {"beginner": 20.0, "intermediate": 20.0, "advanced": 22.0}


def landmarks(goal: str | None, experience: str | None) -> Landmarks:
    low, target = GOAL_LANDMARKS.get(goal or "general", GOAL_LANDMARKS["general"])
    return Landmarks(low=low, high=MOST_SETS.get(experience or "intermediate", 20.0), target=target)


PHASE_VOLUME: tuple[tuple[str, float], ...] = (
    ("volume", 1.35),
    ("accumulat", 1.0),
    ("intensif", 0.9),
    ("peak", 0.75),
    ("foundation", 0.9),
    ("base", 0.9),
    ("hypertrophy", 1.1),
)
"""Words of a phase's name -> its volume against an ordinary phase (the first match): a "Volume Peak"
has the plan's most sets, an "Intensification" or a strength "Peak" fewer as the loads rise."""


def phase_target(goal: str | None, experience: str | None, phase_name: str) -> float:
    """The weekly hard sets a phase aims at for each trained major muscle, inside the landmarks."""
    marks = landmarks(goal, experience)
    name = phase_name.lower()
    factor = next((f for word, f in PHASE_VOLUME if word in name), 1.0)
    return min(marks.high - 2, max(marks.low, round(marks.target * factor)))
