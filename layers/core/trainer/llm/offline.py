"""A deterministic rule-based agent behind the AgentModel port: the local default and the CI model
when no ANTHROPIC_API_KEY is set (ARCHITECTURE §4).

It reads the request the context builder made (Anthropic native shape), finds the latest user
text and the tool calls made since, and picks the next single tool call: the action(s) the user
asked for, then one message_notify_user with the outcome, then idle."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal, Protocol

from trainer.domain.muscles import MUSCLES
from trainer.llm.ports import ModelRequest, ModelResponse, TextDeltaCallback, ToolCall, Usage


class OfflinePlanner(Protocol):
    """Domain services the offline policy needs to produce real tool arguments."""

    async def compose_workout(self, user_id: str, request_text: str) -> dict[str, Any]: ...

    async def current_workout(self, session_id: str) -> dict[str, Any] | None: ...

    async def compose_replacement(
        self, user_id: str, session_id: str, exercise: dict[str, Any], request_text: str
    ) -> dict[str, Any]: ...


CONTEXT_TAGS = ("<knowledge", "<artifact", "<checkpoint", "<user_data", "<system", "<current_workout")
MAX_ACTIONS_PER_TURN = 6
ART_ID = re.compile(r"art_[A-Za-z0-9]+")
EX_ID = re.compile(r"\bex_[A-Za-z0-9]+\b")
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
ERROR_MARK = re.compile(r'status="error"|"status":\s*"error"|^\s*<error|^\s*error\b', re.IGNORECASE)
TAG = re.compile(r"</?[a-z_]+(?:\s[^>]*)?>", re.IGNORECASE)


@dataclass(frozen=True)
class PastCall:
    name: str
    arguments: dict[str, Any]
    observation: str
    failed: bool
    knowledge: tuple[str, ...] = ()
    """Knowledge blocks the call appended (fetch_data), which follow its result."""


@dataclass
class Conversation:
    user_text: str = ""
    calls: list[PastCall] = field(default_factory=list)
    """Tool calls since the latest user text, in order, with their observations."""
    history: list[PastCall] = field(default_factory=list)
    """Every tool call in the request."""


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _is_user_text(text: str) -> bool:
    stripped = text.lstrip()
    return bool(stripped) and not stripped.startswith(CONTEXT_TAGS)


def _clean_user_text(text: str) -> str:
    return re.sub(r"</?user_message>", "", text).strip()


def read_conversation(messages: list[dict[str, Any]]) -> Conversation:
    """Latest real user text (not knowledge, artifacts or tool results) and the calls since it."""
    results: dict[str, tuple[str, bool]] = {}
    knowledge: dict[str, list[str]] = {}
    timeline: list[tuple[str, Any]] = []
    for message in messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        result_id: str | None = None
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            text = str(block.get("text", ""))
            if message.get("role") == "assistant" and kind == "tool_use":
                timeline.append(("call", block))
            elif kind == "tool_result":
                observation = _block_text(block.get("content"))
                failed = bool(block.get("is_error")) or bool(ERROR_MARK.search(observation))
                result_id = str(block.get("tool_use_id"))
                results[result_id] = (observation, failed)
            elif kind == "text" and message.get("role") == "user" and _is_user_text(text):
                timeline.append(("user", _clean_user_text(text)))
            elif kind == "text" and result_id is not None and text.lstrip().startswith("<knowledge"):
                knowledge.setdefault(result_id, []).append(text)
    convo = Conversation()
    for kind, item in timeline:
        if kind == "user":
            convo.user_text = item
            convo.calls = []
            continue
        call_id = str(item.get("id"))
        observation, failed = results.get(call_id, ("", False))
        call = PastCall(
            str(item.get("name")),
            dict(item.get("input") or {}),
            observation,
            failed,
            tuple(knowledge.get(call_id, ())),
        )
        convo.calls.append(call)
        convo.history.append(call)
    return convo


# --- intent rules -------------------------------------------------------------------------------


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


UNDO = _rx(
    r"\b(undo|take that back|that was wrong|delete (that|the last) (log|entry)|remove (that|the last) log)\b"
)
LOG = _rx(
    r"\b(i did|i've done|i have done|i finished|i completed|i just did|just did|just finished|"
    r"i ran|i swam|i cycled|i rode|i walked|i held|log(ged)?\b|record(ed)?|done with)\b|"
    r"^(ran|held|did|cycled|swam|walked|rode|rowed|finished|completed)\b|\b\d{1,2}\s*x\s*\d{1,3}\b"
)
SWAP = _rx(r"\b(swap|replace|substitute|switch out|instead of|change (the )?\w+ (for|to|with))\b")
REMOVE = _rx(r"\b(remove|drop|skip|take out|cut|delete|get rid of)\b")
ADJUST = _rx(
    r"\b(heavier|lighter|more weight|less weight|more reps|fewer reps|less reps|more sets|fewer sets|"
    r"less sets|more rest|less rest|shorter rest|longer rest|longer hold|shorter hold)\b"
)
TIMER = _rx(r"\b(timers?|intervals?|countdown|tabata|emom|stopwatch)\b")
PLAN = _rx(r"\b(\d+|one|two|three|four|five|six|eight|twelve)[- ]?(week|wk|month)s?\b.*"
           r"\b(plan|program(me)?)\b|"
           r"\b(plan|program(me)?)\b.*\b(\d+)[- ]?weeks?\b|\bworkout plan\b|\btraining plan\b")  # fmt: skip
MILESTONE = _rx(
    r"\b(milestone|5k|10k|half marathon|marathon|run an? \d+\s?(k|km|mi|miles?)|"
    r"(bench|squat|deadlift|press)\w* \d+\s?(kg|lbs?)\b.*\bby\b|"
    r"\bby (january|february|march|april|may|june|july|"
    r"august|september|october|november|december|the end of|next (month|year)))"
)
SCHEDULE = _rx(r"\b(schedule|book|calendar|remind me|put (it|a workout|one) on)\b")
STATS = _rx(
    r"\b(stats|statistics|progress|how many|how much|how often|summary|overview|recap|report|breakdown|"
    r"distribution|trends?|history)\b"
)
LOCATION = _rx(
    r"\b(?:i'?m|i am|currently|we'?re)\s+(?:at|in)\s+(?:the\s+|my\s+|a\s+)?(?P<a>[a-z0-9' -]{2,40}?)"
    r"(?=\s+(?:today|now|right now|and|so|this)\b|[.,!?;]|$)|"
    r"\bswitch(?:ing)?\s+(?:my\s+)?(?:location\s+)?to\s+(?:the\s+|my\s+)?"
    r"(?P<b>[a-z0-9' -]{2,40}?)(?=[.,!?;]|$)"
)
INJURY = _rx(
    r"\b(injur(y|ed)|hurts?|hurting|pain(ful)?|sore|strain(ed)?|tweak(ed)?|sprain(ed)?|bother(ing|s)?|"
    r"tendonitis)\b"
)
PREFERENCE = _rx(
    r"\b(hate|don'?t like|do not like|dislike|can'?t stand|avoid|prefer|no more|never give me|"
    r"i don'?t have|only have|take it easy|go easy|no equipment)\b"
)
GOALS = _rx(r"\b(goals?|prioriti[sz]e|focus (more )?on|emphasi[sz]e)\b|\d\s*%|\bpercent\b")
WORKOUT = _rx(
    r"\b(workouts?|routine|session|exercises|leg day|arm day|upper body|lower body|full body|hiit|"
    r"circuit|wod|training)\b"
)
WORKOUT_VERB = _rx(
    r"\b(give|show|generate|create|make|build|suggest|recommend|design|want|need|let'?s|can you|could you|"
    r"what should i do|new|another|quick|plan)\b"
)
QUESTION = _rx(r"\?\s*$|^(how|what|why|when|should|can|could|is|are|do|does|which|where)\b")

DATA_REQUEST = _rx(
    r"\b(show|tell|remind|list|see|view|load|pull up|what are|what'?s|what is|which)\b.*"
    r"\b(goals?|preferences?|schedule|upcoming|plans?|milestones?|locations?|gyms?|equipment|settings|units|"
    r"profile|body stats)\b"
)
DATA_SOURCES_BY_WORD: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\bgoals?\b", ("category_goals", "muscle_goals")),
    (r"\bpreferences?\b", ("active_preferences",)),
    (r"\b(schedule|upcoming)\b", ("scheduled_workouts",)),
    (r"\bplans?\b", ("workout_plans",)),
    (r"\bmilestones?\b", ("milestone_goals",)),
    (r"\b(locations?|gyms?|equipment)\b", ("all_locations",)),
    (r"\b(settings|units)\b", ("user_settings",)),
    (r"\b(profile|body stats)\b", ("user_profile",)),
)

Intent = Literal[
    "undo", "log", "swap", "remove", "adjust", "timer", "data", "plan", "milestone", "schedule", "stats",
    "location", "preference", "goals", "workout", "answer", "clarify",
]  # fmt: skip


def requested_sources(text: str) -> list[str]:
    """The data sources a 'show me my ...' request names, in a stable order."""
    sources: list[str] = []
    for pattern, names in DATA_SOURCES_BY_WORD:
        if re.search(pattern, text, re.IGNORECASE):
            sources.extend(n for n in names if n not in sources)
    return sources


def classify(text: str) -> list[Intent]:
    """The ordered actions a message asks for; 'answer'/'clarify' when no action is recognised."""
    if UNDO.search(text):
        return ["undo"]
    if LOG.search(text) and not QUESTION.search(text):
        return ["log"]
    if SWAP.search(text):
        return ["swap"]
    if ADJUST.search(text):
        return ["adjust"]
    if REMOVE.search(text) and not PREFERENCE.search(text) and not WORKOUT_VERB.search(text):
        return ["remove"]
    if TIMER.search(text):
        return ["timer"]
    if DATA_REQUEST.search(text) and not WORKOUT.search(text):
        return ["data"]
    if PLAN.search(text):
        return ["plan"]
    if MILESTONE.search(text):
        return ["milestone"]
    if SCHEDULE.search(text):
        return ["schedule"]
    if STATS.search(text) and not WORKOUT_VERB.search(text.replace("how many", "")):
        return ["stats"]
    wants_workout = bool(WORKOUT.search(text) and WORKOUT_VERB.search(text))
    steps: list[Intent] = []
    if LOCATION.search(text):
        steps.append("location")
    if INJURY.search(text) or PREFERENCE.search(text):
        steps.append("preference")
    if GOALS.search(text) and (not wants_workout or re.search(r"%|\bgoals?\b", text)):
        steps.append("goals")
    if wants_workout:
        steps.append("workout")
    if steps:
        return steps
    if STATS.search(text):
        return ["stats"]
    if QUESTION.search(text):
        return ["answer"]
    return ["clarify"]


# --- argument parsing ---------------------------------------------------------------------------

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "ten": 10, "twelve": 12}  # fmt: skip
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
    ("upper body", "upper body"), ("lower body", "lower body"), ("full body", "full body"), ("legs", "legs"),
    ("leg", "legs"), ("push", "push"), ("pull", "pull"), ("chest", "chest"), ("back", "back"),
    ("arms", "arms"), ("shoulders", "shoulders"), ("core", "core"), ("hiit", "hiit"), ("run", "cardio"),
    ("cardio", "cardio"), ("yoga", "mobility"), ("mobility", "mobility"), ("stretch", "mobility"),
    ("strength", "strength"),
)  # fmt: skip
STOPWORDS = frozenset(
    """a an the my i i've did do done just finished completed log logged record recorded of at with for and
    sets set reps rep x kg kgs kilos lbs lb pounds today this morning some please each to in on was were then
    had have""".split()  # noqa: SIM905
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _number(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token.lower())


def _round_load(value: float, unit: str | None) -> float:
    step = 5.0 if unit == "lbs" else 2.5
    return max(step, round(value / step) * step)


def workout_type(text: str) -> str:
    lowered = text.lower()
    for key, kind in WORKOUT_TYPES:
        if re.search(rf"\b{re.escape(key)}\b", lowered):
            return kind
    return "full body"


def duration_minutes(text: str) -> int | None:
    if m := re.search(r"(\d{1,3})\s*-?\s*(?:min|mins|minutes|minute)\b", text, re.IGNORECASE):
        return int(m.group(1))
    if re.search(r"\bhalf an hour\b", text, re.IGNORECASE):
        return 30
    if re.search(r"\ban hour\b|\b1 hour\b", text, re.IGNORECASE):
        return 60
    return None


def resolve_date(text: str, today: date) -> date:
    """'today', 'tomorrow', 'on Monday', 'next Friday', 'in 3 days', '2026-05-04'; default tomorrow."""
    lowered = text.lower()
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    if "day after tomorrow" in lowered:
        return today + timedelta(days=2)
    if "tomorrow" in lowered:
        return today + timedelta(days=1)
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


def resolve_deadline(text: str, today: date) -> date | None:
    lowered = text.lower()
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    if m := re.search(r"\bin (\w+) (week|month)s?\b", lowered):
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
    if re.search(r"\b(today|this workout|this session|right now|for now|tonight)\b", lowered):
        return None, True
    return None, False


def identify_exercise(text: str, exercises: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The exercise a message refers to: by id, by position ('the second', '#2', 'last') or by name."""
    if not exercises:
        return None
    ordered = sorted(exercises, key=lambda e: int(e.get("order") or 0))
    if m := EX_ID.search(text):
        found = next((e for e in ordered if e.get("id") == m.group(0)), None)
        if found:
            return found
    lowered = text.lower()
    if re.search(r"\b(the )?last (one|exercise)\b", lowered):
        return ordered[-1]
    for word, position in ORDINALS.items():
        if re.search(rf"\b{word}\b", lowered) and position <= len(ordered):
            return ordered[position - 1]
    if m := re.search(r"(?:#|exercise |number |no\.? ?)(\d{1,2})\b", lowered):
        position = int(m.group(1))
        if 1 <= position <= len(ordered):
            return ordered[position - 1]
    said = {_stem(w) for w in _words(text)} - STOPWORDS
    best: tuple[int, dict[str, Any]] | None = None
    for exercise in ordered:
        name_words = {_stem(w) for w in _words(str(exercise.get("exercise_name", "")))} - STOPWORDS
        score = len(name_words & said)
        if score and (best is None or score > best[0]):
            best = (score, exercise)
    return best[1] if best else None


