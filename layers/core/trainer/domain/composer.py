"""The offline workout composer: builds a valid Workout from the catalog without a model.

Hard rules (never broken): only available equipment; no muscle still recovering (share >= 0.2)
unless the user asked for it by name this turn; nothing an injury or preference rules out.
Soft ranking follows seed 001's priority: temporary preferences, the explicit request, permanent
preferences, distribution debt, goal weights, then history (familiar exercises, variety).
Deterministic: the same request always gives the same workout.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from trainer.domain.catalog import LEVELS, Catalog, CatalogEntry, load_catalog
from trainer.domain.distribution import DistributionRow, normalise_weights
from trainer.domain.equipment import BODYWEIGHT, available_equipment
from trainer.domain.progression import STARTING_LOADS, starting_load, suggest_from_history
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, as_utc, recovering_muscles
from trainer.domain.timers import exercise_timer
from trainer.domain.units import distance_unit as canonical_distance_unit
from trainer.domain.units import round_load, weight_unit
from trainer.domain.workout import Exercise, Workout, WorkoutSummary
from trainer.domain.workout_checks import (
    exercise_matches,
    is_temporary,
    muscles_in_text,
    name_key,
    parse_time_budget,
    preference_constraints,
)

DEFAULT_TIME_BUDGET_MIN = 45
CHANGEOVER_SEC = 60
"""Time between exercises (setting up, walking to the next station)."""
MAX_EXERCISES = 10
MAX_PER_PRIMARY = 2

_NEGATIVE_CLAUSE = re.compile(
    r"\b(avoid\w*|no|not|skip\w*|without|exclud\w*|hurts?|injur\w*|pain\w*|sore|don'?t|except)\b", re.I
)
_CARDIO = re.compile(
    r"\b(cardio|run|running|jog\w*|cycl\w*|bike|rowing|hiit|conditioning|endurance|sweat)\b", re.I
)
_MOBILITY = re.compile(r"\b(stretch\w*|mobility|flexibility|yoga|cool ?down|limber)\b", re.I)
_FULL_BODY = re.compile(r"\bfull[\s-]?body\b", re.I)
_STRENGTH_CATEGORIES = {"strength", "powerlifting", "olympic weightlifting", "strongman"}
_BASELINE: dict[str, float] = {
    "Chest": 1.0, "Back": 1.0, "Quadriceps": 1.0, "Hamstrings": 0.8, "Glutes": 0.8, "Shoulders": 0.8,
    "Abs": 0.6, "Biceps": 0.4, "Triceps": 0.4, "Calves": 0.3, "Lower Back": 0.3, "Trapezius": 0.2,
}  # fmt: skip
"""Balanced full-body emphasis when nothing else says what to train."""
STAPLE_EXERCISES: frozenset[str] = frozenset(
    {
        "Ab Roller",
        "Arnold Dumbbell Press",
        "Band Pull Apart",
        "Barbell Bench Press - Medium Grip",
        "Barbell Curl",
        "Barbell Deadlift",
        "Barbell Glute Bridge",
        "Barbell Hip Thrust",
        "Barbell Lunge",
        "Barbell Shrug",
        "Barbell Squat",
        "Bench Dips",
        "Bent Over Barbell Row",
        "Bicycling, Stationary",
        "Bodyweight Squat",
        "Bodyweight Walking Lunge",
        "Butt Lift (Bridge)",
        "Cable Crossover",
        "Cable Crunch",
        "Calf Raise On A Dumbbell",
        "Chin-Up",
        "Close-Grip Barbell Bench Press",
        "Crunches",
        "Dips - Triceps Version",
        "Dumbbell Bench Press",
        "Dumbbell Bicep Curl",
        "Dumbbell Flyes",
        "Dumbbell Lunges",
        "Dumbbell Rear Lunge",
        "Dumbbell Shoulder Press",
        "Dumbbell Shrug",
        "Dumbbell Squat",
        "Dumbbell Step Ups",
        "EZ-Bar Curl",
        "Elliptical Trainer",
        "Face Pull",
        "Front Dumbbell Raise",
        "Glute Ham Raise",
        "Goblet Squat",
        "Hack Squat",
        "Hammer Curls",
        "Hanging Leg Raise",
        "Hyperextensions (Back Extensions)",
        "Incline Dumbbell Press",
        "Incline Push-Up",
        "Inverted Row",
        "Kettlebell One-Legged Deadlift",
        "Lateral Raise - With Bands",
        "Leg Extensions",
        "Leg Press",
        "Lying Leg Curls",
        "Lying Triceps Press",
        "Machine Shoulder (Military) Press",
        "Mountain Climbers",
        "One-Arm Dumbbell Row",
        "One-Arm Kettlebell Swings",
        "Plank",
        "Pullups",
        "Push-Up Wide",
        "Pushups",
        "Reverse Flyes",
        "Romanian Deadlift",
        "Rope Jumping",
        "Rowing, Stationary",
        "Running, Treadmill",
        "Russian Twist",
        "Seated Cable Rows",
        "Seated Calf Raise",
        "Seated Dumbbell Press",
        "Side Bridge",
        "Side Lateral Raise",
        "Single Leg Glute Bridge",
        "Sit-Up",
        "Split Squats",
        "Standing Calf Raises",
        "Standing Dumbbell Calf Raise",
        "Standing Military Press",
        "Stiff-Legged Dumbbell Deadlift",
        "Superman",
        "T-Bar Row with Handle",
        "Thigh Abductor",
        "Thigh Adductor",
        "Trail Running/Walking",
        "Triceps Pushdown",
        "Walking, Treadmill",
        "Wide-Grip Lat Pulldown",
        "Wrist Roller",
    }
)
"""Well-known movements, preferred over obscure variants that train the same muscles."""


class ComposerError(ValueError):
    """No workout can be built under the user's constraints (the message says why)."""


