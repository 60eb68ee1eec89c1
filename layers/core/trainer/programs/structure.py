"""A pasted workout (free text or markdown, e.g. from the user's coach) into the app's structured workout.

`parse_workout_text` is the offline `workout_structure` agent: it reads the common notations line by
line ("Bench press 4x8 @ 60kg", "3 sets of 10 squats", "Plank 3 x 45s", "Deadlift 5/3/1 @ 100/110/120
kg", "A1. Pull-ups 3x8" supersets, "20 min easy bike", "8 rounds 20s on / 10s off", "rest 90s") under
warm-up / main / cool-down headings into a `WorkoutDraft`, the same schema a model answers with.
`finalize_structure` turns either into a `Workout`: names matched to the catalog (muscles, equipment),
one value per set, warm-up and cool-down groups, supersets, loads in the user's unit.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trainer.domain.catalog import CatalogEntry, load_catalog
from trainer.domain.loading import converted_load
from trainer.domain.movements import equipment_class, movement_pattern
from trainer.domain.units import convert_distance, convert_pace
from trainer.domain.workout import Exercise, Workout
from trainer.domain.workout_checks import muscles_in_text
from trainer.programs.models import ExerciseDraft, Section, WorkoutDraft
from trainer.programs.selection import goal_shares, muscle_shares, resolve

_NUMBER = r"\d+(?:[.,]\d+)?"

MAX_LINES = 400
"""Non-empty lines a pasted workout may have (a long program with notes has under 200)."""
MAX_LINE_CHARS = 240
"""A longer line is listed as unrecognised without being read: every pattern below then runs on a
bounded text, so no line costs more than a fixed amount of work whatever it holds."""
MAX_DIGITS = 6
"""Digits in one number (a load of 999999 is already absurd): a line with a longer run is not read."""
MAX_WORDS = 40
PARSE_TIME_LIMIT_S = 5.0
"""Reading stops after this long (the lines left are listed as not read): with the bounds above a
worst-case paste takes about 2 s on an idle core, and a loaded machine must not stretch it without end."""
"""Words on one line (an exercise line has under 15)."""
_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")
UNRECOGNISED_CHARS = 200


class ImportTooLarge(ValueError):
    """The text has more lines than a workout has: nothing of it is read."""


def unreadable_reason(line: str) -> str | None:
    """Why a line is not read at all (too long, a number with too many digits, too many words)."""
    if len(line) > MAX_LINE_CHARS:
        return f"longer than {MAX_LINE_CHARS} characters"
    if _LONG_NUMBER.search(line):
        return f"a number with more than {MAX_DIGITS} digits"
    if len(line.split()) > MAX_WORDS:
        return f"more than {MAX_WORDS} words"
    return None


def check_text_size(text: str) -> None:
    """Raises ImportTooLarge when the text has more than MAX_LINES non-empty lines."""
    lines = sum(1 for raw in text.splitlines() if raw.strip())
    if lines > MAX_LINES:
        raise ImportTooLarge(f"the text has {lines} lines; a workout can have at most {MAX_LINES}")


_SECTION_WORDS: tuple[tuple[Section, str], ...] = (
    ("warmup", r"warm[\s-]?ups?|warming up|activation|prep"),
    ("cooldown", r"cool[\s-]?downs?|stretch(?:ing|es)?|mobility|recovery"),
    ("main", r"main(?: workout| work| set| sets)?|workout|strength|conditioning|finisher|circuit|"
             r"accessor(?:y|ies)|metcon|wod|session|training|exercises|lifts?|part [a-z0-9]|block [a-z0-9]"),
)  # fmt: skip
_SECTION = re.compile(
    r"^(?:" + "|".join(f"(?P<{name}>{words})" for name, words in _SECTION_WORDS) + r")\b[^a-z]*"
    r"(?:\(?\s*\d+\s*(?:-\s*\d+\s*)?(?:min|minutes|mins)\)?)?\s*:?\s*$",
    re.I,
)
_TITLE = re.compile(r"^#\s+(.*)$")
_FOCUS = re.compile(r"^(?:focus|title|day|session)\s*:\s*(.+)$", re.I)
_LABEL = re.compile(r"^\(?([a-h])\s*([1-9])\)?\s*[.):\-–]?\s+", re.I)
_BULLET = re.compile(r"^\s*(?:(?:[-*•◦▪]|\d{1,2}[.)](?!\d)|#{1,6})\s*)+")
_TIME_UNIT = r"minutes?\b|mins?\b|m\b|seconds?\b|secs?\b|s\b|'|\""
_REST = re.compile(
    rf"\(?\s*(?:rest(?:ing)?\s*(?:for|of|:|=)?\s*({_NUMBER})\s*(?:-\s*{_NUMBER}\s*)?({_TIME_UNIT})?"
    rf"|({_NUMBER})\s*(?:-\s*{_NUMBER}\s*)?({_TIME_UNIT})\s*rest(?:\s+between\s+sets)?)\s*\)?",
    re.I,
)
_PACE = re.compile(r"@?\s*(\d{1,2}:[0-5]\d)\s*(?:min)?\s*/\s*(km|mi)\b", re.I)
_AMRAP = re.compile(r"(\d+)\s*(?:sets?\s*)?(?:x|×|of)\s*(?:amrap|max(?:imum)?(?:\s*reps)?)\b|\bamrap\b", re.I)
_SETS_METERS = re.compile(r"(\d+)\s*(?:x|×)\s*(\d+)\s*(?:m|meters?|metres?)\b", re.I)
_REP_LIST = re.compile(r"(?<![\d.:])(\d{1,2}(?:\s*[/,]\s*\d{1,2}){1,9})(?![\d.:])")
_LOAD_UNITS = r"kgs?|kilos?|kilograms?|lbs?|pounds?|#"
_LOAD = re.compile(
    rf"(?:@|\bat\b|\bwith\b)?\s*({_NUMBER}(?:\s*[-–/,]\s*{_NUMBER})*)\s*({_LOAD_UNITS})(?![a-z])"
    r"(?:\s*(?:each|per hand|per side|dbs?))?",
    re.I,
)
_BARE_LOAD = re.compile(rf"@\s*({_NUMBER}(?:\s*/\s*{_NUMBER})*)(?!\s*(?:s\b|sec|min|%|rpe))", re.I)
_BODYWEIGHT = re.compile(r"(?:@\s*)?\b(?:bw|body ?weight|bodyweight)\b", re.I)
_RPE = re.compile(
    rf"@?\s*\brpe\s*{_NUMBER}(?:\s*-\s*{_NUMBER})?|\b{_NUMBER}\s*rir\b|\b(?:tempo|pace)\s*[:\d\-x]+", re.I
)
_INTERVALS = re.compile(
    r"(\d+)\s*(?:rounds?|x|sets?)\s*(?:of\s*)?(?:\(?\s*)?(\d+)\s*(?:s|secs?|seconds?)\s*(?:on|work)?\s*[/,:]\s*"
    r"(\d+)\s*(?:s|secs?|seconds?)\s*(?:off|rest)?\)?",
    re.I,
)
_TABATA = re.compile(r"\btabata\b", re.I)
_SETS_REPS = re.compile(
    r"(\d+)\s*(?:sets?|rounds?)?\s*(?:x|×|\*|of)\s*"
    r"(\d+(?:\s*[-–/,]\s*\d+)*)\s*(\+)?\s*"
    r"(s\b|secs?\b|seconds?\b|\"|mins?\b|minutes?\b|m\b(?!\w))?\s*(?:reps?\b|repetitions\b|hold\b|holds\b)?"
    r"(?:\s*(?:each|per)\s+(?:side|leg|arm|hand))?",
    re.I,
)
_REPS_SETS = re.compile(r"(\d+)\s*reps?\s*(?:x|×|for)\s*(\d+)\s*sets?", re.I)
_DISTANCE = re.compile(rf"({_NUMBER})\s*(km|kms|kilometers?|kilometres?|mi|miles?)\b", re.I)
_METERS = re.compile(r"(\d{2,5})\s*(?:m|meters?|metres?)\b(?!in)", re.I)
_DURATION = re.compile(rf"({_NUMBER})\s*(?:-\s*{_NUMBER}\s*)?(hours?|hrs?|h\b|mins?\b|minutes?|')", re.I)
_HOLD_ONLY = re.compile(r"(\d+)\s*(s\b|secs?\b|seconds?\b|\")\s*(?:hold)?", re.I)
_REPS_ONLY = re.compile(r"(?:^|\s)(?:x\s*)?(\d+)\s*(?:reps?\b|x\b)?(?=\s|$)", re.I)
_FILLER = re.compile(
    r"\b(?:sets?|reps?|repetitions|of|each|per side|per leg|per arm|per hand|side|hold|for|easy|light|"
    r"brisk|moderate|steady|slow|fast|hard|heavy|working|top|then|and|at|with|total|x|on|off)\b",
    re.I,
)
_SYNONYMS: dict[str, str] = {
    "jumping jack": "Jumping Jacks", "jumping jacks": "Jumping Jacks", "air squat": "Bodyweight Squat",
    "air squats": "Bodyweight Squat", "bike": "Bicycling, Stationary", "rower": "Rowing, Stationary",
    "rowing machine": "Rowing, Stationary", "row machine": "Rowing, Stationary", "erg": "Rowing, Stationary",
    "jog": "Jogging, Treadmill", "walk": "Walking, Treadmill", "treadmill": "Walking, Treadmill",
    "side plank": "Side Bridge", "ab wheel": "Ab Roller", "glute bridge": "Butt Lift (Bridge)",
    "skipping": "Rope Jumping", "jump rope": "Rope Jumping",
}  # fmt: skip
_CARDIO_WORDS = re.compile(r"\b(jog|run|sprint|burpee|jumping jack|skip|bike|cycle|row|swim|walk|hike)", re.I)
_PATTERN_MUSCLES: dict[str, list[tuple[str, float]]] = {
    "squat": [("Quadriceps", 0.6), ("Glutes", 0.25), ("Hamstrings", 0.15)],
    "lunge": [("Quadriceps", 0.6), ("Glutes", 0.25), ("Hamstrings", 0.15)],
    "hip hinge": [("Hamstrings", 0.5), ("Glutes", 0.3), ("Lower Back", 0.2)],
    "hip thrust": [("Glutes", 0.7), ("Hamstrings", 0.3)],
    "horizontal push": [("Chest", 0.6), ("Triceps", 0.25), ("Shoulders", 0.15)],
    "vertical push": [("Shoulders", 0.6), ("Triceps", 0.4)],
    "horizontal pull": [("Back", 0.6), ("Biceps", 0.2), ("Shoulders", 0.2)],
    "vertical pull": [("Back", 0.6), ("Biceps", 0.4)],
    "elbow flexion": [("Biceps", 0.8), ("Forearms", 0.2)],
    "elbow extension": [("Triceps", 1.0)],
    "calf raise": [("Calves", 1.0)],
    "knee flexion": [("Hamstrings", 1.0)],
    "knee extension": [("Quadriceps", 1.0)],
    "lateral raise": [("Shoulders", 1.0)],
    "front raise": [("Shoulders", 1.0)],
    "rear delt": [("Shoulders", 0.7), ("Back", 0.3)],
    "chest fly": [("Chest", 1.0)],
    "shrug": [("Trapezius", 1.0)],
}
_EXTRA_MUSCLE_WORDS = ((r"\blats?\b", "Back"), (r"\bpecs?\b", "Chest"), (r"\bhips?\b", "Glutes"),
                       (r"\bthoracic|t-spine\b", "Back"), (r"\bcore\b", "Abs"))  # fmt: skip
_CARDIO_MUSCLES = [("Quadriceps", 0.5), ("Glutes", 0.2), ("Hamstrings", 0.15), ("Calves", 0.15)]


DEFAULT_AMRAP_REPS = 8
"""Target reps written for 'as many as possible' sets (the note says the rest)."""


class StructureError(ValueError):
    """Nothing in the text reads as an exercise (the message says what to send)."""


NOT_UNDERSTOOD_SHOWN = 3
NOT_UNDERSTOOD_CHARS = 60


def not_understood(lines: list[str]) -> str:
    """' Not understood: "…", "…" (+N more lines).' for the first lines that were not read."""
    if not lines:
        return ""
    shown = []
    for line in lines[:NOT_UNDERSTOOD_SHOWN]:
        cut = line if len(line) <= NOT_UNDERSTOOD_CHARS else line[: NOT_UNDERSTOOD_CHARS - 1] + "…"
        shown.append(f'"{cut}"')
    more = len(lines) - NOT_UNDERSTOOD_SHOWN
    tail = f" (+{more} more line{'s' if more != 1 else ''})" if more > 0 else ""
    return f" Not understood: {', '.join(shown)}{tail}."


@dataclass
class _Line:
    """What one exercise line says, before it becomes a draft."""

    name: str
    section: Section
    label: str | None = None
    sets: int | None = None
    reps: list[int] | None = None
    loads: list[float] | None = None
    load_unit: str | None = None
    hold_sec: int | None = None
    duration_min: float | None = None
    distance: float | None = None
    distance_unit: str | None = None
    rounds: int | None = None
    work_sec: int | None = None
    rest_sec: int | None = None
    target_pace: str | None = None
    notes: list[str] = field(default_factory=list)


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def _seconds(value: float, unit: str | None) -> int:
    unit = (unit or "s").lower()
    return round(value * 60) if unit.startswith("m") or unit == "'" else round(value)


def _unit(text: str) -> str:
    return "kg" if text.lower().startswith("k") else "lbs"


def _cut(text: str, match: re.Match[str]) -> str:
    return f"{text[: match.start()]} {text[match.end() :]}"


def _values(text: str) -> list[int]:
    """'8' -> [8]; '6-8' -> [6] (a range: its bottom); '12-10-8', '8/6/4', '5,3,1' -> per set."""
    parts = [int(p) for p in re.split(r"\s*[-–/,]\s*", text.strip()) if p]
    if len(parts) == 2 and re.search(r"[-–]", text) and parts[0] < parts[1]:
        return [parts[0]]
    return parts


def _loads(text: str) -> list[float]:
    """'60' -> [60]; '60/65/70' -> per set; '185-205' (a range) -> its bottom."""
    if re.fullmatch(rf"\s*{_NUMBER}\s*[-–]\s*{_NUMBER}\s*", text):
        return [_number(re.split(r"\s*[-–]\s*", text.strip())[0])]
    return [_number(v) for v in re.split(r"\s*[-–/]\s*|\s*,\s+", text) if v]


def _clean_name(text: str) -> str:
    text = re.sub(r"\([^)]*\)", " ", text)
    text = _FILLER.sub(" ", text)
    text = re.sub(r"[@:=;|]+|(?<!\w)[-–—]+(?!\w)|\s[-–—]\s", " ", text)
    text = re.sub(r"\b\d+\b", " ", text)
    return re.sub(r"\s+", " ", text).strip(" ,.-–—/")


def parse_line(raw: str, section: Section) -> _Line | None:
    """What one line says: a name and/or numbers (None when it has neither)."""
    if unreadable_reason(raw.strip()) is not None:
        return None
    text = _BULLET.sub("", raw.strip()).replace("**", "").replace("__", "").strip()
    label = None
    if match := _LABEL.match(text):
        label, text = match[1].upper(), text[match.end() :]
    notes = [
        m.strip(" ()") for m in re.findall(r"\(([^)]*[a-z][^)]*)\)", text, re.I) if "rest" not in m.lower()
    ]
    line = _Line(name="", section=section, label=label, notes=notes)
    exact = _catalog_name(text)
    if exact is not None:
        line.name = exact
        return line
    head, colon, tail = text.partition(":")
    exact = _catalog_name(head) if colon else None
    if exact is not None:
        text = tail
    if match := _REST.search(text):
        value, unit = (match[1], match[2]) if match[1] else (match[3], match[4])
        line.rest_sec = min(900, _seconds(_number(value), unit or "s"))
        text = _cut(text, match)
    text = _RPE.sub(" ", text)
    if match := _PACE.search(text):
        line.target_pace = f"{match[1]}/{match[2].lower()}"
        text = _cut(text, match)
    if match := _LOAD.search(text):
        line.loads = _loads(match[1])
        line.load_unit = _unit(match[2])
        text = _cut(text, match)
    elif match := _BARE_LOAD.search(text):
        line.loads = [_number(v) for v in re.split(r"\s*/\s*", match[1]) if v]
        text = _cut(text, match)
    text = _BODYWEIGHT.sub(" ", text)
    if match := _INTERVALS.search(text):
        line.rounds, line.work_sec, rest = int(match[1]), int(match[2]), int(match[3])
        line.rest_sec = rest
        text = _cut(text, match)
    elif _TABATA.search(text) and not _SETS_REPS.search(text):
        line.rounds, line.work_sec, line.rest_sec = 8, 20, 10
        text = _TABATA.sub(" ", text)
    if match := _SETS_METERS.search(text):
        line.sets, line.distance, line.distance_unit = (
            int(match[1]),
            int(match[1]) * int(match[2]) / 1000,
            "km",
        )
        line.notes.append(f"{match[1]} x {match[2]} m")
        text = _cut(text, match)
    elif match := _DISTANCE.search(text):
        line.distance, line.distance_unit = (
            _number(match[1]),
            "km" if match[2].lower().startswith("k") else "mi",
        )
        text = _cut(text, match)
    elif (match := _METERS.search(text)) and int(match[1]) >= 50:
        line.distance, line.distance_unit = int(match[1]) / 1000, "km"
        text = _cut(text, match)
    if match := _AMRAP.search(text):
        line.sets = int(match[1]) if match[1] else 1
        line.reps = [DEFAULT_AMRAP_REPS]
        line.notes.append("as many reps as possible")
        text = _cut(text, match)
    if line.rounds is None and line.reps is None and line.distance is None:
        text = _sets_and_reps(text, line)
    if (
        line.reps is None
        and line.hold_sec is None
        and line.rounds is None
        and (match := _REP_LIST.search(text))
    ):
        line.reps = [int(v) for v in re.split(r"\s*[/,]\s*", match[1])]
        line.sets = len(line.reps)
        text = _cut(text, match)
    if line.reps is None and line.hold_sec is None and line.rounds is None and line.sets is None:
        if match := _DURATION.search(text):
            value = _number(match[1])
            line.duration_min = value * 60 if match[2].lower().startswith("h") else value
            text = _cut(text, match)
        elif match := _HOLD_ONLY.search(text):
            line.sets, line.hold_sec = 1, int(match[1])
            text = _cut(text, match)
        elif match := _REPS_ONLY.search(text):
            line.sets, line.reps = 1, [int(match[1])]
            text = _cut(text, match)
    name = exact or _clean_name(text)
    line.name = name if re.search(r"[a-z]{3}", name, re.I) else ""
    return line if line.name or _has_numbers(line) else None


def _catalog_name(text: str) -> str | None:
    """The catalog's name when the text is exactly one (names such as '90/90 Hamstring' hold numbers)."""
    entry = load_catalog().get(text.strip()) if text.strip() else None
    return entry.name if entry is not None else None


