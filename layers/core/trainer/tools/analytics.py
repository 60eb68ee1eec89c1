"""Statistics tools: computed in code by trainer.domain.statistics from one history query
for the period, in the user's units and time zone (workouts, days and weeks are local). Formatters stay
compact (rounded numbers, capped lists) and name weeks as a user reads them ("week of 16 Feb"). What
a result tells the user is worded in trainer.tools.stats_answers."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta, tzinfo
from typing import Any, ClassVar, Literal, get_args

from pydantic import BaseModel, Field

from trainer.domain import progress
from trainer.domain import statistics as stats
from trainer.domain.stats_questions import TimePeriod, stats_kind
from trainer.domain.units import convert_weight
from trainer.domain.workout import STRICT_NUMBERS
from trainer.domain.workout_grouping import week_label
from trainer.services.goals import weights_by_category
from trainer.services.history import days_back_start
from trainer.services.models import UserSettings
from trainer.services.rows import plain
from trainer.tools import stats_answers
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.dates import parse_when, user_zone
from trainer.tools.wording import ReplyContext, number_text, plain_text

Section = Literal["overview", "category_breakdown", "muscle_breakdown", "top_exercises", "progress", "goals"]
BreakdownType = Literal["category", "muscle", "exercise_type", "exercise_name"]
TrendMetric = Literal["weight", "reps", "volume", "frequency", "duration", "e1rm"]
Day = date
"""`date` under another name, for fields that are themselves called `date`."""
PERIOD = "The last 7/30/90/365 days, today included"
TOP_RECORDS = 10
SHOWN_ITEMS = 12
SHOWN_WEEKS = 12
ALL_SECTIONS: tuple[Section, ...] = get_args(Section)
"""The sections of trainer.domain.statistics.SUMMARY_SECTIONS, in its order."""


async def _history(
    ctx: ToolContext,
    time_period: str,
    start_date: str | None = None,
    end_date: str | None = None,
    *,
    with_goals: bool = False,
    days_back: int | None = None,
) -> tuple[list[dict[str, Any]], datetime | None, datetime, UserSettings, dict[str, float], tzinfo]:
    """(rows, start, end, settings, category goal targets, the user's zone) for the period, read on one
    connection. `days_back` reads exactly what GET /exercises/history?days_back=N lists (the same
    start, no end), whatever the period."""
    now = ctx.now()
    async with ctx.user_data.reading() as data:
        settings = await data.settings.get()
        zone = user_zone(settings)
        start, end = stats.period_range(time_period, now, zone)
        if days_back is not None:
            start = days_back_start(days_back, now)
            rows = await data.history.between(start, None)
            goals = await data.goals.categories() if with_goals else []
            latest = max((r["performed_at"] for r in rows), default=now)
            return plain(rows), start, max(now, latest), settings, weights_by_category(goals), zone
        if start_date:
            start, _ = parse_when(start_date, "start_date", zone)
        if end_date:
            end, date_only = parse_when(end_date, "end_date", zone)
            if date_only:
                end += timedelta(days=1)
        if start is not None and start >= end:
            raise ToolError("start_date must be before end_date")
        rows = await data.history.between(start, end)
        goals = await data.goals.categories() if with_goals else []
    return plain(rows), start, end, settings, weights_by_category(goals), zone


async def _body_weight(ctx: ToolContext, unit: str) -> float | None:
    """The profile's body weight in `unit` (what a bodyweight set moves), None when not known."""
    async with ctx.user_data.reading() as data:
        profile = await data.profile.get() or {}
    weight = profile.get("weight_kg")
    return round(convert_weight(float(weight), "kg", unit), 2) if weight else None


class StatisticsArgs(BaseModel):
    model_config = STRICT_NUMBERS
    time_period: TimePeriod = Field(default="month", description=PERIOD)
    start_date: str | None = Field(
        default=None, max_length=40, description="ISO start date instead (a calendar month: its 1st)"
    )
    end_date: str | None = Field(default=None, max_length=40, description="ISO end date, included")
    days_back: int | None = Field(
        default=None, ge=1, le=3650, description="The last N days ('the past month' = 30) instead"
    )


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


class WorkoutStatisticsResult(ToolResult):
    time_period: TimePeriod
    stats: WorkoutStats
    personal_records: list[PersonalRecord] = Field(default_factory=list)
    weekly_hard_sets: dict[Day, dict[str, float]] = Field(default_factory=dict)
    """Week start (the user's local Monday) -> muscle -> hard sets (secondary muscles count half)."""
    days_back: int | None = None
    streaks: Streaks | None = None
    adherence: Adherence | None = None

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return stats_answers.statistics_answer(self, stats_kind(ctx.text), ctx)


class GetWorkoutStatistics(Tool[StatisticsArgs, WorkoutStatisticsResult]):
    name = "get_workout_statistics"
    can_finish = True
    description = (
        "Totals for a period: workouts, sets, volume, time, distance, effort, streaks, adherence, personal "
        "records and weekly hard sets per muscle."
    )
    Args = StatisticsArgs
    Result = WorkoutStatisticsResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Crunching your numbers...", done="Statistics ready"
    )
    category = "full"

    async def execute(self, args: StatisticsArgs, ctx: ToolContext) -> WorkoutStatisticsResult:
        rows, start, end, settings, _, zone = await _history(
            ctx, args.time_period, args.start_date, args.end_date, days_back=args.days_back
        )
        streaks, adherence = await _streaks_and_adherence(ctx, start, zone, settings.preferred_days)
        unit = settings.weight_unit
        body_weight = await _body_weight(ctx, unit)
        overview = stats.workout_statistics(rows, start, end, unit, zone, body_weight=body_weight)
        overview["total_distance"] = stats.distance_total(rows, settings.distance_unit)
        overview["distance_unit"] = settings.distance_unit
        records = sorted(stats.personal_records(rows, unit, zone).values(), key=lambda r: -r["e1rm"])
        return WorkoutStatisticsResult(
            time_period=args.time_period,
            stats=WorkoutStats.model_validate(overview),
            personal_records=[PersonalRecord.model_validate(r) for r in records[:TOP_RECORDS]],
            weekly_hard_sets=stats.weekly_hard_sets(rows, zone, unit),
            days_back=args.days_back,
            streaks=streaks,
            adherence=adherence,
        )

    def format(self, result: WorkoutStatisticsResult) -> str:
        s = result.stats
        if not s.total_exercises:
            return f"no exercises logged in this period ({_span(s)})"
        rpe = f", avg RPE {number_text(s.average_rpe)}" if s.average_rpe is not None else ""
        distance = f", {number_text(s.total_distance, 2)} {s.distance_unit}" if s.total_distance else ""
        lines = [
            f"{_span(s)}: {s.total_workouts} workouts ({number_text(s.workouts_per_week, 2)}/week), "
            f"{s.total_exercises} exercises, {s.total_sets} sets, "
            f"volume {number_text(s.total_volume, 0)} {s.unit}, "
            f"{number_text(s.total_duration_min)} min{distance}{rpe}"
        ]
        if result.personal_records:
            lines.append("PRs (best load; est. 1RM from the set named, Epley/Brzycki from that set):")
            lines.extend(
                f"  {r.exercise_name}: {number_text(r.best_load)}{r.unit} x{r.best_load_reps}; {_estimate(r)}"
                for r in result.personal_records
            )
        if result.streaks is not None:
            k = result.streaks
            if k.weekly:
                lines.append(
                    f"streak (trains some days a week, counted in weeks): {k.current_weeks} weeks in a row "
                    f"(longest {k.longest_weeks}), {k.days_this_week} sessions this week"
                )
            else:
                lines.append(
                    f"streak: {k.current_days} days (longest {k.longest_days}), {k.current_weeks} weeks in a "
                    f"row (longest {k.longest_weeks})"
                )
        if result.adherence is not None and result.adherence.planned:
            a = result.adherence
            lines.append(f"plan adherence: {a.done} of {a.planned} scheduled sessions done ({a.percent}%)")
        weeks = result.weekly_hard_sets
        if weeks:
            lines.append("Weekly hard sets (secondary muscles = half):")
            shown = sorted(weeks)[-SHOWN_WEEKS:]
            for week in shown:
                top = sorted(weeks[week].items(), key=lambda m: (-m[1], m[0]))
                label = week_text(week, shown)
                lines.append(f"  {label}: " + ", ".join(f"{m} {number_text(v)}" for m, v in top))
        return "\n".join(lines)


