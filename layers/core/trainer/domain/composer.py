"""The offline workout composer: builds a valid Workout from the catalog without a model, the way a
coach would.

Hard rules (never broken): only the current location's equipment; no muscle still recovering (share
>= 0.2) unless the user asked for it by name this turn; nothing an injury, an avoided area or an
excluded exercise rules out (a muscle an injury rules out may not be loaded at all).
Soft ranking follows seed 001's priority: temporary preferences, the explicit request (muscles, and
exercises named: 'a leg workout with squats'), permanent preferences, distribution debt, goal weights,
then history (familiar exercises, variety).
Time: the estimated duration (`workout_seconds`: every exercise's timer, work and rest, plus a
changeover) is fitted to the budget with the number of exercises, then their sets, rounds or minutes:
the time asked ('quick' = QUICK_MINUTES, '30 minutes', 'half an hour'), else a time preference, else
DEFAULT_TIME_BUDGET_MIN. Loads come from trainer.domain.progression.
Deterministic: the same request always gives the same workout.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from trainer.domain.catalog import LEVELS, Catalog, CatalogEntry, load_catalog
from trainer.domain.distribution import DistributionRow, normalise_weights
from trainer.domain.equipment import BODYWEIGHT, available_equipment
from trainer.domain.movements import equipment_class, movement_pattern
from trainer.domain.muscles import LARGE_MUSCLES
from trainer.domain.one_rep_max import epley_1rm
from trainer.domain.progression import (
    STARTING_LOADS,
    ExerciseHistory,
    LoadSteps,
    ProgressionTarget,
    exercise_histories,
    progression_target,
    starting_load,
)
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, as_utc, recovering_muscles
from trainer.domain.timers import exercise_timer
from trainer.domain.units import distance_unit as canonical_distance_unit
from trainer.domain.units import weight_unit
from trainer.domain.workout import Exercise, Workout, WorkoutSummary
from trainer.domain.workout_checks import (
    JUMP_E1RM_TOLERANCE,
    exercise_matches,
    is_temporary,
    muscles_in_text,
    name_key,
    parse_time_budget,
    preference_constraints,
)
from trainer.domain.workout_grouping import zone

DEFAULT_TIME_BUDGET_MIN = 45
QUICK_MINUTES = 20
"""What 'quick' means in a request."""
CHANGEOVER_SEC = 60
"""Time between exercises (setting up, walking to the next station)."""
MAX_EXERCISES = 10
MAX_STRETCHES = 15
MAX_PER_PRIMARY = 2
MIN_REPS = 3
"""Fewest reps a set is prescribed with (a new exercise whose lightest load allows fewer is left out)."""
FILL_TOLERANCE = 0.15
"""Past this share of the budget, under or over, the composer adds or drops an exercise."""

UPPER_BODY = frozenset({"Chest", "Back", "Shoulders", "Biceps", "Triceps", "Trapezius", "Forearms", "Neck"})
LOWER_BODY = frozenset({"Quadriceps", "Hamstrings", "Glutes", "Calves", "Abductors", "Adductors"})
CORE = frozenset({"Abs", "Lower Back"})
_PUSH = frozenset({"Chest", "Shoulders", "Triceps"})
_PULL = frozenset({"Back", "Biceps", "Trapezius", "Forearms"})
_TITLE_NAMES = {
    "Chest": "Chest", "Back": "Back", "Shoulders": "Shoulder", "Biceps": "Biceps", "Triceps": "Triceps",
    "Trapezius": "Trap", "Forearms": "Forearm", "Neck": "Neck", "Quadriceps": "Quad",
    "Hamstrings": "Hamstring", "Glutes": "Glute", "Calves": "Calf", "Abductors": "Hip",
    "Adductors": "Hip", "Abs": "Core", "Lower Back": "Lower Back",
}  # fmt: skip

_NEGATIVE_CLAUSE = re.compile(
    r"\b(avoid\w*|no|not|nothing|never|skip\w*|without|exclud\w*|spar(?:e|ing)|easy on|hurt\w*|injur\w*"
    r"|pain\w*|sore\w*|ach(?:e|es|ing|y)|tweak\w*|strain\w*|sprain\w*|don'?t|doesn'?t|can'?t|cannot|except)\b",
    re.I,
)
_CLAUSES = re.compile(r"[.,;!?]|\bbut\b|\band\b|\bexcept\b", re.I)
_CARDIO = re.compile(
    r"\b(cardio|run|running|jog\w*|cycl\w*|bike|rowing|hiit|conditioning|endurance|sweat)\b", re.I
)
_MOBILITY = re.compile(r"\b(stretch\w*|mobility|flexibility|yoga|cool ?down|limber)\b", re.I)
_FULL_BODY = re.compile(r"\bfull[\s-]?body\b", re.I)
_QUICK = re.compile(r"\bquick(?:ie)?\b|\bshort (?:workout|session|one)\b", re.I)
_OLYMPIC = re.compile(r"\b(?:snatch|clean|jerk)\b", re.I)
"""Olympic-lift derivatives: technical, for experts only."""
_ARTICLE = re.compile(r"^(?:a|an|the|my|any|some)\s+")
_BEGINNER = re.compile(
    r"\b(?:beginners?|novice|newbie|new to (?:this|working out|training|the gym|lifting|exercis\w*|fitness)"
    r"|just (?:starting|started|getting started)|(?:my )?first (?:time|workout|ever)"
    r"|never (?:trained|worked out|lifted|exercised|been to a gym))\b",
    re.I,
)
"""Words that say the user is a beginner: the workout then keeps to beginner exercises."""
_MOVEMENTS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(asked, re.I), re.compile(named))
    for asked, named in (
        (r"\bsquats?\b", r"\bsquat\b"),
        (r"\brdls?\b|\bromanian dead ?lifts?\b", r"\bromanian deadlift\b|\bstiff legged\b"),
        (r"\bdead ?lifts?\b", r"\bdeadlift\b"),
        (r"\bbench ?press(?:es)?\b|\bbenching\b", r"\bbench press\b"),
        (r"\blunges?\b", r"\blunge\b"),
        (r"\brows?\b", r"\brow\b"),
        (r"\bpull[\s-]?ups?\b|\bchin[\s-]?ups?\b", r"\bpullup\b|\bpull up\b|\bchin up\b"),
        (r"\bpush[\s-]?ups?\b|\bpress[\s-]?ups?\b", r"\bpushup\b|\bpush up\b"),
        (r"\bdips?\b", r"\bdip\b"),
        (r"\b(?:leg|hamstring) curls?\b", r"\bleg curl\b"),
        (r"(?<!leg )(?<!hamstring )\bcurls?\b", r"(?<!leg )\bcurl\b"),
        (
            r"\b(?:overhead|shoulder|military) press(?:es)?\b|\bohp\b",
            r"\b(?:shoulder|military|overhead) press\b",
        ),
        (r"\bhip thrusts?\b", r"\bhip thrust\b"),
        (r"\bbridges?\b", r"\bbridge\b"),
        (r"\bplanks?\b", r"\bplank\b"),
        (r"\bcrunch(?:es)?\b", r"\bcrunch"),
        (r"\bsit[\s-]?ups?\b", r"\bsit up\b"),
        (r"\bswings?\b", r"\bswing\b"),
        (r"\bleg press(?:es)?\b", r"\bleg press\b"),
        (r"\bcalf raises?\b", r"\bcalf raise\b"),
        (r"\bface pulls?\b", r"\bface pull\b"),
        (r"\bshrugs?\b", r"\bshrug\b"),
        (r"\bfl(?:y|ies|yes)\b", r"\bfly\b|\bflye\b"),
        (r"\bpull[\s-]?downs?\b", r"\bpulldown\b"),
        (r"\bstep[\s-]?ups?\b", r"\bstep up\b"),
        (r"\bgood ?mornings?\b", r"\bgood morning\b"),
        (r"\b(?:lateral|side) raises?\b", r"\blateral raise\b"),
        (r"\bburpees?\b", r"\bburpee\b"),
        (r"\bmountain climbers?\b", r"\bmountain climber\b"),
    )
)
"""(words of a request naming a movement, the catalog names (name_key form) that are that movement)."""
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
CONDITIONING_EXERCISES: frozenset[str] = frozenset(
    {
        "Mountain Climbers",
        "Star Jump",
        "Fast Skipping",
        "Split Jump",
        "Rocket Jump",
        "Knee Tuck Jump",
        "Scissors Jump",
        "Double Leg Butt Kick",
        "Rope Jumping",
        "One-Arm Kettlebell Swings",
        "Box Jump (Multiple Response)",
        "Bench Jump",
        "Plyo Push-up",
        "Lateral Bound",
        "Medicine Ball Chest Pass",
        "Overhead Slam",
    }
)
"""Whole-body moves that work as intervals in a cardio session."""
_INTERVALS: dict[str, tuple[int, int]] = {"beginner": (20, 40), "intermediate": (30, 30), "expert": (40, 20)}
"""Work and rest seconds of one interval round, by level."""


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
    """Explicit budget; else the minutes the request names ('30 minutes', 'half an hour'), a temporary
    time preference, 'quick' (QUICK_MINUTES), a permanent time preference, `preferred_minutes`."""
    preferred_minutes: int | None = None
    """The user's usual session length; None means DEFAULT_TIME_BUDGET_MIN."""
    session_cap_minutes: int | None = None
    """The longest session the user has (their profile): the workout never runs longer, unless the
    request or a temporary preference names its time."""
    focus_muscles: set[str] | None = None
    """Explicitly requested muscles; None means parse them from the request text."""
    excluded_exercises: set[str] = field(default_factory=set)
    excluded_muscles: set[str] = field(default_factory=set)
    experience_level: str = "intermediate"
    recovering: dict[str, datetime] | None = None
    """Precomputed muscle -> ready-at; None means derive it from history."""
    progression_history: list[dict[str, Any]] | None = None
    """The recent sessions of each exercise progression reads; None means `history`."""
    load_steps: LoadSteps | None = None
    """The loads the user can set up; None means the defaults for the weight unit."""
    timezone: str = "UTC"


