"""A slot's exercise prescribed for the week from the user's logged history, by the one progression
model (trainer.domain.progression) in the range the plan prescribes: within a phase, double progression
from the phase's own sessions; at a phase's start from all of them (a range they never aimed at starts
from the last session's estimated max at the phase's target RPE), else from a related lift, else a
conservative start.
Deload weeks cut both volume and load (docs/training-model.md#deloads): about 60% of the sets, at about
90% of the last working weight, reps at the bottom of the range (sessions logged in deload weeks are
left out of later progression)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from trainer.domain.catalog import CatalogEntry
from trainer.domain.movements import equipment_class, name_key
from trainer.domain.progression import (
    STARTING_LOADS,
    ProgressionTarget,
    next_target,
    progression_target,
    starting_load,
)
from trainer.domain.recovery import as_utc
from trainer.programs.microcycle.context import WeekContext
from trainer.programs.models import (
    ExerciseSlot,
)
from trainer.programs.plan.slots import DELOAD_LOAD, DELOAD_VOLUME, rest_for, slot_kind

MAX_BODYWEIGHT_REPS = 50
HOLD_STEP_SEC = 5
MAX_HOLD_SEC = 120


def deload_sets(sets: int) -> int:
    return max(1, round(sets * DELOAD_VOLUME))


def _last_session(rows: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    key = name_key(name)
    mine = [r for r in rows if r.get("performed_at") and name_key(str(r.get("exercise_name") or "")) == key]
    return max(mine, key=lambda r: as_utc(r["performed_at"])) if mine else None


def _last_reps(rows: Sequence[Mapping[str, Any]], name: str, low: int) -> int:
    """The fewest reps of the latest session of an exercise that reached `low` reps (sessions in a
    lower range, or short of it, do not set the next target); 0 without one."""
    key = name_key(name)
    best: tuple[datetime, int] | None = None
    for row in rows:
        if not row.get("performed_at") or name_key(str(row.get("exercise_name") or "")) != key:
            continue
        done = min((int(r) for r in row.get("reps") or []), default=0)
        at = as_utc(row["performed_at"])
        if done >= low and (best is None or at > best[0]):
            best = (at, done)
    return best[1] if best else 0


def _target(entry: CatalogEntry, ctx: WeekContext, low: int, high: int) -> ProgressionTarget | None:
    """Double progression from this phase's sessions of the exercise in the phase's range; at the
    phase's start the same model on all its sessions (a range they never aimed at starts from the
    estimate), else a related exercise's."""
    own = ctx.phase_histories.get(name_key(entry.name))
    if own is not None and own.sessions:
        return next_target(own, ctx.steps, (low, high), target_rpe=ctx.target_rpe)
    return progression_target(
        entry.name, ctx.histories, ctx.steps, rep_range=(low, high),
        equipment=entry.equipment, muscles=entry.muscles, target_rpe=ctx.target_rpe,
    )  # fmt: skip


def _loaded(entry: CatalogEntry) -> bool:
    return any(e in STARTING_LOADS for e in entry.equipment)


def _reps_prescription(
    entry: CatalogEntry, slot: ExerciseSlot, ctx: WeekContext
) -> tuple[dict[str, Any], str]:
    low = slot.rep_low or 8
    high = slot.rep_high or max(low, 12)
    sets = deload_sets(slot.sets) if ctx.deload else slot.sets
    if ctx.light and sets > 2:
        sets -= 1
    rest = slot.rest_sec if slot.kind == "reps" else rest_for(slot.role, low)
    fields: dict[str, Any] = {"exercise_type": "reps", "sets": sets, "rest_sec": rest}
    if not _loaded(entry):
        done = _last_reps(ctx.recent, entry.name, low)
        reps = low if ctx.deload or not done else min(max(low, done + 1), MAX_BODYWEIGHT_REPS)
        note = (
            "Deload week: fewer sets, easy reps."
            if ctx.deload
            else (
                f"Last time {done} reps: aim for {reps}." if done else "Bodyweight: smooth, controlled reps."
            )
        )
        return {**fields, "reps": [reps] * sets}, note
    cls = equipment_class(entry.name, entry.equipment)
    target = _target(entry, ctx, low, high)
    if target is None:
        base = starting_load([e for e in entry.equipment if e in STARTING_LOADS], ctx.level, ctx.unit) or 0.0
        load, reps = ctx.steps.nearest(base, cls), low
        note = "New exercise: a conservative starting weight; add weight once every set feels easy."
    elif ctx.deload:
        last = target.load if target.rule in ("related", "new_range") else target.last_load
        load = ctx.steps.down(min(last, target.max_load) * DELOAD_LOAD, cls)
        reps = low
        note = (
            "Deload week: fewer sets at about 90% of your working weight, stopping 3-4 reps short of failure."
        )
    else:
        load, reps, note = target.load, target.reps, target.reasoning
    if ctx.light:
        load = ctx.steps.down(load * 0.9, cls)
        note = f"{note} Lighter today, as you asked."
    return {**fields, "reps": [reps] * sets, "load_each": [load] * sets, "load_unit": ctx.unit}, note


def _hold_prescription(
    entry: CatalogEntry, slot: ExerciseSlot, ctx: WeekContext
) -> tuple[dict[str, Any], str]:
    base = slot.hold_sec or (30 if ctx.inputs.experience == "beginner" or slot.role == "mobility" else 45)
    sets = deload_sets(slot.sets) if ctx.deload else slot.sets
    last = _last_session(ctx.recent, entry.name)
    held = max((int(h) for h in (last.get("hold_sec") or [])), default=0) if last else 0
    hold = base if ctx.deload or not held else min(max(base, held + HOLD_STEP_SEC), MAX_HOLD_SEC)
    note = f"Last time {held} s: hold {hold} s." if held and not ctx.deload else "Hold with steady breathing."
    rest = slot.rest_sec if slot.kind == "hold" else rest_for(slot.role, None)
    return {"exercise_type": "hold", "sets": sets, "hold_sec": [hold] * sets, "rest_sec": rest}, note


def _duration_prescription(slot: ExerciseSlot, ctx: WeekContext) -> tuple[dict[str, Any], str]:
    minutes = slot.minutes or 12
    if ctx.deload:
        minutes = max(5, round(minutes * DELOAD_VOLUME))
    return {"exercise_type": "duration", "duration_min": float(minutes)}, "Steady pace: you can still talk."


def prescribe(entry: CatalogEntry, slot: ExerciseSlot, ctx: WeekContext) -> tuple[dict[str, Any], str]:
    """The exercise fields (sets, reps, loads, rest / holds / minutes) for a slot this week, and why."""
    kind = slot_kind(entry, slot.role)
    if kind == "duration":
        return _duration_prescription(slot, ctx)
    if kind == "hold":
        return _hold_prescription(entry, slot, ctx)
    return _reps_prescription(entry, slot, ctx)