@dataclass
class ComposerRequest:
    request_text: str = ""
    weight_unit: str = "kg"
    distance_unit: str = "km"
    available_equipment: set[str] = field(default_factory=lambda: {BODYWEIGHT})
    category_goals: dict[str, float] = field(default_factory=dict)
    muscle_goals: dict[str, float] = field(default_factory=dict)
    category_debt: list[DistributionRow] = field(default_factory=list)
    muscle_debt: list[DistributionRow] = field(default_factory=list)
    preferences: list[dict[str, Any]] = field(default_factory=list)
    """{type, description, guidance, temporary: bool} (expires_at / delete_after_use also mean temporary)."""
    history: list[dict[str, Any]] = field(default_factory=list)
    now: datetime | None = None
    """Recovery reference time; None means the latest history entry (everything just logged recovers)."""
    time_budget_min: int | None = None
    """Explicit budget; else parsed from the request text, else 45 minutes."""
    focus_muscles: set[str] | None = None
    """Explicitly requested muscles; None means parse them from the request text."""
    excluded_exercises: set[str] = field(default_factory=set)
    excluded_muscles: set[str] = field(default_factory=set)
    experience_level: str = "intermediate"
    recovering: dict[str, datetime] | None = None
    """Precomputed muscle -> ready-at; None means derive it from history."""


def parse_request_muscles(text: str) -> tuple[set[str], set[str]]:
    """(muscles asked for, muscles to leave out) from the request, clause by clause:
    'legs today but nothing for my knee' -> ({legs...}, {Quadriceps, Hamstrings})."""
    focus: set[str] = set()
    avoid: set[str] = set()
    for clause in re.split(r"[.,;!?]|\bbut\b|\band\b|\bexcept\b(?=)", text):
        if not clause.strip():
            continue
        if _NEGATIVE_CLAUSE.search(clause):
            avoid |= muscles_in_text(clause, include_joints=True)
        else:
            focus |= muscles_in_text(clause)
    if re.search(r"\bexcept\b", text, re.I):
        avoid |= muscles_in_text(text.lower().split("except", 1)[1], include_joints=True)
    if _FULL_BODY.search(text):
        focus = set()
    return focus - avoid, avoid


def parse_focus(text: str) -> set[str]:
    """Muscles the request asks for: 'chest', 'legs', 'upper body', 'push'... ('full body': none)."""
    return parse_request_muscles(text)[0]


