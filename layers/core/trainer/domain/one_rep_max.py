"""Estimated one-repetition maximums (e1RM) and loads at a target effort, from one chart
(docs/training-model.md#effort-and-the-one-rep-max).

The chart is the Reactive Training Systems RPE chart (M. Tuchscherer, The Reactive Training Manual,
2008): the percentage of the one-rep max a lifter moves for a number of reps at an effort, RPE 6.5-10
for 1-12 reps. Effort is read as reps in reserve, RPE = 10 - RIR (Zourdos et al. 2016; Helms et al.
2016, Strength Cond J 38(4)), so the chart is one column read at reps + RIR, "reps to failure":
5 reps at RPE 10 = 86.3%, 5 reps at RPE 8 (7 reps to failure) = 81.1%.

- `estimate_1rm`: what a logged set says about the lifter's max, capped where the chart and the
  formulas hold (at most 12 reps: a 30-rep set says no more than its first 12 would); a set without
  an effort rating counts as taken to failure, the conservative reading.
- `load_at`: the load for reps at a target RPE, from the same chart (beyond 15 reps to failure the
  chart's last value carried on Epley's curve, for light high-rep prescriptions).
- `implied_1rm`: the chart's reading without the cap, to compare two prescriptions (this week's load
  against last week's) on the same scale.
- `epley_1rm` and `brzycki_1rm`: the two named formulas shown beside the estimate, at reps + RIR,
  each only within the 10 reps where it was validated (Brzycki 1993; LeSuer et al. 1997).
"""

from __future__ import annotations

import math

RTS_PERCENT_BY_REPS_TO_FAILURE: tuple[float, ...] = (
    100.0, 97.8, 95.5, 93.9, 92.2, 90.7, 89.2, 87.8, 86.3, 85.0, 83.7, 82.4, 81.1, 79.9, 78.6,
    77.4, 76.2, 75.1, 73.9, 72.3, 70.7, 69.4, 68.0, 66.7, 65.3, 64.0, 62.6, 61.3, 59.9,
)  # fmt: skip
"""% of 1RM at 1, 1.5, 2, ... 15 reps to failure (reps + reps in reserve): the RTS chart's RPE 10 column
for 1-12 reps continued by its lower-RPE columns (12 reps at RPE 7 = 15 to failure = 59.9%)."""
CHART_MAX_REPS_TO_FAILURE = 15.0
MAX_ESTIMATE_REPS = 12
"""The most reps a set's estimate reads (the chart's rows): a longer set counts as its first 12."""
FORMULA_MAX_REPS = 10
"""Epley and Brzycki are shown only up to 10 reps to failure, where they were validated."""
MIN_RPE = 6.0
"""An effort below RPE 6 (more than 4 reps in reserve) is read as RPE 6 for an estimate: the lifter's
guess far from failure is unreliable (Zourdos et al. 2016), and reading it as harder keeps the
estimate low."""


def reps_in_reserve(rpe: float | None) -> float:
    """RIR = 10 - RPE (an unrated set: 0, taken to failure), RPE read within 6-10."""
    if rpe is None:
        return 0.0
    return 10.0 - min(10.0, max(MIN_RPE, float(rpe)))


def percent_of_1rm(reps: float, rpe: float | None = None) -> float:
    """The fraction of the one-rep max moved for `reps` at `rpe` (None: RPE 10), from the chart."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    to_failure = reps + reps_in_reserve(rpe)
    if to_failure > CHART_MAX_REPS_TO_FAILURE:
        last = RTS_PERCENT_BY_REPS_TO_FAILURE[-1] / 100
        return last * (1 + CHART_MAX_REPS_TO_FAILURE / 30) / (1 + to_failure / 30)
    position = (to_failure - 1) * 2
    below = math.floor(position)
    above = min(below + 1, len(RTS_PERCENT_BY_REPS_TO_FAILURE) - 1)
    low, high = RTS_PERCENT_BY_REPS_TO_FAILURE[below], RTS_PERCENT_BY_REPS_TO_FAILURE[above]
    return (low + (high - low) * (position - below)) / 100


def estimate_1rm(load: float, reps: int, rpe: float | None = None) -> float:
    """The one-rep max a set supports: the load over its chart percentage, reps capped at 12 and
    reps to failure at the chart's 15."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    counted = min(reps, MAX_ESTIMATE_REPS)
    reserve = min(reps_in_reserve(rpe), CHART_MAX_REPS_TO_FAILURE - counted)
    return load / percent_of_1rm(counted, 10.0 - reserve)


def implied_1rm(load: float, reps: int, rpe: float | None = None) -> float:
    """The chart's reading of a prescription without the estimate's cap: two prescriptions compared on
    one scale (a heavier load for fewer reps against a lighter one for more)."""
    return load / percent_of_1rm(reps, rpe)


def load_at(one_rep_max: float, reps: int, rpe: float | None = None) -> float:
    """The load for `reps` reps at `rpe` (None: RPE 10) for a lifter with this one-rep max."""
    return one_rep_max * percent_of_1rm(reps, rpe)


def epley_1rm(load: float, reps: int, rpe: float | None = None) -> float | None:
    """Epley: w x (1 + r/30) at r = reps to failure (a single at RPE 10 is its own max); None beyond
    FORMULA_MAX_REPS."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    to_failure = reps + reps_in_reserve(rpe)
    if to_failure > FORMULA_MAX_REPS:
        return None
    return load if to_failure <= 1 else load * (1 + to_failure / 30)


def brzycki_1rm(load: float, reps: int, rpe: float | None = None) -> float | None:
    """Brzycki: w x 36 / (37 - r) at r = reps to failure; None beyond FORMULA_MAX_REPS."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    to_failure = reps + reps_in_reserve(rpe)
    return load * 36 / (37 - to_failure) if to_failure <= FORMULA_MAX_REPS else None


def reps_to_failure(fraction: float) -> float:
    """How many reps a lifter could do at `fraction` of their one-rep max (the chart read backwards;
    at or above the max, 1)."""
    if fraction >= 1.0:
        return 1.0
    low, high = 1.0, 200.0
    for _ in range(60):
        middle = (low + high) / 2
        if percent_of_1rm(middle) > fraction:
            low = middle
        else:
            high = middle
    return (low + high) / 2
