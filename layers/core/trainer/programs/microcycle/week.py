"""A week of the plan: seven days, the training days full workouts and the rest days recovery notes.
`draft_week` is the offline drafter; `finalize_week` turns any draft (a model's too) into the week,
with no exercise working a muscle still recovering from the history or from the week's earlier days
(each day trained at NOMINAL_HOUR local time)."""

from __future__ import annotations

from typing import Any

from trainer.domain.recovery import recovering_muscles
from trainer.domain.workout import Workout
from trainer.programs.microcycle.context import WeekContext, training_rows
from trainer.programs.microcycle.dates import (
    nominal_time,
    pattern_for,
    week_dates,
    week_start,
)
from trainer.programs.microcycle.day import build_day_workout, rest_day_notes
from trainer.programs.models import (
    DayPlanDraft,
    FitnessPlan,
    PlanDay,
    PlanInputs,
    PlanWeek,
    WeekDraft,
    weekday_of,
)


def draft_week(plan: FitnessPlan, week_number: int, inputs: PlanInputs) -> WeekDraft:
    """The offline drafter: the plan's days as they stand (exercise choice and warm-ups left to code)."""
    days = []
    for day in week_dates(plan, week_number):
        weekday = weekday_of(day)
        training = weekday in plan.training_days
        pattern = pattern_for(plan, week_number, weekday) if training else None
        days.append(
            DayPlanDraft(
                date=day,
                kind="training" if training else "rest",
                exercises=[s.exercise for s in pattern.slots] if pattern else [],
                warmup=[],
                cooldown=[],
                notes=None,
                recovery_notes=None,
            )
        )
    return WeekDraft(week_number=week_number, days=days)


def finalize_week(
    draft: WeekDraft, plan: FitnessPlan, week_number: int, inputs: PlanInputs, *, plan_id: str | None = None
) -> PlanWeek:
    """The week from a draft (the offline drafter's or a model's), in date order: training days built
    from the plan's pattern with the draft's exercise choices where they are allowed, every number
    computed by code; rest days with the draft's recovery notes or code's."""
    ctx = WeekContext(plan, week_number, inputs)
    cycle = plan.microcycle_for(week_number)
    simulated: list[dict[str, Any]] = []
    days: list[PlanDay] = []
    ordered = sorted(draft.days, key=lambda d: d.date)
    previous: Workout | None = None
    for index, item in enumerate(ordered):
        weekday = weekday_of(item.date)
        at = nominal_time(item.date, inputs.timezone)
        if item.kind == "rest":
            tomorrow = ordered[index + 1] if index + 1 < len(ordered) else None
            pattern = pattern_for(plan, week_number, weekday_of(tomorrow.date)) if tomorrow else None
            next_focus = pattern.focus if pattern and tomorrow and tomorrow.kind == "training" else None
            recovery = item.recovery_notes or rest_day_notes(previous, next_focus, ctx.deload)
            days.append(PlanDay(date=item.date, weekday=weekday, kind="rest", recovery_notes=recovery[:2000]))
            previous = None
            continue
        pattern = pattern_for(plan, week_number, weekday)
        if pattern is None:
            days.append(
                PlanDay(
                    date=item.date,
                    weekday=weekday,
                    kind="training",
                    focus=None,
                    notes=["The plan has no training on this day."],
                )
            )
            previous = None
            continue
        blocked = frozenset(recovering_muscles([*inputs.history, *simulated], at))
        title = f"{pattern.focus} - Week {week_number}" + (" (deload)" if ctx.deload else "")
        workout, notes = build_day_workout(pattern, item, ctx, blocked, title=title)
        if item.notes:
            notes = [item.notes[:500], *notes]
        if ctx.fatigue:
            notes = [f"A deload week, brought forward: {ctx.fatigue}."[:500], *notes]
        days.append(
            PlanDay(
                date=item.date,
                weekday=weekday,
                kind="training",
                focus=pattern.focus,
                workout=workout,
                notes=notes,
            )
        )
        if workout is not None:
            simulated.extend(training_rows(workout, at))
        previous = workout
    return PlanWeek(
        plan_id=plan_id,
        week_number=week_number,
        microcycle=cycle.number,
        deload=ctx.deload,
        start_date=week_start(plan, week_number),
        days=days,
    )


def build_week(
    plan: FitnessPlan, week_number: int, inputs: PlanInputs, *, plan_id: str | None = None
) -> PlanWeek:
    """The offline `microcycle` agent: draft and finalize."""
    return finalize_week(draft_week(plan, week_number, inputs), plan, week_number, inputs, plan_id=plan_id)