def _sets_and_reps(text: str, line: _Line) -> str:
    if match := _REPS_SETS.search(text):
        line.sets, line.reps = int(match[2]), [int(match[1])]
        return _cut(text, match)
    match = _SETS_REPS.search(text)
    if match is None:
        return text
    sets, values, unit = int(match[1]), _values(match[2]), match[4]
    if unit and unit.lower().startswith("m") and unit.lower() != "m":
        line.sets, line.hold_sec = sets, _seconds(values[0], "min")
    elif unit:
        line.sets, line.hold_sec = sets, values[0]
    else:
        line.sets, line.reps = sets, values
    return _cut(text, match)


def parse_workout_text(text: str, *, time_limit_s: float | None = PARSE_TIME_LIMIT_S) -> WorkoutDraft:
    """The offline `workout_structure` agent: every exercise line under its section, the rest listed
    as unrecognised. A name alone on its line (a '### 1. Bench Press' heading) takes the numbers on
    the line after it."""
    check_text_size(text)
    state = _Parse()
    deadline = time.monotonic() + time_limit_s if time_limit_s is not None else None
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            continue
        if deadline is not None and time.monotonic() > deadline:
            state.unrecognised.append(
                f"(not read: past the {time_limit_s:g} s reading time) {stripped}"[:200]
            )
            continue
        if unreadable_reason(stripped) is not None:
            state.unrecognised.append(stripped[:UNRECOGNISED_CHARS])
            continue
        if re.fullmatch(r"[-=*_#\s]+", stripped):
            continue
        plain = _BULLET.sub("", stripped).replace("**", "").strip()
        if (match := _TITLE.match(stripped)) and not _SECTION.match(match[1].strip()) and not state.drafts:
            state.flush()
            heading = match[1].strip()
            state.title = state.title or re.sub(r"^workout\s*[-–:]\s*", "", heading, flags=re.I)[:120] or None
            continue
        if match := _FOCUS.match(plain):
            state.flush()
            state.title = match[1].strip()[:120]
            continue
        if match := _SECTION.match(plain):
            state.flush()
            state.section = next(name for name in ("warmup", "cooldown", "main") if match.group(name))
            continue
        if re.match(r"^(?:notes?|tips?|coach)\b", plain, re.I):
            state.flush()
            state.section = "main"
            state.in_notes = True
            state.unrecognised.append(stripped[:UNRECOGNISED_CHARS])
            continue
        if (rest := _REST.fullmatch(plain)) and (state.pending or state.drafts):
            value, unit = (rest[1], rest[2]) if rest[1] else (rest[3], rest[4])
            seconds = min(900, _seconds(_number(value), unit or "s"))
            if state.pending is not None:
                state.pending.rest_sec = seconds
            else:
                state.drafts[-1] = state.drafts[-1].model_copy(update={"rest_sec": seconds})
            continue
        line = parse_line(stripped, state.section)
        if line is None or state.in_notes:
            state.unrecognised.append(stripped[:UNRECOGNISED_CHARS])
            continue
        if not line.name:
            if state.pending is None:
                state.unrecognised.append(stripped[:UNRECOGNISED_CHARS])
            else:
                state.add(_merge(state.pending, line))
                state.pending = None
            continue
        state.flush()
        if _has_numbers(line):
            state.add(line)
        else:
            state.pending = line
    state.flush()
    return WorkoutDraft(title=state.title, exercises=state.drafts[:30], unrecognised=state.unrecognised[:50])


