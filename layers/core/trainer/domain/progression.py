"""Progressive overload in code, the one model every path uses (the composer, the progression-targets
source, the plan's weeks and phase starts, the offline coach, the workout checks): the next load and
reps for an exercise in the range its caller prescribes, from its last sessions or a related exercise's,
with the reasoning in words a user reads (docs/training-model.md#progression).

The rules (loads in the user's unit):
- A session is one exercise in one workout (trainer.domain.workout_grouping). Its working sets are the
  sets at its heaviest load, its reps the fewest reps among them.
- The rep range is the caller's: the plan slot's, the goal's prescription for a composed workout
  (trainer.domain.prescriptions), else the range the exercise is trained in (`established_range`: the
  most reps its recent sets reached, which a miss never lowers). A short session is a miss, never a
  new, lower range.
- Double progression from the last session that reached the bottom of the range: below the top, the
  same load and one rep more; at the top (every working set), more load and reps back to the bottom.
  The load step follows the ACSM's 2-10% (position stand 2009): 2.5% at the top of the range, 2.5% more
  for each rep beyond it, at most 10%, as the nearest load the location can set up 2-10% heavier (else
  the next one, when its reps at the range's bottom ask no more than 10% above the last session).
- Reps before load: when the next settable load would ask more than 10% above what the last session
  showed (its effort-aware estimate, trainer.domain.one_rep_max) even at the range's bottom reps - a
  6 kg dumbbell whose next one is 8 kg - the load stays and the reps go on past the top until it
  fits (at most MAX_REPS).
- Misses: one session below the range's bottom holds the target (never above the load it was missed
  at); DELOAD_AFTER_MISSES in a row take 10% off the last load, reps at the bottom.
- A range the exercise's sessions never aimed at (a new phase's range, a goal's other range): its
  first load is the last session's estimate at the prescription's target RPE, from the RTS chart, never
  above one step over the last load.
- Without history of its own: a related exercise (same movement pattern and primary muscle,
  comparable equipment; trainer.domain.movements) gives its last session's estimate, scaled by the
  equipment factor (barbell -> one dumbbell: x0.4), and the first load is that estimate at RPE 7
  (3 reps in reserve) for the prescribed reps, never above the estimate at failure.
- `max_load` (the heaviest load the rule accepts) and `reference_e1rm` (what the target implies on the
  chart) are what trainer.domain.workout_checks measures a prescription against.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from typing import Any, Literal

from pydantic import BaseModel

from trainer.domain.catalog import Catalog
from trainer.domain.loading import LoadSteps, nearest_of
from trainer.domain.movements import (
    MovementProfile,
    movement_profile,
    name_key,
    transfer_factor,
)
from trainer.domain.one_rep_max import estimate_1rm, implied_1rm, load_at
from trainer.domain.prescriptions import NEW_EXERCISE_RPE, RepRange, range_topped_by
from trainer.domain.recovery import as_utc
from trainer.domain.units import WeightUnit, convert_weight, weight_unit
from trainer.domain.workout_grouping import UTC_ZONE, local_day, workout_key

DELOAD_AFTER_MISSES = 2
DELOAD_FRACTION = 0.9
LOAD_STEP = 0.025
"""The load step at the top of the range, and what each rep beyond it adds."""
MIN_LOAD_STEP = 0.02
"""The smallest step (microplates allowing): the ACSM's 2%."""
MAX_LOAD_STEP = 0.10
"""The largest step: the ACSM's 2-10% (and what reps before load keep a heavier load within)."""
MAX_REPS = 30
"""Reps before load go no further: at 30 reps the next weight comes anyway."""
SESSIONS_READ = 6
"""Sessions per exercise the rules look at (the newest)."""
WINDOW_DAYS = 90
"""How far back an exercise's sessions count: older ones say little about today's loads."""
ENTRIES_PER_EXERCISE = 8
"""Logged entries read per exercise (a session can be two entries of one exercise)."""
_EPS = 1e-6

Rule = Literal["more_reps", "more_load", "retry", "deload", "new_range", "related"]

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


def rpe_list(row: Mapping[str, Any], count: int) -> list[float | None]:
    """The effort of each set: `rpe_each`, else the row's one `rpe` for every set, else None."""
    each = row.get("rpe_each")
    if each:
        values = [float(v) if v is not None else None for v in each]
        return [values[min(i, len(values) - 1)] for i in range(count)]
    rpe = row.get("rpe")
    return [float(rpe) if rpe is not None else None] * count


@dataclass(frozen=True, slots=True)
class SetDone:
    reps: int
    load: float
    rpe: float | None = None


