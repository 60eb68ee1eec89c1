"""The words the offline coach reads a message by: what it asks to be done (the action patterns) and
what it is about (the topic patterns, which decide the data the chat agent needs). The intent table
(trainer.offline.intents) puts them together; nothing here decides anything."""

from __future__ import annotations

import re

from trainer.domain.exercise_search import exercise_question


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


UNDO = rx(
    r"\b(undo|take that back|that was wrong|delete (that|the last|my last) (log|entry|logged)|"
    r"remove (that|the last|my last) (log|entry|logged))\b"
)
CORRECT = rx(
    r"\b(fix|correct|correction|wrong|typo|meant)\b|"
    r"\b(it|that|this|those|these|they|the \w+ set) (was|were)\b|"
    r"\bshould (have been|be)\b|\bnot \d|\bactually\W+(\w+\s+){0,3}\d"
)
FIX_LOGGED = rx(
    r"\b(fix|correct)\b.*\b(sets?|reps?|log|logged|entry|last|this morning'?s?|yesterday'?s?|earlier)\b"
)
LOG = rx(
    r"\b(i did|i've done|i have done|i finished|i completed|i just did|just did|just finished|"
    r"i ran|i swam|i cycled|i rode|i walked|i held|log(ged)?\b|record(ed)?|done with)\b|"
    r"^(ran|held|did|cycled|swam|walked|rode|rowed|finished|completed)\b|\b\d{1,2}\s*x\s*\d{1,3}\b|"
    r"\b(exercise|one|lift|sets?) (is |are )?(done|finished|complete)\b|"
    r"\b(done|finished|completed?) (exactly |all )?as (prescribed|planned|written|programmed)\b"
)
SWAP = rx(r"\b(swap|replace|substitute|switch out|instead of|change (the )?\w+ (for|to|with))\b")
REMOVE = rx(r"\b(remove|drop|skip|take out|cut|delete|get rid of)\b")
ADJUST = rx(
    r"\b(heavier|lighter|more weight|less weight|more reps|fewer reps|less reps|more sets|fewer sets|"
    r"less sets|more rest|less rest|shorter rest|longer rest|longer hold|shorter hold)\b|"
    r"\b(\d+|one|two|three|four|five|a|an)\s*-?\s*(min|mins|minutes?|sec|secs|seconds?|s)\s+(of\s+)?"
    r"(rest|break)\b|"
    r"\brest\s+(of\s+|for\s+|to\s+)?\d+\s*(min|mins|minutes?|sec|secs|seconds?|s)\b|"
    r"\b(set|change|put|make)\b.*\b(to|at)\b.*\d+(\.\d+)?\s*(kg|kgs|kilos?|lbs?|pounds?)\b|"
    r"\b(add|one|another)\s+(\w+\s+)?(more\s+)?(reps?|sets?)\b|"
    r"\b(add|take off|remove)\s+\d+(\.\d+)?\s*(kg|kgs|kilos?|lbs?|pounds?)\b"
)
THANKS = rx(r"^\W*(thanks|thank you|thx|cheers|great|awesome|perfect|nice|cool|ok|okay)\b[\w\s!.,]{0,20}$")
ADD = rx(r"\badd\b")
TIMER = rx(r"\b(timers?|intervals?|countdown|tabata|emom|stopwatch)\b")
PLAN = rx(r"\b(\d+|one|two|three|four|five|six|eight|twelve)[- ]?(week|wk|month)s?\b.*"
           r"\b(plan|program(me)?)\b|"
           r"\b(plan|program(me)?)\b.*\b(\d+)[- ]?weeks?\b|\bworkout plan\b|\btraining plan\b")  # fmt: skip