def swap_target_text(text: str) -> str:
    """The part of a swap request naming the exercise to replace."""
    if m := re.search(r"instead of (.+)", text, re.IGNORECASE):
        return m.group(1)
    return re.split(r"\b(?:for|with|to|into)\b", text, maxsplit=1, flags=re.IGNORECASE)[0]


def adjustments_for(text: str, exercise: dict[str, Any]) -> dict[str, Any]:
    lowered = text.lower()
    changes: dict[str, Any] = {}
    sets = int(exercise.get("sets") or 0)
    reps = list(exercise.get("reps") or [])
    loads = list(exercise.get("load_each") or [])
    unit = exercise.get("load_unit")
    if re.search(r"heavier|more weight", lowered):
        if loads:
            changes["load_each"] = [_round_load(v * 1.1 + 0.01, unit) for v in loads]
        elif reps:
            changes["reps"] = [r + 2 for r in reps]
    if re.search(r"lighter|less weight", lowered) and loads:
        changes["load_each"] = [_round_load(v * 0.9, unit) for v in loads]
    if "more reps" in lowered and reps:
        changes["reps"] = [r + 2 for r in reps]
    if re.search(r"fewer reps|less reps", lowered) and reps:
        changes["reps"] = [max(1, r - 2) for r in reps]
    if "more sets" in lowered and sets:
        changes["sets"] = sets + 1
        for name, values in (
            ("reps", changes.get("reps", reps)),
            ("load_each", changes.get("load_each", loads)),
        ):
            if values:
                changes[name] = [*values, values[-1]]
        if exercise.get("hold_sec"):
            holds = list(exercise["hold_sec"])
            changes["hold_sec"] = [*holds, holds[-1]]
    if re.search(r"fewer sets|less sets", lowered) and sets > 1:
        changes["sets"] = sets - 1
        for name, values in (
            ("reps", changes.get("reps", reps)),
            ("load_each", changes.get("load_each", loads)),
        ):
            if values:
                changes[name] = values[: sets - 1]
        if exercise.get("hold_sec"):
            changes["hold_sec"] = list(exercise["hold_sec"])[: sets - 1]
    rest = exercise.get("rest_sec")
    if re.search(r"more rest|longer rest", lowered) and rest is not None:
        changes["rest_sec"] = int(rest) + 30
    if re.search(r"less rest|shorter rest", lowered) and rest is not None:
        changes["rest_sec"] = max(0, int(rest) - 30)
    if exercise.get("hold_sec") and re.search(r"longer hold|shorter hold", lowered):
        delta = 10 if "longer" in lowered else -10
        changes["hold_sec"] = [max(5, h + delta) for h in exercise["hold_sec"]]
    return changes