@dataclass(frozen=True)
class ParsedRequest:
    """What a request asks for, read clause by clause ('legs today but nothing for my knee')."""

    focus: frozenset[str]
    """Muscles asked for ('full body': none)."""
    avoid: frozenset[str]
    """Muscles a negative or painful clause names, joints included ('my knee hurts')."""
    minutes: int | None
    cardio: bool
    mobility: bool
    movements: tuple[re.Pattern[str], ...]
    """Exercises asked for by name ('with squats'), as patterns over catalog name keys."""
    dislikes: tuple[str, ...]
    """Exercise name phrases the request rules out ('no lunges', 'I don't like rows')."""


def request_minutes(text: str) -> int | None:
    """Minutes a request asks for: '30 minutes', '45 min', 'half an hour', 'an hour'; 'quick' is
    QUICK_MINUTES."""
    minutes = parse_time_budget(text)
    if minutes is None and _QUICK.search(text):
        return QUICK_MINUTES
    return minutes


def _dislikes(text: str) -> tuple[str, ...]:
    phrases = preference_constraints([{"type": "exercise", "description": text}]).excluded_exercises
    cleaned = (_ARTICLE.sub("", phrase) for phrase in phrases)
    return tuple(dict.fromkeys(p for p in cleaned if len(p) >= 3))


