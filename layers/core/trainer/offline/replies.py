"""What the offline coach says besides what the results say of themselves (trainer.tools.wording): canned
answers to common training questions and an honest word on what it cannot answer, a failed call in a
plain sentence, a unit conversion, the sessions coming up. Words a user reads: no ids, field names or
raw tool errors."""

from __future__ import annotations

import re
from collections.abc import Sequence

from trainer.domain.units import convert_distance, convert_weight
from trainer.offline.conversation import PastCall
from trainer.offline.patterns import THANKS, rx
from trainer.programs.plan_briefs import PLAN_EXAMPLE
from trainer.tools.calendar import ScheduledWorkout, scheduled_when
from trainer.tools.wording import ReplyContext, number_text

FAQ: tuple[tuple[re.Pattern[str], str], ...] = (
    (rx(r"\brest\b.*\bsets?\b|\bsets?\b.*\brest\b"),
     "Rest 2-3 minutes between heavy strength sets, 60-90 seconds for muscle-building work and 30-60 "
     "seconds for endurance circuits."),
    (rx(r"\bprotein\b"),
     "Aim for roughly 1.6-2.2 g of protein per kg of body weight a day, spread over 3-5 meals."),
    (rx(r"\bwarm(-| )?up\b"),
     "Warm up for 5-10 minutes: light cardio, dynamic mobility for the joints you will train, then 1-2 "
     "lighter ramp-up sets of your first lift."),
    (rx(r"\bsore(ness)?\b|\bdoms\b"),
     "Muscle soreness usually peaks 24-72 hours after training. Easy movement, sleep and protein help; "
     "sharp or joint pain is different - stop and get it checked."),
    (rx(r"\bhow (often|many times)\b"),
     "Training each muscle group about twice a week works well for most people; 3-4 sessions a week is "
     "a good, sustainable target."),
    (rx(r"\bprogressive overload\b|\bincrease (the )?weight\b|\bwhen should i go heavier\b"),
     "When you hit the top of your rep range on every set with good form, add the smallest load step "
     "(2.5 kg / 5 lb) next time."),
)  # fmt: skip
OUT_OF_SCOPE: tuple[tuple[re.Pattern[str], str], ...] = (
    (rx(r"\b(eat|food|meal|diet|nutrition|calories|carbs?|snack|breakfast|lunch|dinner|supplements?|"
        r"creatine|drink)\b"),
     "I can't give nutrition advice - food and meal planning are outside what I do here."),
    (rx(r"\b(stocks?|stock market|invest\w*|crypto|bitcoin|money|finance\w*|shares)\b"),
     "I can't help with the stock market or money questions - I'm your training coach."),
    (rx(r"\b(weather|news|politic\w*|election|sports? scores?|football|movie|music)\b"),
     "That's outside what I can help with - I'm your training coach."),
    (rx(r"\b(doctor|diagnos\w*|medic\w*|prescription|illness|disease)\b"),
     "I can't give medical advice - please ask a doctor or physiotherapist about that."),
)  # fmt: skip

COACHING_NOTES: dict[str, str] = {
    "generate_workout": "Warm up with a lighter set of the first exercise, and stop anything that hurts.",
    "log_workout": "Nice work - sleep and a good meal will turn this session into progress.",
    "log_completed_exercise": "Nice work - every entry keeps your next targets right.",
    "get_workout_statistics": "Consistency is what moves these numbers, so keep showing up.",
    "generate_stats_summary": "Consistency is what moves these numbers, so keep showing up.",
    "get_progress_trends": "Steady weeks add up - keep the sessions coming.",
}
"""The offline coach's note on a call it marks final (the `note` beside `final`), by tool: a live model
writes its own; these few keep the path exercised, in every mode, on the tools that end most turns."""
CAN_DO = (
    "I can build and adjust workouts, log your training, answer exercise questions, show your stats and "
    "progress, and manage your goals, preferences and schedule."
)
NEEDS_LIVE_MODEL = (
    "I can't answer that one here: this offline coach works from fixed rules, and a question like that "
    "needs the live coach model."
)
CLARIFY_OPTIONS = ["Give me a workout", "Log a workout", "Show my stats", "Set my goals"]

