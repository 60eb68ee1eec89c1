"""The calendar's recovery rules, in code: which sessions are hard, how a week's sessions go onto the
days the user has left (available days changed), and what a missed session changes in the sessions
after it. One rule holds throughout: never two hard sessions on consecutive days, and never a session
on a day the user did not make available.

Pure functions over `Slot`s (an id, a day, hard or not, a label); trainer.services.schedule reads the
rows and writes what these decide.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import combinations, pairwise
from typing import Any, Literal

from trainer.domain.weekdays import WEEKDAYS

EASY_SESSION = re.compile(
    r"\b(recover\w*|mobility|easy|zone ?2|walk\w*|yoga|stretch\w*|light|rest|deload|foam)\b", re.I
)
"""A session whose label says this is easy: it may sit next to a hard one."""
MAX_EXTRA_SETS = 6
"""A redistributed exercise gets one more set, up to this many."""
MISSED_CARRY_DAYS = 7
"""A missed session is made up within this many days from today, or not at all."""
REDISTRIBUTED_EXERCISES = 3
"""How many of the next session's main exercises take one extra set for a missed session."""
MAIN_WORK_EXCLUDED = ("warmup", "cooldown")

MissedAction = Literal["carried", "redistributed", "none"]


def is_hard(kind: str, label: str | None) -> bool:
    """A training session is hard unless its label names easy work (recovery, mobility, zone 2...)."""
    return kind == "training" and not EASY_SESSION.search(label or "")


def weekday_of(day: date) -> str:
    return WEEKDAYS[day.weekday()]


@dataclass(frozen=True)
class Slot:
    """A session on the calendar (or a free day, for the days a session may move to)."""

    key: str
    day: date
    hard: bool = True
    label: str = ""


def back_to_back(hard_days: Iterable[date]) -> list[tuple[date, date]]:
    """The pairs of consecutive days that both hold a hard session."""
    days = sorted(set(hard_days))
    return [(a, b) for a, b in pairwise(days) if (b - a).days == 1]


def _next_to_hard(day: date, hard_days: set[date]) -> bool:
    return (day - timedelta(days=1)) in hard_days or (day + timedelta(days=1)) in hard_days


# --- available days changed -----------------------------------------------------------------------


@dataclass(frozen=True)
class Reshaped:
    placed: dict[str, date]
    """Session key -> its day (unchanged for a session that stays)."""
    dropped: list[str]
    """The sessions that fit no available day without two hard sessions back to back, in order."""


def reshape_week(
    sessions: Sequence[Slot], slots: Sequence[date], *, fixed_hard: Iterable[date] = ()
) -> Reshaped:
    """The week's remaining `sessions` (in their order) put on the available `slots`: as many as fit
    with no two hard ones on consecutive days (`fixed_hard`: hard sessions around them that stay),
    keeping their order, the earliest sessions first, then moving each as little as possible."""
    days = sorted(set(slots))
    fixed = set(fixed_hard) - set(days)
    for count in range(min(len(sessions), len(days)), 0, -1):
        best: tuple[int, dict[str, date]] | None = None
        for kept in combinations(range(len(sessions)), count):
            for chosen in combinations(days, count):
                hard = set(fixed)
                valid = True
                for index, day in zip(kept, chosen, strict=True):
                    if sessions[index].hard:
                        if _next_to_hard(day, hard):
                            valid = False
                            break
                        hard.add(day)
                if not valid:
                    continue
                moved = sum(abs((day - sessions[i].day).days) for i, day in zip(kept, chosen, strict=True))
                if best is None or moved < best[0]:
                    best = (moved, {sessions[i].key: day for i, day in zip(kept, chosen, strict=True)})
            if best is not None:
                break
        if best is not None:
            placed = best[1]
            return Reshaped(placed, [s.key for s in sessions if s.key not in placed])
    return Reshaped({}, [s.key for s in sessions])


# --- missed sessions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MissedChange:
    """What one missed session changed."""

    missed: Slot
    action: MissedAction
    target: str | None = None
    """The free day's key the session was carried to, or the session that took its volume."""
    day: date | None = None
    """The day of the target."""


@dataclass
class CalendarWeek:
    """The sessions still to come and the free days after today, as the adaptation sees them."""

    upcoming: list[Slot]
    free: list[Slot]
    available: set[str]
    """Weekday names the user trains on."""
    fixed_hard: set[date] = field(default_factory=set)
    """Hard sessions that are not moved (logged, or before today)."""

    def hard_days(self) -> set[date]:
        return self.fixed_hard | {s.day for s in self.upcoming if s.hard}


def adapt_missed(missed: Sequence[Slot], week: CalendarWeek, today: date) -> list[MissedChange]:
    """For each missed session (oldest first): carry it to the first free available day within
    MISSED_CARRY_DAYS that has no hard session either side; else give its volume to the next session
    (one extra set on a few exercises; each session takes one missed session's volume at most, a
    carried one none); a
    session missed too long ago, or with nothing after it, changes nothing."""
    changes: list[MissedChange] = []
    taken: set[str] = set()
    horizon = today + timedelta(days=MISSED_CARRY_DAYS)
    for session in sorted(missed, key=lambda s: s.day):
        if (today - session.day).days > MISSED_CARRY_DAYS:
            changes.append(MissedChange(session, "none"))
            continue
        hard_days = week.hard_days()
        free = next(
            (
                slot
                for slot in sorted(week.free, key=lambda s: s.day)
                if today <= slot.day <= horizon
                and weekday_of(slot.day) in week.available
                and slot.day not in {s.day for s in week.upcoming}
                and not (session.hard and (_next_to_hard(slot.day, hard_days) or slot.day in hard_days))
            ),
            None,
        )
        if free is not None:
            week.free = [s for s in week.free if s.key != free.key]
            week.upcoming.append(Slot(free.key, free.day, session.hard, session.label))
            taken.add(free.key)
            changes.append(MissedChange(session, "carried", free.key, free.day))
            continue
        following = next(
            (s for s in sorted(week.upcoming, key=lambda s: s.day) if s.day >= today and s.key not in taken),
            None,
        )
        if following is None or not session.hard:
            changes.append(MissedChange(session, "none"))
            continue
        taken.add(following.key)
        changes.append(MissedChange(session, "redistributed", following.key, following.day))
    return changes


def with_extra_sets(
    workout: Mapping[str, Any], *, exercises: int = REDISTRIBUTED_EXERCISES
) -> tuple[dict[str, Any], list[str]]:
    """The workout with one more set on its first `exercises` main exercises (sets, reps, holds and
    loads repeated from the last set; at most MAX_EXTRA_SETS), and the names of those exercises."""
    result = dict(workout)
    changed: list[str] = []
    items: list[dict[str, Any]] = []
    for item in sorted(workout.get("exercises") or [], key=lambda e: int(e.get("order") or 0)):
        exercise = dict(item)
        group = (exercise.get("group") or {}).get("type")
        sets = exercise.get("sets")
        if (
            len(changed) < exercises
            and group not in MAIN_WORK_EXCLUDED
            and isinstance(sets, int)
            and 1 <= sets < MAX_EXTRA_SETS
            and exercise.get("exercise_type") in ("reps", "hold")
        ):
            exercise["sets"] = sets + 1
            for name in ("reps", "hold_sec", "load_each"):
                values = exercise.get(name)
                if isinstance(values, list) and values:
                    exercise[name] = [*values, values[-1]]
            changed.append(str(exercise.get("exercise_name")))
        items.append(exercise)
    result["exercises"] = items
    return result, changed