def parse_request(text: str) -> ParsedRequest:
    """The muscles, time, kind of session and exercises a request asks for and rules out."""
    focus: set[str] = set()
    avoid: set[str] = set()
    cardio = mobility = False
    movements: list[re.Pattern[str]] = []
    for clause in _CLAUSES.split(text):
        if not clause.strip():
            continue
        if _NEGATIVE_CLAUSE.search(clause):
            avoid |= muscles_in_text(clause, include_joints=True)
            continue
        focus |= muscles_in_text(clause)
        cardio = cardio or bool(_CARDIO.search(clause))
        mobility = mobility or bool(_MOBILITY.search(clause))
        for asked, named in _MOVEMENTS:
            if asked.search(clause) and named not in movements:
                movements.append(named)
    if re.search(r"\bexcept\b", text, re.I):
        avoid |= muscles_in_text(
            re.split(r"\bexcept\b", text, maxsplit=1, flags=re.I)[1], include_joints=True
        )
    if _FULL_BODY.search(text):
        focus = set()
    return ParsedRequest(
        focus=frozenset(focus - avoid),
        avoid=frozenset(avoid),
        minutes=request_minutes(text),
        cardio=cardio,
        mobility=mobility,
        movements=tuple(movements),
        dislikes=_dislikes(text),
    )


def parse_request_muscles(text: str) -> tuple[set[str], set[str]]:
    """(muscles asked for, muscles to leave out) from the request, clause by clause:
    'legs today but nothing for my knee' -> ({legs...}, {Quadriceps, Hamstrings})."""
    parsed = parse_request(text)
    return set(parsed.focus), set(parsed.avoid)


def parse_focus(text: str) -> set[str]:
    """Muscles the request asks for: 'chest', 'legs', 'upper body', 'push'... ('full body': none)."""
    return set(parse_request(text).focus)


@lru_cache(maxsize=256)
def goal_kind(goal: str) -> str:
    """strength, hypertrophy, endurance, power, mobility or general, from a goal's words."""
    g = goal.lower()
    for kind, pattern in (
        ("mobility", r"mobil|flex|stretch|yoga"),
        ("power", r"power|explos|athlet|speed|agil|jump"),
        ("endurance", r"endur|cardio|condition|fat|weight ?loss|stamina|aerobic|heart|lean|run"),
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


def goal_shares(entry: CatalogEntry, goals: Mapping[str, float]) -> list[tuple[str, float]]:
    """The user's goals this exercise serves, as shares summing to 1 (its own kind's when none does)."""
    fits = _goal_fits(entry, goals)
    return _rounded_shares(fits) if fits else [(_FALLBACK_GOAL.get(_entry_kind(entry), "Strength"), 1.0)]


def _goal_fits(entry: CatalogEntry, goals: Mapping[str, float]) -> dict[str, float]:
    """goal -> weight x fit for the user's goals this exercise serves."""
    fit = _FIT.get(_entry_kind(entry), _FIT["strength"])
    return {g: w * fit[goal_kind(g)] for g, w in goals.items() if fit.get(goal_kind(g), 0) > 0}


def _rounded_shares(weights: Mapping[str, float], keep: int = 3) -> list[tuple[str, float]]:
    top = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:keep]
    total = sum(w for _, w in top)
    shares = [(n, round(w / total, 2)) for n, w in top]
    shares = [(n, s) for n, s in shares if s > 0] or [(top[0][0], 1.0)]
    remainder = round(1.0 - sum(s for _, s in shares), 2)
    shares[0] = (shares[0][0], round(shares[0][1] + remainder, 2))
    return shares


def _compact(text: str) -> str:
    """Letters and digits of singular words: 'Push-Ups' -> 'pushup' (what a name contains, spaces aside)."""
    return name_key(text).replace(" ", "")


def _name_excluded(name: str, phrase: str) -> bool:
    """True when an exercise name holds an excluded phrase, as words or run together ('push up' in
    'Pushups', 'row' in 'Bent Over Barbell Row')."""
    key = _compact(phrase)
    return exercise_matches(name, phrase) or (len(key) >= 3 and key in _compact(name))


@lru_cache(maxsize=4096)
def _pattern(name: str) -> str | None:
    return movement_pattern(name)


def _region(muscle: str) -> str:
    return "upper" if muscle in UPPER_BODY else "lower" if muscle in LOWER_BODY else "core"


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
    exercise_history: dict[str, ExerciseHistory]
    load_steps: LoadSteps
    movements: tuple[re.Pattern[str], ...] = ()
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


def _plan(req: ComposerRequest) -> _Plan:
    temp_prefs = [p for p in req.preferences if is_temporary(p)]
    perm_prefs = [p for p in req.preferences if not is_temporary(p)]
    temp, perm, every = (preference_constraints(temp_prefs), preference_constraints(perm_prefs),
                         preference_constraints(req.preferences))  # fmt: skip
    parsed = parse_request(req.request_text or "")
    focus = set(req.focus_muscles) if req.focus_muscles is not None else set(parsed.focus)
    text = req.request_text or ""
    quick = QUICK_MINUTES if _QUICK.search(text) else None
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
    equipment = available_equipment(req.available_equipment)
    equipment -= every.unavailable_equipment
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
    return _Plan(
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
        restrict_to_focus=bool(focus) and not parsed.mobility,
    )


def says_beginner(text: str, preferences: Iterable[Mapping[str, Any]] = ()) -> bool:
    """The request or an active preference says the user is a beginner ('I'm new to this')."""
    said = [text, *(f"{p.get('description', '')} {p.get('guidance', '')}" for p in preferences)]
    return any(_BEGINNER.search(t) for t in said)


def on_focus(entry: CatalogEntry, plan: _Plan) -> bool:
    """An exercise a muscle or body-part request allows: its primary muscle is one asked for."""
    return not plan.restrict_to_focus or entry.primary_muscle in plan.focus


def allowed(entry: CatalogEntry, plan: _Plan) -> bool:
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
    if plan.avoid_patterns and _pattern(entry.name) in plan.avoid_patterns:
        return False
    return not any(_name_excluded(entry.name, phrase) for phrase in plan.excluded)