ACTION_LABELS = {
    "generate_workout": "build that workout",
    "swap_exercise": "swap that exercise",
    "adjust_exercise": "change that exercise",
    "remove_exercise": "remove that exercise",
    "add_exercise_to_workout": "add that exercise",
    "set_goals": "save your goals",
    "set_preference": "save that preference",
    "record_injury": "note that injury",
    "delete_preference": "remove that preference",
    "log_workout": "log your workout",
    "log_completed_exercise": "log that exercise",
    "mark_exercise_complete": "log that exercise",
    "adjust_logged_exercise": "correct that entry",
    "undo_logged_exercise": "undo that entry",
    "schedule_workout": "schedule that workout",
    "update_scheduled_workout": "move that workout",
    "delete_scheduled_workout": "remove that workout from your schedule",
    "create_workout_plan": "create that plan",
    "manage_milestone": "save that milestone",
    "set_current_location": "change your location",
    "create_location": "save that location",
    "update_location": "update that location",
    "check_readiness": "record your check-in",
    "search_exercises": "look that exercise up",
    "fetch_data": "load that",
    "generate_exercise_timer": "build that timer",
    "generate_workout_timers": "build those timers",
    "get_workout_statistics": "work out your stats",
    "get_exercise_breakdown": "break down your training",
    "get_progress_trends": "work out your progress",
    "generate_stats_summary": "summarise your training",
    "request_training_plan": "start that training plan",
    "show_training_plan": "find your training plan",
    "get_planned_workout": "find that day's planned workout",
    "change_training_week": "change that week of your plan",
    "change_training_day": "change that day of your plan",
    "change_training_days": "change your training days",
    "swap_scheduled_workouts": "swap those sessions",
    "missed_sessions": "check your missed sessions",
}
FAILURE_HINTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (rx(r"before this conversation"),
     "it was logged before this conversation, and an undo only removes what was logged here - nothing was "
     "deleted. Tell me what to correct on it instead."),
    (rx(r"no (active |training )+plan|no plan\b|(don'?t|do not|not) (have|got) an? (active |training )*plan"),
     f"you don't have a training plan yet - ask me for one, for example '{PLAN_EXAMPLE}'."),
    (rx(r"not built yet|no days? (left|planned)|nothing planned"),
     "that part of your plan isn't built yet - ask me again once it is."),
    (rx(r"not in the exercise catalog|no catalog exercise"),
     "I don't know that exercise - try its full name, for example 'Dumbbell Bench Press'."),
    (rx(r"only exercise"), "it's the only exercise in the workout - ask me for a new workout instead."),
    (rx(r"no active workout|not in the current workout|no workout"),
     "there's no open workout with that exercise - ask me for a workout first."),
    (rx(r"in the past"), "that day has already passed - pick today or a later day."),
    (rx(r"already logged"), "it's already logged - say 'undo' first if you want to log it again."),
    (rx(r"listed twice"), "the same exercise was listed twice."),
    (rx(r"not found|unknown location|no location"),
     "I couldn't find it - it may have been removed or renamed."),
    (rx(r"one (?:load|value) per set|heaviest set|per set"),
     "the loads didn't match the number of sets - give one load per set."),
    (rx(r"database|unavailable|could not load"),
     "I couldn't reach your data just now - try again in a moment."),
    (rx(r"nothing to change|at least one field"), "there was nothing to change."),
    (rx(r"percentages"), "the percentages need to add up to more than zero."),
    (rx(r"unknown muscle"), "one of those isn't a muscle I know."),
)  # fmt: skip


def answer_question(text: str) -> str:
    """A canned answer to a common training question, or one honest sentence on what the coach cannot
    answer, and what it can do."""
    if THANKS.search(text):
        return "Any time! Tell me when you want your next workout, or log what you did."
    for pattern, answer in FAQ:
        if pattern.search(text):
            return answer
    for pattern, answer in OUT_OF_SCOPE:
        if pattern.search(text):
            return f"{answer} {CAN_DO}"
    return f"{NEEDS_LIVE_MODEL} {CAN_DO}"


def upcoming_text(upcoming: Sequence[ScheduledWorkout], ctx: ReplyContext) -> str:
    if not upcoming:
        return "You have nothing scheduled yet. Want me to put a workout on your calendar?"
    lines = ["Coming up:"]
    for w in upcoming[:10]:
        minutes = f", {w.duration_minutes} min" if w.duration_minutes else ""
        lines.append(f"- {w.workout_type}: {scheduled_when(w, ctx)}{minutes}")
    return "\n".join(lines)


def failure_message(call: PastCall) -> str:
    """A failed call in a plain sentence: what went wrong and what the user can do."""
    label = ACTION_LABELS.get(call.name, "do that")
    error = str(getattr(call.result, "error", "") or "")
    hint = next((h for pattern, h in FAILURE_HINTS if pattern.search(error)), "")
    if not hint:
        hint = "something in it didn't fit. Could you say it another way, with the numbers you mean?"
    return f"Sorry - I couldn't {label}: {hint}"


def unit_answer(value: float, source: str, target: str) -> str:
    if source in ("kg", "lbs"):
        converted = convert_weight(value, source, target)
        names = {"kg": "kg", "lbs": "lb"}
    else:
        converted = convert_distance(value, source, target)
        names = {"km": "km", "mi": "miles"}
    return f"{number_text(value, 2)} {names[source]} is {number_text(converted, 1)} {names[target]}."
