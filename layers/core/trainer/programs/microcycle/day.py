"""One day of the week: a training day's workout in the app's schema (a warm-up group, the main work, a
cool-down group) from the plan's pattern, with notes on what changed from the plan; a rest day's
recovery notes. Every exercise follows the user's equipment, injuries and preferences, and none
works a muscle still recovering."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from trainer.domain.catalog import CatalogEntry
from trainer.domain.equipment import missing_equipment
from trainer.domain.timers import exercise_timer
from trainer.domain.workout import Exercise, Workout, WorkoutSummary
from trainer.programs.microcycle.context import WeekContext
from trainer.programs.microcycle.prescription import prescribe
from trainer.programs.microcycle.warmups import (
    COOLDOWN_GROUP,
    COOLDOWN_MIN_SEC,
    WARMUP_GROUP,
    WARMUP_MIN_SEC,
    cooldown_entries,
    cooldown_fields,
    filled_to,
    warmup_entries,
    warmup_fields,
)
from trainer.programs.models import (
    DayPattern,
    DayPlanDraft,
    ExerciseSlot,
)
from trainer.programs.plan.slots import CHANGEOVER_SEC, trim_to_session
from trainer.programs.selection import (
    Constraints,
    allowed,
    make_exercise,
    pick_exercise,
    preference_conflict,
    resolve,
)


def _slot_reason(entry: CatalogEntry, rules: Constraints, blocked: frozenset[str]) -> str:
    if missing := sorted(missing_equipment(entry.equipment, rules.equipment)):
        return f"needs {', '.join(missing)}, which you don't have here"
    if conflict := preference_conflict(entry, rules):
        return f"conflicts with: {conflict}"
    if still := sorted(entry.worked_muscles(0.2) & blocked):
        return f"{', '.join(still).lower()} still recovering"
    return "not available"


def _choose(
    slot: ExerciseSlot, requested: str | None, ctx: WeekContext, blocked: frozenset[str], taken: list[str]
) -> tuple[CatalogEntry | None, str | None]:
    """The exercise for a slot: the draft's choice, else the plan's, else the best allowed one for the
    slot; with a note when the plan's exercise had to change."""
    rules = ctx.rules
    for name in dict.fromkeys([n for n in (requested, slot.exercise) if n]):
        entry = resolve(name)
        if entry is not None and entry.name not in taken and allowed(entry, rules, blocked):
            return entry, None
    planned = resolve(slot.exercise)
    why = _slot_reason(planned, rules, blocked) if planned else "not a known exercise"
    entry = pick_exercise(
        rules, pattern=slot.pattern, muscle=slot.muscle, role=slot.role, taken=taken, blocked=blocked
    )
    if entry is None:
        return None, f"Skipped {slot.exercise} today ({why})."
    return entry, f"{entry.name} instead of {slot.exercise} ({why})."


def build_day_workout(
    pattern: DayPattern,
    draft: DayPlanDraft | None,
    ctx: WeekContext,
    blocked: frozenset[str],
    *,
    title: str,
) -> tuple[Workout | None, list[str]]:
    """A training day's workout and the notes on what changed from the plan."""
    notes: list[str] = []
    budget = ctx.plan.session_minutes
    if ctx.prefs.time_budget_min and ctx.prefs.time_budget_min < budget:
        budget = ctx.prefs.time_budget_min
    slots = trim_to_session(list(pattern.slots), budget)
    taken: list[str] = []
    main: list[tuple[CatalogEntry, dict[str, Any], str]] = []
    requested = list(draft.exercises) if draft else []
    for index, slot in enumerate(slots):
        entry, note = _choose(slot, requested[index] if index < len(requested) else None, ctx, blocked, taken)
        if note:
            notes.append(note)
        if entry is None:
            continue
        fields, why = prescribe(entry, slot, ctx)
        main.append((entry, fields, why))
        taken.append(entry.name)
    if not main:
        main = _fallback_main(ctx, blocked)
        if not main:
            return None, [*notes, "Nothing in this day's plan fits today: take it as a rest day."]
        notes.append("Today's planned work doesn't fit right now, so it's a light mobility and core session.")
    muscles = list(dict.fromkeys(e.primary_muscle for e, _, _ in main))
    warm = warmup_entries(muscles, ctx.rules, blocked, draft.warmup if draft else ())
    cool = cooldown_entries(muscles, ctx.rules, blocked, draft.cooldown if draft else ())
    warm_fields = filled_to(warm, [warmup_fields(e) for e in warm], WARMUP_MIN_SEC)
    cool_fields = filled_to(cool, [cooldown_fields(e) for e in cool], COOLDOWN_MIN_SEC)
    goals = ctx.inputs.category_goals
    exercises: list[Exercise] = []
    for position, (entry, fields) in enumerate(zip(warm, warm_fields, strict=True), start=1):
        group = {**WARMUP_GROUP, "position": position, **({"name": "Warm-up"} if position == 1 else {})}
        exercises.append(
            make_exercise(
                entry,
                order=len(exercises) + 1,
                category_goals={},
                reasoning="Warm-up: easy pace, get the joints moving.",
                fields=fields,
                group=group,
            )
        )
    for entry, fields, why in main:
        exercises.append(
            make_exercise(entry, order=len(exercises) + 1, category_goals=goals, reasoning=why, fields=fields)
        )
    for position, (entry, fields) in enumerate(zip(cool, cool_fields, strict=True), start=1):
        group = {**COOLDOWN_GROUP, "position": position, **({"name": "Cool-down"} if position == 1 else {})}
        exercises.append(
            make_exercise(
                entry,
                order=len(exercises) + 1,
                category_goals={},
                reasoning="Cool-down: breathe slowly and relax into the stretch.",
                fields=fields,
                group=group,
            )
        )
    return Workout(title=title[:120], exercises=exercises, summary=_summary(exercises)), notes