def _goal_kind(goal: str) -> str:
    g = goal.lower()
    for kind, pattern in (
        ("mobility", r"mobil|flex|stretch|yoga"),
        ("power", r"power|explos|athlet|speed|agil|jump"),
        ("endurance", r"endur|cardio|condition|fat|weight ?loss|stamina|aerobic|heart|lean"),
        ("strength", r"strength|strong|max"),
        ("hypertrophy", r"hypertroph|muscle|size|build|bulk|tone|mass|aesthet"),
    ):
        if re.search(pattern, g):
            return kind
    return "general"


def _entry_kind(entry: CatalogEntry) -> str:
    if entry.category in _STRENGTH_CATEGORIES:
        return "strength"
    return entry.category


_FIT: dict[str, dict[str, float]] = {
    "strength": {"strength": 1.0, "hypertrophy": 1.0, "general": 1.0, "power": 0.5, "endurance": 0.3},
    "cardio": {"endurance": 1.0, "general": 0.6, "power": 0.2},
    "plyometrics": {"power": 1.0, "endurance": 0.7, "general": 0.5, "strength": 0.2},
    "stretching": {"mobility": 1.0, "general": 0.2},
}
_FALLBACK_GOAL = {
    "strength": "Strength",
    "cardio": "Cardio",
    "plyometrics": "Power",
    "stretching": "Mobility",
}


def _goal_fits(entry: CatalogEntry, goals: Mapping[str, float]) -> dict[str, float]:
    """goal -> weight x fit for the user's goals this exercise serves."""
    fit = _FIT.get(_entry_kind(entry), _FIT["strength"])
    return {g: w * fit[_goal_kind(g)] for g, w in goals.items() if fit.get(_goal_kind(g), 0) > 0}


def _rounded_shares(weights: Mapping[str, float], keep: int = 3) -> list[tuple[str, float]]:
    top = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:keep]
    total = sum(w for _, w in top)
    shares = [(n, round(w / total, 2)) for n, w in top]
    shares = [(n, s) for n, s in shares if s > 0] or [(top[0][0], 1.0)]
    remainder = round(1.0 - sum(s for _, s in shares), 2)
    shares[0] = (shares[0][0], round(shares[0][1] + remainder, 2))
    return shares


@dataclass
class _Plan:
    """Everything the request implies, resolved once."""

    unit: str
    dist_unit: str
    budget_min: int
    focus: set[str]
    temp_muscles: set[str]
    perm_muscles: set[str]
    avoided: dict[str, str]
    excluded: dict[str, str]
    blocked: dict[str, datetime]
    equipment: set[str]
    goals: dict[str, float]
    goal_debt: dict[str, float]
    muscle_debt: dict[str, float]
    muscle_goals: dict[str, float]
    intensity: str | None
    wants_cardio: bool
    wants_mobility: bool
    level: str
    now: datetime | None
    recent_names: set[str]
    familiar_names: set[str]


