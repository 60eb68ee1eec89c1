"""The validators a week must pass (each a list of errors, none when valid): seven days, training on
the plan's days, the workout checks at each day's nominal time, and a deload week's volume."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trainer.domain.recovery import recovering_muscles
from trainer.domain.workout import Workout
from trainer.domain.workout_checks import (
    UserTrainingContext,
    check_workout,
    load_jump,
    workout_targets,
)
from trainer.programs.microcycle.context import WeekContext, training_rows
from trainer.programs.microcycle.dates import (
    nominal_time,
    pattern_for,
    week_dates,
)
from trainer.programs.models import (
    FitnessPlan,
    PlanInputs,
    PlanWeek,
    weekday_of,
)


def seven_days(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Exactly seven consecutive days from the week's start, each named by its weekday."""
    errors = []
    expected = week_dates(plan, week.week_number)
    got = [d.date for d in week.days]
    if len(week.days) != 7:
        errors.append(f"the week needs exactly 7 days, has {len(week.days)}")
    if got != expected[: len(got)] or len(got) != 7:
        errors.append(f"the days must be {expected[0].isoformat()} to {expected[-1].isoformat()}, in order")
    errors += [
        f"{d.date.isoformat()} is a {weekday_of(d.date)}, not a {d.weekday}"
        for d in week.days
        if d.weekday != weekday_of(d.date)
    ]
    return errors


def plan_training_days(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Training exactly on the plan's days, each with a workout; rest days with recovery notes only."""
    errors = []
    for day in week.days:
        planned = day.weekday in plan.training_days
        if planned and day.kind != "training":
            errors.append(f"{day.weekday} is a training day in the plan")
        if not planned and day.kind == "training":
            errors.append(f"{day.weekday} is a rest day in the plan")
        if day.kind == "training" and day.workout is None:
            errors.append(f"{day.weekday} has no workout")
        if day.kind == "rest" and (day.workout is not None or not day.recovery_notes):
            errors.append(f"{day.weekday} is a rest day: recovery notes, no workout")
    return errors


def day_contexts(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[UserTrainingContext | None]:
    """The check context of each day: the user's situation at the day's nominal time, with the week's
    earlier training days counted as done."""
    ctx = WeekContext(plan, week.week_number, inputs)
    simulated: list[dict[str, Any]] = []
    contexts: list[UserTrainingContext | None] = []
    for day in sorted(week.days, key=lambda d: d.date):
        if day.workout is None:
            contexts.append(None)
            continue
        at = nominal_time(day.date, inputs.timezone)
        contexts.append(
            UserTrainingContext(
                available_equipment=set(ctx.rules.equipment),
                preferences=list(inputs.preferences),
                recovering_muscles=recovering_muscles([*inputs.history, *simulated], at),
                weight_unit=inputs.weight_unit,
                distance_unit=inputs.distance_unit,
                now=at,
                exercise_history=ctx.histories,
                load_steps=ctx.steps,
            )
        )
        simulated.extend(training_rows(day.workout, at))
    return contexts


def hard_problems(workout: Workout, user: UserTrainingContext) -> list[str]:
    """What the workout checks report, load-jump warnings left out (they are advice, not violations)."""
    targets = workout_targets(workout, user)
    ordered = sorted(workout.exercises, key=lambda e: e.order)
    jumps = {j for ex, t in zip(ordered, targets, strict=False) if t is not None and (j := load_jump(ex, t))}
    return [p for p in check_workout(workout, user, targets=targets) if p not in jumps]


def workout_checks_pass(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    errors = []
    days = sorted(week.days, key=lambda d: d.date)
    for day, user in zip(days, day_contexts(week, plan, inputs), strict=True):
        if day.workout is not None and user is not None:
            errors += [f"{day.weekday}: {problem}" for problem in hard_problems(day.workout, user)]
    return errors


def deload_volume(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """A deload week keeps at most 70% of the planned sets of the exercises it kept from the plan
    (swapped exercises, and single sets that cannot be cut, are not compared)."""
    if not week.deload:
        return []
    planned = done = 0
    for day in week.days:
        pattern = pattern_for(plan, week.week_number, day.weekday) if day.workout is not None else None
        if pattern is None or day.workout is None:
            continue
        sets = {s.exercise: s.sets for s in pattern.slots if s.kind != "duration" and s.sets >= 2}
        for ex in day.workout.exercises:
            if ex.exercise_name in sets and (ex.group is None or ex.group.type not in ("warmup", "cooldown")):
                planned += sets[ex.exercise_name]
                done += ex.sets or 0
    if planned and done > 0.7 * planned:
        return [f"a deload week keeps at most 70% of the sets ({done} of {planned})"]
    return []


WeekValidator = Callable[[PlanWeek, FitnessPlan, PlanInputs], list[str]]
WEEK_VALIDATORS: dict[str, WeekValidator] = {
    "week_seven_days": seven_days,
    "week_plan_training_days": plan_training_days,
    "week_workout_checks": workout_checks_pass,
    "week_deload_volume": deload_volume,
}


def validate_week(week: PlanWeek, plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Every week validator's errors, in order (none: the week is valid)."""
    return [error for check in WEEK_VALIDATORS.values() for error in check(week, plan, inputs)]


def main_sets(week: PlanWeek) -> int:
    """Working sets of the week's main work (warm-ups and cool-downs left out)."""
    return sum(
        ex.sets or 0
        for d in week.days
        if d.workout is not None
        for ex in d.workout.exercises
        if ex.group is None or ex.group.type not in ("warmup", "cooldown")
    )