_FALLBACK_SLOTS = (
    ExerciseSlot(exercise="Plank", muscle="Abs", role="core", kind="hold", sets=3, hold_sec=30, rest_sec=45),
    ExerciseSlot(exercise="Cat Stretch", muscle="Back", role="mobility", kind="hold", sets=2, hold_sec=30,
                 rest_sec=15),
    ExerciseSlot(exercise="Hamstring Stretch", muscle="Hamstrings", role="mobility", kind="hold", sets=2,
                 hold_sec=30, rest_sec=15),
    ExerciseSlot(exercise="Shoulder Stretch", muscle="Shoulders", role="mobility", kind="hold", sets=2,
                 hold_sec=30, rest_sec=15),
)  # fmt: skip


def _fallback_main(
    ctx: WeekContext, blocked: frozenset[str]
) -> list[tuple[CatalogEntry, dict[str, Any], str]]:
    found: list[tuple[CatalogEntry, dict[str, Any], str]] = []
    taken: list[str] = []
    for slot in _FALLBACK_SLOTS:
        entry, _ = _choose(slot, None, ctx, blocked, taken)
        if entry is not None:
            fields, why = prescribe(entry, slot, ctx)
            found.append((entry, fields, why))
            taken.append(entry.name)
    return found


def _summary(exercises: Sequence[Exercise]) -> WorkoutSummary:
    seconds = sum(exercise_timer(ex).total_duration_sec + CHANGEOVER_SEC for ex in exercises)
    goals: dict[str, float] = {}
    muscles: dict[str, float] = {}
    for ex in exercises:
        if ex.group is not None and ex.group.type in ("warmup", "cooldown"):
            continue
        for g in ex.goals_addressed:
            goals[g.goal] = goals.get(g.goal, 0.0) + g.share
        for m in ex.muscles_utilized:
            muscles[m.muscle] = muscles.get(m.muscle, 0.0) + m.share
    return WorkoutSummary(
        estimated_duration_min=max(1, math.ceil(seconds / 60)),
        primary_goals=[g for g, _ in sorted(goals.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
        muscles_targeted=[m for m, s in sorted(muscles.items(), key=lambda kv: (-kv[1], kv[0])) if s >= 0.2][
            :20
        ],
    )


def rest_day_notes(previous: Workout | None, following: str | None, deload: bool) -> str:
    """What to do on a rest day, from the day before and the day after."""
    parts = ["Rest day: no lifting today."]
    if previous is not None and previous.summary and previous.summary.muscles_targeted:
        worked = ", ".join(m.lower() for m in previous.summary.muscles_targeted[:3])
        parts.append(
            f"Your {worked} worked hard yesterday: an easy 20-30 minute walk and light stretching help "
            "them recover."
        )
    else:
        parts.append(
            "An easy 20-30 minute walk or some light mobility keeps you moving without adding fatigue."
        )
    parts.append("Aim for 7-9 hours of sleep, protein at every meal and plenty of water.")
    if following:
        parts.append(f"Next up: {following}.")
    if deload:
        parts.append("It's a deload week: let the lighter load do its job.")
    return " ".join(parts)