CARDIO_NAMES = {
    "ran": "Running", "run": "Running", "jogged": "Jogging", "cycled": "Cycling", "biked": "Cycling",
    "rode": "Cycling", "swam": "Swimming", "walked": "Walking", "rowed": "Rowing",
}  # fmt: skip
NOT_EXERCISE_WORDS = frozenset(
    {"times", "rounds", "held", "hold", "holding", "seconds", "sec", "did", "done"}
)
UNITS_AFTER_NUMBER = r"\d+(?:\.\d+)?\s*(kg|kgs|kilos?|lbs?|pounds?|s|sec|secs|seconds|min|minutes)?\b"


def parse_logged_exercise(text: str) -> dict[str, Any] | None:
    """'3x10 bench press at 60kg', 'I did 3 sets of 12 squats', 'ran 5 km in 28 minutes',
    'held a plank for 60 seconds 3 times'."""
    lowered = text.lower()
    load_m = re.search(r"(\d+(?:\.\d+)?)\s*(kg|kgs|kilos?|lbs?|pounds?)\b", lowered)
    load = float(load_m.group(1)) if load_m else None
    load_unit = None if not load_m else ("kg" if load_m.group(2).startswith("k") else "lbs")
    cardio = re.search(r"\b(ran|run|jogged|cycled|biked|rode|swam|walked|rowed)\b", lowered)
    dist_m = re.search(r"(\d+(?:\.\d+)?)\s*(km|k|mi|miles?)\b", lowered)
    mins = duration_minutes(text)
    if cardio or (dist_m and mins):
        verb = cardio.group(1) if cardio else "ran"
        name = CARDIO_NAMES[verb]
        entry: dict[str, Any] = {"exercise_name": name, "exercise_type": "duration"}
        if mins:
            entry["duration_min"] = mins
        if dist_m:
            entry["distance"] = float(dist_m.group(1))
            entry["distance_unit"] = "mi" if dist_m.group(2).startswith("mi") else "km"
        return entry if ("duration_min" in entry or "distance" in entry) else None
    hold_m = re.search(r"(\d{1,3})\s*(?:s|sec|secs|seconds)\b", lowered)
    sets_reps = re.search(r"(\d{1,2})\s*(?:x|sets? of|×)\s*(\d{1,3})", lowered)
    times_m = re.search(r"(\d{1,2}|two|three|four|five)\s*(?:times|sets|rounds)\b", lowered)
    name_text = re.sub(r"\d{1,2}\s*(?:x|sets? of|×)\s*\d{1,3}", " ", lowered)
    name_text = re.sub(UNITS_AFTER_NUMBER, " ", name_text)
    name_words = [
        w
        for w in _words(name_text)
        if w not in STOPWORDS and w not in NUMBER_WORDS and w not in NOT_EXERCISE_WORDS
    ]
    if not name_words:
        return None
    name = " ".join(name_words[:4]).title()
    if hold_m and not sets_reps:
        sets = (_number(times_m.group(1)) or 1) if times_m else 1
        return {"exercise_name": name, "exercise_type": "hold", "sets": sets,
                "hold_sec": [int(hold_m.group(1))] * sets}  # fmt: skip
    if sets_reps:
        sets, rep_count = int(sets_reps.group(1)), int(sets_reps.group(2))
        entry = {"exercise_name": name, "exercise_type": "reps", "sets": sets, "reps": [rep_count] * sets}
        if load is not None:
            entry["load"] = load
            entry["load_unit"] = load_unit
        return entry
    return None


