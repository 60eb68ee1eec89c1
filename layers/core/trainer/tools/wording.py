"""How a tool's result is said to the user when it closes a turn.

Each result type says itself (`ToolResult.say`, beside `add_to_reply`), in words a user reads: no
ids, field names or internal labels, and only the result's own numbers. This module holds what those
words share: the context they are written in (`ReplyContext`: the user's message, today in their
time zone, their current location) and the formatting every family uses (numbers, durations, lists,
days, an exercise's prescription, what a change replaced). The closing reply (trainer.agents.closing)
calls each result's `say`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from decimal import Decimal
from typing import Any

from trainer.domain.stats_questions import StatsWindow, stats_window
from trainer.domain.workout_grouping import UTC_ZONE

DONE = "Done."
"""What a result with nothing of its own to say tells the user."""
TAG = re.compile(r"</?[a-z_]+(?:\s[^>]*)?>", re.IGNORECASE)
IDS = re.compile(
    r"\s*[\[(](?:id[:=]\s*)[^\])]*[\])]|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|\b(?:ex|art|toolu|msg|workout|pref|plan)_[0-9a-z]+\b",
    re.IGNORECASE,
)


@dataclass
class ReplyContext:
    """What a reply needs besides the results: the user's words and where they are in time."""

    text: str = ""
    today: date | None = None
    zone: tzinfo = UTC_ZONE
    window: StatsWindow | None = None
    location: str | None = None

    @classmethod
    def for_user(cls, text: str, now: datetime, zone: tzinfo, location: str | None) -> ReplyContext:
        """The context of a user's message: today in their time zone, and the stats window it names."""
        today = now.astimezone(zone).date()
        return cls(text=text, today=today, zone=zone, window=stats_window(text, today), location=location)


# --- formatting the words share ----------------------------------------------------------------------


def number_text(value: float | int | Decimal | None, places: int = 1) -> str:
    """'60', '62.5', '0.3': rounded, without trailing zeros."""
    if value is None:
        return "-"
    text = f"{float(value):.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def plain_text(text: str, limit: int = 1200) -> str:
    """Text without XML tags and ids, shortened to `limit` characters."""
    text = IDS.sub("", TAG.sub("", text)).strip()
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def seconds_text(seconds: float) -> str:
    """'45 s', '2 min', '1 min 30 s'."""
    minutes, secs = divmod(round(seconds), 60)
    if not minutes:
        return f"{secs} s"
    return f"{minutes} min {secs} s" if secs else f"{minutes} min"


def joined(items: Sequence[str], word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' (empty items left out)."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def count_words(count: int, one: str, many: str) -> str:
    """'1 set', '3 sets'."""
    return f"{count} {one if count == 1 else many}"


def series(values: Sequence[Any]) -> str:
    """'20, 22.5, 25'."""
    return ", ".join(number_text(v) if isinstance(v, float) else str(v) for v in values)


def prescription(ex: Mapping[str, Any]) -> str:
    """An exercise's sets in words: '3 x 10 at 20 kg', '3 sets: 20, 22.5, 25 kg x 10', '3 x 45 s holds',
    '20 min, 5 km', '8 rounds of 20 s on / 10 s off'."""
    kind = ex.get("exercise_type")
    reps = list(ex.get("reps") or [])
    loads = [float(v) for v in ex.get("load_each") or []]
    holds = list(ex.get("hold_sec") or [])
    sets = ex.get("sets") or len(reps) or len(holds) or 1
    unit = ex.get("load_unit") or ""
    if kind == "reps":
        rep_text = str(reps[0]) if reps and len(set(reps)) == 1 else series(reps)
        if len(set(loads)) > 1:
            return f"{sets} sets: {series(loads)} {unit} x {rep_text}".replace("  ", " ")
        load = f" at {number_text(loads[0])} {unit}".rstrip() if loads and loads[0] else ""
        if len(set(reps)) > 1:
            return f"{sets} sets of {rep_text} reps{load}"
        return f"{sets} x {rep_text}{load}"
    if kind == "hold":
        hold = f"{holds[0]} s" if holds and len(set(holds)) == 1 else f"{series(holds)} s"
        return f"{sets} x {hold} holds"
    if kind == "intervals":
        return f"{ex.get('rounds')} rounds of {ex.get('work_sec')} s on / {ex.get('rest_sec')} s off"
    parts = []
    if ex.get("distance"):
        parts.append(f"{number_text(ex['distance'], 2)} {ex.get('distance_unit') or ''}".rstrip())
    if ex.get("duration_min"):
        parts.append(f"{number_text(ex['duration_min'])} min")
    return " in ".join(parts) if len(parts) == 2 else "".join(parts)


def day_text(day: date, today: date | None) -> str:
    """'today', 'tomorrow (Tuesday 24 Nov)', 'yesterday', 'Thursday 26 Nov'."""
    named = f"{day:%A} {day.day} {day:%b}"
    if today is None:
        return named
    offset = (day - today).days
    if offset == 0:
        return f"today ({named})"
    if offset == 1:
        return f"tomorrow ({named})"
    if offset == -1:
        return f"yesterday ({named})"
    return named


def day_phrase(day: date, today: date | None) -> str:
    """'today', 'yesterday', 'on Friday 20 Nov'."""
    if today is not None and (today - day).days in (0, 1):
        return "today" if day == today else "yesterday"
    return f"on {day:%A} {day.day} {day:%b}"


def what_it_was(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """What an exercise's prescription was, naming only what changed ('was 20', 'was 90 s rest')."""
    parts: list[str] = []
    if before.get("load_each") != after.get("load_each") and before.get("load_each"):
        old = [float(v) for v in before["load_each"]]
        shown = number_text(old[0]) if len(set(old)) == 1 else series(old)
        unit = before.get("load_unit")
        parts.append(shown if unit == after.get("load_unit") else f"{shown} {unit}")
    elif before.get("load_each") != after.get("load_each"):
        parts.append("no load")
    if before.get("reps") != after.get("reps") or before.get("sets") != after.get("sets"):
        if before.get("exercise_type") == "reps":
            reps = list(before.get("reps") or [])
            shown = str(reps[0]) if reps and len(set(reps)) == 1 else series(reps)
            parts.append(f"{before.get('sets')} x {shown}")
        elif before.get("sets") != after.get("sets"):
            parts.append(f"{before.get('sets')} sets")
    if before.get("hold_sec") != after.get("hold_sec") and before.get("hold_sec"):
        parts.append(f"{series(before['hold_sec'])} s holds")
    if before.get("rest_sec") != after.get("rest_sec") and before.get("rest_sec") is not None:
        parts.append(f"{seconds_text(before['rest_sec'])} rest")
    for key, label in (("duration_min", "min"), ("distance", before.get("distance_unit") or "")):
        if before.get(key) != after.get(key) and before.get(key):
            parts.append(f"{number_text(before[key])} {label}".rstrip())
    if before.get("exercise_name") != after.get("exercise_name"):
        parts.append(str(before.get("exercise_name")))
    return f"was {', '.join(parts)}" if parts else ""
