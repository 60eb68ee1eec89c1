"""The offline coach's one intent table: each intent row names the words that ask for it, the topics
it touches (the data sources the chat agent needs for it) and the handler that plans its tool call.

Two readers walk it. `classify` reads a message the coach's way: the rows in order, the first that asks
wins (the rows marked `combined` are read together: one message can name a place, state a preference,
set goals and ask for a workout). `topics_of` reads it the initializer's way: every topic the message
touches, for the deterministic knowledge selector (trainer.offline.selector), wider than the action on
purpose (a model decides what to do with the data).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from trainer.domain.exercise_search import exercise_question
from trainer.offline import calendar_turns, checkins, handlers, location_edits, onboarding, requests, safety
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
    ADD,
    ADD_SESSION,
    ADJUST,
    CALENDAR_PLAN,
    CHANGE_DAY,
    CIRCUMSTANCE,
    CONVERT,
    DATA_REQUEST,
    GOALS,
    INJURY,
    LOCATION,
    LOG,
    MILESTONE,
    MILESTONE_PROGRESS,
    PLAN,
    PLAN_REQUEST,
    PLANNED_WORKOUT,
    PREFERENCE,
    PROGRESSION,
    QUESTION,
    REMOVE,
    RESCHEDULE,
    SCHEDULE,
    SHOW_PLAN,
    STATS,
    STREAK_OR_ADHERENCE,
    SUMMARY,
    SWAP,
    THANKS,
    TIMER,
    UNDO,
    UNPREFER,
    UNSCHEDULE,
    UPCOMING,
    WEEK_REF,
    WORKOUT,
    WORKOUT_VERB,
    asked_exercise,
    corrects_a_log,
    schedule_days_ahead,
    stats_days_back,
    wants_workout,
)
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
    asks: Callable[[Message], bool]
    """The words (and guards) that ask for this action."""
    act: Act
    """Plans the step's tool call."""
    topics: tuple[Topic, ...] = ()
    label: str = "do that"
    """What the coach says it could not do when the numbers did not fit ('Sorry - I couldn't ...')."""
    combined: bool = False
    """Read together with the other combined rows rather than first-match."""
    first: Callable[[Message], tuple[IntentName, ...]] = field(default=lambda _: ())
    """Intents that come before this one in the same message (a preference stated with a swap)."""
    expand: Expand | None = None
    """The steps of this intent when the message holds several (one per stated preference); default one."""


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


def _stats(m: Message) -> bool:
    return bool(SUMMARY.search(m.text)) or (
        bool(STATS.search(m.text)) and not WORKOUT_VERB.search(m.text.replace("how many", ""))
    )


def _goals(m: Message) -> bool:
    stated = bool(re.search(r"%|\bgoals?\b", m.text))
    in_words = onboarding.goal_in_words(m.text) is not None and not re.search(r"%|\bpercent\b", m.text)
    return bool(GOALS.search(m.text)) and (not wants_workout(m.text) or stated) and not in_words


def _change_week(m: Message) -> bool:
    return bool(WEEK_REF.search(m.text) and CIRCUMSTANCE.search(m.text)) and not PLAN.search(m.text)


def _remove(m: Message) -> bool:
    return bool(REMOVE.search(m.text)) and not (PREFERENCE.search(m.text) or WORKOUT_VERB.search(m.text))


def _add(m: Message) -> bool:
    return bool(ADD.search(m.text)) and not GOALS.search(m.text) and not wants_workout(m.text)


def _calendar_plan(m: Message) -> bool:
    return bool(PLAN.search(m.text) and CALENDAR_PLAN.search(m.text))


def _milestone_progress(m: Message) -> bool:
    goal_word = bool(MILESTONE.search(m.text) or re.search(r"\b(goal|milestone)s?\b", m.text, re.I))
    return bool(MILESTONE_PROGRESS.search(m.text)) and goal_word


def _matches(pattern: re.Pattern[str]) -> Callable[[Message], bool]:
    return lambda m: bool(pattern.search(m.text))


SCHEDULE_TOPICS = (SCHEDULING,)
CHANGE_TOPICS = (CURRENT_WORKOUT,)
PREFERENCE_TOPICS = (INJURY_RECOVERY, PREFERENCES)
EXERCISE_TOPICS = (EXERCISE_QUESTION, EXERCISE_ALTERNATIVES)