def parse_goals(text: str) -> dict[str, Any] | None:
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
        return {"goal_type": "muscle", "muscle_goals": weights}
    return {
        "goal_type": "category",
        "category_goals": [
            {"category": name, "description": f"{name} focus", "percentage": pct}
            for name, pct in weights.items()
        ],
    }


def parse_preference(text: str, now: datetime) -> dict[str, Any]:
    lowered = text.lower()
    expires_at, once = expiry(text, now)
    part = next((p for p in BODY_PARTS if re.search(rf"\b{p}s?\b", lowered)), None)
    args: dict[str, Any]
    if INJURY.search(text) and part:
        args = {
            "type": "injury",
            "description": f"{part.title()} pain - avoid loading the {part}",
            "guidance": f"Exclude exercises that load the {part}; offer pain-free alternatives",
        }
        if not expires_at and not once:
            expires_at = (now + timedelta(days=7)).isoformat()
    elif m := re.search(
        r"\b(?:hate|don'?t like|do not like|dislike|can'?t stand|no more|never give me)\s+(?:doing\s+)?"
        r"(?:the\s+|any\s+)?([a-z][a-z -]{2,40}?)"
        r"(?=[.,!?;]|\s+(?:and|but|so|anymore|any more|please|again)\b|$)",
        lowered,
    ):
        thing = m.group(1).strip()
        args = {
            "type": "exercise",
            "description": f"User dislikes {thing}",
            "guidance": f"Never include {thing} in recommendations",
        }
    elif m := re.search(r"\bavoid(?:ing)?\s+(?:the\s+|my\s+|any\s+)?([a-z][a-z -]{2,40}?)"
                        r"(?=[.,!?;]|\s+for\b|$)",
                        lowered):  # fmt: skip
        thing = m.group(1).strip()
        muscle = (
            MUSCLE_ALIASES.get(thing) or MUSCLE_ALIASES.get(_stem(thing)) or MUSCLE_ALIASES.get(thing + "s")
        )
        args = {
            "type": "muscle_group" if muscle or part else "exercise",
            "description": f"Avoid {thing}",
            "guidance": f"Do not program exercises that target {thing}",
        }
    elif m := re.search(r"\bonly have (\d{1,3})\s*(?:min|mins|minutes)\b", lowered):
        args = {
            "type": "time",
            "description": f"Only {m.group(1)} minutes available",
            "guidance": f"Keep the workout within {m.group(1)} minutes including rest",
        }
        if not expires_at:
            once = True
    elif re.search(r"\b(no equipment|i don'?t have|only have)\b", lowered):
        args = {
            "type": "equipment",
            "description": text.strip()[:120],
            "guidance": "Only use equipment the user has; bodyweight alternatives otherwise",
        }
    elif re.search(r"\b(take it easy|go easy|tired|exhausted|low intensity)\b", lowered):
        args = {
            "type": "intensity",
            "description": "User wants lower intensity",
            "guidance": "Reduce loads and volume; keep RPE around 6",
        }
    elif m := re.search(r"\bprefer\s+(.{3,80}?)(?=[.!?;]|$)", lowered):
        args = {
            "type": "workout",
            "description": f"Prefers {m.group(1).strip()}",
            "guidance": f"Favour {m.group(1).strip()} when planning workouts",
        }
    else:
        args = {"type": "other", "description": text.strip()[:120], "guidance": "Take this into account"}
    if expires_at:
        args["expires_at"] = expires_at
    if once:
        args["delete_after_use"] = True
    return args


