"""The coach's training numbers beside the published references they follow (docs/training-model.md).

    .venv/bin/python scripts/training_reference_table.py

Prints one table per rule: estimated one-rep maxes (by reps and by logged effort), the next target
after a hit, an overshoot and misses, loads on kg and lb bars with and without a plate list, weekly
hard sets per muscle in the built plans (3, 4 and 5 days for each goal), and deload spacing and size.
Every number in the "coach" column comes from the package's public functions, so the same script run
against an older checkout (PYTHONPATH=<checkout>/layers/core) shows what that version prescribed.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from trainer.domain import progression
from trainer.domain.catalog import load_catalog
from trainer.domain.statistics import personal_records

try:
    from trainer.domain.loading import convert_exercise
except ImportError:  # an older checkout
    from trainer.domain.units import convert_exercise  # type: ignore[attr-defined,no-redef]
from trainer.domain.workout import Exercise
from trainer.programs.microcycle.week import build_week
from trainer.programs.models import PlanInputs
from trainer.programs.plan.finalize import build_plan

START = datetime(2026, 2, 2, 18, 0, tzinfo=UTC)
GYM = ["barbell", "bench", "cable", "dumbbell", "machine", "pull-up bar", "rack"]
MAJOR = ("Chest", "Back", "Shoulders", "Quadriceps", "Hamstrings", "Glutes")
SMALL = ("Biceps", "Triceps", "Calves", "Abs")

RTS_PERCENT = (
    100.0, 97.8, 95.5, 93.9, 92.2, 90.7, 89.2, 87.8, 86.3, 85.0, 83.7, 82.4, 81.1, 79.9, 78.6,
    77.4, 76.2, 75.1, 73.9, 72.3, 70.7, 69.4, 68.0, 66.7, 65.3, 64.0, 62.6, 61.3, 59.9,
)  # fmt: skip
"""The Reactive Training Systems RPE chart (Tuchscherer 2008) read by reps to failure (reps + reps in
reserve, RIR = 10 - RPE as in Helms et al. 2016), 1 to 15 in half reps: 5 reps at RPE 10 = 86.3%."""


def rts(reps: float) -> float:
    return RTS_PERCENT[round((reps - 1) * 2)] / 100


def row(
    name: str, load: float | list[float], reps: list[int], day: int, unit: str = "kg", **extra: Any
) -> dict:
    loads = load if isinstance(load, list) else [load] * len(reps)
    return {
        "exercise_name": name, "exercise_type": "reps", "sets": len(reps), "reps": reps,
        "load_each": loads, "load_unit": unit, "performed_at": START + timedelta(days=day), **extra,
    }  # fmt: skip


def table(title: str, header: tuple[str, ...], lines: Iterable[tuple[Any, ...]]) -> None:
    rows = [tuple(str(c) for c in header), *[tuple(str(c) for c in line) for line in lines]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    print(f"\n## {title}\n")
    for i, r in enumerate(rows):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}".rstrip("0").rstrip(".")


# --- estimates ------------------------------------------------------------------------------------


def coach_e1rm(load: float, reps: int, rpe: float | None = None) -> float:
    """The record's estimate, as the statistics report it."""
    extra = {"rpe": rpe, "rpe_each": [rpe]} if rpe is not None else {}
    [record] = personal_records([row("Barbell Squat", load, [reps], 0, **extra)]).values()
    return float(record.get("e1rm", record.get("epley_1rm")))


def estimates() -> None:
    lines = []
    for reps in (1, 5, 10, 12, 15, 20, 30):
        capped = f"no more than 12 reps say: {100 / rts(12):.1f}"
        reference = f"{100 / rts(reps):.1f} (RTS, RPE 10)" if reps <= 12 else capped
        lines.append((f"100 kg x {reps}", num(coach_e1rm(100, reps)), reference))
    for rpe in (7, 8, 9):
        lines.append(
            (f"100 kg x 5 @ RPE {rpe}", num(coach_e1rm(100, 5, rpe)), f"{100 / rts(5 + 10 - rpe):.1f} (RTS)")
        )
    table("e1RM: estimated one-rep max of one set", ("set", "coach", "reference"), lines)
    both = personal_records([row("Barbell Squat", 60, [30], 0), row("Barbell Squat", 100, [5], 1)])
    record = both["Barbell Squat"]
    best = record.get("e1rm", record.get("epley_1rm"))
    print(
        f"\n60 kg x 30 and 100 kg x 5 logged: the record e1RM is {num(best)} (reference 115.9, from 100 x 5)"
    )


