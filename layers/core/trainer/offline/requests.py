"""The offline coach's reading of workout requests and exercise questions:
a workout made harder or easier, a set scheme for one exercise ('4 sets of 12 on the first one'), one
exercise of the workout shown ('show me the second exercise'), the units changed for good ('use pounds
from now on'), and alternatives for a movement that hurts ('squats hurt my knee, what can I do
instead?'). The numbers come from code (trainer.domain.difficulty, the load steps of the user's
location); the intent table (trainer.offline.intents) names these handlers."""

from __future__ import annotations

import re
from typing import Any

from trainer.domain.catalog import instructions, load_catalog
from trainer.domain.difficulty import Direction, step_changes
from trainer.domain.exercise_search import find_exercise, form_cues, joint_of, shares_text
from trainer.domain.message_words import NUMBER_WORDS
from trainer.domain.workout_checks import muscles_in_text
from trainer.offline.patterns import GOALS, SWAP, wants_workout
from trainer.offline.references import identify_exercise
from trainer.offline.turn import Step, Turn, ask, notify, referent_name
from trainer.tools.base import ToolInvocation
from trainer.tools.exercises import SearchExercises, SearchExercisesArgs
from trainer.tools.settings import SetUnits, SetUnitsArgs
from trainer.tools.wording import joined, prescription
from trainer.tools.workout_edits import AdjustArgs, AdjustExercise

_I = re.IGNORECASE
HARDER = re.compile(r"\b(harder|tougher|more (?:challenging|intense|difficult)|too easy|step it up)\b", _I)
EASIER = re.compile(
    r"\b(easier|less (?:challenging|intense|difficult)|too (?:hard|difficult)|"
    r"tone it down|dial it back)\b",
    _I,
)
SET_SCHEME = re.compile(
    r"\b(\d{1,2}|one|two|three|four|five|six)\s*(?:sets?\s*(?:of|x|×)|x|×)\s*(\d{1,2})(?:\s*reps?)?\b", _I
)
UNITS = re.compile(
    r"\b(?:use|switch(?: me)?(?: over)?(?: back)? to|change (?:my )?units? to|set (?:my )?units? to|"
    r"(?:give|show) me (?:everything |loads |weights |distances )?in|i (?:prefer|want|think in))\s+"
    r"(?P<unit>pounds|lbs?|kilos|kilograms|kgs?|miles|mi|kilometers|kilometres|km)\b"
    r"(?![^.?!]*\b(?:for this|this time|just now)\b)",
    _I,
)
SHOW = re.compile(
    r"\b(?:show|tell|remind|what'?s|what is|whats|which is|read)\b[^.?!]*?"
    r"\b(?:the\s+)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|last|final|next)\s+"
    r"(?:exercise|one|move|movement|lift)\b",
    _I,
)
PAINFUL = re.compile(r"\b(hurts?|hurting|pain(?:ful)?|aches?|aching|sore|twinge|bother(?:s|ing)?)\b", _I)
ASKS_ALTERNATIVE = re.compile(
    r"\b(instead|alternatives?|substitutes?|replace(?:ment)?|swap (?:it|them)|what (?:else )?can i do|"
    r"what should i do|options?)\b|\?\s*$",
    _I,
)
MOVEMENT_WORDS = re.compile(
    r"\b(squats?|squatting|lunges?|lunging|deadlifts?|deadlifting|rdls?|bench(?:ing| press(?:es)?)?|"
    r"overhead press(?:es|ing)?|shoulder press(?:es|ing)?|push[\s-]?ups?|pull[\s-]?ups?|chin[\s-]?ups?|"
    r"rows?|rowing|dips?|"
    r"curls?|step[\s-]?ups?|leg press|leg extensions?|hip thrusts?|planks?|burpees?|running)\b",
    _I,
)
_MOVEMENT_NAMES = {"squatting": "squat", "lunging": "lunge", "deadlifting": "deadlift",
                   "benching": "bench press", "bench": "bench press", "rowing": "row", "running": "running",
                   "rdl": "romanian deadlift",
                   "rdls": "romanian deadlift", "overhead pressing": "overhead press",
                   "shoulder pressing": "shoulder press"}  # fmt: skip


# --- which messages ask for these --------------------------------------------------------------------


def asks_units(text: str) -> bool:
    """A lasting change of units ('use pounds from now on', 'switch to kg'), not a conversion."""
    return bool(UNITS.search(text)) and not re.search(r"\d+(?:\.\d+)?\s*(?:kg|lbs?|pounds|km|mi)", text, _I)


def asks_intensity(text: str) -> bool:
    """The current workout (or one exercise of it) harder or easier, not a new workout nor a swap."""
    said = bool(HARDER.search(text) or EASIER.search(text))
    return said and not (SWAP.search(text) or GOALS.search(text) or wants_workout(text))


