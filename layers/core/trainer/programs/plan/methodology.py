"""How a plan is laid out: the methodology by experience and days per week (full body up to 3 days,
upper/lower at 4, push/pull/legs at 6; powerlifting or bodybuilding splits for advanced lifters), the
foci of the training days and their exercise slots, and phases of 4-6 weeks each ending in a deload
week (docs/training-model.md#deloads), with each phase's rep ranges and intensity."""

from __future__ import annotations

import math
from collections.abc import Sequence

from trainer.domain.catalog import CatalogEntry
from trainer.domain.muscles import LARGE_MUSCLES
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD
from trainer.domain.weekdays import WEEKDAYS, Weekday
from trainer.programs.models import Experience, Methodology

MAX_LOADING_RUN = 5
"""No more than this many weeks in a row without a deload."""
MIN_DELOAD_GAP = 4
"""A deload comes 4-6 weeks after the last one (or the plan's start): surveyed strength and physique
athletes deload every 5.6 +/- 2.3 weeks (Rogerson et al. 2024, Sports Med Open 10:26)."""
MAX_PHASE_WEEKS = MAX_LOADING_RUN + 1


SlotSpec = tuple[str | None, str, str]
"""(movement pattern or None, primary muscle, role)."""


FOCUS_SLOTS: dict[str, tuple[SlotSpec, ...]] = {
    "Full Body A": (("squat", "Quadriceps", "main"), ("horizontal push", "Chest", "main"),
                    ("horizontal pull", "Back", "secondary"), ("hip hinge", "Hamstrings", "secondary"),
                    (None, "Abs", "core"), ("lateral raise", "Shoulders", "accessory")),
    "Full Body B": (("hip hinge", "Hamstrings", "main"), ("vertical push", "Shoulders", "main"),
                    ("vertical pull", "Back", "secondary"), ("lunge", "Quadriceps", "secondary"),
                    (None, "Abs", "core"), ("elbow flexion", "Biceps", "accessory")),
    "Full Body C": (("squat", "Quadriceps", "main"), ("horizontal pull", "Back", "main"),
                    ("horizontal push", "Chest", "secondary"), ("hip thrust", "Glutes", "secondary"),
                    ("elbow extension", "Triceps", "accessory"), ("calf raise", "Calves", "accessory")),
    "Upper A": (("horizontal push", "Chest", "main"), ("horizontal pull", "Back", "main"),
                ("vertical push", "Shoulders", "secondary"), ("vertical pull", "Back", "secondary"),
                ("elbow flexion", "Biceps", "accessory"), ("elbow extension", "Triceps", "accessory")),
    "Lower A": (("squat", "Quadriceps", "main"), ("hip hinge", "Hamstrings", "main"),
                ("lunge", "Quadriceps", "secondary"), ("knee flexion", "Hamstrings", "accessory"),
                (None, "Abs", "core"), ("calf raise", "Calves", "accessory")),
    "Upper B": (("vertical push", "Shoulders", "main"), ("vertical pull", "Back", "main"),
                ("horizontal push", "Chest", "secondary"), ("horizontal pull", "Back", "secondary"),
                ("lateral raise", "Shoulders", "accessory"), ("rear delt", "Shoulders", "accessory")),
    "Lower B": (("hip hinge", "Hamstrings", "main"), ("squat", "Quadriceps", "main"),
                ("hip thrust", "Glutes", "secondary"), ("knee extension", "Quadriceps", "accessory"),
                (None, "Abs", "core"), ("calf raise", "Calves", "accessory")),
    "Push": (("horizontal push", "Chest", "main"), ("vertical push", "Shoulders", "main"),
             ("horizontal push", "Chest", "secondary"), ("lateral raise", "Shoulders", "accessory"),
             ("elbow extension", "Triceps", "accessory"), ("chest fly", "Chest", "accessory")),
    "Pull": (("vertical pull", "Back", "main"), ("horizontal pull", "Back", "main"),
             ("horizontal pull", "Back", "secondary"), ("rear delt", "Shoulders", "accessory"),
             ("elbow flexion", "Biceps", "accessory"), ("shrug", "Trapezius", "accessory")),
    "Legs": (("squat", "Quadriceps", "main"), ("hip hinge", "Hamstrings", "main"),
             ("lunge", "Quadriceps", "secondary"), ("knee flexion", "Hamstrings", "accessory"),
             (None, "Abs", "core"), ("calf raise", "Calves", "accessory")),
    "Squat Day": (("squat", "Quadriceps", "main"), ("squat", "Quadriceps", "secondary"),
                  ("hip thrust", "Glutes", "accessory"), ("knee flexion", "Hamstrings", "accessory"),
                  (None, "Abs", "core")),
    "Bench Day": (("horizontal push", "Chest", "main"), ("horizontal pull", "Back", "secondary"),
                  ("vertical push", "Shoulders", "secondary"), ("elbow extension", "Triceps", "accessory"),
                  ("rear delt", "Shoulders", "accessory")),
    "Deadlift Day": (("hip hinge", "Lower Back", "main"), ("hip hinge", "Hamstrings", "secondary"),
                     ("vertical pull", "Back", "secondary"), ("elbow flexion", "Biceps", "accessory"),
                     (None, "Abs", "core")),
    "Chest & Triceps": (("horizontal push", "Chest", "main"), ("horizontal push", "Chest", "secondary"),
                        ("chest fly", "Chest", "accessory"), ("elbow extension", "Triceps", "accessory"),
                        ("elbow extension", "Triceps", "accessory")),
    "Back & Biceps": (("vertical pull", "Back", "main"), ("horizontal pull", "Back", "secondary"),
                      ("horizontal pull", "Back", "accessory"), ("elbow flexion", "Biceps", "accessory"),
                      ("elbow flexion", "Biceps", "accessory")),
    "Shoulders & Arms": (("vertical push", "Shoulders", "main"), ("lateral raise", "Shoulders", "secondary"),
                         ("rear delt", "Shoulders", "accessory"), ("elbow flexion", "Biceps", "accessory"),
                         ("elbow extension", "Triceps", "accessory"), ("shrug", "Trapezius", "accessory")),
    "Chest & Back": (("horizontal push", "Chest", "main"), ("horizontal pull", "Back", "main"),
                     ("chest fly", "Chest", "accessory"), ("vertical pull", "Back", "accessory"),
                     (None, "Abs", "core")),
    "Conditioning & Mobility": ((None, "Quadriceps", "conditioning"), (None, "Abs", "core"),
                                (None, "Hamstrings", "mobility"), (None, "Back", "mobility")),
    "Mobility & Core": ((None, "Abs", "core"), (None, "Hamstrings", "mobility"),
                        (None, "Shoulders", "mobility"), (None, "Glutes", "mobility")),
}  # fmt: skip
FOCUS_LABELS: dict[str, str] = {"Legs A": "Legs", "Legs B": "Legs"}
_UPPER = frozenset({"Chest", "Back", "Shoulders", "Biceps", "Triceps", "Trapezius", "Forearms"})
_LOWER = frozenset({"Quadriceps", "Hamstrings", "Glutes", "Calves", "Abductors", "Adductors", "Lower Back"})
FOCUS_REGIONS: dict[str, frozenset[str]] = {
    "Upper": _UPPER, "Lower": _LOWER, "Legs": _LOWER, "Push": frozenset({"Chest", "Shoulders", "Triceps"}),
    "Pull": frozenset({"Back", "Biceps", "Trapezius", "Forearms"}), "Full Body": _UPPER | _LOWER,
    "Squat": _LOWER, "Deadlift": _LOWER, "Bench": frozenset({"Chest", "Shoulders", "Triceps"}),
}  # fmt: skip


