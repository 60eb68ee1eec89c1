"""Estimated one-repetition maximums (e1RM) from a set of `reps` at `load`.

Epley (w x (1 + r/30)) is the estimate progression uses: it holds across rep ranges, where Brzycki
(w x 36 / (37 - r)) is trusted only up to 10 reps. Both agree at 10 reps.
"""

from __future__ import annotations

BRZYCKI_MAX_REPS = 10


def epley_1rm(load: float, reps: int) -> float:
    """Epley: w x (1 + r/30); a single is its own 1RM."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    return load if reps == 1 else load * (1 + reps / 30)


def epley_load(one_rep_max: float, reps: int) -> float:
    """The load Epley expects for `reps` reps at a given e1RM (the inverse of epley_1rm)."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    return one_rep_max if reps == 1 else one_rep_max / (1 + reps / 30)


def brzycki_1rm(load: float, reps: int) -> float | None:
    """Brzycki: w x 36 / (37 - r), trusted only up to 10 reps (None beyond)."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    return load * 36 / (37 - reps) if reps <= BRZYCKI_MAX_REPS else None
