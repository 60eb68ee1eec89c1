"""The offline coach's readiness check-ins and new locations: reading them from a sentence, and the
tool call each plans.

  "Slept 5 hours, exhausted, should I train?"      -> check_readiness (sleep 5 h, energy 1)
  "my quads are really sore, give me a workout"     -> check_readiness (soreness), then the workout
  "I'm at a hotel gym with a treadmill and dumbbells up to 25 kg" -> create_location (made current)
"""

from __future__ import annotations

import re
from typing import Any

from trainer.domain.equipment import normalise_equipment
from trainer.offline.references import named_location
from trainer.offline.turn import Step, Turn, ask
from trainer.tools.base import ToolInvocation
from trainer.tools.location import (
    CreateLocation,
    CreateLocationArgs,
    SetCurrentLocation,
    SetCurrentLocationArgs,
)
from trainer.tools.readiness import CheckReadiness, CheckReadinessArgs


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# --- readiness --------------------------------------------------------------------------------------

_NUMBER = r"(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten)"
_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
SLEEP_HOURS = rx(
    rf"\b(?:slept|sleep|got|had)\s+(?:only\s+|about\s+|around\s+|like\s+|just\s+|barely\s+)?{_NUMBER}\s*"
    rf"(?:h|hrs?|hours?)\b|\b{_NUMBER}\s*(?:h|hrs?|hours?)\s+(?:of\s+)?sleep\b"
)
BAD_SLEEP = rx(
    r"\b(slept (?:badly|terribly|poorly|awful(?:ly)?|like (?:crap|garbage))|bad night|terrible night|"
    r"rough night|barely slept|didn'?t sleep|couldn'?t sleep|poor sleep|bad sleep|no sleep|insomnia)\b"
)
GOOD_SLEEP = rx(
    r"\b(slept (?:well|great|really well|like a baby)|great sleep|good night'?s sleep|good sleep)\b"
)
NO_ENERGY = rx(
    r"\b(exhausted|wiped(?: out)?|drained|knackered|dead tired|shattered|no energy|running on empty|"
    r"completely spent|burn(?:ed|t) out)\b"
)
LOW_ENERGY = rx(r"\b(tired|low energy|sluggish|fatigued|lethargic|groggy)\b")
HIGH_ENERGY = rx(r"\b(energetic|full of energy|feel(?:ing)? (?:great|fresh|strong)|raring to go)\b")
SCALE = rx(
    r"\b(energy|stress|sleep(?: quality)?)\s*(?:is|was|:|of|at)?\s*(\d+(?:\.\d+)?)\s*(?:/|out of)\s*(5|10)\b"
)
STRESSED = rx(r"\b(stressed|stressful|anxious|overwhelmed|under a lot of stress)\b")
VERY = rx(r"\b(very|really|super|so|extremely|incredibly)\s+(?:stressed|sore)\b")
RPE = rx(r"\b(?:rpe|effort)\s*(?:of|was|:)?\s*(\d+(?:\.5)?)\b")
SHOULD_TRAIN = rx(
    r"\b(should i (?:train|work ?out|lift|exercise|go to the gym|go (?:for a )?run|skip|"
    r"rest(?:\s+(?:today|tomorrow|instead))?(?=\s*(?:[?.!,]|$))|take (?:a|the) day off)|"
    r"(?:is it|would it be) (?:wise|ok|okay|smart|a good idea) to (?:train|work ?out|go to the gym|lift)|"
    r"train or rest|rest or train|am i (?:ready|recovered|good) to (?:train|lift)|check[- ]?in)\b"
)

_BODY_PARTS: dict[str, tuple[str, ...]] = {
    "legs": ("Quadriceps", "Hamstrings", "Glutes", "Calves"),
    "leg": ("Quadriceps", "Hamstrings", "Glutes", "Calves"),
    "quads": ("Quadriceps",), "quad": ("Quadriceps",), "quadriceps": ("Quadriceps",),
    "hamstrings": ("Hamstrings",), "hamstring": ("Hamstrings",), "hammies": ("Hamstrings",),
    "glutes": ("Glutes",), "butt": ("Glutes",), "calves": ("Calves",), "calf": ("Calves",),
    "chest": ("Chest",), "pecs": ("Chest",), "back": ("Back",), "lats": ("Back",),
    "lower back": ("Lower Back",),
    "shoulders": ("Shoulders",), "shoulder": ("Shoulders",), "delts": ("Shoulders",),
    "arms": ("Biceps", "Triceps"), "biceps": ("Biceps",), "triceps": ("Triceps",),
    "abs": ("Abs",), "core": ("Abs",), "traps": ("Trapezius",), "forearms": ("Forearms",),
    "upper body": ("Chest", "Back", "Shoulders", "Biceps", "Triceps"),
    "lower body": ("Quadriceps", "Hamstrings", "Glutes", "Calves"),
}  # fmt: skip
_PART = "|".join(sorted((re.escape(p) for p in _BODY_PARTS), key=len, reverse=True))
SORE = rx(
    rf"\b(?:my\s+)?(?P<a>{_PART})\s+(?:are|is|feel|feels|still|are still|is still)?\s*"
    rf"(?:(?:very|really|super|so|quite|a bit|a little|pretty|extremely)\s+)?"
    rf"(?:sore|aching|achy|doms|stiff)\b|"
    rf"\bsore\s+(?P<b>{_PART})\b|\bdoms in (?:my\s+)?(?P<c>{_PART})\b"
)


