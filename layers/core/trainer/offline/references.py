"""Which thing a message means, for the offline coach: an exercise of the workout (by id, position,
'this one' or name), the part of a swap naming the one to replace, an exercise to add and where, a
saved location, a scheduled session."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from trainer.domain.message_words import NUMBER_WORDS, STOPWORDS, best_name, number, stem, words
from trainer.offline.patterns import LOCATION
from trainer.offline.vocabulary import ORDINALS, WEEKDAYS
from trainer.tools.calendar import ScheduledWorkout

EX_ID = re.compile(r"\bex_[A-Za-z0-9]+\b")

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
    spelled = "|".join(w for w, value in NUMBER_WORDS.items() if w not in ("a", "an") and value <= 12)
    if m := re.search(rf"(?:#|\bexercise |\bnumber |\bno\.? ?)(\d{{1,2}}|{spelled})\b", text.lower()):
        position = number(m.group(1)) or 0
        return position if 1 <= position <= count else None
    return None


def name_overlap(text: str, name: str) -> int:
    said = {stem(w) for w in words(text)} - STOPWORDS
    return len(({stem(w) for w in words(name)} - STOPWORDS) & said)


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


def parse_location(text: str) -> str | None:
    if m := LOCATION.search(text):
        name = (m.group("a") or m.group("b") or m.group("c") or "").strip()
        return name or None
    return None


def named_location(text: str, names: Sequence[str]) -> str | None:
    """The saved location a message names ('in my hotel room' -> 'Hotel Room')."""
    lowered = f" {' '.join(words(text))} "
    return next((n for n in names if f" {' '.join(words(n))} " in lowered), None)


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
