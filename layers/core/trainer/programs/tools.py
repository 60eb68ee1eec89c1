"""Training-plan tools: request a generated multi-week plan (built in the background), change a week or
a day of it ("I'm travelling next week, hotel gym only"), read a day's planned workout with its
message, and show the plan: the chat agent's tools of the programs package. They call the program
pipeline (trainer.programs.pipeline) with the dependencies the turn hands them in `ctx.programs`.
Labelled calendar sessions without exercises are the calendar tools' (tools/calendar.py); both read
dates as tools/dates.py does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from trainer.domain.weekdays import Weekday as Weekday  # the offline coach's parser names it from here
from trainer.domain.workout import STRICT_NUMBERS
from trainer.programs.changes import WeekChange
from trainer.programs.models import MAX_WEEKS, MIN_WEEKS, PlanRequest
from trainer.programs.pipeline import (
    ProgramDeps,
    ProgramError,
    change_day,
    change_training_days,
    change_week,
    request_plan,
    workout_for,
)
from trainer.programs.plan_briefs import (
    PLAN_EXAMPLE,
    PlanBrief,
    PlannedDayBrief,
    describe_plan,
    plan_overview_text,
    plan_requested_text,
    short_date,
)
from trainer.services.rows import plain
from trainer.services.usage_limits import BudgetExceeded
from trainer.store.repositories import RepositoryError
from trainer.tools.artifacts import WorkoutJson
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.dates import Day, local_today, parse_day, user_zone
from trainer.tools.wording import ReplyContext, day_text, joined


def _deps(ctx: ToolContext) -> ProgramDeps:
    if not isinstance(ctx.programs, ProgramDeps):
        raise ToolError("training plans are not available right now")
    return ctx.programs


# --- request_training_plan ------------------------------------------------------------------------


class RequestTrainingPlanArgs(BaseModel):
    model_config = STRICT_NUMBERS
    weeks: int = Field(default=12, ge=MIN_WEEKS, le=MAX_WEEKS, description="Length of the plan in weeks")
    days_per_week: int | None = Field(default=None, ge=1, le=7, description="Training days a week")
    training_days: list[Weekday] | None = Field(
        default=None, max_length=7, description="Weekday names to train on; default: the user's days"
    )
    session_minutes: int | None = Field(default=None, ge=15, le=180, description="Length of a session")
    goal: str | None = Field(default=None, max_length=500, description="What the user wants, in their words")
    start_date: str | None = Field(
        default=None, max_length=10, description="ISO date of the first day; default: today"
    )


class RequestTrainingPlanResult(ToolResult):
    plan: PlanBrief

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return plan_requested_text(self.plan, ctx.today)


class RequestTrainingPlan(Tool[RequestTrainingPlanArgs, RequestTrainingPlanResult]):
    name = "request_training_plan"
    can_finish = True
    description = (
        "Start a multi-week training plan (phases, deloads, each week's workouts and loads), built in the "
        "background: the result says whether it is ready yet."
    )
    Args = RequestTrainingPlanArgs
    Result = RequestTrainingPlanResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Starting your training plan...", done="Training plan requested"
    )
    category = "summary"

    async def execute(self, args: RequestTrainingPlanArgs, ctx: ToolContext) -> RequestTrainingPlanResult:
        deps = _deps(ctx)
        request = PlanRequest(
            weeks=args.weeks,
            days_per_week=args.days_per_week,
            training_days=args.training_days,
            session_minutes=args.session_minutes,
            goal=args.goal,
            start_date=parse_day(args.start_date, "start_date") if args.start_date else None,
        )
        try:
            row = await request_plan(deps, ctx.user_id, request)
        except (ProgramError, BudgetExceeded) as exc:
            raise ToolError(str(exc)) from None
        return RequestTrainingPlanResult(plan=PlanBrief.of(row))

    def format(self, result: RequestTrainingPlanResult) -> str:
        plan = result.plan
        match plan.status:
            case "pending":
                return (
                    f"Training plan requested: {plan.outline()}. It is being built now and is NOT ready "
                    "yet; tell the user it is on its way and that they can ask for it here or see it in "
                    "the app's plans once it is ready."
                )
            case "ready":
                return f"Training plan ready: {describe_plan(plan)}"
        return f"The training plan could not be built: {plan.error or 'unknown reason'}."


# --- show_training_plan ---------------------------------------------------------------------------


class ShowTrainingPlanArgs(BaseModel):
    model_config = STRICT_NUMBERS


class ShowTrainingPlanResult(ToolResult):
    plan: PlanBrief | None = None
    """A plan still being built (the newest), else the active plan, else the newest (failed); None when
    the user has none."""
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return plan_overview_text(self.plan, ctx.today)


class ShowTrainingPlan(Tool[ShowTrainingPlanArgs, ShowTrainingPlanResult]):
    name = "show_training_plan"
    description = (
        "The user's training plan: whether it is ready, its length, days, phases, deloads and weeks."
    )
    Args = ShowTrainingPlanArgs
    Result = ShowTrainingPlanResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Reading your training plan...", done="Training plan read"
    )
    category = "summary"

    async def execute(self, args: ShowTrainingPlanArgs, ctx: ToolContext) -> ShowTrainingPlanResult:
        async with ctx.user_data.reading() as data:
            zone = user_zone(await data.settings.get())
            shown = await data.training_plans.shown()
        if shown is None:
            return ShowTrainingPlanResult(plan=None)
        today = ctx.now().astimezone(zone).date()
        return ShowTrainingPlanResult(plan=PlanBrief.of(shown.plan, shown.built_weeks, today))

    def format(self, result: ShowTrainingPlanResult) -> str:
        plan = result.plan
        if plan is None:
            return "The user has no training plan yet."
        match plan.status:
            case "pending":
                return f"The training plan is still being built (NOT ready yet): {plan.outline()}."
            case "failed":
                return f"The last training plan could not be built: {plan.error or 'unknown reason'}."
        return describe_plan(plan)


# --- change_training_week / change_training_day ---------------------------------------------------


class ChangeFields(BaseModel):
    """What changes, for a week or a day of the plan."""

    model_config = STRICT_NUMBERS
    reason: str = Field(min_length=1, max_length=300, description="The user's words, e.g. 'hotel gym only'")
    location: str | None = Field(default=None, max_length=80, description="A saved location to train at")
    equipment: list[str] | None = Field(
        default=None, max_length=40, description="Equipment available instead; ['bodyweight'] for none"
    )
    session_minutes: int | None = Field(default=None, ge=15, le=180, description="Minutes per session")
    avoid: list[str] = Field(
        default_factory=list, max_length=10, description="Muscles, body areas or exercises to leave out"
    )


class ChangeTrainingWeekArgs(ChangeFields):
    week: Literal["current", "next"] | int = Field(
        default="next", description="'current', 'next', or a week number of the plan"
    )
    training_days: list[Weekday] | None = Field(
        default=None, max_length=7, description="Weekday names to train on that week"
    )


class ChangeTrainingWeekResult(ToolResult):
    week_number: int
    rebuilt: bool
    reason: str
    days: list[PlannedDayBrief] = Field(default_factory=list)

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        week = self.week_number
        if not self.days or not self.rebuilt:
            return f"Week {week} of your plan has no days left to change, so I left it as it is."
        lines = [f"Done - week {week} of your plan is rebuilt around that:"]
        return "\n".join([*lines, *(planned.line() for planned in self.days)])


class ChangeTrainingWeek(Tool[ChangeTrainingWeekArgs, ChangeTrainingWeekResult]):
    name = "change_training_week"
    can_finish = True
    description = (
        "Rebuild a week of the training plan for a change ('hotel gym next week', 'only 30 minutes a day "
        "this week'); days already done stay."
    )
    Args = ChangeTrainingWeekArgs
    Result = ChangeTrainingWeekResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Rebuilding that week of your plan...", done="Week rebuilt"
    )
    category = "summary"

    async def execute(self, args: ChangeTrainingWeekArgs, ctx: ToolContext) -> ChangeTrainingWeekResult:
        change = week_change(args, training_days=args.training_days)
        try:
            build = await change_week(_deps(ctx), ctx.user_id, change, week=args.week)
        except ProgramError as exc:
            raise ToolError(exc.message) from None
        return ChangeTrainingWeekResult(
            week_number=build.week_number,
            rebuilt=build.built,
            reason=args.reason,
            days=[PlannedDayBrief.of(d) for d in build.days],
        )

    def format(self, result: ChangeTrainingWeekResult) -> str:
        if not result.days:
            return f"Week {result.week_number} of the plan has no days left to change."
        verb = "rebuilt" if result.rebuilt else "left as it was"
        lines = [f"Week {result.week_number} of the plan {verb} for '{result.reason}':"]
        lines.extend(day.line() for day in result.days)
        return "\n".join(lines)


class ChangeTrainingDayArgs(ChangeFields):
    day: str | None = Field(default=None, max_length=10, description="ISO date of the day; default: today")


class ChangeTrainingDayResult(ToolResult):
    reason: str
    day: PlannedDayBrief

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return f"Done - that day of your plan is rebuilt around it. {self.day.line()}"


class ChangeTrainingDay(Tool[ChangeTrainingDayArgs, ChangeTrainingDayResult]):
    name = "change_training_day"
    can_finish = True
    description = (
        "Rebuild one day of the training plan for a change ('only 20 minutes today', 'no legs tomorrow')."
    )
    Args = ChangeTrainingDayArgs
    Result = ChangeTrainingDayResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Rebuilding that day of your plan...", done="Day rebuilt"
    )
    category = "summary"

    async def execute(self, args: ChangeTrainingDayArgs, ctx: ToolContext) -> ChangeTrainingDayResult:
        day = parse_day(args.day, "day") if args.day else await local_today(ctx)
        try:
            row = await change_day(_deps(ctx), ctx.user_id, day, week_change(args))
        except ProgramError as exc:
            raise ToolError(exc.message) from None
        return ChangeTrainingDayResult(reason=args.reason, day=PlannedDayBrief.of(row))

    def format(self, result: ChangeTrainingDayResult) -> str:
        return f"Day rebuilt for '{result.reason}': {result.day.line()}"


def week_change(args: ChangeFields, *, training_days: list[Weekday] | None = None) -> WeekChange:
    return WeekChange(
        reason=args.reason,
        location=args.location,
        equipment=args.equipment,
        session_minutes=args.session_minutes,
        training_days=training_days,
        avoid=list(args.avoid),
    )


# --- change_training_days -------------------------------------------------------------------------


class ChangeTrainingDaysArgs(BaseModel):
    model_config = STRICT_NUMBERS
    training_days: list[Weekday] = Field(
        min_length=1, max_length=7, description="The weekdays the user can train on from now on"
    )
    reason: str = Field(
        default="the user's available days changed",
        min_length=1,
        max_length=300,
        description="The user's words",
    )


class MovedSession(BaseModel):
    session: str
    from_date: Day
    to_date: Day


class DroppedSession(BaseModel):
    session: str
    date: Day


class ChangeTrainingDaysResult(ToolResult):
    training_days: list[str]
    has_plan: bool
    moved: list[MovedSession] = Field(default_factory=list)
    dropped: list[DroppedSession] = Field(default_factory=list)
    summary: str

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        days = joined(self.training_days)
        if not self.has_plan:
            return f"Got it - you train on {days} from now on. I'll plan around those days."
        lines = [f"Done - your plan now trains on {days} from now on."]
        for moved in self.moved:
            lines.append(
                f"- {moved.session}: moved from {day_text(moved.from_date, ctx.today)} to "
                f"{day_text(moved.to_date, ctx.today)}"
            )
        for dropped in self.dropped:
            lines.append(
                f"- {dropped.session} on {day_text(dropped.date, ctx.today)}: dropped - no day left that "
                "week without two hard sessions in a row"
            )
        if not self.moved and not self.dropped:
            lines.append("The sessions still to come already fall on those days, so nothing had to move.")
        lines.append("Hard sessions never land on consecutive days; later weeks will be built on these days.")
        return "\n".join(lines)


class ChangeTrainingDays(Tool[ChangeTrainingDaysArgs, ChangeTrainingDaysResult]):
    name = "change_training_days"
    can_finish = True
    description = (
        "Save the days the user can train from now on and move the plan's remaining sessions onto them."
    )
    Args = ChangeTrainingDaysArgs
    Result = ChangeTrainingDaysResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Moving your plan to your new days...", done="Training days changed"
    )
    category = "summary"

    async def execute(self, args: ChangeTrainingDaysArgs, ctx: ToolContext) -> ChangeTrainingDaysResult:
        try:
            report = await change_training_days(
                _deps(ctx), ctx.user_id, list(args.training_days), args.reason
            )
        except (ProgramError, RepositoryError) as exc:
            raise ToolError(str(exc)) from None
        return ChangeTrainingDaysResult(
            training_days=report.days,
            has_plan=report.has_plan,
            moved=[MovedSession(session=n, from_date=a, to_date=b) for n, a, b in report.moved],
            dropped=[DroppedSession(session=n, date=d) for n, d in report.dropped],
            summary=report.summary(),
        )

    def format(self, result: ChangeTrainingDaysResult) -> str:
        return result.summary


# --- get_planned_workout --------------------------------------------------------------------------


class GetPlannedWorkoutArgs(BaseModel):
    model_config = STRICT_NUMBERS
    day: str | None = Field(default=None, max_length=10, description="ISO date; default: today")


class GetPlannedWorkoutResult(ToolResult):
    day: Day
    planned: PlannedDayBrief | None = None
    workout: WorkoutJson | None = None
    """The structured workout of a training day (the app's workout schema)."""
    has_plan: bool = True
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        when = day_text(self.day, ctx.today)
        planned = self.planned
        if planned is None:
            if not self.has_plan:
                return (
                    f"You don't have a training plan yet, so nothing is planned for {when}. I can give you a "
                    f"workout now, or build you a plan - for example '{PLAN_EXAMPLE}'."
                )
            return f"Nothing is planned for {when} yet: that week of your plan isn't built."
        if planned.kind == "rest":
            notes = f" {planned.recovery_notes}" if planned.recovery_notes else ""
            day = f"{when[:1].upper()}{when[1:]}"
            return f"{day} is a rest day (week {planned.week_number} of your plan).{notes}"
        heading = f"Your workout for {when}, week {planned.week_number} of your plan:"
        return f"{heading}\n{planned.message or planned.line()}"


class GetPlannedWorkout(Tool[GetPlannedWorkoutArgs, GetPlannedWorkoutResult]):
    name = "get_planned_workout"
    description = (
        "A day's workout from the training plan (default today), with its message, or a rest day's notes."
    )
    Args = GetPlannedWorkoutArgs
    Result = GetPlannedWorkoutResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Looking up your planned workout...", done="Planned workout found"
    )
    category = "full"

    async def execute(self, args: GetPlannedWorkoutArgs, ctx: ToolContext) -> GetPlannedWorkoutResult:
        day = parse_day(args.day, "day") if args.day else await local_today(ctx)
        try:
            row = await workout_for(_deps(ctx), ctx.user_id, day)
        except ProgramError as exc:
            raise ToolError(exc.message) from None
        if row is None:
            has_plan = await ctx.user_data.training_plans.exists()
            return GetPlannedWorkoutResult(day=day, has_plan=has_plan)
        return GetPlannedWorkoutResult(
            day=day, planned=PlannedDayBrief.of(row), workout=plain(row.get("workout"))
        )

    def format(self, result: GetPlannedWorkoutResult) -> str:
        planned = result.planned
        when = short_date(result.day)
        if planned is None:
            if not result.has_plan:
                return f"Nothing planned for {when}: the user has no training plan."
            return f"Nothing planned for {when} in the user's training plan (that week is not built yet)."
        if planned.kind == "rest":
            notes = f" {planned.recovery_notes}" if planned.recovery_notes else ""
            return f"{when} is a rest day (week {planned.week_number} of the plan).{notes}"
        heading = f"Planned for {when} (week {planned.week_number} of the plan):"
        return f"{heading}\n{planned.message or planned.line()}"


TOOLS: list[AnyTool] = [
    RequestTrainingPlan(),
    ShowTrainingPlan(),
    GetPlannedWorkout(),
    ChangeTrainingWeek(),
    ChangeTrainingDay(),
    ChangeTrainingDays(),
]