PLAN_REQUEST = rx(r"\b(make|build|create|design|write|generate|give|get|want|need|new|start)\b")
CALENDAR_PLAN = rx(r"\b(calendar|schedule|labels?)\b")
"""A plan asked for as calendar entries (create_workout_plan), not as a training program."""
DAY_NAMES = r"(?:today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
SHOW_PLAN = rx(
    r"\b(show|see|view|what'?s|what is|whats|tell me about|how'?s|how is|where'?s|where is|read|is|check)\b"
    r"[^.?!]*\b(my|the)\s+(training\s+|workout\s+|new\s+|current\s+|\d+[- ]week\s+)?"
    rf"(plan|program(me)?)\b(?!\s+for\s+{DAY_NAMES})"
)
PLANNED_WORKOUT = rx(
    r"\b(what'?s|what is|whats|show|tell|read|send|remind|what do i have|what am i doing|what have i got)\b"
    r"[^.?!]*\b(my|the|planned)\b[^.?!]*\b(workout|session|training)\b[^.?!]*"
    rf"\b({DAY_NAMES}|planned|this (morning|evening))\b|"
    rf"\b(what'?s|what is|whats|show|tell|read|send|remind)\b[^.?!]*\b{DAY_NAMES}'?s\s+(planned\s+)?"
    r"(workout|session|training)\b|"
    r"\b(what'?s|what is|whats|show|tell|read|send)\b[^.?!]*\b(my|the) (training )?(plan|program(me)?) "
    rf"(for |on )?{DAY_NAMES}\b"
)
CIRCUMSTANCE = rx(
    r"\b(travel\w*|trip|away|holiday|vacation|hotel|visiting|on the road|busy|no gym|no equipment|"
    r"bodyweight only|short on time|only (have |got )?\d+ min\w*|injur\w*|hurt\w*|sore)\b"
)
WEEK_REF = rx(r"\b(next|this|the coming|coming) week\b")
CHANGE_DAY = rx(
    r"\b(change|adjust|modify|rebuild|redo|rework|shorten|update)\b[^.?!]*"
    rf"\b{DAY_NAMES}'?s\s+(planned\s+)?(workout|session|training)\b"
)
MILESTONE = rx(
    r"\b(milestone|5k|10k|half marathon|marathon|run an? \d+\s?(k|km|mi|miles?)|"
    r"(bench|squat|deadlift|press)\w* \d+\s?(kg|lbs?)\b.*\bby\b|"
    r"\bby (january|february|march|april|may|june|july|"
    r"august|september|october|november|december|the end of|next (month|year)))"
)
SCHEDULE = rx(r"\b(schedule|book|calendar|remind me|put (it|a workout|one) on)\b")
UPCOMING = rx(
    r"\b(coming up|upcoming|what'?s next|on my (calendar|schedule)|my schedule|have (i )?(got )?scheduled|"
    r"do i have scheduled|is scheduled|what'?s scheduled|what have i (got )?scheduled)\b"
)
RESCHEDULE = rx(
    r"\b(push|move|postpone|delay|reschedule|shift|bring)\b.*"
    r"\b(back|forward|later|earlier|"
    r"to (today|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"by (\w+ )?(days?|weeks?))\b"
)
STATS = rx(
    r"\b(stats|statistics|progress|how many|how much|how often|how far|summary|overview|recap|report|"
    r"breakdown|distribution|trends?|history|heaviest|personal (best|record)s?|prs?|"
    r"most (trained|worked)|trained the most|worked the most|getting stronger|stronger|improv\w*|"
    r"my best|best (lift|squat|bench|deadlift|press|run|time))\b"
)
MILESTONE_PROGRESS = rx(
    r"\b(how close|how far (am i|off|away)|on track|closer to|progress (on|toward|towards|to)|"
    r"how('?s| is| am i doing on) my \w*\s*(goals?|milestones?|5k|10k|marathon))\b"
)
"""A question about progress toward a milestone (read with MILESTONE or a goal word)."""
STREAK_OR_ADHERENCE = rx(
    r"\b(streak|in a row|consecutive|stick(ing|ed)? (to|with) (my|the) (plan|schedule)|adherence|"
    r"how consistent|consistency|kept up with|keeping up with|followed (my|the) plan|miss(ed)? (any )?"
    r"(sessions|workouts)|how many (sessions|workouts) (did )?i miss|trending|going (up|down)|e?1\s?rm|"
    r"one[- ]rep max|(last|past) \d+ (days|weeks))\b"
)
"""Progress questions the general statistics words miss: streaks, adherence, trends, N-day windows."""
SUMMARY = rx(r"\b(summary|summari[sz]e|overview|recap|report|stats|statistics)\b")
PROGRESSION = rx(
    r"\b(next time|next session|next workout|next week)\b.*"
    r"\b(weight|load|heav\w*|kg|lbs?|go up|increase|add)\b|"
    r"\b(weight|load|heav\w*|kg|lbs?|go up|increase|add)\b.*"
    r"\b(next time|next session|next workout|next week)\b|"
    r"\bshould i (go heavier|add weight|increase|go up|lift heavier|use more)\b|"
    r"\bwhat weight should\b|\bhow (much|heavy) should i (lift|use|go|put)\b"
)
CONVERT = rx(
    r"\d+(\.\d+)?\s*(kg|kgs|kilos?|kilograms?|lbs?|pounds?|km|kms|kilomet\w+|mi|miles?)\b.*"
    r"\b(in|to|into|as)\s+(kg|kilos?|kilograms?|lbs?|pounds?|km|kilomet\w+|mi|miles?)\b"
)
UNPREFER = rx(
    r"\b(fine|better|healed|recovered|ok|okay|good|no longer hurts|doesn'?t hurt( anymore)?)\s+(now|again)\b|"
    r"\b(is|are|feels?|feeling)\s+(fine|better|healed|recovered|ok|okay|good)\b.*\bagain\b|"
    r"\b(can|could)\s+(program|give me|include|do|add|have)\b.*\bagain\b|"
    r"\bi (like|love|enjoy|don'?t mind)\b.*\bagain\b|"
    r"\b(remove|delete|clear|forget( about)?|drop|lift) (my|the|that) (\w+ )?"
    r"(preference|injury|restriction)\b"
)
UNSCHEDULE = rx(
    r"\bcancel\b.*\b(workout|session|run|class|today'?s|tomorrow'?s|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|\b(remove|delete|take)\b.*\b(from|off) (my |the )?(schedule|calendar)\b"
)
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
DISLIKE = rx(r"\b(hate|don'?t like|do not like|dislike|can'?t stand|no more|never give me|not a fan of)\b")
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

