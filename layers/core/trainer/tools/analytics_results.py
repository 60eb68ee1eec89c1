"""What the statistics tools (trainer.tools.analytics) answer with, and how each answer is said to the
user: counts, streaks, adherence, records that name their set, distances, the most-worked muscles,
summaries, trends and milestone progress. The kind of answer and the period come from the user's words
(trainer.domain.stats_questions); the numbers only from the results, computed in code by
trainer.domain.statistics and trainer.domain.progress."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from trainer.domain.message_words import best_name
from trainer.domain.stats_questions import TimePeriod, stats_kind
from trainer.tools.base import ToolResult
from trainer.tools.wording import ReplyContext, count_words, day_text, joined, number_text, plain_text

Section = Literal["overview", "category_breakdown", "muscle_breakdown", "top_exercises", "progress", "goals"]
BreakdownType = Literal["category", "muscle", "exercise_type", "exercise_name"]
TrendMetric = Literal["weight", "reps", "volume", "frequency", "duration", "e1rm"]
Day = date
"""`date` under another name, for fields that are themselves called `date`."""


class Streaks(BaseModel):
    """Consecutive training days and weeks (trainer.domain.progress.training_streaks), over the last year."""

    current_days: int
    longest_days: int
    current_weeks: int
    longest_weeks: int
    training_days: int
    weekly: bool = False
    """The lifter trains on some days of the week: their streak is counted in weeks."""
    days_this_week: int = 0
    planned_days: int = 0
    """Training days a week the user plans (their preferred days); 0 when not said."""


class Adherence(BaseModel):
    """Scheduled sessions of the period before today, and how many were done."""

    planned: int
    done: int
    missed_days: list[Day] = Field(default_factory=list)
    percent: int | None = None
    pending: int = 0
    """Sessions of this week not done yet: not missed while the week lasts (one can move days)."""


class WorkoutStats(BaseModel):
    """Totals for the period (trainer.domain.statistics.workout_statistics) in the user's units."""

    start: datetime | None = None
    """Start of the period in the user's time zone (the first logged exercise for all_time)."""
    end: datetime | None = None
    unit: str
    """The user's weight unit, which the volume is in."""
    total_workouts: int
    """Logged workouts, plus one per local day with exercises logged outside a workout."""
    total_exercises: int
    total_sets: int
    total_volume: float
    total_duration_min: float
    average_rpe: float | None = None
    workouts_per_week: float
    total_distance: float
    distance_unit: str


class RecordSet(BaseModel):
    """The logged set a record or a trend point comes from."""

    load: float
    reps: int
    rpe: float | None = None
    date: Day | None = None
    unit: str


class PersonalRecord(BaseModel):
    """An exercise's heaviest load and best estimated one-rep max, with the set it comes from (in the
    user's weight unit; trainer.domain.statistics.personal_records)."""

    exercise_name: str
    unit: str
    best_load: float
    best_load_reps: int
    best_load_date: Day | None = None
    e1rm: float | None = None
    """The RTS chart's estimate from `e1rm_set`, effort-aware, capped at 12 reps."""
    e1rm_set: RecordSet | None = None
    epley_1rm: float | None = None
    """Epley from the same set (None beyond 10 reps to failure, where it was not validated)."""
    brzycki_1rm: float | None = None
    date: Day | None = None
    """When the best estimate was set (the user's local day)."""


class ExerciseMove(BaseModel):
    """A lift whose heaviest set changed over the period (in the user's weight unit)."""

    exercise_name: str
    unit: str
    from_load: float
    """The heaviest set of its first session in the period."""
    to_load: float
    """The heaviest set of its last session in the period."""
    sessions: int


class WorkoutStatisticsResult(ToolResult):
    time_period: TimePeriod
    stats: WorkoutStats
    personal_records: list[PersonalRecord] = Field(default_factory=list)
    moved: list[ExerciseMove] = Field(default_factory=list)
    """The lifts that moved most over the period, from their first to their last session."""
    weekly_hard_sets: dict[Day, dict[str, float]] = Field(default_factory=dict)
    """Week start (the user's local Monday) -> muscle -> hard sets (secondary muscles count half)."""
    days_back: int | None = None
    streaks: Streaks | None = None
    adherence: Adherence | None = None

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return statistics_answer(self, stats_kind(ctx.text), ctx)


class BreakdownItem(BaseModel):
    """One category, muscle, type or exercise name with its share of the training."""

    name: str
    amount: float
    """Exercises (weighted by shares for categories and muscles)."""
    percentage: float
    sets: int