def parse_location(text: str) -> str | None:
    if m := LOCATION.search(text):
        name = (m.group("a") or m.group("b") or "").strip()
        return name or None
    return None


def parse_milestone(text: str, today: date) -> dict[str, Any]:
    lowered = text.lower()
    args: dict[str, Any] = {"action": "create"}
    if m := re.search(r"\b(half marathon|marathon)\b", lowered):
        args.update(goal_name=f"Run a {m.group(1)}", goal_type="endurance",
                    target_value=21.1 if m.group(1).startswith("half") else 42.2,
                    target_unit="km")  # fmt: skip
    elif m := re.search(
        r"\b(run|row|swim|cycle|bike|walk)?\s*(?:an?\s+)?(\d+(?:\.\d+)?)\s*(k|km|mi|miles?)\b", lowered
    ):
        verb = m.group(1) or "run"
        value = float(m.group(2))
        unit = "mi" if m.group(3).startswith("mi") else "km"
        args.update(goal_name=f"{verb.title()} {m.group(2)} {unit}", goal_type="endurance",
                    target_value=value, target_unit=unit)  # fmt: skip
    elif m := re.search(
        r"\b(bench|squat|deadlift|overhead press|press)\w*\s+(\d+(?:\.\d+)?)\s*(kg|lbs?)\b", lowered
    ):
        unit = "kg" if m.group(3) == "kg" else "lbs"
        args.update(goal_name=f"{m.group(1).title()} {m.group(2)} {unit}", goal_type="strength",
                    target_value=float(m.group(2)), target_unit=unit)  # fmt: skip
    elif m := re.search(r"\b(\d{1,3})\s+(pull-?ups?|push-?ups?|chin-?ups?|dips)\b", lowered):
        args.update(goal_name=f"{m.group(1)} {m.group(2)}", goal_type="strength",
                    target_value=float(m.group(1)), target_unit="reps")  # fmt: skip
    else:
        args.update(goal_name=text.strip()[:80], goal_type="other")
    deadline = resolve_deadline(text, today)
    if deadline:
        args["target_date"] = deadline.isoformat()
    return args


def parse_plan(text: str, today: date) -> dict[str, Any]:
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
    args: dict[str, Any] = {
        "plan_name": f"{weeks}-week {kind} plan",
        "start_date": start.isoformat(),
        "duration_weeks": weeks,
        "goal_description": text.strip()[:200],
        "workouts_per_week": per_week,
    }
    if days:
        args["preferred_days"] = days
    if kind != "full body":
        args["workout_types"] = [kind]
    return args


def stats_period(text: str) -> str:
    lowered = text.lower()
    for pattern, period in (
        (r"all[- ]time|ever|lifetime", "all_time"),
        (r"year|annual", "year"),
        (r"quarter|3 months|three months", "quarter"),
        (r"week", "week"),
        (r"month", "month"),
    ):
        if re.search(pattern, lowered):
            return period
    return "month"


def timer_exercise(text: str) -> dict[str, Any]:
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


