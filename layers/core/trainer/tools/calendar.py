"""Calendar tools: scheduled workouts (a training plan's days among them), labelled multi-week plans
laid out on the preferred days, and milestone goals. A generated training plan with exercises is the
training-plan tools' (programs/tools.py); both read dates as tools/dates.py does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, time, timedelta
from typing import Any, ClassVar, Literal, Self
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, model_validator

from trainer.domain.weekdays import DEFAULT_DAYS_BY_COUNT, WEEKDAYS
from trainer.domain.workout import STRICT_NUMBERS
from trainer.services.errors import UserDataError
from trainer.services.rows import Row, plain
from trainer.services.settings import normalise_weekdays
from trainer.services.workout_plans import PlanSession
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.data import number_text
from trainer.tools.dates import Day, check_not_past, parse_day, parse_when, user_zone, zone_of
from trainer.tools.stats_answers import milestone_target_text
from trainer.tools.wording import ReplyContext, count_words, day_text, joined

ScheduleStatus = Literal["scheduled", "completed", "skipped", "cancelled", "missed"]
EntrySource = Literal["calendar", "plan"]
PlanStatus = Literal["active", "completed", "paused", "cancelled"]
MilestoneStatus = Literal["active", "achieved", "abandoned"]
MilestoneAction = Literal["create", "update_progress", "mark_achieved", "abandon"]
MILESTONE_TYPES = ("distance", "weight", "reps", "time", "event", "other")
UNIT_MILESTONE_TYPES: dict[str, str] = {
    "km": "distance", "mi": "distance", "mile": "distance", "miles": "distance", "m": "distance",
    "kg": "weight", "lb": "weight", "lbs": "weight", "rep": "reps", "reps": "reps",
    "s": "time", "sec": "time", "seconds": "time", "min": "time", "minutes": "time", "h": "time",
    "hours": "time",
}  # fmt: skip
DEFAULT_WORKOUT_TYPES = ("Full Body",)
MAX_PLAN_WEEKS = 52


def _local_day(value: Any, zone: ZoneInfo) -> str:
    return value.astimezone(zone).date().isoformat() if isinstance(value, datetime) else str(value)[:10]


def _short_day(day: date) -> str:
    return f"{day.strftime('%a')} {day.isoformat()}"


class ScheduledWorkoutRow(BaseModel):
    """One calendar entry: a workout put on the calendar (`source` calendar) or a day of the active
    training plan (`source` plan); the same ids either way."""

    id: str
    scheduled_date: datetime
    workout_type: str
    duration_minutes: int | None = None
    notes: str | None = None
    exercises: list[dict[str, Any]] = Field(default_factory=list)
    status: ScheduleStatus
    plan_id: str | None = None
    created_at: datetime
    source: EntrySource = "calendar"
    recovery_warning: str | None = None
    """Set when the change put hard sessions on consecutive days."""

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ScheduledWorkoutRow:
        return cls.model_validate(plain(row))


class ScheduledWorkout(ScheduledWorkoutRow):
    """A scheduled workout with its day in the user's timezone."""

    date: Day


def scheduled_when(workout: ScheduledWorkout, ctx: ReplyContext) -> str:
    """'tomorrow', 'Friday 12 March at 18:30': the day in the user's words, and the time when one is set."""
    local = workout.scheduled_date.astimezone(ctx.zone)
    when = day_text(workout.date, ctx.today)
    return when if (local.hour, local.minute) == (0, 0) else f"{when} at {local:%H:%M}"


def _scheduled(row: dict[str, Any], zone: ZoneInfo) -> ScheduledWorkout:
    day = row.get("date") if row.get("source") == "plan" else None
    return ScheduledWorkout.model_validate(
        {**plain(row), "date": day or _local_day(row["scheduled_date"], zone)}
    )