def _plan(req: ComposerRequest) -> _Plan:
    temp_prefs = [p for p in req.preferences if is_temporary(p)]
    perm_prefs = [p for p in req.preferences if not is_temporary(p)]
    temp, perm, every = (preference_constraints(temp_prefs), preference_constraints(perm_prefs),
                         preference_constraints(req.preferences))  # fmt: skip
    text = req.request_text or ""
    parsed_focus, request_avoid = parse_request_muscles(text)
    focus = set(req.focus_muscles) if req.focus_muscles is not None else parsed_focus
    budget = (temp.time_budget_min or req.time_budget_min or parse_time_budget(text) or perm.time_budget_min
              or DEFAULT_TIME_BUDGET_MIN)  # fmt: skip
    avoided = dict(every.avoided_muscles)
    for muscle in sorted(request_avoid | set(req.excluded_muscles)):
        avoided.setdefault(muscle, "requested")
    focus -= set(temp.avoided_muscles)
    excluded = dict(every.excluded_exercises)
    for name in sorted(req.excluded_exercises):
        excluded.setdefault(name_key(name), "excluded")
    now = as_utc(req.now) if req.now else None
    if now is None and req.history:
        now = max(as_utc(r["performed_at"]) for r in req.history if r.get("performed_at"))
    recovering = req.recovering if req.recovering is not None else (
        recovering_muscles(req.history, now) if now else {})  # fmt: skip
    blocked = {m: t for m, t in recovering.items() if m not in focus}
    equipment = available_equipment(req.available_equipment)
    equipment -= every.unavailable_equipment
    recent_cutoff = now - timedelta(hours=72) if now else None
    recent = {
        name_key(str(r.get("exercise_name", "")))
        for r in req.history
        if recent_cutoff and r.get("performed_at") and as_utc(r["performed_at"]) >= recent_cutoff
    }
    level = req.experience_level if req.experience_level in LEVELS else "intermediate"
    return _Plan(
        unit=weight_unit(req.weight_unit),
        dist_unit=canonical_distance_unit(req.distance_unit),
        budget_min=int(budget),
        focus=focus,
        temp_muscles=temp.temporary_muscles - set(avoided),
        perm_muscles=perm.permanent_muscles - set(avoided),
        avoided=avoided,
        excluded=excluded,
        blocked=blocked,
        equipment=equipment,
        goals=normalise_weights(req.category_goals),
        goal_debt={r.name: r.debt for r in req.category_debt},
        muscle_debt={r.name: r.debt for r in req.muscle_debt},
        muscle_goals=normalise_weights(req.muscle_goals),
        intensity=temp.intensity or perm.intensity,
        wants_cardio=bool(_CARDIO.search(text)),
        wants_mobility=bool(_MOBILITY.search(text)),
        level=level,
        now=now,
        recent_names=recent,
        familiar_names={name_key(str(r.get("exercise_name", ""))) for r in req.history},
    )


def allowed(entry: CatalogEntry, plan: _Plan) -> bool:
    """The hard rules: equipment, level, injuries/avoidances, recovery, excluded exercises."""
    if not plan.equipment.issuperset(entry.equipment):
        return False
    if LEVELS.index(entry.level) > LEVELS.index(plan.level):
        return False
    involved = {m for m, s in entry.muscles if s > 0}
    if involved & set(plan.avoided):
        return False
    if entry.worked_muscles(WORKED_SHARE_THRESHOLD) & set(plan.blocked):
        return False
    return not any(exercise_matches(entry.name, phrase) for phrase in plan.excluded)


def _muscle_priority(plan: _Plan) -> dict[str, float]:
    """Share-weighted tiers: distribution debt, then muscle goal weights (a balanced full-body
    baseline when no tier above says what to train)."""
    weights: dict[str, float] = {}
    for m, debt in plan.muscle_debt.items():
        weights[m] = weights.get(m, 0.0) + 4.0 * debt
    for m, w in plan.muscle_goals.items():
        weights[m] = weights.get(m, 0.0) + 2.0 * w
    if not (plan.temp_muscles or plan.focus or plan.perm_muscles or plan.muscle_goals):
        for m, w in _BASELINE.items():
            weights[m] = weights.get(m, 0.0) + w
    return weights


def _tier_match(entry: CatalogEntry, muscles: set[str]) -> float:
    """How squarely an exercise hits a requested set: mostly whether its primary muscle is in it."""
    if not muscles:
        return 0.0
    return 0.7 * (entry.primary_muscle in muscles) + 0.3 * sum(s for m, s in entry.muscles if m in muscles)


def _score(entry: CatalogEntry, plan: _Plan, muscle_weights: Mapping[str, float]) -> float:
    """Relevance (what to train, in priority order) scaled by how good a pick the movement is,
    plus a small history term (familiar exercises up, ones done in the last 72 h down)."""
    relevance = 1000.0 * _tier_match(entry, plan.temp_muscles) + 100.0 * _tier_match(entry, plan.focus)
    relevance += 10.0 * _tier_match(entry, plan.perm_muscles)
    relevance += sum(share * muscle_weights.get(m, 0.0) for m, share in entry.muscles)
    fits = _goal_fits(entry, plan.goals)
    total_fit = sum(fits.values())
    if total_fit:
        relevance += sum(3.0 * plan.goal_debt.get(g, 0.0) * f / total_fit for g, f in fits.items())
        relevance += 1.5 * total_fit
    quality = 1.0 + 0.3 * (entry.name in STAPLE_EXERCISES) + 0.1 * (entry.mechanic == "compound")
    quality += 0.05 * bool(entry.equipment and entry.equipment != ("bench",)) - 0.02 * len(entry.name.split())
    key = name_key(entry.name)
    history = 0.05 * (key in plan.familiar_names) - 0.1 * (key in plan.recent_names)
    return relevance * quality + history + 0.01 * quality