# --- next targets -----------------------------------------------------------------------------------


def target(
    name: str, rows: list[dict], rep_range: tuple[int, int], unit: str = "kg", steps: Any = None
) -> str:
    """The standalone path (progression_target: the composer, the targets source, the offline coach)
    and the plan-week path (next_target in the plan's range), side by side."""
    histories = progression.exercise_histories(rows, unit)
    steps = steps or progression_steps(unit)
    kwargs: dict[str, Any] = {}
    if "rep_range" in inspect.signature(progression.progression_target).parameters:
        kwargs["rep_range"] = rep_range
    found = progression.progression_target(name, histories, steps, **kwargs)
    planned = progression.next_target(next(iter(histories.values())), steps, rep_range)
    return f"{said(found)} / {said(planned)}"


def said(found: Any) -> str:
    return "-" if found is None else f"{num(found.load)} x {found.reps} ({found.rule})"


def progression_steps(unit: str, items: list[dict] | None = None) -> Any:
    steps_class = getattr(progression, "LoadSteps", None)
    if steps_class is None:
        from trainer.domain.loading import LoadSteps as steps_class  # type: ignore[no-redef]
    return steps_class.for_unit(unit, items or [])


def next_targets() -> None:
    squat, bench, curl = "Barbell Squat", "Barbell Bench Press", "Dumbbell Bicep Curl"
    pairs = progression_steps("kg", [{"name": "Dumbbells", "weights": [2, 4, 6, 8, 10], "unit": "kg"}])
    micro = progression_steps("kg", [{"name": "Weight Plates", "weights": [0.5, 1.25, 2.5, 5, 10, 20]}])
    press = "Barbell Shoulder Press"
    cases: list[tuple[str, str, Callable[[], str], str]] = [
        ("hit, fixed 5s", "100 x 5,5,5 (5 reps)",
         lambda: target(squat, [row(squat, 100, [5] * 3, 0)], (5, 5)), "102.5 x 5 (2-10% more; ACSM 2009)"),
        ("hit, heavy lift", "200 x 5,5,5 (5 reps)",
         lambda: target(squat, [row(squat, 200, [5] * 3, 0)], (5, 5)), "205 x 5 (2.5%; 2-10%)"),
        ("overshoot", "200 x 7,7,7 (5 reps)",
         lambda: target(squat, [row(squat, 200, [7] * 3, 0)], (5, 5)), "~215 x 5 (2 reps over: toward 10%)"),
        ("top of range", "60 x 12,12,12 (8-12)",
         lambda: target(bench, [row(bench, 60, [12] * 3, 0)], (8, 12)), "62.5 x 8 (load, not a 13th rep)"),
        ("top of 15-20", "30 x 20,20,20 (15-20)",
         lambda: target(bench, [row(bench, 30, [20] * 3, 0)], (15, 20)), "32.5 x 15 (not a 20-30 range)"),
        ("inside range", "60 x 10,10,10 (8-12)",
         lambda: target(bench, [row(bench, 60, [10] * 3, 0)], (8, 12)), "60 x 11"),
        ("one miss", "100x5 then 102.5 x 4,4,4 (5)",
         lambda: target(squat, [row(squat, 100, [5] * 3, 0), row(squat, 102.5, [4] * 3, 3)], (5, 5)),
         "102.5 x 5 (hold)"),
        ("two misses", "100x5, 102.5 x 4,4,4 twice (5)",
         lambda: target(squat, [row(squat, 100, [5] * 3, 0), row(squat, 102.5, [4] * 3, 3),
                                row(squat, 102.5, [4] * 3, 6)], (5, 5)),
         "<= 102.5 x 5, then ~10% less"),
        ("small dumbbell", "6 x 12,12,12 (8-12), 2 kg steps",
         lambda: target(curl, [row(curl, 6, [12] * 3, 0)], (8, 12), steps=pairs),
         "6 x 13 (reps before load)"),
        ("light bar", "20 x 12,12,12 press (8-12)",
         lambda: target(press, [row(press, 20, [12] * 3, 0)], (8, 12)), "22.5 x 8"),
        ("microplates", "40 x 5,5,5 press (5), 0.5 kg plates",
         lambda: target(press, [row(press, 40, [5] * 3, 0)], (5, 5), steps=micro), "41 x 5 (2.5%)"),
    ]  # fmt: skip
    table(
        "Next targets (the standalone path, which the composer and the targets source read / a plan week)",
        ("case", "logged (prescribed range)", "coach: standalone / plan week", "reference"),
        [(case, logged, compute(), reference) for case, logged, compute, reference in cases],
    )