class ScheduleWorkoutArgs(BaseModel):
    model_config = STRICT_NUMBERS
    scheduled_date: str = Field(max_length=40, description="ISO date or datetime, not in the past")
    workout_type: str = Field(
        min_length=1, max_length=100, description="e.g. 'Upper Body Strength', 'Zone 2 Run'"
    )
    duration_minutes: int | None = Field(default=None, ge=1, le=600, description="Planned length")
    notes: str | None = Field(default=None, max_length=2000, description="The user's words about it")
    exercises: list[dict[str, Any]] | None = Field(
        default=None, max_length=30, description="Planned exercises, if any"
    )


class ScheduleWorkoutResult(ToolResult):
    workout: ScheduledWorkout
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return f"Scheduled your {self.workout.workout_type} workout for {scheduled_when(self.workout, ctx)}."


class ScheduleWorkout(Tool[ScheduleWorkoutArgs, ScheduleWorkoutResult]):
    name = "schedule_workout"
    can_finish = True
    description = "Put a workout on the user's calendar for a future date (and optional time)."
    Args = ScheduleWorkoutArgs
    Result = ScheduleWorkoutResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Scheduling your workout...", done="Workout scheduled"
    )
    category = "summary"

    async def execute(self, args: ScheduleWorkoutArgs, ctx: ToolContext) -> ScheduleWorkoutResult:
        zone = await zone_of(ctx)
        moment, date_only = parse_when(args.scheduled_date, "scheduled_date", zone)
        check_not_past(moment, date_only, ctx.now(), zone, "scheduled_date")
        row = await ctx.user_data.schedule.add(
            scheduled_date=moment,
            workout_type=args.workout_type,
            duration_minutes=args.duration_minutes,
            notes=args.notes,
            exercises=args.exercises,
        )
        return ScheduleWorkoutResult(workout=_scheduled(row, zone))

    def format(self, result: ScheduleWorkoutResult) -> str:
        w = result.workout
        minutes = f", {w.duration_minutes} min" if w.duration_minutes else ""
        return f"scheduled: {w.workout_type} on {_short_day(w.date)}{minutes} (id={w.id})"


class UpdateScheduledWorkoutArgs(BaseModel):
    model_config = STRICT_NUMBERS
    workout_id: str = Field(min_length=1, max_length=64, description="The session's id (calendar or plan)")
    scheduled_date: str | None = Field(default=None, max_length=40, description="New ISO date or datetime")
    workout_type: str | None = Field(default=None, min_length=1, max_length=100, description="New name")
    duration_minutes: int | None = Field(default=None, ge=1, le=600, description="New planned length")
    notes: str | None = Field(default=None, max_length=2000, description="New notes")
    exercises: list[dict[str, Any]] | None = Field(
        default=None, max_length=30, description="New planned exercises"
    )
    status: ScheduleStatus | None = Field(default=None, description="'skipped' skips it")


class UpdateScheduledWorkoutResult(ToolResult):
    workout: ScheduledWorkout
    changed: list[str]
    """The fields the call changed, sorted."""
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        workout, changed = self.workout, self.changed
        warning = f" Heads up: {workout.recovery_warning}." if workout.recovery_warning else ""
        if "scheduled_date" in changed:
            return f"Moved your {workout.workout_type} workout to {scheduled_when(workout, ctx)}.{warning}"
        if changed == ["status"] and workout.status == "skipped":
            kept = " It stays in your plan marked skipped." if workout.source == "plan" else ""
            return f"Skipped your {workout.workout_type} session on {scheduled_when(workout, ctx)}.{kept}"
        return f"Updated your {workout.workout_type} workout on {scheduled_when(workout, ctx)}."


