"""Turning a user's words into the tools' own argument models (offline policy)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any, Literal, cast

from trainer.domain.message_words import NUMBER_WORDS, STOPWORDS, best_name
from trainer.domain.message_words import number as _number
from trainer.domain.message_words import stem as _stem
from trainer.domain.message_words import words as _words
from trainer.domain.movements import equipment_class
from trainer.domain.muscles import MUSCLES
from trainer.domain.progression import LoadSteps
from trainer.domain.units import distance_unit, weight_unit
from trainer.domain.workout import LoadUnit
from trainer.offline.patterns import INJURY, LOCATION
from trainer.programs.tools import (
    ChangeTrainingDayArgs,
    ChangeTrainingWeekArgs,
    RequestTrainingPlanArgs,
    Weekday,
)
from trainer.tools.calendar import CreateWorkoutPlanArgs, ManageMilestoneArgs, ScheduledWorkout
from trainer.tools.goals import CategoryGoalIn, GoalEntry, SetGoalsArgs
from trainer.tools.log_corrections import AdjustLoggedExerciseArgs
from trainer.tools.logged_entries import LoggedExercise
from trainer.tools.logging import LogCompletedExerciseArgs
from trainer.tools.preferences import PreferenceType, SetPreferenceArgs

EX_ID = re.compile(r"\bex_[A-Za-z0-9]+\b")

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
            "eighth": 8, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6}  # fmt: skip
CATEGORIES = {
    "strength": "Strength", "hypertrophy": "Hypertrophy", "muscle": "Hypertrophy", "size": "Hypertrophy",
    "endurance": "Endurance", "cardio": "Cardio", "conditioning": "Conditioning", "mobility": "Mobility",
    "flexibility": "Flexibility", "power": "Power", "weight loss": "Weight Loss", "fat loss": "Fat Loss",
    "stability": "Stability", "balance": "Balance", "speed": "Speed", "general fitness": "General Fitness",
}  # fmt: skip
MUSCLE_ALIASES = {
    **{m.lower(): m for m in MUSCLES},
    "quads": "Quadriceps", "hams": "Hamstrings", "lats": "Back", "delts": "Shoulders", "traps": "Trapezius",
    "core": "Abs", "bis": "Biceps", "tris": "Triceps", "pecs": "Chest", "glute": "Glutes", "calf": "Calves",
}  # fmt: skip
BODY_PARTS = ("lower back", "shoulder", "knee", "back", "wrist", "elbow", "ankle", "hip", "neck", "hamstring",
              "calf", "foot", "groin", "chest")  # fmt: skip
WORKOUT_TYPES = (
    ("upper body", "Upper Body"), ("lower body", "Lower Body"), ("full body", "Full Body"), ("legs", "Legs"),
    ("leg", "Legs"), ("push", "Push"), ("pull", "Pull"), ("chest", "Chest"), ("back", "Back"),
    ("arms", "Arms"), ("shoulders", "Shoulders"), ("core", "Core"), ("hiit", "HIIT"), ("run", "Run"),
    ("cardio", "Cardio"), ("yoga", "Mobility"), ("mobility", "Mobility"), ("stretch", "Mobility"),
    ("strength", "Strength"),
)  # fmt: skip
NUM = r"\d+(?:\.\d+)?"
WEIGHT_UNITS = r"kg|kgs|kilos?|kilograms?|lbs?|pounds?"
TIME_UNITS = r"min|mins|minutes?|sec|secs|seconds?|s"


def _as_int(value: float) -> float | int:
    return int(value) if value == int(value) else value


def workout_type(text: str) -> str:
    lowered = text.lower()
    for key, kind in WORKOUT_TYPES:
        if re.search(rf"\b{re.escape(key)}\b", lowered):
            return kind
    return "Full Body"


def duration_minutes(text: str) -> int | None:
    if m := re.search(r"(\d{1,3})\s*-?\s*(?:min|mins|minutes|minute)\b", text, re.IGNORECASE):
        return int(m.group(1))
    if re.search(r"\bhalf an hour\b", text, re.IGNORECASE):
        return 30
    if re.search(r"\ban hour\b|\b1 hour\b", text, re.IGNORECASE):
        return 60
    return None


def _named_day(lowered: str, today: date) -> date | None:
    """An ISO date, 'tomorrow' or 'the day after tomorrow' in the text; else None."""
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    if "day after tomorrow" in lowered:
        return today + timedelta(days=2)
    if "tomorrow" in lowered:
        return today + timedelta(days=1)
    return None


def resolve_date(text: str, today: date) -> date:
    """'today', 'tomorrow', 'on Monday', 'next Friday', 'in 3 days', '2026-05-04'; default tomorrow."""
    lowered = text.lower()
    if (day := _named_day(lowered, today)) is not None:
        return day
    if re.search(r"\btoday\b|\btonight\b", lowered):
        return today
    if m := re.search(r"\bin (\w+) (day|week)s?\b", lowered):
        n = _number(m.group(1))
        if n:
            return today + timedelta(days=n * (7 if m.group(2) == "week" else 1))
    for index, name in enumerate(WEEKDAYS):
        if re.search(rf"\b{name}\b", lowered):
            ahead = (index - today.weekday()) % 7 or 7
            return today + timedelta(days=ahead)
    return today + timedelta(days=1)


TIME_OF_DAY = re.compile(
    r"\b(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?![a-z])"
    r"|\bat\s+(\d{1,2})(?::(\d{2}))?(?![\d.:])(?!\s*(?:kg|kgs|lbs?|%|km|mi|min|minutes|k\b|x\b|reps?))"
    r"(?:\s+(?:in the\s+)?(morning|evening|afternoon|tonight))?",
    re.IGNORECASE,
)


def time_of_day(text: str) -> time | None:
    """'at 7am', 'at 7', 'at 18:30', '6 pm', 'at 6 in the evening' (no time: None)."""
    m = TIME_OF_DAY.search(text)
    if m is None:
        return None
    hour = int(m.group(1) or m.group(4))
    minute = int(m.group(2) or m.group(5) or 0)
    suffix = (m.group(3) or "").lower().replace(".", "")
    if (suffix == "pm" or (m.group(6) or "").lower() in ("evening", "afternoon", "tonight")) and hour < 12:
        hour += 12
    if suffix == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def resolve_deadline(text: str, today: date) -> date | None:
    lowered = text.lower()
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    if m := re.search(r"\b(?:in|within|in the next) (\w+) (week|month)s?\b", lowered):
        n = _number(m.group(1))
        if n:
            return today + timedelta(days=n * (7 if m.group(2) == "week" else 30))
    if m := re.search(r"\bby (?:the end of )?(" + "|".join(MONTHS) + r")\b(?:\s+(\d{4}))?", lowered):
        month = MONTHS.index(m.group(1)) + 1
        year = int(m.group(2)) if m.group(2) else today.year + (1 if month < today.month else 0)
        following = date(year + (month == 12), month % 12 + 1, 1)
        return following - timedelta(days=1)
    if "next year" in lowered:
        return date(today.year + 1, 12, 31)
    if "next month" in lowered:
        return today + timedelta(days=30)
    return None


def expiry(text: str, now: datetime) -> tuple[str | None, bool]:
    """(expires_at ISO, delete_after_use) per the preference rules of seed 000 §2."""
    lowered = text.lower()
    if m := re.search(r"\bfor (?:the next |a |another )?(\w+)? ?(day|week|month)s?\b", lowered):
        n = _number(m.group(1)) if m.group(1) else 1
        if n:
            days = {"day": 1, "week": 7, "month": 30}[m.group(2)] * n
            return (now + timedelta(days=days)).isoformat(), False
    if re.search(r"\bthis week\b", lowered):
        return (now + timedelta(days=7)).isoformat(), False
    if re.search(r"\b(today|this workout|this session|right now|for now|tonight|here)\b", lowered):
        return None, True
    return None, False


ORDINAL_REF = re.compile(
    r"\bthe\s+(?P<a>"
    + "|".join(ORDINALS)
    + r"|last|final)\b(?!\s+(?:sets?|reps?|rounds?|time|week|day|hold))"
    r"|\b(?P<b>" + "|".join(ORDINALS) + r"|last|final)\s+(?:one|exercise|move|movement|lift)\b",
    re.IGNORECASE,
)
REFERENCE = re.compile(
    r"\b(?:this|that|it)\s+one\b|\b(?:this|that)\s+exercise\b|\b(?:swap|replace|change)\s+(?:it|this|that)\b",
    re.I,
)


def ordinal_position(text: str, count: int) -> int | None:
    """The 1-based position 'the second', 'the last one', '#2', 'exercise 3' names (None: none)."""
    if m := ORDINAL_REF.search(text):
        word = (m.group("a") or m.group("b")).lower()
        position = count if word in ("last", "final") else ORDINALS[word]
        return position if 1 <= position <= count else None
    if m := re.search(r"(?:#|\bexercise |\bnumber |\bno\.? ?)(\d{1,2})\b", text.lower()):
        position = int(m.group(1))
        return position if 1 <= position <= count else None
    return None


def name_overlap(text: str, name: str) -> int:
    said = {_stem(w) for w in _words(text)} - STOPWORDS
    return len(({_stem(w) for w in _words(name)} - STOPWORDS) & said)


def identify_exercise(
    text: str, exercises: list[dict[str, Any]], referent: str | None = None
) -> dict[str, Any] | None:
    """The exercise a message refers to: by id, by position ('the second', '#2', 'the last one'), as
    'this/that one' (the exercise the conversation was just about, `referent`), or by name."""
    if not exercises:
        return None
    ordered = sorted(exercises, key=lambda e: int(e.get("order") or 0))
    if m := EX_ID.search(text):
        found = next((e for e in ordered if e.get("id") == m.group(0)), None)
        if found:
            return found
    if (position := ordinal_position(text, len(ordered))) is not None:
        return ordered[position - 1]
    if referent and REFERENCE.search(text):
        by_referent = _best_by_name(referent, ordered)
        if by_referent is not None:
            return by_referent
    return _best_by_name(text, ordered)


def _best_by_name(text: str, ordered: list[dict[str, Any]]) -> dict[str, Any] | None:
    best: tuple[int, dict[str, Any]] | None = None
    for exercise in ordered:
        score = name_overlap(text, str(exercise.get("exercise_name", "")))
        if score and (best is None or score > best[0]):
            best = (score, exercise)
    return best[1] if best else None


def swap_target_text(text: str) -> str:
    """The part of a swap request naming the exercise to replace."""
    if m := re.search(r"instead of (.+)", text, re.IGNORECASE):
        return m.group(1)
    return re.split(r"\b(?:for|with|to|into)\b", text, maxsplit=1, flags=re.IGNORECASE)[0]


PAIR_LOAD_FIRST = re.compile(rf"({NUM})\s*({WEIGHT_UNITS})\s*(?:for|x|×|\*)\s*(\d{{1,3}})\b", re.I)
PAIR_REPS_FIRST = re.compile(
    rf"\b(\d{{1,3}})\s*(?:reps?\s*)?(?:at|@|with|x|×)\s*({NUM})\s*({WEIGHT_UNITS})\b", re.I
)
LOAD_LIST = re.compile(
    rf"({NUM}(?:\s*(?:/|,|,?\s*and|,?\s*then)\s*{NUM})+)\s*({WEIGHT_UNITS})\b", re.IGNORECASE
)
ONE_LOAD = re.compile(rf"({NUM})\s*({WEIGHT_UNITS})\b", re.IGNORECASE)


def set_pairs(text: str) -> tuple[list[float], list[int], LoadUnit] | None:
    """Loads and reps set by set: '60 kg for 8, 60 kg for 8, then 65 kg for 6' (two sets or more)."""
    pairs = [(float(m[1]), int(m[3]), m[2]) for m in PAIR_LOAD_FIRST.finditer(text)]
    if len(pairs) < 2:
        pairs = [(float(m[2]), int(m[1]), m[3]) for m in PAIR_REPS_FIRST.finditer(text)]
    if len(pairs) < 2:
        return None
    return [p[0] for p in pairs], [p[1] for p in pairs], weight_unit(pairs[-1][2].lower())


def per_set_loads(text: str) -> tuple[list[float], LoadUnit] | None:
    """A load per set: '60/60/65 kg', '20, 22.5 and 25 kg', or load-rep pairs."""
    if pairs := set_pairs(text):
        return pairs[0], pairs[2]
    if m := LOAD_LIST.search(text):
        values = [float(v) for v in re.findall(NUM, m.group(1))]
        return values, weight_unit(m.group(2).lower())
    return None


def one_load(text: str) -> tuple[float, LoadUnit] | None:
    if m := ONE_LOAD.search(text):
        return float(m.group(1)), weight_unit(m.group(2).lower())
    return None


REST = re.compile(
    rf"\b(\d{{1,3}}|one|two|three|four|five|a|an)\s*-?\s*({TIME_UNITS})\b(?:\s+of)?\s+(?:rest|break|recovery)\b"
    rf"|\b(?:rest|break)\s+(?:of\s+|for\s+|to\s+|between sets (?:of|to|for)\s+)?"
    rf"(\d{{1,3}}|one|two|three|four|five|a|an)\s*-?\s*({TIME_UNITS})\b",
    re.IGNORECASE,
)


def rest_seconds(text: str) -> int | None:
    """'2 minutes rest', 'rest 90 seconds', 'a minute of rest' in seconds."""
    m = REST.search(text)
    if m is None:
        return None
    amount = _number(m.group(1) or m.group(3)) or 0
    unit = (m.group(2) or m.group(4)).lower()
    return amount * (60 if unit.startswith("m") else 1)


def step_up(load: float, steps: LoadSteps, implement: str | None) -> float | None:
    """One load step above `load` (None: nothing heavier can be set up)."""
    return steps.up(load, implement)


def step_down(load: float, steps: LoadSteps, implement: str | None) -> float | None:
    """One load step below `load` (None: nothing lighter can be set up)."""
    lower = steps.down(load - 0.01, implement) if load > 0.01 else None
    return lower if lower is not None and lower < load else None


def adjustments_for(text: str, exercise: dict[str, Any], steps: LoadSteps | None = None) -> dict[str, Any]:
    """The fields of an exercise a request changes (empty when none can change): one load step
    heavier or lighter, per-set loads, reps, sets, rest, holds."""
    lowered = text.lower()
    changes: dict[str, Any] = {}
    sets = int(exercise.get("sets") or 0)
    reps = list(exercise.get("reps") or [])
    loads = [float(v) for v in exercise.get("load_each") or []]
    unit = exercise.get("load_unit") or "kg"
    steps = steps or LoadSteps.for_unit(unit)
    implement = equipment_class(str(exercise.get("exercise_name", "")), exercise.get("equipment") or [])
    given = per_set_loads(text)
    if given and loads:
        values, _ = given
        changes["load_each"] = [_as_int(v) for v in values]
        if len(values) != sets:
            changes["sets"] = len(values)
            if reps:
                changes["reps"] = (
                    (reps * len(values))[: len(values)] if len(reps) == 1 else _fit(reps, len(values))
                )
    elif (
        change := re.search(rf"\b(add|take off|remove)\s+({NUM})\s*(?:{WEIGHT_UNITS})\b", lowered)
    ) and loads:
        sign = 1 if change.group(1) == "add" else -1
        changes["load_each"] = [_as_int(max(0.0, v + sign * float(change.group(2)))) for v in loads]
    elif (single := one_load(text)) and loads and re.search(r"\b(to|at|use|make it)\b", lowered):
        changes["load_each"] = [_as_int(single[0])] * len(loads)
    elif re.search(r"heavier|more weight|harder", lowered):
        if loads:
            raised = [step_up(v, steps, implement) for v in loads]
            if all(v is not None for v in raised):
                changes["load_each"] = [_as_int(float(v)) for v in raised if v is not None]
        elif reps and exercise.get("exercise_type") == "reps":
            changes["reps"] = [r + 2 for r in reps]
    elif re.search(r"lighter|less weight|easier", lowered) and loads:
        lowered_loads = [step_down(v, steps, implement) for v in loads]
        if all(v is not None for v in lowered_loads):
            changes["load_each"] = [_as_int(float(v)) for v in lowered_loads if v is not None]
    more_reps = re.search(r"\b(?:add\s+)?(\d+|one|two|three|four|five)\s+more\s+reps?\b", lowered)
    fewer_reps = re.search(r"\b(\d+|one|two|three|four|five)\s+(?:fewer|less)\s+reps?\b", lowered)
    if more_reps and reps:
        changes["reps"] = [r + (_number(more_reps.group(1)) or 2) for r in reps]
    elif "more reps" in lowered and reps:
        changes["reps"] = [r + 2 for r in reps]
    elif fewer_reps and reps:
        changes["reps"] = [max(1, r - (_number(fewer_reps.group(1)) or 2)) for r in reps]
    elif re.search(r"fewer reps|less reps", lowered) and reps:
        changes["reps"] = [max(1, r - 2) for r in reps]
    more_sets = "more sets" in lowered or re.search(r"\b(?:add|one more|another)\s+(?:a\s+)?set\b", lowered)
    if more_sets and sets:
        _resize(changes, exercise, sets + 1)
    if re.search(r"fewer sets|less sets|one set less|drop a set", lowered) and sets > 1:
        _resize(changes, exercise, sets - 1)
    rest = exercise.get("rest_sec")
    if (seconds := rest_seconds(text)) is not None and rest is not None:
        changes["rest_sec"] = seconds
    elif re.search(r"more rest|longer rest", lowered) and rest is not None:
        changes["rest_sec"] = int(rest) + 30
    elif re.search(r"less rest|shorter rest", lowered) and rest is not None:
        changes["rest_sec"] = max(0, int(rest) - 30)
    if exercise.get("hold_sec") and re.search(r"longer hold|shorter hold", lowered):
        delta = 10 if "longer" in lowered else -10
        changes["hold_sec"] = [max(5, h + delta) for h in exercise["hold_sec"]]
    return {k: v for k, v in changes.items() if exercise.get(k) != v}


def _fit(values: list[Any], count: int) -> list[Any]:
    return values[:count] + [values[-1]] * max(0, count - len(values))


def _resize(changes: dict[str, Any], exercise: dict[str, Any], count: int) -> None:
    changes["sets"] = count
    for name in ("reps", "load_each", "hold_sec"):
        values = changes.get(name, exercise.get(name))
        if values:
            changes[name] = _fit(list(values), count)


CARDIO_NAMES = {
    "ran": "Running", "run": "Running", "jogged": "Jogging", "cycled": "Cycling", "biked": "Cycling",
    "rode": "Cycling", "swam": "Swimming", "walked": "Walking", "rowed": "Rowing",
}  # fmt: skip
NOT_EXERCISE_WORDS = frozenset(
    {"times", "rounds", "held", "hold", "holding", "seconds", "sec", "did", "done"}
    | {"as", "exactly", "written", "prescribed", "planned", "programmed", "plan"}
)
"""Words of a logging message that name no exercise ('done exactly as written')."""
UNITS_AFTER_NUMBER = r"\d+(?:\.\d+)?\s*(kg|kgs|kilos?|lbs?|pounds?|s|sec|secs|seconds|min|minutes)?\b"


EFFORT_NUMBER = r"\d{1,2}(?:\.5)?"
EFFORT_LIST = rf"{EFFORT_NUMBER}(?:\s*(?:,|/|and|then)\s*{EFFORT_NUMBER})*"
RPE_PHRASE = re.compile(
    rf"(?:,\s*|\s)(?:(?:at|with|@)\s*(?:an?\s+)?)?rpe\s*(?:of\s*|@\s*|:\s*)?(?P<after>{EFFORT_LIST})"
    rf"|(?:,\s*|\s)(?:at\s+)?(?P<before>{EFFORT_NUMBER})\s*rpe\b|(?:,\s*|\s)@\s*(?P<at>{EFFORT_NUMBER})(?!\s*(?:kg|lb))\b",
    re.IGNORECASE,
)
RIR_PHRASE = re.compile(
    rf"(?:,\s*|\s)(?:with\s+)?(?P<before>{EFFORT_LIST})\s*(?:rir|reps?\s+in\s+(?:the\s+)?reserve|"
    rf"(?:reps?\s+)?(?:left\s+)?in\s+the\s+tank)\b|(?:,\s*|\s)rir\s*(?P<after>{EFFORT_LIST})",
    re.IGNORECASE,
)


def _effort_values(found: str) -> list[float]:
    return [float(v) for v in re.findall(EFFORT_NUMBER, found)]


def split_effort(text: str) -> tuple[dict[str, Any], str]:
    """The effort a logging message gives ('RPE 8', 'at RPE 7, 8, 9', '@9', '2 reps in reserve',
    'RIR 1') as log arguments (rpe / rpe_each / rir / rir_each), and the text without it, so the effort
    never becomes part of the exercise's name."""
    effort: dict[str, Any] = {}
    rest = text
    if m := RPE_PHRASE.search(rest):
        values = _effort_values(m.group("after") or m.group("before") or m.group("at"))
        if values and all(1 <= v <= 10 for v in values):
            effort = {"rpe": values[0]} if len(values) == 1 else {"rpe_each": values}
        rest = rest[: m.start()] + " " + rest[m.end() :]
    elif m := RIR_PHRASE.search(rest):
        values = _effort_values(m.group("before") or m.group("after"))
        if values and all(0 <= v <= 9 for v in values):
            effort = {"rir": values[0]} if len(values) == 1 else {"rir_each": values}
        rest = rest[: m.start()] + " " + rest[m.end() :]
    return effort, rest


