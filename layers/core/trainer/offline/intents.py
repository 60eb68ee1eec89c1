"""The offline coach's one intent table: each intent row names the handler that plans its tool call, the
topics it touches (the data sources the chat agent needs for it) and, for the intents one message can
hold several of, the words that say that part is there too.

Two readers use it. `classify` reads a message the coach's way: which action it asks for comes from the
intent classifier (trainer.offline.classifier, a small model measured on phrasings it never saw), not
from patterns; the slot parsers then read what the action needs (numbers, dates, names). Two things are
rules on purpose, before the model: a red flag (chest pain, a sharp pain, dizziness...) always stops the
session, and a bare answer to the coach's last question (one of the options it offered: 'Knee', '45
minutes'; a number; a 'no') is that answer. One message can also state where the user is, a preference,
goals, a check-in or profile facts beside a workout request: when the model reads the message as one of
those (`combined`), every other one whose words are present is done too, in the table's order; when the
model is not sure, those words alone decide, and with none the coach answers a question or asks one.
`topics_of` reads a message the initializer's way: every topic it touches, for the deterministic
knowledge selector (trainer.offline.selector), wider than the action on purpose (a model decides what to
do with the data).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from trainer.domain.exercise_search import exercise_question
from trainer.domain.restrictions import restrictions_in
from trainer.offline import calendar_turns, checkins, handlers, location_edits, onboarding, requests, safety
from trainer.offline.classifier import predict
from trainer.offline.health_questions import HEALTH_NEED, answer_health, asks_health, days_asked
from trainer.offline.patterns import (
    ABOUT_CHANGE,
    ABOUT_GOALS,
    ABOUT_INJURY,
    ABOUT_LOCATION,
    ABOUT_LOGGING,
    ABOUT_MILESTONE,
    ABOUT_PLAN,
    ABOUT_PREFERENCE,
    ABOUT_SCHEDULE,
    ABOUT_STATS,
    ABOUT_WORKOUT,
    ABOUT_WORKOUT_VERB,
    GOALS,
    INJURY,
    LOCATION,
    PREFERENCE,
    QUESTION,
    THANKS,
    TIMER,
    schedule_days_ahead,
    stats_days_back,
    wants_workout,
)
from trainer.offline.set_parsing import logged_clause
from trainer.offline.turn import IntentName, Step, Turn
from trainer.tools.base import ToolInvocation

HISTORY_DAYS_DEFAULT = 14
INJURY_HISTORY_DAYS = 7


@dataclass(frozen=True)
class Message:
    """A user message as the rows read it."""

    text: str
    question: bool

    @classmethod
    def of(cls, text: str) -> Message:
        return cls(text, bool(QUESTION.search(text)))


@dataclass(frozen=True)
class Need:
    """A data source the chat agent needs, with its parameters."""

    source: str
    reason_text: str
    days_back: int | None = None
    days_ahead: int | None = None
    status: str | None = None
    query: str | None = None


@dataclass(frozen=True)
class Topic:
    """What a message can be about (`about`), and the data sources the chat agent needs then."""

    task: str
    """How the initializer's reasoning names it."""
    about: Callable[[str], bool]
    needs: Callable[[str], Sequence[Need]]


Act = Callable[[Turn, Step], Awaitable[ToolInvocation]]
Expand = Callable[[Turn, list[IntentName]], Awaitable[list[Step]]]


@dataclass(frozen=True)
class Intent:
    name: IntentName
    act: Act
    """Plans the step's tool call."""
    topics: tuple[Topic, ...] = ()
    label: str = "do that"
    """What the coach says it could not do when the numbers did not fit ('Sorry - I couldn't ...')."""
    said_too: Callable[[Message], bool] | None = None
    """For the intents one message can hold several of (`combined`): whether this one is said too when
    the classifier reads the message as another of them (its words are present: a place, a preference)."""
    first: Callable[[Message], tuple[IntentName, ...]] = field(default=lambda _: ())
    """Intents that come before this one in the same message (a preference stated with a swap)."""
    expand: Expand | None = None
    """The steps of this intent when the message holds several (one per stated preference); default one."""
    joins: Callable[[Message], bool] | None = None
    """For an intent that is not combined: whether it is said alongside a combined request, and acted on
    with it, in the table's order ('give me an arms workout and log 15 squats from earlier')."""

    @property
    def combined(self) -> bool:
        return self.said_too is not None


