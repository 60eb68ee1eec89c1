"""Any draft (the offline drafter's or a model's) made into the plan: exercises resolved against the
catalog and swapped when they break a hard rule, prescription numbers (sets, rep ranges, rest, hold and
cardio time) set by code, days trimmed to the session length, each phase's weekly sets per muscle moved
into its landmarks (trainer.programs.plan.volume); and the plan's modification history."""

from __future__ import annotations

from datetime import date

from trainer.domain.catalog import CatalogEntry
from trainer.domain.weekdays import WEEKDAYS
from trainer.domain.workout_grouping import local_day, zone
from trainer.programs.models import (
    METHODOLOGY_LABELS,
    DayDraft,
    DayPattern,
    ExerciseSlot,
    Experience,
    FitnessPlan,
    Methodology,
    Microcycle,
    ModificationEntry,
    PlanDraft,
    PlanInputs,
    SlotDraft,
)
from trainer.programs.plan.draft import PlanError, draft_plan, goal_names
from trainer.programs.plan.slots import base_sets, make_slot, trim_to_session
from trainer.programs.plan.volume import balance_volume
from trainer.programs.selection import (
    Constraints,
    allowed,
    constraints_for,
    leading_goal,
    pick_exercise,
    resolve,
)


def finalize_plan(draft: PlanDraft, inputs: PlanInputs, *, today: date | None = None) -> FitnessPlan:
    """The plan from a draft (the offline drafter's or a model's): every exercise resolved against the
    catalog and replaced by the best allowed one for its slot when it is unknown or breaks a hard rule;
    sets, rep ranges, rest, holds and cardio minutes set by code; each day trimmed to the session."""
    rules = constraints_for(
        inputs.equipment, inputs.preferences, inputs.experience, inputs.history, permanent_only=True
    )
    goal = leading_goal(inputs.category_goals, inputs.goal_text)
    cycles = []
    for number, cycle in enumerate(draft.microcycles, start=1):
        ranges: dict[str, tuple[int | None, int | None]] = {}
        pattern = [
            DayPattern(weekday=day.weekday, focus=day.focus[:60], slots=slots)
            for day in cycle.weekly_pattern
            if (slots := _final_slots(day, rules, inputs, goal, draft.methodology, ranges))
        ]
        if not pattern:
            raise PlanError("No training day of the plan has an exercise that fits your constraints.")
        pattern = balance_volume(
            pattern,
            goal=goal,
            experience=inputs.experience,
            phase=cycle.name,
            session_minutes=inputs.session_minutes,
        )
        cycles.append(
            Microcycle(
                number=number,
                name=cycle.name[:60],
                goal=cycle.goal[:300],
                start_week=cycle.start_week,
                end_week=cycle.end_week,
                deload_weeks=sorted(set(cycle.deload_weeks)),
                intensity=cycle.intensity[:120],
                weekly_pattern=pattern,
            )
        )
    created = today or local_day(inputs.now, zone(inputs.timezone))
    return FitnessPlan(
        title=draft.title[:120],
        weeks=inputs.weeks,
        start_date=inputs.start_date,
        training_days=sorted(inputs.training_days, key=WEEKDAYS.index),
        session_minutes=inputs.session_minutes,
        experience=inputs.experience,
        methodology=draft.methodology,
        philosophy=draft.philosophy[:2000],
        goals=goal_names(inputs, goal),
        equipment=sorted(rules.equipment),
        weight_unit=inputs.weight_unit,
        microcycles=cycles,
        progression_strategy=[line[:300] for line in draft.progression_strategy][:12],
        modification_history=[
            ModificationEntry(
                day=created,
                change=f"Plan created: {inputs.weeks} weeks, {inputs.days_per_week} days a week, "
                f"{METHODOLOGY_LABELS[draft.methodology].lower()}.",
            )
        ],
    )


def _final_slots(
    day: DayDraft,
    rules: Constraints,
    inputs: PlanInputs,
    goal: str,
    methodology: Methodology,
    ranges: dict[str, tuple[int | None, int | None]],
) -> list[ExerciseSlot]:
    """A day's slots; an exercise the phase already uses in another rep range is swapped when another
    fits (one exercise, one range per phase, so its progression reads one line of sessions)."""
    slots: list[ExerciseSlot] = []
    taken: list[str] = []
    for draft in day.slots:
        reps = (draft.rep_low, draft.rep_high or draft.rep_low) if draft.rep_low else None
        sets = min(draft.sets, base_sets(draft.role, inputs.experience, methodology) + 1)

        entry = resolve(draft.exercise)
        if entry is None or not allowed(entry, rules) or entry.name in taken:
            entry = pick_exercise(
                rules, pattern=draft.pattern, muscle=draft.muscle, role=draft.role, taken=taken
            )
        if entry is None:
            continue
        slot = _draft_slot(entry, draft, reps, sets, inputs.experience, goal)
        if ranges.get(slot.exercise, (slot.rep_low, slot.rep_high)) != (slot.rep_low, slot.rep_high):
            clash = [name for name, r in ranges.items() if r != (slot.rep_low, slot.rep_high)]
            other = pick_exercise(
                rules, pattern=draft.pattern, muscle=draft.muscle, role=draft.role, taken=[*taken, *clash]
            )
            if other is not None:
                slot = _draft_slot(other, draft, reps, sets, inputs.experience, goal)
        slots.append(slot)
        taken.append(slot.exercise)
        ranges.setdefault(slot.exercise, (slot.rep_low, slot.rep_high))
    return trim_to_session(slots, inputs.session_minutes)


def _draft_slot(
    entry: CatalogEntry,
    draft: SlotDraft,
    reps: tuple[int, int] | None,
    sets: int,
    experience: Experience,
    goal: str,
) -> ExerciseSlot:
    return make_slot(
        entry,
        pattern=draft.pattern,
        muscle=draft.muscle,
        role=draft.role,
        sets=sets,
        reps=reps,
        experience=experience,
        goal=goal,
    )


def record_modification(plan: FitnessPlan, day: date, change: str) -> FitnessPlan:
    """The plan with a modification history entry (a week rebuilt, a day changed, at the user's word)."""
    entry = ModificationEntry(day=day, change=change.strip()[:300] or "Plan changed.")
    return plan.model_copy(update={"modification_history": [*plan.modification_history, entry]})


def build_plan(inputs: PlanInputs, *, today: date | None = None) -> FitnessPlan:
    """The offline `fitness_plan` agent: draft and finalize."""
    return finalize_plan(draft_plan(inputs), inputs, today=today)
