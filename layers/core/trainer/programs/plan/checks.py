"""The validators a plan must pass (each a list of errors, none when valid): the markdown's sections,
enough microcycles covering the weeks, deloads, the equipment and hard rules, the user's training days
and the session length."""

from __future__ import annotations

from collections.abc import Callable

from trainer.domain.equipment import missing_equipment
from trainer.domain.weekdays import WEEKDAYS
from trainer.programs.models import FitnessPlan, PlanInputs
from trainer.programs.plan.methodology import MAX_LOADING_RUN, MIN_DELOAD_GAP, required_microcycles
from trainer.programs.plan.render import render_plan_markdown
from trainer.programs.plan.slots import day_minutes
from trainer.programs.plan.volume import volume_problems
from trainer.programs.selection import constraints_for, leading_goal, preference_conflict, resolve

REQUIRED_SECTIONS = (
    "# ",
    "## Program Philosophy",
    "## Microcycle",
    "### Weekly Pattern",
    "## Modification History",
)


def required_sections(markdown: str, min_microcycles: int = 1) -> list[str]:
    """The markdown check: a title, the philosophy, at least `min_microcycles` microcycles each
    with a weekly pattern, and the modification history."""
    lines = markdown.splitlines()
    errors = []
    if not any(line.startswith("# ") for line in lines):
        errors.append("the plan needs a title line starting with '# '")
    for section in REQUIRED_SECTIONS[1:]:
        if not any(line.startswith(section) for line in lines):
            errors.append(f"missing section '{section}'")
    cycles = sum(1 for line in lines if line.startswith("## Microcycle"))
    patterns = sum(1 for line in lines if line.startswith("### Weekly Pattern"))
    if cycles < min_microcycles:
        errors.append(f"needs at least {min_microcycles} microcycles, has {cycles}")
    if patterns < cycles:
        errors.append("every microcycle needs its '### Weekly Pattern'")
    return errors


def min_microcycles(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    need = required_microcycles(plan.weeks)
    errors = []
    if len(plan.microcycles) < need:
        errors.append(
            f"a {plan.weeks}-week plan needs at least {need} microcycles, has {len(plan.microcycles)}"
        )
    expected = 1
    for cycle in plan.microcycles:
        if cycle.start_week != expected or cycle.end_week < cycle.start_week:
            errors.append(
                f"microcycle {cycle.number} covers weeks {cycle.start_week}-{cycle.end_week}; "
                f"it should start at week {expected}"
            )
        expected = cycle.end_week + 1
    if expected != plan.weeks + 1:
        errors.append(f"the microcycles cover weeks 1-{expected - 1}, the plan has {plan.weeks}")
    if plan.weeks != inputs.weeks:
        errors.append(f"the plan has {plan.weeks} weeks, {inputs.weeks} were asked for")
    return errors


def deloads_present(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """At least one deload, each inside its microcycle, each MIN_DELOAD_GAP or more weeks after the last
    (or the plan's start), and never more than MAX_LOADING_RUN loading weeks in a row: a deload every
    4-6 weeks."""
    errors = []
    deloads = plan.deload_weeks
    if not deloads:
        return ["the plan has no deload week"]
    for cycle in plan.microcycles:
        outside = [w for w in cycle.deload_weeks if not cycle.start_week <= w <= cycle.end_week]
        if outside:
            errors.append(f"microcycle {cycle.number} lists deload weeks outside its weeks: {outside}")
    previous = 0
    for week in deloads:
        if week - previous < MIN_DELOAD_GAP:
            errors.append(
                f"the deload in week {week} comes {week - previous} weeks after "
                f"{'the last one' if previous else 'the start'}; deloads come every {MIN_DELOAD_GAP}-"
                f"{MAX_LOADING_RUN + 1} weeks"
            )
        previous = week
    run = 0
    for week in range(1, plan.weeks + 1):
        run = 0 if week in deloads else run + 1
        if run > MAX_LOADING_RUN:
            errors.append(
                f"weeks {week - run + 1}-{week} go more than {MAX_LOADING_RUN} weeks without a deload"
            )
            break
    return errors


def volume_landmarks(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Each phase's weekly hard sets per muscle inside the goal's landmarks (trainer.domain.volume)."""
    goal = leading_goal(inputs.category_goals, inputs.goal_text)
    return [
        f"microcycle {cycle.number}: {problem}"
        for cycle in plan.microcycles
        for problem in volume_problems(
            cycle.weekly_pattern, goal=goal, experience=plan.experience, session_minutes=plan.session_minutes
        )
    ]


def equipment_available(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Every exercise is in the catalog and doable with the location's equipment, and none loads a
    muscle an injury or preference rules out or is an excluded exercise."""
    rules = constraints_for(inputs.equipment, inputs.preferences, inputs.experience, permanent_only=True)
    errors = []
    for name in dict.fromkeys(
        s.exercise for c in plan.microcycles for d in c.weekly_pattern for s in d.slots
    ):
        entry = resolve(name)
        if entry is None:
            errors.append(f"{name} is not a known exercise")
        elif missing := sorted(missing_equipment(entry.equipment, rules.equipment)):
            errors.append(f"{name} needs {', '.join(missing)}, which is not available")
        elif conflict := preference_conflict(entry, rules):
            errors.append(f"{name} conflicts with: {conflict}")
    return errors


def training_days_match(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    want = sorted(inputs.training_days, key=WEEKDAYS.index)
    errors = []
    if list(plan.training_days) != want:
        errors.append(
            f"the plan trains on {', '.join(plan.training_days)}; the user trains on {', '.join(want)}"
        )
    for cycle in plan.microcycles:
        days = [d.weekday for d in cycle.weekly_pattern]
        if sorted(days, key=WEEKDAYS.index) != want:
            errors.append(
                f"microcycle {cycle.number}'s weekly pattern trains on {', '.join(days)}; it must be "
                f"{', '.join(want)}"
            )
    return errors


def fits_session(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    limit = inputs.session_minutes * 1.1
    return [
        f"{day.weekday} in microcycle {cycle.number} takes about {day_minutes(day.slots):.0f} min, "
        f"the session is {inputs.session_minutes}"
        for cycle in plan.microcycles
        for day in cycle.weekly_pattern
        if day_minutes(day.slots) > limit
    ]


PlanValidator = Callable[[FitnessPlan, PlanInputs], list[str]]
PLAN_VALIDATORS: dict[str, PlanValidator] = {
    "plan_required_sections": lambda plan, inputs: required_sections(
        render_plan_markdown(plan), required_microcycles(plan.weeks)
    ),
    "plan_min_microcycles": min_microcycles,
    "plan_deloads_present": deloads_present,
    "plan_volume_landmarks": volume_landmarks,
    "plan_equipment_available": equipment_available,
    "plan_training_days_match": training_days_match,
    "plan_fits_session": fits_session,
}


def validate_plan(plan: FitnessPlan, inputs: PlanInputs) -> list[str]:
    """Every plan validator's errors, in order (none: the plan is valid)."""
    return [error for check in PLAN_VALIDATORS.values() for error in check(plan, inputs)]
