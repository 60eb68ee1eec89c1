"""The offline workout composer: builds a valid Workout from the catalog without a model, the way a
coach would: the request resolved (session_plan.py), the allowed exercises ranked (ranking.py) and
prescribed (prescription.py), the session fitted to its time (fitting.py) and named from what it
trains. Deterministic: the same request always gives the same workout."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace

from trainer.domain.catalog import Catalog, CatalogEntry, load_catalog
from trainer.domain.composer.fitting import (
    FILL_TOLERANCE,
    MAX_EXERCISES,
    MAX_STRETCHES,
    Slot,
    fit_to_budget,
    minutes_per_exercise,
    order_key,
    slot_for,
    strength_role,
    top_up,
    trim_to_cap,
)
from trainer.domain.composer.goals import goal_kind
from trainer.domain.composer.prescription import BeyondRule, prescribed
from trainer.domain.composer.ranking import Picker, rank
from trainer.domain.composer.relaxing import (
    ComposedWorkout,
    Relaxation,
    focus_relaxed,
    movements_left_out,
    widened_plans,
)
from trainer.domain.composer.request import ComposerError, ComposerRequest
from trainer.domain.composer.session_plan import SessionPlan, allowed, on_focus, resolve_plan
from trainer.domain.composer.staples import CONDITIONING_EXERCISES, STAPLE_EXERCISES
from trainer.domain.movements import OLYMPIC_LIFT, equipment_class
from trainer.domain.muscles import CORE, region_of
from trainer.domain.workout import Exercise, Workout, WorkoutSummary
from trainer.domain.workout_checks import name_key


def requested_entries(ranked: Sequence[tuple[float, CatalogEntry]], plan: SessionPlan) -> list[CatalogEntry]:
    """One exercise per movement the request names: the user's own (most recent) first, then a loaded
    staple, then the best ranked."""
    chosen: list[CatalogEntry] = []
    for named in plan.movements:
        matching = [(score, e) for score, e in ranked if named.search(name_key(e.name)) and e not in chosen]
        if not matching:
            continue

        def preference(item: tuple[float, CatalogEntry]) -> tuple[bool, float, bool, bool, float]:
            score, entry = item
            own = plan.exercise_history.get(name_key(entry.name))
            last = own.sessions[-1].performed_at.timestamp() if own and own.sessions else 0.0
            loaded = equipment_class(entry.name, entry.equipment) is not None
            return own is None, -last, entry.name not in STAPLE_EXERCISES, not loaded, -score

        chosen.append(min(matching, key=preference)[1])
    return chosen


def main_pool(candidates: Sequence[CatalogEntry], plan: SessionPlan) -> list[CatalogEntry]:
    if plan.wants_mobility:
        return [e for e in candidates if e.category == "stretching"]
    pool = [e for e in candidates if e.category not in ("cardio", "stretching")]
    skip = set() if plan.level == "expert" else {"olympic weightlifting", "strongman"}
    if not (plan.wants_cardio or {goal_kind(g) for g in plan.goals} & {"power", "endurance"}):
        skip.add("plyometrics")
    technical = plan.level != "expert"
    kept = [e for e in pool if e.category not in skip and not (technical and OLYMPIC_LIFT.search(e.name))]
    return [e for e in kept or pool if on_focus(e, plan)]


def cardio_pools(
    candidates: Sequence[CatalogEntry], plan: SessionPlan
) -> tuple[list[CatalogEntry], list[CatalogEntry]]:
    """(steady cardio, conditioning moves for intervals), best first; machines before going outside."""
    steady = [e for e in candidates if e.category == "cardio" and e.name != "Rope Jumping"]
    ranked_steady = [e for _, e in rank(steady, plan)]
    ranked_steady.sort(key=lambda e: not e.equipment)
    moves = [
        e for e in candidates
        if e.name in CONDITIONING_EXERCISES or (e.category == "plyometrics" and e.force != "static")
    ]  # fmt: skip
    ranked_moves = [e for _, e in rank(moves, plan)]
    ranked_moves.sort(key=lambda e: e.name not in CONDITIONING_EXERCISES)
    return ranked_steady, ranked_moves


def conditioning_slots(
    candidates: Sequence[CatalogEntry], plan: SessionPlan, seconds: int, *, role: int, first_rank: int
) -> list[Slot]:
    """Cardio for about `seconds`: a steady block (a machine, else outdoors when there are no moves
    for intervals) and interval rounds of conditioning moves."""
    steady, moves = cardio_pools(candidates, plan)
    if steady and not steady[0].equipment and moves:
        steady = []
    minutes = seconds / 60
    if steady:
        count = 0 if minutes < 15 else 1 if minutes < 40 else 2
    else:
        count = max(1, min(4, math.ceil(minutes / 10)))
    moves = moves[:count]
    slots: list[Slot] = []
    if steady:
        left = minutes - len(moves) * 9.5 - 1.2
        ex = prescribed(steady[0], plan, 1, minutes=max(5, round(left)))
        slots.append(Slot(steady[0], ex, role, first_rank, 5, 120))
    for i, entry in enumerate(moves):
        ex = prescribed(entry, plan, 1, rounds=8)
        slots.append(Slot(entry, ex, role + 1, first_rank + 1 + i, 4, 12))
    return slots


def compose_session(req: ComposerRequest, catalog: Catalog | None = None) -> ComposedWorkout:
    """A complete, valid workout for the request and what it relaxed to exist: when nothing fits the
    muscles asked for, the focus widens (relaxing.widened_plans) and the workout says so; an exercise
    asked for by name that it could not hold is said too. Raises ComposerError when nothing fits even
    the whole body (the hard rules are never relaxed)."""
    plan = resolve_plan(req)
    cat = catalog or load_catalog()
    relaxed: tuple[Relaxation, ...] = ()
    try:
        workout = workout_for(plan, cat)
    except ComposerError:
        if not plan.restrict_to_focus:
            raise
        workout = widened_workout(plan, cat)
        asked = replace(plan, focus=set(plan.asked_muscles or plan.focus))
        relaxed = (focus_relaxed(plan, main_pool(cat.entries, asked), workout),)
    if plan.movements:
        pool = main_pool(cat.entries, replace(plan, restrict_to_focus=False))
        relaxed += movements_left_out(plan, pool, workout)
    return ComposedWorkout(workout, relaxed)


def compose_workout(req: ComposerRequest, catalog: Catalog | None = None) -> Workout:
    """The workout of `compose_session`, without what it relaxed."""
    return compose_session(req, catalog).workout


def widened_workout(plan: SessionPlan, cat: Catalog) -> Workout:
    """The workout of the first widened focus that has one (ComposerError naming the original
    constraints when none has)."""
    for wider in widened_plans(plan):
        with suppress(ComposerError):
            return workout_for(wider, cat)
    raise ComposerError(why_nothing(plan))


def workout_for(plan: SessionPlan, cat: Catalog) -> Workout:
    """The workout for a resolved plan, fitted to its time (raises ComposerError when nothing fits).
    A cardio request is steady cardio and intervals (topped up with endurance-style strength work when
    too few moves are allowed); a muscle focus with cardio ends on a conditioning finisher; cardio
    under its goal share adds a steady block to a full-body session."""
    candidates = [e for e in cat.entries if allowed(e, plan)]
    if not candidates:
        raise ComposerError(why_nothing(plan))
    budget = plan.budget_min * 60
    slots: list[Slot] = []
    cardio_debt = sum(d for g, d in plan.goal_debt.items() if goal_kind(g) == "endurance" and d > 0)
    if plan.wants_cardio and not plan.wants_mobility and not plan.targets:
        slots = conditioning_slots(candidates, plan, budget, role=-2, first_rank=-10)
        total = fit_to_budget(slots, budget)
        if slots and total >= budget * (1 - FILL_TOLERANCE):
            return finished_workout(slots, plan, total)
        plan = replace(plan, style="endurance")
    elif plan.wants_cardio and not plan.wants_mobility:
        slots = conditioning_slots(candidates, plan, round(budget * 0.35), role=7, first_rank=100)[-1:]
    elif cardio_debt >= 0.1 and plan.budget_min >= 30 and not plan.targets and not plan.wants_mobility:
        steady, _ = cardio_pools(candidates, plan)
        if steady:
            minutes = max(5, round(plan.budget_min * 0.25 / 5) * 5)
            slots = [Slot(steady[0], prescribed(steady[0], plan, 1, minutes=minutes), 7, 100, 5, 40)]
    picker = add_strength(slots, candidates, plan, budget)
    if not slots:
        raise ComposerError(why_nothing(plan))
    return finished_workout(slots, plan, top_up(slots, picker, plan, budget))


def add_strength(
    slots: list[Slot], candidates: Sequence[CatalogEntry], plan: SessionPlan, budget: int
) -> Picker:
    """Adds the session's lifts (or stretches) to `slots`: the exercises the request names, then the
    best ranked, as many as the time left plans for. Returns the picker, for topping up."""
    pool = main_pool(candidates, plan)
    per_exercise = 2.5 if plan.wants_mobility else minutes_per_exercise(plan)
    limit = MAX_STRETCHES if plan.wants_mobility else MAX_EXERCISES
    left = budget - sum(s.seconds for s in slots)
    planned = max(1, min(limit, math.ceil(left / 60 / per_exercise))) if left > 0 else 0
    ranked = rank(pool, plan)
    picker = Picker(ranked, plan, planned)
    named = rank(main_pool(candidates, replace(plan, restrict_to_focus=False)), plan)
    requested = requested_entries(named, plan) if planned and plan.movements else []
    lifts = 0
    while lifts < planned:
        entry = requested[lifts] if lifts < len(requested) else picker.next()
        if entry is None:
            break
        if entry in requested:
            picker.take(entry)
        with suppress(BeyondRule):
            ex = prescribed(entry, plan, len(slots) + 1, requested=entry in requested)
            slots.append(slot_for(entry, ex, strength_role(entry, plan, entry in requested), len(slots)))
        lifts += 1
    return picker


def finished_workout(slots: list[Slot], plan: SessionPlan, total_sec: int) -> Workout:
    if plan.cap_min is not None and total_sec > plan.cap_min * 60:
        total_sec = trim_to_cap(slots, plan.cap_min * 60)
    ordered = sorted(slots, key=order_key)
    exercises = [s.exercise.model_copy(update={"order": i + 1}) for i, s in enumerate(ordered)]
    minutes = total_sec / 60
    shown = plan.budget_min if abs(minutes - plan.budget_min) <= 0.2 * plan.budget_min else round(minutes)
    return Workout(
        title=f"{workout_name([(s.entry, s.exercise) for s in ordered])} ({shown} min)",
        exercises=exercises,
        summary=workout_summary(exercises, total_sec),
    )


def why_nothing(plan: SessionPlan) -> str:
    parts = []
    if plan.restrict_to_focus:
        parts.append(f"asked for: {', '.join(sorted(plan.focus))}")
    if plan.blocked:
        parts.append(f"recovering: {', '.join(sorted(plan.blocked))}")
    if plan.avoided:
        parts.append(f"avoided: {', '.join(sorted(plan.avoided))}")
    parts.append(f"equipment: {', '.join(sorted(plan.equipment))}")
    return "No exercise fits these constraints (" + "; ".join(parts) + ")."


PUSH = frozenset({"Chest", "Shoulders", "Triceps"})
PULL = frozenset({"Back", "Biceps", "Trapezius", "Forearms"})
TITLE_NAMES = {
    "Chest": "Chest", "Back": "Back", "Shoulders": "Shoulder", "Biceps": "Biceps", "Triceps": "Triceps",
    "Trapezius": "Trap", "Forearms": "Forearm", "Neck": "Neck", "Quadriceps": "Quad",
    "Hamstrings": "Hamstring", "Glutes": "Glute", "Calves": "Calf", "Abductors": "Hip",
    "Adductors": "Hip", "Abs": "Core", "Lower Back": "Lower Back",
}  # fmt: skip


def workout_name(exercises: Sequence[tuple[CatalogEntry, Exercise]]) -> str:
    """A title from what the exercises train: 'Chest Workout', 'Leg Workout', 'Upper Body Workout',
    'Full Body Workout', 'Push Workout', 'Core Workout', 'Cardio Workout', 'Leg Workout & Cardio'."""
    cardio = [ex for _, ex in exercises if ex.exercise_type in ("duration", "intervals")]
    lifts = [e for e, ex in exercises if e.category != "stretching" and ex.exercise_type in ("reps", "hold")]
    if not lifts:
        return "Cardio Workout" if cardio else "Mobility Workout"
    return f"{muscles_name([e.primary_muscle for e in lifts])} Workout" + (" & Cardio" if cardio else "")


def muscles_name(primaries: Sequence[str]) -> str:
    outside_core = [m for m in primaries if m not in CORE]
    if len(outside_core) <= 0.4 * len(primaries):
        return "Core"
    counts = Counter(outside_core)
    top, top_count = max(sorted(counts.items()), key=lambda kv: kv[1])
    regions = {region_of(m) for m in outside_core}
    distinct = set(counts)
    if regions == {"upper", "lower"}:
        return "Full Body"
    if len(distinct) == 1 or top_count >= 0.6 * len(outside_core):
        return "Leg" if regions == {"lower"} and top_count < len(outside_core) else TITLE_NAMES[top]
    if regions == {"lower"}:
        return "Leg"
    if distinct == {"Biceps", "Triceps"}:
        return "Arm"
    if len(distinct) == 2:
        first, second = sorted(distinct, key=lambda m: (-counts[m], m))
        return f"{TITLE_NAMES[first]} & {TITLE_NAMES[second]}"
    if distinct <= PUSH:
        return "Push"
    if distinct <= PULL:
        return "Pull"
    return "Upper Body"


def workout_summary(exercises: Sequence[Exercise], total_sec: int) -> WorkoutSummary:
    goals: dict[str, float] = {}
    muscles: dict[str, float] = {}
    for ex in exercises:
        for g in ex.goals_addressed:
            goals[g.goal] = goals.get(g.goal, 0.0) + g.share
        for m in ex.muscles_utilized:
            muscles[m.muscle] = muscles.get(m.muscle, 0.0) + m.share
    return WorkoutSummary(
        estimated_duration_min=max(1, round(total_sec / 60)),
        primary_goals=[g for g, _ in sorted(goals.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
        muscles_targeted=[m for m, s in sorted(muscles.items(), key=lambda kv: (-kv[1], kv[0])) if s >= 0.2],
    )
