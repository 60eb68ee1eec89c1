"""A phase's weekly volume per muscle, set by code (docs/training-model.md#weekly-volume): the sets of a
weekly pattern's slots moved, one at a time, until every trained major muscle has the phase's target
(trainer.domain.volume.phase_target: at least the goal's landmark, more in a volume phase) and no
muscle passes the most a week should hold, without a day outgrowing the session."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from trainer.domain.volume import MAJOR_MUSCLES, landmarks, phase_target, set_weights, weekly_sets
from trainer.programs.models import DayPattern, ExerciseSlot
from trainer.programs.plan.slots import day_minutes
from trainer.programs.selection import resolve

MOST_SLOT_SETS = {"main": 5, "secondary": 5, "accessory": 5, "core": 4}
FEWEST_SLOT_SETS = {"main": 2, "secondary": 2, "accessory": 1, "core": 1}
"""The fewest sets a slot keeps when sets come off (an isolation slot can go down to one)."""
ABOVE_TARGET = 3.0
"""A trained major muscle's own work comes off once the muscle is this many sets past the phase's
target (so a low-volume phase has fewer sets than a volume phase)."""
_ROLE_ORDER = {"main": 0, "secondary": 1, "accessory": 2, "core": 3}


def fewest(slot: ExerciseSlot) -> int:
    return FEWEST_SLOT_SETS.get(slot.role, 2)


def slot_muscles(slot: ExerciseSlot) -> dict[str, float]:
    """The muscle shares of a slot's exercise (the catalog's, else the slot's muscle alone)."""
    entry = resolve(slot.exercise)
    return dict(entry.muscles) if entry is not None else {slot.muscle: 1.0}


def counts(slot: ExerciseSlot) -> bool:
    """Whether a slot's sets are hard sets: lifts and holds, not cardio or stretching."""
    return slot.kind != "duration" and slot.role not in ("mobility", "conditioning")


def pattern_sets(days: Iterable[DayPattern]) -> dict[str, float]:
    """Weekly hard sets per muscle of a weekly pattern (trainer.domain.volume's fractional count)."""
    return weekly_sets((slot_muscles(s), s.sets) for d in days for s in d.slots if counts(s))


def trained_majors(days: Iterable[DayPattern]) -> set[str]:
    """The major muscles some slot of the pattern trains directly (its exercise's primary muscle)."""
    found = set()
    for day in days:
        for slot in day.slots:
            weights = set_weights(slot_muscles(slot)) if counts(slot) else {}
            found |= {m for m, w in weights.items() if w == 1.0 and m in MAJOR_MUSCLES}
    return found


def _with_sets(days: list[DayPattern], d: int, s: int, sets: int) -> list[DayPattern]:
    slots = list(days[d].slots)
    slots[s] = slots[s].model_copy(update={"sets": sets})
    return [*days[:d], days[d].model_copy(update={"slots": slots}), *days[d + 1 :]]


def _primary(slot: ExerciseSlot) -> str | None:
    weights = set_weights(slot_muscles(slot))
    return next((m for m, w in weights.items() if w == 1.0), None)


def room(day: DayPattern, slot: ExerciseSlot, session_minutes: int) -> bool:
    """Whether one more set of `slot` still fits the day in the session."""
    grown = [s.model_copy(update={"sets": s.sets + 1}) if s is slot else s for s in day.slots]
    return day_minutes(grown) <= session_minutes


NON_MAJOR_FLOOR = 4.0
"""A muscle outside MAJOR_MUSCLES keeps at least this many weekly sets when sets move to a major one."""


def balance_volume(
    days: Sequence[DayPattern], *, goal: str, experience: str, phase: str, session_minutes: int
) -> list[DayPattern]:
    """The pattern with its slots' sets moved so each trained major muscle reaches the phase's target
    (from below: sets added where the muscle is primary, main lifts first, on days with room) and no
    muscle passes the landmarks' most nor a trained major muscle the target by more than ABOVE_TARGET
    through its own work (sets taken off where it is primary, accessories first, never below
    its role's FEWEST_SLOT_SETS nor from a major muscle's own work while it is short of the target)."""
    days = list(days)
    target = phase_target(goal, experience, phase)
    most = landmarks(goal, experience).high
    majors = trained_majors(days)

    def cap(muscle: str) -> float:
        return most

    def floor(muscle: str) -> float:
        return target if muscle in majors else NON_MAJOR_FLOOR

    for _ in range(300):
        totals = pattern_sets(days)
        short = {m for m in majors if totals.get(m, 0.0) < target}
        over = [m for m, v in totals.items() if v > most]
        if over:
            muscle = max(over, key=lambda m: (totals[m], m))
            cut = _fewer(days, muscle, protect=short) or _fewer(days, muscle)
            if cut is None:
                break
            days = cut
            continue
        trimmed = next(
            (
                cut
                for m in sorted(majors, key=lambda m: -totals.get(m, 0.0))
                if totals.get(m, 0.0) > target + ABOVE_TARGET
                and (cut := _fewer(days, m, primary_only=True, protect=short)) is not None
            ),
            None,
        )
        if trimmed is not None:
            days = trimmed
            continue
        under = sorted(short, key=lambda m: (totals.get(m, 0.0), m))
        grown = next(
            (g for m in under if (g := _more(days, m, totals, cap, floor, session_minutes)) is not None),
            None,
        )
        if grown is None:
            break
        days = grown
    return days


