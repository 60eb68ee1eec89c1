"""Onboarding (docs/api.md#onboarding-and-profile): what is missing and the next question; the offline coach
reading profile facts from a sentence; the profile turned into workout constraints (properties: an injured
area is never loaded, a workout never runs past the session length, a beginner gets beginner exercises)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from trainer.domain.catalog import load_catalog
from trainer.domain.composer import ComposerError, compose_workout, workout_seconds
from trainer.domain.equipment import available_equipment
from trainer.domain.onboarding import QUESTIONS, missing_fields, next_question, profile_age
from trainer.domain.workout_checks import muscles_in_text
from trainer.offline.intents import classify
from trainer.offline.onboarding import goal_in_words, option_answer, parse_days, profile_facts
from trainer.programs.inputs import resolve_inputs
from trainer.programs.models import PlanRequest
from trainer.sources.training_facts import TrainingFacts
from trainer.sources.user_data import render_user_data
from trainer.tools.injuries import RecordInjuryArgs
from trainer.tools.profile import UpdateProfileArgs

NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
EVERYTHING = {
    "experience": "beginner", "goal_statement": "get fit", "session_minutes": 45, "no_limitations": True,
    "sex": "female", "stated_age": 30, "stated_age_on": date(2026, 1, 1), "weight_kg": 60,
}  # fmt: skip


# --- what is missing, and the next question ---------------------------------------------------------


def test_a_new_user_is_asked_for_experience_first_with_options() -> None:
    missing = missing_fields(None, [], 0)
    assert missing == [q.field for q in QUESTIONS]
    question = next_question(missing)
    assert question is not None and question.field == "experience"
    assert question.question.count("?") == 1 and len(question.options) == 3


def test_injuries_are_known_once_one_is_on_file_or_the_user_said_none() -> None:
    partial = {k: v for k, v in EVERYTHING.items() if k != "no_limitations"}
    assert missing_fields(partial, ["Monday"], 0) == ["injuries"]
    assert missing_fields(partial, ["Monday"], 1) == []
    assert missing_fields(EVERYTHING, ["Monday"], 0) == []
    assert next_question([]) is None
    assert missing_fields(EVERYTHING, [], 0) == ["available_days"]


def test_an_age_said_in_the_chat_grows_with_the_years() -> None:
    said = {"stated_age": 34, "stated_age_on": date(2026, 3, 1)}
    assert profile_age(said, date(2026, 11, 26)) == 34
    assert profile_age(said, date(2027, 3, 1)) == 35
    assert profile_age({**said, "birth_date": date(1990, 12, 1)}, date(2026, 11, 26)) == 35, "birth date wins"
    assert profile_age({}, date(2026, 11, 26)) is None


def test_the_user_data_block_asks_for_the_next_missing_fact() -> None:
    settings_row = {"weight_unit": "kg", "distance_unit": "km"}
    block = render_user_data(None, settings_row, [], date(2026, 11, 26), missing_fields(None, [], 0))
    assert "Still unknown: training experience, goals, training days" in block
    assert "Options: Beginner (under a year) | Intermediate (1-3 years)" in block
    assert "update_profile" in block and block.endswith("</user_data>")
    assert "<profile_to_complete>" not in render_user_data(None, settings_row, [], date(2026, 11, 26))


def test_the_tool_needs_a_fact_and_no_contradiction() -> None:
    with pytest.raises(ValidationError, match="at least one"):
        UpdateProfileArgs(body_weight_unit="kg")
    with pytest.raises(ValidationError, match="injuries"):
        UpdateProfileArgs.model_validate({"injuries": ["left knee"]})  # an injury is record_injury's
    with pytest.raises(ValidationError):
        UpdateProfileArgs(session_minutes=5)


# --- the offline coach reads facts from words ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm 34, male, intermediate, and I weigh 82 kg",
         {"age": 34, "sex": "male", "experience": "intermediate", "body_weight": 82.0,
          "body_weight_unit": "kg"}),
        ("34 year old woman, been lifting for about two years, 65 kg",
         {"age": 34, "sex": "female", "experience": "intermediate", "body_weight": 65.0,
          "body_weight_unit": "kg"}),
        ("Hi! I'm a 28 yo guy, total beginner, around 180 lbs",
         {"age": 28, "sex": "male", "experience": "beginner", "body_weight": 180.0,
          "body_weight_unit": "lbs"}),
        ("I've been training for 6 years", {"experience": "advanced"}),
        ("I'm 180 cm and weigh 75 kg", {"height_cm": 180.0, "body_weight": 75.0, "body_weight_unit": "kg"}),
        ("My goal is to lose some fat and get stronger", {"goals": "lose some fat and get stronger"}),
        ("I can train Monday, Wednesday and Friday, about 45 minutes a session",
         {"available_days": ["Monday", "Wednesday", "Friday"], "session_minutes": 45}),
        ("Weekdays work for me, usually 30 minutes at a time",
         {"available_days": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], "session_minutes": 30}),
        ("I have a bad left knee", {"injuries": ["Bad left knee"]}),
        ("I'm injury-free", {"no_injuries": True}),
        ("About 70 kg", {"body_weight": 70.0, "body_weight_unit": "kg"}),
        ("Knee", {"injuries": ["knee"]}),
        ("Intermediate (1-3 years)", {"experience": "intermediate"}),
        ("I'm a 52 year old guy, 95kg, been lifting on and off for years, want to build muscle",
         {"age": 52, "sex": "male", "experience": "intermediate", "body_weight": 95.0,
          "body_weight_unit": "kg", "goals": "build muscle"}),
        ("30 y/o male, 80kg, main goal is strength",
         {"age": 30, "sex": "male", "body_weight": 80.0, "body_weight_unit": "kg", "goals": "strength"}),
    ],
)  # fmt: skip
def test_profile_facts_from_a_sentence(text: str, expected: dict[str, Any]) -> None:
    assert profile_facts(text) == expected
    injuries = expected.pop("injuries", [])
    if expected:
        UpdateProfileArgs.model_validate(expected)
    for injury in injuries:
        RecordInjuryArgs(injury=injury)


@pytest.mark.parametrize(
    "text",
    [
        "Give me a 30 minute workout",
        "I want to run 5 km under 30 minutes by March",
        "I only have 30 minutes today",
        "Log 3x10 bench press at 60 kg",
        "I'm at the commercial gym",
        "Set my goals to 60% strength and 40% cardio",
        "from now on only Monday, Wednesday and Friday",
    ],
)
def test_other_requests_state_no_profile_facts(text: str) -> None:
    assert profile_facts(text) == {}
    assert "profile" not in classify(text)


def test_a_bare_number_or_no_is_read_against_the_question_asked() -> None:
    assert profile_facts("41", asked="age") == {"age": 41}
    assert profile_facts("41") == {}
    assert profile_facts("Nope", asked="injuries") == {"no_injuries": True}
    assert profile_facts("no", asked="sex") == {}


def test_each_option_of_each_question_is_an_answer_to_it() -> None:
    for question in QUESTIONS:
        for option in question.options:
            picked = option_answer(option)
            assert picked is not None and picked[0] == question.field, option
            assert profile_facts(option), option
            assert classify(option) == ["profile", "profile_next"], option


def test_days_ranges_and_weekends() -> None:
    assert parse_days("Monday to Friday") == ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    assert parse_days("fri-mon") == ["Monday", "Friday", "Saturday", "Sunday"]
    assert parse_days("weekends") == ["Saturday", "Sunday"]


def test_a_goal_in_words_is_not_a_category_goal_change() -> None:
    assert goal_in_words("My goal is to lose some fat and get stronger") == "lose some fat and get stronger"
    assert classify("My goal is to lose some fat and get stronger") == ["profile", "profile_next"]
    assert classify("Set my goals to 60% strength and 40% cardio") == ["goals"]
    assert goal_in_words("I want to do legs today") is None
    assert goal_in_words("I want to focus on strength 60%, cardio 40%") is None
    assert classify("I want to focus on glutes and hamstrings") == ["goals"]


def test_starting_onboarding_and_a_profile_sentence_with_a_workout() -> None:
    assert classify("Let's set up my profile") == ["onboarding"]
    assert classify("I'm a beginner, give me a workout") == ["profile", "workout", "profile_next"]


# --- the profile as workout constraints (TrainingFacts.composer_request) ----------------------------------

CATALOG = {entry.name: entry for entry in load_catalog().entries}
AREAS = ("knee", "lower back", "shoulder", "wrist", "elbow", "ankle", "hip", "neck")
EQUIPMENT = (
    [],
    ["Dumbbells", "Adjustable Bench", "Pull-up Bar"],
    ["Barbell", "Weight Plates", "Squat Rack", "Flat Bench", "Dumbbells", "Cable Machine", "Treadmill"],
)
REQUESTS = ("give me a workout", "full body workout please", "upper body workout", "something for my legs",
            "a cardio session", "core and arms today")  # fmt: skip


def facts(
    *, equipment: list[str], experience: str | None, minutes: int | None, injury: str | None
) -> TrainingFacts:
    preferences = (
        [{"type": "injury", "description": f"Bad {injury}",
          "guidance": f"Injury: leave out exercises that load the injured area ({injury})."}]
        if injury else []
    )  # fmt: skip
    return TrainingFacts(
        weight_unit="kg",
        distance_unit="km",
        equipment=available_equipment(equipment),
        category_goals={"Strength": 0.5, "Hypertrophy": 0.5},
        muscle_goals={},
        category_debt=[],
        muscle_debt=[],
        preferences=preferences,
        history=[],
        now=NOW,
        experience=experience,
        session_minutes=minutes,
    )


@settings(max_examples=300, deadline=None)
@given(
    area=st.sampled_from(AREAS),
    equipment=st.sampled_from(EQUIPMENT),
    request=st.sampled_from(REQUESTS),
    experience=st.sampled_from(["beginner", "intermediate", "advanced", None]),
    minutes=st.sampled_from([15, 20, 30, 40, 45, 60, 75, 90, None]),
)
def test_a_workout_never_loads_an_injured_area(
    area: str, equipment: list[str], request: str, experience: str | None, minutes: int | None
) -> None:
    try:
        workout = compose_workout(
            facts(equipment=equipment, experience=experience, minutes=minutes, injury=area).composer_request(
                request
            )
        )
    except ComposerError:
        return
    injured = muscles_in_text(area, include_joints=True)
    assert injured
    for exercise in workout.exercises:
        loaded = {m.muscle for m in exercise.muscles_utilized if m.share > 0}
        assert not loaded & injured, f"{exercise.exercise_name} loads {loaded & injured} ({area})"


@settings(max_examples=300, deadline=None)
@given(
    equipment=st.sampled_from(EQUIPMENT),
    request=st.sampled_from(REQUESTS),
    experience=st.sampled_from(["beginner", "intermediate", "advanced"]),
    minutes=st.integers(15, 120),
    injury=st.sampled_from([*AREAS, None]),
)
def test_a_workout_never_exceeds_the_session_length_and_keeps_the_level(
    equipment: list[str], request: str, experience: str, minutes: int, injury: str | None
) -> None:
    try:
        workout = compose_workout(
            facts(
                equipment=equipment, experience=experience, minutes=minutes, injury=injury
            ).composer_request(request)
        )
    except ComposerError:
        return
    assert workout_seconds(workout.exercises) <= minutes * 60
    if experience == "beginner":
        assert {CATALOG[e.exercise_name].level for e in workout.exercises} == {"beginner"}


def test_a_request_naming_its_time_is_not_capped_by_the_session_length() -> None:
    request = facts(
        equipment=EQUIPMENT[2], experience="intermediate", minutes=30, injury=None
    ).composer_request("give me a 60 minute workout")
    assert workout_seconds(compose_workout(request).exercises) > 30 * 60


def test_the_plan_input_includes_the_profile() -> None:
    profile = {"experience": "beginner", "session_minutes": 40, "goal_statement": "build muscle"}
    inputs = resolve_inputs(
        PlanRequest(),
        now=NOW,
        user_settings={"timezone": "UTC", "preferred_days": ["Tuesday", "Friday"]},
        location=None,
        category_goals={},
        muscle_goals={},
        active_preferences=[{"type": "injury", "description": "Bad knee", "guidance": "avoid knee"}],
        recent=[],
        sessions=[],
        profile=profile,
    )
    assert (inputs.experience, inputs.session_minutes, inputs.goal_text) == ("beginner", 40, "build muscle")
    assert inputs.training_days == ["Tuesday", "Friday"]
    assert inputs.preferences[0]["type"] == "injury"
    asked = resolve_inputs(
        PlanRequest(goal="marathon"), now=NOW, user_settings={}, location=None, category_goals={},
        muscle_goals={}, active_preferences=[], recent=[], sessions=[], profile=profile,
    )  # fmt: skip
    assert asked.goal_text == "marathon", "the request's goal comes first"