def _number(text: str) -> float:
    return float(_WORDS.get(text.lower(), text)) if text.lower() in _WORDS else float(text)


def parse_check_in(text: str) -> CheckReadinessArgs:
    """What a sentence says about sleep, energy, stress, soreness and the last session's effort."""
    fields: dict[str, Any] = {}
    if m := SLEEP_HOURS.search(text):
        hours = _number(m.group(1) or m.group(2))
        if 0 <= hours <= 24:
            fields["sleep_hours"] = hours
    if BAD_SLEEP.search(text):
        fields["sleep_quality"] = (
            1 if re.search(r"barely|didn'?t|couldn'?t|no sleep|terribl|awful", text, re.I) else 2
        )
    elif GOOD_SLEEP.search(text):
        fields["sleep_quality"] = 5
    if NO_ENERGY.search(text):
        fields["energy"] = 1
    elif LOW_ENERGY.search(text):
        fields["energy"] = 2
    elif HIGH_ENERGY.search(text):
        fields["energy"] = 5
    if STRESSED.search(text):
        fields["stress"] = 5 if VERY.search(text) and re.search(r"\w+\s+stressed", text, re.I) else 4
    for m in SCALE.finditer(text):
        value = float(m.group(2)) * (5 / float(m.group(3)))
        scaled = max(1, min(5, round(value)))
        key = {"energy": "energy", "stress": "stress"}.get(m.group(1).lower(), "sleep_quality")
        fields[key] = scaled
    if m := RPE.search(text):
        rpe = float(m.group(1))
        if 1 <= rpe <= 10:
            fields["last_session_rpe"] = rpe
    soreness: dict[str, int] = {}
    for m in SORE.finditer(text):
        part = (m.group("a") or m.group("b") or m.group("c") or "").lower()
        level = (
            4 if VERY.search(m.group(0)) or re.search(r"really|super|extremely|very", m.group(0), re.I) else 3
        )
        for muscle in _BODY_PARTS.get(part, ()):
            soreness[muscle] = max(level, soreness.get(muscle, 0))
    if soreness:
        fields["soreness"] = soreness
    return CheckReadinessArgs.model_validate(fields)


def says_how_i_feel(text: str) -> bool:
    """Sleep, energy, stress or soreness (not only an effort rating, which a log correction names too)."""
    return bool(parse_check_in(text).model_dump(exclude_defaults=True, exclude={"last_session_rpe"}))


def says_readiness(text: str) -> bool:
    """A check-in (how the user slept or feels) or a question whether to train today."""
    return bool(SHOULD_TRAIN.search(text)) or bool(parse_check_in(text).model_dump(exclude_defaults=True))


def without_soreness(text: str) -> str:
    """The message with its soreness phrases taken out (soreness is readiness, not an injury)."""
    return SORE.sub(" ", text)


async def readiness(turn: Turn, step: Step) -> ToolInvocation:
    return CheckReadiness().call(parse_check_in(turn.text))


# --- new locations --------------------------------------------------------------------------------

_EQUIPMENT_WORDS = (
    r"treadmills?|dumbbells?|barbells?|plates?|bench(?:es)?|squat racks?|power racks?|racks?|kettlebells?|"
    r"cables?(?: machine)?|pull-?up bars?|bands?|resistance bands?|rowing machines?|rowers?|bikes?|"
    r"exercise bikes?|stationary bikes?|ellipticals?|smith machines?|leg press|lat pulldown|dip station|"
    r"jump ropes?|medicine balls?|stability balls?|foam rollers?|machines?"
)
EQUIPMENT_WORD = rx(rf"\b(?:{_EQUIPMENT_WORDS})\b")
NEW_PLACE = rx(
    r"\b(?:i'?m|i am|we'?re|training|working out|staying)\s+(?:[a-z]+\s+){0,2}?(?:at|in)\s+"
    r"(?:a|an|this|the)\s+"
    r"(?P<a>[a-z' -]{2,30}?(?:gym|studio|room|club|centre|center|garage|basement|park|office))\b|"
    r"\bnew location:?\s+(?:called\s+)?(?:the\s+|my\s+|a\s+)?(?P<b>[a-z0-9' -]{2,30}?)"
    r"(?=\s+with\b|[.,:;!?]|$)|"
    r"\b(?:add|create|save|set up)\s+(?:a\s+)?(?:new\s+)?location\s+(?:called\s+|named\s+)?"
    r"(?P<c>[a-z0-9' -]{2,30}?)"
    r"(?=\s+with\b|[.,:;!?]|$)|"
    r"\b(?:the|this|a|an|my)\s+(?P<d>(?:hotel|apartment|airbnb|hostel|resort|condo|rental)\s+gym)\s+"
    r"(?:here\s+)?(?:only\s+|just\s+)?(?:has|have|with|got)\b"
)
DUMBBELLS_UP_TO = rx(
    r"\bdumbbells?\s+(?:up\s+to|to|until|max(?:imum)?(?:\s+of)?|of up to)\s+(\d+(?:\.\d+)?)\s*"
    r"(kg|kgs|kilos?|lbs?|pounds?)\b|"
    r"\bdumbbells?\s+(?:from\s+)?(\d+(?:\.\d+)?)\s*(?:kg|lbs?|pounds?)?\s*(?:-|to)\s*(\d+(?:\.\d+)?)\s*"
    r"(kg|kgs|kilos?|lbs?|pounds?)\b"
)
PLATES = rx(
    r"\bplates?\s+(?:of\s+|from\s+)?((?:\d+(?:\.\d+)?\s*(?:,|and|to|-)?\s*)+)\s*(kg|kgs|kilos?|lbs?|pounds?)\b|"
    r"\b((?:\d+(?:\.\d+)?\s*(?:,|and)?\s*)+)\s*(kg|kgs|kilos?|lbs?|pounds?)\s+plates?\b"
)
BAR = rx(
    r"\b(\d+(?:\.\d+)?)\s*(kg|kgs|kilos?|lbs?|pounds?)\s+(?:olympic\s+)?(?:bar|barbell)\b|"
    r"\b(?:bar|barbell)\s+(?:is|of|weighs)\s+(\d+(?:\.\d+)?)\s*(kg|kgs|kilos?|lbs?|pounds?)\b"
)
STANDARD_PLATES: dict[str, tuple[float, ...]] = {
    "kg": (1.25, 2.5, 5, 10, 15, 20, 25),
    "lbs": (2.5, 5, 10, 25, 35, 45),
}


