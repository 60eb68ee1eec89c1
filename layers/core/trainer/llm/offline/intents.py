"""Which actions a user message asks for (deterministic rules for the offline policy)."""

from __future__ import annotations

import re
from typing import Literal


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


UNDO = rx(
    r"\b(undo|take that back|that was wrong|delete (that|the last) (log|entry)|remove (that|the last) log)\b"
)
LOG = rx(
    r"\b(i did|i've done|i have done|i finished|i completed|i just did|just did|just finished|"
    r"i ran|i swam|i cycled|i rode|i walked|i held|log(ged)?\b|record(ed)?|done with)\b|"
    r"^(ran|held|did|cycled|swam|walked|rode|rowed|finished|completed)\b|\b\d{1,2}\s*x\s*\d{1,3}\b"
)
SWAP = rx(r"\b(swap|replace|substitute|switch out|instead of|change (the )?\w+ (for|to|with))\b")
REMOVE = rx(r"\b(remove|drop|skip|take out|cut|delete|get rid of)\b")
ADJUST = rx(
    r"\b(heavier|lighter|more weight|less weight|more reps|fewer reps|less reps|more sets|fewer sets|"
    r"less sets|more rest|less rest|shorter rest|longer rest|longer hold|shorter hold)\b"
)
TIMER = rx(r"\b(timers?|intervals?|countdown|tabata|emom|stopwatch)\b")
PLAN = rx(r"\b(\d+|one|two|three|four|five|six|eight|twelve)[- ]?(week|wk|month)s?\b.*"
           r"\b(plan|program(me)?)\b|"
           r"\b(plan|program(me)?)\b.*\b(\d+)[- ]?weeks?\b|\bworkout plan\b|\btraining plan\b")  # fmt: skip
MILESTONE = rx(
    r"\b(milestone|5k|10k|half marathon|marathon|run an? \d+\s?(k|km|mi|miles?)|"
    r"(bench|squat|deadlift|press)\w* \d+\s?(kg|lbs?)\b.*\bby\b|"
    r"\bby (january|february|march|april|may|june|july|"
    r"august|september|october|november|december|the end of|next (month|year)))"
)
SCHEDULE = rx(r"\b(schedule|book|calendar|remind me|put (it|a workout|one) on)\b")
STATS = rx(
    r"\b(stats|statistics|progress|how many|how much|how often|summary|overview|recap|report|breakdown|"
    r"distribution|trends?|history)\b"
)
LOCATION = rx(
    r"\b(?:i'?m|i am|currently|we'?re)\s+(?:at|in)\s+(?:the\s+|my\s+|a\s+)?(?P<a>[a-z0-9' -]{2,40}?)"
    r"(?=\s+(?:today|now|right now|and|so|this)\b|[.,!?;]|$)|"
    r"\bswitch(?:ing)?\s+(?:my\s+)?(?:location\s+)?to\s+(?:the\s+|my\s+)?"
    r"(?P<b>[a-z0-9' -]{2,40}?)(?=[.,!?;]|$)"
)
INJURY = rx(
    r"\b(injur(y|ed)|hurts?|hurting|pain(ful)?|sore|strain(ed)?|tweak(ed)?|sprain(ed)?|bother(ing|s)?|"
    r"tendonitis)\b"
)
PREFERENCE = rx(
    r"\b(hate|don'?t like|do not like|dislike|can'?t stand|avoid|prefer|no more|never give me|"
    r"i don'?t have|only have|take it easy|go easy|no equipment)\b"
)
GOALS = rx(r"\b(goals?|prioriti[sz]e|focus (more )?on|emphasi[sz]e)\b|\d\s*%|\bpercent\b")
WORKOUT = rx(
    r"\b(workouts?|routine|session|exercises|leg day|arm day|upper body|lower body|full body|hiit|"
    r"circuit|wod|training)\b"
)
WORKOUT_VERB = rx(
    r"\b(give|show|generate|create|make|build|suggest|recommend|design|want|need|let'?s|can you|could you|"
    r"what should i do|new|another|quick|plan)\b"
)
QUESTION = rx(r"\?\s*$|^(how|what|why|when|should|can|could|is|are|do|does|which|where)\b")

DATA_REQUEST = rx(
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