# --- topics: the data the chat agent needs ---------------------------------------------------------


def _wants_a_workout(text: str) -> bool:
    wanted = bool(
        ABOUT_WORKOUT.search(text) and ABOUT_WORKOUT_VERB.search(text)
    ) and not ABOUT_LOGGING.search(text)
    return wanted and not (ABOUT_STATS.search(text) or ABOUT_SCHEDULE.search(text))


def _scheduling_needs(text: str) -> list[Need]:
    needs = [Need("scheduled_workouts", "upcoming workouts", days_ahead=schedule_days_ahead(text))]
    if ABOUT_PLAN.search(text):
        needs.append(Need("workout_plans", "multi-week plans", status="active"))
    if ABOUT_MILESTONE.search(text):
        needs.append(Need("milestone_goals", "specific achievement goals", status="active"))
    return needs


def _exercise_needs(text: str) -> list[Need]:
    asked = exercise_question(text)
    name = asked[1] if asked else ""
    return [Need("exercise_info", f"how to do {name} and what can replace it", query=name)]


def _asks_about_exercise(kind: str) -> Callable[[str], bool]:
    def about(text: str) -> bool:
        asked = exercise_question(text)
        return asked is not None and asked[0] == kind

    return about


WORKOUT_GENERATION = Topic(
    "workout generation",
    _wants_a_workout,
    lambda text: (
        Need("category_goals", "goal targets and distribution debt for balance"),
        Need("muscle_goals", "muscle targets and distribution debt"),
        Need("active_preferences", "restrictions and likes"),
        Need("workout_history", "recent training for progression", days_back=HISTORY_DAYS_DEFAULT),
        Need("progression_targets", "computed next loads and reps"),
        Need("current_location", "available equipment"),
    ),
)
GOAL_SETTING = Topic(
    "goal setting",
    lambda text: bool(ABOUT_GOALS.search(text)) and not ABOUT_MILESTONE.search(text),
    lambda text: (
        Need("category_goals", "current category goals and distribution"),
        Need("muscle_goals", "current muscle goals and distribution"),
    ),
)
STATISTICS = Topic(
    "statistics",
    lambda text: bool(ABOUT_STATS.search(text)),
    lambda text: (
        Need("workout_history", "history for the requested period", days_back=stats_days_back(text)),
        Need("category_goals", "goal distribution for comparison"),
    ),
)
SCHEDULING = Topic(
    "scheduling",
    lambda text: bool(ABOUT_SCHEDULE.search(text) or ABOUT_PLAN.search(text) or ABOUT_MILESTONE.search(text)),
    _scheduling_needs,
)
INJURY_RECOVERY = Topic(
    "injury/recovery",
    lambda text: bool(ABOUT_INJURY.search(text)),
    lambda text: (
        Need("active_preferences", "existing injury preferences"),
        Need("workout_history", "recent load on the affected area", days_back=INJURY_HISTORY_DAYS),
    ),
)
PREFERENCES = Topic(
    "preferences",
    lambda text: bool(ABOUT_PREFERENCE.search(text)) and not ABOUT_INJURY.search(text),
    lambda text: (Need("active_preferences", "current preferences"),),
)
CURRENT_WORKOUT = Topic(
    "current workout",
    lambda text: bool(TIMER.search(text) or ABOUT_LOGGING.search(text) or ABOUT_CHANGE.search(text)),
    lambda text: (Need("current_workout_session", "the workout in progress"),),
)
LOCATIONS = Topic(
    "locations",
    lambda text: bool(ABOUT_LOCATION.search(text)),
    lambda text: (Need("all_locations", "locations and their equipment"),),
)
READINESS = Topic(
    "readiness",
    checkins.says_readiness,
    lambda text: (
        Need("readiness", "today's check-in and computed readiness"),
        Need("workout_history", "recent training load", days_back=INJURY_HISTORY_DAYS),
    ),
)
HEALTH = Topic(
    "health data",
    asks_health,
    lambda text: (Need("health_data", HEALTH_NEED, days_back=days_asked(text)),),
)
PROFILE = Topic(
    "profile",
    lambda text: onboarding.states_profile(text) or bool(onboarding.START.search(text)),
    lambda text: (
        Need("user_profile", "what the profile already holds"),
        Need("active_preferences", "injuries on file"),
    ),
)
EXERCISE_QUESTION = Topic("exercise question", _asks_about_exercise("how"), _exercise_needs)
EXERCISE_ALTERNATIVES = Topic("exercise alternatives", _asks_about_exercise("alternatives"), _exercise_needs)