@dataclass
class _Parse:
    section: Section = "main"
    title: str | None = None
    drafts: list[ExerciseDraft] = field(default_factory=list)
    unrecognised: list[str] = field(default_factory=list)
    pending: _Line | None = None
    """A name on its own line, waiting for its numbers."""
    in_notes: bool = False

    def add(self, line: _Line) -> None:
        if _entry(line.name) is None and _guessed_muscles(line.name) is None:
            self.unrecognised.append(line.name[:200])
        else:
            self.drafts.append(_draft(line))

    def flush(self) -> None:
        """A pending name without numbers: a warm-up or cool-down item when it is a known movement."""
        line, self.pending = self.pending, None
        if line is None:
            return
        known = _entry(line.name) is not None or _guessed_muscles(line.name) is not None
        if line.section != "main" and known:
            self.add(line)
        else:
            self.unrecognised.append(line.name[:200])


_NUMBER_FIELDS = (
    "sets", "reps", "loads", "load_unit", "hold_sec", "duration_min", "distance", "distance_unit", "rounds",
    "work_sec", "target_pace",
)  # fmt: skip


def _merge(named: _Line, numbers: _Line) -> _Line:
    merged = _Line(
        name=named.name, section=named.section, label=named.label, notes=named.notes + numbers.notes
    )
    for name in _NUMBER_FIELDS:
        setattr(merged, name, getattr(numbers, name))
    merged.rest_sec = numbers.rest_sec if numbers.rest_sec is not None else named.rest_sec
    return merged


