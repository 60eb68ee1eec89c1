"""What the training-plan tools' results (trainer.programs.tools) tell the user, registered by result
type (trainer.tools.wording.words_beside) until programs/tools.py says them itself: a plan requested
(being built, ready or failed), the plan shown, a day's planned workout, a week or a day rebuilt, the
training days changed."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from trainer.programs.tools import (
    ChangeTrainingDayResult,
    ChangeTrainingDaysResult,
    ChangeTrainingWeekResult,
    GetPlannedWorkoutResult,
    PlanBrief,
    RequestTrainingPlanResult,
    ShowTrainingPlanResult,
)
from trainer.tools.wording import ReplyContext, day_text, joined, words_beside

PLAN_EXAMPLE = "make me a 12-week plan, 4 days a week"
"""How a user asks for a plan, for the replies that suggest one."""


@words_beside(RequestTrainingPlanResult)
def plan_requested(result: RequestTrainingPlanResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    return plan_requested_text(result.plan, ctx.today)


@words_beside(ShowTrainingPlanResult, needs_user_context=True)
def plan_shown(result: ShowTrainingPlanResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    return plan_overview_text(result.plan, ctx.today)


@words_beside(GetPlannedWorkoutResult, needs_user_context=True)
def planned_workout(result: GetPlannedWorkoutResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    return planned_workout_text(result, ctx.today)


@words_beside(ChangeTrainingWeekResult)
def week_changed(result: ChangeTrainingWeekResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    week = result.week_number
    if not result.days or not result.rebuilt:
        return f"Week {week} of your plan has no days left to change, so I left it as it is."
    lines = [f"Done - week {week} of your plan is rebuilt around that:"]
    return "\n".join([*lines, *(planned.line() for planned in result.days)])


@words_beside(ChangeTrainingDayResult)
def day_changed(result: ChangeTrainingDayResult, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
    return f"Done - that day of your plan is rebuilt around it. {result.day.line()}"


@words_beside(ChangeTrainingDaysResult)
def training_days_changed(
    result: ChangeTrainingDaysResult, ctx: ReplyContext, arguments: Mapping[str, Any]
) -> str:
    return training_days_text(result, ctx)


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
