"""Checks a workout against the user's situation, and the preference reading they share with the
offline composer. Problems are reported, never enforced: the model sees them and can fix them.

Load jumps are warnings too, never a rejection: history can be incomplete (the user trains elsewhere)
and a user may ask for a heavy single. A reps exercise with a progression target
(trainer.domain.progression, in the goal's range when the prescribed reps reach it, else the range
the exercise is trained in; `prescription_range`) is flagged when its top load is
above the heaviest load the rule accepts, or when its load and reps imply a one-rep max (the RTS chart,
trainer.domain.one_rep_max) more than JUMP_E1RM_TOLERANCE above the target's (a related exercise's
estimate when the exercise has no history of its own)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from trainer.domain.catalog import load_catalog
from trainer.domain.equipment import _ALIASES, BODYWEIGHT, EVERY_ITEM, NO_EQUIPMENT, missing_equipment
from trainer.domain.loading import LoadSteps
from trainer.domain.movements import name_key
from trainer.domain.one_rep_max import implied_1rm
from trainer.domain.prescriptions import RepRange, prescribed_range, rep_range
from trainer.domain.progression import (
    ExerciseHistory,
    ProgressionTarget,
    established_range,
    progression_target,
)
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, hours_left
from trainer.domain.restrictions import restricted_phrases
from trainer.domain.units import convert_weight
from trainer.domain.workout import Exercise, Workout

JUMP_E1RM_TOLERANCE = 0.10
"""A prescription implying an e1RM more than 10% above the target's is a jump."""
_LOAD_TOLERANCE = 0.01
"""Slack for loads converted between kg and lb."""

_MUSCLE_WORDS: list[tuple[str, tuple[str, ...]]] = [
    (r"lower[\s-]?back|lumbar|spine", ("Lower Back",)),
    (r"chest|pecs?|pectorals?", ("Chest",)),
    (r"(?<!lower )(?<!lower-)\bback\b|lats|upper[\s-]?back", ("Back",)),
    (r"shoulders?|delts?|deltoids?|rotator cuff", ("Shoulders",)),
    (r"biceps?|bis", ("Biceps",)),
    (r"triceps?|tris", ("Triceps",)),
    (r"abs|core|abdominals?|stomach|obliques?", ("Abs",)),
    (r"quads?|quadriceps", ("Quadriceps",)),
    (r"hamstrings?|hammies", ("Hamstrings",)),
    (r"glutes?|butt|bum", ("Glutes",)),
    (r"calf|calves", ("Calves",)),
    (r"traps|trapezius", ("Trapezius",)),
    (r"abductors?|outer thighs?", ("Abductors",)),
    (r"adductors?|inner thighs?|groin", ("Adductors",)),
    (r"forearms?|grip", ("Forearms",)),
    (r"neck", ("Neck",)),
    (r"arms?", ("Biceps", "Triceps")),
    (r"legs?|lower[\s-]?body|leg day", ("Quadriceps", "Hamstrings", "Glutes", "Calves")),
    (r"upper[\s-]?body", ("Chest", "Back", "Shoulders", "Biceps", "Triceps")),
    (r"push(?![\s-]?ups?)", ("Chest", "Shoulders", "Triceps")),
    (r"pull(?![\s-]?ups?)(?!downs?)", ("Back", "Biceps", "Trapezius")),
]
_JOINT_WORDS: list[tuple[str, tuple[str, ...]]] = [
    (r"knees?|acl|meniscus|patella", ("Quadriceps", "Hamstrings")),
    (r"wrists?", ("Forearms",)),
    (r"elbows?|tennis elbow|golfer'?s elbow", ("Biceps", "Triceps", "Forearms")),
    (r"ankles?|achilles", ("Calves",)),
    (r"hips?|hip flexors?", ("Glutes", "Adductors", "Abductors")),
]
_NEGATIVE = re.compile(
    r"\b(avoid\w*|no|not|never|skip\w*|without|exclud\w*|hate[sd]?|dislike[sd]?|don'?t|do not|can'?t|cannot|"
    r"less|injur\w*|pain\w*|hurts?|sore|strain\w*|sprain\w*|rest(ing)?|off)\b",
    re.I,
)
_EXERCISE_DISLIKE = re.compile(
    r"\b(?:hate[sd]?|dislike[sd]?|avoid|avoiding|skip|exclude|no more|no|never|without|"
    r"don'?t (?:like|want|do)|do not (?:like|want|do)|can'?t do|cannot do|not)\s+"
    r"(?:doing\s+|any\s+|the\s+|more\s+)*"
    r"([a-z][a-z0-9\s\-/]*?)(?=$|[.,;!?()]| and | or | because| since| for | in | from | anymore| any more)",
    re.I,
)
_LIGHT = re.compile(r"\b(easy|easier|light|lighter|deload|gentle|low intensity|recover\w*)\b", re.I)
_HARD = re.compile(r"\b(hard|harder|intense|heavy|heavier|challeng\w*|push me)\b", re.I)
_GENERIC = {
    "exercise",
    "exercises",
    "workout",
    "workouts",
    "it",
    "that",
    "this",
    "them",
    "cardio",
    "weights",
    "gym",
}


