"""Properties of workouts that honour the request: a body-part or muscle request
keeps every lift on those muscles; a swap keeps the movement pattern; a bodyweight-only beginner gets
only bodyweight beginner exercises; "harder" never lowers an exercise's work and "easier" never
raises it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trainer.domain.catalog import LEVELS, load_catalog
from trainer.domain.composer import (
    ComposerError,
    ComposerRequest,
    compose_replacement,
    compose_session,
    compose_workout,
)
from trainer.domain.composer.compose import workout_for
from trainer.domain.composer.session_plan import resolve_plan
from trainer.domain.difficulty import step_changes, work
from trainer.domain.equipment import FULL_GYM
from trainer.domain.loading import LoadSteps
from trainer.domain.movements import movement_pattern
from trainer.domain.workout import Exercise
from trainer.domain.workout_checks import muscles_in_text

REGIONS = (
    "upper body",
    "legs",
    "lower body",
    "arms",
    "chest",
    "back and biceps",
    "shoulders",
    "glutes",
    "chest and triceps",
    "quads and hamstrings",
)
EQUIPMENT = sorted(FULL_GYM)
SWAPPABLE = (
    "Barbell Incline Bench Press - Medium Grip",
    "Dumbbell Bench Press",
    "Barbell Squat",
    "Goblet Squat",
    "Romanian Deadlift",
    "One-Arm Dumbbell Row",
    "Bent Over Barbell Row",
    "Standing Military Press",
    "Dumbbell Lunges",
    "Barbell Curl",
    "Lying Leg Curls",
    "Wide-Grip Lat Pulldown",
    "Pushups",
)


def _exercise(name: str, loads: list[float] | None = None, reps: int = 10, sets: int = 3) -> Exercise:
    entry = load_catalog().get(name)
    assert entry is not None
    return Exercise.model_validate(
        {
            "exercise_name": entry.name,
            "exercise_type": "reps",
            "order": 1,
            "sets": sets,
            "reps": [reps] * sets,
            "load_each": loads,
            "load_unit": "kg" if loads else None,
            "rest_sec": 90,
            "muscles_utilized": [{"muscle": m, "share": s} for m, s in entry.muscles],
            "goals_addressed": [{"goal": "Strength", "share": 1}],
            "reasoning": "r",
            "equipment": list(entry.equipment),
        }
    )


@settings(max_examples=120, deadline=None)
@given(
    region=st.sampled_from(REGIONS),
    equipment=st.sets(st.sampled_from(EQUIPMENT), max_size=8),
    level=st.sampled_from(LEVELS),
    minutes=st.sampled_from([20, 30, 45, 60]),
)
def test_a_body_part_request_keeps_every_lift_on_it(
    region: str, equipment: set[str], level: str, minutes: int
) -> None:
    """Every lift is on the body part asked for, unless nothing on it fits: then the focus widens
    and the workout says so (it never widens while a session on the body part can be built)."""
    asked = muscles_in_text(region)
    req = ComposerRequest(
        request_text=f"Give me a {minutes} minute {region} workout",
        available_equipment=equipment,
        experience_level=level,
    )
    try:
        composed = compose_session(req)
    except ComposerError:
        return
    if any(r.kind == "focus" for r in composed.relaxed):
        with pytest.raises(ComposerError):
            workout_for(resolve_plan(req), load_catalog())
        assert "Nothing for your" in (composed.relaxed_words() or "")
        return
    for ex in composed.workout.exercises:
        entry = load_catalog().get(ex.exercise_name)
        assert entry is not None and entry.primary_muscle in asked, (region, ex.exercise_name)


@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(SWAPPABLE),
    text=st.sampled_from(
        ["swap it", "I don't like this one, replace it", "something else please", "swap it, not a fan"]
    ),
)
def test_a_swap_keeps_the_movement_pattern(name: str, text: str) -> None:
    entry = load_catalog().get(name)
    assert entry is not None
    loads = [40.0] * 3 if entry.equipment else None
    old = _exercise(name, loads)
    new = compose_replacement(ComposerRequest(request_text=text, available_equipment=set(FULL_GYM)), old)
    assert new.exercise_name != name
    assert movement_pattern(new.exercise_name) == movement_pattern(name), (name, new.exercise_name)


@settings(max_examples=80, deadline=None)
@given(
    request=st.sampled_from(
        [
            "give me a workout",
            "full body workout",
            "upper body workout",
            "leg workout",
            "30 minute workout",
            "core workout",
            "quick workout",
        ]
    ),
    said=st.sampled_from(["I'm a beginner", "I'm new to working out", "I'm just starting out"]),
)
def test_a_bodyweight_beginner_gets_bodyweight_beginner_exercises(request: str, said: str) -> None:
    try:
        workout = compose_workout(
            ComposerRequest(request_text=f"{said}, {request}", available_equipment=set())
        )
    except ComposerError:
        return
    for ex in workout.exercises:
        entry = load_catalog().get(ex.exercise_name)
        assert entry is not None
        assert not entry.equipment, (ex.exercise_name, entry.equipment)
        assert entry.level == "beginner", (ex.exercise_name, entry.level)


exercises = st.fixed_dictionaries(
    {
        "exercise_name": st.sampled_from(
            [
                "Dumbbell Bench Press",
                "Barbell Squat",
                "Pushups",
                "Cable Crossover",
                "Kettlebell Swing",
                "Plank",
            ]
        ),
        "exercise_type": st.sampled_from(["reps", "reps", "hold", "duration", "intervals"]),
        "sets": st.integers(1, 6),
        "reps": st.lists(st.integers(1, 20), min_size=1, max_size=6),
        "load_each": st.one_of(
            st.none(), st.lists(st.floats(0.5, 300).map(lambda v: round(v, 1)), min_size=1, max_size=6)
        ),
        "load_unit": st.sampled_from(["kg", "lbs"]),
        "hold_sec": st.lists(st.integers(5, 120), min_size=1, max_size=6),
        "duration_min": st.floats(5, 90),
        "rounds": st.integers(1, 12),
        "work_sec": st.integers(10, 60),
        "equipment": st.sampled_from([[], ["dumbbell"], ["barbell"], ["cable"], ["kettlebell"]]),
    }
)


def _applied(exercise: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    return {**exercise, **changes}


@settings(max_examples=400, deadline=None)
@given(exercise=exercises, unit_steps=st.sampled_from(["kg", "lbs"]))
def test_harder_never_lowers_work_and_easier_never_raises_it(
    exercise: dict[str, Any], unit_steps: str
) -> None:
    steps = LoadSteps.for_unit(unit_steps)
    harder = step_changes(exercise, "harder", steps)
    easier = step_changes(exercise, "easier", steps)
    assert work(_applied(exercise, harder)) >= work(exercise)
    assert work(_applied(exercise, easier)) <= work(exercise)