class ExerciseBreakdownResult(ToolResult):
    breakdown_type: BreakdownType
    time_period: TimePeriod
    exercise_count: int
    breakdown: list[BreakdownItem] = Field(default_factory=list)
    """Largest first."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return breakdown_answer(self, stats_kind(ctx.text), ctx)


class TrendPoint(BaseModel):
    week_start: date
    """The Monday the week starts on, in the user's time zone."""
    value: float
    set: RecordSet | None = None
    """The set the week's value comes from (the weight and e1rm metrics)."""


class ProgressTrends(BaseModel):
    metric: TrendMetric
    exercise_name: str | None = None
    period: TimePeriod
    unit: str
    """The user's weight unit (for the weight and volume metrics)."""
    series: list[TrendPoint] = Field(default_factory=list)
    slope_per_week: float
    percent_change: float | None = None
    """First to last week; None when the first week is zero."""
    direction: Literal["up", "down", "flat"]


class ProgressTrendsResult(ToolResult):
    trends: ProgressTrends

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return trends_answer(self, ctx)


class StatsSummaryResult(ToolResult):
    time_period: TimePeriod
    sections: list[Section] = Field(default_factory=list)
    summary: str
    """The readable summary (one line per section)."""

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return plain_text(self.summary)


class MilestoneProgress(BaseModel):
    """A milestone's target with the best logged effort toward it (trainer.domain.progress)."""

    id: str
    goal_name: str
    target_value: float | None = None
    target_unit: str | None = None
    time_limit_min: float | None = None
    target_reps: int | None = None
    target_date: Day | None = None
    kind: Literal["distance", "load", "reps", "other"]
    best: float | None = None
    """The longest distance, heaviest load (at the target reps) or most reps, in the target's unit."""
    best_time_min: float | None = None
    """The fastest time over at least the target distance."""
    met: bool | None = None
    percent: int | None = None


class MilestoneProgressResult(ToolResult):
    milestones: list[MilestoneProgress] = Field(default_factory=list)

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return milestone_progress_text(self, ctx.today)


DEFAULT_LABEL = "in the last 30 days"


def window_label(ctx: ReplyContext) -> str:
    """How the period the question named is said ('this week', 'in the last 30 days')."""
    return ctx.window.label if ctx.window else DEFAULT_LABEL


def statistics_answer(result: WorkoutStatisticsResult, kind: str, ctx: ReplyContext) -> str:
    """A statistics result answering the question asked (`kind`: see
    trainer.domain.stats_questions.stats_kind)."""
    label = window_label(ctx)
    stats, records = result.stats, result.personal_records
    if kind == "streak":
        return streak_text(result, asks_days=bool(DAYS_IN_A_ROW.search(ctx.text)))
    if kind == "adherence":
        return adherence_text(result, label)
    if kind == "distance":
        if not stats.total_distance:
            return f"You haven't logged any distance {label}."
        return f"You've covered {number_text(stats.total_distance, 1)} {stats.distance_unit} {label}."
    if kind == "record":
        said = best_name(ctx.text, [r.exercise_name for r in records])
        chosen = [r for r in records if r.exercise_name == said] if said else records[:3]
        if not chosen:
            return "You haven't logged any loaded lifts yet."
        lines = [
            f"Your heaviest {r.exercise_name}: {number_text(r.best_load)} {r.unit} x {r.best_load_reps}"
            + (f" ({day_text(r.best_load_date, ctx.today)})" if r.best_load_date else "")
            + "."
            for r in chosen
        ]
        return "\n".join(lines)
    if kind == "top_muscle":
        return top_muscle_text(result, label)
    workouts = count_words(stats.total_workouts, "workout", "workouts")
    if kind == "progress":
        return progress_text(result, label)
    if kind == "summary":
        return summary_text(result, label)
    if not stats.total_exercises:
        return f"You logged 0 workouts {label}."
    return (
        f"You did {workouts} {label} "
        f"({count_words(stats.total_exercises, 'exercise', 'exercises')}, "
        f"{count_words(stats.total_sets, 'set', 'sets')})."
    )


def progress_text(result: WorkoutStatisticsResult, label: str) -> str:
    """How the user is progressing: the workouts of the period, then the lifts that moved, from and to."""
    stats = result.stats
    if not stats.total_exercises:
        return f"You logged 0 workouts {label}, so there's no progress to read yet."
    done = f"You did {count_words(stats.total_workouts, 'workout', 'workouts')} {label}."
    if not result.moved:
        return f"{done} None of your lifts' top sets changed over that time."
    moves = [
        f"{m.exercise_name} {'up' if m.to_load > m.from_load else 'down'} from {number_text(m.from_load)} "
        f"to {number_text(m.to_load)} {m.unit}"
        for m in result.moved
    ]
    return f"{done} What moved: {joined(moves)}."


