"""What a request implies, resolved once (`SessionPlan`): the time budget, the muscles asked for and
avoided, the excluded exercises, what is still recovering, the equipment, goals, debts and history;
and the hard rules every exercise must pass (`allowed`).

Hard rules (never broken): only the current location's equipment; no muscle still recovering (share
>= 0.2) unless the user asked for it by name this turn; nothing an injury, an avoided area or an
excluded exercise rules out (a muscle an injury rules out may not be loaded at all). The time budget:
the time asked ('quick' = QUICK_MINUTES, '30 minutes', 'half an hour'), else a time preference, else
the user's usual session length, else DEFAULT_TIME_BUDGET_MIN."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Literal, get_args

from trainer.domain.catalog import LEVELS, CatalogEntry
from trainer.domain.composer.request import (
    QUICK,
    QUICK_MINUTES,
    ComposerRequest,
    parse_request,
    says_beginner,
)
from trainer.domain.distribution import normalise_weights
from trainer.domain.equipment import available_equipment
from trainer.domain.loading import LoadSteps
from trainer.domain.movements import movement_pattern
from trainer.domain.progression import ExerciseHistory, exercise_histories
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, as_utc, recovering_muscles
from trainer.domain.units import distance_unit as canonical_distance_unit
from trainer.domain.units import weight_unit
from trainer.domain.workout_checks import (
    exercise_matches,
    is_temporary,
    name_key,
    parse_time_budget,
    preference_constraints,
)
from trainer.domain.workout_grouping import zone

DEFAULT_TIME_BUDGET_MIN = 45


def compact_name(text: str) -> str:
    """Letters and digits of singular words: 'Push-Ups' -> 'pushup' (what a name contains, spaces aside)."""
    return name_key(text).replace(" ", "")


def name_excluded(name: str, phrase: str) -> bool:
    """True when an exercise name holds an excluded phrase, as words or run together ('push up' in
    'Pushups', 'row' in 'Bent Over Barbell Row')."""
    key = compact_name(phrase)
    return exercise_matches(name, phrase) or (len(key) >= 3 and key in compact_name(name))


@lru_cache(maxsize=4096)
def pattern_of(name: str) -> str | None:
    return movement_pattern(name)


@dataclass
class SessionPlan:
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
    exercise_history: dict[str, ExerciseHistory]
    load_steps: LoadSteps
    movements: tuple[re.Pattern[str], ...] = ()
    movement_words: tuple[str, ...] = ()
    """How the request named each of `movements` ('pull-ups')."""
    asked_muscles: frozenset[str] = frozenset()
    """The muscles the request named, before the avoided ones left `focus` ('legs' with bad knees)."""
    avoid_patterns: frozenset[str] = frozenset()
    style: str | None = None
    """Overrides the goal's set-and-rep style ('endurance' for a cardio request built from strength work)."""
    cap_min: int | None = None
    """The session length the workout must not exceed (ComposerRequest.session_cap_minutes)."""
    restrict_to_focus: bool = False
    """The request named muscles or a body part: every lift's primary muscle is one of `focus`."""

    @property
    def targets(self) -> set[str]:
        """The muscles the session is for (temporary preferences and the request); empty: full body."""
        return self.focus | self.temp_muscles