def _muscle_priority(plan: _Plan) -> dict[str, float]:
    """Share-weighted tiers: distribution debt, then muscle goal weights (a balanced full-body
    baseline when no tier above says what to train)."""
    weights: dict[str, float] = {}
    for m, debt in plan.muscle_debt.items():
        weights[m] = weights.get(m, 0.0) + 4.0 * debt
    for m, w in plan.muscle_goals.items():
        weights[m] = weights.get(m, 0.0) + 2.0 * w
    if not (plan.targets or plan.perm_muscles or plan.muscle_goals):
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
    quality = 1.0 + 0.6 * (entry.name in STAPLE_EXERCISES or entry.name in CONDITIONING_EXERCISES)
    quality += 0.1 * (entry.mechanic == "compound")
    quality += 0.05 * bool(entry.equipment and entry.equipment != ("bench",)) - 0.02 * len(entry.name.split())
    key = name_key(entry.name)
    history = 0.05 * (key in plan.familiar_names) - 0.1 * (key in plan.recent_names)
    return relevance * quality + history + 0.01 * quality


def _rank(entries: Iterable[CatalogEntry], plan: _Plan) -> list[tuple[float, CatalogEntry]]:
    weights = _muscle_priority(plan)
    scored = [(_score(e, plan, weights), e) for e in entries]
    scored.sort(key=lambda se: (-se[0], se[1].name))
    return scored


def _kind(entry: CatalogEntry) -> str:
    if entry.category == "stretching":
        return "stretch"
    if entry.category == "cardio":
        return "cardio"
    if entry.force == "static":
        return "hold"
    return "reps"


def _kind_of(ex: Exercise) -> str:
    return {"duration": "cardio", "hold": "hold", "intervals": "cardio"}.get(ex.exercise_type, "reps")


def _scheme(plan: _Plan, compound: bool) -> tuple[list[int], int]:
    """(reps per set, rest seconds) for the user's leading goal (or the plan's style)."""
    leading = max(sorted(plan.goals), key=lambda g: plan.goals[g], default=None)
    style = plan.style or (goal_kind(leading) if leading else "general")
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


def _reasoning(entry: CatalogEntry, plan: _Plan, note: str, *, requested: bool, cardio: bool) -> str:
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
    fits = _goal_fits(entry, plan.goals)
    if fits:
        reasons.append(f"Supports {max(sorted(fits), key=lambda g: fits[g])}.")
    if not reasons:
        reasons.append(f"Balanced work for {primary}.")
    if note:
        reasons.append(note)
    return " ".join(reasons)[:300]


class _BeyondRule(Exception):
    """Even the lightest weight at hand is beyond the progression rule for a useful set."""


def _reps_within_rule(load: float, reps: list[int], target: ProgressionTarget) -> list[int]:
    """The reps, capped where the load's Epley e1RM would pass the target's by more than the checks
    allow (the lightest weight at hand can be heavy for many reps of a new exercise)."""
    limit = target.reference_e1rm * (1 + JUMP_E1RM_TOLERANCE)
    fitting = [r for r in range(max(reps), 0, -1) if epley_1rm(load, r) <= limit]
    if not fitting or fitting[0] < MIN_REPS:
        raise _BeyondRule(target.exercise_name)
    return [min(r, fitting[0]) for r in reps]


def _exercise(
    entry: CatalogEntry,
    plan: _Plan,
    order: int,
    *,
    minutes: float | None = None,
    rounds: int | None = None,
    requested: bool = False,
) -> Exercise:
    """The exercise as prescribed: cardio for `minutes`, intervals when `rounds` is given, else sets
    (reps from the goal's scheme or the progression target, loads from the target). Raises _BeyondRule
    when no load at hand fits the rule."""
    fits = _goal_fits(entry, plan.goals)
    fallback = "Cardio" if rounds else _FALLBACK_GOAL.get(_entry_kind(entry), "Strength")
    goals = _rounded_shares(fits) if fits else [(fallback, 1.0)]
    base: dict[str, Any] = {
        "exercise_name": entry.name, "order": order,
        "muscles_utilized": [{"muscle": m, "share": s} for m, s in entry.muscles],
        "goals_addressed": [{"goal": g, "share": s} for g, s in goals],
        "equipment": list(entry.equipment),
    }  # fmt: skip
    kind = _kind(entry)
    note = ""
    if rounds:
        work, rest = _INTERVALS["beginner" if plan.intensity == "light" else plan.level]
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
        reps, rest = _scheme(plan, entry.mechanic == "compound")
        loaded = [e for e in entry.equipment if e in STARTING_LOADS]
        if loaded:
            steps, implement = plan.load_steps, equipment_class(entry.name, entry.equipment)
            target = progression_target(
                entry.name, plan.exercise_history, steps,
                equipment=entry.equipment, muscles=entry.muscles, reps=min(reps),
            )  # fmt: skip
            if target is not None:
                load, note = target.load, target.reasoning
                if target.rule != "related":
                    reps = [target.reps] * len(reps)
                capped = _reps_within_rule(load, reps, target)
                if capped != reps:
                    note += f" With the weights here, stop at {max(capped)} reps."
                reps = capped
            else:
                load = steps.nearest(starting_load(loaded, plan.level, plan.unit) or 0.0, implement)
                note = "New exercise: conservative starting load."
            if plan.intensity == "light":
                load = steps.down(load * 0.9, implement)
            base.update(load_each=[load] * len(reps), load_unit=plan.unit)
        base.update(exercise_type="reps", sets=len(reps), reps=reps, rest_sec=rest)
    cardio = bool(rounds) or kind == "cardio"
    base["reasoning"] = _reasoning(entry, plan, note, requested=requested, cardio=cardio)
    return Exercise.model_validate(base)


def exercise_seconds(ex: Exercise) -> int:
    """How long an exercise takes: its timer (work and rest) and a changeover to the next one."""
    return exercise_timer(ex).total_duration_sec + CHANGEOVER_SEC


def workout_seconds(exercises: Iterable[Exercise]) -> int:
    """The estimated duration of a list of exercises, in seconds."""
    return sum(exercise_seconds(ex) for ex in exercises)