def _unit(word: str) -> str:
    return "kg" if word.lower().startswith("k") else "lbs"


def describes_new_place(text: str) -> bool:
    """A place the user is at, described with its equipment, or a new location asked for by name."""
    m = NEW_PLACE.search(text)
    if m is None:
        return False
    return bool(m.group("b") or m.group("c")) or bool(EQUIPMENT_WORD.search(text[m.end() :]))


def parse_new_location(text: str, user_unit: str) -> CreateLocationArgs | None:
    m = NEW_PLACE.search(text)
    if m is None:
        return None
    raw = (m.group("a") or m.group("b") or m.group("c") or m.group("d") or "").strip(" '-")
    name = " ".join(w.capitalize() for w in raw.split())
    rest = text[m.end() :]
    equipment: list[str] = []
    for found in EQUIPMENT_WORD.finditer(rest):
        word = found.group(0).lower()
        if normalise_equipment(word) in ("dumbbell", "barbell") or word.startswith("plate"):
            continue
        canonical = normalise_equipment(word)
        if canonical not in equipment:
            equipment.append(canonical)
    fields: dict[str, Any] = {"name": name, "equipment": equipment, "make_current": True}
    unit = user_unit
    if d := DUMBBELLS_UP_TO.search(rest):
        if d.group(1):
            unit = _unit(d.group(2))
            fields["dumbbells_up_to"] = float(d.group(1))
        else:
            unit = _unit(d.group(5))
            low, high = float(d.group(3)), float(d.group(4))
            step = 2.5 if unit == "kg" else 5.0
            count = int((high - low) / step + 1e-9)
            fields["dumbbells"] = [round(low + step * i, 2) for i in range(count + 1)]
    elif re.search(r"\bdumbbells?\b", rest, re.I):
        fields["dumbbells_up_to"] = 25.0 if unit == "kg" else 50.0
    if p := PLATES.search(rest):
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", p.group(1) or p.group(3) or "")]
        unit = _unit(p.group(2) or p.group(4))
        span = re.search(r"\bto\b|-", p.group(0))
        if span and len(numbers) == 2:
            numbers = [w for w in STANDARD_PLATES[unit] if numbers[0] <= w <= numbers[1]]
        fields["plates"] = numbers
    elif re.search(r"\bbarbells?\b", rest, re.I):
        fields["plates"] = list(STANDARD_PLATES[unit])
    if b := BAR.search(rest):
        fields["bar_weight"] = float(b.group(1) or b.group(3))
        unit = _unit(b.group(2) or b.group(4))
    elif "plates" in fields:
        fields["bar_weight"] = 20.0 if unit == "kg" else 45.0
    fields["unit"] = unit
    return CreateLocationArgs.model_validate(fields)


async def new_location(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    parsed = parse_new_location(turn.text, records.weight_unit)
    if parsed is None or not parsed.name:
        return ask("What should I call this place, and what equipment does it have?")
    known = [loc.name for loc in records.locations]
    existing = named_location(parsed.name, known) or next(
        (n for n in known if n.lower() == parsed.name.lower()), None
    )
    if existing:
        return SetCurrentLocation().call(SetCurrentLocationArgs(location_name=existing))
    return CreateLocation().call(parsed)


__all__ = [
    "describes_new_place",
    "new_location",
    "parse_check_in",
    "parse_new_location",
    "readiness",
    "says_readiness",
    "without_soreness",
]