FAQ: tuple[tuple[re.Pattern[str], str], ...] = (
    (_rx(r"\brest\b.*\bsets?\b|\bsets?\b.*\brest\b"),
     "Rest 2-3 minutes between heavy strength sets, 60-90 seconds for muscle-building work and 30-60 "
     "seconds for endurance circuits."),
    (_rx(r"\bprotein\b"),
     "Aim for roughly 1.6-2.2 g of protein per kg of body weight a day, spread over 3-5 meals."),
    (_rx(r"\bwarm(-| )?up\b"),
     "Warm up for 5-10 minutes: light cardio, dynamic mobility for the joints you will train, then 1-2 "
     "lighter ramp-up sets of your first lift."),
    (_rx(r"\bsore(ness)?\b|\bdoms\b"),
     "Muscle soreness usually peaks 24-72 hours after training. Easy movement, sleep and protein help; "
     "sharp or joint pain is different - stop and get it checked."),
    (_rx(r"\bhow (often|many times)\b"),
     "Training each muscle group about twice a week works well for most people; 3-4 sessions a week is "
     "a good, sustainable target."),
    (_rx(r"\bprogressive overload\b|\bincrease (the )?weight\b|\bwhen should i go heavier\b"),
     "When you hit the top of your rep range on every set with good form, add the smallest load step "
     "(2.5 kg / 5 lb) next time."),
)  # fmt: skip

OFFLINE_HELP = (
    "I can build a workout, swap or adjust exercises, log what you did, set goals and preferences, "
    "schedule sessions, make multi-week plans, set timers and show your stats."
)
CLARIFY_OPTIONS = ["Give me a workout", "Log a workout", "Show my stats", "Set my goals"]


def answer_question(text: str) -> str:
    for pattern, answer in FAQ:
        if pattern.search(text):
            return answer
    return (
        f"Good question. I'm running on the offline trainer, so I can't discuss that in depth. {OFFLINE_HELP}"
    )


# --- the policy ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    name: str
    arguments: dict[str, Any]


def _idle(reason: str) -> Action:
    return Action("idle", {"reason": reason})


def _notify(message: str, artifact_id: str | None = None) -> Action:
    args: dict[str, Any] = {"message": message}
    if artifact_id:
        args["artifact_id"] = artifact_id
    return Action("message_notify_user", args)


def _ask(question: str, options: list[str] | None = None) -> Action:
    args: dict[str, Any] = {"question": question}
    if options:
        args["options"] = options
    return Action("message_ask_user", args)


def _observation_text(observation: str, limit: int = 1200) -> str:
    text = TAG.sub("", observation).strip()
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


ACTION_LABELS = {
    "generate_workout": "build that workout",
    "swap_exercise": "swap that exercise",
    "adjust_exercise": "adjust that exercise",
    "remove_exercise": "remove that exercise",
    "set_goals": "save your goals",
    "set_preference": "save that preference",
    "log_workout": "log your workout",
    "log_completed_exercise": "log that exercise",
    "undo_logged_exercise": "undo that log",
    "schedule_workout": "schedule that workout",
    "create_workout_plan": "create that plan",
    "manage_milestone": "save that milestone",
    "set_current_location": "change your location",
}


def summarize(call: PastCall) -> str:
    """One sentence telling the user what a successful tool call did."""
    args = call.arguments
    match call.name:
        case "fetch_data":
            found = "\n\n".join(_observation_text(k, 1500) for k in call.knowledge)
            return f"Here's what I have on file:\n{found}" if found else "I couldn't find that data."
        case "generate_workout":
            workout = args.get("workout") or {}
            names = [str(e.get("exercise_name")) for e in workout.get("exercises") or []]
            title = workout.get("title") or "your workout"
            return f"Here's {title}: {len(names)} exercises - {', '.join(names)}."
        case "swap_exercise":
            new = (args.get("new_exercise") or {}).get("exercise_name", "a new exercise")
            return f"Done - I swapped that exercise for {new}."
        case "adjust_exercise":
            changed = ", ".join(sorted(args.get("adjustments") or {}))
            return f"Updated the exercise ({changed})."
        case "remove_exercise":
            return "Removed that exercise from your workout."
        case "set_goals":
            if args.get("goal_type") == "muscle":
                parts = [f"{k} {v:g}%" for k, v in (args.get("muscle_goals") or {}).items()]
            else:
                parts = [f"{g['category']} {g['percentage']:g}%" for g in args.get("category_goals") or []]
            return f"Your goals are set: {', '.join(parts)}."
        case "set_preference":
            until = ""
            if args.get("expires_at"):
                until = f" until {str(args['expires_at'])[:10]}"
            elif args.get("delete_after_use"):
                until = " for your next workout"
            return f"Got it - noted: {args.get('description')}{until}."
        case "log_workout":
            return f"Logged your workout ({len(args.get('completed_exercises') or [])} exercises). Nice work!"
        case "log_completed_exercise":
            detail = ""
            if args.get("sets") and args.get("reps"):
                detail = f" {args['sets']}x{args['reps'][0]}"
                if args.get("load"):
                    detail += f" @ {args['load']:g}{args.get('load_unit') or ''}"
            return f"Logged {args.get('exercise_name')}{detail}."
        case "undo_logged_exercise":
            return "Removed that logged exercise."
        case "schedule_workout":
            return f"Scheduled a {args.get('workout_type')} workout for {args.get('scheduled_date')}."
        case "create_workout_plan":
            return (
                f"Created '{args.get('plan_name')}': {args.get('duration_weeks')} weeks, "
                f"{args.get('workouts_per_week')} workouts a week from {args.get('start_date')}."
            )
        case "manage_milestone":
            target = f" by {args['target_date']}" if args.get("target_date") else ""
            return f"Milestone saved: {args.get('goal_name')}{target}."
        case "set_current_location":
            return f"Switched your location to {args.get('location_name') or args.get('location_id')}."
        case "generate_workout_timers" | "generate_exercise_timer":
            return "Your timer is ready."
        case _:
            return _observation_text(call.observation) or "Done."


EXERCISE_LINE = re.compile(r"(ex_[A-Za-z0-9]+): (.+?) \((reps|hold|duration|intervals)\) \[order: (\d+)\]")