def exercise_phrase(text: str) -> str:
    """The exercise a logging message names, as words ('Bench Press'); '' when it names none."""
    lowered = text.lower()
    for pattern in (PAIR_LOAD_FIRST, PAIR_REPS_FIRST, LOAD_LIST):
        lowered = pattern.sub(" ", lowered)
    lowered = re.sub(r"\d{1,2}\s*(?:x|sets? of|×)\s*\d{1,3}", " ", lowered)
    lowered = re.sub(UNITS_AFTER_NUMBER, " ", lowered)
    words = [
        w
        for w in _words(lowered)
        if w not in STOPWORDS and w not in NUMBER_WORDS and w not in NOT_EXERCISE_WORDS
    ]
    return " ".join(words[:4]).title()


def parse_logged_exercise(text: str) -> LogCompletedExerciseArgs | None:
    """'3x10 bench press at 60kg', 'I did 3 sets of 12 squats', 'ran 5 km in 28 minutes',
    'held a plank for 60 seconds 3 times', 'bench press: 60 kg for 8, 60 kg for 8, 65 kg for 6', each
    with an optional effort ('..., RPE 8', '2 reps in reserve')."""
    effort, text = split_effort(text)
    parsed = _parse_logged(text)
    if parsed is None or not effort:
        return parsed
    if parsed.exercise_type == "duration" and ("rpe_each" in effort or "rir_each" in effort):
        return parsed
    return LogCompletedExerciseArgs.model_validate({**parsed.model_dump(exclude_none=True), **effort})


