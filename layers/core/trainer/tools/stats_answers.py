"""The answers to a question about the user's training, from the analytics tools' results
(trainer.tools.analytics): counts, streaks, adherence, records, distances, the most-worked muscles,
summaries, trends and milestone progress. The kind of answer and the period come from the user's
words (trainer.domain.stats_questions); the numbers only from the results."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from trainer.domain.message_words import best_name
from trainer.tools.wording import ReplyContext, count_words, day_text, joined, number_text

if TYPE_CHECKING:
    from datetime import date

    from trainer.tools.analytics import (
        ExerciseBreakdownResult,
        MilestoneProgressResult,
        ProgressTrendsResult,
        WorkoutStatisticsResult,
    )

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
    if kind == "summary":
        return summary_text(result, label)
    if not stats.total_exercises:
        return f"You logged 0 workouts {label}."
    return (
        f"You did {workouts} {label} "
        f"({count_words(stats.total_exercises, 'exercise', 'exercises')}, "
        f"{count_words(stats.total_sets, 'set', 'sets')})."
    )


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