def _estimate(r: PersonalRecord) -> str:
    """'e1RM 116 from 100 x 5 @RPE 8 on 2026-02-03 (Epley 123/Brzycki 124)': the estimate and its set."""
    if r.e1rm is None or r.e1rm_set is None:
        return f"e1RM {number_text(r.epley_1rm, 0)}/{number_text(r.brzycki_1rm, 0)}"
    done = r.e1rm_set
    text = f"e1RM {number_text(r.e1rm, 0)} from {number_text(done.load)} x {done.reps}"
    text += f" @RPE {number_text(done.rpe)}" if done.rpe is not None else ""
    text += f" on {done.date.isoformat()}" if done.date else ""
    if r.epley_1rm is not None and r.brzycki_1rm is not None:
        text += f" (Epley {number_text(r.epley_1rm, 0)}/Brzycki {number_text(r.brzycki_1rm, 0)})"
    return text


STREAK_DAYS = 366


async def _streaks_and_adherence(
    ctx: ToolContext, start: datetime | None, zone: tzinfo, preferred_days: list[str]
) -> tuple[Streaks, Adherence]:
    """Streaks over the last year (a streak does not stop at the period's start) and adherence over the
    period (at most the last year), up to the start of today."""
    now = ctx.now()
    today = stats.local_day(now, zone)
    year_ago = now - timedelta(days=STREAK_DAYS)
    since = max(start, year_ago) if start is not None else year_ago
    async with ctx.user_data.reading() as data:
        recent = plain(await data.history.between(year_ago, None))
        scheduled = plain(await data.schedule.between(since, now))
    return (
        Streaks.model_validate(progress.training_streaks(recent, today, zone, preferred_days=preferred_days)),
        Adherence.model_validate(progress.plan_adherence(scheduled, recent, today, zone)),
    )