def _kind(entry: CatalogEntry) -> str:
    if entry.category == "stretching":
        return "stretch"
    if entry.category == "cardio":
        return "cardio"
    if entry.force == "static":
        return "hold"
    return "reps"


def _scheme(plan: _Plan, compound: bool) -> tuple[list[int], int]:
    """(reps per set, rest seconds) for the user's leading goal."""
    leading = max(sorted(plan.goals), key=lambda g: plan.goals[g], default=None)
    style = _goal_kind(leading) if leading else "general"
    table = {
        "strength": ([5, 5, 5, 5], 150) if compound else ([8, 8, 8], 90),
        "hypertrophy": ([10, 10, 8, 8], 90) if compound else ([12, 12, 12], 60),
        "endurance": ([15, 15, 15], 45),
        "power": ([5, 5, 5], 120) if compound else ([10, 10, 10], 60),
    }
    reps, rest = table.get(style, ([10, 10, 10], 90) if compound else ([12, 12, 12], 60))
    if plan.intensity == "light":
        reps = reps[: max(2, len(reps) - 1)]
    elif plan.intensity == "hard" and len(reps) < 5:
        reps = [*reps, reps[-1]]
    return list(reps), rest


def _reasoning(entry: CatalogEntry, plan: _Plan, load_note: str) -> str:
    primary = entry.primary_muscle
    reasons: list[str] = []
    if entry.category == "cardio":
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
    fits = _goal_fits(entry, plan.goals)
    if fits:
        reasons.append(f"Supports {max(sorted(fits), key=lambda g: fits[g])}.")
    if not reasons:
        reasons.append(f"Balanced work for {primary}.")
    if load_note:
        reasons.append(load_note)
    return " ".join(reasons)[:300]


def _exercise(entry: CatalogEntry, plan: _Plan, history: Sequence[Mapping[str, Any]], order: int,
              minutes: float | None = None) -> Exercise:  # fmt: skip
    fits = _goal_fits(entry, plan.goals)
    goals = _rounded_shares(fits) if fits else [(_FALLBACK_GOAL.get(_entry_kind(entry), "Strength"), 1.0)]
    base: dict[str, Any] = {
        "exercise_name": entry.name, "order": order,
        "muscles_utilized": [{"muscle": m, "share": s} for m, s in entry.muscles],
        "goals_addressed": [{"goal": g, "share": s} for g, s in goals],
        "equipment": list(entry.equipment),
    }  # fmt: skip
    kind = _kind(entry)
    load_note = ""
    if kind == "cardio":
        base.update(exercise_type="duration", duration_min=float(minutes or 10))
    elif kind == "stretch":
        base.update(exercise_type="hold", sets=2, hold_sec=[30, 30], rest_sec=15)
    elif kind == "hold":
        holds = [30, 30, 30] if plan.level == "beginner" else [45, 45, 45]
        base.update(exercise_type="hold", sets=len(holds), hold_sec=holds, rest_sec=45)
    elif entry.category == "plyometrics":
        base.update(exercise_type="reps", sets=3, reps=[8, 8, 8], rest_sec=60)
    else:
        reps, rest = _scheme(plan, entry.mechanic == "compound")
        base.update(exercise_type="reps", sets=len(reps), reps=reps, rest_sec=rest)
        loaded = [e for e in entry.equipment if e in STARTING_LOADS]
        if loaded:
            suggestion = suggest_from_history(history, entry.name, plan.unit)
            if suggestion:
                load = suggestion.load
                verb = "Up from" if suggestion.success else "Holding after"
                load_note = f"{verb} {suggestion.last_load:g} {plan.unit} last time."
            else:
                load = starting_load(loaded, plan.level, plan.unit) or 0.0
                load_note = "New exercise: conservative starting load."
            if plan.intensity == "light":
                load = round_load(load * 0.9, plan.unit)
            base.update(load_each=[load] * len(reps), load_unit=plan.unit)
    base["reasoning"] = _reasoning(entry, plan, load_note)
    return Exercise.model_validate(base)


