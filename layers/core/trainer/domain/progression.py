"""Progressive overload in code: the next load and reps for an exercise from its last sessions, or from
a related exercise's when it has none of its own, with the reasoning in words a user reads.

The rules (loads in the user's unit):
- A session is one exercise in one workout (trainer.domain.workout_grouping). Its working sets are the
  sets at its heaviest load, its reps the fewest reps among them: with one load for every set that is
  the whole session, with per-set loads the best (heaviest) set.
- Rep range: 5 reps or fewer are fixed reps (linear progression: same reps, more load); above 5 it is
  the range of REP_RANGES with the largest bottom at or below the reps. An exercise's range is the most
  common range among its recent sessions (the latest on a tie), so one bad day does not move it.
- Double progression from the last successful session: reps at the top of the range on every working
  set -> one load step up, reps back to the bottom; otherwise the same load and one rep more.
- A miss is a session whose reps fall below the bottom of the range. One miss changes nothing (the
  target is the same next step); DELOAD_AFTER_MISSES misses in a row -> 10% off the last load, reps at
  the bottom of the range.
- Without own history: a related exercise (same movement pattern and primary muscle, comparable
  equipment; trainer.domain.movements) gives an Epley e1RM from its last successful session, scaled by
  the equipment factor (barbell -> one dumbbell: x0.4) and SUBSTITUTION_MARGIN, then turned into a load
  for the prescribed reps (Epley inverted), never above the unscaled estimate.
- Rounding (LoadSteps): barbells, machines and cables in plate steps (2.5 kg / 5 lb: a pair of the
  smallest plates, or twice the smallest plate the location lists), dumbbells and kettlebells to the
  weights the location lists, else in their own steps (dumbbells 2 kg / 5 lb, kettlebells 4 kg / 5 lb).
  A load logged in the user's unit stays as it was lifted; one logged in the other unit is rounded.
- The rule's ceiling: `max_load` (one step above the last successful load; the estimate for a related
  exercise) and `reference_e1rm` (what the target itself implies) are what trainer.domain.workout_checks
  measures a prescription against.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

from trainer.domain.catalog import Catalog
from trainer.domain.equipment import normalise_equipment
from trainer.domain.movements import MovementProfile, movement_profile, name_key, transfer_factor
from trainer.domain.one_rep_max import epley_1rm, epley_load
from trainer.domain.recovery import as_utc
from trainer.domain.units import LOAD_INCREMENT, WeightUnit, convert_weight, round_load, weight_unit
from trainer.domain.workout_grouping import UTC_ZONE, local_day, workout_key

REP_RANGES: tuple[tuple[int, int], ...] = ((6, 8), (8, 12), (12, 15), (15, 20), (20, 30))
FIXED_REPS_MAX = 5
"""At or below this many reps the reps stay fixed and only the load progresses."""
DELOAD_AFTER_MISSES = 2
DELOAD_FRACTION = 0.9
SUBSTITUTION_MARGIN = 0.9
"""A related exercise's estimate is trusted to 90%: the first session on a new exercise starts lighter."""
SESSIONS_READ = 6
"""Sessions per exercise the rules look at (the newest)."""
WINDOW_DAYS = 90
"""How far back an exercise's sessions count: older ones say little about today's loads."""
ENTRIES_PER_EXERCISE = 8
"""Logged entries read per exercise (a session can be two entries of one exercise)."""
PLATE_STEP: dict[str, float] = {"kg": 2.5, "lbs": 5.0}
DUMBBELL_STEP: dict[str, float] = {"kg": 2.0, "lbs": 5.0}
STANDARD_BAR: dict[str, float] = {"kg": 20.0, "lbs": 45.0}
"""The bar a location with plates but no listed barbell weight is assumed to have."""
BARBELL_MAX: dict[str, float] = {"kg": 400.0, "lbs": 880.0}
KETTLEBELL_STEP: dict[str, float] = {"kg": 4.0, "lbs": 5.0}
_EPS = 1e-6