def workout_from_conversation(convo: Conversation) -> dict[str, Any] | None:
    """The current workout as the conversation shows it, for when the planner cannot see the
    session (a policy behind the fake HTTP server): the last generated workout, with the ids and
    order from the latest observation that lists them."""
    base: list[dict[str, Any]] = []
    listed: dict[int, tuple[str, str]] = {}
    for call in convo.history:
        if call.name == "generate_workout" and not call.failed:
            base = [dict(e) for e in (call.arguments.get("workout") or {}).get("exercises") or []]
        if call.name == "swap_exercise" and not call.failed and call.arguments.get("new_exercise"):
            base.append(dict(call.arguments["new_exercise"]))
        found = EXERCISE_LINE.findall(call.observation)
        if found:
            listed.update({int(order): (ex_id, name) for ex_id, name, _kind, order in found})
        if call.name == "remove_exercise" and not call.failed:
            listed = _without(listed, str(call.arguments.get("exercise_id", "")))
    if not listed:
        return None
    by_name = {str(e.get("exercise_name", "")).lower(): e for e in base}
    exercises = []
    for order, (ex_id, name) in sorted(listed.items()):
        exercises.append(
            {**by_name.get(name.lower(), {}), "id": ex_id, "exercise_name": name, "order": order}
        )
    return {"exercises": exercises}


def _without(listed: dict[int, tuple[str, str]], target: str) -> dict[int, tuple[str, str]]:
    """The listing after remove_exercise(target): the exercise gone, later ones moved up one."""
    removed = next((order for order, (ex_id, _name) in listed.items() if target in (ex_id, str(order))), None)
    if removed is None:
        return listed
    return {
        (order - 1 if order > removed else order): item for order, item in listed.items() if order != removed
    }


STATS_TOOLS = frozenset(
    {"get_workout_statistics", "generate_stats_summary", "get_exercise_breakdown", "get_progress_trends"}
)


