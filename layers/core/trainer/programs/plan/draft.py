"""The offline drafter of a plan (what a model would answer): the methodology and the foci on the user's
days, an exercise for every slot that keeps back-to-back training days trainable, the phases, and
the plan's title, philosophy and progression strategy in words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trainer.domain.catalog import CatalogEntry
from trainer.domain.progression import DELOAD_AFTER_MISSES
from trainer.domain.weekdays import WEEKDAYS, Weekday
from trainer.domain.workout_checks import is_temporary, preference_constraints
from trainer.programs.models import (
    DayDraft,
    Methodology,
    MicrocycleDraft,
    PlanDraft,
    PlanInputs,
    SlotDraft,
)
from trainer.programs.plan.methodology import (
    FOCUS_REGIONS,
    SlotSpec,
    assign_foci,
    choose_methodology,
    focus_name,
    focus_template,
    neighbours,
    phase_deloads,
    phase_layout,
    phase_templates,
    processing_order,
    worked_large,
)
from trainer.programs.plan.slots import base_sets
from trainer.programs.selection import Constraints, constraints_for, leading_goal, pick_exercise


class PlanError(ValueError):
    """No plan can be built under the user's constraints (the message says why)."""


@dataclass
class _DaySlots:
    weekday: Weekday
    focus: str
    specs: list[SlotSpec]
    entries: list[CatalogEntry | None]


def _emphasis(inputs: PlanInputs) -> list[str]:
    """Muscles the user's goal weights or permanent preferences put first (at most two)."""
    muscles = sorted(inputs.muscle_goals, key=lambda m: (-inputs.muscle_goals[m], m))
    top = [m for m in muscles if inputs.muscle_goals[m] > 0][:2]
    permanent = [p for p in inputs.preferences if not is_temporary(p)]
    liked = sorted(preference_constraints(permanent).permanent_muscles)
    return list(dict.fromkeys(top + liked))[:2]


def _specs_for(focus: str, inputs: PlanInputs, goal: str) -> list[SlotSpec]:
    specs = list(focus_template(focus))
    region = next((r for key, r in FOCUS_REGIONS.items() if focus.startswith(key)), frozenset())
    for muscle in _emphasis(inputs):
        if muscle in region and all(m != muscle or role == "main" for _, m, role in specs[:3]):
            specs.insert(min(3, len(specs)), (None, muscle, "accessory"))
    cardio_weight = sum(w for g, w in inputs.category_goals.items() if leading_goal({g: 1.0}) == "endurance")
    total = sum(inputs.category_goals.values()) or 1.0
    legs_day = bool(region & {"Quadriceps"}) and "Conditioning" not in focus
    if legs_day and (goal == "endurance" or cardio_weight / total >= 0.25):
        specs.insert(min(4, len(specs)), (None, "Quadriceps", "conditioning"))
    mobility_weight = sum(w for g, w in inputs.category_goals.items() if leading_goal({g: 1.0}) == "mobility")
    if (goal == "mobility" or mobility_weight / total >= 0.2) and "Mobility" not in focus:
        specs.append((None, specs[0][1], "mobility"))
    return specs


def draft_plan(inputs: PlanInputs) -> PlanDraft:
    """The offline drafter: the plan a coach would write for these inputs, by the
    rules of methodology.py."""
    goal = leading_goal(inputs.category_goals, inputs.goal_text)
    method = choose_methodology(inputs.experience, inputs.days_per_week, goal)
    days = sorted(inputs.training_days, key=WEEKDAYS.index)
    method, foci = assign_foci(method, days, inputs.experience)
    rules = constraints_for(
        inputs.equipment, inputs.preferences, inputs.experience, inputs.history, permanent_only=True
    )
    plan_days = [_DaySlots(d, f, _specs_for(f, inputs, goal), []) for d, f in zip(days, foci, strict=True)]
    _pick_days(plan_days, rules)
    layout = phase_layout(inputs.weeks)
    templates = phase_templates(goal, inputs.experience, len(layout))
    cycles = []
    for (start, end), (name, aim, ranges, intensity) in zip(layout, templates, strict=True):
        pattern = [
            DayDraft(
                weekday=d.weekday,
                focus=focus_name(d.focus),
                slots=[
                    SlotDraft(
                        exercise=e.name,
                        pattern=p,
                        muscle=m,
                        role=role,
                        sets=base_sets(role, inputs.experience, method),
                        rep_low=ranges.get(role, (12, 15))[0] if role not in _TIMED_ROLES else None,
                        rep_high=ranges.get(role, (12, 15))[1] if role not in _TIMED_ROLES else None,
                    )
                    for (p, m, role), e in zip(d.specs, d.entries, strict=True)
                    if e is not None
                ],
            )
            for d in plan_days
        ]
        cycles.append(
            MicrocycleDraft(
                name=name,
                goal=aim,
                start_week=start,
                end_week=end,
                deload_weeks=phase_deloads(start, end),
                intensity=intensity,
                weekly_pattern=pattern,
            )
        )
    return PlanDraft(
        title=plan_title(inputs.weeks, method, goal),
        methodology=method,
        philosophy=philosophy_text(inputs, method, goal),
        microcycles=cycles,
        progression_strategy=progression_lines(inputs, [w for c in cycles for w in c.deload_weeks]),
    )


_TIMED_ROLES = frozenset({"conditioning", "mobility"})