def _parse_logged(text: str) -> LogCompletedExerciseArgs | None:
    lowered = text.lower()
    load = one_load(text)
    cardio = re.search(r"\b(ran|run|jogged|cycled|biked|rode|swam|walked|rowed)\b", lowered)
    dist_m = re.search(r"(\d+(?:\.\d+)?)\s*(km|k|mi|miles?)\b", lowered)
    mins = duration_minutes(text)
    if cardio or (dist_m and mins):
        verb = cardio.group(1) if cardio else "ran"
        entry: dict[str, Any] = {"exercise_name": CARDIO_NAMES[verb], "exercise_type": "duration"}
        if mins:
            entry["duration_min"] = mins
        if dist_m:
            entry["distance"] = float(dist_m.group(1))
            entry["distance_unit"] = "mi" if dist_m.group(2).startswith("mi") else "km"
        if "duration_min" not in entry and "distance" not in entry:
            return None
        return LogCompletedExerciseArgs.model_validate(entry)
    name = exercise_phrase(text)
    if not name:
        return None
    if pairs := set_pairs(text):
        loads, reps, unit = pairs
        return LogCompletedExerciseArgs(
            exercise_name=name,
            exercise_type="reps",
            sets=len(reps),
            reps=reps,
            load_each=loads,
            load_unit=unit,
        )
    hold_m = re.search(r"(\d{1,3})\s*(?:s|sec|secs|seconds)\b", lowered)
    sets_reps = re.search(r"(\d{1,2})\s*(?:x|sets? of|×)\s*(\d{1,3})", lowered)
    times_m = re.search(r"(\d{1,2}|two|three|four|five)\s*(?:times|sets|rounds)\b", lowered)
    if hold_m and not sets_reps:
        sets = (_number(times_m.group(1)) or 1) if times_m else 1
        return LogCompletedExerciseArgs(
            exercise_name=name, exercise_type="hold", sets=sets, hold_sec=[int(hold_m.group(1))] * sets
        )
    if sets_reps:
        sets, rep_count = int(sets_reps.group(1)), int(sets_reps.group(2))
        each = per_set_loads(text)
        if each and len(each[0]) == sets:
            return LogCompletedExerciseArgs(
                exercise_name=name, exercise_type="reps", sets=sets, reps=[rep_count] * sets,
                load_each=each[0], load_unit=each[1],
            )  # fmt: skip
        return LogCompletedExerciseArgs(
            exercise_name=name,
            exercise_type="reps",
            sets=sets,
            reps=[rep_count] * sets,
            load=load[0] if load else None,
            load_unit=load[1] if load else None,
        )
    return None


