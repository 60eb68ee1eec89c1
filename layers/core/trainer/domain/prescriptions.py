"""What a set is prescribed for a goal: the rep range, the target effort and the rest between sets, one
table for every path that prescribes (the composer, the offline coach, the plan's slots, the
progression targets) (docs/training-model.md#rep-ranges-and-rest).

- Rep ranges by goal follow the NSCA's goal repetitions (Haff & Triplett, Essentials of Strength
  Training and Conditioning, 4th ed., 2016, chapter 17): strength <= 6, power 3-5 on multiple-effort
  lifts, hypertrophy 6-12, muscular endurance >= 12; the coach uses fixed fives for the main lifts of
  strength and power, 8-12 for compound and 12-15 for isolation work toward size or general fitness,
  15-20 for endurance.
- Rest follows the same chapter's assignments by goal: strength and power 2-5 min, hypertrophy
  30-90 s, endurance 30 s or less; read by the range's bottom, so a set of 5 or fewer always rests at
  least 2 minutes, whatever the goal or the path.
- Target effort: RPE 8 (2 reps in reserve) for strength and size, RPE 7 for the rest; a beginner one
  point lower (ACSM position stand, Med Sci Sports Exerc 41(3), 2009: novices start at 60-70% of 1RM).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

RepRange = tuple[int, int]

STANDARD_RANGES: tuple[RepRange, ...] = ((6, 8), (8, 12), (12, 15), (15, 20), (20, 30))
"""The ranges above 5 reps; 5 reps or fewer are fixed reps (only the load progresses)."""
FIXED_REPS_MAX = 5


@dataclass(frozen=True)
class GoalPrescription:
    compound: RepRange
    isolation: RepRange
    target_rpe: float


GOAL_PRESCRIPTIONS: dict[str, GoalPrescription] = {
    "strength": GoalPrescription(compound=(5, 5), isolation=(8, 12), target_rpe=8.0),
    "power": GoalPrescription(compound=(5, 5), isolation=(8, 12), target_rpe=7.0),
    "hypertrophy": GoalPrescription(compound=(8, 12), isolation=(12, 15), target_rpe=8.0),
    "endurance": GoalPrescription(compound=(15, 20), isolation=(15, 20), target_rpe=7.0),
    "general": GoalPrescription(compound=(8, 12), isolation=(12, 15), target_rpe=7.0),
}
"""Goal kind (trainer.domain.composer.goals.goal_kind) -> ranges and effort; mobility and unknown
goals take the general row."""
BEGINNER_RPE_OFFSET = 1.0
NEW_EXERCISE_RPE = 7.0
"""A first session on an exercise (from a related lift's estimate) aims at RPE 7, 3 reps in reserve."""


@lru_cache(maxsize=256)
def goal_kind(goal: str) -> str:
    """strength, hypertrophy, endurance, power, mobility or general, from a goal's words."""
    g = goal.lower()
    for kind, pattern in (
        ("mobility", r"mobil|flex|stretch|yoga"),
        ("power", r"power|explos|athlet|speed|agil|jump"),
        ("endurance", r"endur|cardio|condition|fat|weight ?loss|stamina|aerobic|heart|lean|run"),
        ("strength", r"strength|strong|max"),
        ("hypertrophy", r"hypertroph|muscle|size|build|bulk|tone|mass|aesthet"),
    ):
        if re.search(pattern, g):
            return kind
    return "general"


def leading_style(goals: Mapping[str, float]) -> str:
    """The kind of the user's heaviest-weighted goal (general without goals)."""
    leading = max(sorted(goals), key=lambda g: goals[g], default=None)
    return goal_kind(leading) if leading else "general"


def goal_prescription(style: str | None) -> GoalPrescription:
    return GOAL_PRESCRIPTIONS.get(style or "general", GOAL_PRESCRIPTIONS["general"])


def prescribed_range(style: str | None, *, compound: bool) -> RepRange:
    """The rep range the goal prescribes for a compound or an isolation exercise."""
    found = goal_prescription(style)
    return found.compound if compound else found.isolation


def target_rpe(style: str | None, level: str | None = None) -> float:
    """The goal's target effort, a point lower for a beginner."""
    rpe = goal_prescription(style).target_rpe
    return rpe - BEGINNER_RPE_OFFSET if level == "beginner" else rpe


def rep_range(reps: int) -> RepRange:
    """The standard range a prescription of `reps` starts: fixed reps up to 5, else the range whose
    bottom is the largest at or below the reps (a plan's "12-15" is (12, 15), a draft's 10 is 8-12)."""
    if reps <= FIXED_REPS_MAX:
        return reps, reps
    fitting = [r for r in STANDARD_RANGES if r[0] <= reps]
    return fitting[-1] if fitting else STANDARD_RANGES[0]


def range_topped_by(reps: int) -> RepRange:
    """The standard range whose top is the first at or above `reps`: fixed reps up to 5, 12 reps the top
    of 8-12, 20 the top of 15-20 (30 or more: 20-30)."""
    if reps <= FIXED_REPS_MAX:
        return reps, reps
    return next((r for r in STANDARD_RANGES if r[1] >= reps), STANDARD_RANGES[-1])


def rest_seconds(rep_low: int, *, compound: bool) -> int:
    """Rest between sets by the bottom of the range (NSCA): 5 reps or fewer 3 min (2 min on isolation
    work), a 6-8 range 2 min (90 s), 8-12 90 s (60 s), 12-15 60 s (45 s), 15 or more 45 s (30 s)."""
    if rep_low <= FIXED_REPS_MAX:
        return 180 if compound else 120
    if rep_low < 8:
        return 120 if compound else 90
    if rep_low < 12:
        return 90 if compound else 60
    if rep_low < 15:
        return 60 if compound else 45
    return 45 if compound else 30


def rpe_in_words(text: str | None) -> float | None:
    """The lowest RPE a phrase names ('RPE 7-8' -> 7, 'RPE 8: 2 reps in reserve' -> 8), None without one."""
    if not text:
        return None
    found = re.search(r"RPE\s*(\d+(?:\.\d)?)", text, re.I)
    return float(found.group(1)) if found else None