def _volume(ex: Exercise) -> int:
    match ex.exercise_type:
        case "intervals":
            return ex.rounds or 1
        case "duration":
            return round(ex.duration_min or 1)
    return ex.sets or 1


def _resize(values: list[Any], n: int) -> list[Any]:
    """The last n values (a descending pyramid keeps its lowest reps), or the last one repeated."""
    return values[len(values) - n :] if n <= len(values) else values + [values[-1]] * (n - len(values))


def _with_volume(ex: Exercise, n: int) -> Exercise:
    """The exercise with n sets (reps, holds), rounds (intervals) or minutes (duration)."""
    match ex.exercise_type:
        case "intervals":
            return ex.model_copy(update={"rounds": n})
        case "duration":
            return ex.model_copy(update={"duration_min": float(n)})
        case "hold":
            return ex.model_copy(update={"sets": n, "hold_sec": _resize(ex.hold_sec or [30], n)})
    update: dict[str, Any] = {"sets": n, "reps": _resize(ex.reps or [10], n)}
    if ex.load_each:
        update["load_each"] = _resize(ex.load_each, n)
    return ex.model_copy(update=update)


def _volume_range(entry: CatalogEntry, ex: Exercise) -> tuple[int, int]:
    match ex.exercise_type:
        case "intervals":
            return 4, 12
        case "duration":
            return 5, 90
        case "hold":
            return 2, 4
    return (2, 5) if entry.mechanic == "compound" and entry.category != "plyometrics" else (2, 4)


@dataclass
class _Slot:
    """An exercise in the making: its place in the session and how far its volume may move."""

    entry: CatalogEntry
    exercise: Exercise
    role: int
    """Order group: 0 the lift asked for, then focus compounds, isolation, holds, other muscles',
    cardio finishers (7), stretches (9)."""
    rank: int
    low: int
    high: int
    base: int = 0

    def __post_init__(self) -> None:
        self.base = _volume(self.exercise)
        self.low, self.high = min(self.low, self.base), max(self.high, self.base)

    @property
    def seconds(self) -> int:
        return exercise_seconds(self.exercise)


def _slot(entry: CatalogEntry, ex: Exercise, role: int, rank: int) -> _Slot:
    low, high = _volume_range(entry, ex)
    return _Slot(entry, ex, role, rank, low, high)


def _fit(slots: list[_Slot], budget_sec: int) -> int:
    """Moves the slots' volume one set (round, minute) at a time towards the budget, the least
    extended (most important) first when adding and the most extended (least important) first when
    taking away, while a step brings the total closer. Returns the total seconds."""
    total = sum(s.seconds for s in slots)
    for _ in range(400):
        gap = budget_sec - total
        grow = gap > 0
        movable = [
            s for s in slots if (_volume(s.exercise) < s.high if grow else _volume(s.exercise) > s.low)
        ]
        if grow:
            movable.sort(key=lambda s: (_volume(s.exercise) - s.base, s.role, s.rank))
        else:
            movable.sort(key=lambda s: (s.base - _volume(s.exercise), -s.role, -s.rank))
        for slot in movable:
            new = _with_volume(slot.exercise, _volume(slot.exercise) + (1 if grow else -1))
            delta = exercise_seconds(new) - slot.seconds
            if abs(gap - delta) < abs(gap):
                slot.exercise, total = new, total + delta
                break
        else:
            return total
    return total


class _Picker:
    """The next best exercise for a session: ranked, spread over muscles and movement patterns."""

    def __init__(self, ranked: list[tuple[float, CatalogEntry]], plan: _Plan, planned: int) -> None:
        self.ranked = list(ranked)
        self.per_primary: Counter[str] = Counter()
        self.per_pattern: Counter[str] = Counter()
        self.taken: set[str] = set()
        self.targets = plan.targets
        self.focus_limit = max(MAX_PER_PRIMARY + 1, math.ceil(0.8 * planned / max(1, len(self.targets))))

    def take(self, entry: CatalogEntry) -> None:
        self.taken.add(name_key(entry.name))
        self.per_primary[entry.primary_muscle] += 1
        if pattern := _pattern(entry.name):
            self.per_pattern[pattern] += 1

    def next(self, *, relaxed: bool = False) -> CatalogEntry | None:
        best: tuple[float, int] | None = None
        for i, (score, entry) in enumerate(self.ranked):
            if name_key(entry.name) in self.taken:
                continue
            count = self.per_primary[entry.primary_muscle]
            limit = self.focus_limit if entry.primary_muscle in self.targets else MAX_PER_PRIMARY
            if count >= limit and not relaxed:
                continue
            pattern = _pattern(entry.name)
            repeats = self.per_pattern[pattern] if pattern else 0
            adjusted = score * (0.7**count) * (0.8**repeats) if score > 0 else score - count - repeats
            if best is None or adjusted > best[0]:
                best = (adjusted, i)
        if best is None:
            return None
        _, entry = self.ranked.pop(best[1])
        self.take(entry)
        return entry


def _strength_role(entry: CatalogEntry, plan: _Plan, requested: bool) -> int:
    kind = _kind(entry)
    if entry.category == "stretching":
        return 9
    if kind == "cardio":
        return 7
    if requested and entry.mechanic == "compound" and kind == "reps":
        return 0
    on_target = not plan.targets or entry.primary_muscle in plan.targets
    offset = 0 if on_target else 3
    if kind == "hold":
        return offset + 3
    return offset + (1 if entry.mechanic == "compound" else 2)


_IMPLEMENT_ORDER = ("barbell", "smith machine", "ez curl bar", "dumbbell", "kettlebell", "machine", "cable")


def _order_key(slot: _Slot) -> tuple[int, int, bool, int, int]:
    """Within a group: big muscles first, well-known lifts, the heavier implement, then rank."""
    cls = equipment_class(slot.entry.name, slot.entry.equipment)
    implement = _IMPLEMENT_ORDER.index(cls) if cls in _IMPLEMENT_ORDER else len(_IMPLEMENT_ORDER)
    big = 0 if slot.entry.primary_muscle in LARGE_MUSCLES else 1
    return slot.role, big, slot.entry.name not in STAPLE_EXERCISES, implement, slot.rank