def done_as_planned(text: str) -> tuple[int | None, list[int] | None, float | None, LoadUnit | None]:
    """(sets, reps per set, top load, its unit) a message gives for an exercise of the workout
    (nothing for what it leaves as prescribed; an effort rating is not a load)."""
    lowered = split_effort(text)[1].lower()
    sets_reps = re.search(r"(\d{1,2})\s*(?:x|sets? of|×)\s*(\d{1,3})", lowered)
    load = one_load(text)
    sets = int(sets_reps.group(1)) if sets_reps else None
    reps = [int(sets_reps.group(2))] * int(sets_reps.group(1)) if sets_reps else None
    return sets, reps, (load[0] if load else None), (load[1] if load else None)


SET_INDEX = re.compile(r"\bthe\s+(first|second|third|fourth|fifth|sixth|last|final)\s+set\b", re.I)


def parse_correction(text: str, row: LoggedExercise) -> AdjustLoggedExerciseArgs | None:
    """The correction a message makes to a logged entry: 'that was 62.5 kg, not 60', 'the last set was
    only 3 reps', 'it was 4 sets', 'actually 12 reps'. None when it names nothing to change."""
    lowered = re.sub(
        rf"\bnot\s+{NUM}\s*(?:{WEIGHT_UNITS}|reps?|sets?|km|mi|miles?|min\w*)?", " ", text.lower()
    )
    sets = row.sets or len(row.reps or []) or 1
    index: int | None = None
    if m := SET_INDEX.search(lowered):
        word = m.group(1).lower()
        index = sets - 1 if word in ("last", "final") else ORDINALS[word] - 1
        if not 0 <= index < sets:
            return None
    changes: dict[str, Any] = {}
    load = one_load(lowered)
    reps_m = re.search(r"(\d{1,3})\s*reps?\b", lowered)
    sets_m = re.search(r"(\d{1,2})\s*sets?\b", lowered)
    sets_reps = re.search(r"(\d{1,2})\s*(?:x|×)\s*(\d{1,3})\b", lowered)
    minutes = duration_minutes(lowered)
    distance = re.search(rf"({NUM})\s*(km|k|mi|miles?)\b", lowered)
    bare = re.search(
        rf"\b(?:was|were|is|be|been|actually|only|meant)\s+(?:only\s+)?({NUM})(?![\d.]|\s*(?:x|%))", lowered
    )
    if row.exercise_type == "duration":
        if minutes:
            changes["duration_min"] = minutes
        if distance:
            changes["distance"] = float(distance.group(1))
            changes["distance_unit"] = "mi" if distance.group(2).startswith("mi") else "km"
        return AdjustLoggedExerciseArgs(exercise_id=row.id, **changes) if changes else None
    if sets_reps:
        count, each = int(sets_reps.group(1)), int(sets_reps.group(2))
        changes.update(sets=count, reps=[each] * count)
    elif sets_m:
        changes["sets"] = int(sets_m.group(1))
    if reps_m and "reps" not in changes:
        changes["reps"] = _one_or_all(row.reps or [], sets, index, int(reps_m.group(1)))
    if load and row.exercise_type == "reps":
        value, unit = load
        if index is not None and row.load_each:
            changes["load_each"] = _one_or_all([float(v) for v in row.load_each], sets, index, value)
        else:
            changes["load"] = value
        if unit != row.load_unit:
            changes["load_unit"] = unit
    if not changes and bare is not None:
        value = float(bare.group(1))
        loaded = row.exercise_type == "reps" and bool(row.load_each)
        if loaded and (value != int(value) or value > 30):
            if index is not None and row.load_each:
                changes["load_each"] = _one_or_all([float(v) for v in row.load_each], sets, index, value)
            else:
                changes["load"] = value
        elif row.exercise_type == "reps" and value == int(value):
            changes["reps"] = _one_or_all(row.reps or [], sets, index, int(value))
        elif row.exercise_type == "hold" and value == int(value):
            changes["hold_sec"] = _one_or_all(row.hold_sec or [], sets, index, int(value))
    if not changes:
        return None
    return AdjustLoggedExerciseArgs(exercise_id=row.id, **changes)


