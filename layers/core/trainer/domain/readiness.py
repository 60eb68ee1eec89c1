"""Readiness: what a check-in (sleep, energy, stress, soreness, last session's effort) says about
training today, and today's workout adjusted to it in code.

The assessment scores each sign of poor recovery; the score picks one of four days:
  ready    - train as planned;
  reduce   - fewer sets (about a third off) and lighter loads (about 10% off);
  recover  - a recovery session instead: easy cardio and mobility, no loaded work;
  rest     - rest is the better choice (the adjustment is still the recovery session, for a user
             who wants to move anyway).
Sore muscles' exercises are swapped for ones that spare them (or dropped when nothing fits).
An adjusted workout never has more volume (working sets, tonnage, minutes) than the unadjusted one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from trainer.domain.catalog import Catalog, CatalogEntry
from trainer.domain.composer.compose import workout_name
from trainer.domain.equipment import missing_equipment
from trainer.domain.muscles import canonical_muscle, region_of
from trainer.domain.workout import Exercise, Workout
from trainer.domain.workout_checks import muscles_in_text

Level = Literal["ready", "reduce", "recover", "rest"]

SORE_AT = 3
"""Soreness on a 0-5 scale (0 none, 5 very sore) from which a muscle counts as sore."""
SORE_SHARE = 0.2
TITLE_MINUTES = re.compile(r"\s*\(\d+ min\)$")
"""An exercise spares a sore muscle when that muscle takes less than this share of it."""
REDUCED_SETS = 2 / 3
REDUCED_LOAD = 0.9
REDUCED_MINUTES = 0.75


@dataclass(frozen=True)
class CheckIn:
    """One readiness check-in: every field optional; scales are 1 (worst) - 5 (best) for sleep
    quality and energy, 1 (calm) - 5 (very stressed) for stress, 0-5 soreness per muscle."""

    sleep_hours: float | None = None
    sleep_quality: int | None = None
    energy: int | None = None
    stress: int | None = None
    soreness: Mapping[str, int] = field(default_factory=dict)
    last_session_rpe: float | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> CheckIn:
        def number(key: str) -> float | None:
            value = row.get(key)
            return None if value is None else float(value)

        def whole(key: str) -> int | None:
            value = row.get(key)
            return None if value is None else int(value)

        return cls(
            sleep_hours=number("sleep_hours"),
            sleep_quality=whole("sleep_quality"),
            energy=whole("energy"),
            stress=whole("stress"),
            soreness={str(k): int(v) for k, v in (row.get("soreness") or {}).items()},
            last_session_rpe=number("last_session_rpe"),
        )

    @property
    def sore_muscles(self) -> list[str]:
        """Canonical muscles at SORE_AT or above, sorest first."""
        found: dict[str, int] = {}
        for name, level in self.soreness.items():
            muscle = canonical_muscle(name)
            if muscle is not None and level >= SORE_AT:
                found[muscle] = max(level, found.get(muscle, 0))
        return sorted(found, key=lambda m: (-found[m], m))


@dataclass(frozen=True)
class Assessment:
    level: Level
    reasons: tuple[str, ...]
    """The signs behind the level, in words ('5.0 hours of sleep', 'energy 1/5')."""
    sore_muscles: tuple[str, ...] = ()

    @property
    def advice(self) -> str:
        """A concrete, safe answer to 'should I train today?'."""
        why = f" ({', '.join(self.reasons)})" if self.reasons else ""
        sore = (
            f" I'd keep {', '.join(self.sore_muscles)} out of it - still sore." if self.sore_muscles else ""
        )
        match self.level:
            case "ready":
                return f"You're good to train as planned{why}.{sore}"
            case "reduce":
                return (
                    f"Train, but lighter{why}: about a third fewer sets and roughly 10% less weight, "
                    f"and stop each set a couple of reps short of failure.{sore}"
                )
            case "recover":
                return (
                    f"Make today a recovery day{why}: 20-30 minutes of easy cardio and mobility, "
                    f"nothing heavy.{sore}"
                )
        return (
            f"I'd rest today{why}. If you want to move, keep it to an easy walk and some stretching; "
            f"train properly once you've slept. If you feel unwell or dizzy, skip it entirely.{sore}"
        )


def assess(check_in: CheckIn) -> Assessment:
    """The day a check-in points to: each poor sign scores 1 or 2; 0-1 ready, 2 reduce, 3-5 recover,
    6+ rest."""
    score = 0
    reasons: list[str] = []

    def sign(points: int, reason: str) -> None:
        nonlocal score
        if points:
            score += points
            reasons.append(reason)

    c = check_in
    if c.sleep_hours is not None:
        sign(
            2 if c.sleep_hours < 5 else 1 if c.sleep_hours < 6.5 else 0,
            f"{_num(c.sleep_hours)} hours of sleep",
        )
    if c.sleep_quality is not None:
        sign(
            2 if c.sleep_quality <= 1 else 1 if c.sleep_quality == 2 else 0,
            f"sleep quality {c.sleep_quality}/5",
        )
    if c.energy is not None:
        sign(2 if c.energy <= 1 else 1 if c.energy == 2 else 0, f"energy {c.energy}/5")
    if c.stress is not None:
        sign(2 if c.stress >= 5 else 1 if c.stress == 4 else 0, f"stress {c.stress}/5")
    if c.last_session_rpe is not None:
        sign(1 if c.last_session_rpe >= 9.5 else 0, f"last session at RPE {_num(c.last_session_rpe)}")
    sore = tuple(c.sore_muscles)
    if len(sore) >= 3:
        sign(1, f"sore {', '.join(sore)}")
    level: Level = "ready" if score <= 1 else "reduce" if score == 2 else "recover" if score <= 5 else "rest"
    return Assessment(level=level, reasons=tuple(reasons), sore_muscles=sore)


# --- volume -----------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Volume:
    sets: int
    tonnage: float
    minutes: float

    def at_most(self, other: Volume) -> bool:
        eps = 1e-6
        return (
            self.sets <= other.sets
            and self.tonnage <= other.tonnage + eps
            and self.minutes <= other.minutes + eps
        )


SET_MINUTES = 1.0
"""The working time a set of reps counts for in a workout's minutes."""