def _seconds(ex: Exercise) -> int:
    return exercise_timer(ex).total_duration_sec + CHANGEOVER_SEC


def _rank(entries: Iterable[CatalogEntry], plan: _Plan) -> list[tuple[float, CatalogEntry]]:
    weights = _muscle_priority(plan)
    scored = [(_score(e, plan, weights), e) for e in entries]
    scored.sort(key=lambda se: (-se[0], se[1].name))
    return scored


def _order_key(ex: Exercise, entry: CatalogEntry, cardio_first: bool, rank: int) -> tuple[int, int]:
    kind = _kind(entry)
    if kind == "cardio":
        return (0 if cardio_first else 3, rank)
    if kind == "stretch":
        return (4, rank)
    if kind == "hold":
        return (2, rank)
    return (1 if entry.mechanic == "compound" else 2, rank)


def compose_workout(req: ComposerRequest, catalog: Catalog | None = None) -> Workout:
    """A complete, valid workout for the request (raises ComposerError when nothing fits)."""
    plan = _plan(req)
    cat = catalog or load_catalog()
    candidates = [e for e in cat.entries if allowed(e, plan)]
    if not candidates:
        raise ComposerError(_why_nothing(plan))
    budget_sec = plan.budget_min * 60
    picked: list[tuple[CatalogEntry, Exercise]] = []
    used_sec = 0

    cardio_pool = [e for e in candidates if e.category == "cardio"]
    cardio_debt = sum(d for g, d in plan.goal_debt.items() if _goal_kind(g) == "endurance" and d > 0)
    wants_cardio = plan.wants_cardio or (cardio_debt >= 0.1 and plan.budget_min >= 30 and not plan.focus)
    if wants_cardio and cardio_pool:
        share = 0.75 if plan.wants_cardio else 0.25
        minutes = max(5.0, min(40.0, round(plan.budget_min * share / 5) * 5))
        entry = _rank(cardio_pool, plan)[0][1]
        ex = _exercise(entry, plan, req.history, 1, minutes)
        picked.append((entry, ex))
        used_sec += _seconds(ex)

    main_pool = [e for e in candidates if e.category not in ("cardio", "stretching")]
    if plan.wants_mobility:
        main_pool = [e for e in candidates if e.category == "stretching"] or main_pool
    else:
        skip = set() if plan.level == "expert" else {"olympic weightlifting", "strongman"}
        if not (plan.wants_cardio or {_goal_kind(g) for g in plan.goals} & {"power", "endurance"}):
            skip.add("plyometrics")
        main_pool = [e for e in main_pool if e.category not in skip] or main_pool
    ranked = _rank(main_pool, plan)
    per_primary: dict[str, int] = {}
    chosen_keys = {name_key(e.name) for e, _ in picked}
    limit = MAX_PER_PRIMARY + (1 if plan.focus or plan.temp_muscles else 0)
    while len(picked) < MAX_EXERCISES and ranked:
        best_i, best_score = -1, -math.inf
        for i, (score, entry) in enumerate(ranked):
            count = per_primary.get(entry.primary_muscle, 0)
            if count >= limit or name_key(entry.name) in chosen_keys:
                continue
            adjusted = score * (0.7**count) if score > 0 else score - count
            if adjusted > best_score:
                best_i, best_score = i, adjusted
        if best_i < 0:
            break
        _, entry = ranked.pop(best_i)
        ex = _exercise(entry, plan, req.history, len(picked) + 1)
        cost = _seconds(ex)
        if picked and used_sec + cost > budget_sec:
            if used_sec >= budget_sec * 0.75:
                break
            continue
        picked.append((entry, ex))
        chosen_keys.add(name_key(entry.name))
        per_primary[entry.primary_muscle] = per_primary.get(entry.primary_muscle, 0) + 1
        used_sec += cost
    if not picked:
        raise ComposerError(_why_nothing(plan))

    cardio_first = plan.wants_cardio
    ordered = sorted(enumerate(picked), key=lambda ip: _order_key(ip[1][1], ip[1][0], cardio_first, ip[0]))
    exercises = [ex.model_copy(update={"order": i + 1}) for i, (_, (_, ex)) in enumerate(ordered)]
    return Workout(title=_title(plan), exercises=exercises, summary=_summary(exercises, used_sec))