def _span(s: WorkoutStats) -> str:
    start = s.start.date().isoformat() if s.start else "start"
    end = s.end.date().isoformat() if s.end else "now"
    return f"{start}..{end}"


def week_text(start: date, shown: list[date]) -> str:
    """'week of 16 Feb'; with the year when the weeks shown span more than one."""
    return week_label(start, with_year=len({d.year for d in shown}) > 1)


class BreakdownArgs(BaseModel):
    model_config = STRICT_NUMBERS
    breakdown_type: BreakdownType = Field(description="What to split by")
    time_period: TimePeriod = Field(default="month", description=PERIOD)


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
        return stats_answers.breakdown_answer(self, stats_kind(ctx.text), ctx)


class GetExerciseBreakdown(Tool[BreakdownArgs, ExerciseBreakdownResult]):
    name = "get_exercise_breakdown"
    can_finish = True
    description = (
        "How a period's training splits by goal category, muscle, exercise type or exercise, in percent."
    )
    Args = BreakdownArgs
    Result = ExerciseBreakdownResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Breaking down your training...", done="Breakdown ready"
    )
    category = "full"

    async def execute(self, args: BreakdownArgs, ctx: ToolContext) -> ExerciseBreakdownResult:
        rows, *_ = await _history(ctx, args.time_period)
        return ExerciseBreakdownResult(
            breakdown_type=args.breakdown_type,
            time_period=args.time_period,
            exercise_count=len(rows),
            breakdown=[
                BreakdownItem.model_validate(b) for b in stats.exercise_breakdown(rows, args.breakdown_type)
            ],
        )

    def format(self, result: ExerciseBreakdownResult) -> str:
        items = result.breakdown
        head = f"by {result.breakdown_type}, {result.time_period} ({result.exercise_count} exercises)"
        if not items:
            return f"{head}: nothing logged"
        lines = [f"  {b.name}: {number_text(b.percentage)}% ({b.sets} sets)" for b in items[:SHOWN_ITEMS]]
        if len(items) > SHOWN_ITEMS:
            lines.append(f"  ... {len(items) - SHOWN_ITEMS} more")
        return "\n".join([head, *lines])


class TrendsArgs(BaseModel):
    model_config = STRICT_NUMBERS
    metric: TrendMetric = Field(description="What to follow")
    exercise_name: str | None = Field(default=None, max_length=120, description="One exercise (optional)")
    time_period: TimePeriod = Field(default="quarter", description=PERIOD)


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
        return stats_answers.trends_answer(self, ctx)


class GetProgressTrends(Tool[TrendsArgs, ProgressTrendsResult]):
    name = "get_progress_trends"
    can_finish = True
    description = (
        "A metric week by week (weight: heaviest load; e1rm: best estimated 1RM; frequency: workouts; "
        "duration: minutes), overall or for one exercise."
    )
    Args = TrendsArgs
    Result = ProgressTrendsResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Analysing your progress...", done="Trends ready"
    )
    category = "full"

    async def execute(self, args: TrendsArgs, ctx: ToolContext) -> ProgressTrendsResult:
        rows, _, _, settings, _, zone = await _history(ctx, args.time_period)
        body_weight = await _body_weight(ctx, settings.weight_unit) if args.metric == "volume" else None
        trends = stats.progress_trends(
            rows,
            args.metric,
            args.exercise_name,
            args.time_period,
            now=ctx.now(),
            unit=settings.weight_unit,
            tz=zone,
            body_weight=body_weight,
        )
        return ProgressTrendsResult(trends=ProgressTrends.model_validate(trends))

    def format(self, result: ProgressTrendsResult) -> str:
        t = result.trends
        subject = t.metric + (f" for {t.exercise_name}" if t.exercise_name else "")
        if not t.series:
            return f"{subject}, {t.period}: no data"
        unit = {
            "weight": t.unit,
            "e1rm": t.unit,
            "volume": t.unit,
            "duration": "min",
            "frequency": "workouts",
        }.get(t.metric, "")
        change = f", {number_text(t.percent_change)}%" if t.percent_change is not None else ""
        head = (
            f"{subject}, {t.period} ({unit or 'reps'}): {t.direction}{change}, "
            f"slope {number_text(t.slope_per_week, 2)}/week"
        )
        shown = t.series[-SHOWN_WEEKS:]
        days = [s.week_start for s in shown]
        points = "; ".join(
            f"{week_text(s.week_start, days)}: {number_text(s.value)}"
            + (f" ({number_text(s.set.load)} x {s.set.reps})" if s.set is not None else "")
            for s in shown
        )
        return f"{head}\n  {points}"