def muscles_in_text(text: str, *, include_joints: bool = False) -> set[str]:
    """Canonical muscles named in free text ('legs', 'upper body', 'push', 'knee' with joints...)."""
    found: set[str] = set()
    lowered = text.lower()
    for pattern, muscles in _MUSCLE_WORDS + (_JOINT_WORDS if include_joints else []):
        if re.search(rf"\b(?:{pattern})\b", lowered):
            found.update(muscles)
    return found


def exercise_matches(name: str, phrase: str) -> bool:
    """True when the exercise name contains the phrase as whole words (plural-insensitive)."""
    key = name_key(phrase)
    return bool(key) and f" {key} " in f" {name_key(name)} "


def is_temporary(pref: Mapping[str, Any]) -> bool:
    return bool(pref.get("temporary") or pref.get("expires_at") or pref.get("delete_after_use"))


def parse_time_budget(text: str) -> int | None:
    """Minutes mentioned in text: '30 minutes', '45 min', 'an hour', '1.5 hours', 'half an hour'."""
    lowered = text.lower()
    if re.search(r"\bhalf an? hour\b", lowered):
        return 30
    match = re.search(r"(\d+(?:\.\d+)?)\s*(?:-\s*)?(minutes?|mins?|m|hours?|hrs?|h)\b", lowered)
    if match:
        value = float(match[1])
        minutes = value * 60 if match[2].startswith("h") else value
        return int(min(240, max(5, round(minutes))))
    if re.search(r"\b(an|one) hour\b", lowered):
        return 60
    return None


def _equipment_in_text(text: str) -> set[str]:
    lowered = f" {re.sub(r'[^a-z0-9-]+', ' ', text.lower())} "
    names = {**_ALIASES, **{canon: canon for canon in _ALIASES.values()}}
    return {
        canon for alias, canon in names.items() if alias and f" {alias} " in lowered and canon != BODYWEIGHT
    }


def _dislike_phrases(text: str) -> list[str]:
    phrases = []
    for match in _EXERCISE_DISLIKE.finditer(text):
        phrase = name_key(match[1])
        if phrase and phrase not in _GENERIC and not muscles_in_text(phrase):
            phrases.append(phrase)
    return phrases


@dataclass
class PreferenceConstraints:
    """What the active preferences mean for exercise choice."""

    avoided_muscles: dict[str, str] = field(default_factory=dict)
    """muscle -> the preference text that rules it out (injuries, 'avoid shoulders')."""
    excluded_exercises: dict[str, str] = field(default_factory=dict)
    """name phrase -> the preference text ('burpee' from 'I hate burpees')."""
    unavailable_equipment: set[str] = field(default_factory=set)
    temporary_muscles: set[str] = field(default_factory=set)
    permanent_muscles: set[str] = field(default_factory=set)
    time_budget_min: int | None = None
    intensity: str | None = None
    """'light' or 'hard'; a temporary preference wins over a permanent one."""


