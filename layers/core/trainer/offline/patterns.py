"""The words the offline coach reads a message by: what it asks to be done (the action patterns) and
what it is about (the topic patterns, which decide the data the chat agent needs). The intent table
(trainer.offline.intents) puts them together; nothing here decides anything."""

from __future__ import annotations

import re

from trainer.domain.exercise_search import exercise_question


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


SWAP = rx(r"\b(swap|replace|substitute|switch out|instead of|change (the )?\w+ (for|to|with))\b")
THANKS = rx(r"^\W*(thanks|thank you|thx|cheers|great|awesome|perfect|nice|cool|ok|okay)\b[\w\s!.,]{0,20}$")
TIMER = rx(r"\b(timers?|intervals?|countdown|tabata|emom|stopwatch)\b")
WEEK_REF = rx(r"\b(next|this|the coming|coming) week\b")
LOCATION = rx(
    r"\b(?:i'?m|i am|currently|we'?re)\s+(?:back\s+)?(?:at|in)\s+(?:the\s+|my\s+|a\s+)?"
    r"(?P<a>[a-z0-9' -]{2,40}?)"
    r"(?=\s+(?:today|now|right now|and|so|this)\b|[.,!?;]|$)|"
    r"\b(?:go(?:ing)?|mov(?:e|ing)|head(?:ing)?)\s+back\s+to\s+(?:the\s+|my\s+)?"
    r"(?P<c>[a-z0-9' -]{0,30}(?:gym|home|studio|garage|room|club))\b|"
    r"\bswitch(?:ing)?\s+(?:back\s+)?(?:my\s+)?(?:location\s+)?(?:back\s+)?to\s+(?:the\s+|my\s+)?"
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
FOCUS = rx(
    r"\b(cardio|conditioning|legs?|upper body|lower body|full body|core|abs|arms|chest|back|shoulders|glutes|"
    r"mobility|stretching|yoga|hiit|run|push|pull)\b"
)
WORKOUT_VERB = rx(
    r"\b(give|show|generate|create|make|build|suggest|recommend|design|want|need|let'?s|can you|could you|"
    r"what should i do|new|another|quick|plan|get|can i|could i|i'?d like|please|time for|ready for)\b"
)
DURATION = rx(r"\b\d{1,3}\s*-?\s*(min|mins|minutes)\b|\bhalf an hour\b|\ban hour\b")
QUESTION = rx(r"\?\s*$|^(how|what|why|when|should|can|could|is|are|do|does|which|where)\b")

DATA_SOURCES_BY_WORD: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\bgoals?\b", ("category_goals", "muscle_goals")),
    (r"\bpreferences?\b", ("active_preferences",)),
    (r"\bplans?\b", ("workout_plans",)),
    (r"\bmilestones?\b", ("milestone_goals",)),
    (r"\b(locations?|gyms?|equipment)\b", ("all_locations",)),
    (r"\b(settings|units)\b", ("user_settings",)),
    (r"\b(profile|body stats)\b", ("user_profile",)),
)


def requested_sources(text: str) -> list[str]:
    """The data sources a 'show me my ...' request names, in a stable order."""
    sources: list[str] = []
    for pattern, names in DATA_SOURCES_BY_WORD:
        if re.search(pattern, text, re.IGNORECASE):
            sources.extend(n for n in names if n not in sources)
    return sources


def asked_exercise(text: str) -> tuple[str, str] | None:
    """('how' | 'alternatives', the exercise as written) when a message asks about a catalog exercise."""
    return exercise_question(re.sub(r"\bwhich\b", "what", text, flags=re.IGNORECASE))


def wants_workout(text: str) -> bool:
    """A request for a workout: 'give me a workout', 'Can I get an upper body workout?', '30 minutes of
    cardio please', '45 minute upper body session'."""
    if WORKOUT.search(text) and WORKOUT_VERB.search(text):
        return True
    if re.search(r"\bwhat should i (do|train)( today| now)?\W*$", text, re.I):
        return True
    return bool(FOCUS.search(text) and (DURATION.search(text) or re.search(r"\bplease\b", text, re.I)))


# --- what a message is about: the data the chat agent needs for it ---------------------------------
# Wider than the action patterns on purpose: the initializer loads data for every topic a message
# touches (a model decides what to do with it), the coach acts on one reading of the message.

