"""Exercise knowledge and request reading (docs/architecture.md#training-logic-in-code): form cues from the
catalog's steps, pain-free alternatives, the beginner words, a swap's level, a lasting dislike."""

from __future__ import annotations

import pytest
from trainer.domain.catalog import instructions, load_catalog
from trainer.domain.composer.replacement import swap_level
from trainer.domain.composer.request import says_beginner
from trainer.domain.equipment import available_equipment
from trainer.domain.exercise_search import PAINFUL_PATTERNS, find_exercise, form_cues, pain_free_alternatives
from trainer.domain.movements import movement_pattern
from trainer.offline.requests import painful_movement, says_never

HOME = available_equipment(["dumbbells", "bench", "pull-up bar", "bands"])


def test_form_cues_are_the_steps_that_say_what_to_keep_or_avoid() -> None:
    goblet = find_exercise("goblet squat")
    assert goblet is not None
    assert form_cues(instructions(goblet)) == ["Keep your chest and head up and your back straight."]
    assert form_cues(["Tip: do not lock your knees. Stand up."]) == ["do not lock your knees."]
    assert form_cues(["Stand up.", "Sit down."]) == []


@pytest.mark.parametrize(
    ("movement", "joint"), [("squat", "knee"), ("lunges", "knee"), ("overhead press", "shoulder")]
)
def test_pain_free_alternatives_avoid_the_joints_painful_patterns(movement: str, joint: str) -> None:
    reference = find_exercise(movement)
    assert reference is not None
    found = pain_free_alternatives(reference, joint, available=HOME)
    assert found
    for alternative in found:
        assert movement_pattern(alternative.entry.name) not in PAINFUL_PATTERNS[joint], alternative.entry.name
        assert "press" not in alternative.entry.name.lower() or joint != "shoulder"
        assert not set(alternative.entry.equipment) - HOME


def test_pain_free_alternatives_for_the_muscle_asked_about() -> None:
    """'My lower back aches when I deadlift, what else works my hamstrings?': hamstring work that does
    not load the lower back (the catalog's deadlift is a lower-back exercise: its own region is the
    core), and no Olympic-lift derivative around a painful joint."""
    reference = find_exercise("deadlift")
    assert reference is not None and reference.primary_muscle == "Lower Back"
    found = pain_free_alternatives(reference, "lower back", available=HOME, muscle="Hamstrings")
    assert found
    for alternative in found:
        entry = alternative.entry
        assert entry.share_of("Hamstrings") > 0 and entry.share_of("Lower Back") == 0, entry.name
        assert "clean" not in entry.name.lower()


def test_a_painful_movement_question_names_movement_and_joint() -> None:
    assert painful_movement("My knee hurts when I squat, what can I do instead?") == ("squat", "knee")
    assert painful_movement("Overhead press hurts my shoulder, what else can I do?") == (
        "overhead press",
        "shoulder",
    )
    assert painful_movement("My knee hurts") is None


def test_beginner_words() -> None:
    assert says_beginner("I'm new to working out, give me a workout")
    assert says_beginner("leg day", [{"description": "Beginner", "guidance": ""}])
    assert not says_beginner("give me a hard leg workout")


def test_a_swap_keeps_the_old_level_unless_asked() -> None:
    catalog = load_catalog()
    front_squat = catalog.get("Front Barbell Squat")  # expert
    pushups = catalog.get("Pushups")  # beginner
    assert swap_level(front_squat, "intermediate", "swap it") == "intermediate"
    assert swap_level(front_squat, "expert", "swap it") == "expert"
    assert swap_level(front_squat, "expert", "something easier") == "intermediate"
    assert swap_level(pushups, "expert", "swap for something harder") == "intermediate"


def test_only_a_lasting_dislike_is_saved() -> None:
    assert says_never("Swap the incline press and never give me that again")
    assert says_never("swap it, I don't want it anymore")
    assert not says_never("Swap the incline press, I don't like it")
