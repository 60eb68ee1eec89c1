"""An exercise slot's numbers, set by code: sets by role and experience, rep ranges snapped to the
progression's, rest by range and role, holds and cardio minutes; and how long a day of slots takes,
trimmed to the session when it runs long."""

from __future__ import annotations

from collections.abc import Iterable

from trainer.domain.catalog import CatalogEntry
from trainer.domain.prescriptions import rep_range, rest_seconds
from trainer.programs.models import ExerciseSlot, Experience, Methodology, SlotKind

DELOAD_VOLUME = 0.6
DELOAD_LOAD = 0.9
"""Deload weeks cut volume and load: about 60% of the sets at about 90% of the working weight, reps at
the bottom of the range (RPE 6-7), the practice surveyed by Rogerson et al. 2024 (Sports Med Open 10:26:
fewer sets and reps, a lighter load, more reps in reserve)."""
WARMUP_MIN = 6
COOLDOWN_MIN = 4
SECONDS_PER_REP = 3
CHANGEOVER_SEC = 60


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
    """Rest between sets: by the range's bottom for lifts (trainer.domain.prescriptions.rest_seconds;
    main and secondary lifts as compound work, accessories as isolation), short for core and stretches."""
    if role == "conditioning":
        return 0
    if role == "mobility":
        return 15
    if role == "core":
        return 45
    return rest_seconds(rep_low or 10, compound=role in ("main", "secondary"))


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