def _one_or_all[T](values: list[T], sets: int, index: int | None, value: T) -> list[T]:
    current = _fit(list(values), sets) if values else [value] * sets
    if index is None:
        return [value] * sets
    current[index] = value
    return current


def parse_goals(text: str) -> SetGoalsArgs | None:
    """set_goals arguments from 'strength 60%, cardio 40%' or 'focus on glutes and hamstrings'."""
    lowered = text.lower()
    segments = re.split(r",|;|\band\b|\bplus\b", lowered)
    found: list[tuple[str, str, float | None]] = []
    for segment in segments:
        pct_m = re.search(r"(\d{1,3}(?:\.\d+)?)\s*(?:%|percent)", segment)
        pct = float(pct_m.group(1)) if pct_m else None
        label: tuple[str, str] | None = None
        for key, muscle in sorted(MUSCLE_ALIASES.items(), key=lambda kv: -len(kv[0])):
            if re.search(rf"\b{re.escape(key)}\b", segment):
                label = ("muscle", muscle)
                break
        if label is None:
            for key, category in sorted(CATEGORIES.items(), key=lambda kv: -len(kv[0])):
                if re.search(rf"\b{re.escape(key)}\b", segment):
                    label = ("category", category)
                    break
        if label and all(label[1] != name for _, name, _ in found):
            found.append((label[0], label[1], pct))
    if not found:
        return None
    kind = "muscle" if sum(k == "muscle" for k, _, _ in found) > len(found) / 2 else "category"
    chosen = [(name, pct) for k, name, pct in found if k == kind]
    given = [p for _, p in chosen if p is not None]
    missing = [n for n, p in chosen if p is None]
    left = max(0.0, 100.0 - sum(given))
    share = round(left / len(missing), 1) if missing else 0.0
    weights = {name: (pct if pct is not None else share) for name, pct in chosen}
    if kind == "muscle":
        return SetGoalsArgs(goal_type="muscle", muscle_goals=weights)
    return SetGoalsArgs(
        goal_type="category",
        category_goals=[
            CategoryGoalIn(category=name, description=f"{name} focus", percentage=pct)
            for name, pct in weights.items()
        ],
    )


GOAL_SHIFT = re.compile(
    r"\b(?:move|shift|take|transfer|put|swap)\s+(\d{1,3}(?:\.\d+)?)\s*(?:%|percent)\s+(?:of\s+)?"
    r"(?:from|off|away from|out of)\s+(?:my\s+)?([a-z][a-z ]*?)\s+"
    r"(?:to|into|onto|towards?|over to|and give it to)"
    r"\s+(?:my\s+)?([a-z][a-z ]*?)(?=\s+(?:work|training|goals?)\b|[.,!?;]|$)",
    re.IGNORECASE,
)


def _category(phrase: str) -> str | None:
    for key, category in sorted(CATEGORIES.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"\b{re.escape(key)}\b", phrase.lower()):
            return category
    return None


def parse_goal_shift(text: str, goals: Sequence[GoalEntry]) -> SetGoalsArgs | None:
    """'move 10% from strength to cardio': the current category goals with that share moved."""
    m = GOAL_SHIFT.search(text)
    if m is None or not goals:
        return None
    amount = float(m.group(1))
    source, target = _category(m.group(2)), _category(m.group(3))
    if source is None or target is None or source == target:
        return None
    weights = {g.name: g.percentage for g in goals}
    names = {name.lower(): name for name in weights}
    source_name = names.get(source.lower())
    if source_name is None:
        return None
    target_name = names.get(target.lower(), target)
    moved = min(amount, weights[source_name])
    weights[source_name] = round(weights[source_name] - moved, 1)
    weights[target_name] = round(weights.get(target_name, 0.0) + moved, 1)
    descriptions = {g.name: g.description for g in goals}
    return SetGoalsArgs(
        goal_type="category",
        category_goals=[
            CategoryGoalIn(
                category=name, description=descriptions.get(name) or f"{name} focus", percentage=pct
            )
            for name, pct in weights.items()
            if pct > 0
        ],
    )


DISLIKE = re.compile(
    r"\b(?:hate|don'?t like|do not like|dislike|can'?t stand|no more|never give me|not a fan of)\s+"
    r"(?:doing\s+)?(?:the\s+|any\s+)?([a-z][a-z ,&'-]{2,80}?)"
    r"(?=[.!?;]|,\s*(?:never|but|so|please|i|and i)\b"
    r"|\s+(?:but|so|anymore|any more|please|again|because)\b|$)",
    re.IGNORECASE,
)
NOT_AN_EXERCISE = re.compile(r"\b(i|me|you|them|those|these|it|that|this|want|give|never|anything)\b", re.I)


def disliked_exercises(text: str) -> list[str]:
    """The exercises a message says the user dislikes: 'I hate burpees and lunges' -> both."""
    found: list[str] = []
    for m in DISLIKE.finditer(text):
        for item in re.split(r",|\band\b|\bor\b|&", m.group(1)):
            thing = item.strip(" '-").lower()
            if len(thing) >= 3 and not NOT_AN_EXERCISE.search(thing) and thing not in found:
                found.append(thing)
    return found


