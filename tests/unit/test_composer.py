from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trainer.domain.composer import (
    ComposerError,
    ComposerRequest,
    compose_replacement,
    compose_workout,
    parse_focus,
    parse_request_muscles,
)
from trainer.domain.distribution import DistributionRow
from trainer.domain.equipment import available_equipment, missing_equipment
from trainer.domain.muscles import MUSCLES
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, recovering_muscles
from trainer.domain.units import round_load
from trainer.domain.workout_checks import UserTrainingContext, check_workout, exercise_matches

NOW = datetime(2025, 3, 10, 12, tzinfo=UTC)
EQUIPMENT = [
    "barbell",
    "dumbbell",
    "kettlebell",
    "cable",
    "machine",
    "bench",
    "pull-up bar",
    "bands",
    "dip station",
    "treadmill",
    "stationary bike",
    "ez curl bar",
    "medicine ball",
    "Full gym",
]
REQUESTS = [
    "",
    "chest workout",
    "legs today",
    "upper body, 30 minutes",
    "quick push session 20 min",
    "pull day",
    "core and glutes",
    "cardio please",
    "full body 60 minutes",
    "arms but nothing for my elbow",
    "stretching",
    "hamstrings and calves in half an hour",
]
DISLIKES = ["burpees", "lunges", "pushups", "deadlifts", "crunches", "squats", "pullups", "planks"]
INJURIES = ["knee", "shoulder", "lower back", "wrist", "elbow", "hip", "neck", "ankle"]


@st.composite
def profiles(draw: st.DrawFn) -> ComposerRequest:
    history = []
    for muscle in draw(st.lists(st.sampled_from(MUSCLES), max_size=10, unique=True)):
        hours = draw(st.integers(1, 72))
        history.append(
            {
                "exercise_name": f"Some {muscle} Exercise",
                "performed_at": NOW - timedelta(hours=hours),
                "muscles": [{"muscle": muscle, "share": 1.0}],
                "load_each": [40],
                "load_unit": "kg",
                "reps": [8],
                "rpe": draw(st.sampled_from([None, 7, 10])),
            }
        )
    prefs: list[dict[str, Any]] = []
    for dislike in draw(st.lists(st.sampled_from(DISLIKES), max_size=3, unique=True)):
        prefs.append(
            {"type": "exercise", "description": f"I hate {dislike}", "guidance": "", "temporary": False}
        )
    for injury in draw(st.lists(st.sampled_from(INJURIES), max_size=2, unique=True)):
        prefs.append(
            {
                "type": "injury",
                "description": f"sore {injury}",
                "guidance": "",
                "temporary": draw(st.booleans()),
            }
        )
    goals = draw(
        st.dictionaries(
            st.sampled_from(["Strength", "Hypertrophy", "Endurance", "Mobility", "Power"]),
            st.integers(1, 100).map(float),
            max_size=3,
        )
    )
    return ComposerRequest(
        request_text=draw(st.sampled_from(REQUESTS)),
        weight_unit=draw(st.sampled_from(["kg", "lbs"])),
        distance_unit=draw(st.sampled_from(["km", "mi"])),
        available_equipment=set(draw(st.lists(st.sampled_from(EQUIPMENT), max_size=6, unique=True))),
        category_goals=goals,
        muscle_goals=draw(
            st.dictionaries(st.sampled_from(MUSCLES), st.integers(1, 10).map(float), max_size=4)
        ),
        muscle_debt=[
            DistributionRow(m, 0.1, 0.0, 0.1) for m in draw(st.lists(st.sampled_from(MUSCLES), max_size=3))
        ],
        preferences=prefs,
        history=history,
        now=NOW,
        excluded_exercises=set(
            draw(st.lists(st.sampled_from(["Pushups", "Plank", "Barbell Squat"]), max_size=2))
        ),
        experience_level=draw(st.sampled_from(["beginner", "intermediate", "expert"])),
    )


@settings(max_examples=200, deadline=None)
@given(profiles())
def test_offline_composer_respects_equipment_recovery_and_exclusions(req: ComposerRequest) -> None:
    try:
        workout = compose_workout(req)
    except ComposerError:
        return
    have = available_equipment(req.available_equipment)
    recovering = recovering_muscles(req.history, NOW)
    focus, _ = parse_request_muscles(req.request_text)
    dislikes = [p["description"].removeprefix("I hate ") for p in req.preferences if p["type"] == "exercise"]
    for ex in workout.exercises:
        assert not missing_equipment(ex.equipment, have), ex.exercise_name
        worked = {m.muscle for m in ex.muscles_utilized if m.share >= WORKED_SHARE_THRESHOLD}
        assert not (worked & set(recovering)) - focus, (ex.exercise_name, recovering)
        assert not any(exercise_matches(ex.exercise_name, d) for d in [*dislikes, *req.excluded_exercises])
        if ex.load_unit:
            assert ex.load_unit == req.weight_unit
            assert all(v == round_load(v, req.weight_unit) for v in ex.load_each or [])
    user = UserTrainingContext(
        available_equipment=have,
        recovering_muscles=recovering,
        preferences=req.preferences,
        weight_unit=req.weight_unit,
        distance_unit=req.distance_unit,
        requested_muscles=focus,
    )
    assert check_workout(workout, user) == []