def _requested(ranked: Sequence[tuple[float, CatalogEntry]], plan: _Plan) -> list[CatalogEntry]:
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


def _minutes_per_exercise(plan: _Plan) -> float:
    """A planning figure: the goal's default compound and isolation exercise, on average, plus a fifth."""
    seconds = []
    for compound in (True, False):
        reps, rest = _scheme(plan, compound)
        seconds.append(10 + 3 * sum(reps) + rest * (len(reps) - 1) + CHANGEOVER_SEC)
    return 1.2 * sum(seconds) / len(seconds) / 60


def _main_pool(candidates: Sequence[CatalogEntry], plan: _Plan) -> list[CatalogEntry]:
    if plan.wants_mobility:
        return [e for e in candidates if e.category == "stretching"]
    pool = [e for e in candidates if e.category not in ("cardio", "stretching")]
    skip = set() if plan.level == "expert" else {"olympic weightlifting", "strongman"}
    if not (plan.wants_cardio or {goal_kind(g) for g in plan.goals} & {"power", "endurance"}):
        skip.add("plyometrics")
    technical = plan.level != "expert"
    kept = [e for e in pool if e.category not in skip and not (technical and _OLYMPIC.search(e.name))]
    return [e for e in kept or pool if on_focus(e, plan)]


def _cardio_pools(
    candidates: Sequence[CatalogEntry], plan: _Plan
) -> tuple[list[CatalogEntry], list[CatalogEntry]]:
    """(steady cardio, conditioning moves for intervals), best first; machines before going outside."""
    steady = [e for e in candidates if e.category == "cardio" and e.name != "Rope Jumping"]
    ranked_steady = [e for _, e in _rank(steady, plan)]
    ranked_steady.sort(key=lambda e: not e.equipment)
    moves = [
        e for e in candidates
        if e.name in CONDITIONING_EXERCISES or (e.category == "plyometrics" and e.force != "static")
    ]  # fmt: skip
    ranked_moves = [e for _, e in _rank(moves, plan)]
    ranked_moves.sort(key=lambda e: e.name not in CONDITIONING_EXERCISES)
    return ranked_steady, ranked_moves


def _conditioning_slots(
    candidates: Sequence[CatalogEntry], plan: _Plan, seconds: int, *, role: int, first_rank: int
) -> list[_Slot]:
    """Cardio for about `seconds`: a steady block (a machine, else outdoors when there are no moves
    for intervals) and interval rounds of conditioning moves."""
    steady, moves = _cardio_pools(candidates, plan)
    if steady and not steady[0].equipment and moves:
        steady = []
    minutes = seconds / 60
    if steady:
        count = 0 if minutes < 15 else 1 if minutes < 40 else 2
    else:
        count = max(1, min(4, math.ceil(minutes / 10)))
    moves = moves[:count]
    slots: list[_Slot] = []
    if steady:
        left = minutes - len(moves) * 9.5 - 1.2
        ex = _exercise(steady[0], plan, 1, minutes=max(5, round(left)))
        slots.append(_Slot(steady[0], ex, role, first_rank, 5, 120))
    for i, entry in enumerate(moves):
        ex = _exercise(entry, plan, 1, rounds=8)
        slots.append(_Slot(entry, ex, role + 1, first_rank + 1 + i, 4, 12))
    return slots


def _top_up(slots: list[_Slot], picker: _Picker, plan: _Plan, budget: int) -> int:
    """Fits the slots to the budget, adding the next pick while the session stays short and dropping
    the least important one while it runs long."""
    total = _fit(slots, budget)
    limit = MAX_STRETCHES if plan.wants_mobility else MAX_EXERCISES
    for _ in range(3 * limit):
        if total < budget * (1 - FILL_TOLERANCE) and len(slots) < limit:
            entry = picker.next() or picker.next(relaxed=True)
            if entry is None:
                break
            with suppress(_BeyondRule):
                ex = _exercise(entry, plan, len(slots) + 1)
                slots.append(_slot(entry, ex, _strength_role(entry, plan, False), len(slots)))
        elif total > budget * (1 + FILL_TOLERANCE) and len(slots) > 1:
            slots.remove(max(slots, key=lambda s: (s.role != 0, s.rank)))
        else:
            break
        total = _fit(slots, budget)
    return total


def compose_workout(req: ComposerRequest, catalog: Catalog | None = None) -> Workout:
    """A complete, valid workout for the request, fitted to its time (raises ComposerError when
    nothing fits). A cardio request is steady cardio and intervals (topped up with endurance-style
    strength work when too few moves are allowed); a muscle focus with cardio ends on a conditioning
    finisher; cardio under its goal share adds a steady block to a full-body session."""
    plan = _plan(req)
    cat = catalog or load_catalog()
    candidates = [e for e in cat.entries if allowed(e, plan)]
    if not candidates:
        raise ComposerError(_why_nothing(plan))
    budget = plan.budget_min * 60
    slots: list[_Slot] = []
    cardio_debt = sum(d for g, d in plan.goal_debt.items() if goal_kind(g) == "endurance" and d > 0)
    if plan.wants_cardio and not plan.wants_mobility and not plan.targets:
        slots = _conditioning_slots(candidates, plan, budget, role=-2, first_rank=-10)
        total = _fit(slots, budget)
        if slots and total >= budget * (1 - FILL_TOLERANCE):
            return _workout(slots, plan, total)
        plan = replace(plan, style="endurance")
    elif plan.wants_cardio and not plan.wants_mobility:
        slots = _conditioning_slots(candidates, plan, round(budget * 0.35), role=7, first_rank=100)[-1:]
    elif cardio_debt >= 0.1 and plan.budget_min >= 30 and not plan.targets and not plan.wants_mobility:
        steady, _ = _cardio_pools(candidates, plan)
        if steady:
            minutes = max(5, round(plan.budget_min * 0.25 / 5) * 5)
            slots = [_Slot(steady[0], _exercise(steady[0], plan, 1, minutes=minutes), 7, 100, 5, 40)]
    picker = _add_strength(slots, candidates, plan, budget)
    if not slots:
        raise ComposerError(_why_nothing(plan))
    return _workout(slots, plan, _top_up(slots, picker, plan, budget))


