"""A week of the plan: seven days, the training days full workouts in the app's schema (a warm-up group,
the main work, a cool-down group) and the rest days recovery notes.

Loads and reps are computed here from the user's logged history: within a phase, double progression from
the phase's own sessions in the range the plan prescribes (`next_target` with that range); at a phase's
start trainer.domain.progression on all the history (its own sessions, else a related lift's e1RM, else
a conservative start), a new rep range starting from the e1RM of that target, never above one step over
the last successful load. Deload weeks keep about 60% of the sets at the last successful weight
(sessions logged in deload weeks are left out of later progression). Every exercise follows the user's
equipment, injuries and preferences, and no exercise works a muscle still recovering from the history or
from the week's earlier days (each day trained at NOMINAL_HOUR local time).

`draft_week` is the offline drafter; `finalize_week` turns any draft (a model's too) into the week.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime, time, timedelta
from typing import Any

from trainer.domain.catalog import CatalogEntry
from trainer.domain.equipment import missing_equipment
from trainer.domain.movements import equipment_class, name_key
from trainer.domain.one_rep_max import epley_load
from trainer.domain.progression import (
    STARTING_LOADS,
    ExerciseHistory,
    LoadSteps,
    ProgressionTarget,
    exercise_histories,
    next_target,
    progression_target,
    starting_load,
)
from trainer.domain.recovery import as_utc, recovering_muscles
from trainer.domain.timers import exercise_timer
from trainer.domain.workout import Exercise, Workout, WorkoutSummary
from trainer.domain.workout_checks import (
    UserTrainingContext,
    check_workout,
    load_jump,
    preference_constraints,
    workout_targets,
)
from trainer.domain.workout_grouping import local_day, zone
from trainer.programs.models import (
    DayPattern,
    DayPlanDraft,
    ExerciseSlot,
    FitnessPlan,
    PlanDay,
    PlanInputs,
    PlanWeek,
    WeekDraft,
    weekday_of,
)
from trainer.programs.plan.slots import CHANGEOVER_SEC, DELOAD_VOLUME, rest_for, slot_kind, trim_to_session
from trainer.programs.selection import (
    LEVEL_OF_EXPERIENCE,
    Constraints,
    allowed,
    constraints_for,
    make_exercise,
    pick_exercise,
    pool,
    preference_conflict,
    resolve,
)

NOMINAL_HOUR = 18
"""A planned day is taken as trained at 18:00 local time (recovery between the week's days)."""
MAX_BODYWEIGHT_REPS = 50
HOLD_STEP_SEC = 5
MAX_HOLD_SEC = 120
WARMUP_CARDIO_MIN = 5
WARMUP_MIN_SEC = 5 * 60
COOLDOWN_MIN_SEC = 3 * 60
"""Seed 003: a 5-10 minute warm-up and a 3-5 minute cool-down (the plan budgets 6 and 4)."""
MAX_EASY_SETS = 4
EASY_SET_REST_SEC = 15
WARMUP_GROUP = {"id": "warmup", "type": "warmup"}
COOLDOWN_GROUP = {"id": "cooldown", "type": "cooldown"}


def week_start(plan: FitnessPlan, week_number: int) -> date:
    return plan.start_date + timedelta(days=7 * (week_number - 1))


def week_dates(plan: FitnessPlan, week_number: int) -> list[date]:
    start = week_start(plan, week_number)
    return [start + timedelta(days=i) for i in range(7)]


def week_due_at(start_date: date, week_number: int, timezone: str) -> datetime:
    """When week N is due to be built: local midnight of its first day (aware)."""
    return datetime.combine(
        start_date + timedelta(days=7 * (week_number - 1)), time(0), tzinfo=zone(timezone)
    )


def nominal_time(day: date, timezone: str) -> datetime:
    return datetime.combine(day, time(NOMINAL_HOUR), tzinfo=zone(timezone))


def is_deload(plan: FitnessPlan, week_number: int) -> bool:
    return week_number in plan.deload_weeks


def deload_sets(sets: int) -> int:
    return max(1, round(sets * DELOAD_VOLUME))


def pattern_for(plan: FitnessPlan, week_number: int, weekday: str) -> DayPattern | None:
    cycle = plan.microcycle_for(week_number)
    return next((d for d in cycle.weekly_pattern if d.weekday == weekday), None)


# --- history --------------------------------------------------------------------------------------


def progression_rows(
    plan: FitnessPlan, week_number: int, rows: Iterable[Mapping[str, Any]], timezone: str
) -> list[Mapping[str, Any]]:
    """The loaded sessions progression reads, without those logged in the plan's earlier deload
    weeks (a deload is not a failed session)."""
    tz = zone(timezone)
    skipped = {d for w in plan.deload_weeks if w < week_number for d in week_dates(plan, w)}
    return [
        r for r in rows if r.get("performed_at") is None or local_day(r["performed_at"], tz) not in skipped
    ]


def _last_session(rows: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    key = name_key(name)
    mine = [r for r in rows if r.get("performed_at") and name_key(str(r.get("exercise_name") or "")) == key]
    return max(mine, key=lambda r: as_utc(r["performed_at"])) if mine else None


def _last_reps(rows: Sequence[Mapping[str, Any]], name: str, low: int) -> int:
    """The fewest reps of the latest session of an exercise that reached `low` reps (sessions in a
    lower range, or short of it, do not set the next target); 0 without one."""
    key = name_key(name)
    best: tuple[datetime, int] | None = None
    for row in rows:
        if not row.get("performed_at") or name_key(str(row.get("exercise_name") or "")) != key:
            continue
        done = min((int(r) for r in row.get("reps") or []), default=0)
        at = as_utc(row["performed_at"])
        if done >= low and (best is None or at > best[0]):
            best = (at, done)
    return best[1] if best else 0


def training_rows(workout: Workout, at: datetime) -> list[dict[str, Any]]:
    """A planned workout as history rows at `at` (recovery): its main work, holds left out."""
    return [
        {
            "performed_at": at,
            "exercise_name": ex.exercise_name,
            "exercise_type": ex.exercise_type,
            "muscles": [m.model_dump() for m in ex.muscles_utilized],
        }
        for ex in workout.exercises
        if ex.exercise_type != "hold" and (ex.group is None or ex.group.type not in ("warmup", "cooldown"))
    ]


# --- prescriptions --------------------------------------------------------------------------------


class _Context:
    """What one week's prescriptions read, resolved once."""

    def __init__(self, plan: FitnessPlan, week_number: int, inputs: PlanInputs) -> None:
        self.plan = plan
        self.week = week_number
        self.inputs = inputs
        self.deload = is_deload(plan, week_number)
        self.unit = inputs.weight_unit
        self.level = LEVEL_OF_EXPERIENCE.get(inputs.experience, "intermediate")
        self.rules = constraints_for(inputs.equipment, inputs.preferences, inputs.experience, inputs.history)
        self.prefs = preference_constraints(inputs.preferences)
        self.steps = LoadSteps.for_unit(self.unit, inputs.location_items)
        tz = zone(inputs.timezone)
        rows = progression_rows(plan, week_number, inputs.progression_history, inputs.timezone)
        self.histories: dict[str, ExerciseHistory] = exercise_histories(rows, self.unit, tz)
        phase_start = week_start(plan, plan.microcycle_for(week_number).start_week)
        in_phase = [
            r for r in rows if r.get("performed_at") and local_day(r["performed_at"], tz) >= phase_start
        ]
        self.phase_histories = exercise_histories(in_phase, self.unit, tz)
        """This phase's sessions: progression within a phase reads them only (its rep ranges)."""
        self.recent = progression_rows(plan, week_number, inputs.history, inputs.timezone)
        self.light = self.prefs.intensity == "light"


def _target(entry: CatalogEntry, ctx: _Context, low: int, high: int) -> ProgressionTarget | None:
    """Double progression from this phase's sessions of the exercise in the phase's range, else the
    progression rules on all its history (or a related exercise's)."""
    own = ctx.phase_histories.get(name_key(entry.name))
    if own is not None and own.sessions:
        return next_target(own, ctx.steps, (low, high))
    return progression_target(
        entry.name, ctx.histories, ctx.steps, equipment=entry.equipment, muscles=entry.muscles, reps=low
    )


def _loaded(entry: CatalogEntry) -> bool:
    return any(e in STARTING_LOADS for e in entry.equipment)


def _reps_prescription(entry: CatalogEntry, slot: ExerciseSlot, ctx: _Context) -> tuple[dict[str, Any], str]:
    low = slot.rep_low or 8
    high = slot.rep_high or max(low, 12)
    sets = deload_sets(slot.sets) if ctx.deload else slot.sets
    if ctx.light and sets > 2:
        sets -= 1
    rest = slot.rest_sec if slot.kind == "reps" else rest_for(slot.role, low)
    fields: dict[str, Any] = {"exercise_type": "reps", "sets": sets, "rest_sec": rest}
    if not _loaded(entry):
        done = _last_reps(ctx.recent, entry.name, low)
        reps = low if ctx.deload or not done else min(max(low, done + 1), MAX_BODYWEIGHT_REPS)
        note = (
            "Deload week: fewer sets, easy reps."
            if ctx.deload
            else (
                f"Last time {done} reps: aim for {reps}." if done else "Bodyweight: smooth, controlled reps."
            )
        )
        return {**fields, "reps": [reps] * sets}, note
    cls = equipment_class(entry.name, entry.equipment)
    target = _target(entry, ctx, low, high)
    if target is None:
        base = starting_load([e for e in entry.equipment if e in STARTING_LOADS], ctx.level, ctx.unit) or 0.0
        load, reps = ctx.steps.nearest(base, cls), low
        note = "New exercise: a conservative starting weight; add weight once every set feels easy."
    elif ctx.deload:
        if target.rule == "related":
            load = target.load
        else:
            load = ctx.steps.nearest(target.last_load, cls, ceiling=target.max_load)
        reps = low
        note = "Deload week: fewer sets at your last working weight, stop 3-4 reps short of failure."
    elif target.rule == "related" or (target.rep_low, target.rep_high) == (low, high):
        load, reps = target.load, (low if target.rule == "related" else target.reps)
        note = target.reasoning
    else:
        estimate = epley_load(target.reference_e1rm, low)
        load = min(ctx.steps.down(estimate, cls), target.max_load)
        reps = low
        note = (
            f"New phase, new rep range: {low}-{high} reps at about {_amount(load, ctx.unit)}, from your "
            f"estimated max on {target.based_on}."
            if low != high
            else f"New phase: sets of {low} at about {_amount(load, ctx.unit)}, from your estimated max."
        )
    if ctx.light:
        load = ctx.steps.down(load * 0.9, cls)
        note = f"{note} Lighter today, as you asked."
    return {**fields, "reps": [reps] * sets, "load_each": [load] * sets, "load_unit": ctx.unit}, note


def _amount(value: float, unit: str) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") + f" {unit}"


def _hold_prescription(entry: CatalogEntry, slot: ExerciseSlot, ctx: _Context) -> tuple[dict[str, Any], str]:
    base = slot.hold_sec or (30 if ctx.inputs.experience == "beginner" or slot.role == "mobility" else 45)
    sets = deload_sets(slot.sets) if ctx.deload else slot.sets
    last = _last_session(ctx.recent, entry.name)
    held = max((int(h) for h in (last.get("hold_sec") or [])), default=0) if last else 0
    hold = base if ctx.deload or not held else min(max(base, held + HOLD_STEP_SEC), MAX_HOLD_SEC)
    note = f"Last time {held} s: hold {hold} s." if held and not ctx.deload else "Hold with steady breathing."
    rest = slot.rest_sec if slot.kind == "hold" else rest_for(slot.role, None)
    return {"exercise_type": "hold", "sets": sets, "hold_sec": [hold] * sets, "rest_sec": rest}, note


def _duration_prescription(slot: ExerciseSlot, ctx: _Context) -> tuple[dict[str, Any], str]:
    minutes = slot.minutes or 12
    if ctx.deload:
        minutes = max(5, round(minutes * DELOAD_VOLUME))
    return {"exercise_type": "duration", "duration_min": float(minutes)}, "Steady pace: you can still talk."


def prescribe(entry: CatalogEntry, slot: ExerciseSlot, ctx: _Context) -> tuple[dict[str, Any], str]:
    """The exercise fields (sets, reps, loads, rest / holds / minutes) for a slot this week, and why."""
    kind = slot_kind(entry, slot.role)
    if kind == "duration":
        return _duration_prescription(slot, ctx)
    if kind == "hold":
        return _hold_prescription(entry, slot, ctx)
    return _reps_prescription(entry, slot, ctx)


# --- warm-up and cool-down ------------------------------------------------------------------------


def _stretches(rules: Constraints, blocked: frozenset[str], *, static: bool) -> list[CatalogEntry]:
    return [
        e
        for e in pool(rules)
        if e.category == "stretching"
        and (e.force == "static") == static
        and e.level == "beginner"
        and allowed(e, rules, blocked)
    ]


def _for_muscles(entries: Sequence[CatalogEntry], muscles: Sequence[str], count: int) -> list[CatalogEntry]:
    picked: list[CatalogEntry] = []
    for muscle in muscles:
        matches = sorted(
            (e for e in entries if e.primary_muscle == muscle and e not in picked),
            key=lambda e: (
                -len([m for m, s in e.muscles if m in muscles and s >= 0.2]),
                bool(e.equipment),
                e.name,
            ),
        )
        if matches:
            picked.append(matches[0])
        if len(picked) >= count:
            break
    return picked


def _warmup_cardio(rules: Constraints, blocked: frozenset[str]) -> CatalogEntry | None:
    preferred = (
        "Walking, Treadmill",
        "Bicycling, Stationary",
        "Rowing, Stationary",
        "Elliptical Trainer",
        "Jogging, Treadmill",
        "Rope Jumping",
        "Recumbent Bike",
    )
    options = {e.name: e for e in pool(rules) if e.category == "cardio" and allowed(e, rules, blocked)}
    return next((options[n] for n in preferred if n in options), None)


def _resolved(names: Iterable[str], rules: Constraints, blocked: frozenset[str]) -> list[CatalogEntry]:
    found: list[CatalogEntry] = []
    for name in names:
        entry = resolve(name)
        if entry is not None and entry not in found and allowed(entry, rules, blocked):
            found.append(entry)
    return found


def _topped_up(chosen: list[CatalogEntry], default: list[CatalogEntry]) -> list[CatalogEntry]:
    """The draft's choice when it names two or more (or a cardio warm-up), else with the defaults."""
    if len(chosen) >= 2 or any(e.category == "cardio" for e in chosen):
        return chosen
    return (chosen + [e for e in default if e not in chosen])[: max(3, len(chosen))]


def warmup_entries(
    muscles: Sequence[str], rules: Constraints, blocked: frozenset[str], requested: Sequence[str] = ()
) -> list[CatalogEntry]:
    """The draft's warm-up when it names allowed exercises (one cardio at most), else 5 minutes of easy
    cardio and dynamic moves for the day's main muscles."""
    chosen: list[CatalogEntry] = []
    for entry in _resolved(requested, rules, blocked)[:4]:
        if entry.category != "cardio" or not any(e.category == "cardio" for e in chosen):
            chosen.append(entry)
    cardio = _warmup_cardio(rules, blocked)
    dynamic = _for_muscles(_stretches(rules, blocked, static=False), muscles, 2 if cardio else 3)
    return _topped_up(chosen, ([cardio] if cardio else []) + dynamic)


def cooldown_entries(
    muscles: Sequence[str], rules: Constraints, blocked: frozenset[str], requested: Sequence[str] = ()
) -> list[CatalogEntry]:
    chosen = _resolved(requested, rules, blocked)[:4]
    return _topped_up(chosen, _for_muscles(_stretches(rules, blocked, static=True), muscles, 3))


def _warmup_fields(entry: CatalogEntry) -> dict[str, Any]:
    if entry.category == "cardio":
        return {"exercise_type": "duration", "duration_min": float(WARMUP_CARDIO_MIN)}
    if entry.force == "static":
        return {"exercise_type": "hold", "sets": 1, "hold_sec": [30], "rest_sec": 0}
    return {"exercise_type": "reps", "sets": 1, "reps": [10], "rest_sec": 0}


def _cooldown_fields(entry: CatalogEntry) -> dict[str, Any]:
    return {"exercise_type": "hold", "sets": 1, "hold_sec": [30], "rest_sec": 0}


def filled_to(
    entries: Sequence[CatalogEntry], fields: list[dict[str, Any]], seconds: int
) -> list[dict[str, Any]]:
    """The prescriptions with a set added to the moves and stretches in turn (never to cardio, at most
    MAX_EASY_SETS each) until they last `seconds` on the workout timer: seed 003's 5-10 minute warm-up
    and 3-5 minute cool-down, whatever the equipment and the draft's choice of names."""
    filled = [dict(f) for f in fields]

    def total() -> int:
        return sum(
            exercise_timer({"exercise_name": e.name, **f}).total_duration_sec
            for e, f in zip(entries, filled, strict=True)
        )

    while total() < seconds:
        growable = [f for f in filled if f["exercise_type"] != "duration" and f["sets"] < MAX_EASY_SETS]
        if not growable:
            break
        grown = min(growable, key=lambda f: f["sets"])
        key = "reps" if grown["exercise_type"] == "reps" else "hold_sec"
        grown.update(
            sets=grown["sets"] + 1, rest_sec=EASY_SET_REST_SEC, **{key: [*grown[key], grown[key][0]]}
        )
    return filled


# --- a training day -------------------------------------------------------------------------------


def _slot_reason(entry: CatalogEntry, rules: Constraints, blocked: frozenset[str]) -> str:
    if missing := sorted(missing_equipment(entry.equipment, rules.equipment)):
        return f"needs {', '.join(missing)}, which you don't have here"
    if conflict := preference_conflict(entry, rules):
        return f"conflicts with: {conflict}"
    if still := sorted(entry.worked_muscles(0.2) & blocked):
        return f"{', '.join(still).lower()} still recovering"
    return "not available"


def _choose(
    slot: ExerciseSlot, requested: str | None, ctx: _Context, blocked: frozenset[str], taken: list[str]
) -> tuple[CatalogEntry | None, str | None]:
    """The exercise for a slot: the draft's choice, else the plan's, else the best allowed one for the
    slot; with a note when the plan's exercise had to change."""
    rules = ctx.rules
    for name in dict.fromkeys([n for n in (requested, slot.exercise) if n]):
        entry = resolve(name)
        if entry is not None and entry.name not in taken and allowed(entry, rules, blocked):
            return entry, None
    planned = resolve(slot.exercise)
    why = _slot_reason(planned, rules, blocked) if planned else "not a known exercise"
    entry = pick_exercise(
        rules, pattern=slot.pattern, muscle=slot.muscle, role=slot.role, taken=taken, blocked=blocked
    )
    if entry is None:
        return None, f"Skipped {slot.exercise} today ({why})."
    return entry, f"{entry.name} instead of {slot.exercise} ({why})."


def build_day_workout(
    pattern: DayPattern,
    draft: DayPlanDraft | None,
    ctx: _Context,
    blocked: frozenset[str],
    *,
    title: str,
) -> tuple[Workout | None, list[str]]:
    """A training day's workout and the notes on what changed from the plan."""
    notes: list[str] = []
    budget = ctx.plan.session_minutes
    if ctx.prefs.time_budget_min and ctx.prefs.time_budget_min < budget:
        budget = ctx.prefs.time_budget_min
    slots = trim_to_session(list(pattern.slots), budget)
    taken: list[str] = []
    main: list[tuple[CatalogEntry, dict[str, Any], str]] = []
    requested = list(draft.exercises) if draft else []
    for index, slot in enumerate(slots):
        entry, note = _choose(slot, requested[index] if index < len(requested) else None, ctx, blocked, taken)
        if note:
            notes.append(note)
        if entry is None:
            continue
        fields, why = prescribe(entry, slot, ctx)
        main.append((entry, fields, why))
        taken.append(entry.name)
    if not main:
        main = _fallback_main(ctx, blocked)
        if not main:
            return None, [*notes, "Nothing in this day's plan fits today: take it as a rest day."]
        notes.append("Today's planned work doesn't fit right now, so it's a light mobility and core session.")
    muscles = list(dict.fromkeys(e.primary_muscle for e, _, _ in main))
    warm = warmup_entries(muscles, ctx.rules, blocked, draft.warmup if draft else ())
    cool = cooldown_entries(muscles, ctx.rules, blocked, draft.cooldown if draft else ())
    warm_fields = filled_to(warm, [_warmup_fields(e) for e in warm], WARMUP_MIN_SEC)
    cool_fields = filled_to(cool, [_cooldown_fields(e) for e in cool], COOLDOWN_MIN_SEC)
    goals = ctx.inputs.category_goals
    exercises: list[Exercise] = []
    for position, (entry, fields) in enumerate(zip(warm, warm_fields, strict=True), start=1):
        group = {**WARMUP_GROUP, "position": position, **({"name": "Warm-up"} if position == 1 else {})}
        exercises.append(
            make_exercise(
                entry,
                order=len(exercises) + 1,
                category_goals={},
                reasoning="Warm-up: easy pace, get the joints moving.",
                fields=fields,
                group=group,
            )
        )
    for entry, fields, why in main:
        exercises.append(
            make_exercise(entry, order=len(exercises) + 1, category_goals=goals, reasoning=why, fields=fields)
        )
    for position, (entry, fields) in enumerate(zip(cool, cool_fields, strict=True), start=1):
        group = {**COOLDOWN_GROUP, "position": position, **({"name": "Cool-down"} if position == 1 else {})}
        exercises.append(
            make_exercise(
                entry,
                order=len(exercises) + 1,
                category_goals={},
                reasoning="Cool-down: breathe slowly and relax into the stretch.",
                fields=fields,
                group=group,
            )
        )
    return Workout(title=title[:120], exercises=exercises, summary=_summary(exercises)), notes


_FALLBACK_SLOTS = (
    ExerciseSlot(exercise="Plank", muscle="Abs", role="core", kind="hold", sets=3, hold_sec=30, rest_sec=45),
    ExerciseSlot(exercise="Cat Stretch", muscle="Back", role="mobility", kind="hold", sets=2, hold_sec=30,
                 rest_sec=15),
    ExerciseSlot(exercise="Hamstring Stretch", muscle="Hamstrings", role="mobility", kind="hold", sets=2,
                 hold_sec=30, rest_sec=15),
    ExerciseSlot(exercise="Shoulder Stretch", muscle="Shoulders", role="mobility", kind="hold", sets=2,
                 hold_sec=30, rest_sec=15),
)  # fmt: skip


def _fallback_main(ctx: _Context, blocked: frozenset[str]) -> list[tuple[CatalogEntry, dict[str, Any], str]]:
    found: list[tuple[CatalogEntry, dict[str, Any], str]] = []
    taken: list[str] = []
    for slot in _FALLBACK_SLOTS:
        entry, _ = _choose(slot, None, ctx, blocked, taken)
        if entry is not None:
            fields, why = prescribe(entry, slot, ctx)
            found.append((entry, fields, why))
            taken.append(entry.name)
    return found


def _summary(exercises: Sequence[Exercise]) -> WorkoutSummary:
    seconds = sum(exercise_timer(ex).total_duration_sec + CHANGEOVER_SEC for ex in exercises)
    goals: dict[str, float] = {}
    muscles: dict[str, float] = {}
    for ex in exercises:
        if ex.group is not None and ex.group.type in ("warmup", "cooldown"):
            continue
        for g in ex.goals_addressed:
            goals[g.goal] = goals.get(g.goal, 0.0) + g.share
        for m in ex.muscles_utilized:
            muscles[m.muscle] = muscles.get(m.muscle, 0.0) + m.share
    return WorkoutSummary(
        estimated_duration_min=max(1, math.ceil(seconds / 60)),
        primary_goals=[g for g, _ in sorted(goals.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
        muscles_targeted=[m for m, s in sorted(muscles.items(), key=lambda kv: (-kv[1], kv[0])) if s >= 0.2][
            :20
        ],
    )


# --- rest days ------------------------------------------------------------------------------------


def rest_day_notes(previous: Workout | None, following: str | None, deload: bool) -> str:
    """What to do on a rest day, from the day before and the day after."""
    parts = ["Rest day: no lifting today."]
    if previous is not None and previous.summary and previous.summary.muscles_targeted:
        worked = ", ".join(m.lower() for m in previous.summary.muscles_targeted[:3])
        parts.append(
            f"Your {worked} worked hard yesterday: an easy 20-30 minute walk and light stretching help "
            "them recover."
        )
    else:
        parts.append(
            "An easy 20-30 minute walk or some light mobility keeps you moving without adding fatigue."
        )
    parts.append("Aim for 7-9 hours of sleep, protein at every meal and plenty of water.")
    if following:
        parts.append(f"Next up: {following}.")
    if deload:
        parts.append("It's a deload week: let the lighter load do its job.")
    return " ".join(parts)


# --- the week -------------------------------------------------------------------------------------


def draft_week(plan: FitnessPlan, week_number: int, inputs: PlanInputs) -> WeekDraft:
    """The offline drafter: the plan's days as they stand (exercise choice and warm-ups left to code)."""
    days = []
    for day in week_dates(plan, week_number):
        weekday = weekday_of(day)
        training = weekday in plan.training_days
        pattern = pattern_for(plan, week_number, weekday) if training else None
        days.append(
            DayPlanDraft(
                date=day,
                kind="training" if training else "rest",
                exercises=[s.exercise for s in pattern.slots] if pattern else [],
                warmup=[],
                cooldown=[],
                notes=None,
                recovery_notes=None,
            )
        )
    return WeekDraft(week_number=week_number, days=days)


def finalize_week(
    draft: WeekDraft, plan: FitnessPlan, week_number: int, inputs: PlanInputs, *, plan_id: str | None = None
) -> PlanWeek:
    """The week from a draft (the offline drafter's or a model's), in date order: training days built
    from the plan's pattern with the draft's exercise choices where they are allowed, every number
    computed by code; rest days with the draft's recovery notes or code's."""
    ctx = _Context(plan, week_number, inputs)
    cycle = plan.microcycle_for(week_number)
    simulated: list[dict[str, Any]] = []
    days: list[PlanDay] = []
    ordered = sorted(draft.days, key=lambda d: d.date)
    previous: Workout | None = None
    for index, item in enumerate(ordered):
        weekday = weekday_of(item.date)
        at = nominal_time(item.date, inputs.timezone)
        if item.kind == "rest":
            tomorrow = ordered[index + 1] if index + 1 < len(ordered) else None
            pattern = pattern_for(plan, week_number, weekday_of(tomorrow.date)) if tomorrow else None
            next_focus = pattern.focus if pattern and tomorrow and tomorrow.kind == "training" else None
            recovery = item.recovery_notes or rest_day_notes(previous, next_focus, ctx.deload)
            days.append(PlanDay(date=item.date, weekday=weekday, kind="rest", recovery_notes=recovery[:2000]))
            previous = None
            continue
        pattern = pattern_for(plan, week_number, weekday)
        if pattern is None:
            days.append(
                PlanDay(
                    date=item.date,
                    weekday=weekday,
                    kind="training",
                    focus=None,
                    notes=["The plan has no training on this day."],
                )
            )
            previous = None
            continue
        blocked = frozenset(recovering_muscles([*inputs.history, *simulated], at))
        title = f"{pattern.focus} - Week {week_number}" + (" (deload)" if ctx.deload else "")
        workout, notes = build_day_workout(pattern, item, ctx, blocked, title=title)
        if item.notes:
            notes = [item.notes[:500], *notes]
        days.append(
            PlanDay(
                date=item.date,
                weekday=weekday,
                kind="training",
                focus=pattern.focus,
                workout=workout,
                notes=notes,
            )
        )
        if workout is not None:
            simulated.extend(training_rows(workout, at))
        previous = workout
    return PlanWeek(
        plan_id=plan_id,
        week_number=week_number,
        microcycle=cycle.number,
        deload=ctx.deload,
        start_date=week_start(plan, week_number),
        days=days,
    )


def build_week(
    plan: FitnessPlan, week_number: int, inputs: PlanInputs, *, plan_id: str | None = None
) -> PlanWeek:
    """The offline `microcycle` agent: draft and finalize."""
    return finalize_week(draft_week(plan, week_number, inputs), plan, week_number, inputs, plan_id=plan_id)


# --- validators -----------------------------------------------------------------------------------


def seven_days(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Exactly seven consecutive days from the week's start, each named by its weekday."""
    errors = []
    expected = week_dates(plan, week.week_number)
    got = [d.date for d in week.days]
    if len(week.days) != 7:
        errors.append(f"the week needs exactly 7 days, has {len(week.days)}")
    if got != expected[: len(got)] or len(got) != 7:
        errors.append(f"the days must be {expected[0].isoformat()} to {expected[-1].isoformat()}, in order")
    errors += [
        f"{d.date.isoformat()} is a {weekday_of(d.date)}, not a {d.weekday}"
        for d in week.days
        if d.weekday != weekday_of(d.date)
    ]
    return errors


def plan_training_days(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Training exactly on the plan's days, each with a workout; rest days with recovery notes only."""
    errors = []
    for day in week.days:
        planned = day.weekday in plan.training_days
        if planned and day.kind != "training":
            errors.append(f"{day.weekday} is a training day in the plan")
        if not planned and day.kind == "training":
            errors.append(f"{day.weekday} is a rest day in the plan")
        if day.kind == "training" and day.workout is None:
            errors.append(f"{day.weekday} has no workout")
        if day.kind == "rest" and (day.workout is not None or not day.recovery_notes):
            errors.append(f"{day.weekday} is a rest day: recovery notes, no workout")
    return errors


def day_contexts(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[UserTrainingContext | None]:
    """The check context of each day: the user's situation at the day's nominal time, with the week's
    earlier training days counted as done."""
    ctx = _Context(plan, week.week_number, inputs)
    simulated: list[dict[str, Any]] = []
    contexts: list[UserTrainingContext | None] = []
    for day in sorted(week.days, key=lambda d: d.date):
        if day.workout is None:
            contexts.append(None)
            continue
        at = nominal_time(day.date, inputs.timezone)
        contexts.append(
            UserTrainingContext(
                available_equipment=set(ctx.rules.equipment),
                preferences=list(inputs.preferences),
                recovering_muscles=recovering_muscles([*inputs.history, *simulated], at),
                weight_unit=inputs.weight_unit,
                distance_unit=inputs.distance_unit,
                now=at,
                exercise_history=ctx.histories,
                load_steps=ctx.steps,
            )
        )
        simulated.extend(training_rows(day.workout, at))
    return contexts


def hard_problems(workout: Workout, user: UserTrainingContext) -> list[str]:
    """What the workout checks report, load-jump warnings left out (they are advice, not violations)."""
    targets = workout_targets(workout, user)
    ordered = sorted(workout.exercises, key=lambda e: e.order)
    jumps = {j for ex, t in zip(ordered, targets, strict=False) if t is not None and (j := load_jump(ex, t))}
    return [p for p in check_workout(workout, user, targets=targets) if p not in jumps]


def workout_checks_pass(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    errors = []
    days = sorted(week.days, key=lambda d: d.date)
    for day, user in zip(days, day_contexts(week, plan, inputs), strict=True):
        if day.workout is not None and user is not None:
            errors += [f"{day.weekday}: {problem}" for problem in hard_problems(day.workout, user)]
    return errors


def deload_volume(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """A deload week keeps at most 70% of the planned sets of the exercises it kept from the plan
    (swapped exercises, and single sets that cannot be cut, are not compared)."""
    if not week.deload:
        return []
    planned = done = 0
    for day in week.days:
        pattern = pattern_for(plan, week.week_number, day.weekday) if day.workout is not None else None
        if pattern is None or day.workout is None:
            continue
        sets = {s.exercise: s.sets for s in pattern.slots if s.kind != "duration" and s.sets >= 2}
        for ex in day.workout.exercises:
            if ex.exercise_name in sets and (ex.group is None or ex.group.type not in ("warmup", "cooldown")):
                planned += sets[ex.exercise_name]
                done += ex.sets or 0
    if planned and done > 0.7 * planned:
        return [f"a deload week keeps at most 70% of the sets ({done} of {planned})"]
    return []


WeekValidator = Callable[[PlanWeek, FitnessPlan, PlanInputs], list[str]]
WEEK_VALIDATORS: dict[str, WeekValidator] = {
    "week_seven_days": seven_days,
    "week_plan_training_days": plan_training_days,
    "week_workout_checks": workout_checks_pass,
    "week_deload_volume": deload_volume,
}


def validate_week(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Every week validator's errors, in order (none: the week is valid)."""
    return [error for check in WEEK_VALIDATORS.values() for error in check(week, plan, inputs)]


def main_sets(week: PlanWeek) -> int:
    """Working sets of the week's main work (warm-ups and cool-downs left out)."""
    return sum(
        ex.sets or 0
        for d in week.days
        if d.workout is not None
        for ex in d.workout.exercises
        if ex.group is None or ex.group.type not in ("warmup", "cooldown")
    )