TOPICS: tuple[Topic, ...] = (
    WORKOUT_GENERATION,
    GOAL_SETTING,
    STATISTICS,
    SCHEDULING,
    INJURY_RECOVERY,
    PREFERENCES,
    CURRENT_WORKOUT,
    LOCATIONS,
    EXERCISE_QUESTION,
    EXERCISE_ALTERNATIVES,
    READINESS,
    PROFILE,
    HEALTH,
)
"""In the order the initializer lists them."""


# --- the table -------------------------------------------------------------------------------------


def _goals(m: Message) -> bool:
    stated = bool(re.search(r"%|\bgoals?\b", m.text))
    in_words = onboarding.goal_in_words(m.text) is not None and not re.search(r"%|\bpercent\b", m.text)
    return bool(GOALS.search(m.text)) and (not wants_workout(m.text) or stated) and not in_words


def _states_preference(m: Message) -> bool:
    said = checkins.without_soreness(onboarding.without_no_injury(m.text))
    return bool(INJURY.search(said) or PREFERENCE.search(m.text) or restrictions_in(m.text))


def _swap_first(m: Message) -> tuple[IntentName, ...]:
    if requests.says_never(m.text) and not INJURY.search(m.text):
        return ("never",)
    return ("preference",) if INJURY.search(m.text) else ()


SCHEDULE_TOPICS = (SCHEDULING,)
CHANGE_TOPICS = (CURRENT_WORKOUT,)
PREFERENCE_TOPICS = (INJURY_RECOVERY, PREFERENCES)
EXERCISE_TOPICS = (EXERCISE_QUESTION, EXERCISE_ALTERNATIVES)