def preference_constraints(preferences: Iterable[Mapping[str, Any]]) -> PreferenceConstraints:
    result = PreferenceConstraints()
    ordered = sorted(preferences, key=is_temporary)  # permanent first, so temporary ones win
    for pref in ordered:
        kind = str(pref.get("type") or "other").lower()
        text = f"{pref.get('description') or ''}. {pref.get('guidance') or ''}"
        label = str(pref.get("description") or pref.get("guidance") or kind)
        negative = bool(_NEGATIVE.search(text))
        if kind in ("injury", "recovery"):
            for muscle in muscles_in_text(text, include_joints=True):
                result.avoided_muscles.setdefault(muscle, label)
        elif kind in ("muscle_group", "goal", "workout", "other") and muscles_in_text(text):
            if negative:
                for muscle in muscles_in_text(text):
                    result.avoided_muscles.setdefault(muscle, label)
            else:
                target = result.temporary_muscles if is_temporary(pref) else result.permanent_muscles
                target.update(muscles_in_text(text))
        if kind in ("exercise", "workout", "other"):
            for phrase in _dislike_phrases(text):
                result.excluded_exercises.setdefault(phrase, label)
        for phrase in restricted_phrases(text):
            # a movement restriction ('no jumping', 'nothing overhead'), whatever the preference's type
            result.excluded_exercises.setdefault(phrase, label)
        if kind == "equipment" and negative:
            result.unavailable_equipment |= _equipment_in_text(text)
        if kind == "equipment" and NO_EQUIPMENT.search(text):
            # 'No equipment available': bodyweight only, whatever the current location offers
            result.unavailable_equipment |= EVERY_ITEM
        if kind == "time" and (minutes := parse_time_budget(text)):
            result.time_budget_min = minutes
        if kind in ("intensity", "recovery", "workout"):
            if _LIGHT.search(text):
                result.intensity = "light"
            elif _HARD.search(text):
                result.intensity = "hard"
    return result


@dataclass
class UserTrainingContext:
    available_equipment: set[str] | None = None
    """Canonical names at the current location; None when unknown (no equipment check)."""
    recovering_muscles: dict[str, datetime] = field(default_factory=dict)
    preferences: list[dict[str, Any]] = field(default_factory=list)
    weight_unit: str = "kg"
    distance_unit: str = "km"
    requested_muscles: set[str] = field(default_factory=set)
    """Muscles the user explicitly asked for this turn: recovery is not flagged for them."""
    now: datetime | None = None
    exercise_history: dict[str, ExerciseHistory] = field(default_factory=dict)
    """Recent loaded sessions per exercise (trainer.domain.progression.exercise_histories)."""
    load_steps: LoadSteps | None = None
    """What loads the user can set up; None: the defaults for their unit."""
    goal_style: str | None = None
    """The kind of the user's leading goal (trainer.domain.prescriptions): a prescription in the goal's
    range is read in it, as the composer prescribed it; None: the range the exercise is trained in."""


@dataclass
class WorkoutReview:
    """What the checks found, and the progression target of each exercise (in workout order)."""

    problems: list[str] = field(default_factory=list)
    targets: list[ProgressionTarget | None] = field(default_factory=list)


def _label(ex: Exercise) -> str:
    return f"#{ex.order} {ex.exercise_name}"


def _ordered(workout: Workout) -> list[Exercise]:
    return sorted(workout.exercises, key=lambda e: e.order)


