"""What the offline policy tells the user, read from the calls' typed results (what actually happened,
not what was asked), in words a user reads: no ids, field names or raw tool errors."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from typing import Any

from pydantic import ValidationError

from trainer.domain.exercise_search import form_cues
from trainer.domain.units import convert_distance, convert_weight
from trainer.domain.workout_grouping import UTC_ZONE
from trainer.offline.conversation import PastCall
from trainer.offline.parsing import StatsWindow, best_name, stats_window
from trainer.offline.patterns import THANKS, rx
from trainer.programs.tools import (
    ChangeTrainingDayResult,
    ChangeTrainingDaysResult,
    ChangeTrainingWeekResult,
    GetPlannedWorkoutResult,
    PlanBrief,
    RequestTrainingPlanResult,
    ShowTrainingPlanResult,
)
from trainer.tools.add_exercise import AddResult
from trainer.tools.analytics import (
    ExerciseBreakdownResult,
    MilestoneProgressResult,
    ProgressTrendsResult,
    StatsSummaryResult,
    WorkoutStatisticsResult,
)
from trainer.tools.artifacts import TimerData
from trainer.tools.calendar import (
    CreateWorkoutPlanResult,
    DeleteScheduledWorkoutResult,
    ManageMilestoneResult,
    MissedSession,
    MissedSessionsResult,
    ScheduledWorkout,
    ScheduleWorkoutResult,
    SwapScheduledWorkoutsResult,
    UpdateScheduledWorkoutResult,
)
from trainer.tools.current_workout import WorkoutChange
from trainer.tools.data import FetchDataResult, number_text
from trainer.tools.exercises import ExerciseInfo, SearchExercisesResult
from trainer.tools.generate_workout import GenerateArgs, GenerateResult
from trainer.tools.goals import SetGoalsResult
from trainer.tools.location import LocationResult, SetCurrentLocationResult
from trainer.tools.log_corrections import AdjustLoggedExerciseResult, UndoLoggedExerciseResult
from trainer.tools.logged_entries import LoggedExercise
from trainer.tools.logging import LogCompletedExerciseResult, LogWorkoutResult, MarkExerciseCompleteResult
from trainer.tools.preferences import DeletePreferenceResult, Preference, SetPreferenceResult
from trainer.tools.profile import UpdateProfileResult
from trainer.tools.readiness import CheckReadinessResult
from trainer.tools.settings import SetUnitsResult
from trainer.tools.timers import TimersResult
from trainer.tools.workout_edits import AdjustResult, RemoveResult, SwapResult

TAG = re.compile(r"</?[a-z_]+(?:\s[^>]*)?>", re.IGNORECASE)
IDS = re.compile(
    r"\s*[\[(](?:id[:=]\s*)[^\])]*[\])]|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|\b(?:ex|art|toolu|msg|workout|pref|plan)_[0-9a-z]+\b",
    re.IGNORECASE,
)

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

CAN_DO = (
    "I can build and adjust workouts, log your training, answer exercise questions, show your stats and "
    "progress, and manage your goals, preferences and schedule."
)
NEEDS_LIVE_MODEL = (
    "I can't answer that one here: this offline coach works from fixed rules, and a question like that "
    "needs the live coach model."
)
PLAN_EXAMPLE = "make me a 12-week plan, 4 days a week"
CLARIFY_OPTIONS = ["Give me a workout", "Log a workout", "Show my stats", "Set my goals"]

ACTION_LABELS = {
    "generate_workout": "build that workout",
    "swap_exercise": "swap that exercise",
    "adjust_exercise": "change that exercise",
    "remove_exercise": "remove that exercise",
    "add_exercise_to_workout": "add that exercise",
    "set_goals": "save your goals",
    "set_preference": "save that preference",
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


@dataclass
class ReplyContext:
    """What a reply needs besides the results: the user's words and where they are in time."""

    text: str = ""
    today: date | None = None
    zone: tzinfo = UTC_ZONE
    window: StatsWindow | None = None
    location: str | None = None

    @classmethod
    def for_user(cls, text: str, now: datetime, zone: tzinfo, location: str | None) -> ReplyContext:
        """The context of a user's message: today in their time zone, and the stats window it names."""
        today = now.astimezone(zone).date()
        return cls(text=text, today=today, zone=zone, window=stats_window(text, today), location=location)


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


def plain_text(text: str, limit: int = 1200) -> str:
    """Text without XML tags and ids, shortened to `limit` characters."""
    text = IDS.sub("", TAG.sub("", text)).strip()
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def num(value: float | None, places: int = 1) -> str:
    return number_text(value, places)


def seconds_text(seconds: float) -> str:
    """'45 s', '2 min', '1 min 30 s'."""
    minutes, secs = divmod(round(seconds), 60)
    if not minutes:
        return f"{secs} s"
    return f"{minutes} min {secs} s" if secs else f"{minutes} min"


def joined(items: Sequence[str], word: str = "and") -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def _series(values: Sequence[Any]) -> str:
    return ", ".join(num(v) if isinstance(v, float) else str(v) for v in values)