def _has_numbers(line: _Line) -> bool:
    return any(v is not None for v in (line.sets, line.reps, line.hold_sec, line.duration_min, line.distance,
                                       line.rounds))  # fmt: skip


def _draft(line: _Line) -> ExerciseDraft:
    return ExerciseDraft(
        name=line.name[:120].strip().capitalize() if line.name.islower() else line.name[:120].strip(),
        section=line.section,
        sets=min(line.sets, 20) if line.sets else None,
        reps=[min(max(r, 1), 1000) for r in line.reps] if line.reps else None,
        loads=[min(max(v, 0.0), 2000.0) for v in line.loads] if line.loads else None,
        load_unit=line.load_unit,
        hold_sec=min(max(line.hold_sec, 1), 3600) if line.hold_sec else None,
        duration_min=min(line.duration_min, 600) if line.duration_min else None,
        distance=min(line.distance, 1000) if line.distance else None,
        distance_unit=line.distance_unit,
        rounds=min(line.rounds, 100) if line.rounds else None,
        work_sec=min(line.work_sec, 3600) if line.work_sec else None,
        rest_sec=min(line.rest_sec, 900) if line.rest_sec is not None else None,
        target_pace=line.target_pace,
        superset=line.label,
        notes="; ".join(line.notes)[:300] or None,
    )