def _more(
    days: list[DayPattern],
    muscle: str,
    totals: dict[str, float],
    cap: Callable[[str], float],
    floor: Callable[[str], float],
    session_minutes: int,
) -> list[DayPattern] | None:
    """One more set where `muscle` is primary: the slot with the fewest sets, main lifts first. A day
    without room gives up a set of a muscle with sets to spare (above `floor` after the cut); when the
    set would push another muscle past its cap, a set of that muscle's own work comes off first (a
    lateral raise makes way for a bench press)."""
    options = []
    for d, day in enumerate(days):
        for s, slot in enumerate(day.slots):
            if not counts(slot) or _primary(slot) != muscle:
                continue
            if slot.sets >= MOST_SLOT_SETS.get(slot.role, 4):
                continue
            if not room(day, slot, session_minutes):
                spared = _spare(days, d, s, muscle, totals, floor)
                if spared is None or not room(spared[d], spared[d].slots[s], session_minutes):
                    continue
                after = pattern_sets(spared)
                weights = set_weights(slot_muscles(slot))
                if all(after.get(m, 0.0) + w <= cap(m) for m, w in weights.items()):
                    return _with_sets(spared, d, s, slot.sets + 1)
                continue
            weights = set_weights(slot_muscles(slot))
            blocked = [m for m, w in weights.items() if m != muscle and totals.get(m, 0.0) + w > cap(m)]
            if totals.get(muscle, 0.0) + weights[muscle] > cap(muscle):
                continue
            options.append((len(blocked), slot.sets, _ROLE_ORDER.get(slot.role, 9), d, s, blocked))
    options.sort(key=lambda o: o[:5])
    for _, sets, _, d, s, blocked in options:
        grown = days
        for other in blocked:
            cut = _fewer(grown, other, primary_only=True, keep=muscle)
            if cut is None:
                break
            grown = cut
        else:
            return _with_sets(grown, d, s, sets + 1)
    return None


def _spare(
    days: list[DayPattern],
    d: int,
    keep: int,
    muscle: str,
    totals: dict[str, float],
    floor: Callable[[str], float],
) -> list[DayPattern] | None:
    """Day `d` with one set fewer of a slot whose muscles all stay above their floor (the muscle with
    the most to spare first, accessories first), never slot `keep` nor work for `muscle`."""
    options = []
    for s, slot in enumerate(days[d].slots):
        if s == keep or not counts(slot) or slot.sets <= fewest(slot):
            continue
        weights = set_weights(slot_muscles(slot))
        if muscle in weights or any(totals.get(m, 0.0) - w < floor(m) for m, w in weights.items()):
            continue
        primary = _primary(slot) or ""
        spare = totals.get(primary, 0.0) - floor(primary)
        options.append((-spare, -_ROLE_ORDER.get(slot.role, 9), s))
    if not options:
        return None
    *_, s = min(options)
    return _with_sets(days, d, s, days[d].slots[s].sets - 1)


def _fewer(
    days: list[DayPattern],
    muscle: str,
    *,
    primary_only: bool = False,
    keep: str | None = None,
    protect: frozenset[str] | set[str] = frozenset(),
) -> list[DayPattern] | None:
    """One set fewer of the slot that gives `muscle` the most (its primary first, accessories first,
    the slot with the most sets); `primary_only`: only where it is primary, never a slot of `keep`;
    never a slot whose primary muscle is in `protect`."""
    options = []
    for d, day in enumerate(days):
        for s, slot in enumerate(day.slots):
            weights = set_weights(slot_muscles(slot)) if counts(slot) else {}
            weight = weights.get(muscle, 0.0)
            if not weight or slot.sets <= fewest(slot) or _primary(slot) in protect - {muscle}:
                continue
            if primary_only and (weight < 1.0 or (keep is not None and keep in weights)):
                continue
            options.append((-weight, -_ROLE_ORDER.get(slot.role, 9), -slot.sets, d, s))
    if not options:
        return None
    *_, d, s = min(options)
    return _with_sets(days, d, s, days[d].slots[s].sets - 1)


def volume_problems(
    days: Sequence[DayPattern], *, goal: str, experience: str, session_minutes: int
) -> list[str]:
    """What breaks the landmarks: a muscle past the most, or a trained major muscle under the least
    while a day that trains it had room for another set."""
    marks = landmarks(goal, experience)
    totals = pattern_sets(days)
    problems = [
        f"{m} gets {totals[m]:g} hard sets a week, more than {marks.high:g}"
        for m in sorted(totals)
        if totals[m] > marks.high
    ]
    for muscle in sorted(trained_majors(days)):
        have = totals.get(muscle, 0.0)
        if have >= marks.low:
            continue
        roomy = [
            d.weekday
            for d in days
            for s in d.slots
            if counts(s) and _primary(s) == muscle and s.sets < MOST_SLOT_SETS.get(s.role, 4)
            and room(d, s, session_minutes)
        ]  # fmt: skip
        if roomy:
            problems.append(
                f"{muscle} gets {have:g} hard sets a week, fewer than {marks.low:g}, with room on {roomy[0]}"
            )
    return problems
