"""Statistics tools (seed 000 §4.8): computed in code by trainer.domain.statistics from one history query
for the period, in the user's units. Formatters stay compact (rounded numbers, capped lists)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trainer.domain import statistics as stats
from trainer.store.repositories.goals import list_category_goals
from trainer.store.repositories.history import list_between
from trainer.store.repositories.settings import get_user_settings
from trainer.tools.base import StatusMessage, Tool, ToolContext, ToolError
from trainer.tools.calendar import parse_when, user_zone
from trainer.tools.data import db_user, number_text, plain, transaction

TimePeriod = Literal["week", "month", "quarter", "year", "all_time"]
Section = Literal["overview", "category_breakdown", "muscle_breakdown", "top_exercises", "progress", "goals"]
TOP_RECORDS = 10
SHOWN_ITEMS = 12
SHOWN_WEEKS = 12


async def _history(
    ctx: ToolContext,
    time_period: str,
    start_date: str | None = None,
    end_date: str | None = None,
    *,
    with_goals: bool = False,
) -> tuple[list[dict[str, Any]], datetime | None, datetime, dict[str, Any], dict[str, float]]:
    """(rows, start, end, settings, category goal targets) for the period, in one transaction."""
    user = db_user(ctx)
    now = ctx.now()
    async with transaction(ctx) as conn:
        settings = await get_user_settings(conn, user)
        zone = user_zone(settings)
        start, end = stats.period_range(time_period, now)
        if start_date:
            start, _ = parse_when(start_date, "start_date", zone)
        if end_date:
            end, date_only = parse_when(end_date, "end_date", zone)
            if date_only:
                end += timedelta(days=1)
        if start is not None and start >= end:
            raise ToolError("start_date must be before end_date")
        rows = await list_between(conn, user, start, end)
        goals = await list_category_goals(conn, user) if with_goals else []
    targets = {g["category"]: float(g["weight"]) for g in goals}
    return plain(rows), start, end, settings, targets


class StatisticsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    time_period: TimePeriod = Field(default="month", description="Period ending now (default month)")
    start_date: str | None = Field(
        default=None, max_length=40, description="Custom ISO start (overrides the period)"
    )
    end_date: str | None = Field(default=None, max_length=40, description="Custom ISO end (inclusive date)")


class GetWorkoutStatistics(Tool):
    name = "get_workout_statistics"
    description = (
        "Workout statistics for a period: workouts, sets, volume, duration, frequency, average RPE, personal "
        "records with estimated 1RM (Epley, Brzycki) and weekly hard sets per muscle."
    )
    Args = StatisticsArgs
    status = StatusMessage(start="Crunching your numbers...", done="Statistics ready")
    category = "full"

    async def execute(self, args: StatisticsArgs, ctx: ToolContext) -> dict[str, Any]:
        rows, start, end, settings, _ = await _history(ctx, args.time_period, args.start_date, args.end_date)
        unit = settings["weight_unit"]
        overview = stats.workout_statistics(rows, start, end, unit)
        overview["total_distance"] = stats.distance_total(rows, settings["distance_unit"])
        overview["distance_unit"] = settings["distance_unit"]
        records = sorted(stats.personal_records(rows, unit).values(), key=lambda r: -r["epley_1rm"])
        return {
            "success": True,
            "time_period": args.time_period,
            "stats": overview,
            "personal_records": records[:TOP_RECORDS],
            "weekly_hard_sets": stats.weekly_hard_sets(rows),
        }

    def format(self, result: dict[str, Any]) -> str:
        s = result["stats"]
        if not s["total_exercises"]:
            return f"no exercises logged in this period ({_span(s)})"
        rpe = f", avg RPE {number_text(s['average_rpe'])}" if s.get("average_rpe") is not None else ""
        distance = (
            f", {number_text(s['total_distance'], 2)} {s['distance_unit']}" if s.get("total_distance") else ""
        )
        lines = [
            f"{_span(s)}: {s['total_workouts']} workouts ({number_text(s['workouts_per_week'], 2)}/week), "
            f"{s['total_exercises']} exercises, {s['total_sets']} sets, "
            f"volume {number_text(s['total_volume'], 0)} {s['unit']}, "
            f"{number_text(s['total_duration_min'])} min{distance}{rpe}"
        ]
        records = result.get("personal_records") or []
        if records:
            lines.append("PRs (best load; est. 1RM Epley/Brzycki):")
            lines.extend(
                f"  {r['exercise_name']}: {number_text(r['best_load'])}{r['unit']} x{r['best_load_reps']}; "
                f"e1RM {number_text(r['epley_1rm'], 0)}/{number_text(r['brzycki_1rm'], 0)}"
                for r in records
            )
        weeks = result.get("weekly_hard_sets") or {}
        if weeks:
            lines.append("Weekly hard sets (secondary muscles = half):")
            for week, muscles in list(weeks.items())[-SHOWN_WEEKS:]:
                top = sorted(muscles.items(), key=lambda m: (-m[1], m[0]))
                lines.append(f"  {week}: " + ", ".join(f"{m} {number_text(v)}" for m, v in top))
        return "\n".join(lines)


def _span(s: dict[str, Any]) -> str:
    start = (s.get("start") or "")[:10] or "start"
    end = (s.get("end") or "")[:10] or "now"
    return f"{start}..{end}"


class BreakdownArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    breakdown_type: Literal["category", "muscle", "exercise_type", "exercise_name"]
    time_period: TimePeriod = Field(default="month")


class GetExerciseBreakdown(Tool):
    name = "get_exercise_breakdown"
    description = (
        "How training divides by goal category, muscle (weighted by shares), exercise type or exercise name "
        "over a period, with percentages and sets."
    )
    Args = BreakdownArgs
    status = StatusMessage(start="Breaking down your training...", done="Breakdown ready")
    category = "full"

    async def execute(self, args: BreakdownArgs, ctx: ToolContext) -> dict[str, Any]:
        rows, *_ = await _history(ctx, args.time_period)
        return {
            "success": True,
            "breakdown_type": args.breakdown_type,
            "time_period": args.time_period,
            "exercise_count": len(rows),
            "breakdown": stats.exercise_breakdown(rows, args.breakdown_type),
        }

    def format(self, result: dict[str, Any]) -> str:
        items = result["breakdown"]
        head = (
            f"by {result['breakdown_type']}, {result['time_period']} ({result['exercise_count']} exercises)"
        )
        if not items:
            return f"{head}: nothing logged"
        lines = [
            f"  {b['name']}: {number_text(b['percentage'])}% ({b['sets']} sets)" for b in items[:SHOWN_ITEMS]
        ]
        if len(items) > SHOWN_ITEMS:
            lines.append(f"  ... {len(items) - SHOWN_ITEMS} more")
        return "\n".join([head, *lines])


class TrendsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    metric: Literal["weight", "reps", "volume", "frequency", "duration"]
    exercise_name: str | None = Field(default=None, max_length=120, description="One exercise (optional)")
    time_period: TimePeriod = Field(default="quarter")


class GetProgressTrends(Tool):
    name = "get_progress_trends"
    description = (
        "Weekly trend of a metric (weight = heaviest load, reps, volume, frequency = workouts, duration = "
        "minutes), overall or for one exercise, with slope per week and percent change."
    )
    Args = TrendsArgs
    status = StatusMessage(start="Analysing your progress...", done="Trends ready")
    category = "full"

    async def execute(self, args: TrendsArgs, ctx: ToolContext) -> dict[str, Any]:
        rows, _, _, settings, _ = await _history(ctx, args.time_period)
        trends = stats.progress_trends(
            rows,
            args.metric,
            args.exercise_name,
            args.time_period,
            now=ctx.now(),
            unit=settings["weight_unit"],
        )
        return {"success": True, "trends": trends}

    def format(self, result: dict[str, Any]) -> str:
        t = result["trends"]
        subject = f"{t['metric']}" + (f" for {t['exercise_name']}" if t.get("exercise_name") else "")
        if not t["series"]:
            return f"{subject}, {t['period']}: no data"
        unit = {"weight": t["unit"], "volume": t["unit"], "duration": "min", "frequency": "workouts"}.get(
            t["metric"], ""
        )
        change = f", {number_text(t['percent_change'])}%" if t.get("percent_change") is not None else ""
        head = (
            f"{subject}, {t['period']} ({unit or 'reps'}): {t['direction']}{change}, "
            f"slope {number_text(t['slope_per_week'], 2)}/week"
        )
        points = ", ".join(f"{s['week']} {number_text(s['value'])}" for s in t["series"][-SHOWN_WEEKS:])
        return f"{head}\n  {points}"


class SummaryArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    time_period: TimePeriod = Field(default="month")
    include_sections: list[Section] | None = Field(
        default=None, description="Sections to include (default all)"
    )


class GenerateStatsSummary(Tool):
    name = "generate_stats_summary"
    description = (
        "A readable summary of the user's training for a period (overview, category and muscle breakdown, "
        "top exercises, personal records, goals vs targets), ready to relay to the user."
    )
    Args = SummaryArgs
    status = StatusMessage(start="Summarising your training...", done="Summary ready")
    category = "full"

    async def execute(self, args: SummaryArgs, ctx: ToolContext) -> dict[str, Any]:
        sections = list(dict.fromkeys(args.include_sections or stats.SUMMARY_SECTIONS))
        rows, start, end, settings, targets = await _history(
            ctx, args.time_period, with_goals="goals" in sections
        )
        summary = stats.stats_summary(
            rows, start, end, settings["weight_unit"], sections, goal_targets=targets
        )
        return {"success": True, "time_period": args.time_period, "sections": sections, "summary": summary}

    def format(self, result: dict[str, Any]) -> str:
        return f"{result['time_period']}:\n{result['summary']}"


TOOLS: list[Tool] = [
    GetWorkoutStatistics(),
    GetExerciseBreakdown(),
    GetProgressTrends(),
    GenerateStatsSummary(),
]