# --- draft -> Workout -----------------------------------------------------------------------------


def _entry(name: str) -> CatalogEntry | None:
    key = name.lower().strip()
    if key in _SYNONYMS:
        return resolve(_SYNONYMS[key])
    return resolve(name)


def _guessed_muscles(name: str) -> list[tuple[str, float]] | None:
    pattern = movement_pattern(name)
    if pattern in _PATTERN_MUSCLES:
        return _PATTERN_MUSCLES[pattern]
    named = sorted(muscles_in_text(name) | {m for rx, m in _EXTRA_MUSCLE_WORDS if re.search(rx, name, re.I)})
    if named:
        share = round(1 / len(named), 2)
        shares = [(m, share) for m in named]
        shares[0] = (shares[0][0], round(1 - share * (len(named) - 1), 2))
        return shares
    return _CARDIO_MUSCLES if _CARDIO_WORDS.search(name) else None


def _per_set(values: list[Any] | None, sets: int) -> list[Any] | None:
    if not values:
        return None
    return [values[min(i, len(values) - 1)] for i in range(sets)]


def _fields(
    draft: ExerciseDraft, entry: CatalogEntry | None, unit: str | None, dist: str | None
) -> dict[str, Any]:
    if draft.rounds and draft.work_sec:
        return {"exercise_type": "intervals", "rounds": draft.rounds, "work_sec": draft.work_sec,
                "rest_sec": draft.rest_sec or 0}  # fmt: skip
    if draft.hold_sec:
        sets = draft.sets or 1
        rest = draft.rest_sec if draft.rest_sec is not None else (30 if sets > 1 else 0)
        return {"exercise_type": "hold", "sets": sets, "hold_sec": [draft.hold_sec] * sets, "rest_sec": rest}
    if draft.reps:
        sets = draft.sets or len(draft.reps)
        rest = draft.rest_sec if draft.rest_sec is not None else _default_rest(draft)
        fields: dict[str, Any] = {
            "exercise_type": "reps", "sets": sets, "reps": _per_set(draft.reps, sets), "rest_sec": rest,
        }  # fmt: skip
        if draft.loads and any(v > 0 for v in draft.loads):
            source = draft.load_unit or unit or "kg"
            target = unit or source
            cls = equipment_class(entry.name if entry else draft.name, entry.equipment if entry else ())
            loads = [converted_load(v, source, target, cls) for v in _per_set(draft.loads, sets) or []]
            fields.update(load_each=loads, load_unit=target)
        return fields
    if draft.duration_min or draft.distance:
        fields = {"exercise_type": "duration", "duration_min": draft.duration_min or _default_minutes(draft)}
        if draft.distance:
            source = draft.distance_unit or dist or "km"
            target = dist or source
            value = (
                draft.distance
                if source == target
                else round(convert_distance(draft.distance, source, target), 2)
            )
            fields.update(distance=value, distance_unit=target)
        if draft.target_pace:
            fields["target_pace"] = convert_pace(draft.target_pace, dist) if dist else draft.target_pace
        return fields
    if entry is not None and entry.category == "cardio":
        return {"exercise_type": "duration", "duration_min": 5.0}
    if entry is not None and entry.force == "static":
        return {"exercise_type": "hold", "sets": 1, "hold_sec": [30], "rest_sec": 0}
    return {"exercise_type": "reps", "sets": draft.sets or 1, "reps": [10] * (draft.sets or 1), "rest_sec": 0}