def sets_done(row: Mapping[str, Any], unit: str) -> list[SetDone]:
    """(reps, load, effort) per loaded set of a row, loads in `unit` (a shorter load list repeats its
    last)."""
    reps = reps_list(row)
    loads = row.get("load_each")
    if loads is None and row.get("load") is not None:
        loads = [row["load"]]
    values = [float(v) if v is not None else 0.0 for v in loads or []]
    if not reps or not values:
        return []
    source = row.get("load_unit") or unit
    efforts = rpe_list(row, len(reps))
    done = []
    for i, r in enumerate(reps):
        load = values[min(i, len(values) - 1)]
        if r >= 1 and load > 0:
            done.append(SetDone(r, convert_weight(load, source, unit), efforts[i]))
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

    def attempted(self, low: int) -> bool:
        """Whether the session aimed at a range starting at `low`: a working set reached it (a 5x5 that
        ended 5, 4, 3 aimed at fives; a 3x5 did not aim at eights)."""
        return max(s.reps for s in self.working_sets) >= low

    @property
    def rpe(self) -> float | None:
        """The hardest logged effort among the working sets (None when none was rated)."""
        rated = [s.rpe for s in self.working_sets if s.rpe is not None]
        return max(rated) if rated else None

    @property
    def best_set(self) -> SetDone:
        """The set with the highest estimated one-rep max."""
        return max(self.sets, key=lambda s: (estimate_1rm(s.load, s.reps, s.rpe), s.load))

    @property
    def e1rm(self) -> float:
        """The best estimated one-rep max among the sets (trainer.domain.one_rep_max)."""
        best = self.best_set
        return estimate_1rm(best.load, best.reps, best.rpe)


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
    """The heaviest load the rule accepts for this exercise."""
    reference_e1rm: float
    """The one-rep max the target implies on the RTS chart (the scaled estimate for `related`): a
    prescription implying much more is a jump."""
    reasoning: str
    """Why, in words a user reads."""


@dataclass(frozen=True)
class Step:
    """The next load and reps from one session that reached the range, and why (in words)."""

    rule: Rule
    load: float
    reps: int
    why: str


def _load(value: float, unit: str) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") + f" {unit}"


def _day(day: date) -> str:
    return f"{day.day} {day:%b}"


def _range_text(low: int, high: int) -> str:
    return f"{low} reps" if low == high else f"{low}-{high} reps"


def _as_set_up(session: ExerciseSession, steps: LoadSteps, equipment_class: str | None) -> float:
    """The session's top load as the user set it up: as logged, or rounded when it was converted."""
    return steps.nearest(session.top_load, equipment_class) if session.converted else session.top_load


def _same(load: float, session: ExerciseSession, unit: str) -> str:
    """'same weight', or the load when rounding to what can be set up changed it."""
    return "same weight" if abs(load - session.top_load) < 0.005 else _load(load, unit)


def load_step(reps_done: int, top: int) -> float:
    """The fraction to add once every working set reached the top: 2.5%, and 2.5% more per rep beyond
    it, at most 10% (ACSM 2009: 2-10% once 1-2 reps over the target are done)."""
    return min(MAX_LOAD_STEP, LOAD_STEP * (1 + max(0, reps_done - top)))


def step_from(
    base: ExerciseSession, steps: LoadSteps, equipment_class: str | None, rep_range: RepRange
) -> Step:
    """Double progression from a session that reached the range's bottom."""
    low, high = rep_range
    unit = steps.unit
    base_load = _as_set_up(base, steps, equipment_class)
    text = f"{_load(base.top_load, unit)} x {base.reps} on {_day(base.day)}"
    if base.reps < high:
        reps = min(base.reps + 1, high)
        return Step(
            "more_reps",
            base_load,
            reps,
            f"{text}, inside your {_range_text(low, high)}: {_same(base_load, base, unit)}, {reps} reps; "
            f"add weight once you reach {high}.",
        )
    ideal = base_load * (1 + load_step(base.reps, high))
    limit = implied_1rm(base_load, base.reps, base.rpe) * (1 + MAX_LOAD_STEP)
    fitting = [
        w
        for w in steps.heavier(base_load, equipment_class, base_load * 1.5)
        if implied_1rm(w, low, base.rpe) <= limit + _EPS
    ]
    if base.reps > high:
        reached = f"{base.reps} reps on every set, past your {_range_text(low, high)}"
    elif low == high:
        reached = f"every set at {high} reps"
    else:
        reached = f"the top of your {_range_text(low, high)}"
    heavier = steps.up(base_load, equipment_class)
    reps = min(base.reps + 1, MAX_REPS)
    if fitting or (heavier is not None and base.reps >= MAX_REPS):
        enough = [w for w in fitting if w >= base_load * (1 + MIN_LOAD_STEP) - _EPS] or fitting
        within = [w for w in enough if w <= base_load * (1 + MAX_LOAD_STEP) + _EPS]
        load = nearest_of(within or enough[:1], ideal) if fitting else float(heavier or base_load)
        go_up = f"go up to {_load(load, unit)} for {low} reps"
        return Step("more_load", load, low, f"{text} reached {reached}: {go_up}.")
    if heavier is None:
        why = f"{text} is the heaviest weight here: add a rep ({reps}) instead."
        return Step("more_reps", base_load, reps, why)
    return Step(
        "more_reps",
        base_load,
        reps,
        f"{text} reached {reached}, but the next weight here ({_load(heavier, unit)}) is a big jump: "
        f"add a rep first ({reps}), then move up.",
    )