def resolve_plan(req: ComposerRequest) -> SessionPlan:
    temp_prefs = [p for p in req.preferences if is_temporary(p)]
    perm_prefs = [p for p in req.preferences if not is_temporary(p)]
    temp, perm, every = (preference_constraints(temp_prefs), preference_constraints(perm_prefs),
                         preference_constraints(req.preferences))  # fmt: skip
    parsed = parse_request(req.request_text or "")
    focus = set(req.focus_muscles) if req.focus_muscles is not None else set(parsed.focus)
    asked_muscles = frozenset(req.focus_muscles if req.focus_muscles is not None else parsed.asked)
    text = req.request_text or ""
    quick = QUICK_MINUTES if QUICK.search(text) else None
    asked = req.time_budget_min or parse_time_budget(text) or temp.time_budget_min or quick
    budget = asked or perm.time_budget_min or req.preferred_minutes or DEFAULT_TIME_BUDGET_MIN
    cap = None if asked else req.session_cap_minutes
    if cap:
        budget = min(budget, cap)
    avoided = dict(every.avoided_muscles)
    for muscle in sorted(parsed.avoid | set(req.excluded_muscles)):
        avoided.setdefault(muscle, "requested")
    focus -= set(avoided)
    excluded = dict(every.excluded_exercises)
    for name in sorted(req.excluded_exercises):
        excluded.setdefault(name_key(name), "excluded")
    for phrase in parsed.dislikes:
        excluded.setdefault(phrase, "requested")
    now = as_utc(req.now) if req.now else None
    if now is None and req.history:
        now = max(as_utc(r["performed_at"]) for r in req.history if r.get("performed_at"))
    recovering = req.recovering if req.recovering is not None else (
        recovering_muscles(req.history, now) if now else {})  # fmt: skip
    blocked = {m: t for m, t in recovering.items() if m not in focus}
    equipment = available_equipment(set() if parsed.bodyweight_only else req.available_equipment)
    equipment -= every.unavailable_equipment | parsed.without
    recent_cutoff = now - timedelta(hours=72) if now else None
    recent = {
        name_key(str(r.get("exercise_name", "")))
        for r in req.history
        if recent_cutoff and r.get("performed_at") and as_utc(r["performed_at"]) >= recent_cutoff
    }
    level = req.experience_level if req.experience_level in LEVELS else "intermediate"
    if says_beginner(text, req.preferences):
        level = "beginner"
    unit = weight_unit(req.weight_unit)
    sessions = req.progression_history if req.progression_history is not None else req.history
    return SessionPlan(
        unit=unit,
        dist_unit=canonical_distance_unit(req.distance_unit),
        budget_min=max(5, int(budget)),
        cap_min=cap,
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
        wants_cardio=parsed.cardio,
        wants_mobility=parsed.mobility,
        level=level,
        now=now,
        recent_names=recent,
        familiar_names={name_key(str(r.get("exercise_name", ""))) for r in req.history},
        exercise_history=exercise_histories(sessions, unit, zone(req.timezone)),
        load_steps=req.load_steps or LoadSteps.for_unit(unit),
        movements=parsed.movements,
        movement_words=parsed.movement_words,
        asked_muscles=asked_muscles,
        restrict_to_focus=bool(focus) and not parsed.mobility,
    )


def on_focus(entry: CatalogEntry, plan: SessionPlan) -> bool:
    """An exercise a muscle or body-part request allows: its primary muscle is one asked for."""
    return not plan.restrict_to_focus or entry.primary_muscle in plan.focus


HardRule = Literal["equipment", "level", "avoided", "recovering", "left_out"]
"""The hard rules, in the order `broken_rules` checks them: the location's equipment, the user's level,
an injury or avoided area, a muscle still recovering, an exercise or movement the user left out."""
HARD_RULES: tuple[HardRule, ...] = get_args(HardRule)


def broken_rules(entry: CatalogEntry, plan: SessionPlan) -> list[HardRule]:
    """Every hard rule the exercise breaks, in HardRule order (none: `allowed`, which stops at the
    first and is the hot path; tests/unit/domain/test_composer_relaxing.py holds them equal)."""
    broken: list[HardRule] = []
    if not plan.equipment.issuperset(entry.equipment):
        broken.append("equipment")
    if LEVELS.index(entry.level) > LEVELS.index(plan.level):
        broken.append("level")
    if any(m in plan.avoided for m, s in entry.muscles if s > 0):
        broken.append("avoided")
    if entry.worked_muscles(WORKED_SHARE_THRESHOLD) & plan.blocked.keys():
        broken.append("recovering")
    if (plan.avoid_patterns and pattern_of(entry.name) in plan.avoid_patterns) or any(
        name_excluded(entry.name, phrase) for phrase in plan.excluded
    ):
        broken.append("left_out")
    return broken


def allowed(entry: CatalogEntry, plan: SessionPlan) -> bool:
    """The hard rules: equipment, level, injuries/avoidances, recovery, excluded exercises (and, for a
    swap away from a disliked movement, its pattern)."""
    if not plan.equipment.issuperset(entry.equipment):
        return False
    if LEVELS.index(entry.level) > LEVELS.index(plan.level):
        return False
    if any(m in plan.avoided for m, s in entry.muscles if s > 0):
        return False
    if entry.worked_muscles(WORKED_SHARE_THRESHOLD) & plan.blocked.keys():
        return False
    if plan.avoid_patterns and pattern_of(entry.name) in plan.avoid_patterns:
        return False
    return not any(name_excluded(entry.name, phrase) for phrase in plan.excluded)
