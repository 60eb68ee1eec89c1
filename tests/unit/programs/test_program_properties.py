"""Over 200 generated profiles (experience, days, session length, plan length, goals and weights,
equipment, injuries and preferences, units, time zone, logged history): the offline plan and its weeks
pass every validator and the workout checks with zero hard violations, deload weeks cut volume, and a
user who completed every rep of a week gets more load or more reps the next week."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trainer.domain.equipment import FULL_GYM
from trainer.domain.muscles import MUSCLES
from trainer.domain.weekdays import WEEKDAYS
from trainer.domain.workout import Exercise
from trainer.programs.microcycle.checks import main_sets, validate_week
from trainer.programs.microcycle.dates import week_dates
from trainer.programs.microcycle.week import build_week
from trainer.programs.models import PlanInputs
from trainer.programs.plan.checks import validate_plan
from trainer.programs.plan.finalize import build_plan

from tests.unit.programs.programs_fixtures import after, completed, week_start_moment

NOW = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
PREFERENCES: tuple[dict[str, Any], ...] = (
    {"type": "injury", "description": "left knee pain"},
    {"type": "injury", "description": "sore lower back"},
    {"type": "injury", "description": "shoulder impingement"},
    {"type": "injury", "description": "tennis elbow"},
    {"type": "injury", "description": "wrist pain"},
    {"type": "exercise", "description": "I hate burpees"},
    {"type": "exercise", "description": "no deadlifts please"},
    {"type": "exercise", "description": "I don't like lunges"},
    {"type": "muscle_group", "description": "I love training glutes"},
    {"type": "muscle_group", "description": "avoid chest for now", "temporary": True},
    {"type": "time", "description": "30 minutes max", "temporary": True},
    {"type": "intensity", "description": "take it easy this week", "temporary": True},
    {"type": "equipment", "description": "no barbell at the moment"},
)
HISTORY_EXERCISES: tuple[tuple[str, str, float | None], ...] = (
    ("Barbell Bench Press - Medium Grip", "Chest", 60.0),
    ("Barbell Squat", "Quadriceps", 80.0),
    ("Dumbbell Bench Press", "Chest", 20.0),
    ("Bent Over Barbell Row", "Back", 50.0),
    ("Romanian Deadlift", "Hamstrings", 70.0),
    ("Seated Dumbbell Press", "Shoulders", 14.0),
    ("Wide-Grip Lat Pulldown", "Back", 45.0),
    ("Goblet Squat", "Quadriceps", 16.0),
    ("Pushups", "Chest", None),
    ("Pullups", "Back", None),
    ("Dumbbell Bicep Curl", "Biceps", 10.0),
    ("Leg Press", "Quadriceps", 120.0),
)
GOALS = (
    "Strength",
    "Hypertrophy",
    "Endurance",
    "Cardio",
    "Mobility",
    "Power",
    "Weight loss",
    "General fitness",
)


@st.composite
def history_rows(draw: st.DrawFn, unit: str) -> dict[str, Any]:
    name, muscle, load = draw(st.sampled_from(HISTORY_EXERCISES))
    sets = draw(st.integers(1, 5))
    reps = draw(st.lists(st.integers(1, 20), min_size=sets, max_size=sets))
    hours = draw(st.floats(min_value=2, max_value=24 * 40))
    row: dict[str, Any] = {
        "exercise_name": name,
        "exercise_type": "reps",
        "sets": sets,
        "reps": reps,
        "performed_at": NOW - timedelta(hours=hours),
        "muscles": [{"muscle": muscle, "share": 1.0}],
    }
    if load is not None:
        scale = draw(st.sampled_from((0.5, 0.75, 1.0, 1.25, 1.5)))
        step = 2.5 if unit == "kg" else 5.0
        value = max(step, round(load * scale * (1 if unit == "kg" else 2.2) / step) * step)
        row.update(load_each=[value] * sets, load_unit=unit)
    return row


@st.composite
def profiles(draw: st.DrawFn) -> PlanInputs:
    unit = draw(st.sampled_from(("kg", "lbs")))
    equipment = draw(st.lists(st.sampled_from(sorted(FULL_GYM)), unique=True, max_size=14))
    items: list[dict[str, Any]] = []
    if "dumbbell" in equipment and draw(st.booleans()):
        weights = draw(
            st.lists(
                st.sampled_from((2, 4, 5, 6, 8, 10, 12.5, 15, 20, 25, 30)),
                min_size=1,
                max_size=8,
                unique=True,
            )
        )
        items.append({"name": "Dumbbells", "weights": sorted(weights), "unit": unit})
    rows = draw(st.lists(history_rows(unit), max_size=14))
    return PlanInputs(
        now=NOW,
        start_date=NOW.date(),
        weeks=draw(st.integers(4, 16)),
        training_days=sorted(
            draw(st.lists(st.sampled_from(WEEKDAYS), min_size=1, max_size=7, unique=True)), key=WEEKDAYS.index
        ),
        session_minutes=draw(st.integers(20, 120)),
        experience=draw(st.sampled_from(("beginner", "intermediate", "advanced"))),
        category_goals={
            k: float(v)
            for k, v in draw(st.dictionaries(st.sampled_from(GOALS), st.integers(5, 100), max_size=4)).items()
        },
        muscle_goals={
            k: float(v)
            for k, v in draw(
                st.dictionaries(st.sampled_from(MUSCLES), st.integers(5, 100), max_size=3)
            ).items()
        },
        preferences=[
            dict(p) for p in draw(st.lists(st.sampled_from(PREFERENCES), max_size=3, unique_by=str))
        ],
        equipment=["bodyweight", *equipment],
        location_items=items,
        weight_unit=unit,
        distance_unit="km" if unit == "kg" else "mi",
        timezone=draw(st.sampled_from(("UTC", "America/New_York", "Asia/Tokyo", "Europe/Berlin"))),
        history=rows,
        progression_history=[r for r in rows if r.get("load_each")],
    )


def _main(exercises: list[Exercise]) -> dict[str, Exercise]:
    return {
        e.exercise_name: e for e in exercises if e.group is None or e.group.type not in ("warmup", "cooldown")
    }


def _progressed(before: Exercise, now: Exercise) -> bool:
    if now.exercise_type == "reps":
        load_before, load_now = (before.load_each or [0.0])[0], (now.load_each or [0.0])[0]
        reps_before, reps_now = min(before.reps or [0]), min(now.reps or [0])
        return load_now > load_before or (load_now == load_before and reps_now > reps_before)
    if now.exercise_type == "hold":
        return max(now.hold_sec or [0]) >= max(before.hold_sec or [0])
    return True


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(profiles())
def test_offline_plans_and_weeks_pass_every_validator_and_progress(profile: PlanInputs) -> None:
    plan = build_plan(profile)
    assert validate_plan(plan, profile) == []
    deload = plan.deload_weeks[0]
    for number in sorted({1, deload}):
        week = build_week(plan, number, profile)
        assert validate_week(week, plan, profile) == [], number
        assert all(d.kind == "training" for d in week.days if d.weekday in plan.training_days)

    steady = profile.model_copy(
        update={"preferences": [p for p in profile.preferences if p.get("type") != "intensity"]}
    )
    week1 = build_week(plan, 1, steady)
    assert validate_week(week1, plan, steady) == []
    later = after(steady, completed(week1, steady.timezone), week_start_moment(week_dates(plan, 2)[0]))
    week2 = build_week(plan, 2, later)
    assert validate_week(week2, plan, later) == []
    compared = 0
    for day1, day2 in zip(week1.days, week2.days, strict=True):
        if day1.workout is None or day2.workout is None:
            continue
        before = _main(day1.workout.exercises)
        for name, now in _main(day2.workout.exercises).items():
            if name in before and now.exercise_type == "reps":
                compared += 1
                assert _progressed(before[name], now), (
                    name,
                    before[name].load_each,
                    before[name].reps,
                    now.load_each,
                    now.reps,
                )
    loaded = [e for d in week1.days if d.workout for e in _main(d.workout.exercises).values() if e.load_each]
    assert compared > 0 or not loaded

    if deload >= 3:
        loading = build_week(plan, deload - 1, steady)
        unloaded = build_week(plan, deload, steady)
        if main_sets(loading):
            assert main_sets(unloaded) <= 0.7 * main_sets(loading)
