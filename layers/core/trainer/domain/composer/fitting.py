"""Fitting a session to its time: the estimated duration (every exercise's timer, work and rest, plus
a changeover) is moved towards the budget with the number of exercises, then their sets, rounds or
minutes; and the order the exercises are done in."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass

from trainer.domain.catalog import CatalogEntry
from trainer.domain.composer.prescription import (
    CHANGEOVER_SEC,
    BeyondRule,
    exercise_seconds,
    prescribed,
    prescription_kind,
    scheme,
    volume,
    volume_range,
    with_volume,
)
from trainer.domain.composer.ranking import Picker
from trainer.domain.composer.session_plan import SessionPlan
from trainer.domain.composer.staples import STAPLE_EXERCISES
from trainer.domain.movements import equipment_class
from trainer.domain.muscles import LARGE_MUSCLES
from trainer.domain.prescriptions import rest_seconds
from trainer.domain.workout import Exercise

MAX_EXERCISES = 10
MAX_STRETCHES = 15
FILL_TOLERANCE = 0.15
"""Past this share of the budget, under or over, the composer adds or drops an exercise."""


@dataclass
class Slot:
    """An exercise in the making: its place in the session and how far its volume may move."""

    entry: CatalogEntry
    exercise: Exercise
    role: int
    """Order group: 0 the lift asked for, then focus compounds, isolation, holds, other muscles',
    cardio finishers (7), stretches (9)."""
    rank: int
    low: int
    high: int
    base: int = 0

    def __post_init__(self) -> None:
        self.base = volume(self.exercise)
        self.low, self.high = min(self.low, self.base), max(self.high, self.base)

    @property
    def seconds(self) -> int:
        return exercise_seconds(self.exercise)


def slot_for(entry: CatalogEntry, ex: Exercise, role: int, rank: int) -> Slot:
    low, high = volume_range(entry, ex)
    return Slot(entry, ex, role, rank, low, high)


def fit_to_budget(slots: list[Slot], budget_sec: int) -> int:
    """Moves the slots' volume one set (round, minute) at a time towards the budget, the least
    extended (most important) first when adding and the most extended (least important) first when
    taking away, while a step brings the total closer. Returns the total seconds."""
    total = sum(s.seconds for s in slots)
    for _ in range(400):
        gap = budget_sec - total
        grow = gap > 0
        movable = [s for s in slots if (volume(s.exercise) < s.high if grow else volume(s.exercise) > s.low)]
        if grow:
            movable.sort(key=lambda s: (volume(s.exercise) - s.base, s.role, s.rank))
        else:
            movable.sort(key=lambda s: (s.base - volume(s.exercise), -s.role, -s.rank))
        for slot in movable:
            new = with_volume(slot.exercise, volume(slot.exercise) + (1 if grow else -1))
            delta = exercise_seconds(new) - slot.seconds
            if abs(gap - delta) < abs(gap):
                slot.exercise, total = new, total + delta
                break
        else:
            return total
    return total


def strength_role(entry: CatalogEntry, plan: SessionPlan, requested: bool) -> int:
    kind = prescription_kind(entry)
    if entry.category == "stretching":
        return 9
    if kind == "cardio":
        return 7
    if requested and entry.mechanic == "compound" and kind == "reps":
        return 0
    on_target = not plan.targets or entry.primary_muscle in plan.targets
    offset = 0 if on_target else 3
    if kind == "hold":
        return offset + 3
    return offset + (1 if entry.mechanic == "compound" else 2)


IMPLEMENT_ORDER = ("barbell", "smith machine", "ez curl bar", "dumbbell", "kettlebell", "machine", "cable")


def order_key(slot: Slot) -> tuple[int, int, bool, int, int]:
    """Within a group: big muscles first, well-known lifts, the heavier implement, then rank."""
    cls = equipment_class(slot.entry.name, slot.entry.equipment)
    implement = IMPLEMENT_ORDER.index(cls) if cls in IMPLEMENT_ORDER else len(IMPLEMENT_ORDER)
    big = 0 if slot.entry.primary_muscle in LARGE_MUSCLES else 1
    return slot.role, big, slot.entry.name not in STAPLE_EXERCISES, implement, slot.rank


def minutes_per_exercise(plan: SessionPlan) -> float:
    """A planning figure: the goal's default compound and isolation exercise, on average, plus a fifth."""
    seconds = []
    for compound in (True, False):
        reps, _, _ = scheme(plan, compound)
        rest = rest_seconds(min(reps), compound=compound)
        seconds.append(10 + 3 * sum(reps) + rest * (len(reps) - 1) + CHANGEOVER_SEC)
    return 1.2 * sum(seconds) / len(seconds) / 60


def top_up(slots: list[Slot], picker: Picker, plan: SessionPlan, budget: int) -> int:
    """Fits the slots to the budget, adding the next pick while the session stays short and dropping
    the least important one while it runs long."""
    total = fit_to_budget(slots, budget)
    limit = MAX_STRETCHES if plan.wants_mobility else MAX_EXERCISES
    for _ in range(3 * limit):
        if total < budget * (1 - FILL_TOLERANCE) and len(slots) < limit:
            entry = picker.next() or picker.next(relaxed=True)
            if entry is None:
                break
            with suppress(BeyondRule):
                ex = prescribed(entry, plan, len(slots) + 1)
                slots.append(slot_for(entry, ex, strength_role(entry, plan, False), len(slots)))
        elif total > budget * (1 + FILL_TOLERANCE) and len(slots) > 1:
            slots.remove(max(slots, key=lambda s: (s.role != 0, s.rank)))
        else:
            break
        total = fit_to_budget(slots, budget)
    return total


def trim_to_cap(slots: list[Slot], cap_sec: int) -> int:
    """Trims the slots until the session fits `cap_sec`: volume down to each slot's low end (the most
    extended, least important first), then the least important exercise out, then volume down to one
    set (round, minute). Returns the total seconds."""
    total = sum(s.seconds for s in slots)
    while total > cap_sec:
        above_low = [s for s in slots if volume(s.exercise) > s.low]
        if above_low:
            slot = max(above_low, key=lambda s: (volume(s.exercise) - s.base, s.role, s.rank))
        elif len(slots) > 1:
            slots.remove(max(slots, key=lambda s: (s.role != 0, s.rank)))
            total = sum(s.seconds for s in slots)
            continue
        elif volume(slots[0].exercise) > 1:
            slot = slots[0]
        else:
            break
        slot.exercise = with_volume(slot.exercise, volume(slot.exercise) - 1)
        total = sum(s.seconds for s in slots)
    return total
