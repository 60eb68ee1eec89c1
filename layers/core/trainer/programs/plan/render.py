"""The plan as markdown: its overview, philosophy, microcycles with their weekly patterns, progression
strategy and modification history."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from trainer.domain.weekdays import WEEKDAYS
from trainer.programs.models import METHODOLOGY_LABELS, ExerciseSlot, FitnessPlan


def _prescription(slot: ExerciseSlot) -> str:
    if slot.kind == "duration":
        return f"{slot.minutes} min"
    if slot.kind == "hold":
        work = f"{slot.sets} x {slot.hold_sec} s hold"
    elif slot.rep_low == slot.rep_high:
        work = f"{slot.sets} x {slot.rep_low}"
    else:
        work = f"{slot.sets} x {slot.rep_low}-{slot.rep_high}"
    rest = slot.rest_sec
    shown = f"{rest // 60} min" if rest >= 120 and rest % 60 == 0 else f"{rest} s"
    return f"{work} (rest {shown})" if rest else work


def _long_date(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _weeks_text(weeks: Sequence[int]) -> str:
    return ("week " if len(weeks) == 1 else "weeks ") + ", ".join(str(w) for w in weeks)


def render_plan_markdown(plan: FitnessPlan) -> str:
    """The plan as markdown, with the sections `required_sections` (checks.py) asks for."""
    days = ", ".join(plan.training_days)
    lines = [
        f"# {plan.title}",
        "",
        "## Overview",
        f"- Methodology: {METHODOLOGY_LABELS[plan.methodology]}, {plan.days_per_week} "
        f"day{'s' if plan.days_per_week != 1 else ''} a week ({days})",
        f"- Sessions: about {plan.session_minutes} minutes",
        f"- Level: {plan.experience}",
        f"- Goals: {', '.join(plan.goals)}",
        f"- Equipment: {', '.join(e for e in plan.equipment if e != 'bodyweight') or 'bodyweight only'}",
        f"- Starts: {_long_date(plan.start_date)}",
        f"- Deload {_weeks_text(plan.deload_weeks)}" if plan.deload_weeks else "- No deload weeks",
        "",
        "## Program Philosophy",
        plan.philosophy,
        "",
    ]
    for cycle in plan.microcycles:
        span = (
            f"Week {cycle.start_week}"
            if cycle.start_week == cycle.end_week
            else f"Weeks {cycle.start_week}-{cycle.end_week}"
        )
        lines += [f"## Microcycle {cycle.number}: {cycle.name} ({span})", f"Goal: {cycle.goal}"]
        if cycle.intensity:
            lines.append(f"Intensity: {cycle.intensity}")
        if cycle.deload_weeks:
            weeks = _weeks_text(cycle.deload_weeks)
            lines.append(f"Deload: {weeks} (about 40% fewer sets, about 10% lighter)")
        lines += ["", "### Weekly Pattern"]
        for day in cycle.weekly_pattern:
            lines.append(f"**{day.weekday}: {day.focus}**")
            lines += [f"- {slot.exercise}: {_prescription(slot)}" for slot in day.slots]
        rest_days = [d for d in WEEKDAYS if d not in plan.training_days]
        if rest_days:
            lines.append(f"**Rest: {', '.join(rest_days)}**")
        lines.append("")
    lines += ["## Progression Strategy", *[f"- {line}" for line in plan.progression_strategy], ""]
    lines += ["## Modification History"]
    lines += [f"- {_long_date(entry.day)}: {entry.change}" for entry in plan.modification_history]
    return "\n".join(lines).rstrip() + "\n"