INTENTS: tuple[Intent, ...] = (
    # safety: a red flag (sharp or worsening pain, chest pain, dizziness, pregnancy, a recent operation)
    # stops the session and sends the user to a professional (trainer.offline.safety); a rule, not the
    # model, so that no way of saying it is missed
    Intent("red_flag", safety.safety_reply, PREFERENCE_TOPICS, expand=safety.red_flag_steps),
    Intent("injury", safety.record_injury, PREFERENCE_TOPICS, label="note that injury"),
    # the workout in progress
    Intent("log", handlers.log, CHANGE_TOPICS, label="log that", joins=lambda m: bool(logged_clause(m.text)),
           expand=handlers.log_steps),
    Intent("correct", handlers.correct, CHANGE_TOPICS, label="correct that entry"),
    Intent("undo", handlers.undo, CHANGE_TOPICS, expand=handlers.undo_steps),
    Intent("swap", handlers.change_workout, CHANGE_TOPICS, label="swap that exercise", first=_swap_first),
    Intent("never", requests.never_again, PREFERENCE_TOPICS, label="save that preference"),
    Intent("adjust", handlers.change_workout, CHANGE_TOPICS, label="change that exercise"),
    Intent("remove", handlers.change_workout, CHANGE_TOPICS, label="remove that exercise"),
    Intent("add", handlers.add, CHANGE_TOPICS, label="add that exercise"),
    Intent("scheme", requests.scheme, CHANGE_TOPICS, label="change that exercise"),
    Intent("intensity", requests.intensity, CHANGE_TOPICS, label="change that workout",
           expand=requests.intensity_steps),
    Intent("show_exercise", requests.show, CHANGE_TOPICS),
    Intent("timer", handlers.timer, CHANGE_TOPICS, label="build that timer"),
    # the phone's health data ('why is today lighter?', 'how did I sleep?'): a rule, before the model
    Intent("health", answer_health, (HEALTH,), label="read your health data"),
    # the calendar and the training plan
    Intent("training_days", calendar_turns.training_days, SCHEDULE_TOPICS, label="change your training days"),
    Intent("missed", calendar_turns.missed, SCHEDULE_TOPICS, label="check your missed sessions"),
    Intent("swap_sessions", calendar_turns.swap_sessions, SCHEDULE_TOPICS, label="swap those sessions"),
    Intent("skip_session", calendar_turns.skip_session, SCHEDULE_TOPICS, label="skip that session"),
    Intent("schedule", handlers.schedule, SCHEDULE_TOPICS, label="schedule that workout"),
    Intent("reschedule", handlers.reschedule, SCHEDULE_TOPICS, label="move that workout"),
    Intent("unschedule", handlers.unschedule, SCHEDULE_TOPICS, label="cancel that workout"),
    Intent("upcoming", handlers.upcoming, SCHEDULE_TOPICS),
    Intent("plan", handlers.calendar_plan, SCHEDULE_TOPICS, label="create that plan"),
    Intent("program", handlers.program, SCHEDULE_TOPICS, label="start that training plan"),
    Intent("show_plan", handlers.show_plan, SCHEDULE_TOPICS),
    Intent("planned_workout", handlers.planned_workout, SCHEDULE_TOPICS),
    Intent("change_week", handlers.change_week, SCHEDULE_TOPICS, label="change that week of your plan"),
    Intent("change_day", handlers.change_day, SCHEDULE_TOPICS, label="change that day of your plan"),
    Intent("milestone", handlers.milestone, SCHEDULE_TOPICS, label="save that milestone"),
    Intent("milestone_progress", handlers.milestone_progress, SCHEDULE_TOPICS),
    # questions and numbers
    Intent("stats", handlers.stats, (STATISTICS,), label="work out your stats"),
    Intent("progression", handlers.progression),
    Intent("convert", handlers.convert),
    Intent("exercise_info", handlers.exercise_info, EXERCISE_TOPICS),
    Intent("pain_alternatives", requests.pain_alternatives, EXERCISE_TOPICS + PREFERENCE_TOPICS),
    Intent("data", handlers.data),
    # settings, places and what the user wants
    Intent("units", requests.units, label="change your units"),
    Intent("edit_location", location_edits.edit_location, (LOCATIONS,), label="change that location"),
    Intent("unprefer", handlers.unprefer, PREFERENCE_TOPICS),
    Intent("onboarding", onboarding.start, (PROFILE,)),
    # one message can hold several of these: the facts saved first, the workout built last, the next
    # missing profile fact asked at the very end
    Intent("profile", onboarding.save_profile, (PROFILE,), label="save that to your profile",
           said_too=lambda m: onboarding.states_profile(m.text), expand=onboarding.profile_steps),
    Intent("readiness", checkins.readiness, (READINESS,), label="record your check-in",
           said_too=lambda m: checkins.says_readiness(m.text)),
    Intent("new_location", checkins.new_location, (LOCATIONS,), label="save that location",
           said_too=lambda m: checkins.describes_new_place(m.text)),
    Intent("location", handlers.location, (LOCATIONS,), expand=handlers.location_steps,
           said_too=lambda m: bool(LOCATION.search(m.text)) and not checkins.describes_new_place(m.text)),
    Intent("preference", handlers.preference, PREFERENCE_TOPICS, label="save that preference",
           said_too=_states_preference, expand=handlers.preference_steps),
    Intent("goals", handlers.goals, (GOAL_SETTING,), label="save your goals", said_too=_goals),
    Intent("workout", handlers.workout, (WORKOUT_GENERATION,), label="build that workout",
           said_too=lambda m: wants_workout(m.text)),
    Intent("profile_next", onboarding.ask_next, (PROFILE,), said_too=lambda m: False,
           expand=onboarding.next_steps),
    # nothing to do: a question answered in words, or a question back
    Intent("answer", handlers.answer),
    Intent("clarify", handlers.clarify),
)  # fmt: skip
"""One row per intent; the combined rows are acted on in this order."""