def _add_strength(
    slots: list[_Slot], candidates: Sequence[CatalogEntry], plan: _Plan, budget: int
) -> _Picker:
    """Adds the session's lifts (or stretches) to `slots`: the exercises the request names, then the
    best ranked, as many as the time left plans for. Returns the picker, for topping up."""
    pool = _main_pool(candidates, plan)
    per_exercise = 2.5 if plan.wants_mobility else _minutes_per_exercise(plan)
    limit = MAX_STRETCHES if plan.wants_mobility else MAX_EXERCISES
    left = budget - sum(s.seconds for s in slots)
    planned = max(1, min(limit, math.ceil(left / 60 / per_exercise))) if left > 0 else 0
    ranked = _rank(pool, plan)
    picker = _Picker(ranked, plan, planned)
    named = _rank(_main_pool(candidates, replace(plan, restrict_to_focus=False)), plan)
    requested = _requested(named, plan) if planned and plan.movements else []
    lifts = 0
    while lifts < planned:
        entry = requested[lifts] if lifts < len(requested) else picker.next()
        if entry is None:
            break
        if entry in requested:
            picker.take(entry)
        with suppress(_BeyondRule):
            ex = _exercise(entry, plan, len(slots) + 1, requested=entry in requested)
            slots.append(_slot(entry, ex, _strength_role(entry, plan, entry in requested), len(slots)))
        lifts += 1
    return picker


def _within(slots: list[_Slot], cap_sec: int) -> int:
    """Trims the slots until the session fits `cap_sec`: volume down to each slot's low end (the most
    extended, least important first), then the least important exercise out, then volume down to one
    set (round, minute). Returns the total seconds."""
    total = sum(s.seconds for s in slots)
    while total > cap_sec:
        above_low = [s for s in slots if _volume(s.exercise) > s.low]
        if above_low:
            slot = max(above_low, key=lambda s: (_volume(s.exercise) - s.base, s.role, s.rank))
        elif len(slots) > 1:
            slots.remove(max(slots, key=lambda s: (s.role != 0, s.rank)))
            total = sum(s.seconds for s in slots)
            continue
        elif _volume(slots[0].exercise) > 1:
            slot = slots[0]
        else:
            break
        slot.exercise = _with_volume(slot.exercise, _volume(slot.exercise) - 1)
        total = sum(s.seconds for s in slots)
    return total


def _workout(slots: list[_Slot], plan: _Plan, total_sec: int) -> Workout:
    if plan.cap_min is not None and total_sec > plan.cap_min * 60:
        total_sec = _within(slots, plan.cap_min * 60)
    ordered = sorted(slots, key=_order_key)
    exercises = [s.exercise.model_copy(update={"order": i + 1}) for i, s in enumerate(ordered)]
    minutes = total_sec / 60
    shown = plan.budget_min if abs(minutes - plan.budget_min) <= 0.2 * plan.budget_min else round(minutes)
    return Workout(
        title=f"{_workout_name([(s.entry, s.exercise) for s in ordered])} ({shown} min)",
        exercises=exercises,
        summary=_summary(exercises, total_sec),
    )


def _workout_name(exercises: Sequence[tuple[CatalogEntry, Exercise]]) -> str:
    """A title from what the exercises train: 'Chest Workout', 'Leg Workout', 'Upper Body Workout',
    'Full Body Workout', 'Push Workout', 'Core Workout', 'Cardio Workout', 'Leg Workout & Cardio'."""
    cardio = [ex for _, ex in exercises if ex.exercise_type in ("duration", "intervals")]
    lifts = [e for e, ex in exercises if e.category != "stretching" and ex.exercise_type in ("reps", "hold")]
    if not lifts:
        return "Cardio Workout" if cardio else "Mobility Workout"
    return f"{_muscles_name([e.primary_muscle for e in lifts])} Workout" + (" & Cardio" if cardio else "")


def _muscles_name(primaries: Sequence[str]) -> str:
    outside_core = [m for m in primaries if m not in CORE]
    if len(outside_core) <= 0.4 * len(primaries):
        return "Core"
    counts = Counter(outside_core)
    top, top_count = max(sorted(counts.items()), key=lambda kv: kv[1])
    regions = {_region(m) for m in outside_core}
    distinct = set(counts)
    if regions == {"upper", "lower"}:
        return "Full Body"
    if len(distinct) == 1 or top_count >= 0.6 * len(outside_core):
        return "Leg" if regions == {"lower"} and top_count < len(outside_core) else _TITLE_NAMES[top]
    if regions == {"lower"}:
        return "Leg"
    if distinct == {"Biceps", "Triceps"}:
        return "Arm"
    if len(distinct) == 2:
        first, second = sorted(distinct, key=lambda m: (-counts[m], m))
        return f"{_TITLE_NAMES[first]} & {_TITLE_NAMES[second]}"
    if distinct <= _PUSH:
        return "Push"
    if distinct <= _PULL:
        return "Pull"
    return "Upper Body"


def _summary(exercises: Sequence[Exercise], total_sec: int) -> WorkoutSummary:
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


def _why_nothing(plan: _Plan) -> str:
    parts = []
    if plan.restrict_to_focus:
        parts.append(f"asked for: {', '.join(sorted(plan.focus))}")
    if plan.blocked:
        parts.append(f"recovering: {', '.join(sorted(plan.blocked))}")
    if plan.avoided:
        parts.append(f"avoided: {', '.join(sorted(plan.avoided))}")
    parts.append(f"equipment: {', '.join(sorted(plan.equipment))}")
    return "No exercise fits these constraints (" + "; ".join(parts) + ")."