Rule = Literal["more_reps", "more_load", "retry", "deload", "related"]

STARTING_LOADS: dict[str, dict[str, float]] = {
    "barbell": {"kg": 20.0, "lbs": 45.0},
    "ez curl bar": {"kg": 10.0, "lbs": 25.0},
    "dumbbell": {"kg": 5.0, "lbs": 10.0},
    "kettlebell": {"kg": 8.0, "lbs": 15.0},
    "cable": {"kg": 10.0, "lbs": 20.0},
    "machine": {"kg": 15.0, "lbs": 30.0},
    "smith machine": {"kg": 15.0, "lbs": 30.0},
    "medicine ball": {"kg": 4.0, "lbs": 10.0},
}
"""Conservative first loads for a beginner on equipment that takes a load."""
LEVEL_FACTOR: dict[str, float] = {"beginner": 1.0, "intermediate": 1.5, "expert": 2.0}


# --- history rows --------------------------------------------------------------------------------


def reps_list(row: Mapping[str, Any]) -> list[int]:
    reps = row.get("reps")
    if reps is None:
        return []
    if isinstance(reps, int | float):
        return [int(reps)] * int(row.get("sets") or 1)
    return [int(r) for r in reps]


@dataclass(frozen=True, slots=True)
class SetDone:
    reps: int
    load: float


def sets_done(row: Mapping[str, Any], unit: str) -> list[SetDone]:
    """(reps, load) per loaded set of a row, loads in `unit` (a shorter load list repeats its last)."""
    reps = reps_list(row)
    loads = row.get("load_each")
    if loads is None and row.get("load") is not None:
        loads = [row["load"]]
    values = [float(v) if v is not None else 0.0 for v in loads or []]
    if not reps or not values:
        return []
    source = row.get("load_unit") or unit
    done = []
    for i, r in enumerate(reps):
        load = values[min(i, len(values) - 1)]
        if r >= 1 and load > 0:
            done.append(SetDone(r, convert_weight(load, source, unit)))
    return done


@dataclass(frozen=True)
class ExerciseSession:
    """One exercise in one workout: its loaded sets, in the user's unit."""

    exercise_name: str
    day: date
    performed_at: datetime
    sets: tuple[SetDone, ...]
    converted: bool = False
    """Logged in another unit: its loads are conversions, not weights the user set up."""

    @property
    def top_load(self) -> float:
        return max(s.load for s in self.sets)

    @property
    def working_sets(self) -> tuple[SetDone, ...]:
        top = self.top_load
        return tuple(s for s in self.sets if s.load >= top - _EPS)

    @property
    def reps(self) -> int:
        """The fewest reps among the working sets: every working set reached at least this."""
        return min(s.reps for s in self.working_sets)

    @property
    def aimed_reps(self) -> int:
        """The reps the session aimed for, which set its rep range: the fewest of its working sets, but
        the most when those are low fixed reps (a 5x5 that ended 5, 4, 3 aimed for fives, not triples)."""
        best = max(s.reps for s in self.working_sets)
        return best if best <= FIXED_REPS_MAX else self.reps

    @property
    def e1rm(self) -> float:
        """The best Epley estimate among the sets."""
        return max(epley_1rm(s.load, s.reps) for s in self.sets)


@dataclass
class ExerciseHistory:
    """The recent sessions of one exercise (oldest first), with what relates it to other exercises."""

    exercise_name: str
    profile: MovementProfile
    sessions: list[ExerciseSession] = field(default_factory=list)


