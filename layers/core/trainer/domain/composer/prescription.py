"""One exercise prescribed for the user: the goal's sets, reps and rest (or holds, cardio minutes,
interval rounds), loads from the progression targets (trainer.domain.progression) kept within their
rule, the reason in words; and an exercise's time and volume, which fitting moves."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trainer.domain.catalog import CatalogEntry
from trainer.domain.composer.goals import FALLBACK_GOAL, entry_kind, goal_fits, rounded_shares
from trainer.domain.composer.request import ComposerError, ComposerRequest
from trainer.domain.composer.session_plan import SessionPlan, resolve_plan
from trainer.domain.movements import equipment_class
from trainer.domain.one_rep_max import implied_1rm
from trainer.domain.prescriptions import (
    RepRange,
    leading_style,
    prescribed_range,
    rest_seconds,
    target_rpe,
)
from trainer.domain.progression import STARTING_LOADS, ProgressionTarget, progression_target, starting_load
from trainer.domain.timers import exercise_timer
from trainer.domain.workout import Exercise
from trainer.domain.workout_checks import JUMP_E1RM_TOLERANCE

CHANGEOVER_SEC = 60
"""Time between exercises (setting up, walking to the next station)."""

MIN_REPS = 3
"""Fewest reps a set is prescribed with (a new exercise whose lightest load allows fewer is left out)."""

INTERVALS: dict[str, tuple[int, int]] = {"beginner": (20, 40), "intermediate": (30, 30), "expert": (40, 20)}
"""Work and rest seconds of one interval round, by level."""


def prescription_kind(entry: CatalogEntry) -> str:
    if entry.category == "stretching":
        return "stretch"
    if entry.category == "cardio":
        return "cardio"
    if entry.force == "static":
        return "hold"
    return "reps"


def exercise_kind(ex: Exercise) -> str:
    return {"duration": "cardio", "hold": "hold", "intervals": "cardio"}.get(ex.exercise_type, "reps")


def scheme(plan: SessionPlan, compound: bool) -> tuple[list[int], RepRange, float]:
    """(reps per set without history, the prescribed rep range, the target RPE) for the user's leading
    goal (or the plan's style): the range and effort from trainer.domain.prescriptions."""
    style = plan.style or leading_style(plan.goals)
    table = {
        "strength": [5, 5, 5, 5] if compound else [8, 8, 8],
        "hypertrophy": [10, 10, 8, 8] if compound else [12, 12, 12],
        "endurance": [15, 15, 15],
        "power": [5, 5, 5] if compound else [10, 10, 10],
    }
    reps = table.get(style, [10, 10, 10] if compound else [12, 12, 12])
    if plan.intensity == "light":
        reps = reps[: max(2, len(reps) - 1)]
    elif plan.intensity == "hard" and len(reps) < 5:
        reps = [*reps, reps[-1]]
    return list(reps), prescribed_range(style, compound=compound), target_rpe(style, plan.level)


def reasoning(entry: CatalogEntry, plan: SessionPlan, note: str, *, requested: bool, cardio: bool) -> str:
    primary = entry.primary_muscle
    reasons: list[str] = []
    if requested:
        reasons.append("You asked for it.")
    elif cardio:
        reasons.append("Cardio as requested." if plan.wants_cardio else "Cardio is under its goal share.")
    elif primary in plan.temp_muscles:
        reasons.append(f"Your current preference: {primary}.")
    elif primary in plan.focus:
        reasons.append(f"You asked for {primary}.")
    elif primary in plan.perm_muscles:
        reasons.append(f"Matches your preference for {primary}.")
    debt = plan.muscle_debt.get(primary, 0.0)
    if debt > 0.02:
        reasons.append(f"{primary} is {debt:.0%} under target.")
    fits = goal_fits(entry, plan.goals)
    if fits:
        reasons.append(f"Supports {max(sorted(fits), key=lambda g: fits[g])}.")
    if not reasons:
        reasons.append(f"Balanced work for {primary}.")
    if note:
        reasons.append(note)
    return " ".join(reasons)[:300]


class BeyondRule(Exception):
    """Even the lightest weight at hand is beyond the progression rule for a useful set."""


def reps_within_rule(load: float, reps: list[int], target: ProgressionTarget) -> list[int]:
    """The reps, capped where the load's implied one-rep max would pass the target's by more than the
    checks allow (the lightest weight at hand can be heavy for many reps of a new exercise)."""
    limit = target.reference_e1rm * (1 + JUMP_E1RM_TOLERANCE)
    fitting = [r for r in range(max(reps), 0, -1) if implied_1rm(load, r) <= limit]
    if not fitting or fitting[0] < MIN_REPS:
        raise BeyondRule(target.exercise_name)
    return [min(r, fitting[0]) for r in reps]


def prescribed(
    entry: CatalogEntry,
    plan: SessionPlan,
    order: int,
    *,
    minutes: float | None = None,
    rounds: int | None = None,
    requested: bool = False,
) -> Exercise:
    """The exercise as prescribed: cardio for `minutes`, intervals when `rounds` is given, else sets
    (reps from the goal's scheme or the progression target, loads from the target). Raises BeyondRule
    when no load at hand fits the rule."""
    fits = goal_fits(entry, plan.goals)
    fallback = "Cardio" if rounds else FALLBACK_GOAL.get(entry_kind(entry), "Strength")
    goals = rounded_shares(fits) if fits else [(fallback, 1.0)]
    base: dict[str, Any] = {
        "exercise_name": entry.name, "order": order,
        "muscles_utilized": [{"muscle": m, "share": s} for m, s in entry.muscles],
        "goals_addressed": [{"goal": g, "share": s} for g, s in goals],
        "equipment": list(entry.equipment),
    }  # fmt: skip
    kind = prescription_kind(entry)
    note = ""
    if rounds:
        work, rest = INTERVALS["beginner" if plan.intensity == "light" else plan.level]
        base.update(exercise_type="intervals", rounds=rounds, work_sec=work, rest_sec=rest)
        note = f"Intervals: {work} s hard, {rest} s easy."
    elif kind == "cardio":
        base.update(exercise_type="duration", duration_min=float(minutes or 10))
        note = "Steady pace: you can still talk."
    elif kind == "stretch":
        base.update(exercise_type="hold", sets=2, hold_sec=[30, 30], rest_sec=15)
    elif kind == "hold":
        holds = [30, 30, 30] if plan.level == "beginner" else [45, 45, 45]
        base.update(exercise_type="hold", sets=len(holds), hold_sec=holds, rest_sec=45)
    elif entry.category == "plyometrics":
        base.update(exercise_type="reps", sets=3, reps=[8, 8, 8], rest_sec=60)
    else:
        compound = entry.mechanic == "compound"
        reps, rep_range, rpe = scheme(plan, compound)
        loaded = [e for e in entry.equipment if e in STARTING_LOADS]
        if loaded:
            steps, implement = plan.load_steps, equipment_class(entry.name, entry.equipment)
            target = progression_target(
                entry.name, plan.exercise_history, steps, rep_range=rep_range,
                equipment=entry.equipment, muscles=entry.muscles, target_rpe=rpe,
            )  # fmt: skip
            if target is not None:
                load, note = target.load, target.reasoning
                reps = [target.reps] * len(reps)
                capped = reps_within_rule(load, reps, target)
                if capped != reps:
                    note += f" With the weights here, stop at {max(capped)} reps."
                reps = capped
            else:
                load = steps.nearest(starting_load(loaded, plan.level, plan.unit) or 0.0, implement)
                note = "New exercise: conservative starting load."
            if plan.intensity == "light":
                load = steps.down(load * 0.9, implement)
            base.update(load_each=[load] * len(reps), load_unit=plan.unit)
        rest = rest_seconds(min(reps), compound=compound)
        base.update(exercise_type="reps", sets=len(reps), reps=reps, rest_sec=rest)
    cardio = bool(rounds) or kind == "cardio"
    base["reasoning"] = reasoning(entry, plan, note, requested=requested, cardio=cardio)
    return Exercise.model_validate(base)


def exercise_seconds(ex: Exercise) -> int:
    """How long an exercise takes: its timer (work and rest) and a changeover to the next one."""
    return exercise_timer(ex).total_duration_sec + CHANGEOVER_SEC


def workout_seconds(exercises: Iterable[Exercise]) -> int:
    """The estimated duration of a list of exercises, in seconds."""
    return sum(exercise_seconds(ex) for ex in exercises)


def volume(ex: Exercise) -> int:
    match ex.exercise_type:
        case "intervals":
            return ex.rounds or 1
        case "duration":
            return round(ex.duration_min or 1)
    return ex.sets or 1


def resize(values: list[Any], n: int) -> list[Any]:
    """The last n values (a descending pyramid keeps its lowest reps), or the last one repeated."""
    return values[len(values) - n :] if n <= len(values) else values + [values[-1]] * (n - len(values))


def with_volume(ex: Exercise, n: int) -> Exercise:
    """The exercise with n sets (reps, holds), rounds (intervals) or minutes (duration)."""
    match ex.exercise_type:
        case "intervals":
            return ex.model_copy(update={"rounds": n})
        case "duration":
            return ex.model_copy(update={"duration_min": float(n)})
        case "hold":
            return ex.model_copy(update={"sets": n, "hold_sec": resize(ex.hold_sec or [30], n)})
    update: dict[str, Any] = {"sets": n, "reps": resize(ex.reps or [10], n)}
    if ex.load_each:
        update["load_each"] = resize(ex.load_each, n)
    return ex.model_copy(update=update)


def volume_range(entry: CatalogEntry, ex: Exercise) -> tuple[int, int]:
    match ex.exercise_type:
        case "intervals":
            return 4, 12
        case "duration":
            return 5, 90
        case "hold":
            return 2, 4
    return (2, 5) if entry.mechanic == "compound" and entry.category != "plyometrics" else (2, 4)


def prescribe_exercise(
    req: ComposerRequest, entry: CatalogEntry, order: int = 1, *, requested: bool = False
) -> Exercise:
    """One catalog exercise prescribed for this user as a composed workout would have it (the goal's
    sets and reps, loads from the progression targets and within their rule, cardio for 10 minutes);
    `requested`: the user asked for it by name. The hard rules are the caller's to check (`allowed`);
    ComposerError when no load at hand fits the rule."""
    plan = resolve_plan(req)
    try:
        return prescribed(entry, plan, order, minutes=10, requested=requested)
    except BeyondRule as exc:
        raise ComposerError(f"Even the lightest weight here is too heavy for {entry.name} yet.") from exc
