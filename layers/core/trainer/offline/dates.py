"""The days and times a message names, for the offline coach: a date ('tomorrow', 'next Friday', 'in 3
days'), a time of day, a deadline ('by March'), how long a preference lasts, a new day for a scheduled
session, the day a question about the plan means, the weekdays a message lists."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import cast

from trainer.domain.message_words import number
from trainer.offline.vocabulary import MONTHS, WEEKDAYS
from trainer.programs.tools import (
    Weekday,
)


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
        n = number(m.group(1))
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
        n = number(m.group(1))
        if n:
            return today + timedelta(days=n * (7 if m.group(2) == "week" else 30))
    if m := re.search(r"\bby (?:the )?(?:end of )?(" + "|".join(MONTHS) + r")\b(?:\s+(\d{4}))?", lowered):
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
    """(expires_at ISO, delete_after_use) of a preference a message states: 'for 3 days', 'for a week',
    'this week' expire then; 'today', 'this workout', 'for now' hold for the next workout only
    (delete_after_use); anything else is permanent (neither)."""
    lowered = text.lower()
    if m := re.search(r"\bfor (?:the next |a |another )?(\w+)? ?(day|week|month)s?\b", lowered):
        n = number(m.group(1)) if m.group(1) else 1
        if n:
            days = {"day": 1, "week": 7, "month": 30}[m.group(2)] * n
            return (now + timedelta(days=days)).isoformat(), False
    if re.search(r"\bthis week\b", lowered):
        return (now + timedelta(days=7)).isoformat(), False
    if re.search(r"\b(today|this workout|this session|right now|for now|tonight|here)\b", lowered):
        return None, True
    return None, False


def named_weekdays(text: str) -> list[Weekday]:
    lowered = text.lower()
    found = [d for d in WEEKDAYS if re.search(rf"\b{d}s?\b", lowered)]
    return [cast(Weekday, d.title()) for d in found]


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


def reschedule_date(text: str, current: date, today: date) -> date | None:
    """The new day for a scheduled workout: 'back a day', 'forward two days', 'to Friday', 'to tomorrow'."""
    lowered = text.lower()
    count = r"(\d+|a|an|one|two|three|four|five|six|seven)"
    amount = re.search(rf"\bby\s+{count}\s+(day|week)s?\b|\b{count}\s+(day|week)s?\b", lowered)
    days = 1
    if amount:
        n = number(amount.group(1) or amount.group(3)) or 1
        days = n * (7 if (amount.group(2) or amount.group(4)) == "week" else 1)
    if re.search(r"\b(back|later|postpone|delay)\b", lowered):
        return current + timedelta(days=days)
    if re.search(r"\b(forward|earlier|sooner)\b", lowered):
        return current - timedelta(days=days)
    if m := re.search(r"\bto\s+(?:next\s+)?(today|tomorrow|" + "|".join(WEEKDAYS) + r")\b", lowered):
        return resolve_date(m.group(1), today)
    return None


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
