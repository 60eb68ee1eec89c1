"""A training plan and its days as the plan tools (trainer.programs.tools) answer with them, and the
words a user reads about them: a plan requested (being built, ready or failed), the plan's overview,
one planned day's line."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

from trainer.programs.models import PlanStatus
from trainer.tools.dates import Day
from trainer.tools.wording import day_text

SHOWN_EXERCISES = 8
WARM_UP_AND_COOL_DOWN = ("warmup", "cooldown")
PLAN_EXAMPLE = "make me a 12-week plan, 4 days a week"
"""How a user asks for a plan, for the replies that suggest one."""


def short_date(day: date) -> str:
    return f"{day.strftime('%A')} {day.day} {day.strftime('%B')}"


def listed(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def week_ranges(weeks: list[int]) -> str:
    """'1-3, 5': consecutive week numbers as ranges."""
    ranges: list[str] = []
    for week in sorted(set(weeks)):
        if ranges and ranges[-1].split("-")[-1] == str(week - 1):
            ranges[-1] = f"{ranges[-1].split('-')[0]}-{week}"
        else:
            ranges.append(str(week))
    return ", ".join(ranges)


class PhaseBrief(BaseModel):
    name: str
    start_week: int
    end_week: int
    deload_weeks: list[int] = Field(default_factory=list)


class PlanBrief(BaseModel):
    """A training plan as the chat sees it."""

    plan_id: str
    status: PlanStatus
    title: str | None = None
    error: str | None = None
    weeks: int
    days_per_week: int
    training_days: list[str]
    session_minutes: int
    start_date: Day
    active: bool = False
    methodology: str | None = None
    phases: list[PhaseBrief] = Field(default_factory=list)
    deload_weeks: list[int] = Field(default_factory=list)
    weeks_built: list[int] = Field(default_factory=list)
    current_week: int | None = None
    """The plan week today falls in (the user's today); None before it starts or after it ends."""

    @classmethod
    def of(
        cls, row: dict[str, Any], weeks_built: list[int] | None = None, today: date | None = None
    ) -> PlanBrief:
        document = row.get("plan") or {}
        cycles = document.get("microcycles") or []
        phases = [
            PhaseBrief(
                name=str(c.get("name")),
                start_week=int(c.get("start_week")),
                end_week=int(c.get("end_week")),
                deload_weeks=list(c.get("deload_weeks") or []),
            )
            for c in cycles
        ]
        start: date = row["start_date"]
        current = None
        if today is not None and today >= start:
            week = (today - start).days // 7 + 1
            current = week if week <= int(row["weeks"]) else None
        return cls(
            plan_id=str(row["id"]),
            status=row["status"],
            title=row.get("title"),
            error=row.get("error"),
            weeks=int(row["weeks"]),
            days_per_week=int(row["days_per_week"]),
            training_days=list(row.get("training_days") or []),
            session_minutes=int(row["session_minutes"]),
            start_date=start,
            active=bool(row.get("active")),
            methodology=document.get("methodology"),
            phases=phases,
            deload_weeks=sorted({w for p in phases for w in p.deload_weeks}),
            weeks_built=sorted(weeks_built or []),
            current_week=current,
        )

    def outline(self) -> str:
        """'12 weeks from Monday 2 March, 4 days a week (Monday, Tuesday, Thursday and Friday), 60-minute
        sessions'."""
        return (
            f"{self.weeks} weeks from {short_date(self.start_date)}, {self.days_per_week} "
            f"day{'s' if self.days_per_week != 1 else ''} a week ({listed(self.training_days)}), "
            f"{self.session_minutes}-minute sessions"
        )

    def phases_text(self) -> str:
        parts = []
        for phase in self.phases:
            span = f"week {phase.start_week}" if phase.start_week == phase.end_week else (
                f"weeks {phase.start_week}-{phase.end_week}"
            )  # fmt: skip
            deload = f", deload week {week_ranges(phase.deload_weeks)}" if phase.deload_weeks else ""
            parts.append(f"{phase.name} ({span}{deload})")
        return "; ".join(parts)


class PlannedDayBrief(BaseModel):
    """One planned day: its workout's exercises (or its recovery notes) and its message."""

    workout_id: str
    plan_id: str
    week_number: int
    date: Day
    weekday: str
    kind: Literal["training", "rest"]
    focus: str | None = None
    exercises: list[str] = Field(default_factory=list)
    """The main work's exercises (not the warm-up or cool-down)."""
    minutes: float | None = None
    notes: list[str] = Field(default_factory=list)
    recovery_notes: str | None = None
    message: str | None = None
    status: str = "scheduled"

    @classmethod
    def of(cls, row: dict[str, Any]) -> PlannedDayBrief:
        workout = row.get("workout") or {}
        exercises = sorted(workout.get("exercises") or [], key=lambda e: int(e.get("order") or 0))
        main = [e for e in exercises if (e.get("group") or {}).get("type") not in WARM_UP_AND_COOL_DOWN]
        summary = workout.get("summary") or {}
        return cls(
            workout_id=str(row["id"]),
            plan_id=str(row["plan_id"]),
            week_number=int(row["week_number"]),
            date=row["date"],
            weekday=str(row["weekday"]),
            kind=row["kind"],
            focus=row.get("focus"),
            exercises=[str(e.get("exercise_name")) for e in main],
            minutes=summary.get("estimated_duration_min"),
            notes=list(row.get("notes") or []),
            recovery_notes=row.get("recovery_notes"),
            message=row.get("message"),
            status=str(row.get("status") or "scheduled"),
        )

    def line(self) -> str:
        """'Monday 9 March: Upper body - Dumbbell Bench Press, One-Arm Row, ... (about 45 min)'."""
        when = short_date(self.date)
        if self.kind == "rest":
            return f"{when}: rest day"
        names = self.exercises[:SHOWN_EXERCISES]
        more = f" and {len(self.exercises) - len(names)} more" if len(self.exercises) > len(names) else ""
        minutes = f" (about {round(self.minutes)} min)" if self.minutes else ""
        focus = f"{self.focus} - " if self.focus else ""
        return f"{when}: {focus}{', '.join(names)}{more}{minutes}"


def describe_plan(plan: PlanBrief) -> str:
    lines = [f"{plan.title or 'Training plan'}: {plan.outline()}."]
    if plan.phases:
        lines.append(f"Phases: {plan.phases_text()}.")
    if plan.weeks_built:
        lines.append(f"Weeks with workouts so far: {week_ranges(plan.weeks_built)}.")
    if plan.current_week is not None:
        lines.append(f"This is week {plan.current_week} of {plan.weeks}.")
    return " ".join(lines)


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