class SummaryArgs(BaseModel):
    model_config = STRICT_NUMBERS
    time_period: TimePeriod = Field(default="month", description=PERIOD)
    include_sections: list[Section] | None = Field(default=None, description="Default: all")


class StatsSummaryResult(ToolResult):
    time_period: TimePeriod
    sections: list[Section] = Field(default_factory=list)
    summary: str
    """The readable summary (one line per section)."""

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return plain_text(self.summary)


class GenerateStatsSummary(Tool[SummaryArgs, StatsSummaryResult]):
    name = "generate_stats_summary"
    can_finish = True
    description = (
        "An overview of a period's training: totals, category and muscle split, top exercises, records, "
        "goals against targets."
    )
    Args = SummaryArgs
    Result = StatsSummaryResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Summarising your training...", done="Summary ready"
    )
    category = "full"

    async def execute(self, args: SummaryArgs, ctx: ToolContext) -> StatsSummaryResult:
        sections: list[Section] = list(dict.fromkeys(args.include_sections or ALL_SECTIONS))
        rows, start, end, settings, targets, zone = await _history(
            ctx, args.time_period, with_goals="goals" in sections
        )
        summary = stats.stats_summary(
            rows, start, end, settings.weight_unit, sections, goal_targets=targets, tz=zone
        )
        return StatsSummaryResult(time_period=args.time_period, sections=sections, summary=summary)

    def format(self, result: StatsSummaryResult) -> str:
        return f"{result.time_period}:\n{result.summary}"


class MilestoneProgressArgs(BaseModel):
    model_config = STRICT_NUMBERS
    milestone_id: str | None = Field(
        default=None, max_length=64, description="One milestone (default: every active one)"
    )


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
        return stats_answers.milestone_progress_text(self, ctx.today)


class GetMilestoneProgress(Tool[MilestoneProgressArgs, MilestoneProgressResult]):
    name = "get_milestone_progress"
    description = (
        "Progress toward milestones from the whole log: the best effort against each target, met or not."
    )
    Args = MilestoneProgressArgs
    Result = MilestoneProgressResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Checking your milestones...", done="Milestones checked"
    )
    category = "full"

    async def execute(self, args: MilestoneProgressArgs, ctx: ToolContext) -> MilestoneProgressResult:
        async with ctx.user_data.reading() as data:
            settings = await data.settings.get()
            milestones = plain(await data.milestones.with_status("all" if args.milestone_id else "active"))
            if args.milestone_id:
                milestones = [m for m in milestones if str(m["id"]) == args.milestone_id]
                if not milestones:
                    raise ToolError(f"milestone {args.milestone_id} not found")
            rows = plain(await data.history.between(None, None)) if milestones else []
        return MilestoneProgressResult(
            milestones=[
                MilestoneProgress.model_validate(
                    {**m, **progress.milestone_progress(m, rows, weight_unit=settings.weight_unit)}
                )
                for m in milestones
            ]
        )

    def format(self, result: MilestoneProgressResult) -> str:
        if not result.milestones:
            return "no active milestones"
        lines = []
        for m in result.milestones:
            target = (
                f"{number_text(m.target_value)} {m.target_unit or ''}".strip()
                if m.target_value
                else "no target"
            )
            if m.target_reps:
                target += f" x{m.target_reps}"
            if m.time_limit_min:
                target += f" in {number_text(m.time_limit_min)} min"
            best = f"best {number_text(m.best)}" if m.best is not None else "nothing logged"
            if m.best_time_min is not None:
                best += f" (fastest {number_text(m.best_time_min)} min)"
            status = "met" if m.met else f"{m.percent}%" if m.percent is not None else "-"
            lines.append(f"{m.goal_name}: target {target}; {best}; {status} (id={m.id})")
        return "\n".join(lines)


TOOLS: list[AnyTool] = [
    GetWorkoutStatistics(),
    GetExerciseBreakdown(),
    GetProgressTrends(),
    GenerateStatsSummary(),
    GetMilestoneProgress(),
]
