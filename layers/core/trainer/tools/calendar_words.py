"""What the calendar tools' results (trainer.tools.calendar) tell the user, registered by result type
(trainer.tools.wording.words_beside) until tools/calendar.py says them itself: a session scheduled,
moved, skipped, removed or swapped, the missed sessions the plan adapted to, a calendar plan created,
a milestone saved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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
from trainer.tools.stats_answers import milestone_target_text
from trainer.tools.wording import ReplyContext, count_words, day_text, joined, words_beside


def scheduled_when(workout: ScheduledWorkout, ctx: ReplyContext) -> str:
    local = workout.scheduled_date.astimezone(ctx.zone)
    when = day_text(workout.date, ctx.today)
    return when if (local.hour, local.minute) == (0, 0) else f"{when} at {local:%H:%M}"


@words_beside(ScheduleWorkoutResult, needs_user_context=True)
def scheduled(result: ScheduleWorkoutResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    workout = result.workout
    return f"Scheduled your {workout.workout_type} workout for {scheduled_when(workout, ctx)}."


@words_beside(UpdateScheduledWorkoutResult, needs_user_context=True)
def updated(result: UpdateScheduledWorkoutResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    workout, changed = result.workout, result.changed
    warning = f" Heads up: {workout.recovery_warning}." if workout.recovery_warning else ""
    if "scheduled_date" in changed:
        return f"Moved your {workout.workout_type} workout to {scheduled_when(workout, ctx)}.{warning}"
    if changed == ["status"] and workout.status == "skipped":
        kept = " It stays in your plan marked skipped." if workout.source == "plan" else ""
        return f"Skipped your {workout.workout_type} session on {scheduled_when(workout, ctx)}.{kept}"
    return f"Updated your {workout.workout_type} workout on {scheduled_when(workout, ctx)}."


@words_beside(DeleteScheduledWorkoutResult, needs_user_context=True)
def deleted(result: DeleteScheduledWorkoutResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    workout = result.workout
    if workout.source == "plan":
        day = day_text(workout.scheduled_date.astimezone(ctx.zone).date(), ctx.today)
        return (
            f"Skipped your {workout.workout_type} session on {day}: it's a day of your plan, so it "
            "stays in its week marked skipped."
        )
    return f"Removed the {workout.workout_type} workout from your schedule."


@words_beside(SwapScheduledWorkoutsResult, needs_user_context=True)
def swapped(result: SwapScheduledWorkoutsResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    first, second = result.first, result.second
    warnings = {w.recovery_warning for w in (first, second) if w.recovery_warning}
    heads_up = f" Heads up: {joined(sorted(warnings))}." if warnings else ""
    return (
        "Moved them so they trade days: "
        f"{first.workout_type} is now on {scheduled_when(first, ctx)} and {second.workout_type} "
        f"on {scheduled_when(second, ctx)}.{heads_up}"
    )


@words_beside(MissedSessionsResult, needs_user_context=True)
def missed_sessions(result: MissedSessionsResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    return missed_text(result.missed, ctx)


def missed_text(missed: Sequence[MissedSession], ctx: ReplyContext) -> str:
    """What the plan noticed and changed for the sessions missed, in words."""
    if not missed:
        return (
            "I don't see any missed sessions in your training plan recently - every planned day so far is "
            "either logged or still to come. If you trained without logging it, tell me what you did and "
            "I'll log it."
        )
    count = count_words(len(missed), "missed session", "missed sessions")
    lines = [f"I see {count} in your plan, and here's how I adapted what comes next:"]
    for m in missed:
        said = " ".join(m.changes).removeprefix("Missed ")
        lines.append(f"- {said or f'{m.workout_type} on {day_text(m.date, ctx.today)}'}")
    lines.append("No two hard sessions are back to back, and nothing moved onto a day you don't train.")
    return "\n".join(lines)


@words_beside(CreateWorkoutPlanResult)
def plan_created(result: CreateWorkoutPlanResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    plan, count = result.plan, result.scheduled_count
    per_week = f"{plan.workouts_per_week} workouts a week, " if plan.workouts_per_week else ""
    days = f" on {joined(plan.preferred_days)}" if plan.preferred_days else ""
    return (
        f"Created your {plan.plan_name}: {plan.duration_weeks} weeks, {per_week}"
        f"{count_words(count, 'workout', 'workouts')} scheduled{days}, starting "
        f"{day_text(plan.start_date, ctx.today)}."
    )


@words_beside(ManageMilestoneResult, needs_user_context=True)
def milestone_saved(result: ManageMilestoneResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    milestone = result.milestone
    target = f" by {day_text(milestone.target_date, None)}" if milestone.target_date else ""
    return f"Milestone saved: {milestone_target_text(milestone)}{target}."