def asks_scheme(text: str) -> bool:
    """A set scheme for an exercise: '4 sets of 12 on the first one', 'make the rows 3x8'."""
    return bool(SET_SCHEME.search(text)) and not wants_workout(text)


def asks_to_show(text: str) -> bool:
    return bool(SHOW.search(text)) and not SWAP.search(text)


def painful_movement(text: str) -> tuple[str, str] | None:
    """(movement, joint) when a message says a movement hurts a joint and asks what to do instead."""
    if not (PAINFUL.search(text) and ASKS_ALTERNATIVE.search(text)):
        return None
    joint = joint_of(text)
    found = MOVEMENT_WORDS.search(text)
    if joint is None or found is None:
        return None
    word = re.sub(r"[\s-]+", " ", found.group(1).lower())
    return _MOVEMENT_NAMES.get(word, word), joint


def asks_pain_alternatives(text: str) -> bool:
    return painful_movement(text) is not None


# --- what the coach does -----------------------------------------------------------------------------


async def _workout_exercises(turn: Turn) -> list[dict[str, Any]]:
    current = await turn.current()
    exercises = list((current or {}).get("exercises") or [])
    return sorted(exercises, key=lambda e: int(e.get("order") or 0))


def _one_exercise(turn: Turn, exercises: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The exercise the message names (position, 'this one', name); None: the whole workout."""
    return identify_exercise(turn.text, exercises, referent_name(turn.convo))


async def intensity_steps(turn: Turn, intents: list[Any]) -> list[Step]:
    """One step per exercise to change: the one named, else every open exercise of the workout."""
    exercises = await _workout_exercises(turn)
    one = _one_exercise(turn, exercises)
    chosen = [one] if one is not None else [e for e in exercises if not e.get("completed")]
    return [Step("intensity", str(e.get("id") or e.get("order"))) for e in chosen] or [Step("intensity")]


def _direction(text: str) -> Direction:
    return "easier" if EASIER.search(text) and not HARDER.search(text) else "harder"


async def intensity(turn: Turn, step: Step) -> ToolInvocation:
    exercises = await _workout_exercises(turn)
    if not exercises:
        return notify("There's no active workout to change yet - ask me for a workout first.")
    exercise = next((e for e in exercises if str(e.get("id") or e.get("order")) == step.payload), None)
    if exercise is None:
        return ask("Which exercise should I change?", [str(e.get("exercise_name")) for e in exercises][:8])
    direction = _direction(turn.text)
    changes = step_changes(exercise, direction, (await turn.records()).load_steps())
    if not changes:
        return notify(
            f"{exercise.get('exercise_name')} can't go any {direction} here, so I left it as it is."
        )
    return AdjustExercise().call(AdjustArgs(exercise_id=step.payload, adjustments=changes))


async def scheme(turn: Turn, step: Step) -> ToolInvocation:
    """'4 sets of 12' on the exercise named: that many sets, those reps, its loads kept per set."""
    exercises = await _workout_exercises(turn)
    if not exercises:
        return notify("There's no active workout to change yet - ask me for a workout first.")
    exercise = _one_exercise(turn, exercises)
    found = SET_SCHEME.search(turn.text)
    if exercise is None or found is None:
        return ask("Which exercise should I change?", [str(e.get("exercise_name")) for e in exercises][:8])
    sets = NUMBER_WORDS.get(found.group(1).lower()) or int(found.group(1))
    reps = int(found.group(2))
    changes: dict[str, Any] = {"sets": sets}
    if exercise.get("exercise_type") == "hold":
        changes["hold_sec"] = [reps] * sets
    else:
        changes["reps"] = [reps] * sets
    loads = list(exercise.get("load_each") or [])
    if loads:
        changes["load_each"] = (loads + [loads[-1]] * sets)[:sets]
    exercise_id = str(exercise.get("id") or exercise.get("order"))
    return AdjustExercise().call(AdjustArgs(exercise_id=exercise_id, adjustments=changes))


async def show(turn: Turn, step: Step) -> ToolInvocation:
    """One exercise of the workout in words: what, how much, what it works and its form cues."""
    exercises = await _workout_exercises(turn)
    if not exercises:
        return notify("There's no active workout yet - ask me for one and I'll walk you through it.")
    if re.search(r"\bnext\b", turn.text, _I):
        exercise = next((e for e in exercises if not e.get("completed")), None)
    else:
        exercise = identify_exercise(turn.text, exercises, referent_name(turn.convo))
    if exercise is None:
        names = [f"{e.get('order')}. {e.get('exercise_name')}" for e in exercises]
        return notify(f"Your workout has {len(exercises)} exercises: {joined(names)}.")
    name = str(exercise.get("exercise_name"))
    lines = [f"Exercise {exercise.get('order')} of {len(exercises)}: {name} - {prescription(exercise)}."]
    if exercise.get("rest_sec"):
        lines[0] = lines[0][:-1] + f", {exercise['rest_sec']} s rest between sets."
    entry = load_catalog().get(name) or find_exercise(name)
    if entry is not None:
        lines.append(f"It works {shares_text(entry.muscles)}.")
        if cues := form_cues(instructions(entry), limit=2):
            lines.append("Form: " + " ".join(cues))
    if exercise.get("completed"):
        lines.append("You've already done it.")
    return notify("\n".join(lines))


def _unit_of(word: str) -> tuple[str | None, str | None]:
    lowered = word.lower()
    if lowered.startswith(("pound", "lb")):
        return "lbs", None
    if lowered.startswith(("kilo", "kg")) and not lowered.startswith(("kilom",)):
        return "kg", None
    if lowered.startswith("mi"):
        return None, "mi"
    return None, "km"


UNIT_WORD = re.compile(
    r"(?<![\d.])(?<!\d\s)\b(?P<unit>pounds?|lbs?|kilos|kilograms?|kgs?|miles|mi|kilometers|kilometres|km|"
    r"imperial|metric)\b",
    _I,
)
"""A unit named on its own (not a number's: '100 kg' is a load, not a setting)."""
REPLACED_UNIT = re.compile(
    r"\b(?:not|no more|instead of|rather than|away from|from)\s+(?:in\s+)?$"
    r"|\b(?:don'?t|do not|never|hate)(?:\s+[\w']+){0,2}\s+$",
    _I,
)
ABOUT_WEIGHTS = re.compile(r"\b(?:weights?|loads?|lifts?|lifting|dumbbells?|barbell|plates?)\b", _I)
ABOUT_DISTANCES = re.compile(r"\b(?:distances?|runs?|running|rides?|cycling|pace)\b", _I)


def units_named(text: str) -> tuple[str | None, str | None]:
    """The weight and distance units a message asks for ('lbs', 'in miles'); 'imperial' and 'metric'
    set the one it talks about (weights, distances), or both."""
    weight: str | None = None
    distance: str | None = None
    for found in UNIT_WORD.finditer(text):
        if REPLACED_UNIT.search(text[: found.start()]):
            continue  # 'kilos, not pounds': pounds is the one going
        word = found.group("unit").lower()
        if word in ("imperial", "metric"):
            weights, distances = bool(ABOUT_WEIGHTS.search(text)), bool(ABOUT_DISTANCES.search(text))
            if weights or not distances:
                weight = "lbs" if word == "imperial" else "kg"
            if distances or not weights:
                distance = "mi" if word == "imperial" else "km"
            continue
        w, d = _unit_of(word)
        weight, distance = w or weight, d or distance
    return weight, distance


async def units(turn: Turn, step: Step) -> ToolInvocation:
    weight, distance = units_named(turn.text)
    if weight is None and distance is None:
        return ask("Which units would you like: kg or lbs for weights, km or miles for distances?")
    return SetUnits().call(SetUnitsArgs.model_validate({"weight_unit": weight, "distance_unit": distance}))


async def pain_alternatives(turn: Turn, step: Step) -> ToolInvocation:
    movement, joint = painful_movement(turn.text) or ("", "")
    wanted = muscles_in_text(turn.text) - muscles_in_text(joint, include_joints=True)
    muscle = {"muscle": next(iter(wanted))} if len(wanted) == 1 else {}
    return SearchExercises().call(
        SearchExercisesArgs.model_validate({"alternatives_to": movement, "painful_joint": joint, **muscle})
    )


NEVER = re.compile(
    r"\b(never (?:again|want|give|do|include|put|show|make)|not ever|don'?t ever|never\b.*\bagain|"
    r"(?:ban|blacklist) (?:it|them|this|that)|"
    r"(?:again|anymore|any more|from now on|for good|ever again)\s*[.!]?$)",
    _I,
)
_IT = re.compile(r"^(?:it|this|that|this one|that one|them|those)$", _I)


def says_never(text: str) -> bool:
    """A lasting dislike ('never give me that again', "I don't want it anymore"): only this becomes a
    preference when said with a swap; 'I don't like it' swaps the exercise and saves nothing."""
    return bool(NEVER.search(text))


async def never_again(turn: Turn, step: Step) -> ToolInvocation:
    """The exercise the swap replaces, as a lasting exclusion ('swap the incline press, never again')."""
    from trainer.offline.goal_parsing import disliked_exercises
    from trainer.offline.references import swap_target_text
    from trainer.tools.preferences import SetPreference, SetPreferenceArgs

    named = [d for d in disliked_exercises(turn.text) if not _IT.match(d)]
    thing = named[0] if named else None
    if thing is None:
        exercises = await _workout_exercises(turn)
        target = identify_exercise(swap_target_text(turn.text), exercises, referent_name(turn.convo))
        thing = str(target.get("exercise_name")) if target else None
    if thing is None:
        return ask("Which exercise should I never give you again?")
    return SetPreference().call(
        SetPreferenceArgs(
            type="exercise",
            description=f"Never {thing}",
            guidance=f"Never include {thing} in recommendations",
        )
    )