def workout_targets(workout: Workout, user: UserTrainingContext) -> list[ProgressionTarget | None]:
    """The progression target of each reps exercise (None for others, or without related history)."""
    steps = user.load_steps or LoadSteps.for_unit(user.weight_unit)
    targets: list[ProgressionTarget | None] = []
    for ex in _ordered(workout):
        target = None
        if ex.exercise_type == "reps" and user.exercise_history and ex.reps:
            target = progression_target(
                ex.exercise_name,
                user.exercise_history,
                steps,
                rep_range=prescription_range(ex, user.exercise_history, user.goal_style),
                equipment=ex.equipment,
                muscles=ex.muscles_utilized,
            )
        targets.append(target)
    return targets


def prescription_range(
    ex: Exercise, histories: Mapping[str, ExerciseHistory], goal_style: str | None = None
) -> RepRange:
    """The range a prescription is measured in: the goal's range for the exercise when its reps reach
    that range's bottom (as the composer prescribed it; reps past the top are reps before load), else the
    range the exercise is trained in (trainer.domain.progression.established_range), else the standard
    range its reps start."""
    reps = min(ex.reps or [1])
    if goal_style is not None:
        entry = load_catalog().get(ex.exercise_name)
        compound = entry.mechanic == "compound" if entry is not None else True
        prescribed = prescribed_range(goal_style, compound=compound)
        if reps >= prescribed[0]:
            return prescribed
    own = histories.get(name_key(ex.exercise_name))
    return established_range(own) if own is not None and own.sessions else rep_range(reps)


def load_jump(ex: Exercise, target: ProgressionTarget) -> str | None:
    """Why the exercise's top load jumps beyond its target's rule, or None."""
    if ex.exercise_type != "reps" or not ex.load_each or not ex.reps:
        return None
    unit = target.unit
    loads = [convert_weight(v, ex.load_unit or unit, unit) for v in ex.load_each]
    top = max(loads)
    if top <= 0:
        return None
    reps = min(r for r, load in zip(ex.reps, loads, strict=False) if load >= top - 1e-6)
    shown = f"{top:.2f}".rstrip("0").rstrip(".")
    suggested = f"suggested {_amount(target.load, unit)} x {target.reps}"
    if target.rule != "related" and top > target.max_load * (1 + _LOAD_TOLERANCE):
        return (
            f"{_label(ex)} jumps to {shown} {unit}, more than one step above the last successful "
            f"{_amount(target.last_load, unit)} x {target.last_reps} ({target.last_date:%b} "
            f"{target.last_date.day}); {suggested}"
        )
    implied = implied_1rm(top, reps)
    limit = target.reference_e1rm * (1 + JUMP_E1RM_TOLERANCE)
    if implied > limit:
        over = round(100 * (implied / target.reference_e1rm - 1))
        source = "" if target.based_on == ex.exercise_name else f" from {target.based_on}"
        return (
            f"{_label(ex)} at {shown} {unit} x {reps} implies an estimated 1RM {over}% above what the "
            f"progression rule supports{source} ({_amount(target.reference_e1rm, unit)}); {suggested}"
        )
    return None


def _amount(value: float, unit: str) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") + f" {unit}"


def review_workout(workout: Workout, user: UserTrainingContext) -> WorkoutReview:
    """The problems check_workout reports, load jumps included, with each exercise's target."""
    targets = workout_targets(workout, user)
    problems = check_workout(workout, user, targets=targets)
    return WorkoutReview(problems=problems, targets=targets)