DATA_REQUEST = rx(
    r"\b(show|tell|remind|list|see|view|load|pull up|what are|what'?s|what is|which)\b.*"
    r"\b(goals?|preferences?|plans?|milestones?|locations?|gyms?|equipment|settings|units|"
    r"profile|body stats)\b"
)
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


def corrects_a_log(text: str) -> bool:
    """'actually it was 62.5', 'that was 3 sets, not 4', 'fix the last set of this morning's deadlifts'."""
    if DISLIKE.search(text) or wants_workout(text):
        return False
    return bool((CORRECT.search(text) and re.search(r"\d", text)) or FIX_LOGGED.search(text))


def states_preference(text: str) -> bool:
    """An injury or a dislike said while asking for a change ('my knee hurts, swap the lunges')."""
    return bool(INJURY.search(text) or DISLIKE.search(text))


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


# --- the one calendar: available days, missed, skipped, swapped and added sessions

DAY_WORD = (
    r"(mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)(day)?s?\b|"
    r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
)
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
ADD_SESSION = rx(
    r"\b(add|put|fit in|squeeze in)\b[^.?!]*\b(run|session|workout|swim|ride|class|yoga|walk|hike|"
    r"training)\b[^.?!]*\b(on|for|to)\s+(the day after\s+)?(my (calendar|schedule)|today|tomorrow|"
    r"(mon|tues|wednes|thurs|fri|satur|sun)day)\b"
)
SESSION_REF = rx(rf"\b{SESSION_DAY}")
NEXT_SESSIONS = rx(r"\bnext two\b|\bthe (one|session|workout) after\b|\bthe next one\b")