def _pick_days(plan_days: list[_DaySlots], rules: Constraints) -> None:
    """Exercises for every slot, each day avoiding the large muscles its neighbouring training days
    work (so back-to-back days stay trainable), a fallback for a day nothing fits."""
    weekdays = [d.weekday for d in plan_days]
    done: dict[int, set[str]] = {}
    for position in processing_order(weekdays):
        day = plan_days[position]
        blocked = frozenset(set().union(*(done[n] for n in neighbours(weekdays, position) if n in done)))
        others = [e.name for i, d in enumerate(plan_days) if i != position for e in d.entries if e]
        taken: list[str] = []
        for pattern, muscle, role in day.specs:
            entry = pick_exercise(
                rules,
                pattern=pattern,
                muscle=muscle,
                role=role,
                taken=taken,
                blocked=blocked,
                prefer_not=others,
            )
            day.entries.append(entry)
            if entry is not None:
                taken.append(entry.name)
        if not any(day.entries):
            _fallback_day(day, rules, blocked)
        done[position] = set().union(*(worked_large(e) for e in day.entries if e))


_FALLBACK_SPECS: tuple[SlotSpec, ...] = (
    (None, "Abs", "core"), (None, "Shoulders", "accessory"), (None, "Calves", "accessory"),
    (None, "Back", "mobility"), (None, "Hamstrings", "mobility"), (None, "Shoulders", "mobility"),
    (None, "Forearms", "accessory"), (None, "Neck", "mobility"),
)  # fmt: skip


def _fallback_day(day: _DaySlots, rules: Constraints, blocked: frozenset[str]) -> None:
    day.specs, day.entries = [], []
    taken: list[str] = []
    for spec in _FALLBACK_SPECS:
        entry = pick_exercise(
            rules, pattern=spec[0], muscle=spec[1], role=spec[2], taken=taken, blocked=blocked
        )
        if entry is not None:
            day.specs.append(spec)
            day.entries.append(entry)
            taken.append(entry.name)
        if len(day.entries) >= 3:
            break
    if not day.entries:
        raise PlanError(
            "No exercise fits your equipment and the muscles your injuries or preferences rule out."
        )


_GOAL_WORDS = {
    "strength": "Strength", "hypertrophy": "Muscle-Building", "endurance": "Fitness", "power": "Power",
    "mobility": "Mobility", "general": "Fitness",
}  # fmt: skip


_TITLE_WORDS = {
    "full_body": "Full-Body", "upper_lower": "Upper/Lower", "push_pull_legs": "Push/Pull/Legs",
    "upper_lower_ppl": "Upper/Lower + PPL", "powerlifting": "Powerlifting", "bodybuilding": "Bodybuilding",
}  # fmt: skip


def plan_title(weeks: int, method: Methodology, goal: str) -> str:
    return f"{weeks}-Week {_TITLE_WORDS[method]} {_GOAL_WORDS.get(goal, 'Fitness')} Plan"


def goal_names(inputs: PlanInputs, goal: str) -> list[str]:
    named = sorted(inputs.category_goals, key=lambda g: (-inputs.category_goals[g], g))[:4]
    return named or [_GOAL_WORDS.get(goal, "Fitness")]


def philosophy_text(inputs: PlanInputs, method: Methodology, goal: str) -> str:
    days = inputs.days_per_week
    why = {
        "full_body": "Training every major muscle each session gives each one several exposures a week, "
        "which is the fastest way to learn the lifts and build a base.",
        "upper_lower": "Alternating upper and lower days hits every muscle twice a week while each half of "
        "the body recovers on the other half's day.",
        "push_pull_legs": "Pushing, pulling and leg days each get full attention, and each muscle is trained "
        "twice a week with time to recover in between.",
        "upper_lower_ppl": "Two upper/lower days for heavier work and three push/pull/legs days for volume "
        "train every muscle twice a week.",
        "powerlifting": "Each main lift has its own day, with the accessories that make it stronger; heavy "
        "work rotates so the same muscles are never hit hard two days running.",
        "bodybuilding": "Each muscle group gets a dedicated session with plenty of volume and variety, and "
        "a full week to grow back.",
    }[method]
    parts = [
        f"A {inputs.weeks}-week plan for {'an' if inputs.experience[0] in 'aeiou' else 'a'} "
        f"{inputs.experience} lifter training {days} day"
        f"{'s' if days != 1 else ''} a week for about {inputs.session_minutes} minutes.",
        why,
        "Every 4-6 weeks a lighter deload week (fewer sets, lighter weights) lets fatigue clear so "
        "progress keeps coming.",
        "Weights come from what you actually lift: complete every rep and the weight goes up next time.",
    ]
    avoided = preference_constraints(inputs.preferences).avoided_muscles
    if avoided:
        parts.append(
            f"Exercises that load {', '.join(sorted(avoided)).lower()} are left out to respect your injuries "
            "and preferences."
        )
    if inputs.equipment == ["bodyweight"] or set(inputs.equipment) <= {"bodyweight"}:
        parts.append("It uses bodyweight exercises only; add your equipment for a fuller plan.")
    return " ".join(parts)


def progression_lines(inputs: PlanInputs, deloads: Sequence[int]) -> list[str]:
    weeks = ", ".join(str(w) for w in deloads)
    return [
        "Double progression: add a rep each session until every set reaches the top of its rep range, "
        "then add about 2.5-10% to the weight (more when you beat the top by a few reps) and go back to "
        "the bottom of the range.",
        "Small dumbbells and light bars add reps first when the next weight is too big a jump.",
        f"Fall short of the range {DELOAD_AFTER_MISSES} sessions in a row and the weight drops by about 10%, "
        "then builds back up.",
        f"Deload weeks ({'week' if len(deloads) == 1 else 'weeks'} {weeks}): about 40% fewer sets at about "
        "90% of your working weights, stopping 3-4 reps short of failure (RPE 6-7); a week of poor "
        "check-ins or missed reps brings one forward.",
        "A new phase moves to new rep ranges: the starting weight comes from your estimated max on that "
        "lift, at the phase's effort.",
        "New exercises start light: from a related lift you already do, else a conservative starting weight.",
    ]