PhaseTemplate = tuple[str, str, dict[str, tuple[int, int]], str]
"""(name, goal, role -> rep range, intensity)."""
_STRENGTH_PHASES: tuple[PhaseTemplate, ...] = (
    ("Foundation", "Groove technique and build work capacity on the main lifts.",
     {"main": (8, 12), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 7: 3 reps in reserve"),
    ("Strength", "Move the main lifts into heavier sets of 6-8.",
     {"main": (6, 8), "secondary": (8, 12), "accessory": (8, 12)}, "RPE 7-8"),
    ("Intensification", "Heavy sets of 5 on the main lifts, volume on the rest.",
     {"main": (5, 5), "secondary": (6, 8), "accessory": (8, 12)}, "RPE 8"),
    ("Peak", "Heavy triples to express the strength you built.",
     {"main": (3, 3), "secondary": (5, 5), "accessory": (8, 12)}, "RPE 8-9"),
)  # fmt: skip
_HYPERTROPHY_PHASES: tuple[PhaseTemplate, ...] = (
    ("Accumulation", "Lots of quality volume in moderate-to-high reps.",
     {"main": (12, 15), "secondary": (12, 15), "accessory": (15, 20)}, "RPE 7"),
    ("Hypertrophy", "Classic muscle-building ranges with steady load increases.",
     {"main": (8, 12), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 7-8"),
    ("Intensification", "Heavier compound work to drive further growth.",
     {"main": (6, 8), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 8"),
    ("Volume Peak", "Push volume to its highest before the final deload.",
     {"main": (8, 12), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 8-9"),
)  # fmt: skip
_GENERAL_PHASES: tuple[PhaseTemplate, ...] = (
    ("Base", "Build the habit, the technique and a base of fitness.",
     {"main": (12, 15), "secondary": (12, 15), "accessory": (15, 20)}, "RPE 6-7"),
    ("Build", "Add load to the main movements while keeping the volume.",
     {"main": (8, 12), "secondary": (12, 15), "accessory": (12, 15)}, "RPE 7"),
    ("Strength Endurance", "Heavier main work with conditioning alongside.",
     {"main": (8, 12), "secondary": (8, 12), "accessory": (15, 20)}, "RPE 7-8"),
    ("Peak", "Your strongest and fittest weeks of the plan.",
     {"main": (6, 8), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 8"),
)  # fmt: skip
_BEGINNER_PHASES: tuple[PhaseTemplate, ...] = (
    ("Foundation", "Learn the movements and build the habit with light, clean reps.",
     {"main": (8, 12), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 6-7: stop well short of failure"),
    ("Build", "Steady load increases on the same movements.",
     {"main": (8, 12), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 7"),
    ("Strength", "Slightly heavier main lifts in sets of 6-8.",
     {"main": (6, 8), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 7-8"),
    ("Consolidate", "Own the heavier weights with solid technique.",
     {"main": (6, 8), "secondary": (8, 12), "accessory": (12, 15)}, "RPE 7-8"),
)  # fmt: skip


def phase_layout(weeks: int) -> list[tuple[int, int]]:
    """(first week, last week) of each phase: at least one phase per 4 weeks, each of 4-6 weeks (longer
    ones first) so that a deload closing each comes every 4-6 weeks; a 7-week plan is 4 + 3, its last
    3 weeks ending the plan without a deload (fewer than MIN_DELOAD_GAP since the last one)."""
    count = max(1, weeks // MIN_DELOAD_GAP, math.ceil(weeks / MAX_PHASE_WEEKS))
    base, extra = divmod(weeks, count)
    lengths = [base + (1 if i < extra else 0) for i in range(count)]
    if base < MIN_DELOAD_GAP and count > 1:
        lengths = [MIN_DELOAD_GAP] * (weeks // MIN_DELOAD_GAP)
        rest = weeks - sum(lengths)
        lengths = [*lengths, rest] if rest else lengths
    layout, start = [], 1
    for length in lengths:
        layout.append((start, start + length - 1))
        start += length
    return layout


def phase_deloads(first: int, last: int) -> list[int]:
    """A phase's deload week: its last, when the phase is long enough to need one."""
    return [last] if last - first + 1 >= MIN_DELOAD_GAP else []


def required_microcycles(weeks: int) -> int:
    """At least one phase per 4 weeks: 3 for a 12-week plan."""
    return max(1, weeks // 4)


def _focus_sequences(
    methodology: Methodology, days: int, experience: Experience
) -> list[tuple[Methodology, list[str]]]:
    """Candidate (methodology, day foci in training order) for the number of days."""
    extras = ["Conditioning & Mobility", "Mobility & Core", "Conditioning & Mobility"]
    if methodology == "full_body":
        base = ["Full Body A", "Full Body B", "Full Body C"][:days]
        options: list[tuple[Methodology, list[str]]] = [("full_body", base)]
        if days == 2:
            options.append(("upper_lower", ["Upper A", "Lower A"]))
        if days == 3:
            options += [
                ("upper_lower", ["Upper A", "Lower A", "Full Body A"]),
                ("push_pull_legs", ["Push", "Pull", "Legs"]),
            ]
        return options
    if methodology == "upper_lower":
        base = ["Upper A", "Lower A", "Upper B", "Lower B"]
        return [("upper_lower", base + extras[: max(0, days - 4)])]
    if methodology == "upper_lower_ppl":
        return [("upper_lower_ppl", ["Upper A", "Lower A", "Push", "Pull", "Legs"])]
    if methodology == "powerlifting":
        seq = ["Squat Day", "Bench Day", "Deadlift Day", "Upper B", "Lower B"][:days]
        return [("powerlifting", seq)]
    if methodology == "bodybuilding":
        seq = ["Chest & Triceps", "Back & Biceps", "Legs A", "Shoulders & Arms", "Legs B", "Chest & Back"]
        return [("bodybuilding", [*seq, "Conditioning & Mobility"][:days])]
    seq = ["Push", "Pull", "Legs A", "Push", "Pull", "Legs B"]
    return [("push_pull_legs", [*seq, "Conditioning & Mobility"][:days])]


def choose_methodology(experience: Experience, days: int, goal: str) -> Methodology:
    """Beginners full body (upper/lower when they train 4+ days), intermediates upper/lower at
    4 days and push/pull/legs at 6, advanced lifters a specialised split for strength or size."""
    if experience == "advanced" and goal in ("strength", "power") and 3 <= days <= 5:
        return "powerlifting"
    if experience == "advanced" and goal == "hypertrophy" and days >= 5:
        return "bodybuilding"
    if days <= 3:
        return "full_body"
    if days == 4 or experience == "beginner":
        return "upper_lower"
    if days == 5:
        return "upper_lower_ppl"
    return "push_pull_legs"


def focus_name(focus: str) -> str:
    return FOCUS_LABELS.get(focus, focus)


def focus_template(focus: str) -> tuple[SlotSpec, ...]:
    return FOCUS_SLOTS.get(focus) or FOCUS_SLOTS[focus_name(focus)]


def _large(focus: str) -> set[str]:
    return {m for _, m, role in focus_template(focus) if m in LARGE_MUSCLES and role in ("main", "secondary")}


def adjacent(days: Sequence[Weekday]) -> list[tuple[int, int]]:
    """Pairs (i, j) of positions in `days` where day j is the calendar day after day i (Sunday -> Monday
    included: the pattern repeats every week)."""
    index = {WEEKDAYS.index(d): i for i, d in enumerate(days)}
    return [(i, index[(w + 1) % 7]) for w, i in index.items() if (w + 1) % 7 in index and len(days) > 1]


def assign_foci(
    methodology: Methodology, days: Sequence[Weekday], experience: Experience
) -> tuple[Methodology, list[str]]:
    """The foci on the user's days, rotated (and the methodology switched for 2-3 days) so that training
    days in a row share as few large muscles as possible."""
    pairs = adjacent(days)
    best: tuple[int, int, Methodology, list[str]] | None = None
    for rank, (method, seq) in enumerate(_focus_sequences(methodology, len(days), experience)):
        for shift in range(len(seq)):
            rotated = seq[shift:] + seq[:shift]
            clash = sum(len(_large(rotated[i]) & _large(rotated[j])) for i, j in pairs)
            key = (clash, rank * 10 + shift)
            if best is None or key < (best[0], best[1]):
                best = (clash, rank * 10 + shift, method, rotated)
    assert best is not None
    return best[2], best[3]


def processing_order(days: Sequence[Weekday]) -> list[int]:
    """Positions in training order, starting after a rest day when there is one."""
    numbers = [WEEKDAYS.index(d) for d in days]
    start = next((i for i, w in enumerate(numbers) if (w - 1) % 7 not in numbers), 0)
    return [(start + k) % len(days) for k in range(len(days))]


def neighbours(days: Sequence[Weekday], position: int) -> list[int]:
    w = WEEKDAYS.index(days[position])
    return [
        i for i, d in enumerate(days) if WEEKDAYS.index(d) in ((w - 1) % 7, (w + 1) % 7) and i != position
    ]


def worked_large(entry: CatalogEntry) -> set[str]:
    return entry.worked_muscles(WORKED_SHARE_THRESHOLD) & LARGE_MUSCLES


def phase_templates(goal: str, experience: Experience, count: int) -> list[PhaseTemplate]:
    if experience == "beginner":
        table = _BEGINNER_PHASES
    elif goal in ("strength", "power"):
        table = _STRENGTH_PHASES
    elif goal == "hypertrophy":
        table = _HYPERTROPHY_PHASES
    else:
        table = _GENERAL_PHASES
    return list(table[:count])