class OfflineAgentModel:
    provider: Literal["anthropic", "offline"] = "offline"

    def __init__(
        self,
        planner: OfflinePlanner,
        *,
        clock: Callable[[], datetime] | None = None,
        delta_chunk_chars: int = 24,
    ) -> None:
        self.planner = planner
        self._clock = clock or (lambda: datetime.now(UTC))
        self._chunk = max(1, delta_chunk_chars)

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        convo = read_conversation(request.messages)
        action = await self.decide(request, convo)
        if on_text_delta is not None and action.name in ("message_notify_user", "message_ask_user"):
            text = str(action.arguments.get("message") or action.arguments.get("question") or "")
            for start in range(0, len(text), self._chunk):
                await on_text_delta(action.name, text[start : start + self._chunk])
        return self._response(request, action)

    async def decide(self, request: ModelRequest, convo: Conversation) -> Action:
        calls = convo.calls
        if calls:
            last = calls[-1]
            if last.name in ("message_notify_user", "message_ask_user", "idle"):
                return _idle("replied to the user")
            if last.failed:
                label = ACTION_LABELS.get(last.name, f"finish {last.name}")
                detail = _observation_text(last.observation, 300) or "it failed"
                return _notify(f"Sorry - I couldn't {label}: {detail}")
            if len(calls) >= MAX_ACTIONS_PER_TURN:
                return self._report(convo)
        if not convo.user_text:
            return _idle("no user message")
        steps = classify(convo.user_text)
        if len(calls) < len(steps):
            return await self._step(steps[len(calls)], request, convo)
        return self._report(convo)

    def _report(self, convo: Conversation) -> Action:
        lines: list[str] = []
        artifact_id: str | None = None
        for call in convo.calls:
            if call.name in STATS_TOOLS:
                lines.append(f"Here are your stats:\n{_observation_text(call.observation)}")
            else:
                lines.append(summarize(call))
            if found := ART_ID.findall(call.observation):
                artifact_id = found[-1]
        return _notify("\n".join(lines) or "Done.", artifact_id)

    async def _step(self, intent: Intent, request: ModelRequest, convo: Conversation) -> Action:
        text = convo.user_text
        user_id = request.user_id or ""
        session_id = request.session_id or ""
        now = self._clock()
        today = now.date()
        match intent:
            case "workout":
                workout = await self.planner.compose_workout(user_id, text)
                return Action("generate_workout", {"workout": workout})
            case "swap" | "adjust" | "remove":
                return await self._change_workout(intent, text, user_id, session_id, convo)
            case "goals":
                goals = parse_goals(text)
                if goals is None:
                    return _ask(
                        "Which goals should I set? For example 'strength 60%, cardio 40%'.",
                        ["Strength", "Hypertrophy", "Endurance", "Mobility"],
                    )
                return Action("set_goals", goals)
            case "preference":
                return Action("set_preference", parse_preference(text, now))
            case "log":
                return await self._log(text, session_id, convo)
            case "undo":
                for call in reversed(convo.history):
                    if call.name in ("log_completed_exercise", "log_workout") and (
                        found := UUID.findall(call.observation)
                    ):
                        return Action("undo_logged_exercise", {"exercise_id": found[-1]})
                return _notify("I couldn't find a logged exercise in this conversation to undo.")
            case "stats":
                return self._stats(text)
            case "schedule":
                args: dict[str, Any] = {
                    "scheduled_date": resolve_date(text, today).isoformat(),
                    "workout_type": workout_type(text),
                    "notes": text.strip()[:200],
                }
                if minutes := duration_minutes(text):
                    args["duration_minutes"] = minutes
                return Action("schedule_workout", args)
            case "data":
                return Action("fetch_data", {"sources": requested_sources(text)})
            case "plan":
                return Action("create_workout_plan", parse_plan(text, today))
            case "milestone":
                return Action("manage_milestone", parse_milestone(text, today))
            case "timer":
                current = await self._current(session_id, convo)
                if current and current.get("exercises"):
                    exercise = identify_exercise(text, current["exercises"])
                    if exercise and exercise.get("id"):
                        return Action("generate_exercise_timer", {"exercise_id": exercise["id"]})
                    return Action("generate_workout_timers", {})
                return Action("generate_exercise_timer", {"exercise": timer_exercise(text)})
            case "location":
                name = parse_location(text)
                if not name:
                    return _ask("Which location are you at?")
                return Action("set_current_location", {"location_name": name})
            case "answer":
                return _notify(answer_question(text))
            case "clarify":
                return _ask(f"What would you like to do? {OFFLINE_HELP}", CLARIFY_OPTIONS)
        return _idle("nothing to do")

    async def _current(self, session_id: str, convo: Conversation) -> dict[str, Any] | None:
        current = await self.planner.current_workout(session_id) if session_id else None
        return current or workout_from_conversation(convo)

    async def _change_workout(
        self, intent: Intent, text: str, user_id: str, session_id: str, convo: Conversation
    ) -> Action:
        current = await self._current(session_id, convo)
        exercises = list((current or {}).get("exercises") or [])
        if not exercises:
            return _notify("There's no active workout to change yet - ask me for a workout first.")
        target_text = swap_target_text(text) if intent == "swap" else text
        exercise = identify_exercise(target_text, exercises) or (
            identify_exercise(text, exercises) if intent != "swap" else None
        )
        names = [
            str(e.get("exercise_name")) for e in sorted(exercises, key=lambda e: int(e.get("order") or 0))
        ]
        if exercise is None:
            verb = {"swap": "swap", "adjust": "change", "remove": "remove"}[intent]
            return _ask(f"Which exercise should I {verb}?", names[:8])
        exercise_id = str(exercise.get("id") or exercise.get("order"))
        if intent == "swap":
            new = await self.planner.compose_replacement(user_id, session_id, exercise, text)
            return Action(
                "swap_exercise", {"exercise_id": exercise_id, "new_exercise": new, "reason": text[:200]}
            )
        if intent == "remove":
            return Action("remove_exercise", {"exercise_id": exercise_id, "reason": text[:200]})
        changes = adjustments_for(text, exercise)
        if not changes:
            return _ask(
                f"How should I change {exercise.get('exercise_name')}?",
                ["Heavier", "Lighter", "More reps", "Fewer reps"],
            )
        return Action("adjust_exercise", {"exercise_id": exercise_id, "adjustments": changes})

    async def _log(self, text: str, session_id: str, convo: Conversation) -> Action:
        parsed = parse_logged_exercise(text)
        if parsed is not None:
            return Action("log_completed_exercise", parsed)
        current = await self._current(session_id, convo)
        if current and current.get("exercises"):
            completed: list[dict[str, Any]] = []
            for ex in sorted(current["exercises"], key=lambda e: int(e.get("order") or 0)):
                item: dict[str, Any] = {"exercise_id": ex.get("id"), "exercise_name": ex.get("exercise_name")}
                for key in ("sets", "reps", "duration_min", "distance", "distance_unit"):
                    if ex.get(key) is not None:
                        item[key] = ex[key]
                if ex.get("load_each"):
                    item["load"] = max(ex["load_each"])
                    item["load_unit"] = ex.get("load_unit")
                completed.append(item)
            return Action("log_workout", {"completed_exercises": completed})
        return _ask("What did you do? For example '3x10 bench press at 60kg' or 'ran 5 km in 28 minutes'.")

    def _stats(self, text: str) -> Action:
        lowered = text.lower()
        period = stats_period(text)
        if re.search(r"breakdown|distribution|by muscle|by category|split", lowered):
            kind = (
                "muscle" if "muscle" in lowered else "exercise_name" if "exercise" in lowered else "category"
            )
            return Action("get_exercise_breakdown", {"breakdown_type": kind, "time_period": period})
        if re.search(r"\btrends?\b|improv|getting stronger", lowered):
            metric = "volume" if "volume" in lowered else "frequency" if "often" in lowered else "weight"
            return Action("get_progress_trends", {"metric": metric, "time_period": period})
        if re.search(r"summary|overview|recap|report", lowered):
            return Action("generate_stats_summary", {"time_period": period})
        return Action("get_workout_statistics", {"time_period": period})

    def _response(self, request: ModelRequest, action: Action) -> ModelResponse:
        prompt = json.dumps(
            {"system": request.system, "tools": request.tools, "messages": request.messages},
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        )
        arguments = json.dumps(action.arguments, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(f"{len(request.messages)}:{action.name}:{arguments}".encode()).hexdigest()
        call = ToolCall(id=f"toolu_offline_{digest[:20]}", name=action.name, arguments=action.arguments)
        usage = Usage(input_tokens=max(1, len(prompt) // 4), output_tokens=max(1, (len(arguments) + 40) // 4))
        raw = {
            "id": f"msg_offline_{digest[20:40]}",
            "type": "message",
            "role": "assistant",
            "model": request.model,
            "content": [{"type": "tool_use", "id": call.id, "name": call.name, "input": action.arguments}],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
        return ModelResponse(
            tool_call=call, usage=usage, model=request.model, stop_reason="tool_use", raw=raw
        )