BY_NAME: dict[IntentName, Intent] = {row.name: row for row in INTENTS}


def main_intent(text: str) -> IntentName | None:
    """The one action a message asks for: a red flag or a question about the phone's health data by rule,
    else the classifier's reading when it is sure; None when it is not (the caller looks for facts the
    slot parsers find, then answers or asks)."""
    if safety.raises_red_flag(text):
        return "red_flag"
    if asks_health(text):
        return "health"
    if text.strip():
        prediction = predict(text)
        if prediction.confident and prediction.intent in BY_NAME:
            return prediction.intent
    return None


def _combined_rows(message: Message, main: Intent | None) -> list[Intent]:
    """The combined rows a message holds (`main` and every one whose words are present), in the order
    they are acted on; the next missing profile fact is asked last when a profile fact was given."""
    rows = [
        row
        for row in INTENTS
        if row is main
        or (row.said_too is not None and row.said_too(message))
        or (row.joins is not None and row.joins(message))
    ]
    if BY_NAME["profile"] in rows:
        rows = [row for row in rows if row.name != "profile_next"] + [BY_NAME["profile_next"]]
    return rows


def rows_for(text: str) -> list[Intent]:
    """The rows a message asks for, in the order they are acted on."""
    message = Message.of(text)
    if onboarding.answers_a_question(text) and not safety.raises_red_flag(text):
        # a bare answer to the coach's last question: one of the options it offered ('Knee', '45
        # minutes'), a number or a 'no' (the handler reads which question it answers)
        return [BY_NAME["profile"], BY_NAME["profile_next"]]
    name = main_intent(text)
    if name is None:
        rows = _combined_rows(message, None)
        if rows:
            return rows
        return [BY_NAME["answer" if message.question or THANKS.search(text) else "clarify"]]
    main = BY_NAME[name]
    if main.combined and main.name != "profile_next":
        said = _combined_rows(message, None)
        if said and main.said_too is not None and not main.said_too(message):
            # the model read one part of a combined request, the slot parsers find others but not it
            return said
        return _combined_rows(message, main)
    return [*(BY_NAME[first] for first in main.first(message)), main]


def classify(text: str) -> list[IntentName]:
    """The ordered actions a message asks for; 'answer'/'clarify' when no action is recognised."""
    return [row.name for row in rows_for(text)]


def main_action(text: str) -> IntentName:
    """The action a message mainly asks for: the last row acted on (a workout after the facts stated
    with it, a swap after the preference behind it), the next profile question aside."""
    names = [name for name in classify(text) if name != "profile_next"]
    return names[-1] if names else "profile"


async def plan(turn: Turn) -> list[Step]:
    """The turn's steps, from the message (and, for a few, the user's saved locations). A plan is the
    same on every call of the turn: what a step depends on, its own calls do not change."""
    rows = rows_for(turn.text)
    names = [row.name for row in rows]
    steps: list[Step] = []
    for row in rows:
        steps.extend(await row.expand(turn, names) if row.expand is not None else [Step(row.name)])
    return steps


def topics_of(text: str) -> list[Topic]:
    """Every topic a message touches, in the initializer's order."""
    return [topic for topic in TOPICS if topic.about(text.strip())]