def breakdown_answer(result: ExerciseBreakdownResult, kind: str, ctx: ReplyContext) -> str:
    """A breakdown of the user's training answering the question asked: the most-worked group, or the
    shares."""
    label = window_label(ctx)
    items, by = result.breakdown, result.breakdown_type
    if not items:
        return f"Nothing logged {label} yet."
    if kind == "top_muscle":
        top = items[0]
        rest = ", ".join(f"{i.name} {number_text(i.percentage, 0)}%" for i in items[1:4])
        more = f" Next: {rest}." if rest else ""
        return (
            f"{top.name} got the most work {label}: {number_text(top.percentage, 0)}% of your training "
            f"({count_words(top.sets, 'set', 'sets')}).{more}"
        )
    shares = ", ".join(f"{i.name} {number_text(i.percentage, 0)}%" for i in items[:8])
    return f"Your training {label} by {by.replace('_', ' ')}: {shares}."


def trends_answer(result: ProgressTrendsResult, ctx: ReplyContext) -> str:
    """Whether the user is getting stronger (or more consistent) at what they asked about."""
    trends = result.trends
    name = trends.exercise_name or "your training"
    series = trends.series
    if not series:
        return f"I don't see any {name} logged in the last 3 months."
    first, last = series[0], series[-1]
    unit = trends.unit if trends.metric in ("weight", "volume") else ""
    span = (last.week_start - first.week_start).days // 7
    over = f" over {count_words(span, 'week', 'weeks')}" if span else ""
    change = f" ({trends.percent_change:+.0f}%)" if trends.percent_change is not None else ""
    moved = f"from {number_text(first.value)} to {number_text(last.value)} {unit}".rstrip()
    measure = TREND_MEASURES.get(trends.metric, "{name}").format(name=name)
    if trends.direction == "up":
        sentence = f"{measure} went up {moved}{over}{change}."
        if trends.metric in ("weight", "e1rm"):
            return f"Yes - you're getting stronger: {sentence}"
        return sentence[:1].upper() + sentence[1:]
    if trends.direction == "down":
        return f"Not lately - {measure} went down {moved}{over}{change}."
    return (
        f"{measure[:1].upper()}{measure[1:]} is holding steady at {number_text(last.value)} {unit}".rstrip()
        + "."
    )


TREND_MEASURES = {
    "weight": "your top {name} set",
    "e1rm": "your estimated one-rep max on {name}",
    "volume": "your weekly {name} volume",
    "frequency": "your workouts per week",
    "reps": "your weekly {name} reps",
    "duration": "your weekly {name} minutes",
}


DAYS_IN_A_ROW = re.compile(r"\b(days? in a row|daily|every day|consecutive days?)\b", re.I)


def streak_text(result: WorkoutStatisticsResult, *, asks_days: bool = False) -> str:
    """Streaks in words (computed by trainer.domain.progress over the last year): in weeks for a lifter
    who trains on some days of the week (a rest day never breaks their streak; days in a row only when
    there is a run of them, or when asked), in days for one who trains (nearly) every day."""
    k = result.streaks
    if k is None or not k.training_days:
        return (
            "You haven't logged any training in the last year, so there's no streak yet - log a workout "
            "to start one."
        )
    if k.weekly:
        if not k.current_weeks:
            return (
                "No workout logged this week or last week yet, so your weekly streak starts again with your "
                f"next session (longest this year: {count_words(k.longest_weeks, 'week', 'weeks')})."
            )
        week = f" This week: {count_words(k.days_this_week, 'session', 'sessions')}"
        week += f" of your {k.planned_days} planned." if k.planned_days else " so far."
        run = ""
        if k.current_days >= 2 or (asks_days and k.current_days):
            run = f" Right now that's {count_words(k.current_days, 'day', 'days')} in a row."
        elif asks_days:
            run = " No training today or yesterday, and with rest days in your week that's as it should be."
        return (
            f"You've trained {count_words(k.current_weeks, 'week', 'weeks')} in a row with at least one "
            f"workout every week (longest this year: {count_words(k.longest_weeks, 'week', 'weeks')})."
            f"{run}{week}"
        )
    days = (
        f"You've trained {count_words(k.current_days, 'day', 'days')} in a row"
        if k.current_days
        else "You haven't trained today or yesterday, so your daily streak is at 0"
    )
    weeks = (
        f"{count_words(k.current_weeks, 'week', 'weeks')} in a row with at least one workout"
        if k.current_weeks
        else "no workout this week or last week yet"
    )
    return (
        f"{days} (longest this year: {count_words(k.longest_days, 'day', 'days')}), and {weeks} "
        f"(longest: {count_words(k.longest_weeks, 'week', 'weeks')})."
    )