def equipment_statement(text: str) -> tuple[str, str] | None:
    """(description, guidance) of a statement about the equipment at hand ('no equipment',
    "I don't have a barbell here", 'only have dumbbells')."""
    lowered = text.lower()
    if re.search(r"\bno equipment\b|\bbodyweight only\b|\bnothing but my body\b", lowered):
        return "No equipment available", "Bodyweight exercises only"
    if m := re.search(
        r"\b(?:i )?don'?t have (?:a |an |any )?([a-z -]{3,40}?)(?=\s+(?:here|today|with me)\b|[.,!?;]|$)",
        lowered,
    ):
        thing = m.group(1).strip()
        return f"No {thing} available", f"Do not use a {thing}; offer alternatives"
    if m := re.search(
        r"\bonly have (?:a |an |some )?([a-z -]{3,40}?)(?=\s+(?:here|today|with me)\b|[.,!?;]|$)", lowered
    ):
        thing = m.group(1).strip()
        return f"Only {thing} available", f"Only use {thing} (or bodyweight)"
    return None


def parse_preference(text: str, now: datetime) -> SetPreferenceArgs:
    lowered = text.lower()
    expires_at, once = expiry(text, now)
    part = next((p for p in BODY_PARTS if re.search(rf"\b{p}s?\b", lowered)), None)
    kind: PreferenceType
    if INJURY.search(text) and part:
        kind = "injury"
        description = f"{part.title()} pain - avoid loading the {part}"
        guidance = f"Exclude exercises that load the {part}; offer pain-free alternatives"
        if not expires_at and not once:
            expires_at = (now + timedelta(days=7)).isoformat()
    elif dislikes := disliked_exercises(text):
        thing = dislikes[0]
        kind = "exercise"
        description = f"Dislikes {thing}"
        guidance = f"Never include {thing} in recommendations"
        expires_at, once = None, False
    elif m := re.search(r"\bavoid(?:ing)?\s+(?:the\s+|my\s+|any\s+)?([a-z][a-z -]{2,40}?)"
                        r"(?=[.,!?;]|\s+for\b|$)",
                        lowered):  # fmt: skip
        thing = m.group(1).strip()
        muscle = (
            MUSCLE_ALIASES.get(thing) or MUSCLE_ALIASES.get(_stem(thing)) or MUSCLE_ALIASES.get(thing + "s")
        )
        kind = "muscle_group" if muscle or part else "exercise"
        description = f"Avoid {thing}"
        guidance = f"Do not program exercises that target {thing}"
    elif m := re.search(r"\bonly have (\d{1,3})\s*(?:min|mins|minutes)\b", lowered):
        kind = "time"
        description = f"Only {m.group(1)} minutes available"
        guidance = f"Keep the workout within {m.group(1)} minutes including rest"
        if not expires_at:
            once = True
    elif equipment := equipment_statement(text):
        kind = "equipment"
        description, guidance = equipment
        if not expires_at:
            once = True
    elif re.search(r"\b(take it easy|go easy|tired|exhausted|low intensity)\b", lowered):
        kind = "intensity"
        description = "Take it easy: lower intensity"
        guidance = "Reduce loads and volume; keep RPE around 6"
    elif m := re.search(r"\bprefer\s+(.{3,80}?)(?=[.!?;]|$)", lowered):
        kind = "workout"
        description = f"Prefers {m.group(1).strip()}"
        guidance = f"Favour {m.group(1).strip()} when planning workouts"
    else:
        kind = "other"
        description = text.strip()[:120]
        guidance = "Take this into account"
    preference = SetPreferenceArgs(type=kind, description=description, guidance=guidance)
    if expires_at:
        preference.expires_at = datetime.fromisoformat(expires_at)
    if once:
        preference.delete_after_use = True
    return preference


def parse_preferences(text: str, now: datetime) -> list[SetPreferenceArgs]:
    """Every preference a message states: an injury, then each disliked exercise, else one preference."""
    lowered = text.lower()
    found: list[SetPreferenceArgs] = []
    if INJURY.search(text) and any(re.search(rf"\b{p}s?\b", lowered) for p in BODY_PARTS):
        found.append(parse_preference(text, now))
    for thing in disliked_exercises(text):
        found.append(
            SetPreferenceArgs(
                type="exercise",
                description=f"Dislikes {thing}",
                guidance=f"Never include {thing} in recommendations",
            )
        )
    return found or [parse_preference(text, now)]


def parse_location(text: str) -> str | None:
    if m := LOCATION.search(text):
        name = (m.group("a") or m.group("b") or m.group("c") or "").strip()
        return name or None
    return None


def named_location(text: str, names: Sequence[str]) -> str | None:
    """The saved location a message names ('in my hotel room' -> 'Hotel Room')."""
    lowered = f" {' '.join(_words(text))} "
    return next((n for n in names if f" {' '.join(_words(n))} " in lowered), None)


def parse_milestone(text: str, today: date) -> ManageMilestoneArgs:
    lowered = text.lower()
    value: float | None = None
    unit: str | None = None
    if m := re.search(r"\b(half marathon|marathon)\b", lowered):
        name, kind = f"Run a {m.group(1)}", "endurance"
        value, unit = (21.1 if m.group(1).startswith("half") else 42.2), "km"
    elif m := re.search(
        r"\b(run|row|swim|cycle|bike|walk)?\s*(?:an?\s+)?(\d+(?:\.\d+)?)\s*(k|km|mi|miles?)\b", lowered
    ):
        verb = m.group(1) or "run"
        unit = "mi" if m.group(3).startswith("mi") else "km"
        name, kind, value = f"{verb.title()} {m.group(2)} {unit}", "endurance", float(m.group(2))
    elif m := re.search(
        r"\b(bench|squat|deadlift|overhead press|press)\w*\s+(\d+(?:\.\d+)?)\s*(kg|lbs?)\b", lowered
    ):
        unit = "kg" if m.group(3) == "kg" else "lbs"
        name, kind, value = f"{m.group(1).title()} {m.group(2)} {unit}", "strength", float(m.group(2))
    elif m := re.search(r"\b(\d{1,3})\s+(pull-?ups?|push-?ups?|chin-?ups?|dips)\b", lowered):
        name, kind = f"{m.group(1)} {m.group(2)}", "strength"
        value, unit = float(m.group(1)), "reps"
    else:
        name, kind = text.strip()[:80], "other"
    limit = time_limit_minutes(lowered) if kind == "endurance" else None
    reps = None
    if (
        kind == "strength"
        and unit in ("kg", "lbs")
        and (r := re.search(r"\b(?:for|x)\s*(\d{1,3})(?:\s*reps?)?\b|\b(\d{1,3})\s*reps?\b", lowered))
    ):
        reps = int(r.group(1) or r.group(2))
    return ManageMilestoneArgs(
        action="create",
        goal_name=name,
        goal_type=kind,
        target_value=value,
        target_unit=unit,
        target_date=resolve_deadline(text, today),
        time_limit_min=limit,
        target_reps=reps,
    )


