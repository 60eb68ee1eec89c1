"""The training plan: methodology by experience and days per week (seed 003: full body up to 3 days,
upper/lower at 4, push/pull/legs at 6; powerlifting or bodybuilding splits for advanced lifters),
phases of 3-5 weeks each ending in a deload, a weekly pattern of exercise slots on the user's days,
the progression strategy and the modification history; rendered as markdown, and the validators a plan
must pass.

`draft_plan` is the offline drafter (what a model would answer); `finalize_plan` turns any draft into
the plan: exercises resolved against the catalog and swapped when they break a hard rule, prescription
numbers (sets, rep ranges, rest, hold and cardio time) set by code, days trimmed to the session length.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from trainer.domain.catalog import CatalogEntry
from trainer.domain.equipment import missing_equipment
from trainer.domain.muscles import LARGE_MUSCLES
from trainer.domain.progression import DELOAD_AFTER_MISSES, FIXED_REPS_MAX, PLATE_STEP, rep_range
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD
from trainer.domain.workout_checks import is_temporary, preference_constraints
from trainer.domain.workout_grouping import local_day, zone
from trainer.programs.models import (
    METHODOLOGY_LABELS,
    WEEKDAYS,
    DayDraft,
    DayPattern,
    ExerciseSlot,
    Experience,
    FitnessPlan,
    Methodology,
    Microcycle,
    MicrocycleDraft,
    ModificationEntry,
    PlanDraft,
    PlanInputs,
    SlotDraft,
    SlotKind,
    Weekday,
)
from trainer.programs.selection import (
    Constraints,
    allowed,
    constraints_for,
    leading_goal,
    pick_exercise,
    preference_conflict,
    resolve,
)

DELOAD_VOLUME = 0.6
"""Deload weeks keep about 60% of the sets (seed 003: volume -40%, RPE 6-7)."""
WARMUP_MIN = 6
COOLDOWN_MIN = 4
SECONDS_PER_REP = 3
CHANGEOVER_SEC = 60
MAX_LOADING_RUN = 5
"""No more than this many weeks in a row without a deload."""

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
_REGION: dict[str, frozenset[str]] = {
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


class PlanError(ValueError):
    """No plan can be built under the user's constraints (the message says why)."""


# --- structure ----------------------------------------------------------------------------------


