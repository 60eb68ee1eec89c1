"""The sets, reps, loads, holds, rest and effort a message gives, for the offline coach: an exercise to
log ('3x10 bench press at 60kg, RPE 8'), a correction to a logged one ('the last set was only 3
reps'), a change to one of the workout ('heavier', '2 more reps'), a unit conversion, a timer."""

from __future__ import annotations

import re
from typing import Any

from trainer.domain.composer.request import LOGGED_WORK
from trainer.domain.loading import LoadSteps
from trainer.domain.message_words import NUMBER_WORDS, STOPWORDS, number, words
from trainer.domain.movements import equipment_class
from trainer.domain.units import distance_unit, weight_unit
from trainer.domain.workout import LoadUnit
from trainer.offline.vocabulary import NUM, ORDINALS, TIME_UNITS, WEIGHT_UNITS, duration_minutes
from trainer.tools.log_corrections import AdjustLoggedExerciseArgs
from trainer.tools.logged_entries import LoggedExercise
from trainer.tools.logging import LogCompletedExerciseArgs


def _as_int(value: float) -> float | int:
    return int(value) if value == int(value) else value


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
    amount = number(m.group(1) or m.group(3)) or 0
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
        changes["reps"] = [r + (number(more_reps.group(1)) or 2) for r in reps]
    elif "more reps" in lowered and reps:
        changes["reps"] = [r + 2 for r in reps]
    elif fewer_reps and reps:
        changes["reps"] = [max(1, r - (number(fewer_reps.group(1)) or 2)) for r in reps]
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
    | {"as", "exactly", "written", "prescribed", "planned", "programmed", "plan", "by"}
)
"""Words of a logging message that name no exercise ('done exactly as written')."""

SETS_BY_REPS = r"(\d{1,2})\s*(?:sets?\s*(?:x|×|of|by)|x|×|\*|by)\s*(\d{1,3})\b"
"""'3x10', '3 x 10', '3 sets of 10', '3 sets x 10', '3 by 10': (sets, reps)."""

SPELLED_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9}  # fmt: skip
SPELLED_TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
                 "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}  # fmt: skip
SPELLED_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                "eighty": 80, "ninety": 90}  # fmt: skip
_SPELLED = "|".join([*SPELLED_TENS, *SPELLED_TEENS, *SPELLED_UNITS, "hundred"])
SPELLED_NUMBER = re.compile(
    rf"\b(?:(?:{_SPELLED})(?:[\s-]+(?:and\s+)?(?=(?:{_SPELLED})\b))?)+\b(?![\s-]*(?:arm|leg|handed|sided)\b)",
    re.IGNORECASE,
)


def _spelled_value(phrase: str) -> int | None:
    total = 0
    current = 0
    for word in re.findall(r"[a-z]+", phrase.lower()):
        if word == "and":
            continue
        if word == "hundred":
            current = max(current, 1) * 100
        elif word in SPELLED_TENS:
            current += SPELLED_TENS[word]
        elif word in SPELLED_TEENS:
            current += SPELLED_TEENS[word]
        elif word in SPELLED_UNITS:
            current += SPELLED_UNITS[word]
        else:
            return None
    total += current
    return total or None


def with_digits(text: str) -> str:
    """Numbers said in words as digits, as dictation writes them ('three sets of eight with twenty
    two and a half kilos' -> '3 sets of 8 with 22 and a half kilos'); 'one-arm row' keeps its word."""

    def digits(match: re.Match[str]) -> str:
        value = _spelled_value(match.group(0))
        return str(value) if value is not None else match.group(0)

    return SPELLED_NUMBER.sub(digits, text)


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
    lowered = re.sub(SETS_BY_REPS, " ", lowered)
    lowered = re.sub(UNITS_AFTER_NUMBER, " ", lowered)
    kept = [
        w
        for w in words(lowered)
        if w not in STOPWORDS and w not in NUMBER_WORDS and w not in NOT_EXERCISE_WORDS
    ]
    return " ".join(kept[:4]).title()


def parse_logged_exercise(text: str) -> LogCompletedExerciseArgs | None:
    """'3x10 bench press at 60kg', 'I did 3 sets of 12 squats', 'did 20 push-ups', 'ran 5 km in 28
    minutes', 'held a plank for 60 seconds 3 times', 'bench press: 60 kg for 8, 60 kg for 8, 65 kg for
    6', each with an optional effort ('..., RPE 8', '2 reps in reserve')."""
    effort, text = split_effort(with_digits(text))
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
    sets_reps = re.search(SETS_BY_REPS, lowered)
    times_m = re.search(r"(\d{1,2}|two|three|four|five)\s*(?:times|sets|rounds)\b", lowered)
    if hold_m and not sets_reps:
        sets = (number(times_m.group(1)) or 1) if times_m else 1
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
    count = BARE_COUNT.search(lowered)
    if count and count.group(2) == name.split()[0].lower() and count.group(2) not in NOT_A_COUNT_OF:
        return LogCompletedExerciseArgs(
            exercise_name=name,
            exercise_type="reps",
            sets=1,
            reps=[int(count.group(1))],
            load=load[0] if load else None,
            load_unit=load[1] if load else None,
        )
    return None


def logged_clause(text: str) -> str | None:
    """The part of a message that logs work done, when it gives the sets ('give me an arms workout and
    log 15 squats from earlier' -> 'log 15 squats from earlier'); None when no part does."""
    for part in LOG_CLAUSE_BREAK.split(text):
        if LOGGED_WORK.search(part) and parse_logged_exercise(part) is not None:
            return part.strip()
    return None


LOG_CLAUSE_BREAK = re.compile(r"[.;!?,]|\band\b|\bthen\b", re.I)
BARE_COUNT = re.compile(r"(?<![\d.])(\d{1,3})\s+(?:reps?\s+(?:of\s+)?)?([a-z]+)", re.I)
"""A count right before the exercise's first word, without sets: one set of that many ('did 20
push-ups', 'log 15 squats from earlier', '12 reps of pull-ups')."""
NOT_A_COUNT_OF = frozenset(
    {"year", "years", "exercises", "exercise", "rounds", "round", "times", "minutes", "min", "hours", "days"}
)
"""Words a count before them does not make a set of ('my 2 year old', 'the first 2 exercises')."""


def done_as_planned(text: str) -> tuple[int | None, list[int] | None, float | None, LoadUnit | None]:
    """(sets, reps per set, top load, its unit) a message gives for an exercise of the workout
    (nothing for what it leaves as prescribed; an effort rating is not a load)."""
    text = with_digits(text)
    lowered = split_effort(text)[1].lower()
    sets_reps = re.search(SETS_BY_REPS, lowered)
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