def range_start(
    history: ExerciseHistory, steps: LoadSteps, rep_range: RepRange, *, target_rpe: float | None = None
) -> ProgressionTarget:
    """The first target in a range the exercise's sessions are not in (a new phase's range, the goal's
    other range): the last session's estimated max at the range's bottom and `target_rpe` (RPE 8 when
    None) on the RTS chart, never above one step over the last load."""
    last = history.sessions[-1]
    cls, unit = history.profile.equipment_class, steps.unit
    low, high = rep_range
    rpe = target_rpe if target_rpe is not None else 8.0
    above = steps.up(_as_set_up(last, steps, cls), cls) or last.top_load
    load = min(steps.down(load_at(last.e1rm, low, rpe), cls), above)
    why = (
        f"Your {_range_text(low, high)} start from your last session ({_load(last.top_load, unit)} x "
        f"{last.reps} on {_day(last.day)}, an estimated max of {_load(round(last.e1rm, 1), unit)}): "
        f"{_load(load, unit)} for {low} reps, about {10 - rpe:g} reps short of failure."
    )
    step = Step("new_range", load, low, why)
    return _target(history, steps, rep_range, step, last, max(load, above))


def _target(
    history: ExerciseHistory,
    steps: LoadSteps,
    rep_range: RepRange,
    step: Step,
    source: ExerciseSession,
    ceiling: float,
) -> ProgressionTarget:
    """The target of a step; its reference one-rep max, the most a prescription may imply before it is
    a jump, is what the step implies on the chart or what the session it comes from supports, whichever
    is more (a deload or a new range starts lighter on purpose)."""
    reference = max(implied_1rm(step.load, step.reps), source.e1rm)
    return ProgressionTarget(
        exercise_name=history.exercise_name,
        load=step.load,
        unit=steps.unit,
        reps=step.reps,
        sets=len(source.working_sets),
        rep_low=rep_range[0],
        rep_high=rep_range[1],
        rule=step.rule,
        based_on=history.exercise_name,
        last_load=round(source.top_load, 2),
        last_reps=source.reps,
        last_date=source.day,
        max_load=round(ceiling, 2),
        reference_e1rm=round(reference, 2),
        reasoning=step.why[0].upper() + step.why[1:],
    )


def _trailing(sessions: list[ExerciseSession], holds: Callable[[ExerciseSession], bool]) -> int:
    """How many of the newest sessions in a row something holds for."""
    count = 0
    for session in reversed(sessions):
        if not holds(session):
            break
        count += 1
    return count


def next_target(
    history: ExerciseHistory, steps: LoadSteps, rep_range: RepRange, *, target_rpe: float | None = None
) -> ProgressionTarget:
    """The next target of an exercise with history, in the prescribed `rep_range`: double progression,
    a hold or a deload after misses, or the start of a range its sessions never reached (at
    `target_rpe`)."""
    sessions = history.sessions[-SESSIONS_READ:]
    cls, unit = history.profile.equipment_class, steps.unit
    low = rep_range[0]
    last = sessions[-1]
    misses = _trailing(sessions, lambda s: s.reps < low)
    base = next((s for s in reversed(sessions) if s.reps >= low), None)
    last_text = f"{_load(last.top_load, unit)} x {last.reps} on {_day(last.day)}"
    if base is None:
        misses = _trailing(sessions, lambda s: s.attempted(low))
        if not misses:
            return range_start(history, steps, rep_range, target_rpe=target_rpe)
    if misses >= DELOAD_AFTER_MISSES:
        load = steps.nearest(
            last.top_load * DELOAD_FRACTION, cls, ceiling=last.top_load * (1 + DELOAD_FRACTION) / 2
        )
        step = Step(
            "deload",
            load,
            low,
            f"The last {misses} sessions stayed below {low} reps (last {last_text}): take about 10% off, "
            f"{_load(load, unit)} for {low} reps, and build back up.",
        )
        return _target(history, steps, rep_range, step, last, max(load, _as_set_up(last, steps, cls)))
    if base is None:
        load = _as_set_up(last, steps, cls)
        same = _same(load, last, unit)
        step = Step(
            "retry", load, low, f"Last time ({last_text}) was short of {low} reps: {same}, aim for {low}."
        )
        heavier = steps.up(load, cls)
        return _target(history, steps, rep_range, step, last, max(load, heavier or load))
    step = step_from(base, steps, cls, rep_range)
    if misses:
        missed_at = _as_set_up(last, steps, cls)
        if step.load > missed_at + _EPS:
            same = _same(missed_at, last, unit)
            why = f"Last time ({last_text}) was short of {low} reps: {same}, aim for {low} before going up."
            step = Step("retry", missed_at, low, why)
        else:
            why = f"Last time ({last_text}) was short of {low} reps; one off day changes nothing. {step.why}"
            step = Step("retry", step.load, step.reps, why)
    heavier = steps.up(_as_set_up(base, steps, cls), cls)
    ceiling = max(step.load, heavier if heavier is not None else step.load)
    return _target(history, steps, rep_range, step, base, ceiling)