class UpdateScheduledWorkout(Tool[UpdateScheduledWorkoutArgs, UpdateScheduledWorkoutResult]):
    name = "update_scheduled_workout"
    can_finish = True
    description = (
        "Change a calendar session, a scheduled workout or a plan day: move it (a plan day onto a rest "
        "day), rename it, or skip it."
    )
    Args = UpdateScheduledWorkoutArgs
    Result = UpdateScheduledWorkoutResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Updating your calendar...", done="Calendar updated"
    )
    category = "summary"

    async def execute(
        self, args: UpdateScheduledWorkoutArgs, ctx: ToolContext
    ) -> UpdateScheduledWorkoutResult:
        changes = args.model_dump(exclude_none=True, exclude={"workout_id"})
        if not changes:
            raise ToolError("nothing to change: give scheduled_date, workout_type, duration_minutes, notes, "
                            "exercises or status")  # fmt: skip
        zone = await zone_of(ctx)
        if args.scheduled_date is not None:
            moment, date_only = parse_when(args.scheduled_date, "scheduled_date", zone)
            check_not_past(moment, date_only, ctx.now(), zone, "scheduled_date")
            changes["scheduled_date"] = moment
        row = await ctx.user_data.schedule.update(args.workout_id, **changes)
        if row is None:
            raise ToolError(f"scheduled workout {args.workout_id} not found")
        return UpdateScheduledWorkoutResult(workout=_scheduled(row, zone), changed=sorted(changes))

    def format(self, result: UpdateScheduledWorkoutResult) -> str:
        w = result.workout
        warning = f" WARNING: {w.recovery_warning}" if w.recovery_warning else ""
        return (
            f"updated: {w.workout_type} on {_short_day(w.date)} [{w.status}] "
            f"({', '.join(result.changed)}; id={w.id}){warning}"
        )


class DeleteScheduledWorkoutArgs(BaseModel):
    model_config = STRICT_NUMBERS
    workout_id: str = Field(min_length=1, max_length=64, description="The scheduled workout's id")


class DeleteScheduledWorkoutResult(ToolResult):
    workout: ScheduledWorkoutRow
    """The deleted workout."""
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        workout = self.workout
        if workout.source == "plan":
            day = day_text(workout.scheduled_date.astimezone(ctx.zone).date(), ctx.today)
            return (
                f"Skipped your {workout.workout_type} session on {day}: it's a day of your plan, so it "
                "stays in its week marked skipped."
            )
        return f"Removed the {workout.workout_type} workout from your schedule."


class DeleteScheduledWorkout(Tool[DeleteScheduledWorkoutArgs, DeleteScheduledWorkoutResult]):
    name = "delete_scheduled_workout"
    can_finish = True
    description = "Remove a scheduled workout from the calendar (a plan day cannot go: it is marked skipped)."
    Args = DeleteScheduledWorkoutArgs
    Result = DeleteScheduledWorkoutResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Removing from your calendar...", done="Workout removed"
    )
    category = "confirmation"

    async def execute(
        self, args: DeleteScheduledWorkoutArgs, ctx: ToolContext
    ) -> DeleteScheduledWorkoutResult:
        row = await ctx.user_data.schedule.delete(args.workout_id)
        if row is None:
            raise ToolError(f"scheduled workout {args.workout_id} not found")
        return DeleteScheduledWorkoutResult(workout=ScheduledWorkoutRow.from_row(row))

    def format(self, result: DeleteScheduledWorkoutResult) -> str:
        w = result.workout
        if w.source == "plan":
            return f"skipped: {w.workout_type} of {w.scheduled_date.date().isoformat()} (plan day, id={w.id})"
        return "deleted"


class SwapScheduledWorkoutsArgs(BaseModel):
    model_config = STRICT_NUMBERS
    first_id: str = Field(min_length=1, max_length=64, description="One session's id (calendar or plan)")
    second_id: str = Field(min_length=1, max_length=64, description="The other session's id")


class SwapScheduledWorkoutsResult(ToolResult):
    first: ScheduledWorkout
    second: ScheduledWorkout
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        first, second = self.first, self.second
        warnings = {w.recovery_warning for w in (first, second) if w.recovery_warning}
        heads_up = f" Heads up: {joined(sorted(warnings))}." if warnings else ""
        return (
            "Moved them so they trade days: "
            f"{first.workout_type} is now on {scheduled_when(first, ctx)} and {second.workout_type} "
            f"on {scheduled_when(second, ctx)}.{heads_up}"
        )