def phase_layout(weeks: int) -> list[tuple[int, int]]:
    """(first week, last week) of each phase: enough phases that none exceeds MAX_LOADING_RUN weeks and
    at least one per 4 weeks (3 for a 12-week plan); longer phases first."""
    count = max(1, weeks // 4, math.ceil(weeks / MAX_LOADING_RUN))
    base, extra = divmod(weeks, count)
    layout, start = [], 1
    for i in range(count):
        length = base + (1 if i < extra else 0)
        layout.append((start, start + length - 1))
        start += length
    return layout


def required_microcycles(weeks: int) -> int:
    """At least one phase per 4 weeks: 3 for a 12-week plan (seed 003)."""
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
    """Seed 003: beginners full body (upper/lower when they train 4+ days), intermediates upper/lower at
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


def _template(focus: str) -> tuple[SlotSpec, ...]:
    return FOCUS_SLOTS.get(focus) or FOCUS_SLOTS[focus_name(focus)]


def _large(focus: str) -> set[str]:
    return {m for _, m, role in _template(focus) if m in LARGE_MUSCLES and role in ("main", "secondary")}


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


def _processing_order(days: Sequence[Weekday]) -> list[int]:
    """Positions in training order, starting after a rest day when there is one."""
    numbers = [WEEKDAYS.index(d) for d in days]
    start = next((i for i, w in enumerate(numbers) if (w - 1) % 7 not in numbers), 0)
    return [(start + k) % len(days) for k in range(len(days))]


def _neighbours(days: Sequence[Weekday], position: int) -> list[int]:
    w = WEEKDAYS.index(days[position])
    return [
        i for i, d in enumerate(days) if WEEKDAYS.index(d) in ((w - 1) % 7, (w + 1) % 7) and i != position
    ]


def _worked_large(entry: CatalogEntry) -> set[str]:
    return entry.worked_muscles(WORKED_SHARE_THRESHOLD) & LARGE_MUSCLES


# --- prescriptions ------------------------------------------------------------------------------


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


def base_sets(role: str, experience: Experience, methodology: Methodology) -> int:
    if role == "main":
        return 3 if experience == "beginner" else 5 if methodology == "powerlifting" else 4
    if role == "secondary":
        return 3
    if role == "accessory":
        return 2 if experience == "beginner" else 3
    if role == "core":
        return 3
    if role == "mobility":
        return 2
    return 1


def rest_for(role: str, rep_low: int | None) -> int:
    """Rest between sets: longer for heavier rep ranges, short for accessories, core and stretches."""
    if role == "conditioning":
        return 0
    if role == "mobility":
        return 15
    if role == "core":
        return 45
    low = rep_low or 10
    rest = 180 if low <= FIXED_REPS_MAX else 120 if low < 8 else 90 if low < 12 else 60
    return min(rest, 75) if role == "accessory" else rest


def slot_kind(entry: CatalogEntry, role: str) -> SlotKind:
    if role == "conditioning" or entry.category == "cardio":
        return "duration"
    if role == "mobility" or entry.category == "stretching" or entry.force == "static":
        return "hold"
    return "reps"


def slot_seconds(slot: ExerciseSlot) -> int:
    """Estimated time of a slot, changeover included (reps at the top of the range)."""
    if slot.kind == "duration":
        return (slot.minutes or 10) * 60 + CHANGEOVER_SEC
    work = (slot.hold_sec or 30) if slot.kind == "hold" else SECONDS_PER_REP * (slot.rep_high or 10)
    return slot.sets * work + (slot.sets - 1) * slot.rest_sec + CHANGEOVER_SEC


def day_minutes(slots: Iterable[ExerciseSlot]) -> float:
    return WARMUP_MIN + COOLDOWN_MIN + sum(slot_seconds(s) for s in slots) / 60


_ROLE_PRIORITY = {"main": 0, "secondary": 1, "conditioning": 2, "core": 3, "accessory": 4, "mobility": 5}


def trim_to_session(slots: list[ExerciseSlot], minutes: int) -> list[ExerciseSlot]:
    """Drop the lowest-priority slots (accessories, then core...) until the day fits; keep one."""
    kept = list(slots)
    while len(kept) > 1 and day_minutes(kept) > minutes:
        victim = max(range(len(kept)), key=lambda i: (_ROLE_PRIORITY.get(kept[i].role, 9), i))
        kept.pop(victim)
    if kept and day_minutes(kept) > minutes:
        kept = [_shrink(kept[0], minutes)]
    return kept


def _shrink(slot: ExerciseSlot, minutes: int) -> ExerciseSlot:
    budget = max(1, minutes - WARMUP_MIN - COOLDOWN_MIN)
    if slot.kind == "duration":
        return slot.model_copy(update={"minutes": max(1, min(slot.minutes or 10, budget - 1))})
    sets = slot.sets
    while sets > 1 and day_minutes([slot.model_copy(update={"sets": sets})]) > minutes:
        sets -= 1
    return slot.model_copy(update={"sets": sets})


def make_slot(
    entry: CatalogEntry,
    *,
    pattern: str | None,
    muscle: str,
    role: str,
    sets: int,
    reps: tuple[int, int] | None,
    experience: Experience,
    goal: str,
) -> ExerciseSlot:
    """A slot with its numbers set by code: the rep range snapped to the progression's ranges, rest by
    range and role, holds and cardio minutes by experience and goal."""
    kind = slot_kind(entry, role)
    low = high = hold = minutes = None
    if kind == "reps":
        low, high = rep_range(max(1, min((reps or ((12, 15) if role == "core" else (8, 12)))[0], 30)))
    elif kind == "hold":
        hold = 30 if role == "mobility" or experience == "beginner" else 45
    else:
        minutes = 20 if goal == "endurance" else 12
    return ExerciseSlot.model_validate(
        {
            "exercise": entry.name,
            "pattern": pattern,
            "muscle": muscle,
            "role": role,
            "kind": kind,
            "sets": max(1, min(sets, 10)) if kind != "duration" else 1,
            "rep_low": low,
            "rep_high": high,
            "hold_sec": hold,
            "minutes": minutes,
            "rest_sec": rest_for(role, low),
            "equipment": list(entry.equipment),
        }
    )


# --- the offline drafter ------------------------------------------------------------------------


@dataclass
class _DaySlots:
    weekday: Weekday
    focus: str
    specs: list[SlotSpec]
    entries: list[CatalogEntry | None]


def _emphasis(inputs: PlanInputs) -> list[str]:
    """Muscles the user's goal weights or permanent preferences put first (at most two)."""
    muscles = sorted(inputs.muscle_goals, key=lambda m: (-inputs.muscle_goals[m], m))
    top = [m for m in muscles if inputs.muscle_goals[m] > 0][:2]
    permanent = [p for p in inputs.preferences if not is_temporary(p)]
    liked = sorted(preference_constraints(permanent).permanent_muscles)
    return list(dict.fromkeys(top + liked))[:2]


def _specs_for(focus: str, inputs: PlanInputs, goal: str) -> list[SlotSpec]:
    specs = list(_template(focus))
    region = next((r for key, r in _REGION.items() if focus.startswith(key)), frozenset())
    for muscle in _emphasis(inputs):
        if muscle in region and all(m != muscle or role == "main" for _, m, role in specs[:3]):
            specs.insert(min(3, len(specs)), (None, muscle, "accessory"))
    cardio_weight = sum(w for g, w in inputs.category_goals.items() if leading_goal({g: 1.0}) == "endurance")
    total = sum(inputs.category_goals.values()) or 1.0
    legs_day = bool(region & {"Quadriceps"}) and "Conditioning" not in focus
    if legs_day and (goal == "endurance" or cardio_weight / total >= 0.25):
        specs.insert(min(4, len(specs)), (None, "Quadriceps", "conditioning"))
    mobility_weight = sum(w for g, w in inputs.category_goals.items() if leading_goal({g: 1.0}) == "mobility")
    if (goal == "mobility" or mobility_weight / total >= 0.2) and "Mobility" not in focus:
        specs.append((None, specs[0][1], "mobility"))
    return specs


def draft_plan(inputs: PlanInputs) -> PlanDraft:
    """The offline drafter: the plan a coach following seed 003 would write for these inputs."""
    goal = leading_goal(inputs.category_goals, inputs.goal_text)
    method = choose_methodology(inputs.experience, inputs.days_per_week, goal)
    days = sorted(inputs.training_days, key=WEEKDAYS.index)
    method, foci = assign_foci(method, days, inputs.experience)
    rules = constraints_for(
        inputs.equipment, inputs.preferences, inputs.experience, inputs.history, permanent_only=True
    )
    plan_days = [_DaySlots(d, f, _specs_for(f, inputs, goal), []) for d, f in zip(days, foci, strict=True)]
    _pick_days(plan_days, rules)
    layout = phase_layout(inputs.weeks)
    templates = phase_templates(goal, inputs.experience, len(layout))
    cycles = []
    for (start, end), (name, aim, ranges, intensity) in zip(layout, templates, strict=True):
        pattern = [
            DayDraft(
                weekday=d.weekday,
                focus=focus_name(d.focus),
                slots=[
                    SlotDraft(
                        exercise=e.name,
                        pattern=p,
                        muscle=m,
                        role=role,
                        sets=base_sets(role, inputs.experience, method),
                        rep_low=ranges.get(role, (12, 15))[0] if role not in _TIMED_ROLES else None,
                        rep_high=ranges.get(role, (12, 15))[1] if role not in _TIMED_ROLES else None,
                    )
                    for (p, m, role), e in zip(d.specs, d.entries, strict=True)
                    if e is not None
                ],
            )
            for d in plan_days
        ]
        cycles.append(
            MicrocycleDraft(
                name=name,
                goal=aim,
                start_week=start,
                end_week=end,
                deload_weeks=[end],
                intensity=intensity,
                weekly_pattern=pattern,
            )
        )
    return PlanDraft(
        title=plan_title(inputs.weeks, method, goal),
        methodology=method,
        philosophy=philosophy_text(inputs, method, goal),
        microcycles=cycles,
        progression_strategy=progression_lines(inputs, [c.end_week for c in cycles]),
    )


_TIMED_ROLES = frozenset({"conditioning", "mobility"})


def _pick_days(plan_days: list[_DaySlots], rules: Constraints) -> None:
    """Exercises for every slot, each day avoiding the large muscles its neighbouring training days
    work (so back-to-back days stay trainable), a fallback for a day nothing fits."""
    weekdays = [d.weekday for d in plan_days]
    done: dict[int, set[str]] = {}
    for position in _processing_order(weekdays):
        day = plan_days[position]
        blocked = frozenset(set().union(*(done[n] for n in _neighbours(weekdays, position) if n in done)))
        others = [e.name for i, d in enumerate(plan_days) if i != position for e in d.entries if e]
        taken: list[str] = []
        for pattern, muscle, role in day.specs:
            entry = pick_exercise(
                rules,
                pattern=pattern,
                muscle=muscle,
                role=role,
                taken=taken,
                blocked=blocked,
                prefer_not=others,
            )
            day.entries.append(entry)
            if entry is not None:
                taken.append(entry.name)
        if not any(day.entries):
            _fallback_day(day, rules, blocked)
        done[position] = set().union(*(_worked_large(e) for e in day.entries if e))


_FALLBACK_SPECS: tuple[SlotSpec, ...] = (
    (None, "Abs", "core"), (None, "Shoulders", "accessory"), (None, "Calves", "accessory"),
    (None, "Back", "mobility"), (None, "Hamstrings", "mobility"), (None, "Shoulders", "mobility"),
    (None, "Forearms", "accessory"), (None, "Neck", "mobility"),
)  # fmt: skip


def _fallback_day(day: _DaySlots, rules: Constraints, blocked: frozenset[str]) -> None:
    day.specs, day.entries = [], []
    taken: list[str] = []
    for spec in _FALLBACK_SPECS:
        entry = pick_exercise(
            rules, pattern=spec[0], muscle=spec[1], role=spec[2], taken=taken, blocked=blocked
        )
        if entry is not None:
            day.specs.append(spec)
            day.entries.append(entry)
            taken.append(entry.name)
        if len(day.entries) >= 3:
            break
    if not day.entries:
        raise PlanError(
            "No exercise fits your equipment and the muscles your injuries or preferences rule out."
        )


# --- finalize: any draft -> the plan --------------------------------------------------------------


def finalize_plan(draft: PlanDraft, inputs: PlanInputs, *, today: date | None = None) -> FitnessPlan:
    """The plan from a draft (the offline drafter's or a model's): every exercise resolved against the
    catalog and replaced by the best allowed one for its slot when it is unknown or breaks a hard rule;
    sets, rep ranges, rest, holds and cardio minutes set by code; each day trimmed to the session."""
    rules = constraints_for(
        inputs.equipment, inputs.preferences, inputs.experience, inputs.history, permanent_only=True
    )
    goal = leading_goal(inputs.category_goals, inputs.goal_text)
    cycles = []
    for number, cycle in enumerate(draft.microcycles, start=1):
        ranges: dict[str, tuple[int | None, int | None]] = {}
        pattern = [
            DayPattern(weekday=day.weekday, focus=day.focus[:60], slots=slots)
            for day in cycle.weekly_pattern
            if (slots := _final_slots(day, rules, inputs, goal, draft.methodology, ranges))
        ]
        if not pattern:
            raise PlanError("No training day of the plan has an exercise that fits your constraints.")
        cycles.append(
            Microcycle(
                number=number,
                name=cycle.name[:60],
                goal=cycle.goal[:300],
                start_week=cycle.start_week,
                end_week=cycle.end_week,
                deload_weeks=sorted(set(cycle.deload_weeks)),
                intensity=cycle.intensity[:120],
                weekly_pattern=pattern,
            )
        )
    created = today or local_day(inputs.now, zone(inputs.timezone))
    return FitnessPlan(
        title=draft.title[:120],
        weeks=inputs.weeks,
        start_date=inputs.start_date,
        training_days=sorted(inputs.training_days, key=WEEKDAYS.index),
        session_minutes=inputs.session_minutes,
        experience=inputs.experience,
        methodology=draft.methodology,
        philosophy=draft.philosophy[:2000],
        goals=_goal_names(inputs, goal),
        equipment=sorted(rules.equipment),
        weight_unit=inputs.weight_unit,
        microcycles=cycles,
        progression_strategy=[line[:300] for line in draft.progression_strategy][:12],
        modification_history=[
            ModificationEntry(
                day=created,
                change=f"Plan created: {inputs.weeks} weeks, {inputs.days_per_week} days a week, "
                f"{METHODOLOGY_LABELS[draft.methodology].lower()}.",
            )
        ],
    )


def _final_slots(
    day: DayDraft,
    rules: Constraints,
    inputs: PlanInputs,
    goal: str,
    methodology: Methodology,
    ranges: dict[str, tuple[int | None, int | None]],
) -> list[ExerciseSlot]:
    """A day's slots; an exercise the phase already uses in another rep range is swapped when another
    fits (one exercise, one range per phase, so its progression reads one line of sessions)."""
    slots: list[ExerciseSlot] = []
    taken: list[str] = []
    for draft in day.slots:
        reps = (draft.rep_low, draft.rep_high or draft.rep_low) if draft.rep_low else None
        sets = min(draft.sets, base_sets(draft.role, inputs.experience, methodology) + 1)

        entry = resolve(draft.exercise)
        if entry is None or not allowed(entry, rules) or entry.name in taken:
            entry = pick_exercise(
                rules, pattern=draft.pattern, muscle=draft.muscle, role=draft.role, taken=taken
            )
        if entry is None:
            continue
        slot = _draft_slot(entry, draft, reps, sets, inputs.experience, goal)
        if ranges.get(slot.exercise, (slot.rep_low, slot.rep_high)) != (slot.rep_low, slot.rep_high):
            clash = [name for name, r in ranges.items() if r != (slot.rep_low, slot.rep_high)]
            other = pick_exercise(
                rules, pattern=draft.pattern, muscle=draft.muscle, role=draft.role, taken=[*taken, *clash]
            )
            if other is not None:
                slot = _draft_slot(other, draft, reps, sets, inputs.experience, goal)
        slots.append(slot)
        taken.append(slot.exercise)
        ranges.setdefault(slot.exercise, (slot.rep_low, slot.rep_high))
    return trim_to_session(slots, inputs.session_minutes)


def _draft_slot(
    entry: CatalogEntry,
    draft: SlotDraft,
    reps: tuple[int, int] | None,
    sets: int,
    experience: Experience,
    goal: str,
) -> ExerciseSlot:
    return make_slot(
        entry,
        pattern=draft.pattern,
        muscle=draft.muscle,
        role=draft.role,
        sets=sets,
        reps=reps,
        experience=experience,
        goal=goal,
    )


def record_modification(plan: FitnessPlan, day: date, change: str) -> FitnessPlan:
    """The plan with a modification history entry (a week rebuilt, a day changed, at the user's word)."""
    entry = ModificationEntry(day=day, change=change.strip()[:300] or "Plan changed.")
    return plan.model_copy(update={"modification_history": [*plan.modification_history, entry]})


def build_plan(inputs: PlanInputs, *, today: date | None = None) -> FitnessPlan:
    """The offline `fitness_plan` agent: draft and finalize."""
    return finalize_plan(draft_plan(inputs), inputs, today=today)


# --- words ----------------------------------------------------------------------------------------


_GOAL_WORDS = {
    "strength": "Strength", "hypertrophy": "Muscle-Building", "endurance": "Fitness", "power": "Power",
    "mobility": "Mobility", "general": "Fitness",
}  # fmt: skip


_TITLE_WORDS = {
    "full_body": "Full-Body", "upper_lower": "Upper/Lower", "push_pull_legs": "Push/Pull/Legs",
    "upper_lower_ppl": "Upper/Lower + PPL", "powerlifting": "Powerlifting", "bodybuilding": "Bodybuilding",
}  # fmt: skip


def plan_title(weeks: int, method: Methodology, goal: str) -> str:
    return f"{weeks}-Week {_TITLE_WORDS[method]} {_GOAL_WORDS.get(goal, 'Fitness')} Plan"


def _goal_names(inputs: PlanInputs, goal: str) -> list[str]:
    named = sorted(inputs.category_goals, key=lambda g: (-inputs.category_goals[g], g))[:4]
    return named or [_GOAL_WORDS.get(goal, "Fitness")]


def philosophy_text(inputs: PlanInputs, method: Methodology, goal: str) -> str:
    days = inputs.days_per_week
    why = {
        "full_body": "Training every major muscle each session gives each one several exposures a week, "
        "which is the fastest way to learn the lifts and build a base.",
        "upper_lower": "Alternating upper and lower days hits every muscle twice a week while each half of "
        "the body recovers on the other half's day.",
        "push_pull_legs": "Pushing, pulling and leg days each get full attention, and each muscle is trained "
        "twice a week with time to recover in between.",
        "upper_lower_ppl": "Two upper/lower days for heavier work and three push/pull/legs days for volume "
        "train every muscle twice a week.",
        "powerlifting": "Each main lift has its own day, with the accessories that make it stronger; heavy "
        "work rotates so the same muscles are never hit hard two days running.",
        "bodybuilding": "Each muscle group gets a dedicated session with plenty of volume and variety, and "
        "a full week to grow back.",
    }[method]
    parts = [
        f"A {inputs.weeks}-week plan for {'an' if inputs.experience[0] in 'aeiou' else 'a'} "
        f"{inputs.experience} lifter training {days} day"
        f"{'s' if days != 1 else ''} a week for about {inputs.session_minutes} minutes.",
        why,
        "Every phase ends with a lighter deload week so fatigue clears and progress keeps coming.",
        "Weights come from what you actually lift: complete every rep and the weight goes up next time.",
    ]
    avoided = preference_constraints(inputs.preferences).avoided_muscles
    if avoided:
        parts.append(
            f"Exercises that load {', '.join(sorted(avoided)).lower()} are left out to respect your injuries "
            "and preferences."
        )
    if inputs.equipment == ["bodyweight"] or set(inputs.equipment) <= {"bodyweight"}:
        parts.append("It uses bodyweight exercises only; add your equipment for a fuller plan.")
    return " ".join(parts)


def progression_lines(inputs: PlanInputs, deloads: Sequence[int]) -> list[str]:
    step = PLATE_STEP[inputs.weight_unit]
    unit = inputs.weight_unit
    weeks = ", ".join(str(w) for w in deloads)
    return [
        "Double progression: when every set reaches the top of its rep range, add one step "
        f"({step:g} {unit} on a bar) and go back to the bottom of the range; otherwise add a rep.",
        f"Fall short of the range {DELOAD_AFTER_MISSES} sessions in a row and the weight drops by about 10%, "
        "then builds back up.",
        f"Deload weeks ({'week' if len(deloads) == 1 else 'weeks'} {weeks}): about 40% fewer sets at the "
        "same weights, stopping 3-4 reps short of failure (RPE 6-7).",
        "A new phase moves to new rep ranges: the starting weight comes from your estimated max on that "
        "lift.",
        "New exercises start light: from a related lift you already do, else a conservative starting weight.",
    ]


# --- markdown -------------------------------------------------------------------------------------


def _prescription(slot: ExerciseSlot) -> str:
    if slot.kind == "duration":
        return f"{slot.minutes} min"
    if slot.kind == "hold":
        work = f"{slot.sets} x {slot.hold_sec} s hold"
    elif slot.rep_low == slot.rep_high:
        work = f"{slot.sets} x {slot.rep_low}"
    else:
        work = f"{slot.sets} x {slot.rep_low}-{slot.rep_high}"
    rest = slot.rest_sec
    shown = f"{rest // 60} min" if rest >= 120 and rest % 60 == 0 else f"{rest} s"
    return f"{work} (rest {shown})" if rest else work


def _long_date(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _weeks_text(weeks: Sequence[int]) -> str:
    return ("week " if len(weeks) == 1 else "weeks ") + ", ".join(str(w) for w in weeks)


def render_plan_markdown(plan: FitnessPlan) -> str:
    """The plan as markdown, with the sections seed 003's validator requires."""
    days = ", ".join(plan.training_days)
    lines = [
        f"# {plan.title}",
        "",
        "## Overview",
        f"- Methodology: {METHODOLOGY_LABELS[plan.methodology]}, {plan.days_per_week} "
        f"day{'s' if plan.days_per_week != 1 else ''} a week ({days})",
        f"- Sessions: about {plan.session_minutes} minutes",
        f"- Level: {plan.experience}",
        f"- Goals: {', '.join(plan.goals)}",
        f"- Equipment: {', '.join(e for e in plan.equipment if e != 'bodyweight') or 'bodyweight only'}",
        f"- Starts: {_long_date(plan.start_date)}",
        f"- Deload {_weeks_text(plan.deload_weeks)}" if plan.deload_weeks else "- No deload weeks",
        "",
        "## Program Philosophy",
        plan.philosophy,
        "",
    ]
    for cycle in plan.microcycles:
        span = (
            f"Week {cycle.start_week}"
            if cycle.start_week == cycle.end_week
            else f"Weeks {cycle.start_week}-{cycle.end_week}"
        )
        lines += [f"## Microcycle {cycle.number}: {cycle.name} ({span})", f"Goal: {cycle.goal}"]
        if cycle.intensity:
            lines.append(f"Intensity: {cycle.intensity}")
        if cycle.deload_weeks:
            lines.append(f"Deload: {_weeks_text(cycle.deload_weeks)} (about 40% fewer sets)")
        lines += ["", "### Weekly Pattern"]
        for day in cycle.weekly_pattern:
            lines.append(f"**{day.weekday}: {day.focus}**")
            lines += [f"- {slot.exercise}: {_prescription(slot)}" for slot in day.slots]
        rest_days = [d for d in WEEKDAYS if d not in plan.training_days]
        if rest_days:
            lines.append(f"**Rest: {', '.join(rest_days)}**")
        lines.append("")
    lines += ["## Progression Strategy", *[f"- {line}" for line in plan.progression_strategy], ""]
    lines += ["## Modification History"]
    lines += [f"- {_long_date(entry.day)}: {entry.change}" for entry in plan.modification_history]
    return "\n".join(lines).rstrip() + "\n"


# --- validators -----------------------------------------------------------------------------------

REQUIRED_SECTIONS = (
    "# ",
    "## Program Philosophy",
    "## Microcycle",
    "### Weekly Pattern",
    "## Modification History",
)


def required_sections(markdown: str, min_microcycles: int = 1) -> list[str]:
    """Seed 003's markdown check: a title, the philosophy, at least `min_microcycles` microcycles each
    with a weekly pattern, and the modification history."""
    lines = markdown.splitlines()
    errors = []
    if not any(line.startswith("# ") for line in lines):
        errors.append("the plan needs a title line starting with '# '")
    for section in REQUIRED_SECTIONS[1:]:
        if not any(line.startswith(section) for line in lines):
            errors.append(f"missing section '{section}'")
    cycles = sum(1 for line in lines if line.startswith("## Microcycle"))
    patterns = sum(1 for line in lines if line.startswith("### Weekly Pattern"))
    if cycles < min_microcycles:
        errors.append(f"needs at least {min_microcycles} microcycles, has {cycles}")
    if patterns < cycles:
        errors.append("every microcycle needs its '### Weekly Pattern'")
    return errors


def min_microcycles(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    need = required_microcycles(plan.weeks)
    errors = []
    if len(plan.microcycles) < need:
        errors.append(
            f"a {plan.weeks}-week plan needs at least {need} microcycles, has {len(plan.microcycles)}"
        )
    expected = 1
    for cycle in plan.microcycles:
        if cycle.start_week != expected or cycle.end_week < cycle.start_week:
            errors.append(
                f"microcycle {cycle.number} covers weeks {cycle.start_week}-{cycle.end_week}; "
                f"it should start at week {expected}"
            )
        expected = cycle.end_week + 1
    if expected != plan.weeks + 1:
        errors.append(f"the microcycles cover weeks 1-{expected - 1}, the plan has {plan.weeks}")
    if plan.weeks != inputs.weeks:
        errors.append(f"the plan has {plan.weeks} weeks, {inputs.weeks} were asked for")
    return errors


def deloads_present(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """At least one deload, each inside its microcycle, and never more than MAX_LOADING_RUN loading
    weeks in a row."""
    errors = []
    deloads = plan.deload_weeks
    if not deloads:
        return ["the plan has no deload week"]
    for cycle in plan.microcycles:
        outside = [w for w in cycle.deload_weeks if not cycle.start_week <= w <= cycle.end_week]
        if outside:
            errors.append(f"microcycle {cycle.number} lists deload weeks outside its weeks: {outside}")
    run = 0
    for week in range(1, plan.weeks + 1):
        run = 0 if week in deloads else run + 1
        if run > MAX_LOADING_RUN:
            errors.append(
                f"weeks {week - run + 1}-{week} go more than {MAX_LOADING_RUN} weeks without a deload"
            )
            break
    return errors


def equipment_available(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Every exercise is in the catalog and doable with the location's equipment, and none loads a
    muscle an injury or preference rules out or is an excluded exercise."""
    rules = constraints_for(inputs.equipment, inputs.preferences, inputs.experience, permanent_only=True)
    errors = []
    for name in dict.fromkeys(
        s.exercise for c in plan.microcycles for d in c.weekly_pattern for s in d.slots
    ):
        entry = resolve(name)
        if entry is None:
            errors.append(f"{name} is not a known exercise")
        elif missing := sorted(missing_equipment(entry.equipment, rules.equipment)):
            errors.append(f"{name} needs {', '.join(missing)}, which is not available")
        elif conflict := preference_conflict(entry, rules):
            errors.append(f"{name} conflicts with: {conflict}")
    return errors


def training_days_match(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    want = sorted(inputs.training_days, key=WEEKDAYS.index)
    errors = []
    if list(plan.training_days) != want:
        errors.append(
            f"the plan trains on {', '.join(plan.training_days)}; the user trains on {', '.join(want)}"
        )
    for cycle in plan.microcycles:
        days = [d.weekday for d in cycle.weekly_pattern]
        if sorted(days, key=WEEKDAYS.index) != want:
            errors.append(
                f"microcycle {cycle.number}'s weekly pattern trains on {', '.join(days)}; it must be "
                f"{', '.join(want)}"
            )
    return errors


def fits_session(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    limit = inputs.session_minutes * 1.1
    return [
        f"{day.weekday} in microcycle {cycle.number} takes about {day_minutes(day.slots):.0f} min, "
        f"the session is {inputs.session_minutes}"
        for cycle in plan.microcycles
        for day in cycle.weekly_pattern
        if day_minutes(day.slots) > limit
    ]


PlanValidator = Callable[[FitnessPlan, PlanInputs], list[str]]
PLAN_VALIDATORS: dict[str, PlanValidator] = {
    "plan_required_sections": lambda plan, inputs: required_sections(
        render_plan_markdown(plan), required_microcycles(plan.weeks)
    ),
    "plan_min_microcycles": min_microcycles,
    "plan_deloads_present": deloads_present,
    "plan_equipment_available": equipment_available,
    "plan_training_days_match": training_days_match,
    "plan_fits_session": fits_session,
}


def validate_plan(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Every plan validator's errors, in order (none: the plan is valid)."""
    return [error for check in PLAN_VALIDATORS.values() for error in check(plan, inputs)]


def plan_weeks(plan: FitnessPlan) -> Mapping[int, bool]:
    """week number -> whether it is a deload week."""
    deloads = set(plan.deload_weeks)
    return {w: w in deloads for w in range(1, plan.weeks + 1)}