TIME_LIMIT = re.compile(
    r"\b(?:under|in|below|within|sub|faster than|less than)[- ]?(?:an?\s+)?"
    r"(?:(\d{1,2}):(\d{2})|(\d+(?:\.\d+)?)\s*(min(?:ute)?s?|h(?:ou)?rs?|hours?)\b|(hour|half an hour))"
)


def time_limit_minutes(lowered: str) -> float | None:
    """The time limit of a distance goal, in minutes: 'under 30 minutes', 'in 28:30', 'sub 2 hours',
    'in under an hour'."""
    m = TIME_LIMIT.search(lowered)
    if m is None:
        return None
    if m.group(1):
        return int(m.group(1)) + int(m.group(2)) / 60
    if m.group(5):
        return 30.0 if m.group(5) == "half an hour" else 60.0
    value = float(m.group(3))
    return value * 60 if m.group(4).startswith("h") else value


def parse_plan(text: str, today: date) -> CreateWorkoutPlanArgs:
    lowered = text.lower()
    weeks = 4
    if m := re.search(
        r"\b(\d{1,2}|one|two|three|four|five|six|eight|twelve)[- ]?(week|wk|month)s?\b", lowered
    ):
        n = _number(m.group(1)) or 4
        weeks = n * (4 if m.group(2) == "month" else 1)
    days = [d.title() for d in WEEKDAYS if re.search(rf"\b{d}s?\b", lowered)]
    per_week = len(days) or 3
    if m := re.search(r"\b(\d|two|three|four|five|six)\s*(?:x|times|days|sessions|workouts)\s*"
                      r"(?:a|per|/|each)\s*week",
                      lowered):  # fmt: skip
        per_week = _number(m.group(1)) or per_week
    start = (
        resolve_date(text, today)
        if re.search(r"\bstart", lowered)
        else today + timedelta(days=(7 - today.weekday()) % 7 or 7)
    )
    kind = workout_type(text)
    return CreateWorkoutPlanArgs(
        plan_name=f"{weeks}-week {kind.lower()} plan",
        start_date=start.isoformat(),
        duration_weeks=weeks,
        goal_description=text.strip()[:200],
        workouts_per_week=per_week,
        preferred_days=days or None,
        workout_types=[kind] if kind != "Full Body" else None,
    )


PLAN_LENGTH = re.compile(
    r"\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen)[- ]?(week|wk|month)s?\b",
    re.I,
)
PER_WEEK = re.compile(
    r"\b(\d|one|two|three|four|five|six|seven)\s*(?:x|times|days|sessions|workouts|trainings?)\s*"
    r"(?:a|per|/|each|every)\s*week",
    re.I,
)
NO_EQUIPMENT = re.compile(
    r"\b(no equipment|bodyweight|body weight|hotel room|nothing but my body|no gym)\b", re.I
)
ONLY_HAVE = re.compile(
    r"\bonly (?:have |got )?(?:a |an |some )?([a-z -]{3,30}?)(?=\s+(?:here|with me)\b|[.,!?;]|$)", re.I
)
HOTEL_GYM = re.compile(r"\bhotel gym\b", re.I)
HOTEL_GYM_EQUIPMENT = ["dumbbell", "bench", "treadmill", "stationary bike"]
"""What a hotel gym usually has, when the user has not saved one as a location."""


def plan_length_weeks(text: str) -> int | None:
    """'12-week' -> 12, 'three months' -> 12; None when the message names no length."""
    if m := PLAN_LENGTH.search(text):
        n = _number(m.group(1).lower())
        if n:
            return n * (4 if m.group(2).lower() == "month" else 1)
    return None


def named_weekdays(text: str) -> list[Weekday]:
    lowered = text.lower()
    found = [d for d in WEEKDAYS if re.search(rf"\b{d}s?\b", lowered)]
    return [cast(Weekday, d.title()) for d in found]


def parse_training_plan(text: str) -> RequestTrainingPlanArgs:
    """'Make me a 12-week plan, 4 days a week': length (default 12 weeks), days a week or named weekdays,
    session length, and the user's words as the goal."""
    days = named_weekdays(text)
    per_week = _number(m.group(1).lower()) if (m := PER_WEEK.search(text)) else None
    minutes = duration_minutes(text)
    return RequestTrainingPlanArgs(
        weeks=plan_length_weeks(text) or 12,
        days_per_week=None if days else per_week,
        training_days=days or None,
        session_minutes=minutes if minutes is not None and 15 <= minutes <= 180 else None,
        goal=text.strip()[:500],
    )


def planned_day(text: str, today: date) -> date:
    """The day a question about the plan means: 'tomorrow', a weekday (the next one, today included),
    an ISO date; default today."""
    lowered = text.lower()
    if (day := _named_day(lowered, today)) is not None:
        return day
    for index, name in enumerate(WEEKDAYS):
        if re.search(rf"\b{name}\b", lowered):
            return today + timedelta(days=(index - today.weekday()) % 7)
    return today


def change_fields(text: str, locations: Sequence[str]) -> dict[str, Any]:
    """A change of circumstances as the fields of a week or day change: a saved location the message
    names, else the equipment it implies ('hotel gym only', 'no equipment', 'only have dumbbells'),
    a session length, and the body parts an injury rules out."""
    lowered = text.lower()
    location = named_location(text, locations)
    equipment: list[str] | None = None
    if location is None:
        if NO_EQUIPMENT.search(text):
            equipment = ["bodyweight"]
        elif HOTEL_GYM.search(text):
            equipment = list(HOTEL_GYM_EQUIPMENT)
        elif m := ONLY_HAVE.search(lowered):
            thing = m.group(1).strip()
            if thing not in ("time", "gym") and not re.search(r"\d|min|hour", thing):
                equipment = [thing]
    minutes = duration_minutes(text)
    injured = bool(re.search(r"\b(hurts?|injur\w*|sore|pain\w*|strain\w*|tweak\w*|sprain\w*)\b", lowered))
    avoid = [part for part in BODY_PARTS if injured and re.search(rf"\b{part}s?\b", lowered)][:3]
    return {
        "reason": text.strip()[:300],
        "location": location,
        "equipment": equipment,
        "session_minutes": minutes if minutes is not None and 15 <= minutes <= 180 else None,
        "avoid": avoid,
    }


def parse_week_change(text: str, locations: Sequence[str]) -> ChangeTrainingWeekArgs:
    """'I'm travelling next week, hotel gym only' -> next week, the hotel gym's equipment."""
    week: Literal["current", "next"] = "current" if re.search(r"\bthis week\b", text, re.I) else "next"
    return ChangeTrainingWeekArgs(week=week, **change_fields(text, locations))


def parse_day_change(text: str, today: date, locations: Sequence[str]) -> ChangeTrainingDayArgs:
    day = planned_day(text, today)
    fields = change_fields(text, locations)
    return ChangeTrainingDayArgs(day=None if day == today else day.isoformat(), **fields)


CONVERSION = re.compile(
    rf"({NUM})\s*({WEIGHT_UNITS}|km|kms|kilomet(?:er|re)s?|mi|miles?)\b.*?\b(?:in|to|into|as)\s+"
    rf"({WEIGHT_UNITS}|km|kms|kilomet(?:er|re)s?|mi|miles?)\b",
    re.IGNORECASE,
)


