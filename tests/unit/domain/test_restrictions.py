"""Movement restrictions stated in words become typed restrictions, and the exercise choice leaves out
every exercise they rule out, whatever type the preference was saved with."""

from __future__ import annotations

import re

import pytest
from trainer.domain.catalog import load_catalog
from trainer.domain.composer.session_plan import name_excluded
from trainer.domain.movements import movement_pattern
from trainer.domain.restrictions import restrictions_in
from trainer.domain.workout_checks import preference_constraints


@pytest.mark.parametrize(
    ("said", "restrictions"),
    [
        ("no jumping please, I have bad knees", ["jumping"]),
        ("please, nothing with jumps, my knees are shot", ["jumping"]),
        ("low impact only", ["jumping"]),
        ("cut all the jumpy stuff, my knees can't handle it", ["jumping"]),
        ("take out the overhead stuff", ["overhead"]),
        ("drop the weight on squats", []),
        ("nothing overhead, my shoulder clicks", ["overhead"]),
        ("I can't do running right now", ["running"]),
        ("jump squats are fine", []),
        ("I love overhead presses", []),
    ],
)
def test_the_restrictions_a_sentence_states(said: str, restrictions: list[str]) -> None:
    assert restrictions_in(said) == restrictions


def test_a_restriction_saved_as_a_plain_note_still_rules_out_its_movements() -> None:
    constraints = preference_constraints([{"type": "other", "description": "nothing with jumps please"}])
    excluded = constraints.excluded_exercises
    assert any(name_excluded("Knee Tuck Jump", phrase) for phrase in excluded)
    assert any(name_excluded("Plyo Push-up", phrase) for phrase in excluded)
    assert not any(name_excluded("Bodyweight Squat", phrase) for phrase in excluded)


def test_no_running_leaves_crunches_alone() -> None:
    excluded = preference_constraints([{"type": "other", "description": "no running"}]).excluded_exercises
    assert any(name_excluded("Running, Treadmill", phrase) for phrase in excluded)
    assert not any(name_excluded("Crunch", phrase) for phrase in excluded)


def test_nothing_overhead_rules_out_every_shoulder_press_of_the_catalog() -> None:
    """The catalog names most shoulder presses without 'overhead' (Arnold Dumbbell Press, Seated Dumbbell
    Press, Kettlebell Seesaw Press): each of them is out, and no chest press or push-up is."""
    excluded = preference_constraints(
        [{"type": "injury", "description": "no overhead work"}]
    ).excluded_exercises
    presses = [
        entry.name
        for entry in load_catalog().entries
        if movement_pattern(entry.name) == "vertical push"
        or (entry.primary_muscle == "Shoulders" and re.search(r"\bpress", entry.name, re.I))
    ]
    assert len(presses) > 30
    kept = [name for name in presses if not any(name_excluded(name, phrase) for phrase in excluded)]
    assert kept == []
    for name in (
        "Dumbbell Bench Press",
        "Incline Dumbbell Press",
        "Barbell Bench Press - Medium Grip",
        "Pushups",
    ):
        assert not any(name_excluded(name, phrase) for phrase in excluded), name