def prescribe_exercise(req: ComposerRequest, entry: CatalogEntry, order: int = 1) -> Exercise:
    """One catalog exercise prescribed for this user as a composed workout would have it (the goal's
    sets and reps, loads from the progression targets and within their rule, cardio for 10 minutes).
    The hard rules are the caller's to check (`allowed`); ComposerError when no load at hand fits the
    rule."""
    plan = _plan(req)
    try:
        return _exercise(entry, plan, order, minutes=10)
    except _BeyondRule as exc:
        raise ComposerError(f"Even the lightest weight here is too heavy for {entry.name} yet.") from exc


_EASIER = re.compile(
    r"\b(easier|simpler|less (?:hard|difficult|demanding)|too (?:hard|difficult|heavy))\b", re.I
)
_HARDER = re.compile(r"\b(harder|tougher|more (?:challenging|difficult)|too (?:easy|light))\b", re.I)


def swap_level(old: CatalogEntry | None, user_level: str, text: str) -> str:
    """The level a replacement should have: the old exercise's (else the user's), a step down or up when
    the user asks for something easier or harder, never above the user's level."""
    rank = LEVELS.index(old.level) if old is not None else LEVELS.index(user_level)
    if _EASIER.search(text):
        rank -= 1
    elif _HARDER.search(text):
        rank += 1
    return LEVELS[max(0, min(rank, LEVELS.index(user_level)))]


def _similarity(entry: CatalogEntry, shares: Mapping[str, float]) -> float:
    return sum(min(s, shares.get(m, 0.0)) for m, s in entry.muscles)


def compose_replacement(
    req: ComposerRequest,
    old_exercise: Exercise,
    *,
    avoid_names: Iterable[str] = (),
    catalog: Catalog | None = None,
) -> Exercise:
    """A different exercise in the old one's place (order, group, volume), under the same rules and
    for the reason the user gives: an exercise they name ('for push-ups') first; a disliked movement
    ('I don't like rows') takes its whole pattern out; a painful joint ('my knee hurts') its muscles,
    the replacement then coming from the same region of the body. Otherwise it trains the same primary
    muscle, which counts as asked for (the user is swapping, not dropping it); other recovering
    muscles stay off-limits."""
    cat = catalog or load_catalog()
    shares: dict[str, float] = {m.muscle: m.share for m in old_exercise.muscles_utilized}
    primary = max(old_exercise.muscles_utilized, key=lambda m: m.share).muscle
    parsed = parse_request(req.request_text or "")
    focus = (req.focus_muscles if req.focus_muscles is not None else set()) | {primary}
    plan = _plan(ComposerRequest(**{**req.__dict__, "focus_muscles": focus}))
    old_key = name_key(old_exercise.exercise_name)
    generic = [d for d in parsed.dislikes if len(name_key(d).split()) == 1]
    patterns = {p for p in map(_pattern, generic) if p}
    if any(_name_excluded(old_exercise.exercise_name, d) for d in generic):
        patterns.add(_pattern(old_exercise.exercise_name) or "")
    plan.avoid_patterns = frozenset(patterns - {""})
    taken = {name_key(n) for n in (*req.excluded_exercises, old_exercise.exercise_name, *avoid_names)}
    old_kind = _kind_of(old_exercise)
    old_entry = cat.get(old_exercise.exercise_name)
    stretch = old_entry is not None and old_entry.category == "stretching"
    pool = [
        e for e in cat.entries
        if allowed(e, plan) and name_key(e.name) not in taken and (e.category == "stretching") == stretch
    ]  # fmt: skip
    asked = [rx for rx in parsed.movements if not rx.search(old_key)]
    same = [e for e in pool if any(rx.search(name_key(e.name)) for rx in asked)]
    if not same and primary not in plan.avoided:
        same = [e for e in pool if e.primary_muscle == primary] or [
            e for e in pool if e.share_of(primary) >= WORKED_SHARE_THRESHOLD
        ]
    if not same:
        kept = {m: s for m, s in shares.items() if m not in plan.avoided}
        same = [e for e in pool if _region(e.primary_muscle) == _region(primary) and _similarity(e, kept) > 0]
        same = same or [e for e in pool if _region(e.primary_muscle) == _region(primary)]
    if not same:
        raise ComposerError(f"No other exercise for {primary} fits the current constraints.")
    old_pattern = _pattern(old_exercise.exercise_name)
    if old_pattern and old_pattern not in plan.avoid_patterns and not asked:
        same = [e for e in same if _pattern(e.name) == old_pattern] or same
    same_kind = [e for e in same if _kind(e) == old_kind] or same
    level = swap_level(old_entry, plan.level, req.request_text or "")
    loaded = bool(old_exercise.load_each) or equipment_class(
        old_exercise.exercise_name, old_exercise.equipment or []
    )
    scored = sorted(
        _rank(same_kind, plan),
        key=lambda se: (
            abs(LEVELS.index(se[1].level) - LEVELS.index(level)),
            (equipment_class(se[1].name, se[1].equipment) is not None) != bool(loaded),
            -se[0] * (0.5 + _similarity(se[1], shares)),
            se[1].name,
        ),
    )
    minutes = old_exercise.duration_min if old_exercise.exercise_type == "duration" else None
    intervals = old_exercise.exercise_type == "intervals"
    for _, entry in scored:
        rounds = old_exercise.rounds if intervals and _kind(entry) != "cardio" else None
        with suppress(_BeyondRule):
            new = _exercise(entry, plan, old_exercise.order, minutes=minutes, rounds=rounds)
            break
    else:
        raise ComposerError(f"No other exercise for {primary} fits the current constraints.")
    if new.exercise_type == old_exercise.exercise_type and old_exercise.exercise_type != "duration":
        low, high = _volume_range(entry, new)
        new = _with_volume(new, min(max(_volume(old_exercise), low), max(high, _volume(new))))
    return new.model_copy(update={"group": old_exercise.group})