class SwapScheduledWorkouts(Tool[SwapScheduledWorkoutsArgs, SwapScheduledWorkoutsResult]):
    name = "swap_scheduled_workouts"
    can_finish = True
    description = "Exchange the days of two calendar sessions (scheduled workouts or plan days)."
    Args = SwapScheduledWorkoutsArgs
    Result = SwapScheduledWorkoutsResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Swapping your sessions...", done="Sessions swapped"
    )
    category = "summary"

    async def execute(self, args: SwapScheduledWorkoutsArgs, ctx: ToolContext) -> SwapScheduledWorkoutsResult:
        zone = await zone_of(ctx)
        try:
            first, second = await ctx.user_data.schedule.swap(args.first_id, args.second_id)
        except UserDataError as exc:
            raise ToolError(str(exc)) from None
        return SwapScheduledWorkoutsResult(first=_scheduled(first, zone), second=_scheduled(second, zone))

    def format(self, result: SwapScheduledWorkoutsResult) -> str:
        lines = [
            f"swapped: {w.workout_type} now on {_short_day(w.date)} (id={w.id})"
            for w in (result.first, result.second)
        ]
        warnings = {w.recovery_warning for w in (result.first, result.second) if w.recovery_warning}
        return "\n".join([*lines, *(f"WARNING: {w}" for w in sorted(warnings))])


class MissedSessionsArgs(BaseModel):
    model_config = STRICT_NUMBERS
    days_back: int = Field(default=14, ge=1, le=60, description="How far back to look")


class MissedSession(BaseModel):
    id: str
    date: Day
    workout_type: str
    changes: list[str] = Field(default_factory=list)
    """What was changed for it (the sentences the adaptation wrote)."""


class MissedSessionsResult(ToolResult):
    missed: list[MissedSession]
    changed_now: list[str] = Field(default_factory=list)
    """What this call adapted (sessions that had not been noticed yet)."""
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return missed_text(self.missed, ctx)


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


class MissedSessions(Tool[MissedSessionsArgs, MissedSessionsResult]):
    name = "missed_sessions"
    description = (
        "The plan sessions the user missed (nothing logged) and how the next ones were adapted ('I missed "
        "my workouts', 'why did my plan change?')."
    )
    Args = MissedSessionsArgs
    Result = MissedSessionsResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Checking your missed sessions...", done="Missed sessions checked"
    )
    category = "summary"

    async def execute(self, args: MissedSessionsArgs, ctx: ToolContext) -> MissedSessionsResult:
        now = ctx.now()
        changed = await ctx.user_data.schedule.adapt_missed(now)
        rows = await ctx.user_data.schedule.recent_changes(now, days_back=args.days_back)
        return MissedSessionsResult(
            missed=[
                MissedSession(
                    id=str(r["id"]),
                    date=r["date"],
                    workout_type=str(r.get("focus") or (r.get("workout") or {}).get("title") or "Workout"),
                    changes=[n for n in r.get("notes") or [] if str(n).startswith("Missed ")],
                )
                for r in rows
            ],
            changed_now=changed,
        )

    def format(self, result: MissedSessionsResult) -> str:
        if not result.missed:
            return "No missed sessions in the user's training plan recently (nothing to adapt)."
        lines = [f"Missed sessions ({len(result.missed)}):"]
        for m in result.missed:
            what = " ".join(m.changes) or f"Missed {m.workout_type} of {_short_day(m.date)}."
            lines.append(f"- {what}")
        return "\n".join(lines)