def _title(plan: _Plan) -> str:
    focus = plan.temp_muscles | plan.focus
    if plan.wants_mobility:
        name = "Mobility Session"
    elif plan.wants_cardio and not focus:
        name = "Cardio Session"
    elif not focus:
        name = "Full Body Workout"
    elif focus >= {"Quadriceps", "Hamstrings", "Glutes"} and not focus & {"Chest", "Back"}:
        name = "Leg Workout"
    elif focus >= {"Chest", "Back", "Shoulders"}:
        name = "Upper Body Workout"
    else:
        name = " & ".join(sorted(focus)[:3]) + " Workout"
    return f"{name} ({plan.budget_min} min)"


def _summary(exercises: Sequence[Exercise], used_sec: int) -> WorkoutSummary:
    goals: dict[str, float] = {}
    muscles: dict[str, float] = {}
    for ex in exercises:
        for g in ex.goals_addressed:
            goals[g.goal] = goals.get(g.goal, 0.0) + g.share
        for m in ex.muscles_utilized:
            muscles[m.muscle] = muscles.get(m.muscle, 0.0) + m.share
    return WorkoutSummary(
        estimated_duration_min=max(1, math.ceil(used_sec / 60)),
        primary_goals=[g for g, _ in sorted(goals.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
        muscles_targeted=[m for m, s in sorted(muscles.items(), key=lambda kv: (-kv[1], kv[0])) if s >= 0.2],
    )


def _why_nothing(plan: _Plan) -> str:
    parts = []
    if plan.blocked:
        parts.append(f"recovering: {', '.join(sorted(plan.blocked))}")
    if plan.avoided:
        parts.append(f"avoided: {', '.join(sorted(plan.avoided))}")
    parts.append(f"equipment: {', '.join(sorted(plan.equipment))}")
    return "No exercise fits these constraints (" + "; ".join(parts) + ")."


def compose_replacement(
    req: ComposerRequest,
    old_exercise: Exercise,
    *,
    avoid_names: Iterable[str] = (),
    catalog: Catalog | None = None,
) -> Exercise:
    """A different exercise for the same primary muscle, under the same rules, keeping the old
    exercise's order and group. The old primary muscle counts as asked for (the user is swapping,
    not dropping it); other recovering muscles stay off-limits."""
    primary = max(old_exercise.muscles_utilized, key=lambda m: m.share).muscle
    names = {*req.excluded_exercises, old_exercise.exercise_name, *avoid_names}
    focus = (req.focus_muscles if req.focus_muscles is not None else set()) | {primary}
    plan = _plan(ComposerRequest(**{**req.__dict__, "focus_muscles": focus}))
    taken = {name_key(n) for n in names}
    cat = catalog or load_catalog()
    pool = [e for e in cat.entries if allowed(e, plan) and name_key(e.name) not in taken]
    same = [e for e in pool if e.primary_muscle == primary]
    if not same:
        same = [e for e in pool if e.share_of(primary) >= WORKED_SHARE_THRESHOLD]
    if not same:
        raise ComposerError(f"No other exercise for {primary} fits the current constraints.")
    same_kind = [e for e in same if _kind(e) == _kind_of(old_exercise)] or same
    entry = _rank(same_kind, plan)[0][1]
    minutes = old_exercise.duration_min if old_exercise.exercise_type == "duration" else None
    new = _exercise(entry, plan, req.history, old_exercise.order, minutes)
    return new.model_copy(update={"group": old_exercise.group})


def _kind_of(ex: Exercise) -> str:
    return {"duration": "cardio", "hold": "hold", "intervals": "cardio"}.get(ex.exercise_type, "reps")