ABOUT_WORKOUT = rx(
    r"\b(workouts?|routine|session|exercises?|train(ing)?|lift(ing)?|leg day|arm day|upper body|lower body|"
    r"full body|hiit|cardio|circuit|wod|sweat|pump)\b"
)
ABOUT_WORKOUT_VERB = rx(
    r"\b(give|generate|create|make|build|suggest|recommend|design|want|need|let'?s|can you)\b"
)
ABOUT_GOALS = rx(r"\b(goals?|prioriti[sz]e|focus (more )?on|emphasi[sz]e)\b|%|\bpercent\b")
ABOUT_STATS = rx(
    r"\b(stats?|statistics|progress|how many|how much|history|trends?|summary|breakdown|volume|"
    r"personal (best|record)|prs?|overview|report)\b"
)
ABOUT_SCHEDULE = rx(
    r"\b(schedule|calendar|book|tomorrow|next week|upcoming|planned|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)\b"
)
ABOUT_PLAN = rx(r"\b(plan|program(me)?|\d+[- ]week)\b")
ABOUT_MILESTONE = rx(
    r"\b(milestone|5k|10k|half marathon|marathon|by (january|february|march|april|may|june|"
    r"july|august|september|october|november|december|summer|spring|winter|fall))\b"
)
ABOUT_PREFERENCE = rx(r"\b(prefer(ence)?s?|hate|don'?t like|dislike|avoid|love|never|no more|skip|rather)\b")
ABOUT_INJURY = rx(r"\b(injur(y|ed|ies)|hurts?|pain(ful)?|sore(ness)?|strain(ed)?|tweak(ed)?|recover(y|ing)?|"
                  r"bother(ing|s)?|sprain(ed)?)\b")  # fmt: skip
ABOUT_LOCATION = rx(r"\b(locations?|gyms?|at home|equipment|park|hotel|switch to)\b")
ABOUT_LOGGING = rx(
    r"\b(i did|i've done|i have done|i finished|i completed|just did|just finished|log(ged)?|done with)\b"
)
ABOUT_CHANGE = rx(
    r"\b(swap|replace|instead of|substitute|remove|heavier|lighter|more reps|fewer reps|less reps)\b"
)

PERIOD_DAYS: tuple[tuple[re.Pattern[str], int], ...] = (
    (rx(r"\b(all[- ]time|ever|lifetime)\b"), 3650),
    (rx(r"\b(year|annual|12 months)\b"), 365),
    (rx(r"\b(quarter|3 months|three months)\b"), 90),
    (rx(r"\bmonth\b"), 30),
    (rx(r"\b(week|7 days)\b"), 7),
)
LAST_N_DAYS = rx(r"\b(?:last|past)\s+(\d{1,4})\s+days?\b")
LAST_N_WEEKS = rx(r"\b(?:last|past)\s+(\d{1,3})\s+weeks?\b")
AHEAD_PERIODS: tuple[tuple[re.Pattern[str], int], ...] = (
    (rx(r"\bnext month\b|\bthis month\b"), 30),
    (rx(r"\bnext week\b|\bnext \d+ days\b"), 14),
)
STATS_DAYS_DEFAULT = 30
SCHEDULE_DAYS_DEFAULT = 7


def stats_days_back(message: str) -> int:
    """Days of history a statistics request needs: week=7, month=30, quarter=90, year=365."""
    if m := LAST_N_DAYS.search(message):
        return max(1, int(m.group(1)))
    if m := LAST_N_WEEKS.search(message):
        return max(1, int(m.group(1))) * 7
    for pattern, days in PERIOD_DAYS:
        if pattern.search(message):
            return days
    return STATS_DAYS_DEFAULT


def schedule_days_ahead(message: str) -> int:
    for pattern, days in AHEAD_PERIODS:
        if pattern.search(message):
            return days
    return SCHEDULE_DAYS_DEFAULT


# --- the one calendar: available days, missed, skipped and swapped sessions

SESSION_DAY = r"(today'?s?|tomorrow'?s?|(mon|tues|wednes|thurs|fri|satur|sun)day'?s?)"
AVAILABLE_DAYS = rx(
    r"\b(from now on|going forward|from here on|available days|days i can (train|work ?out)|"
    r"can only (train|work ?out|make it|do)|(train|work ?out) only on|only (train|work ?out) on|"
    r"my (training|workout) days (are|will be)|change my (training|workout) days|"
    r"only have (time )?on)\b"
)
MISSED = rx(
    r"\b(missed|didn'?t (make it|get to|do|train)|couldn'?t (make it|train|get to))\b[^.?!]*"
    r"\b(workouts?|sessions?|training|week'?s?|days?|plan)\b|"
    r"\bwhy (did|has) my (plan|schedule|calendar) change"
)
SKIP_SESSION = rx(
    rf"\bskip\b[^.?!]*\b({SESSION_DAY}|(workout|session|training|run)s?\b)|"
    rf"\bcan'?t make\b[^.?!]*\b{SESSION_DAY}\b"
)
SWAP_SESSIONS = rx(r"\b(swap|switch|trade|exchange)\b")
SESSION_REF = rx(rf"\b{SESSION_DAY}")
NEXT_SESSIONS = rx(r"\bnext two\b|\bthe (one|session|workout) after\b|\bthe next one\b")