def parse_conversion(text: str) -> tuple[float, str, str] | None:
    """(value, from unit, to unit) of 'how much is 100 kg in pounds' (units canonical: kg, lbs, km, mi)."""
    m = CONVERSION.search(text)
    if m is None:
        return None
    value, source, target = float(m.group(1)), m.group(2).lower(), m.group(3).lower()

    def canonical(unit: str) -> str:
        return weight_unit(unit) if re.fullmatch(WEIGHT_UNITS, unit) else distance_unit(unit)

    a, b = canonical(source), canonical(target)
    if {a, b} not in ({"kg", "lbs"}, {"km", "mi"}):
        return None
    return value, a, b


ADD_REQUEST = re.compile(
    r"\badd\s+(?:in\s+)?(?:some\s+|a few\s+|a\s+set of\s+|an?\s+|the\s+)?(?P<name>[a-z][a-z -]{1,60}?)"
    r"(?=\s+(?:at the|after|before|to (?:the|my|this)|in (?:the|my)|first|last|as|please)\b|[.,!?;]|$)",
    re.IGNORECASE,
)


def add_request(text: str) -> str | None:
    """The exercise an 'add X ...' message names ('Add bicep curls at the end' -> 'bicep curls')."""
    m = ADD_REQUEST.search(text)
    return m.group("name").strip() if m else None


def insert_position(text: str, exercises: list[dict[str, Any]]) -> int | None:
    """Where an added exercise goes (1-based): 'after the first exercise' -> 2, 'before the squats',
    'at the start' -> 1; None: at the end."""
    lowered = text.lower()
    for word, shift in (("after", 1), ("before", 0)):
        if m := re.search(rf"\b{word}\s+(.+?)(?=[.,!?;]|$)", lowered):
            ref = identify_exercise(f"the {m.group(1)}" if not m.group(1).startswith("the ") else m.group(1),
                                    exercises)  # fmt: skip
            if ref is not None:
                return int(ref.get("order") or 1) + shift
    if re.search(r"\bat the (?:start|beginning|top)\b|\bfirst thing\b|\bto start\b", lowered):
        return 1
    return None


def reschedule_date(text: str, current: date, today: date) -> date | None:
    """The new day for a scheduled workout: 'back a day', 'forward two days', 'to Friday', 'to tomorrow'."""
    lowered = text.lower()
    count = r"(\d+|a|an|one|two|three|four|five|six|seven)"
    amount = re.search(rf"\bby\s+{count}\s+(day|week)s?\b|\b{count}\s+(day|week)s?\b", lowered)
    days = 1
    if amount:
        n = _number(amount.group(1) or amount.group(3)) or 1
        days = n * (7 if (amount.group(2) or amount.group(4)) == "week" else 1)
    if re.search(r"\b(back|later|postpone|delay)\b", lowered):
        return current + timedelta(days=days)
    if re.search(r"\b(forward|earlier|sooner)\b", lowered):
        return current - timedelta(days=days)
    if m := re.search(r"\bto\s+(?:next\s+)?(today|tomorrow|" + "|".join(WEEKDAYS) + r")\b", lowered):
        return resolve_date(m.group(1), today)
    return None


def pick_scheduled(text: str, upcoming: Sequence[ScheduledWorkout], today: date) -> ScheduledWorkout | None:
    """The scheduled workout a message means: by its day ('Thursday's workout', 'tomorrow's'), its type
    ('my upper body workout') or 'my next workout'."""
    if not upcoming:
        return None
    lowered = text.lower()
    for index, name in enumerate(WEEKDAYS):
        if re.search(rf"\b{name}(?:'s)?\b", lowered):
            on_day = [w for w in upcoming if w.date.weekday() == index]
            if on_day:
                return on_day[0]
    if re.search(r"\btomorrow'?s?\b", lowered):
        tomorrow = today + timedelta(days=1)
        return next((w for w in upcoming if w.date == tomorrow), None)
    if re.search(r"\btoday'?s?\b", lowered):
        return next((w for w in upcoming if w.date == today), None)
    by_type = best_name(text, [w.workout_type for w in upcoming])
    if by_type is not None:
        return next(w for w in upcoming if w.workout_type == by_type)
    if re.search(r"\bnext (?:workout|session)\b", lowered) or len(upcoming) == 1:
        return upcoming[0]
    return None


def timer_exercise(text: str) -> dict[str, Any]:
    """An inline intervals exercise for generate_exercise_timer ('tabata', '30 on 15 off 6 rounds')."""
    lowered = text.lower()
    work = re.search(r"(\d{1,3})\s*(?:s|sec|secs|seconds)?\s*(?:on|work)\b", lowered)
    rest = re.search(r"(\d{1,3})\s*(?:s|sec|secs|seconds)?\s*(?:off|rest)\b", lowered)
    rounds = re.search(r"(\d{1,2})\s*(?:rounds|sets|intervals)\b", lowered)
    return {
        "exercise_name": "Tabata intervals" if "tabata" in lowered else "Intervals",
        "exercise_type": "intervals",
        "rounds": int(rounds.group(1)) if rounds else 8,
        "work_sec": int(work.group(1)) if work else 20,
        "rest_sec": int(rest.group(1)) if rest else 10,
    }


DAY_ABBREVIATIONS = {
    "mon": "Monday", "tue": "Tuesday", "tues": "Tuesday", "wed": "Wednesday", "weds": "Wednesday",
    "thu": "Thursday", "thur": "Thursday", "thurs": "Thursday", "fri": "Friday", "sat": "Saturday",
    "sun": "Sunday",
}  # fmt: skip


def available_days(text: str) -> list[Weekday]:
    """The weekdays a message names, full or short ('Mon, Wed and Sat'), Monday first."""
    lowered = text.lower()
    found = set(named_weekdays(text))
    for short, name in DAY_ABBREVIATIONS.items():
        if re.search(rf"\b{short}s?\b\.?", lowered):
            found.add(cast(Weekday, name))
    return [cast(Weekday, d.title()) for d in WEEKDAYS if d.title() in found]


def sessions_named(text: str, upcoming: Sequence[ScheduledWorkout], today: date) -> list[ScheduledWorkout]:
    """The sessions a message names by their day, in the order it names them ('swap Thursday's and
    Saturday's sessions', 'switch tomorrow's workout with Friday's'), each once."""
    lowered = text.lower()
    named: list[tuple[int, date | int]] = []
    for m in re.finditer(r"\b(today|tomorrow)\b", lowered):
        named.append((m.start(), today if m.group(1) == "today" else today + timedelta(days=1)))
    for index, name in enumerate(WEEKDAYS):
        for m in re.finditer(rf"\b{name}\b", lowered):
            named.append((m.start(), index))
    found: list[ScheduledWorkout] = []
    for _, day in sorted(named, key=lambda n: n[0]):
        match = next(
            (
                w
                for w in upcoming
                if w not in found and (w.date == day if isinstance(day, date) else w.date.weekday() == day)
            ),
            None,
        )
        if match is not None:
            found.append(match)
    return found