def adherence_text(result: WorkoutStatisticsResult, label: str) -> str:
    """Scheduled sessions done and missed, in words."""
    a = result.adherence
    workouts = count_words(result.stats.total_workouts, "workout", "workouts")
    if a is None or not a.planned:
        return (
            f"You had no sessions scheduled {label} (before today), so there's no plan to measure against - "
            f"you did {workouts} {label}."
        )
    missed = ""
    if a.missed_days:
        shown = ", ".join(f"{d:%A} {d.day} {d:%b}" for d in a.missed_days[:5])
        missed = f" You missed {shown}."
    pending = (
        f" {count_words(a.pending, 'session', 'sessions')} of this week can still be done."
        if a.pending
        else ""
    )
    return (
        f"You did {a.done} of your {count_words(a.planned, 'scheduled session', 'scheduled sessions')} "
        f"{label} ({a.percent}%).{missed}{pending}"
    )


def milestone_target_text(m: Any) -> str:
    """'run 5 km in under 30 minutes', 'bench 100 kg for 5 reps' - every number of the target."""
    name = str(m.goal_name)
    parts = [name]
    numbers = re.findall(r"\d+(?:\.\d+)?", name)
    if m.target_value is not None and number_text(m.target_value) not in numbers:
        parts.append(f"({number_text(m.target_value)} {m.target_unit or ''})".replace(" )", ")"))
    if m.target_reps:
        parts.append(f"for {m.target_reps} reps")
    if m.time_limit_min:
        parts.append(f"in under {number_text(m.time_limit_min)} minutes")
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
            text = f"{head} your longest is {number_text(m.best, 2)} {unit}"
            if m.best_time_min is not None:
                distance = f"{number_text(m.target_value or 0, 2)} {unit}"
                text += f", and your fastest {distance} took {number_text(m.best_time_min)} minutes"
                if m.time_limit_min and not m.met:
                    text += f" - {number_text(m.best_time_min - m.time_limit_min)} minutes to cut"
        elif m.kind == "load":
            reps = f" for {m.target_reps} reps" if m.target_reps else ""
            text = (
                f"{head} your best is {number_text(m.best)} {unit}{reps}"
                if m.best
                else f"{head} nothing logged yet{reps}"
            )
        else:
            text = f"{head} your best set is {number_text(m.best)} reps"
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
    following = ", ".join(f"{m} ({number_text(totals[m])})" for m in ranked[1:4])
    more = f" Next: {following}." if following else ""
    sets = number_text(totals[top])
    return f"{top} got the most work {label}: {sets} hard sets (secondary muscles count half).{more}"


def summary_text(result: WorkoutStatisticsResult, label: str) -> str:
    """A coach's summary of a statistics result: sessions, volume, best lifts, most-worked muscles."""
    stats = result.stats
    if not stats.total_exercises:
        return f"You haven't logged any training {label} yet - 0 workouts."
    lines = [
        f"{label[0].upper()}{label[1:]} you did {count_words(stats.total_workouts, 'workout', 'workouts')} "
        f"(about {number_text(stats.workouts_per_week)} a week): "
        f"{count_words(stats.total_exercises, 'exercise', 'exercises')}, "
        f"{count_words(stats.total_sets, 'set', 'sets')}"
        + (f", {number_text(stats.total_volume, 0)} {stats.unit} lifted" if stats.total_volume else "")
        + (
            f", {number_text(stats.total_distance, 1)} {stats.distance_unit} covered"
            if stats.total_distance
            else ""
        )
        + "."
    ]
    if stats.average_rpe is not None:
        lines.append(f"Average effort: RPE {number_text(stats.average_rpe)}.")
    if result.personal_records:
        best = [
            f"{r.exercise_name} {number_text(r.best_load)} {r.unit} x {r.best_load_reps}"
            for r in result.personal_records[:3]
        ]
        lines.append(f"Best lifts: {'; '.join(best)}.")
    totals = hard_sets(result)
    if totals:
        top = sorted(totals, key=lambda m: (-totals[m], m))[:3]
        lines.append(f"Most work went to {joined(top)}.")
    return " ".join(lines)