def prescription(ex: Mapping[str, Any]) -> str:
    """An exercise's sets in words: '3 x 10 at 20 kg', '3 sets: 20, 22.5, 25 kg x 10', '3 x 45 s holds',
    '20 min, 5 km', '8 rounds of 20 s on / 10 s off'."""
    kind = ex.get("exercise_type")
    reps = list(ex.get("reps") or [])
    loads = [float(v) for v in ex.get("load_each") or []]
    holds = list(ex.get("hold_sec") or [])
    sets = ex.get("sets") or len(reps) or len(holds) or 1
    unit = ex.get("load_unit") or ""
    if kind == "reps":
        rep_text = str(reps[0]) if reps and len(set(reps)) == 1 else _series(reps)
        if len(set(loads)) > 1:
            return f"{sets} sets: {_series(loads)} {unit} x {rep_text}".replace("  ", " ")
        load = f" at {num(loads[0])} {unit}".rstrip() if loads and loads[0] else ""
        if len(set(reps)) > 1:
            return f"{sets} sets of {rep_text} reps{load}"
        return f"{sets} x {rep_text}{load}"
    if kind == "hold":
        hold = f"{holds[0]} s" if holds and len(set(holds)) == 1 else f"{_series(holds)} s"
        return f"{sets} x {hold} holds"
    if kind == "intervals":
        return f"{ex.get('rounds')} rounds of {ex.get('work_sec')} s on / {ex.get('rest_sec')} s off"
    parts = []
    if ex.get("distance"):
        parts.append(f"{num(ex['distance'], 2)} {ex.get('distance_unit') or ''}".rstrip())
    if ex.get("duration_min"):
        parts.append(f"{num(ex['duration_min'])} min")
    return " in ".join(parts) if len(parts) == 2 else "".join(parts)


def logged_text(row: LoggedExercise) -> str:
    """What a logged entry holds, in words."""
    return prescription(row.model_dump(mode="json"))


def day_text(day: date, today: date | None) -> str:
    """'today', 'tomorrow (Tuesday 24 Nov)', 'yesterday', 'Thursday 26 Nov'."""
    named = f"{day:%A} {day.day} {day:%b}"
    if today is None:
        return named
    offset = (day - today).days
    if offset == 0:
        return f"today ({named})"
    if offset == 1:
        return f"tomorrow ({named})"
    if offset == -1:
        return f"yesterday ({named})"
    return named


def day_phrase(day: date, today: date | None) -> str:
    """'today', 'yesterday', 'on Friday 20 Nov'."""
    if today is not None and (today - day).days in (0, 1):
        return "today" if day == today else "yesterday"
    return f"on {day:%A} {day.day} {day:%b}"