def related_target(
    source: ExerciseHistory,
    target: MovementProfile,
    steps: LoadSteps,
    rep_range: RepRange,
    *,
    target_rpe: float | None = None,
) -> ProgressionTarget | None:
    """A first target for `target` from a related exercise's last session: its estimate x the equipment
    factor, at the bottom of `rep_range` and RPE 7 (or `target_rpe` when lower), never above the estimate
    at failure. None when their equipment is not comparable."""
    factor = transfer_factor(source.profile.equipment_class, target.equipment_class)
    if factor is None or not source.sessions:
        return None
    base = source.sessions[-1]
    estimate = base.e1rm * factor
    want = max(1, rep_range[0])
    rpe = min(NEW_EXERCISE_RPE, target_rpe if target_rpe is not None else NEW_EXERCISE_RPE)
    cls = target.equipment_class
    cap = load_at(estimate, want)
    load = steps.nearest(load_at(estimate, want, rpe), cls, ceiling=cap)
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
        rep_low=rep_range[0],
        rep_high=rep_range[1],
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
    rep_range: RepRange,
    equipment: Iterable[str] | None = None,
    muscles: Iterable[Any] | None = None,
    target_rpe: float | None = None,
    catalog: Catalog | None = None,
) -> ProgressionTarget | None:
    """The next target for an exercise in the prescribed `rep_range`: from its own history, else from
    the most recently trained related exercise, else None."""
    own = histories.get(name_key(exercise_name))
    if own is not None and own.sessions:
        return next_target(own, steps, rep_range, target_rpe=target_rpe)
    profile = movement_profile(exercise_name, equipment=equipment, muscles=muscles, catalog=catalog)
    related = [h for h in histories.values() if h.sessions and profile.related_to(h.profile)]
    related.sort(key=lambda h: (h.sessions[-1].performed_at, h.sessions[-1].e1rm), reverse=True)
    for candidate in related:
        target = related_target(candidate, profile, steps, rep_range, target_rpe=target_rpe)
        if target is not None:
            return target
    return None


RangeOf = Callable[[ExerciseHistory], RepRange]
"""The prescribed range of an exercise with history (a plan's slot, the range it is trained in)."""
NEAR_LOAD = 0.25


def established_range(history: ExerciseHistory) -> RepRange:
    """The range the lifter has been training an exercise in, for a path with no plan or goal prescription
    of its own (the progression-targets source, the offline coach's answer, the workout checks): the
    standard range topped by the most reps a set reached in the recent sessions at loads near the latest
    (within 25%: a warm-up, or a session at a very different load, was another range). Misses only lower
    reps, so they never lower the range: 100 x 5 then 102.5 x 4 is still fives; 3 x 12 is the top of
    8-12 and 3 x 20 the top of 15-20."""
    sessions = history.sessions[-SESSIONS_READ:]
    latest = sessions[-1].top_load
    near = [d.reps for s in sessions for d in s.sets if abs(d.load - latest) <= NEAR_LOAD * latest]
    return range_topped_by(max(near, default=sessions[-1].reps))


def progression_targets(
    histories: Mapping[str, ExerciseHistory],
    steps: LoadSteps,
    range_of: RangeOf,
    limit: int | None = None,
    *,
    target_rpe: float | None = None,
) -> list[ProgressionTarget]:
    """The next target of every exercise with history, most recently trained first."""
    ordered = sorted(
        (h for h in histories.values() if h.sessions),
        key=lambda h: (h.sessions[-1].performed_at, h.exercise_name),
        reverse=True,
    )
    return [next_target(h, steps, range_of(h), target_rpe=target_rpe) for h in ordered[:limit]]


def starting_load(equipment: Iterable[str], level: str, unit: str) -> float | None:
    """Conservative first load for a new exercise (to round to what the location can set up), or None
    when it takes no external load."""
    u = weight_unit(unit)
    loads = [STARTING_LOADS[e][u] for e in equipment if e in STARTING_LOADS]
    if not loads:
        return None
    return round(max(loads) * LEVEL_FACTOR.get(level, 1.0), 2)
