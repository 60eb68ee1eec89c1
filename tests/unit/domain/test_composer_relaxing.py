"""The composer relaxing its least important constraint when a request asks for more than the hard
rules allow, and saying which: the muscle focus widens (to the body part, then the whole body), an
exercise asked for by name is left out; equipment, injuries, avoided areas, recovery and what the user
ruled out never give way."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from trainer.domain.catalog import load_catalog
from trainer.domain.composer import ComposedWorkout, ComposerError, ComposerRequest, compose_session
from trainer.domain.composer.session_plan import allowed, broken_rules, resolve_plan
from trainer.domain.muscles import MUSCLES
from trainer.domain.workout import Workout
from trainer.domain.workout_checks import muscles_in_text

NOW = datetime(2025, 3, 10, 12, tzinfo=UTC)
KNEES = {"type": "injury", "description": "bad knees, no jumping", "guidance": ""}


def _composed(text: str, **kwargs: Any) -> ComposedWorkout:
    return compose_session(ComposerRequest(request_text=text, now=NOW, **kwargs))


def _primaries(workout: Workout) -> set[str]:
    primaries = set()
    for ex in workout.exercises:
        entry = load_catalog().get(ex.exercise_name)
        assert entry is not None
        primaries.add(entry.primary_muscle)
    return primaries


def _worked(workout: Workout) -> set[str]:
    return {m.muscle for ex in workout.exercises for m in ex.muscles_utilized if m.share > 0}


def test_a_biceps_session_with_only_bodyweight_widens_to_the_upper_body_and_says_so() -> None:
    composed = _composed("biceps workout")  # no bodyweight exercise has biceps as its main muscle
    assert composed.workout.title == "Chest & Triceps Workout (45 min)"
    assert _primaries(composed.workout) <= muscles_in_text("upper body")
    assert all(not ex.equipment for ex in composed.workout.exercises)
    assert composed.relaxed_words() == (
        "Nothing for your biceps fits with just your bodyweight, "
        "so I made a chest and triceps workout instead."
    )


def test_the_focus_widens_to_its_body_part_before_the_whole_body() -> None:
    composed = _composed("a calf workout")  # only stretches train the calves with bodyweight
    assert _primaries(composed.workout) <= muscles_in_text("legs")
    assert composed.relaxed_words() == (
        "Nothing for your calves fits with just your bodyweight, so I made a leg workout instead."
    )


def test_legs_with_bad_knees_keep_the_knees_out_and_say_why_the_legs_went() -> None:
    for composed in (
        _composed("leg workout", preferences=[KNEES]),
        _composed("legs please, my knees are bad"),
    ):
        assert not _worked(composed.workout) & {"Quadriceps", "Hamstrings"}
        assert composed.relaxed_words() == (
            "Nothing for your legs fits with just your bodyweight and without working your hamstrings and "
            "quadriceps, so I made an upper body workout instead."
        )


def test_a_session_that_fits_relaxes_nothing() -> None:
    composed = _composed("chest workout", available_equipment={"dumbbell", "bench"})
    assert composed.relaxed == ()
    assert composed.relaxed_words() is None
    assert _primaries(composed.workout) == {"Chest"}


def test_an_exercise_asked_for_by_name_that_no_rule_allows_is_left_out_and_said() -> None:
    bar = _composed("leg workout with pull-ups")
    assert bar.relaxed_words() == "I couldn't include pull-ups with just your bodyweight."
    disliked = _composed(
        "legs with lunges",
        preferences=[{"type": "exercise", "description": "I hate lunges", "guidance": ""}],
    )
    assert not any("lunge" in ex.exercise_name.lower() for ex in disliked.workout.exercises)
    assert disliked.relaxed_words() == "I couldn't include lunges since you asked me to leave them out."


def test_a_recovering_muscle_is_named_when_it_keeps_an_exercise_out() -> None:
    history = [
        {
            "exercise_name": "Barbell Bench Press - Medium Grip",
            "performed_at": NOW - timedelta(hours=20),
            "muscles": [{"muscle": "Chest", "share": 1.0}],
            "load_each": [80, 80],
            "load_unit": "kg",
            "reps": [5, 5],
        }
    ]
    composed = _composed(
        "leg day with bench press", history=history, available_equipment={"bench", "dumbbell"}
    )
    assert not any("bench press" in ex.exercise_name.lower() for ex in composed.workout.exercises)
    assert composed.relaxed_words() == (
        "I couldn't include bench press with the equipment you have here and while your chest recovers."
    )


def test_an_exercise_asked_for_that_the_time_cannot_hold_is_said() -> None:
    composed = _composed(
        "a 10 minute session with squats, bench press, rows, deadlifts and curls",
        available_equipment={"barbell", "bench", "dumbbell"},
    )
    assert [ex.exercise_name for ex in composed.workout.exercises] == [
        "Barbell Squat",
        "Dumbbell Bench Press",
    ]
    said = composed.relaxed_words() or ""
    assert said == "I couldn't fit rows, deadlifts and curls in the time you have."
    assert not any(c.isdigit() for c in said)  # the closing reply drops a note's sentences with digits


def test_the_hard_rules_never_give_way() -> None:
    with pytest.raises(ComposerError):
        _composed("chest workout", excluded_muscles=set(MUSCLES))
    shoulder = _composed("chest workout", preferences=[{"type": "injury", "description": "shoulder injury"}])
    assert "Shoulders" not in _worked(shoulder.workout)
    assert all(not ex.equipment for ex in shoulder.workout.exercises)
    assert (shoulder.relaxed_words() or "").startswith(
        "Nothing for your chest fits with just your bodyweight and without working your shoulders"
    )


@pytest.mark.parametrize(
    "text, kwargs",
    [
        ("leg workout", {"preferences": [KNEES]}),
        ("chest day, no push-ups, nothing overhead", {"available_equipment": {"dumbbell", "bench"}}),
        ("a beginner's back workout", {"experience_level": "beginner", "available_equipment": {"cable"}}),
    ],
)
def test_the_rules_said_are_the_rules_applied(text: str, kwargs: dict[str, Any]) -> None:
    """`allowed` (the hot path, stopping at the first broken rule) and `broken_rules` (what the
    sentences name) agree on every catalog exercise."""
    plan = resolve_plan(ComposerRequest(request_text=text, now=NOW, **kwargs))
    entries = load_catalog().entries
    assert any(broken_rules(e, plan) for e in entries) and any(allowed(e, plan) for e in entries)
    for entry in entries:
        assert allowed(entry, plan) == (not broken_rules(entry, plan)), entry.name
