"""What the offline policy tells the user: one sentence per successful tool call, read from the
call's typed result (what actually happened, not what was asked), canned answers to common
questions, and the help text."""

from __future__ import annotations

import re

from pydantic import BaseModel

from trainer.llm.offline.conversation import PastCall
from trainer.llm.offline.intents import rx
from trainer.tools.analytics import (
    ExerciseBreakdownResult,
    ProgressTrendsResult,
    StatsSummaryResult,
    WorkoutStatisticsResult,
)
from trainer.tools.calendar import (
    CreateWorkoutPlanResult,
    DeleteScheduledWorkoutResult,
    ManageMilestoneResult,
    ScheduleWorkoutResult,
    UpdateScheduledWorkoutResult,
)
from trainer.tools.data import FetchDataResult, number_text
from trainer.tools.goals import SetGoalsResult
from trainer.tools.location import SetCurrentLocationResult
from trainer.tools.logging import (
    LogCompletedExerciseResult,
    LoggedExercise,
    LogWorkoutResult,
    MarkExerciseCompleteResult,
    UndoLoggedExerciseResult,
)
from trainer.tools.preferences import DeletePreferenceResult, SetPreferenceResult
from trainer.tools.timers import TimersResult
from trainer.tools.workout import AdjustResult, GenerateResult, RemoveResult, SwapResult

TAG = re.compile(r"</?[a-z_]+(?:\s[^>]*)?>", re.IGNORECASE)

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

OFFLINE_HELP = (
    "I can build a workout, swap or adjust exercises, log what you did, set goals and preferences, "
    "schedule sessions, make multi-week plans, set timers and show your stats."
)
CLARIFY_OPTIONS = ["Give me a workout", "Log a workout", "Show my stats", "Set my goals"]


def answer_question(text: str) -> str:
    for pattern, answer in FAQ:
        if pattern.search(text):
            return answer
    return (
        f"Good question. I'm running on the offline trainer, so I can't discuss that in depth. {OFFLINE_HELP}"
    )


ACTION_LABELS = {
    "generate_workout": "build that workout",
    "swap_exercise": "swap that exercise",
    "adjust_exercise": "adjust that exercise",
    "remove_exercise": "remove that exercise",
    "set_goals": "save your goals",
    "set_preference": "save that preference",
    "log_workout": "log your workout",
    "log_completed_exercise": "log that exercise",
    "undo_logged_exercise": "undo that log",
    "schedule_workout": "schedule that workout",
    "create_workout_plan": "create that plan",
    "manage_milestone": "save that milestone",
    "set_current_location": "change your location",
}


def plain_text(text: str, limit: int = 1200) -> str:
    """Text without XML tags, shortened to `limit` characters."""
    text = TAG.sub("", text).strip()
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def logged_detail(row: LoggedExercise) -> str:
    """' 3x10 @ 60kg' for a logged entry (empty when there is nothing to add)."""
    if not (row.sets and row.reps):
        return ""
    detail = f" {row.sets}x{row.reps[0]}"
    if row.load_each:
        detail += f" @ {number_text(max(row.load_each))}{row.load_unit or ''}"
    return detail


def describe_stats(result: BaseModel) -> str:
    """A statistics result in a few lines a user reads."""
    match result:
        case WorkoutStatisticsResult(stats=stats, personal_records=records):
            lines = [
                f"Workouts: {stats.total_workouts} ({number_text(stats.workouts_per_week)} a week)",
                f"Exercises: {stats.total_exercises}, sets: {stats.total_sets}",
                f"Volume lifted: {number_text(stats.total_volume, 0)} {stats.unit}",
            ]
            if stats.total_distance:
                lines.append(f"Distance: {number_text(stats.total_distance, 2)} {stats.distance_unit}")
            for record in records[:3]:
                lines.append(
                    f"Best {record.exercise_name}: {number_text(record.best_load)} {record.unit} "
                    f"x {record.best_load_reps}"
                )
            return "\n".join(lines)
        case ExerciseBreakdownResult(breakdown=items):
            shares = [f"{item.name} {number_text(item.percentage, 0)}%" for item in items[:8]]
            return ", ".join(shares) if shares else "Nothing logged in that period yet."
        case ProgressTrendsResult(trends=trends):
            change = f" ({trends.percent_change:+.0f}%)" if trends.percent_change is not None else ""
            return f"Your {trends.metric} is trending {trends.direction}{change}."
        case StatsSummaryResult(summary=summary):
            return plain_text(summary)
    return ""


def summarize(call: PastCall) -> str:
    """One sentence telling the user what a successful tool call did."""
    match call.result:
        case FetchDataResult(data=data):
            found = "\n\n".join(plain_text(text, 1500) for text in data.values())
            return f"Here's what I have on file:\n{found}" if found else "I couldn't find that data."
        case GenerateResult(title=title, exercises=exercises):
            names = [e.exercise_name for e in exercises]
            return f"Here's {title}: {len(names)} exercises - {', '.join(names)}."
        case SwapResult(new_exercise=new):
            return f"Done - I swapped that exercise for {new.get('exercise_name', 'a new exercise')}."
        case AdjustResult(old_values=old_values):
            return f"Updated the exercise ({', '.join(sorted(old_values))})."
        case RemoveResult():
            return "Removed that exercise from your workout."
        case SetGoalsResult(goals=goals):
            parts = [f"{g.name} {g.percentage:g}%" for g in goals]
            return f"Your goals are set: {', '.join(parts)}."
        case SetPreferenceResult(preference=preference):
            until = ""
            if preference.expires_at:
                until = f" until {preference.expires_at.date().isoformat()}"
            elif preference.delete_after_use:
                until = " for your next workout"
            return f"Got it - noted: {preference.description}{until}."
        case DeletePreferenceResult(preference=preference):
            return f"Removed your preference: {preference.description}."
        case LogWorkoutResult(logged=logged):
            return f"Logged your workout ({len(logged)} exercises). Nice work!"
        case LogCompletedExerciseResult(logged=row) | MarkExerciseCompleteResult(logged=row):
            return f"Logged {row.exercise_name}{logged_detail(row)}."
        case UndoLoggedExerciseResult():
            return "Removed that logged exercise."
        case ScheduleWorkoutResult(workout=workout):
            return f"Scheduled a {workout.workout_type} workout for {workout.date}."
        case UpdateScheduledWorkoutResult(workout=workout):
            return f"Updated your {workout.workout_type} workout on {workout.date}."
        case DeleteScheduledWorkoutResult(workout=workout):
            return f"Removed the {workout.workout_type} workout from your schedule."
        case CreateWorkoutPlanResult(plan=plan):
            per_week = f"{plan.workouts_per_week} workouts a week " if plan.workouts_per_week else ""
            return (
                f"Created '{plan.plan_name}': {plan.duration_weeks} weeks, "
                f"{per_week}from {plan.start_date.isoformat()}."
            )
        case ManageMilestoneResult(milestone=milestone):
            target = f" by {milestone.target_date.isoformat()}" if milestone.target_date else ""
            return f"Milestone saved: {milestone.goal_name}{target}."
        case SetCurrentLocationResult(location=location):
            return f"Switched your location to {location.name}."
        case TimersResult():
            return "Your timer is ready."
        case WorkoutStatisticsResult() | ExerciseBreakdownResult() | ProgressTrendsResult():
            return f"Here are your stats:\n{describe_stats(call.result)}"
        case StatsSummaryResult():
            return f"Here are your stats:\n{describe_stats(call.result)}"
    return "Done."