# --- loads ------------------------------------------------------------------------------------------


def loads() -> None:
    plates_kg = [{"name": "Weight Plates", "weights": [1.25, 2.5, 5, 10, 20], "unit": "kg"}]
    plates_lb = [{"name": "Weight Plates", "weights": [2.5, 5, 10, 25, 45], "unit": "lbs"}]
    lines = []
    for unit, plates, wanted, reference in (
        ("kg", [], 17.5, "20 (the empty bar)"),
        ("kg", plates_kg, 17.5, "20 (the empty bar)"),
        ("lbs", [], 40.0, "45 (the empty bar)"),
        ("lbs", plates_lb, 40.0, "45 (the empty bar)"),
        ("kg", [], 61.25, "60 (halfway: the lighter, both ways)"),
        ("kg", plates_kg, 61.25, "60 (halfway: the lighter, both ways)"),
        ("lbs", [], 47.5, "45 (halfway: the lighter, both ways)"),
        ("lbs", plates_lb, 47.5, "45 (halfway: the lighter, both ways)"),
    ):
        steps = progression_steps(unit, plates)
        listed = "plate list" if plates else "no plate list"
        lines.append(
            (f"{wanted:g} {unit} barbell, {listed}", num(steps.nearest(wanted, "barbell")), reference)
        )
    for name, implement, value, source, target_unit, reference in (
        ("Dumbbell Bicep Curl", "dumbbell", 1.0, "kg", "lbs", "2 lb (a real dumbbell, never 0)"),
        ("Dumbbell Bicep Curl", "dumbbell", 25.0, "lbs", "kg", "12 kg (the nearest kg dumbbell to 11.3)"),
        ("Kettlebell Swing", "kettlebell", 16.0, "kg", "lbs", "35 lb (nearest lb kettlebell to 35.3)"),
        ("Barbell Squat", "barbell", 100.0, "kg", "lbs", "220 lb (220.5 on 5 lb steps)"),
    ):
        ex = Exercise.model_validate({
            "exercise_name": name, "exercise_type": "reps", "sets": 1, "reps": [10], "rest_sec": 60,
            "load_each": [value], "load_unit": source, "order": 1, "reasoning": "Converted.",
            "muscles_utilized": [{"muscle": "Biceps", "share": 1.0}],
            "goals_addressed": [{"goal": "Strength", "share": 1.0}],
            "equipment": [implement],
        })  # fmt: skip
        converted = convert_exercise(ex, target_unit, "km")
        lines.append(
            (f"{name}: {num(value)} {source} in {target_unit}", f"{num(converted.load_each[0])}", reference)
        )
    table("Loads you can make", ("load asked", "coach", "reference"), lines)


# --- weekly volume ----------------------------------------------------------------------------------


def inputs(goal: str, days: list[str], **changes: Any) -> PlanInputs:
    data: dict[str, Any] = {
        "now": datetime(2026, 3, 2, 7, 0, tzinfo=UTC), "start_date": date(2026, 3, 2), "weeks": 12,
        "training_days": days, "session_minutes": 60, "experience": "intermediate",
        "category_goals": {goal: 100.0}, "equipment": list(GYM),
    }  # fmt: skip
    data.update(changes)
    return PlanInputs.model_validate(data)