def exercise_histories(
    rows: Iterable[Mapping[str, Any]],
    unit: str,
    tz: tzinfo = UTC_ZONE,
    *,
    catalog: Catalog | None = None,
) -> dict[str, ExerciseHistory]:
    """Loaded rep sessions per exercise (keyed by trainer.domain.movements.name_key), rows of one
    exercise in one workout merged into one session."""
    u = weight_unit(unit)
    grouped: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        if row.get("performed_at") is None or row.get("exercise_type", "reps") != "reps":
            continue
        if not sets_done(row, u):
            continue
        key = name_key(str(row.get("exercise_name") or ""))
        if key:
            grouped.setdefault((key, workout_key(row, tz)), []).append(row)
    histories: dict[str, ExerciseHistory] = {}
    for (key, _), group in grouped.items():
        group = sorted(group, key=lambda r: as_utc(r["performed_at"]))
        first, last = group[0], group[-1]
        when = as_utc(first["performed_at"])
        session = ExerciseSession(
            exercise_name=str(last["exercise_name"]).strip(),
            day=local_day(when, tz),
            performed_at=when,
            sets=tuple(s for r in group for s in sets_done(r, u)),
            converted=any(weight_unit(str(r.get("load_unit") or u)) != u for r in group),
        )
        history = histories.get(key)
        if history is None:
            profile = movement_profile(
                session.exercise_name,
                muscles=last.get("muscles") or last.get("muscles_utilized") or None,
                catalog=catalog,
            )
            history = histories[key] = ExerciseHistory(session.exercise_name, profile)
        history.sessions.append(session)
    for history in histories.values():
        history.sessions.sort(key=lambda s: s.performed_at)
        history.exercise_name = history.sessions[-1].exercise_name
    return histories


# --- rounding to what the user can load ----------------------------------------------------------


def _weights(items: Iterable[Mapping[str, Any] | str], kind: str, unit: str) -> tuple[float, ...]:
    found: set[float] = set()
    for item in items:
        if not isinstance(item, Mapping):
            continue
        name = str(item.get("name") or "")
        is_kind = normalise_equipment(name) == kind if kind != "plate" else "plate" in name.lower()
        if not is_kind:
            continue
        source = str(item.get("unit") or unit)
        for value in item.get("weights") or []:
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue
            if number > 0:
                found.add(round(convert_weight(number, source, unit), 2))
    return tuple(sorted(found))


@dataclass(frozen=True)
class LoadSteps:
    """What loads a user can set up, per implement, in their unit."""

    unit: WeightUnit
    plate_step: float
    dumbbell_step: float
    kettlebell_step: float
    dumbbells: tuple[float, ...] = ()
    kettlebells: tuple[float, ...] = ()
    plates: tuple[float, ...] = ()
    """The plate weights the location lists (each loaded in pairs, one per side)."""
    bar: float | None = None
    """The barbell's own weight when the location lists plates (its listed weight, else a standard bar)."""

    @classmethod
    def for_unit(cls, unit: str, location_equipment: Iterable[Mapping[str, Any] | str] = ()) -> LoadSteps:
        """Default steps for the unit, refined by the weights the current location lists."""
        u = weight_unit(unit)
        items = list(location_equipment)
        plates = _weights(items, "plate", u)
        bars = _weights(items, "barbell", u)
        return cls(
            unit=u,
            plate_step=2 * plates[0] if plates else PLATE_STEP[u],
            dumbbell_step=DUMBBELL_STEP[u],
            kettlebell_step=KETTLEBELL_STEP[u],
            dumbbells=_weights(items, "dumbbell", u),
            kettlebells=_weights(items, "kettlebell", u),
            plates=plates,
            bar=(bars[-1] if bars else STANDARD_BAR[u]) if plates else None,
        )

    @cached_property
    def barbell_loads(self) -> tuple[float, ...]:
        """Every total a barbell can carry here: the bar plus pairs of the listed plates (any number
        of each), up to BARBELL_MAX; () when the location lists no plates."""
        return barbell_totals(self.bar, self.plates, BARBELL_MAX[self.unit]) if self.bar is not None else ()

    def _available(self, equipment_class: str | None) -> tuple[float, ...]:
        """The weights listed for a handheld implement (a goblet squat takes a dumbbell or a kettlebell,
        so either list serves when the location lists only one)."""
        if equipment_class == "dumbbell":
            return self.dumbbells or self.kettlebells
        if equipment_class == "kettlebell":
            return self.kettlebells or self.dumbbells
        if equipment_class == "barbell":
            return self.barbell_loads
        return ()

    def listed(self, equipment_class: str | None) -> tuple[float, ...]:
        """The loads the location's listed weights allow for an implement (() when it lists none)."""
        return self._available(equipment_class)

    def step(self, equipment_class: str | None) -> float:
        return {"dumbbell": self.dumbbell_step, "kettlebell": self.kettlebell_step}.get(
            equipment_class or "", self.plate_step
        )

    def nearest(self, load: float, equipment_class: str | None, *, ceiling: float | None = None) -> float:
        """The settable load nearest `load`, not above `ceiling` when one is given (the lightest
        settable load if even that is above it)."""
        available = self._available(equipment_class)
        if available:
            allowed = [w for w in available if ceiling is None or w <= ceiling + _EPS] or [available[0]]
            return min(allowed, key=lambda w: (abs(w - load), w))
        step = self.step(equipment_class)
        value = max(step, _round_to(load, step))
        while ceiling is not None and value > ceiling + _EPS and value > step:
            value -= step
        return round(value, 2)

    def down(self, load: float, equipment_class: str | None) -> float:
        """The heaviest settable load at or below `load` (the lightest one if none is)."""
        return self.nearest(load, equipment_class, ceiling=load)

    def up(self, load: float, equipment_class: str | None) -> float | None:
        """One step above `load`: the next heavier weight listed (None when there is none)."""
        available = self._available(equipment_class)
        if available:
            return next((w for w in available if w > load + _EPS), None)
        step = self.step(equipment_class)
        return round(_round_to(load, step) + step, 2)