def workout_volume(workout: Workout) -> Volume:
    """Working sets (rounds for intervals, 1 per timed piece), load x reps summed, and working minutes
    (timed work, holds, and SET_MINUTES per set of reps)."""
    sets = 0
    tonnage = 0.0
    minutes = 0.0
    for ex in workout.exercises:
        if ex.exercise_type == "intervals":
            sets += ex.rounds or 0
            minutes += (ex.rounds or 0) * ((ex.work_sec or 0) / 60)
        elif ex.exercise_type == "duration":
            sets += 1
            minutes += ex.duration_min or 0
        else:
            sets += ex.sets or 0
            if ex.exercise_type == "reps":
                minutes += (ex.sets or 0) * SET_MINUTES
        if ex.reps and ex.load_each:
            tonnage += sum(r * load for r, load in zip(ex.reps, ex.load_each, strict=False))
        if ex.hold_sec:
            minutes += sum(ex.hold_sec) / 60
    return Volume(sets=sets, tonnage=round(tonnage, 4), minutes=round(minutes, 4))


# --- the adjustment -----------------------------------------------------------------------------


@dataclass
class Adjusted:
    workout: Workout
    changes: list[str]
    """What changed and why, in words."""


def adjust_workout(
    workout: Workout,
    assessment: Assessment,
    *,
    catalog: Catalog,
    available: Iterable[str] | None,
    lighter: Any = None,
) -> Adjusted:
    """Today's workout fitted to the assessment. `lighter(load, equipment_class_of_exercise)` gives a
    settable load at or below a load (default: the load itself); `available` is the location's
    equipment (None: anything)."""
    have = set(available) if available is not None else None
    if assessment.level in ("recover", "rest"):
        return _recovery_session(workout, assessment, catalog, have)
    changes: list[str] = []
    exercises = list(workout.exercises)
    if assessment.sore_muscles:
        exercises, swapped = _spare_sore(exercises, assessment.sore_muscles, catalog, have, lighter)
        changes.extend(swapped)
    if assessment.level == "reduce":
        exercises = [_reduced(ex, lighter) for ex in exercises]
        changes.append(f"fewer sets and about 10% lighter loads because of {', '.join(assessment.reasons)}")
    exercises = [ex.model_copy(update={"order": i}) for i, ex in enumerate(exercises, 1)]
    title = _retitled(workout.title, exercises, assessment.sore_muscles, catalog) if exercises else None
    return Adjusted(
        workout.model_copy(update={"exercises": exercises, "title": title or workout.title}), changes
    )