def _request(**kwargs: Any) -> ComposerRequest:
    base: dict[str, Any] = {
        "available_equipment": {"barbell", "dumbbell", "bench", "pull-up bar", "cable"},
        "category_goals": {"Strength": 60, "Hypertrophy": 40},
        "now": NOW,
    }
    return ComposerRequest(**{**base, **kwargs})


def test_deterministic_and_valid() -> None:
    first = compose_workout(_request(request_text="upper body"))
    assert first == compose_workout(_request(request_text="upper body"))
    assert [e.order for e in first.exercises] == list(range(1, len(first.exercises) + 1))


def test_time_budget_from_text_is_respected() -> None:
    short = compose_workout(_request(request_text="I only have 20 minutes"))
    long = compose_workout(_request(request_text="I have 75 minutes"))
    assert short.summary and long.summary
    assert short.summary.estimated_duration_min is not None and short.summary.estimated_duration_min <= 20
    assert len(long.exercises) > len(short.exercises)


def test_explicit_focus_and_compound_first() -> None:
    workout = compose_workout(_request(request_text="chest workout"))
    primaries = [max(e.muscles_utilized, key=lambda m: m.share).muscle for e in workout.exercises]
    assert primaries[0] == "Chest" and primaries.count("Chest") >= 2
    assert all(g.goal in {"Strength", "Hypertrophy"} for e in workout.exercises for g in e.goals_addressed)


def test_temporary_preference_overrides_the_request() -> None:
    prefs = [
        {"type": "muscle_group", "description": "avoid chest this week", "guidance": "", "temporary": True}
    ]
    workout = compose_workout(_request(request_text="chest workout", preferences=prefs))
    assert all(m.muscle != "Chest" for e in workout.exercises for m in e.muscles_utilized)


def test_recovering_muscle_is_skipped_unless_requested() -> None:
    history = [
        {
            "exercise_name": "Barbell Bench Press - Medium Grip",
            "performed_at": NOW - timedelta(hours=20),
            "muscles": [{"muscle": "Chest", "share": 1.0}],
            "load_each": [80, 80],
            "load_unit": "kg",
            "reps": [5, 5],
            "rpe": 8,
        }
    ]
    default = compose_workout(_request(history=history))
    assert all(m.muscle != "Chest" or m.share < 0.2 for e in default.exercises for m in e.muscles_utilized)
    asked = compose_workout(_request(history=history, request_text="bench press and chest please"))
    bench = next((e for e in asked.exercises if e.exercise_name == "Barbell Bench Press - Medium Grip"), None)
    if bench is not None:
        assert bench.load_each and bench.load_each[0] == 85.0


def test_progression_from_history_in_user_unit() -> None:
    history = [
        {
            "exercise_name": "Dumbbell Bench Press",
            "performed_at": NOW - timedelta(days=5),
            "muscles": [{"muscle": "Chest", "share": 1.0}],
            "load_each": [20, 20],
            "load_unit": "kg",
            "reps": [10, 10],
            "rpe": 8,
        }
    ]
    workout = compose_workout(_request(history=history, request_text="chest", weight_unit="lbs"))
    bench = next(e for e in workout.exercises if e.exercise_name == "Dumbbell Bench Press")
    assert bench.load_unit == "lbs" and bench.load_each and set(bench.load_each) == {50.0}
    assert "44.09 lbs" in bench.reasoning or "Up from" in bench.reasoning


def test_bodyweight_only_gets_no_loads_and_no_equipment() -> None:
    workout = compose_workout(ComposerRequest(now=NOW))
    assert all(e.equipment == [] and e.load_each is None for e in workout.exercises)


def test_debt_pulls_in_under_represented_muscle() -> None:
    debt = [DistributionRow("Calves", 0.3, 0.0, 0.3)]
    workout = compose_workout(_request(muscle_goals={"Calves": 3, "Chest": 1}, muscle_debt=debt))
    assert "Calves" in {max(e.muscles_utilized, key=lambda m: m.share).muscle for e in workout.exercises}


def test_nothing_fits_raises_clear_error() -> None:
    everything = [{"type": "injury", "description": f"sore {m}", "guidance": ""} for m in MUSCLES]
    with pytest.raises(ComposerError, match="No exercise fits"):
        compose_workout(ComposerRequest(preferences=everything, now=NOW))


def test_replacement_keeps_primary_muscle_order_and_group() -> None:
    workout = compose_workout(_request(request_text="back"))
    old = workout.exercises[0]
    new = compose_replacement(_request(), old, avoid_names=[e.exercise_name for e in workout.exercises])
    assert new.exercise_name not in {e.exercise_name for e in workout.exercises}
    assert (
        max(new.muscles_utilized, key=lambda m: m.share).muscle
        == max(old.muscles_utilized, key=lambda m: m.share).muscle
    )
    assert new.order == old.order and new.group == old.group


def test_parse_focus() -> None:
    assert parse_focus("chest day") == {"Chest"}
    assert parse_focus("legs") == {"Quadriceps", "Hamstrings", "Glutes", "Calves"}
    assert parse_focus("push") == {"Chest", "Shoulders", "Triceps"}
    assert parse_focus("pushups and lower back") == {"Lower Back"}
    assert parse_focus("full body please, chest too") == set()
    assert parse_request_muscles("legs but my knee hurts") == (
        {"Glutes", "Calves"},
        {"Quadriceps", "Hamstrings"},
    )
