"""The offline coach's questions about the phone's health data, each answered by health_summary with its
numbers computed in code:

  "Why is today lighter?"                          -> today (the readiness, its source, what it changed)
  "How did I sleep this week?"                     -> sleep, the last 7 days
  "How's my HRV trending?" / "my resting heart rate this month" -> trends
  "What did I do in my other apps this week?"      -> other apps' workouts
"""

from __future__ import annotations

import re

from trainer.offline.patterns import stats_days_back
from trainer.offline.turn import Step, Turn
from trainer.tools.base import ToolInvocation
from trainer.tools.health import HealthSummary, HealthSummaryArgs, Topic


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


WHY_TODAY = rx(
    r"\bwhy\b.*\b(today|today'?s|this morning'?s|my workout|the workout|my session|it)\b.*"
    r"\b(lighter|easier|lower|reduced|shorter|changed|different|cut|less|recovery)\b|"
    r"\bwhy\b.*\b(lighter|easier|reduced|cut|changed)\b.*\btoday\b|"
    r"\bwhat (changed|happened) (to|with) (today|today'?s workout|my workout)\b"
)
SLEEP_QUESTION = rx(
    r"\bhow (did|have|'?ve) i (been )?slep[ta]\b|\bhow('?s| is| was| has) my sleep\b|"
    r"\bmy sleep (this|last|over|in)\b|\bsleep (this|last) (week|month|night)\b"
)
TRENDS = rx(r"\b(hrv|heart[- ]rate variability|resting heart[- ]?rate|resting hr|rhr)\b")
_APPS = r"(other apps?|strava|garmin|my watch|apple watch|fitbit|health connect|healthkit)"
OTHER_APPS = rx(
    rf"\b{_APPS}\b.*\b(workouts?|runs?|rides?|activit(y|ies)|sessions?|training)\b|"
    rf"\b(workouts?|runs?|rides?|activit(y|ies))\b.*\b{_APPS}\b"
)
HEALTH_NEED = "sleep, HRV, resting heart rate and other apps' workouts against the baseline"
"""Why the chat agent reads the health_data source for these questions."""
TRENDS_DAYS_DEFAULT = 28
"""A trend question without a period reads four weeks against the baseline."""


def health_topic(text: str) -> Topic | None:
    """What a message asks about the health data, if it does."""
    if WHY_TODAY.search(text):
        return "today"
    if SLEEP_QUESTION.search(text):
        return "sleep"
    if TRENDS.search(text):
        return "trends"
    if OTHER_APPS.search(text):
        return "workouts"
    return None


def asks_health(text: str) -> bool:
    return health_topic(text) is not None


def topic_days(text: str, topic: Topic) -> int:
    """The days a question covers: the period it names, else a week (four for a trend)."""
    if topic == "today":
        return 1
    if re.search(r"\blast night\b", text, re.I):
        return 1
    named = stats_days_back(text)
    default = TRENDS_DAYS_DEFAULT if topic == "trends" else 7
    return min(90, named if _names_period(text) else default)


def days_asked(text: str) -> int:
    """The days the health_data source reads for a question about the health data."""
    return topic_days(text, health_topic(text) or "today")


def _names_period(text: str) -> bool:
    return bool(re.search(r"\b(week|month|days?|weeks|quarter|year|fortnight)\b", text, re.I))


async def answer_health(turn: Turn, step: Step) -> ToolInvocation:
    topic = health_topic(turn.text) or "today"
    return HealthSummary().call(HealthSummaryArgs(topic=topic, days=topic_days(turn.text, topic)))


__all__ = ["HEALTH_NEED", "answer_health", "asks_health", "days_asked", "health_topic", "topic_days"]