def weekly_sets(slots: Iterable[Any]) -> dict[str, float]:
    """Hard sets a week per muscle: 1 for the exercise's primary muscle, 0.5 for each muscle with at
    least a 20% share (the fractional count of Pelland et al. 2024)."""
    catalog = load_catalog()
    sets: dict[str, float] = defaultdict(float)
    for slot in slots:
        entry = catalog.get(slot.exercise)
        if entry is None or slot.kind == "duration":
            continue
        primary = entry.primary_muscle
        sets[primary] += slot.sets
        for muscle, share in entry.muscles:
            if muscle != primary and share >= 0.2:
                sets[muscle] += slot.sets / 2
    return sets


DAYS = {
    3: ["Monday", "Wednesday", "Friday"],
    4: ["Monday", "Tuesday", "Thursday", "Friday"],
    5: ["Monday", "Tuesday", "Wednesday", "Friday", "Saturday"],
}


def volume() -> None:
    lines = []
    for goal in ("Hypertrophy", "Strength", "Power", "Endurance", "General Fitness"):
        for count, days in DAYS.items():
            plan = build_plan(inputs(goal, days))
            for cycle in plan.microcycles:
                sets = weekly_sets(s for d in cycle.weekly_pattern for s in d.slots)
                cells = [num(sets.get(m, 0.0)) for m in (*MAJOR, *SMALL)]
                lines.append((goal, count, plan.methodology, cycle.name, *cells))
    for count, days in DAYS.items():
        plan = build_plan(inputs("Hypertrophy", days, weeks=16))
        for cycle in plan.microcycles:
            sets = weekly_sets(s for d in cycle.weekly_pattern for s in d.slots)
            cells = [num(sets.get(m, 0.0)) for m in (*MAJOR, *SMALL)]
            lines.append(("Hypertrophy, 16 weeks", count, plan.methodology, cycle.name, *cells))
    table(
        "Weekly hard sets per muscle (intermediate, 60 min, full gym; reference for each major muscle: "
        "10-20 toward size, Schoenfeld et al. 2017, Baz-Valle et al. 2022; at least 6 toward strength or "
        "power, Ralston et al. 2017; at least 4 for endurance or general fitness, ACSM 2011; none over 20)",
        ("goal", "days", "method", "phase", *MAJOR, *SMALL),
        lines,
    )


# --- deloads ----------------------------------------------------------------------------------------


def deloads() -> None:
    lines = []
    for weeks in range(4, 17):
        plan = build_plan(inputs("Hypertrophy", DAYS[4], weeks=weeks))
        marks = plan.deload_weeks
        gaps = [b - a for a, b in zip([0, *marks], marks, strict=False)]
        lines.append((weeks, ", ".join(map(str, marks)) or "-", ", ".join(map(str, gaps)) or "-"))
    table(
        "Deload weeks by plan length (reference: every 5.6 +/- 2.3 weeks, Rogerson et al. 2024)",
        ("plan weeks", "deload weeks", "weeks between"),
        lines,
    )
    given = inputs("Hypertrophy", DAYS[4], weeks=8)
    plan = build_plan(given)
    deload = plan.deload_weeks[0]
    history = [
        row(
            s.exercise,
            60.0,
            [s.rep_high or 10] * s.sets,
            -3 - i,
            muscles=[{"muscle": s.muscle, "share": 1.0}],
        )
        for cycle in plan.microcycles[:1]
        for day in cycle.weekly_pattern
        for i, s in enumerate(day.slots)
        if s.kind == "reps"
    ]
    lines = []
    for label, number in (("loading week", deload - 1), ("deload week", deload)):
        built = given.model_copy(update={"history": history, "progression_history": history})
        week = build_week(plan, number, built)
        sets = loads_sum = count = 0.0
        for day in week.days:
            for ex in day.workout.exercises if day.workout else []:
                if ex.group is not None or ex.exercise_type != "reps":
                    continue
                sets += ex.sets or 0
                if ex.load_each:
                    loads_sum += max(ex.load_each)
                    count += 1
        lines.append((label, number, num(sets), num(loads_sum / count if count else None)))
    table(
        "Deload size: an 8-week hypertrophy plan, the same history (reference: fewer sets AND a lighter "
        "load or fewer reps in reserve; Rogerson et al. 2024)",
        ("week", "number", "working sets", "mean top load (kg)"),
        lines,
    )


def main() -> None:
    print("# The coach's numbers against the published references")
    estimates()
    next_targets()
    loads()
    volume()
    deloads()


if __name__ == "__main__":
    main()
