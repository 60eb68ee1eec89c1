"""What a question about the user's training asks: the period it names (`stats_window`: 'this week',
'the last 45 days', 'ever'), and the kind of answer it wants (`stats_kind`: a count, a streak, a
record, a trend...). Read from the user's words by the replies the code writes for the statistics
tools, and by the offline coach when it picks their arguments."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from trainer.domain.message_words import number

TimePeriod = Literal["week", "month", "quarter", "year", "all_time"]
"""The rolling periods the statistics tools take."""


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@dataclass(frozen=True)
class StatsWindow:
    """The period a statistics question asks about: a rolling period, or calendar days (start and end
    inclusive, the user's local dates) and how to say it."""

    period: TimePeriod
    start: date | None = None
    end: date | None = None
    label: str = "in the last 30 days"
    days_back: int | None = None
    """The last N days exactly as GET /exercises/history?days_back=N reads them."""


ROLLING: dict[tuple[int, str], tuple[TimePeriod, str]] = {
    (7, "day"): ("week", "in the last 7 days"), (1, "week"): ("week", "in the last 7 days"),
    (30, "day"): ("month", "in the last 30 days"), (1, "month"): ("month", "in the last 30 days"),
    (90, "day"): ("quarter", "in the last 90 days"), (3, "month"): ("quarter", "in the last 3 months"),
    (365, "day"): ("year", "in the last year"), (12, "month"): ("year", "in the last year"),
    (1, "year"): ("year", "in the last year"),
}  # fmt: skip


def stats_window(text: str, today: date) -> StatsWindow:
    """'yesterday', 'today', 'this week/month/year' (calendar, in the user's time zone), 'last week' and
    'last calendar month' (the previous calendar one), 'the last N days' and 'last month' (the last N / 30
    days exactly as the history route reads them), 'ever'; default the last 30 days."""
    lowered = text.lower()
    monday = today - timedelta(days=today.weekday())
    if re.search(r"\byesterday\b", lowered):
        day = today - timedelta(days=1)
        return StatsWindow("week", day, day, "yesterday")
    if re.search(r"\btoday\b", lowered):
        return StatsWindow("week", today, today, "today")
    if m := re.search(
        r"\b(?:last|past|previous)\s+(\d+|two|three|four|six|seven|ten|twelve)\s+(day|week|month|year)s?\b",
        lowered,
    ):
        n, unit = number(m.group(1)) or 1, m.group(2)
        days = n * {"day": 1, "week": 7, "month": 30, "year": 365}[unit]
        if (n, unit) in ROLLING:
            period, label = ROLLING[(n, unit)]
            return StatsWindow(period, label=label, days_back=days)
        return StatsWindow("year", label=f"in the last {n} {unit}s", days_back=days)
    if re.search(r"\b(?:last|past|previous|over the last|in the last)\s+month\b", lowered) and not re.search(
        r"\bcalendar month\b", lowered
    ):
        return StatsWindow("month", label="in the last 30 days", days_back=30)
    if re.search(r"\b(?:the last|the past|past) (?:week|7 days|seven days)\b", lowered):
        return StatsWindow("week", label="in the last 7 days")
    if re.search(r"\bthis week\b", lowered):
        return StatsWindow("week", monday, None, "this week")
    if re.search(r"\blast week\b", lowered):
        return StatsWindow("week", monday - timedelta(days=7), monday - timedelta(days=1), "last week")
    if re.search(r"\bthis month\b", lowered):
        return StatsWindow("month", today.replace(day=1), None, "this month")
    if re.search(r"\b(last|previous) calendar month\b", lowered):
        end = today.replace(day=1) - timedelta(days=1)
        return StatsWindow("month", end.replace(day=1), end, f"in {end:%B}")
    if re.search(r"\bthis year\b", lowered):
        return StatsWindow("year", date(today.year, 1, 1), None, "this year")
    if re.search(r"\blast year\b", lowered):
        return StatsWindow("year", date(today.year - 1, 1, 1), date(today.year - 1, 12, 31), "last year")
    if re.search(r"all[- ]time|\bever\b|lifetime|so far|in total", lowered):
        return StatsWindow("all_time", label="so far")
    if re.search(r"quarter|3 months|three months", lowered):
        return StatsWindow("quarter", label="in the last 3 months")
    if re.search(r"\bweek", lowered):
        return StatsWindow("week", label="in the last 7 days")
    if re.search(r"\byear|annual", lowered):
        return StatsWindow("year", label="in the last year")
    return StatsWindow("month", label="in the last 30 days")


STATS_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("streak", _rx(r"\b(streak|in a row|consecutive)\b")),
    (
        "adherence",
        _rx(
            r"\b(stick(ing|ed)? (to|with)|adherence|consistent|consistency|kept up|keeping up|followed|"
            r"missed|miss)\b"
        ),
    ),
    ("trend", _rx(r"\b(trending|going (up|down)|e?1\s?rm|one[- ]rep max)\b")),
    ("summary", _rx(r"\b(summary|summari[sz]e|overview|recap|report)\b")),
    (
        "record",
        _rx(
            r"\b(heaviest|personal (best|record)s?|prs?|max(imum)?|most i'?ve (lifted|benched|squatted)|"
            r"my best|best (lift|squat|bench|deadlift|press))\b"
        ),
    ),
    ("trend", _rx(r"\b(stronger|trends?|getting better|progress(ing)? on|improv\w* (on|at) )\b")),
    (
        "progress",
        _rx(
            r"\b(progress(ing|ed)?|moved|moving|improv\w*|come along|coming along|gains|"
            r"(went|gone) up|increased)\b"
        ),
    ),
    ("top_muscle", _rx(r"\bmuscles?\b.*\b(most|least)\b|\b(most|least)\b.*\bmuscles?\b")),
    ("distance", _rx(r"\b(how far|distance|how many (km|kilomet\w+|miles))\b")),
    ("breakdown", _rx(r"\b(breakdown|distribution|split|by muscle|by category)\b")),
)


def stats_kind(text: str) -> str:
    """What a statistics question asks: streak, adherence, trend, summary, record, progress, top_muscle,
    distance, breakdown or count."""
    return next((kind for kind, pattern in STATS_KINDS if pattern.search(text)), "count")