class CreateWorkoutPlanArgs(BaseModel):
    model_config = STRICT_NUMBERS
    plan_name: str = Field(min_length=1, max_length=200, description="e.g. 'Upper/Lower'")
    start_date: str = Field(max_length=40, description="ISO date it starts (today or later)")
    duration_weeks: int = Field(ge=1, le=MAX_PLAN_WEEKS, description="How many weeks")
    goal_description: str = Field(min_length=1, max_length=2000, description="What the user wants to achieve")
    workouts_per_week: int | None = Field(default=None, ge=1, le=7, description="Sessions a week")
    preferred_days: list[str] | None = Field(
        default=None, max_length=7, description="Weekday names (default: the user's days)"
    )
    workout_types: list[str] | None = Field(
        default=None, max_length=14, description="Labels the sessions rotate through, e.g. ['Upper', 'Lower']"
    )


def plan_days(
    explicit: list[str] | None, settings_days: list[str], workouts_per_week: int | None
) -> tuple[list[str], int]:
    """(weekdays to train on, workouts per week). Explicit days must cover workouts_per_week; the
    user's preferred days (else Mon/Wed/Fri) fall back to a standard spread when too few."""
    try:
        days = normalise_weekdays(explicit) if explicit else list(settings_days)
    except UserDataError as exc:
        raise ToolError(str(exc)) from None
    if explicit:
        per_week = workouts_per_week or len(days)
        if per_week > len(days):
            raise ToolError(
                f"workouts_per_week ({per_week}) is more than the preferred days ({', '.join(days)})"
            )
    else:
        per_week = workouts_per_week or len(days) or 3
        if len(days) < per_week:
            days = list(DEFAULT_DAYS_BY_COUNT[per_week])
    if len(days) > per_week:
        days = [days[round(i * len(days) / per_week)] for i in range(per_week)]
    return days, per_week


class PlannedSession(BaseModel):
    """A workout the plan scheduled."""

    id: str
    date: Day
    workout_type: str


class PlanWeek(BaseModel):
    week_number: int
    workouts: list[PlannedSession] = Field(default_factory=list)


class WorkoutPlan(BaseModel):
    """A workout_plans row with the sessions it scheduled, week by week."""

    id: str
    plan_name: str
    goal_description: str | None = None
    start_date: date
    end_date: date
    duration_weeks: int
    workouts_per_week: int | None = None
    preferred_days: list[str] = Field(default_factory=list)
    workout_types: list[str] = Field(default_factory=list)
    status: PlanStatus
    created_at: datetime
    weeks: list[PlanWeek] = Field(default_factory=list)


class CreateWorkoutPlanResult(ToolResult):
    plan: WorkoutPlan
    scheduled_count: int

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        plan, count = self.plan, self.scheduled_count
        per_week = f"{plan.workouts_per_week} workouts a week, " if plan.workouts_per_week else ""
        days = f" on {joined(plan.preferred_days)}" if plan.preferred_days else ""
        return (
            f"Created your {plan.plan_name}: {plan.duration_weeks} weeks, {per_week}"
            f"{count_words(count, 'workout', 'workouts')} scheduled{days}, starting "
            f"{day_text(plan.start_date, ctx.today)}."
        )