INTENTS: tuple[Intent, ...] = (
    # a red flag (sharp or worsening pain, chest pain, dizziness, pregnancy, a recent operation) before
    # anything else the message asks: stop and see a professional (trainer.offline.safety)
    Intent("red_flag", lambda m: safety.raises_red_flag(m.text), safety.safety_reply, PREFERENCE_TOPICS,
           expand=safety.red_flag_steps),
    Intent("injury", lambda m: False, safety.record_injury, PREFERENCE_TOPICS, label="note that injury"),
    # onboarding: a bare answer to one of the profile questions' options ('Improve endurance', 'Knee')
    Intent("profile_next", lambda m: onboarding.option_answer(m.text) is not None, onboarding.ask_next,
           (PROFILE,), first=lambda m: ("profile",), expand=onboarding.next_steps),
    Intent("undo", _matches(UNDO), handlers.undo, CHANGE_TOPICS, expand=handlers.undo_steps),
    Intent("correct",
           lambda m: not m.question and corrects_a_log(m.text) and not checkins.says_how_i_feel(m.text),
           handlers.correct, CHANGE_TOPICS,
           label="correct that entry"),
    Intent("log", lambda m: bool(LOG.search(m.text)) and not m.question, handlers.log, CHANGE_TOPICS,
           label="log that"),
    # the phone's health data: before the workout edits, which share words ('why is today lighter?')
    Intent("health", lambda m: asks_health(m.text), answer_health, (HEALTH,), label="read your health data"),
    # the one calendar: before the exercise swaps and removals, which share words
    Intent("training_days", lambda m: calendar_turns.says_available_days(m.text),
           calendar_turns.training_days, SCHEDULE_TOPICS, label="change your training days"),
    Intent("missed", lambda m: calendar_turns.says_missed(m.text), calendar_turns.missed, SCHEDULE_TOPICS,
           label="check your missed sessions"),
    Intent("swap_sessions", lambda m: calendar_turns.says_swap_sessions(m.text), calendar_turns.swap_sessions,
           SCHEDULE_TOPICS, label="swap those sessions"),
    Intent("skip_session", lambda m: calendar_turns.says_skip(m.text), calendar_turns.skip_session,
           SCHEDULE_TOPICS, label="skip that session"),
    Intent("schedule", lambda m: bool(ADD_SESSION.search(m.text)), handlers.schedule, SCHEDULE_TOPICS,
           label="schedule that workout"),
    Intent("change_week", _change_week, handlers.change_week, SCHEDULE_TOPICS,
           label="change that week of your plan"),
    Intent("change_day", _matches(CHANGE_DAY), handlers.change_day, SCHEDULE_TOPICS,
           label="change that day of your plan"),
    Intent("exercise_info", lambda m: asked_exercise(m.text) is not None, handlers.exercise_info,
           EXERCISE_TOPICS),
    Intent("progression", lambda m: bool(PROGRESSION.search(m.text)) and m.question, handlers.progression),
    Intent("milestone_progress", _milestone_progress, handlers.milestone_progress, SCHEDULE_TOPICS),
    Intent("stats", _matches(STREAK_OR_ADHERENCE), handlers.stats, (STATISTICS,),
           label="work out your stats"),
    Intent("convert", _matches(CONVERT), handlers.convert),
    # workout requests and exercise knowledge (trainer.offline.requests)
    Intent("units", lambda m: requests.asks_units(m.text), requests.units, label="change your units"),
    Intent("pain_alternatives", lambda m: requests.asks_pain_alternatives(m.text), requests.pain_alternatives,
           EXERCISE_TOPICS + PREFERENCE_TOPICS),
    Intent("show_exercise", lambda m: requests.asks_to_show(m.text), requests.show, CHANGE_TOPICS),
    Intent("scheme", lambda m: requests.asks_scheme(m.text), requests.scheme, CHANGE_TOPICS,
           label="change that exercise"),
    Intent("intensity", lambda m: requests.asks_intensity(m.text), requests.intensity, CHANGE_TOPICS,
           label="change that workout", expand=requests.intensity_steps),
    Intent("swap", _matches(SWAP), handlers.change_workout, CHANGE_TOPICS, label="swap that exercise",
           first=lambda m: ("never",) if requests.says_never(m.text) and not INJURY.search(m.text)
           else ("preference",) if INJURY.search(m.text) else ()),
    Intent("never", lambda m: False, requests.never_again, PREFERENCE_TOPICS, label="save that preference"),
    Intent("adjust", _matches(ADJUST), handlers.change_workout, CHANGE_TOPICS, label="change that exercise"),
    # a saved location's equipment edited in words (before 'add'/'remove', which edit the workout)
    Intent("edit_location", lambda m: location_edits.edits_location(m.text), location_edits.edit_location,
           (LOCATIONS,), label="change that location"),
    Intent("add", _add, handlers.add, CHANGE_TOPICS, label="add that exercise"),
    Intent("unprefer", _matches(UNPREFER), handlers.unprefer, PREFERENCE_TOPICS),
    Intent("unschedule", _matches(UNSCHEDULE), handlers.unschedule, SCHEDULE_TOPICS,
           label="cancel that workout"),
    Intent("remove", _remove, handlers.change_workout, CHANGE_TOPICS, label="remove that exercise"),
    Intent("timer", _matches(TIMER), handlers.timer, CHANGE_TOPICS, label="build that timer"),
    Intent("reschedule", lambda m: bool(RESCHEDULE.search(m.text)) and not GOALS.search(m.text),
           handlers.reschedule, SCHEDULE_TOPICS, label="move that workout"),
    Intent("planned_workout", _matches(PLANNED_WORKOUT), handlers.planned_workout, SCHEDULE_TOPICS),
    Intent("plan", lambda m: _calendar_plan(m) and not m.question, handlers.calendar_plan, SCHEDULE_TOPICS,
           label="create that plan"),
    Intent("upcoming", _matches(UPCOMING), handlers.upcoming, SCHEDULE_TOPICS),
    Intent("show_plan", lambda m: bool(SHOW_PLAN.search(m.text)) and not PLAN_REQUEST.search(m.text),
           handlers.show_plan, SCHEDULE_TOPICS),
    Intent("data", lambda m: bool(DATA_REQUEST.search(m.text)) and not WORKOUT.search(m.text), handlers.data),
    Intent("plan", _calendar_plan, handlers.calendar_plan, SCHEDULE_TOPICS, label="create that plan"),
    Intent("program", _matches(PLAN), handlers.program, SCHEDULE_TOPICS, label="start that training plan"),
    Intent("milestone", _matches(MILESTONE), handlers.milestone, SCHEDULE_TOPICS,
           label="save that milestone"),
    Intent("schedule", _matches(SCHEDULE), handlers.schedule, SCHEDULE_TOPICS, label="schedule that workout"),
    Intent("stats", _stats, handlers.stats, (STATISTICS,), label="work out your stats"),
    # onboarding: the facts saved first, the next missing one asked last
    Intent("onboarding", lambda m: onboarding.starts_onboarding(m.text), onboarding.start, (PROFILE,)),
    Intent("profile", lambda m: onboarding.states_profile(m.text), onboarding.save_profile, (PROFILE,),
           label="save that to your profile", combined=True, expand=onboarding.profile_steps),
    Intent("readiness", lambda m: checkins.says_readiness(m.text), checkins.readiness, (READINESS,),
           label="record your check-in", combined=True),
    Intent("new_location", lambda m: checkins.describes_new_place(m.text), checkins.new_location,
           (LOCATIONS,), label="save that location", combined=True),
    Intent("location", lambda m: bool(LOCATION.search(m.text)) and not checkins.describes_new_place(m.text),
           handlers.location, (LOCATIONS,), combined=True,
           expand=handlers.location_steps),
    Intent("preference",
           lambda m: bool(INJURY.search(checkins.without_soreness(onboarding.without_no_injury(m.text)))
                          or PREFERENCE.search(m.text)),
           handlers.preference, PREFERENCE_TOPICS, label="save that preference", combined=True,
           expand=handlers.preference_steps),
    Intent("goals", _goals, handlers.goals, (GOAL_SETTING,), label="save your goals", combined=True),
    Intent("workout", lambda m: wants_workout(m.text), handlers.workout, (WORKOUT_GENERATION,),
           label="build that workout", combined=True),
    Intent("profile_next", lambda m: onboarding.states_profile(m.text), onboarding.ask_next, combined=True,
           expand=onboarding.next_steps),
    Intent("stats", _matches(STATS), handlers.stats, (STATISTICS,), label="work out your stats"),
    Intent("answer", lambda m: m.question or bool(THANKS.search(m.text)), handlers.answer),
    Intent("clarify", lambda m: True, handlers.clarify),
)  # fmt: skip
"""In the order a message is read: the first row that asks wins; the combined rows are read together."""

BY_NAME: dict[IntentName, Intent] = {}
for _row in INTENTS:
    BY_NAME.setdefault(_row.name, _row)


def rows_for(text: str) -> list[Intent]:
    """The rows a message asks for, in the order they are acted on."""
    message = Message.of(text)
    combined: list[Intent] = []
    for row in INTENTS:
        if row.combined:
            if row.asks(message):
                combined.append(row)
            continue
        if combined:
            return combined
        if row.asks(message):
            return [*(BY_NAME[name] for name in row.first(message)), row]
    return combined


def classify(text: str) -> list[IntentName]:
    """The ordered actions a message asks for; 'answer'/'clarify' when no action is recognised."""
    return [row.name for row in rows_for(text)]


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
