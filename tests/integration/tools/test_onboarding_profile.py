"""Onboarding (docs/api.md#onboarding-and-profile) on the real stores: what the chat's update_profile and
record_injury save is what the profile route shows, and what the plan and workout builders read
(experience, session length, training days, goals in words, injuries); the `<user_data>` block names the
facts still missing and the next question. An injury has one tool, record_injury, whenever it is said."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest
from trainer.domain.catalog import load_catalog
from trainer.domain.composer import compose_workout, workout_seconds
from trainer.programs.inputs import load_plan_inputs
from trainer.settings import Settings
from trainer.sources.registry import build_user_data_xml
from trainer.sources.training_facts import load_training_facts
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer.tools.base import ToolError
from trainer.tools.injuries import RecordInjury, RecordInjuryResult
from trainer.tools.preferences import SetPreference
from trainer.tools.profile import UpdateProfile, UpdateProfileResult

from tests.integration.api.test_settings_routes import chat_tool
from tests.integration.services.test_account_deletion import bearer


@pytest.fixture
def alice(make_user: Callable[..., str]) -> str:
    return make_user()


@pytest.fixture
def headers(aws_settings: Settings, alice: str) -> dict[str, str]:
    return bearer(aws_settings, alice)


async def test_what_the_chat_saves_is_the_profile_the_route_shows(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    alice: str,
    db: Database,
    session_store: DynamoSessionStore,
) -> None:
    result = await chat_tool(
        UpdateProfile(),
        db,
        session_store,
        alice,
        age=34,
        experience="intermediate",
        body_weight=180,
        body_weight_unit="lbs",
        goals="lose some fat and  get stronger",
        available_days=["mon", "Wednesday", "FRI"],
        session_minutes=45,
    )
    assert isinstance(result, UpdateProfileResult)
    assert "body weight 180 lbs" in result.saved and "training days Monday, Wednesday, Friday" in result.saved
    assert result.next_question is not None and result.next_question.field == "injuries"
    injury = await chat_tool(RecordInjury(), db, session_store, alice, injury="bad left knee")
    assert isinstance(injury, RecordInjuryResult) and not injury.red_flags
    assert "Next question: What's your sex?" in await build_user_data_xml(db, alice)

    profile = (await client.get("/me/profile", headers=headers)).json()["profile"]
    assert (profile["age"], profile["weight_kg"], profile["experience"]) == (34, 81.6, "intermediate")
    assert profile["goal_statement"] == "lose some fat and get stronger"
    assert (profile["available_days"], profile["session_minutes"]) == (["Monday", "Wednesday", "Friday"], 45)
    assert [i["description"] for i in profile["injuries"]] == ["bad left knee"]
    assert profile["no_limitations"] is False


async def test_the_plan_and_workout_builders_read_the_profile(
    alice: str, db: Database, session_store: DynamoSessionStore
) -> None:
    await chat_tool(
        UpdateProfile(),
        db,
        session_store,
        alice,
        experience="beginner",
        goals="build muscle for ski season",
        available_days=["Tuesday", "Saturday"],
        session_minutes=30,
    )
    await chat_tool(RecordInjury(), db, session_store, alice, injury="sore right knee from an old ACL tear")
    now = datetime.now(UTC)
    async with db.connection() as conn:
        inputs = await load_plan_inputs(conn, alice, now)
    assert (inputs.experience, inputs.session_minutes) == ("beginner", 30)
    assert inputs.training_days == ["Tuesday", "Saturday"]
    assert inputs.goal_text == "build muscle for ski season"
    assert [p["type"] for p in inputs.preferences] == ["injury"]

    request = (await load_training_facts(db, alice, now)).composer_request("give me a workout")
    assert (request.experience_level, request.session_cap_minutes) == ("beginner", 30)
    workout = compose_workout(request)
    catalog = {entry.name: entry for entry in load_catalog().entries}
    assert workout_seconds(workout.exercises) <= 30 * 60
    assert {catalog[e.exercise_name].level for e in workout.exercises} == {"beginner"}
    loaded = {m.muscle for e in workout.exercises for m in e.muscles_utilized if m.share > 0}
    assert not loaded & {"Quadriceps", "Hamstrings"}, "the injured knee's muscles are left out"


async def test_an_injury_must_name_a_body_part_and_has_one_tool(
    alice: str, db: Database, session_store: DynamoSessionStore
) -> None:
    with pytest.raises(ToolError, match="names no body part"):
        await chat_tool(RecordInjury(), db, session_store, alice, injury="feeling a bit meh")
    with pytest.raises(Exception, match="record_injury"):
        await chat_tool(
            SetPreference(), db, session_store, alice, type="injury", description="knee", guidance="no squats"
        )
    with pytest.raises(Exception, match="injuries"):
        await chat_tool(UpdateProfile(), db, session_store, alice, injuries=["bad left knee"])


async def test_a_red_flag_in_the_users_words_comes_back_with_the_advice(
    alice: str, db: Database, session_store: DynamoSessionStore
) -> None:
    """record_injury reads the injury and the user's message (trainer.domain.safety): a sharp pain is
    recorded and answered with stop and see a professional, in the result the model reads."""
    result = await chat_tool(RecordInjury(), db, session_store, alice, injury="sharp pain in my left knee")
    assert isinstance(result, RecordInjuryResult) and result.red_flags == ["sharp_pain"]
    assert "doctor or physiotherapist" in result.advice
    assert "injuries" not in (await build_user_data_xml(db, alice)).split("Still unknown")[1].split(".")[0]


async def test_the_route_sets_an_age_goals_and_no_limitations(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    changed = await client.patch(
        "/me/profile",
        json={"age": 52, "goal_statement": "stay mobile for golf", "no_limitations": True},
        headers=headers,
    )
    assert changed.status_code == 200, changed.text
    profile = changed.json()["profile"]
    assert (profile["age"], profile["goal_statement"], profile["no_limitations"]) == (
        52,
        "stay mobile for golf",
        True,
    )
    reset = (await client.patch("/me/profile", json={"no_limitations": None}, headers=headers)).json()
    assert reset["profile"]["no_limitations"] is False
    assert (await client.patch("/me/profile", json={"age": 5}, headers=headers)).status_code == 422


async def test_the_user_data_block_names_what_is_missing_and_the_next_question(
    alice: str, db: Database, session_store: DynamoSessionStore
) -> None:
    first = await build_user_data_xml(db, alice)
    assert "<profile_to_complete>" in first
    assert "How would you describe your training experience?" in first and "Beginner" in first
    await chat_tool(
        UpdateProfile(),
        db,
        session_store,
        alice,
        age=40,
        sex="other",
        experience="advanced",
        body_weight=70.0,
        goals="compete in a powerlifting meet",
        available_days=["Monday"],
        session_minutes=90,
        no_injuries=True,
    )
    assert "<profile_to_complete>" not in await build_user_data_xml(db, alice)