def _default_rest(draft: ExerciseDraft) -> int:
    if draft.section != "main":
        return 0
    low = min(draft.reps or [10])
    return 180 if low <= 5 else 120 if low < 8 else 90 if low < 12 else 60


def _default_minutes(draft: ExerciseDraft) -> float:
    """Minutes for a distance with no time: about 6 min/km."""
    km = draft.distance or 1.0
    if draft.distance_unit == "mi":
        km *= 1.609344
    return float(max(1, round(km * 6)))


def finalize_structure(
    draft: WorkoutDraft,
    *,
    weight_unit: str | None = None,
    distance_unit: str | None = None,
    category_goals: Mapping[str, float] | None = None,
) -> Workout:
    """The app's workout from a draft (the parser's or a model's): catalog names, muscles and
    equipment where the name is known (the written name and a best guess at its muscles otherwise),
    warm-up and cool-down groups, supersets (two exercises) and giant sets (three or more)."""
    rank = {"warmup": 0, "main": 1, "cooldown": 2}
    items = sorted(enumerate(draft.exercises), key=lambda ie: (rank[ie[1].section], ie[0]))
    built: list[tuple[ExerciseDraft, dict[str, Any]]] = []
    for _, item in items:
        entry = _entry(item.name)
        muscles = [{"muscle": m, "share": s} for m, s in _guessed_muscles(item.name) or []]
        if entry is not None:
            muscles = muscle_shares(entry)
        if not muscles:
            continue
        fields = _fields(item, entry, weight_unit, distance_unit)
        written = item.name if entry is None or entry.name.lower() == item.name.lower() else None
        reason = "From your pasted workout" + (
            f" (written as '{item.name}')" if written is None and entry else ""
        )
        if item.notes:
            reason += f": {item.notes}"
        if entry is not None:
            goals = goal_shares(entry, category_goals or {})
        else:
            kind = "Cardio" if fields["exercise_type"] in ("duration", "intervals") else "Strength"
            goals = [{"goal": kind, "share": 1.0}]
        data = {
            "exercise_name": (entry.name if entry else item.name)[:120],
            "muscles_utilized": muscles,
            "goals_addressed": goals,
            "equipment": list(entry.equipment) if entry else [],
            "reasoning": f"{reason}."[:300],
            **fields,
        }
        built.append((item, data))
    if not built:
        raise StructureError(
            "No exercise could be read from that text. Send one exercise per line, e.g. "
            "'Bench press 4x8 @ 60kg' or '3 sets of 10 squats'." + not_understood(draft.unrecognised)
        )
    return Workout(
        title=(draft.title or "Imported workout")[:120],
        exercises=_with_groups(built),
    )