class CreateWorkoutPlan(Tool[CreateWorkoutPlanArgs, CreateWorkoutPlanResult]):
    name = "create_workout_plan"
    can_finish = True
    description = (
        "Put labelled sessions without exercises on the calendar for several weeks, rotating through "
        "workout_types."
    )
    Args = CreateWorkoutPlanArgs
    Result = CreateWorkoutPlanResult
    status: ClassVar[StatusMessage | None] = StatusMessage(start="Building your plan...", done="Plan ready")
    category = "full"

    async def execute(self, args: CreateWorkoutPlanArgs, ctx: ToolContext) -> CreateWorkoutPlanResult:
        settings = await ctx.user_data.settings.get()
        zone = user_zone(settings)
        start = parse_day(args.start_date, "start_date")
        today = ctx.now().astimezone(zone).date()
        if start < today:
            raise ToolError(f"start_date {start.isoformat()} is in the past (today is {today.isoformat()})")
        days, per_week = plan_days(args.preferred_days, settings.preferred_days, args.workouts_per_week)
        types = [t.strip() for t in args.workout_types or [] if t.strip()] or list(DEFAULT_WORKOUT_TYPES)
        sessions = [
            start + timedelta(days=offset)
            for offset in range(args.duration_weeks * 7)
            if WEEKDAYS[(start + timedelta(days=offset)).weekday()] in days
        ]
        plan, scheduled = await ctx.user_data.workout_plans.create(
            plan_name=args.plan_name,
            start_date=start,
            duration_weeks=args.duration_weeks,
            goal_description=args.goal_description,
            workouts_per_week=per_week,
            preferred_days=days,
            workout_types=types,
            sessions=[
                PlanSession(
                    scheduled_date=datetime.combine(day, time(0), tzinfo=zone),
                    workout_type=types[index % len(types)],
                    notes=f"{args.plan_name}, week {(day - start).days // 7 + 1}",
                )
                for index, day in enumerate(sessions)
            ],
        )
        weeks = [PlanWeek(week_number=n + 1) for n in range(args.duration_weeks)]
        for day, row in zip(sessions, scheduled, strict=True):
            weeks[(day - start).days // 7].workouts.append(
                PlannedSession(id=str(row["id"]), date=day, workout_type=row["workout_type"])
            )
        result_plan = WorkoutPlan.model_validate({**plain(plan), "weeks": weeks})
        return CreateWorkoutPlanResult(plan=result_plan, scheduled_count=len(sessions))

    def format(self, result: CreateWorkoutPlanResult) -> str:
        plan = result.plan
        lines = [
            f"Plan: {plan.plan_name} (id={plan.id}) {plan.start_date}..{plan.end_date}, "
            f"{plan.workouts_per_week}/week on {', '.join(plan.preferred_days)}; "
            f"{result.scheduled_count} workouts scheduled"
        ]
        for week in plan.weeks:
            items = ", ".join(
                f"{w.date.strftime('%a')} {w.date.strftime('%m-%d')} {w.workout_type}" for w in week.workouts
            )
            lines.append(f"  Week {week.week_number}: {len(week.workouts)} workouts ({items})")
        return "\n".join(lines)


class ManageMilestoneArgs(BaseModel):
    model_config = STRICT_NUMBERS
    action: MilestoneAction = Field(description="What to do with it")
    milestone_id: str | None = Field(default=None, max_length=64, description="Required except for create")
    goal_name: str | None = Field(
        default=None, min_length=1, max_length=200, description="In the user's words"
    )
    goal_type: str | None = Field(
        default=None, max_length=40, description="distance, weight, reps, time, event or other"
    )
    target_value: float | None = Field(default=None, ge=0, le=1_000_000, description="In target_unit")
    target_unit: str | None = Field(default=None, max_length=50, description="The user's unit for it")
    target_date: date | None = Field(default=None, description="When the user wants it by")
    current_value: float | None = Field(default=None, ge=0, le=1_000_000, description="Where the user is now")
    time_limit_min: float | None = Field(
        default=None, gt=0, le=100_000, description="Minutes, for a distance in a time"
    )
    target_reps: int | None = Field(default=None, ge=1, le=10_000, description="Reps, for a load for reps")

    @model_validator(mode="after")
    def _fields_for_action(self) -> Self:
        if self.action == "create" and not self.goal_name:
            raise ValueError("goal_name is required to create a milestone")
        if self.action != "create" and not self.milestone_id:
            raise ValueError(f"milestone_id is required to {self.action.replace('_', ' ')}")
        if self.action == "update_progress" and self.current_value is None:
            raise ValueError("current_value is required to update progress")
        return self


class Milestone(BaseModel):
    """One milestone_goals row."""

    id: str
    goal_name: str
    goal_type: str
    """One of MILESTONE_TYPES."""
    target_value: float | None = None
    target_unit: str | None = None
    target_date: date | None = None
    current_value: float | None = None
    time_limit_min: float | None = None
    target_reps: int | None = None
    status: MilestoneStatus
    plan_id: str | None = None
    created_at: datetime
    achieved_at: datetime | None = None