def _retitled(
    title: str | None, exercises: list[Exercise], sore: tuple[str, ...], catalog: Catalog
) -> str | None:
    """A title naming a sore muscle, renamed for what the workout trains once they are spared ('Shoulder
    Workout (45 min)' -> 'Triceps & Biceps Workout (45 min)'); None: the title still holds."""
    if not title or not sore or not muscles_in_text(title) & set(sore):
        return None
    entries = [catalog.get(ex.exercise_name) for ex in exercises]
    if any(entry is None for entry in entries):
        return None
    named = workout_name([(entry, ex) for entry, ex in zip(entries, exercises, strict=True) if entry])
    minutes = TITLE_MINUTES.search(title)
    return named + (minutes.group(0) if minutes else "")


def _reduced(ex: Exercise, lighter: Any) -> Exercise:
    update: dict[str, Any] = {}
    if ex.sets is not None and ex.exercise_type in ("reps", "hold"):
        sets = max(1, int(ex.sets * REDUCED_SETS + 0.5)) if ex.sets > 1 else 1
        sets = min(sets, ex.sets)
        update["sets"] = sets
        for name in ("reps", "hold_sec", "load_each"):
            values = getattr(ex, name)
            if values is not None:
                update[name] = list(values[:sets])
    loads = update.get("load_each", ex.load_each)
    if loads:
        update["load_each"] = [_lighter(v * REDUCED_LOAD, v, ex, lighter) for v in loads]
    if ex.exercise_type == "intervals" and ex.rounds:
        update["rounds"] = max(1, min(ex.rounds, int(ex.rounds * REDUCED_SETS + 0.5)))
    if ex.exercise_type == "duration" and ex.duration_min:
        update["duration_min"] = round(max(1.0, ex.duration_min * REDUCED_MINUTES), 1)
        if ex.distance is not None:
            update["distance"] = round(ex.distance * REDUCED_MINUTES, 2)
    return Exercise.model_validate({**ex.model_dump(), **update})


def _lighter(target: float, original: float, ex: Exercise, lighter: Any) -> float:
    value = lighter(target, ex) if lighter is not None else target
    return round(min(value, original), 2)


def _sore_load(ex: Exercise, sore: Iterable[str]) -> float:
    shares: dict[str, float] = {m.muscle: m.share for m in ex.muscles_utilized}
    return max((shares.get(m, 0.0) for m in sore), default=0.0)


def _spare_sore(
    exercises: list[Exercise], sore: tuple[str, ...], catalog: Catalog, have: set[str] | None, lighter: Any
) -> tuple[list[Exercise], list[str]]:
    kept: list[Exercise] = []
    changes: list[str] = []
    names = {e.exercise_name.lower() for e in exercises}
    for ex in exercises:
        if _sore_load(ex, sore) < SORE_SHARE:
            kept.append(ex)
            continue
        entry = _replacement(ex, sore, catalog, have, names)
        if entry is None:
            changes.append(f"dropped {ex.exercise_name} to rest your sore {', '.join(sore)}")
            continue
        swapped = _swapped(ex, entry, lighter)
        if swapped is None:
            changes.append(f"dropped {ex.exercise_name} to rest your sore {', '.join(sore)}")
            continue
        names.add(entry.name.lower())
        kept.append(swapped)
        changes.append(f"swapped {ex.exercise_name} for {entry.name} to spare your sore {', '.join(sore)}")
    if not kept:
        return exercises[:0], changes
    return kept, changes


def _replacement(
    ex: Exercise, sore: tuple[str, ...], catalog: Catalog, have: set[str] | None, taken: set[str]
) -> CatalogEntry | None:
    """The catalog exercise closest to the original that spares the sore muscles, fits the equipment,
    and can carry the same prescription without more load (a bodyweight one when the original had no
    load): the most of the original's other muscles, then the same part of the body, then the same
    kind of lift (compound or isolation). A shoulder press becomes a triceps press, not a sit-up."""
    original = catalog.get(ex.exercise_name)
    category = original.category if original else ("cardio" if ex.exercise_type == "duration" else "strength")
    loaded = bool(ex.load_each)
    other = {m.muscle: m.share for m in ex.muscles_utilized if m.muscle not in sore}
    said = ex.muscles_utilized[0].muscle if ex.muscles_utilized else ""
    region = region_of(original.primary_muscle if original is not None else said)

    def closeness(entry: CatalogEntry) -> tuple[float, bool, bool, str]:
        shared = sum(min(share, entry.share_of(m)) for m, share in other.items())
        same_kind = original is not None and entry.mechanic == original.mechanic
        return -shared, region_of(entry.primary_muscle) != region, not same_kind, entry.name

    fitting = [
        entry
        for entry in catalog.entries
        if entry.name.lower() not in taken
        and entry.category == category
        and not (have is not None and missing_equipment(entry.equipment, have))
        and not any(entry.share_of(m) >= SORE_SHARE for m in sore)
        and not (not loaded and entry.equipment)
        and entry.level != "expert"
    ]
    return min(fitting, key=closeness, default=None)