def _with_groups(built: list[tuple[ExerciseDraft, dict[str, Any]]]) -> list[Exercise]:
    labels: dict[str, int] = {}
    for item, _ in built:
        if item.section == "main" and item.superset:
            labels[item.superset] = labels.get(item.superset, 0) + 1
    ordered: list[tuple[ExerciseDraft, dict[str, Any]]] = []
    placed: set[int] = set()
    for i, (item, _) in enumerate(built):
        if i in placed:
            continue
        label = item.superset if item.section == "main" and labels.get(item.superset or "", 0) > 1 else None
        members = [j for j, (other, _) in enumerate(built) if label and other.section == "main"
                   and other.superset == label] or [i]  # fmt: skip
        for j in members:
            ordered.append(built[j])
            placed.add(j)
    exercises: list[Exercise] = []
    positions: dict[str, int] = {}
    for order, (item, data) in enumerate(ordered, start=1):
        group = _group(item, labels, positions)
        exercises.append(
            Exercise.model_validate({**data, "order": order, **({"group": group} if group else {})})
        )
    return exercises


def _group(item: ExerciseDraft, labels: dict[str, int], positions: dict[str, int]) -> dict[str, Any] | None:
    gid: str
    kind: str
    if item.section in ("warmup", "cooldown"):
        gid, kind, name = item.section, item.section, "Warm-up" if item.section == "warmup" else "Cool-down"
    elif item.superset and labels.get(item.superset, 0) > 1:
        gid = f"superset-{item.superset.lower()}"
        kind = "superset" if labels[item.superset] == 2 else "giant_set"
        name = f"{'Superset' if kind == 'superset' else 'Giant set'} {item.superset}"
    else:
        return None
    positions[gid] = positions.get(gid, 0) + 1
    group: dict[str, Any] = {"id": gid, "type": kind, "position": positions[gid]}
    if positions[gid] == 1:
        group["name"] = name
    return group


def structure_workout(
    text: str,
    *,
    weight_unit: str | None = None,
    distance_unit: str | None = None,
    category_goals: Mapping[str, float] | None = None,
) -> Workout:
    """Parse and finalize: the offline path from pasted text to the app's workout."""
    return finalize_structure(
        parse_workout_text(text),
        weight_unit=weight_unit,
        distance_unit=distance_unit,
        category_goals=category_goals,
    )