class ManageMilestoneResult(ToolResult):
    action: MilestoneAction
    milestone: Milestone
    needs_user_context: ClassVar[bool] = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        milestone = self.milestone
        target = f" by {day_text(milestone.target_date, None)}" if milestone.target_date else ""
        return f"Milestone saved: {milestone_target_text(milestone)}{target}."


class ManageMilestone(Tool[ManageMilestoneArgs, ManageMilestoneResult]):
    name = "manage_milestone"
    can_finish = True
    description = (
        "Create a milestone (a measurable target), update its progress, mark it achieved or abandon it."
    )
    Args = ManageMilestoneArgs
    Result = ManageMilestoneResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Updating your milestones...", done="Milestones updated"
    )
    category = "summary"

    async def execute(self, args: ManageMilestoneArgs, ctx: ToolContext) -> ManageMilestoneResult:
        row = await self._apply(ctx, args)
        if row is None:
            raise ToolError(f"milestone {args.milestone_id} not found")
        return ManageMilestoneResult(action=args.action, milestone=Milestone.model_validate(plain(row)))

    @staticmethod
    async def _apply(ctx: ToolContext, args: ManageMilestoneArgs) -> Row | None:
        milestones = ctx.user_data.milestones
        if args.action == "create":
            return await milestones.create(
                goal_name=args.goal_name or "",
                goal_type=milestone_type(args.goal_type, args.target_unit),
                target_value=args.target_value,
                target_unit=args.target_unit,
                target_date=args.target_date,
                current_value=args.current_value,
                time_limit_min=args.time_limit_min,
                target_reps=args.target_reps,
            )
        if args.action == "update_progress":
            assert args.current_value is not None
            return await milestones.update_progress(args.milestone_id, args.current_value)
        if args.action == "mark_achieved":
            return await milestones.set_status(
                args.milestone_id, "achieved", current_value=args.current_value
            )
        return await milestones.set_status(args.milestone_id, "abandoned")

    def format(self, result: ManageMilestoneResult) -> str:
        m = result.milestone
        verb = {"create": "created", "update_progress": "progress", "mark_achieved": "achieved",
                "abandon": "abandoned"}[result.action]  # fmt: skip
        return f"milestone {verb}: {m.goal_name} {_progress(m)}(id={m.id})"


def milestone_type(goal_type: str | None, target_unit: str | None) -> str:
    """One of MILESTONE_TYPES: as given when valid, else inferred from the target unit
    ('endurance' in km -> distance, 'strength' in kg -> weight), else 'other'."""
    given = (goal_type or "").strip().lower()
    if given in MILESTONE_TYPES:
        return given
    return UNIT_MILESTONE_TYPES.get((target_unit or "").strip().lower(), "other")


def _progress(m: Milestone) -> str:
    unit = f" {m.target_unit}" if m.target_unit else ""
    parts: list[str] = []
    if m.target_value is not None:
        current = number_text(m.current_value or 0)
        pct = ""
        if m.target_value:
            pct = f" ({100 * (m.current_value or 0) / m.target_value:.0f}%)"
        parts.append(f"{current}/{number_text(m.target_value)}{unit}{pct}")
        if m.target_reps:
            parts.append(f"for {m.target_reps} reps")
        if m.time_limit_min:
            parts.append(f"within {number_text(m.time_limit_min)} min")
    elif m.current_value is not None:
        parts.append(f"current {number_text(m.current_value)}{unit}")
    if m.target_date:
        parts.append(f"by {m.target_date.isoformat()}")
    return " ".join(parts) + " " if parts else ""


TOOLS: list[AnyTool] = [
    ScheduleWorkout(),
    UpdateScheduledWorkout(),
    DeleteScheduledWorkout(),
    SwapScheduledWorkouts(),
    MissedSessions(),
    CreateWorkoutPlan(),
    ManageMilestone(),
]