def check_workout(
    workout: Workout, user: UserTrainingContext, *, targets: list[ProgressionTarget | None] | None = None
) -> list[str]:
    """Human-readable problems: missing equipment, recovering muscles, preference conflicts, load jumps
    beyond the progression rule, a new user's bodyweight reps beyond the goal's range, units."""
    problems: list[str] = []
    if targets is None:
        targets = workout_targets(workout, user)
    prefs = preference_constraints(user.preferences)
    available = user.available_equipment
    if available is not None:
        available = set(available) - prefs.unavailable_equipment
    for ex in sorted(workout.exercises, key=lambda e: e.order):
        if available is not None:
            missing = sorted(missing_equipment(ex.equipment, available))
            if missing:
                problems.append(
                    f"{_label(ex)} needs {', '.join(missing)}, not available at the current location"
                )
        worked = {m.muscle for m in ex.muscles_utilized if m.share >= WORKED_SHARE_THRESHOLD}
        for muscle in sorted(worked & set(user.recovering_muscles) - user.requested_muscles):
            ready = user.recovering_muscles[muscle]
            left = f" (about {hours_left(ready, user.now):.0f} h left)" if user.now else ""
            problems.append(
                f"{_label(ex)} works {muscle}, still recovering until {ready:%Y-%m-%d %H:%M} UTC{left}"
            )
        involved = {m.muscle for m in ex.muscles_utilized if m.share > 0}
        for muscle in sorted(involved & set(prefs.avoided_muscles)):
            problems.append(
                f"{_label(ex)} works {muscle}, which conflicts with: {prefs.avoided_muscles[muscle]}"
            )
        for phrase, reason in prefs.excluded_exercises.items():
            if exercise_matches(ex.exercise_name, phrase):
                problems.append(f"{_label(ex)} conflicts with the preference: {reason}")
    for ex, target in zip(_ordered(workout), targets, strict=False):
        jump = load_jump(ex, target) if target is not None else None
        if jump:
            problems.append(jump)
    if not user.exercise_history:
        problems.extend(filter(None, (first_bodyweight_reps(ex) for ex in _ordered(workout))))
    problems.extend(_unit_problems(workout, user))
    return problems


FIRST_BODYWEIGHT_REPS_MAX = 20
"""The most reps a new user's bodyweight set may ask: the high-repetition end of local muscular
endurance work (ACSM 2009 position stand, progression models in resistance training: light loads for
high repetitions, more than 15), at or above the top of every goal's range (trainer.domain.prescriptions:
endurance's 15-20 is the highest) and of what the system's own first workouts and plan weeks give
squats, push-ups and bodyweight drills (13-15). A set of 40 or more is a test, not a first workout."""


def first_bodyweight_reps(ex: Exercise) -> str | None:
    """Why a new user's bodyweight set has too many reps, or None: without any logged history a
    bodyweight prescription stays within FIRST_BODYWEIGHT_REPS_MAX."""
    if ex.exercise_type != "reps" or not ex.reps or any(load > 0 for load in ex.load_each or []):
        return None
    if max(ex.reps) <= FIRST_BODYWEIGHT_REPS_MAX:
        return None
    return (
        f"{_label(ex)} asks {max(ex.reps)} reps a set of a user with no logged history: "
        f"prescribe at most {FIRST_BODYWEIGHT_REPS_MAX} reps a set"
    )


def _unit_problems(workout: Workout, user: UserTrainingContext) -> list[str]:
    problems: list[str] = []
    load_units = sorted({e.load_unit for e in workout.exercises if e.load_unit})
    distance_units = sorted({e.distance_unit for e in workout.exercises if e.distance_unit})
    if len(load_units) > 1:
        problems.append(
            f"mixed weight units in one workout ({', '.join(load_units)}); use {user.weight_unit}"
        )
    elif load_units and load_units[0] != user.weight_unit:
        problems.append(f"loads are in {load_units[0]} but the user's weight unit is {user.weight_unit}")
    if len(distance_units) > 1:
        problems.append(
            f"mixed distance units in one workout ({', '.join(distance_units)}); use {user.distance_unit}"
        )
    elif distance_units and distance_units[0] != user.distance_unit:
        problems.append(
            f"distances are in {distance_units[0]} but the user's distance unit is {user.distance_unit}"
        )
    for ex in workout.exercises:
        if (
            ex.target_pace
            and "/" in ex.target_pace
            and not ex.target_pace.rstrip().endswith(user.distance_unit)
        ):
            problems.append(f"{_label(ex)} pace '{ex.target_pace}' is not per {user.distance_unit}")
    return problems