def _swapped(ex: Exercise, entry: CatalogEntry, lighter: Any) -> Exercise | None:
    """`entry` in place of `ex` with its sets and reps; its loads the ones its own implement allows at
    or below the original's (a cable load does not carry over to a dumbbell the location lacks); None
    when even its lightest load here is heavier (the swap would add load: the exercise is dropped)."""
    data = ex.model_dump()
    data.update(
        id=None,
        exercise_name=entry.name,
        muscles_utilized=[{"muscle": m, "share": s} for m, s in entry.muscles],
        equipment=list(entry.equipment),
        reasoning="Swapped in to spare a sore muscle.",
        group=None,
    )
    if not entry.equipment:
        data.update(load_each=None, load_unit=None)
    swapped = Exercise.model_validate(data)
    if swapped.load_each and lighter is not None:
        loads = [round(lighter(v, swapped), 2) for v in swapped.load_each]
        if any(new > old + 0.001 for new, old in zip(loads, swapped.load_each, strict=True)):
            return None  # its lightest load here is heavier than the one it would replace
        swapped = swapped.model_copy(update={"load_each": loads})
    return swapped


RECOVERY_MINUTES = 20.0


def _recovery_session(
    workout: Workout, assessment: Assessment, catalog: Catalog, have: set[str] | None
) -> Adjusted:
    """Easy cardio and a few stretches, within the unadjusted workout's volume."""
    before = workout_volume(workout)
    sets_left = before.sets
    minutes_left = before.minutes
    exercises: list[dict[str, Any]] = []
    cardio = _first(catalog, "cardio", have, assessment.sore_muscles)
    if cardio is not None and sets_left >= 1 and minutes_left >= 1:
        minutes = math.floor(min(RECOVERY_MINUTES, minutes_left) * 10) / 10
        exercises.append(_recovery_item(cardio, "duration", duration_min=minutes))
        sets_left -= 1
        minutes_left -= minutes
    taken = {cardio.name} if cardio else set()
    while sets_left >= 1 and minutes_left >= 0.25 and len(exercises) < 4:
        stretch = _first(catalog, "stretching", have, assessment.sore_muscles, taken)
        if stretch is None:
            break
        hold = int(min(30, minutes_left * 60))
        exercises.append(_recovery_item(stretch, "hold", sets=1, hold_sec=[hold], rest_sec=15))
        taken.add(stretch.name)
        sets_left -= 1
        minutes_left -= hold / 60
    if not exercises:
        return Adjusted(workout, [])
    items = [Exercise.model_validate({**e, "order": i}) for i, e in enumerate(exercises, 1)]
    why = ", ".join(assessment.reasons) or "how you're feeling"
    return Adjusted(
        workout.model_copy(update={"exercises": items, "title": "Recovery session"}),
        [f"made today a recovery session (easy cardio and stretching, nothing heavy) because of {why}"],
    )


def _first(
    catalog: Catalog,
    category: str,
    have: set[str] | None,
    sore: tuple[str, ...],
    taken: set[str] | frozenset[str] = frozenset(),
) -> CatalogEntry | None:
    for entry in catalog.entries:
        if entry.category != category or entry.name in taken or entry.level != "beginner":
            continue
        if have is not None and missing_equipment(entry.equipment, have):
            continue
        if category == "cardio" and any(entry.share_of(m) >= SORE_SHARE for m in sore):
            continue
        return entry
    return None


def _recovery_item(entry: CatalogEntry, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "exercise_name": entry.name,
        "exercise_type": kind,
        "muscles_utilized": [{"muscle": m, "share": s} for m, s in entry.muscles],
        "goals_addressed": [{"goal": "Recovery", "share": 1.0}],
        "equipment": list(entry.equipment),
        "reasoning": "Easy recovery work for a low-readiness day.",
        **fields,
    }


def _num(value: float) -> str:
    return f"{value:g}"