def _was(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """What an exercise's prescription was, naming only what changed ('was 20', 'was 90 s rest')."""
    parts: list[str] = []
    if before.get("load_each") != after.get("load_each") and before.get("load_each"):
        old = [float(v) for v in before["load_each"]]
        shown = num(old[0]) if len(set(old)) == 1 else _series(old)
        unit = before.get("load_unit")
        parts.append(shown if unit == after.get("load_unit") else f"{shown} {unit}")
    elif before.get("load_each") != after.get("load_each"):
        parts.append("no load")
    if before.get("reps") != after.get("reps") or before.get("sets") != after.get("sets"):
        if before.get("exercise_type") == "reps":
            reps = list(before.get("reps") or [])
            shown = str(reps[0]) if reps and len(set(reps)) == 1 else _series(reps)
            parts.append(f"{before.get('sets')} x {shown}")
        elif before.get("sets") != after.get("sets"):
            parts.append(f"{before.get('sets')} sets")
    if before.get("hold_sec") != after.get("hold_sec") and before.get("hold_sec"):
        parts.append(f"{_series(before['hold_sec'])} s holds")
    if before.get("rest_sec") != after.get("rest_sec") and before.get("rest_sec") is not None:
        parts.append(f"{seconds_text(before['rest_sec'])} rest")
    for key, label in (("duration_min", "min"), ("distance", before.get("distance_unit") or "")):
        if before.get(key) != after.get(key) and before.get(key):
            parts.append(f"{num(before[key])} {label}".rstrip())
    if before.get("exercise_name") != after.get("exercise_name"):
        parts.append(str(before.get("exercise_name")))
    return f"was {', '.join(parts)}" if parts else ""


def adjusted_text(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """'Dumbbell Bench Press: 3 x 10 at 22.5 kg (was 20)'; rest changes say the rest."""
    text = f"{after.get('exercise_name')}: {prescription(after)}"
    if before.get("rest_sec") != after.get("rest_sec") and after.get("rest_sec") is not None:
        text += f", {seconds_text(after['rest_sec'])} rest between sets"
    was = _was(before, after)
    return f"{text} ({was})" if was else text


def timer_text(timer: TimerData) -> str:
    """'Tabata intervals: 8 rounds of 20 s work and 10 s rest, 4 min in all'."""
    work = [p for p in timer.phases if p.phase_type in ("work", "hold")]
    rest = [p for p in timer.phases if p.phase_type == "rest"]
    total = seconds_text(timer.total_duration_sec)
    if timer.exercise_type == "intervals" and work:
        rest_part = f" and {seconds_text(rest[0].duration_sec)} rest" if rest else ""
        return (
            f"{timer.exercise_name}: {_count_words(len(work), 'round', 'rounds')} of "
            f"{seconds_text(work[0].duration_sec)} work{rest_part}, "
            f"{total} in all"
        )
    sets = f"{len(work)} {'set' if len(work) == 1 else 'sets'}" if work else "one block"
    return f"{timer.exercise_name}: {sets}, {total}"


def describe_timers(result: TimersResult) -> str:
    if len(result.timers) == 1:
        return f"Here's your timer - {timer_text(result.timers[0])}. Tap start when you're ready."
    lines = [
        f"Here are your timers: {len(result.timers)} timers, {seconds_text(result.total_duration_sec)} in "
        "all."
    ]
    lines.extend(f"- {timer_text(t)}" for t in result.timers)
    return "\n".join(lines)


def _shares(info: ExerciseInfo) -> list[tuple[str, float]]:
    return sorted(((m.muscle, m.share) for m in info.muscles), key=lambda m: -m[1])


def muscles_answer(info: ExerciseInfo) -> str:
    shares = _shares(info)
    if not shares:
        return f"The catalog doesn't list the muscles {info.name} works."
    main, share = shares[0]
    others = [m.lower() for m, _ in shares[1:]]
    helpers = f", with your {joined(others)} helping" if others else ""
    return f"{info.name} mainly works your {main.lower()} (about {share:.0%} of the work){helpers}."


def equipment_note(info: ExerciseInfo, location: str | None) -> str:
    if not info.equipment:
        return "No equipment needed."
    needs = f"You'll need: {joined(info.equipment)}"
    if not info.missing_equipment:
        return f"{needs}."
    return f"{needs} - {location or 'your current location'} has no {joined(info.missing_equipment, 'or')}."


def exercise_answer(text: str, result: SearchExercisesResult, location: str | None) -> str:
    """How to do an exercise, which muscles it works, or what to do instead of it."""
    if result.reference is not None:
        if not result.exercises:
            return (
                f"I couldn't find an alternative to {result.reference.name} that fits the equipment you have."
            )
        where = f" with the equipment at {result.location}" if result.location else ""
        sparing = f" that go easy on your {result.painful_joint}" if result.painful_joint else ""
        lines = [f"Instead of {result.reference.name}, you could do these{sparing}{where}:"]
        for info in result.exercises:
            why = f" - {info.why}" if info.why else ""
            lines.append(f"- {info.name}{why}")
        if result.painful_joint:
            lines.append(
                "Keep every movement pain-free, and stop if it hurts; if the pain is sharp or lasts, have a "
                "physiotherapist or doctor look at it. I haven't changed your workouts or saved anything."
            )
        return "\n".join(lines)
    if not result.exercises:
        return "I couldn't find that exercise in my catalog - try its full name."
    info = result.exercises[0]
    if re.search(r"\bmuscles?\b|\bwork(s)?\b|\btarget|\bhit\b", text, re.IGNORECASE) and not re.search(
        r"\bhow (do|should|can) i\b", text, re.IGNORECASE
    ):
        return muscles_answer(info)
    lines = [muscles_answer(info), equipment_note(info, location)]
    if info.instructions:
        lines.append("How to do it:")
        lines.extend(f"{n}. {step}" for n, step in enumerate(info.instructions, start=1))
        if cues := form_cues(info.instructions):
            lines.append("Form cues: " + " ".join(cues))
    return "\n".join(lines)


def _count_words(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def stats_answer(kind: str, result: Any, ctx: ReplyContext) -> str:
    """A statistics result answering the question asked."""
    label = ctx.window.label if ctx.window else "in the last 30 days"
    match result:
        case WorkoutStatisticsResult(stats=stats, personal_records=records):
            if kind == "streak":
                return streak_text(result)
            if kind == "adherence":
                return adherence_text(result, label)
            if kind == "distance":
                if not stats.total_distance:
                    return f"You haven't logged any distance {label}."
                return f"You've covered {num(stats.total_distance, 1)} {stats.distance_unit} {label}."
            if kind == "record":
                said = best_name(ctx.text, [r.exercise_name for r in records])
                chosen = [r for r in records if r.exercise_name == said] if said else records[:3]
                if not chosen:
                    return "You haven't logged any loaded lifts yet."
                lines = [
                    f"Your heaviest {r.exercise_name}: {num(r.best_load)} {r.unit} x {r.best_load_reps}"
                    + (f" ({day_text(r.best_load_date, ctx.today)})" if r.best_load_date else "")
                    + "."
                    for r in chosen
                ]
                return "\n".join(lines)
            if kind == "top_muscle":
                return top_muscle_text(result, label)
            workouts = _count_words(stats.total_workouts, "workout", "workouts")
            if kind == "summary":
                return summary_text(result, label)
            if not stats.total_exercises:
                return f"You logged 0 workouts {label}."
            return (
                f"You did {workouts} {label} "
                f"({_count_words(stats.total_exercises, 'exercise', 'exercises')}, "
                f"{_count_words(stats.total_sets, 'set', 'sets')})."
            )
        case ExerciseBreakdownResult(breakdown=items, breakdown_type=by):
            if not items:
                return f"Nothing logged {label} yet."
            if kind == "top_muscle":
                top = items[0]
                rest = ", ".join(f"{i.name} {num(i.percentage, 0)}%" for i in items[1:4])
                more = f" Next: {rest}." if rest else ""
                return (
                    f"{top.name} got the most work {label}: {num(top.percentage, 0)}% of your training "
                    f"({_count_words(top.sets, 'set', 'sets')}).{more}"
                )
            shares = ", ".join(f"{i.name} {num(i.percentage, 0)}%" for i in items[:8])
            return f"Your training {label} by {by.replace('_', ' ')}: {shares}."
        case ProgressTrendsResult(trends=trends):
            name = trends.exercise_name or "your training"
            series = trends.series
            if not series:
                return f"I don't see any {name} logged in the last 3 months."
            first, last = series[0], series[-1]
            unit = trends.unit if trends.metric in ("weight", "volume") else ""
            span = (last.week_start - first.week_start).days // 7
            over = f" over {_count_words(span, 'week', 'weeks')}" if span else ""
            change = f" ({trends.percent_change:+.0f}%)" if trends.percent_change is not None else ""
            moved = f"from {num(first.value)} to {num(last.value)} {unit}".rstrip()
            measure = TREND_MEASURES.get(trends.metric, "{name}").format(name=name)
            if trends.direction == "up":
                sentence = f"{measure} went up {moved}{over}{change}."
                if trends.metric in ("weight", "e1rm"):
                    return f"Yes - you're getting stronger: {sentence}"
                return sentence[:1].upper() + sentence[1:]
            if trends.direction == "down":
                return f"Not lately - {measure} went down {moved}{over}{change}."
            return (
                f"{measure[:1].upper()}{measure[1:]} is holding steady at {num(last.value)} {unit}".rstrip()
                + "."
            )
        case StatsSummaryResult(summary=summary):
            return plain_text(summary)
    return ""


TREND_MEASURES = {
    "weight": "your top {name} set",
    "e1rm": "your estimated one-rep max on {name}",
    "volume": "your weekly {name} volume",
    "frequency": "your workouts per week",
    "reps": "your weekly {name} reps",
    "duration": "your weekly {name} minutes",
}


def streak_text(result: WorkoutStatisticsResult) -> str:
    """Streaks in words (computed by trainer.domain.progress over the last year)."""
    k = result.streaks
    if k is None or not k.training_days:
        return (
            "You haven't logged any training in the last year, so there's no streak yet - log a workout "
            "to start one."
        )
    days = (
        f"You've trained {_count_words(k.current_days, 'day', 'days')} in a row"
        if k.current_days
        else "You haven't trained today or yesterday, so your daily streak is at 0"
    )
    weeks = (
        f"{_count_words(k.current_weeks, 'week', 'weeks')} in a row with at least one workout"
        if k.current_weeks
        else "no workout this week or last week yet"
    )
    return (
        f"{days} (longest this year: {_count_words(k.longest_days, 'day', 'days')}), and {weeks} "
        f"(longest: {_count_words(k.longest_weeks, 'week', 'weeks')})."
    )


def adherence_text(result: WorkoutStatisticsResult, label: str) -> str:
    """Scheduled sessions done and missed, in words."""
    a = result.adherence
    workouts = _count_words(result.stats.total_workouts, "workout", "workouts")
    if a is None or not a.planned:
        return (
            f"You had no sessions scheduled {label} (before today), so there's no plan to measure against - "
            f"you did {workouts} {label}."
        )
    missed = ""
    if a.missed_days:
        shown = ", ".join(f"{d:%A} {d.day} {d:%b}" for d in a.missed_days[:5])
        missed = f" You missed {shown}."
    return (
        f"You did {a.done} of your {_count_words(a.planned, 'scheduled session', 'scheduled sessions')} "
        f"{label} ({a.percent}%).{missed}"
    )


def milestone_target_text(m: Any) -> str:
    """'run 5 km in under 30 minutes', 'bench 100 kg for 5 reps' - every number of the target."""
    name = str(m.goal_name)
    parts = [name]
    numbers = re.findall(r"\d+(?:\.\d+)?", name)
    if m.target_value is not None and num(m.target_value) not in numbers:
        parts.append(f"({num(m.target_value)} {m.target_unit or ''})".replace(" )", ")"))
    if m.target_reps:
        parts.append(f"for {m.target_reps} reps")
    if m.time_limit_min:
        parts.append(f"in under {num(m.time_limit_min)} minutes")
    return " ".join(parts)


def milestone_progress_text(result: MilestoneProgressResult, today: date | None) -> str:
    if not result.milestones:
        return (
            "You don't have any milestones yet. Tell me one with a number and a date - for example "
            "'run 5 km in under 30 minutes by March'."
        )
    lines = []
    for m in result.milestones:
        when = f" by {day_text(m.target_date, None)}" if m.target_date else ""
        head = f"{milestone_target_text(m)}{when}:"
        unit = m.target_unit or ""
        if m.kind == "other" or m.best is None:
            lines.append(f"{head} it has no number I can measure from your log, so I can't compute progress.")
            continue
        if m.kind == "distance":
            if not m.best:
                lines.append(f"{head} no runs logged yet.")
                continue
            text = f"{head} your longest is {num(m.best, 2)} {unit}"
            if m.best_time_min is not None:
                distance = f"{num(m.target_value or 0, 2)} {unit}"
                text += f", and your fastest {distance} took {num(m.best_time_min)} minutes"
                if m.time_limit_min and not m.met:
                    text += f" - {num(m.best_time_min - m.time_limit_min)} minutes to cut"
        elif m.kind == "load":
            reps = f" for {m.target_reps} reps" if m.target_reps else ""
            text = (
                f"{head} your best is {num(m.best)} {unit}{reps}"
                if m.best
                else f"{head} nothing logged yet{reps}"
            )
        else:
            text = f"{head} your best set is {num(m.best)} reps"
        text += " - done!" if m.met else f" ({m.percent}% of the way)."
        lines.append(text)
    return "\n".join(lines)


def hard_sets(result: WorkoutStatisticsResult) -> dict[str, float]:
    """Hard sets per muscle over the period (secondary muscles count half)."""
    totals: dict[str, float] = {}
    for week in result.weekly_hard_sets.values():
        for muscle, sets in week.items():
            totals[muscle] = totals.get(muscle, 0.0) + sets
    return totals


def top_muscle_text(result: WorkoutStatisticsResult, label: str) -> str:
    totals = hard_sets(result)
    if not totals:
        return f"You haven't logged any sets {label} yet."
    ranked = sorted(totals, key=lambda m: (-totals[m], m))
    top = ranked[0]
    following = ", ".join(f"{m} ({num(totals[m])})" for m in ranked[1:4])
    more = f" Next: {following}." if following else ""
    return (
        f"{top} got the most work {label}: {num(totals[top])} hard sets (secondary muscles count half).{more}"
    )


def summary_text(result: WorkoutStatisticsResult, label: str) -> str:
    """A coach's summary of a statistics result: sessions, volume, best lifts, most-worked muscles."""
    stats = result.stats
    if not stats.total_exercises:
        return f"You haven't logged any training {label} yet - 0 workouts."
    lines = [
        f"{label[0].upper()}{label[1:]} you did {_count_words(stats.total_workouts, 'workout', 'workouts')} "
        f"(about {num(stats.workouts_per_week)} a week): "
        f"{_count_words(stats.total_exercises, 'exercise', 'exercises')}, "
        f"{_count_words(stats.total_sets, 'set', 'sets')}"
        + (f", {num(stats.total_volume, 0)} {stats.unit} lifted" if stats.total_volume else "")
        + (f", {num(stats.total_distance, 1)} {stats.distance_unit} covered" if stats.total_distance else "")
        + "."
    ]
    if stats.average_rpe is not None:
        lines.append(f"Average effort: RPE {num(stats.average_rpe)}.")
    if result.personal_records:
        best = [
            f"{r.exercise_name} {num(r.best_load)} {r.unit} x {r.best_load_reps}"
            for r in result.personal_records[:3]
        ]
        lines.append(f"Best lifts: {'; '.join(best)}.")
    totals = hard_sets(result)
    if totals:
        top = sorted(totals, key=lambda m: (-totals[m], m))[:3]
        lines.append(f"Most work went to {joined(top)}.")
    return " ".join(lines)


def preference_text(pref: Preference, today: date | None) -> str:
    until = ""
    if pref.expires_at:
        until = f" until {day_text(pref.expires_at.date(), today)}"
    elif pref.delete_after_use:
        until = " for your next workout"
    match pref.type:
        case "exercise" if pref.description.startswith("Dislikes "):
            return f"Noted - no more {pref.description.removeprefix('Dislikes ')} in your workouts."
        case "injury":
            return f"Noted: {pref.description.lower()}{until}. I'll keep it out of your workouts."
        case "intensity":
            return f"Noted - I'll keep it easy{until}."
    return f"Noted: {pref.description}{until}."


def scheduled_when(workout: ScheduledWorkout, ctx: ReplyContext) -> str:
    local = workout.scheduled_date.astimezone(ctx.zone)
    when = day_text(workout.date, ctx.today)
    return when if (local.hour, local.minute) == (0, 0) else f"{when} at {local:%H:%M}"


def upcoming_text(upcoming: Sequence[ScheduledWorkout], ctx: ReplyContext) -> str:
    if not upcoming:
        return "You have nothing scheduled yet. Want me to put a workout on your calendar?"
    lines = ["Coming up:"]
    for w in upcoming[:10]:
        minutes = f", {w.duration_minutes} min" if w.duration_minutes else ""
        lines.append(f"- {w.workout_type}: {scheduled_when(w, ctx)}{minutes}")
    return "\n".join(lines)


def _sent_exercises(call: PastCall) -> list[dict[str, Any]]:
    """The exercises a successful generate_workout call sent, read back as its own argument model."""
    try:
        workout = GenerateArgs.model_validate(call.arguments).workout
    except ValidationError:
        return []
    return [e.model_dump(mode="json", exclude_none=True) for e in workout.exercises]


def summarize(call: PastCall, ctx: ReplyContext | None = None) -> str:
    """One or a few sentences telling the user what a successful tool call did."""
    ctx = ctx or ReplyContext()
    match call.result:
        case FetchDataResult(data=data):
            found = "\n\n".join(plain_text(text, 1500) for text in data.values())
            return f"Here's what I have on file:\n{found}" if found else "I couldn't find that data."
        case GenerateResult(title=title, exercises=exercises, adjustments=adjustments, prescribed=stored):
            sent = {str(e.get("exercise_name", "")).lower(): e for e in stored or _sent_exercises(call)}
            lines = [f"Here's {title}, {_count_words(len(exercises), 'exercise', 'exercises')}:"]
            for brief in exercises:
                detail = prescription(sent.get(brief.exercise_name.lower(), {}))
                lines.append(f"{brief.order}. {brief.exercise_name}" + (f": {detail}" if detail else ""))
            if adjustments:
                lines.append(f"Based on today's check-in I {joined(adjustments)}.")
            return "\n".join(lines)
        case SetUnitsResult(weight_unit=weight, distance_unit=distance, changed=changed):
            if not changed:
                return f"You're already set to {weight} and {distance} - nothing to change."
            return (
                f"Done - from now on I'll give loads in {weight} and distances in {distance}. "
                "What you've logged keeps its numbers; I only show them in the new units."
            )
        case SwapResult(old_name=old_name, new_exercise=new):
            return f"Swapped {old_name} for {new.get('exercise_name')}: {prescription(new)}."
        case AdjustResult(old_values=old_values, exercise=after):
            before = {**after, **old_values}
            if not old_values:
                return f"{after.get('exercise_name')} already had that - nothing changed."
            return f"Updated {adjusted_text(before, after)}."
        case AddResult(exercise=added, order=order, exercise_count=count):
            where = "at the end" if order == count else f"as exercise {order} of {count}"
            return f"Added {added.get('exercise_name')} {where}: {prescription(added)}."
        case RemoveResult(removed_exercise=removed, remaining_count=left):
            return f"Removed {removed.exercise_name} - {_count_words(left, 'exercise', 'exercises')} left."
        case SetGoalsResult(goals=goals):
            parts = [f"{g.name} {num(g.percentage)}%" for g in goals]
            return f"Your goals now: {', '.join(parts)}."
        case SetPreferenceResult(preference=preference):
            return preference_text(preference, ctx.today)
        case DeletePreferenceResult(preference=preference):
            return f"Removed the restriction '{preference.description}' - it no longer shapes your workouts."
        case LogWorkoutResult(logged=logged, already_logged=already):
            items = [f"{row.exercise_name} {logged_text(row)}".strip() for row in logged]
            text = f"Logged your workout: {'; '.join(items)}. Nice work!" if items else ""
            if already:
                text += f" {joined(already)} {'was' if len(already) == 1 else 'were'} logged before."
            return text.strip() or "Nothing new to log - every exercise was logged before."
        case MarkExerciseCompleteResult(logged=row, remaining=remaining):
            to_go = (
                f" {_count_words(remaining, 'exercise', 'exercises')} to go."
                if remaining
                else " That's the lot!"
            )
            return f"Logged {row.exercise_name}: {logged_text(row)}.{to_go}"
        case LogCompletedExerciseResult(logged=row):
            detail = logged_text(row)
            return f"Logged {row.exercise_name}" + (f": {detail}." if detail else ".")
        case AdjustLoggedExerciseResult(before=before, after=after):
            old = before.model_dump(mode="json")
            new = after.model_dump(mode="json")
            was = _was(old, new)
            when = ""
            if before.performed_at != after.performed_at:
                when = f", now on {day_text(after.performed_at.astimezone(ctx.zone).date(), ctx.today)}"
            if not was and not when:
                return f"That {after.exercise_name} entry already says that - nothing changed."
            return (
                f"Corrected {after.exercise_name}: {logged_text(after)}"
                + (f" ({was})" if was else "")
                + f"{when}."
            )
        case UndoLoggedExerciseResult(removed=row):
            day = day_phrase(row.performed_at.astimezone(ctx.zone).date(), ctx.today)
            detail = f"{logged_text(row)}, " if logged_text(row) else ""
            return f"Removed {row.exercise_name} ({detail}logged {day}) from your history."
        case ScheduleWorkoutResult(workout=workout):
            return f"Scheduled your {workout.workout_type} workout for {scheduled_when(workout, ctx)}."
        case UpdateScheduledWorkoutResult(workout=workout, changed=changed):
            warning = f" Heads up: {workout.recovery_warning}." if workout.recovery_warning else ""
            if "scheduled_date" in changed:
                return (
                    f"Moved your {workout.workout_type} workout to {scheduled_when(workout, ctx)}.{warning}"
                )
            if changed == ["status"] and workout.status == "skipped":
                kept = " It stays in your plan marked skipped." if workout.source == "plan" else ""
                return f"Skipped your {workout.workout_type} session on {scheduled_when(workout, ctx)}.{kept}"
            return f"Updated your {workout.workout_type} workout on {scheduled_when(workout, ctx)}."
        case DeleteScheduledWorkoutResult(workout=workout):
            if workout.source == "plan":
                day = day_text(workout.scheduled_date.astimezone(ctx.zone).date(), ctx.today)
                return (
                    f"Skipped your {workout.workout_type} session on {day}: it's a day of your plan, so it "
                    "stays in its week marked skipped."
                )
            return f"Removed the {workout.workout_type} workout from your schedule."
        case SwapScheduledWorkoutsResult(first=first, second=second):
            warnings = {w.recovery_warning for w in (first, second) if w.recovery_warning}
            heads_up = f" Heads up: {joined(sorted(warnings))}." if warnings else ""
            return (
                "Moved them so they trade days: "
                f"{first.workout_type} is now on {scheduled_when(first, ctx)} and {second.workout_type} "
                f"on {scheduled_when(second, ctx)}.{heads_up}"
            )
        case MissedSessionsResult(missed=missed):
            return missed_text(missed, ctx)
        case ChangeTrainingDaysResult() as days_changed:
            return training_days_text(days_changed, ctx)
        case RequestTrainingPlanResult(plan=plan):
            return plan_requested_text(plan, ctx.today)
        case ShowTrainingPlanResult(plan=plan):
            return plan_overview_text(plan, ctx.today)
        case GetPlannedWorkoutResult() as planned:
            return planned_workout_text(planned, ctx.today)
        case ChangeTrainingWeekResult(week_number=week, rebuilt=rebuilt, days=rebuilt_days):
            if not rebuilt_days or not rebuilt:
                return f"Week {week} of your plan has no days left to change, so I left it as it is."
            lines = [f"Done - week {week} of your plan is rebuilt around that:"]
            return "\n".join([*lines, *(planned.line() for planned in rebuilt_days)])
        case ChangeTrainingDayResult(day=planned_day):
            return f"Done - that day of your plan is rebuilt around it. {planned_day.line()}"
        case CreateWorkoutPlanResult(plan=plan, scheduled_count=count):
            per_week = f"{plan.workouts_per_week} workouts a week, " if plan.workouts_per_week else ""
            days = f" on {joined(plan.preferred_days)}" if plan.preferred_days else ""
            return (
                f"Created your {plan.plan_name}: {plan.duration_weeks} weeks, {per_week}"
                f"{_count_words(count, 'workout', 'workouts')} scheduled{days}, starting "
                f"{day_text(plan.start_date, ctx.today)}."
            )
        case ManageMilestoneResult(milestone=milestone):
            target = f" by {day_text(milestone.target_date, None)}" if milestone.target_date else ""
            return f"Milestone saved: {milestone_target_text(milestone)}{target}."
        case MilestoneProgressResult():
            return milestone_progress_text(call.result, ctx.today)
        case LocationResult(location=saved):
            edit = location_change(call.arguments) if not saved.created else ""
            return edit + location_reply(saved.name, saved.equipment_summary, saved.created)
        case CheckReadinessResult(level=level, advice=advice, recorded=recorded, workout_changes=changes):
            return readiness_reply(level, advice, recorded, changes)
        case UpdateProfileResult(saved=facts_saved):
            return f"Saved to your profile: {'; '.join(facts_saved)}."
        case SetCurrentLocationResult(location=location):
            return f"Switched your location to {location.name} ({location.equipment_summary})."
        case TimersResult():
            return describe_timers(call.result)
        case SearchExercisesResult():
            return exercise_answer(ctx.text, call.result, ctx.location)
        case (
            WorkoutStatisticsResult()
            | ExerciseBreakdownResult()
            | ProgressTrendsResult()
            | StatsSummaryResult()
        ):
            return stats_answer(stats_kind(ctx.text), call.result, ctx)
    return "Done."


DATED_RESULTS = (
    ScheduleWorkoutResult, UpdateScheduledWorkoutResult, UndoLoggedExerciseResult,
    AdjustLoggedExerciseResult, SetPreferenceResult, WorkoutStatisticsResult, ProgressTrendsResult,
    StatsSummaryResult, SearchExercisesResult, GetPlannedWorkoutResult, ShowTrainingPlanResult,
    MilestoneProgressResult, ManageMilestoneResult, SwapScheduledWorkoutsResult, MissedSessionsResult,
    DeleteScheduledWorkoutResult,
)  # fmt: skip
"""Results whose reply needs the user's records (today in their time zone, their location)."""
MAX_REPLY_CHARS = 4000


def needs_user_records(calls: Sequence[PastCall]) -> bool:
    return any(isinstance(call.result, DATED_RESULTS) for call in calls)


def closing_text(calls: Sequence[PastCall], ctx: ReplyContext) -> str:
    """The reply that closes a turn: what each successful call did, in order (the offline coach's
    last message, and the reply the code writes when a call was marked final)."""
    lines = [summarize(call, ctx) for call in calls]
    return "\n".join(line for line in lines if line)[:MAX_REPLY_CHARS] or "Done."


def delivered_artifact_id(calls: Sequence[PastCall]) -> str | None:
    """The artifact the turn's last workout change, timer or check-in refit made (delivered with the
    reply)."""
    for call in reversed(calls):
        result = call.result
        if isinstance(result, TimersResult | WorkoutChange | CheckReadinessResult) and result.artifact_id:
            return result.artifact_id
    return None


STATS_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("streak", rx(r"\b(streak|in a row|consecutive)\b")),
    (
        "adherence",
        rx(
            r"\b(stick(ing|ed)? (to|with)|adherence|consistent|consistency|kept up|keeping up|followed|"
            r"missed|miss)\b"
        ),
    ),
    ("trend", rx(r"\b(trending|going (up|down)|e?1\s?rm|one[- ]rep max)\b")),
    ("summary", rx(r"\b(summary|summari[sz]e|overview|recap|report)\b")),
    (
        "record",
        rx(
            r"\b(heaviest|personal (best|record)s?|prs?|max(imum)?|most i'?ve (lifted|benched|squatted)|"
            r"my best|best (lift|squat|bench|deadlift|press))\b"
        ),
    ),
    ("trend", rx(r"\b(stronger|improv\w*|trends?|getting better|progress(ing)? on)\b")),
    ("top_muscle", rx(r"\bmuscles?\b.*\b(most|least)\b|\b(most|least)\b.*\bmuscles?\b")),
    ("distance", rx(r"\b(how far|distance|how many (km|kilomet\w+|miles))\b")),
    ("breakdown", rx(r"\b(breakdown|distribution|split|by muscle|by category)\b")),
)


def missed_text(missed: Sequence[MissedSession], ctx: ReplyContext) -> str:
    """What the plan noticed and changed for the sessions missed, in words."""
    if not missed:
        return (
            "I don't see any missed sessions in your training plan recently - every planned day so far is "
            "either logged or still to come. If you trained without logging it, tell me what you did and "
            "I'll log it."
        )
    count = _count_words(len(missed), "missed session", "missed sessions")
    lines = [f"I see {count} in your plan, and here's how I adapted what comes next:"]
    for m in missed:
        said = " ".join(m.changes).removeprefix("Missed ")
        lines.append(f"- {said or f'{m.workout_type} on {day_text(m.date, ctx.today)}'}")
    lines.append("No two hard sessions are back to back, and nothing moved onto a day you don't train.")
    return "\n".join(lines)


def training_days_text(result: ChangeTrainingDaysResult, ctx: ReplyContext) -> str:
    days = joined(result.training_days)
    if not result.has_plan:
        return f"Got it - you train on {days} from now on. I'll plan around those days."
    lines = [f"Done - your plan now trains on {days} from now on."]
    for moved in result.moved:
        lines.append(
            f"- {moved.session}: moved from {day_text(moved.from_date, ctx.today)} to "
            f"{day_text(moved.to_date, ctx.today)}"
        )
    for dropped in result.dropped:
        lines.append(
            f"- {dropped.session} on {day_text(dropped.date, ctx.today)}: dropped - no day left that week "
            "without two hard sessions in a row"
        )
    if not result.moved and not result.dropped:
        lines.append("The sessions still to come already fall on those days, so nothing had to move.")
    lines.append("Hard sessions never land on consecutive days; later weeks will be built on these days.")
    return "\n".join(lines)


def location_change(arguments: dict[str, Any]) -> str:
    """'Added kettlebell. ' / 'Removed treadmill. ': what an edit of a location asked for."""
    parts = []
    if arguments.get("add_equipment"):
        parts.append(f"Added {joined([str(n) for n in arguments['add_equipment']])}.")
    if arguments.get("remove_equipment"):
        parts.append(f"Removed {joined([str(n) for n in arguments['remove_equipment']])}.")
    return " ".join(parts) + (" " if parts else "")


def location_reply(name: str, summary: str, created: bool) -> str:
    if created:
        return (
            f"{name} is your new location, and your current one: {summary}. "
            "Workouts here use only that equipment, with loads you can actually set up."
        )
    return f"{name} now has: {summary}."


def readiness_reply(
    level: str | None, advice: str, recorded: bool, workout_changes: Sequence[str] = ()
) -> str:
    if level is None:
        return advice
    text = ("Thanks for checking in. " if recorded else "") + advice
    if workout_changes:
        text += " I've adjusted the workout we made today: " + "; ".join(workout_changes) + "."
    return text


def plan_requested_text(plan: PlanBrief, today: date | None) -> str:
    """What a plan request did: started (still being built), ready, or failed - never ready when it is not."""
    match plan.status:
        case "pending":
            return (
                f"I'm putting your {plan.weeks}-week training plan together now: {plan.outline()}. It "
                "takes a moment - ask me to show your plan, or open it in the app, and it will be there once "
                "it's ready."
            )
        case "ready":
            return f"Your training plan is ready. {plan_overview_text(plan, today)}"
    reason = plan.error or "something went wrong"
    return f"Sorry - I couldn't build that plan: {reason}. Want me to try again?"


def plan_overview_text(plan: PlanBrief | None, today: date | None) -> str:
    if plan is None:
        return f"You don't have a training plan yet. Want one? Tell me, for example, '{PLAN_EXAMPLE}'."
    match plan.status:
        case "pending":
            return (
                f"Your training plan is still being built ({plan.outline()}). It isn't ready yet - ask me "
                "again in a minute, or check the app."
            )
        case "failed":
            return f"Your last training plan couldn't be built: {plan.error or 'something went wrong'}."
    lines = [f"{plan.title or 'Your training plan'}: {plan.outline()}."]
    if plan.phases:
        lines.append(f"Phases: {plan.phases_text()}.")
    if plan.current_week is not None:
        lines.append(f"You're in week {plan.current_week} of {plan.weeks}.")
    elif today is not None and plan.start_date > today:
        lines.append(f"It starts {day_text(plan.start_date, today)}.")
    return "\n".join(lines)


def planned_workout_text(result: GetPlannedWorkoutResult, today: date | None) -> str:
    when = day_text(result.day, today)
    planned = result.planned
    if planned is None:
        if not result.has_plan:
            return (
                f"You don't have a training plan yet, so nothing is planned for {when}. I can give you a "
                f"workout now, or build you a plan - for example '{PLAN_EXAMPLE}'."
            )
        return f"Nothing is planned for {when} yet: that week of your plan isn't built."
    if planned.kind == "rest":
        notes = f" {planned.recovery_notes}" if planned.recovery_notes else ""
        return f"{when[:1].upper()}{when[1:]} is a rest day (week {planned.week_number} of your plan).{notes}"
    heading = f"Your workout for {when}, week {planned.week_number} of your plan:"
    return f"{heading}\n{planned.message or planned.line()}"


def stats_kind(text: str) -> str:
    """What a statistics question asks: summary, record, trend, top_muscle, distance, breakdown or count."""
    return next((kind for kind, pattern in STATS_KINDS if pattern.search(text)), "count")


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
    return f"{num(value, 2)} {names[source]} is {num(converted, 1)} {names[target]}."