def barbell_totals(bar: float, plates: Iterable[float], limit: float) -> tuple[float, ...]:
    """The bar plus any sum of plate pairs (each plate usable any number of times), up to `limit`."""
    pairs = sorted({round(2 * p * 100) for p in plates if p > 0} - {0})  # hundredths of the unit
    if not pairs or limit < bar:
        return (round(bar, 2),)
    grain = math.gcd(*pairs)
    cells = int((limit - bar) * 100) // grain
    reachable = [False] * (cells + 1)
    reachable[0] = True
    for pair in (p // grain for p in pairs):
        for total in range(pair, cells + 1):
            reachable[total] = reachable[total] or reachable[total - pair]
    return tuple(round(bar + total * grain / 100, 2) for total, ok in enumerate(reachable) if ok)


def _round_to(value: float, step: float) -> float:
    return round(math.floor(value / step + 0.5 + 1e-9) * step, 4) if value > 0 else 0.0


# --- the target ---------------------------------------------------------------------------------


class ProgressionTarget(BaseModel):
    """The next load and reps for one exercise, and why."""

    exercise_name: str
    load: float
    unit: WeightUnit
    reps: int
    sets: int
    rep_low: int
    rep_high: int
    rule: Rule
    based_on: str
    """The exercise the numbers come from: this one, or a related one for `related`."""
    last_load: float
    last_reps: int
    last_date: date
    max_load: float
    """The heaviest load the rule accepts for this exercise (a step above the last successful load)."""
    reference_e1rm: float
    """The Epley e1RM the target implies (the scaled estimate for `related`): a prescription implying
    much more is a jump."""
    reasoning: str
    """Why, in words a user reads."""


def rep_range(reps: int) -> tuple[int, int]:
    """(bottom, top): fixed reps up to 5, else the range of REP_RANGES with the largest bottom <= reps."""
    if reps <= FIXED_REPS_MAX:
        return reps, reps
    fitting = [r for r in REP_RANGES if r[0] <= reps]
    return fitting[-1] if fitting else REP_RANGES[0]


def exercise_range(sessions: Sequence[ExerciseSession]) -> tuple[int, int]:
    """The most common range among the sessions (the latest one's on a tie)."""
    ranges = [rep_range(s.aimed_reps) for s in sessions]
    counts = Counter(ranges)
    best = max(counts.values())
    return next(r for r in reversed(ranges) if counts[r] == best)


def _load(value: float, unit: str) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") + f" {unit}"


def _day(day: date) -> str:
    return f"{day.day} {day:%b}"


def _as_set_up(session: ExerciseSession, steps: LoadSteps, equipment_class: str | None) -> float:
    """The session's top load as the user set it up: as logged, or rounded when it was converted."""
    return steps.nearest(session.top_load, equipment_class) if session.converted else session.top_load


def _same(load: float, session: ExerciseSession, unit: str) -> str:
    """'same weight', or the load when rounding to what can be set up changed it."""
    return "same weight" if abs(load - session.top_load) < 0.005 else _load(load, unit)


def _range_text(low: int, high: int) -> str:
    return f"{low} reps" if low == high else f"{low}-{high} reps"


def next_target(
    history: ExerciseHistory, steps: LoadSteps, rep_range: tuple[int, int] | None = None
) -> ProgressionTarget:
    """Double progression (or a deload) from an exercise's own recent sessions, in the range they
    aimed at or in `rep_range` when a plan prescribes it (then one short session is a miss, not a
    new range)."""
    sessions = history.sessions[-SESSIONS_READ:]
    cls, unit = history.profile.equipment_class, steps.unit
    low, high = rep_range or exercise_range(sessions)
    last = sessions[-1]
    misses = 0
    for session in reversed(sessions):
        if session.reps >= low:
            break
        misses += 1
    last_text = f"{_load(last.top_load, unit)} x {last.reps} on {_day(last.day)}"
    base = next((s for s in reversed(sessions) if s.reps >= low), None)
    rule: Rule
    if misses >= DELOAD_AFTER_MISSES or base is None:
        source, reps = last, low
        if misses >= DELOAD_AFTER_MISSES:
            rule, load = "deload", steps.down(last.top_load * DELOAD_FRACTION, cls)
            why = (
                f"The last {misses} sessions stayed below {low} reps (last {last_text}): take about 10% "
                f"off, {_load(load, unit)} for {low} reps, and build back up."
            )
        else:
            rule, load = "retry", _as_set_up(last, steps, cls)
            same = _same(load, last, unit)
            why = f"Last time ({last_text}) was short of {low} reps: {same}, aim for {low}."
        ceiling = max(load, _as_set_up(last, steps, cls))
    else:
        source, base_load = base, _as_set_up(base, steps, cls)
        heavier = steps.up(base_load, cls)
        ceiling = heavier if heavier is not None else base_load
        base_text = f"{_load(base.top_load, unit)} x {base.reps} on {_day(base.day)}"
        if base.reps >= high and heavier is not None:
            rule, load, reps = "more_load", heavier, low
            reached = (
                f"every set at {high} reps" if low == high else f"the top of your {_range_text(low, high)}"
            )
            why = f"{base_text} reached {reached}: go up to {_load(load, unit)} for {low} reps."
        elif base.reps >= high:
            rule, load, reps = "more_reps", base_load, base.reps + 1
            why = f"{base_text} is the heaviest weight here: add a rep ({reps}) instead."
        else:
            rule, load, reps = "more_reps", base_load, min(base.reps + 1, high)
            why = (
                f"{base_text}, inside your {_range_text(low, high)}: {_same(load, base, unit)}, {reps} reps; "
                f"add weight once you reach {high}."
            )
        if misses:
            rule = "retry"
            why = f"Last time ({last_text}) was short of {low} reps; one off day changes nothing. {why}"
    return ProgressionTarget(
        exercise_name=history.exercise_name,
        load=load,
        unit=unit,
        reps=reps,
        sets=len(source.working_sets),
        rep_low=low,
        rep_high=high,
        rule=rule,
        based_on=history.exercise_name,
        last_load=round(source.top_load, 2),
        last_reps=source.reps,
        last_date=source.day,
        max_load=ceiling,
        reference_e1rm=round(epley_1rm(load, reps), 2),
        reasoning=why[0].upper() + why[1:],
    )


def related_target(
    source: ExerciseHistory,
    target: MovementProfile,
    steps: LoadSteps,
    reps: int | None = None,
) -> ProgressionTarget | None:
    """A first target for `target` from a related exercise's last successful session (Epley e1RM x
    equipment factor x SUBSTITUTION_MARGIN, for `reps` reps: the prescription's, else the bottom of the
    source's range). None when their equipment is not comparable."""
    factor = transfer_factor(source.profile.equipment_class, target.equipment_class)
    if factor is None or not source.sessions:
        return None
    sessions = source.sessions[-SESSIONS_READ:]
    low, _ = exercise_range(sessions)
    base = next((s for s in reversed(sessions) if s.reps >= low), sessions[-1])
    estimate = base.e1rm * factor
    want = max(1, reps or low)
    cls = target.equipment_class
    cap = epley_load(estimate, want)
    load = steps.nearest(epley_load(estimate * SUBSTITUTION_MARGIN, want), cls, ceiling=cap)
    unit = steps.unit
    per = " per hand" if cls in ("dumbbell", "kettlebell") and factor != 1.0 else ""
    reasoning = (
        f"No history for {target.name} yet. From your {source.exercise_name} "
        f"({_load(steps.nearest(base.top_load, source.profile.equipment_class), unit)} x {base.reps} on "
        f"{_day(base.day)}), start at about {_load(load, unit)}{per} for {want} reps."
    )
    return ProgressionTarget(
        exercise_name=target.name,
        load=load,
        unit=unit,
        reps=want,
        sets=len(base.working_sets),
        rep_low=rep_range(want)[0],
        rep_high=rep_range(want)[1],
        rule="related",
        based_on=source.exercise_name,
        last_load=round(base.top_load, 2),
        last_reps=base.reps,
        last_date=base.day,
        max_load=round(max(load, cap), 2),
        reference_e1rm=round(estimate, 2),
        reasoning=reasoning,
    )


def progression_target(
    exercise_name: str,
    histories: Mapping[str, ExerciseHistory],
    steps: LoadSteps,
    *,
    equipment: Iterable[str] | None = None,
    muscles: Iterable[Any] | None = None,
    reps: int | None = None,
    catalog: Catalog | None = None,
) -> ProgressionTarget | None:
    """The next target for an exercise: from its own history, else from the most recently trained
    related exercise, else None. `reps` (the prescription) sets the reps of a related target."""
    own = histories.get(name_key(exercise_name))
    if own is not None and own.sessions:
        return next_target(own, steps)
    profile = movement_profile(exercise_name, equipment=equipment, muscles=muscles, catalog=catalog)
    related = [h for h in histories.values() if h.sessions and profile.related_to(h.profile)]
    related.sort(key=lambda h: (h.sessions[-1].performed_at, h.sessions[-1].e1rm), reverse=True)
    for candidate in related:
        target = related_target(candidate, profile, steps, reps)
        if target is not None:
            return target
    return None


def progression_targets(
    histories: Mapping[str, ExerciseHistory], steps: LoadSteps, limit: int | None = None
) -> list[ProgressionTarget]:
    """The next target of every exercise with history, most recently trained first."""
    ordered = sorted(
        (h for h in histories.values() if h.sessions),
        key=lambda h: (h.sessions[-1].performed_at, h.exercise_name),
        reverse=True,
    )
    return [next_target(h, steps) for h in ordered[:limit]]


def starting_load(equipment: Iterable[str], level: str, unit: str) -> float | None:
    """Conservative first load for a new exercise, or None when it takes no external load."""
    u = weight_unit(unit)
    loads = [STARTING_LOADS[e][u] for e in equipment if e in STARTING_LOADS]
    if not loads:
        return None
    base = max(loads) * LEVEL_FACTOR.get(level, 1.0)
    return max(LOAD_INCREMENT[u], round_load(base, u))
