"""The settings screens' routes (docs/api.md#settings-screens) on the real stores: profile, goals, preferences
and locations round-trip, stay the caller's (another user's preference or location is 404), refuse what the
schema or the services refuse (422, 409), and write what the chat's tools then read, and the other way round:
they call the same user-data services."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest
from trainer.programs.inputs import load_plan_inputs
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer.tools.base import Tool, ToolContext, ToolResult
from trainer.tools.data import FetchData
from trainer.tools.goals import SetGoals
from trainer.tools.location import SetCurrentLocation
from trainer.tools.preferences import DeletePreference, SetPreference

from tests.integration.services.test_account_deletion import bearer


@pytest.fixture
def alice(make_user: Callable[..., str]) -> str:
    return make_user()


@pytest.fixture
def headers(aws_settings: Settings, alice: str) -> dict[str, str]:
    return bearer(aws_settings, alice)


async def chat_tool(
    tool: Tool[Any, Any], db: Database, store: DynamoSessionStore, user: str, **args: Any
) -> ToolResult:
    """A chat tool called as a turn calls it, on the same stores."""
    session = await store.create_session(user)
    ctx = ToolContext(user_id=user, session_id=session.id, store=store, db=db, now=lambda: datetime.now(UTC))
    return await tool.execute(tool.Args.model_validate(args), ctx)


async def fetched(db: Database, store: DynamoSessionStore, user: str, source: str) -> str:
    result = await chat_tool(FetchData(), db, store, user, sources=[source])
    text: str = result.data[source]  # type: ignore[attr-defined]
    return text


def error(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


async def test_the_profile_round_trips_and_is_what_the_chat_and_the_plans_read(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    alice: str,
    db: Database,
    session_store: DynamoSessionStore,
) -> None:
    empty = (await client.get("/me/profile", headers=headers)).json()["profile"]
    assert empty["experience"] is None and empty["age"] is None and empty["injuries"] == []
    born = date.today().replace(year=date.today().year - 30) - timedelta(days=1)
    changed = await client.patch(
        "/me/profile",
        json={
            "sex": "female",
            "birth_date": born.isoformat(),
            "weight_kg": 61.25,
            "height_cm": 168,
            "experience": "advanced",
            "session_minutes": 45,
            "available_days": ["mon", "Thursday", "SAT"],
        },
        headers=headers,
    )
    assert changed.status_code == 200, changed.text
    profile = changed.json()["profile"]
    assert (profile["age"], profile["weight_kg"], profile["experience"]) == (30, 61.3, "advanced")
    assert profile["available_days"] == ["Monday", "Thursday", "Saturday"]
    assert (await client.get("/me/profile", headers=headers)).json()["profile"] == profile
    settings = (await client.get("/user-settings", headers=headers)).json()["settings"]
    assert settings["preferred_days"] == ["Monday", "Thursday", "Saturday"], "one set of days"

    text = await fetched(db, session_store, alice, "user_profile")
    assert "Age: 30" in text and "Weight: 61.3kg" in text
    assert "Experience: advanced" in text and "Usual session length: 45 min" in text
    async with db.connection() as conn:
        inputs = await load_plan_inputs(conn, alice, datetime.now(UTC))
    assert (inputs.experience, inputs.session_minutes) == ("advanced", 45)
    assert inputs.training_days == ["Monday", "Thursday", "Saturday"]

    cleared = await client.patch(
        "/me/profile", json={"experience": None, "birth_date": None}, headers=headers
    )
    assert (cleared.json()["profile"]["experience"], cleared.json()["profile"]["age"]) == (None, None)
    assert cleared.json()["profile"]["weight_kg"] == 61.3, "fields left out stay"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"weight_kg": 0}, (422, "invalid_request")),
        ({"weight_kg": 700}, (422, "invalid_request")),
        ({"weight_kg": 699.97}, (422, "invalid_profile")),
        ({"sex": "robot"}, (422, "invalid_request")),
        ({"experience": "expert"}, (422, "invalid_request")),
        ({"session_minutes": 10}, (422, "invalid_request")),
        ({"available_days": ["Someday"]}, (422, "invalid_request")),
        ({"nickname": "Al"}, (422, "invalid_request")),
        ({"birth_date": "1850-01-01"}, (422, "invalid_profile")),
        ({"birth_date": (date.today() + timedelta(days=2)).isoformat()}, (422, "invalid_profile")),
        ({"display_name": "   "}, (422, "invalid_request")),
    ],
)
async def test_a_profile_the_columns_cannot_hold_is_422(
    client: httpx.AsyncClient, headers: dict[str, str], body: dict[str, Any], expected: tuple[int, str]
) -> None:
    answer = await client.patch("/me/profile", json=body, headers=headers)
    assert error(answer) == expected, answer.text


async def test_goals_round_trip_and_the_chat_reads_and_writes_the_same_goals(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    alice: str,
    db: Database,
    session_store: DynamoSessionStore,
) -> None:
    put = await client.put(
        "/me/goals",
        json={
            "categories": [
                {"category": "Strength", "percentage": 3},
                {"category": "Mobility", "percentage": 1},
            ],
            "muscles": {"Chest": 1, "Back": 1},
        },
        headers=headers,
    )
    assert put.status_code == 200, put.text
    goals = put.json()["goals"]
    assert [(g["category"], g["percentage"]) for g in goals["categories"]] == [
        ("Strength", 75.0),
        ("Mobility", 25.0),
    ]
    assert {m["muscle"]: m["percentage"] for m in goals["muscles"]} == {"Chest": 50.0, "Back": 50.0}
    assert "Strength" in await fetched(db, session_store, alice, "category_goals")

    await chat_tool(SetGoals(), db, session_store, alice, goal_type="muscle", muscle_goals={"Glutes": 100})
    assert (await client.get("/me/goals", headers=headers)).json()["goals"]["muscles"] == [
        {"muscle": "Glutes", "percentage": 100.0}
    ]
    only_categories = await client.put(
        "/me/goals", json={"categories": [{"category": "Cardio", "percentage": 10}]}, headers=headers
    )
    assert only_categories.json()["goals"]["muscles"] == [{"muscle": "Glutes", "percentage": 100.0}]

    for body, expected in (
        (
            {"categories": [{"category": "A", "percentage": 1}, {"category": "a", "percentage": 1}]},
            "invalid_goals",
        ),
        ({"categories": [{"category": "A", "percentage": 0}]}, "invalid_goals"),
        ({"muscles": {"Wings": 10}}, "invalid_request"),
        ({"muscles": {"Chest": 101}}, "invalid_request"),
        ({"categories": []}, "invalid_request"),
    ):
        assert error(await client.put("/me/goals", json=body, headers=headers)) == (422, expected), body
    assert (await client.get("/me/goals", headers=headers)).json()["goals"]["categories"][0][
        "category"
    ] == "Cardio"


async def test_preferences_are_listed_added_and_deleted_by_route_and_by_chat_alike(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    aws_settings: Settings,
    alice: str,
    make_user: Callable[..., str],
    db: Database,
    session_store: DynamoSessionStore,
) -> None:
    created = await client.post(
        "/me/preferences",
        json={"type": "injury", "description": "Bad left knee", "guidance": "No jumping or deep knee bends"},
        headers=headers,
    )
    assert created.status_code == 201, created.text
    knee = created.json()["preference"]
    assert (await client.get("/me/profile", headers=headers)).json()["profile"]["injuries"] == [knee]
    assert "Bad left knee" in await fetched(db, session_store, alice, "active_preferences")

    said = await chat_tool(
        SetPreference(), db, session_store, alice, type="time", description="45 minutes max", guidance="Short"
    )
    listed = (await client.get("/me/preferences", headers=headers)).json()["preferences"]
    assert [p["description"] for p in listed] == ["Bad left knee", "45 minutes max"]
    assert listed[1]["id"] == said.preference.id  # type: ignore[attr-defined]

    await chat_tool(DeletePreference(), db, session_store, alice, preference_id=knee["id"])
    assert [
        p["id"] for p in (await client.get("/me/preferences", headers=headers)).json()["preferences"]
    ] == [
        said.preference.id  # type: ignore[attr-defined]
    ]

    bob = bearer(aws_settings, make_user())
    bobs = (
        await client.post("/me/preferences", json={"type": "other", "description": "x"}, headers=bob)
    ).json()
    assert error(await client.delete(f"/me/preferences/{bobs['preference']['id']}", headers=headers)) == (
        404,
        "preference_not_found",
    )
    assert error(await client.delete("/me/preferences/not-a-uuid", headers=headers)) == (
        404,
        "preference_not_found",
    )
    assert (await client.delete(f"/me/preferences/{said.preference.id}", headers=headers)).status_code == 204  # type: ignore[attr-defined]
    assert (await client.get("/me/preferences", headers=bob)).json()["preferences"][0]["description"] == "x"

    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    for body, expected in (
        ({"type": "time", "description": "x", "expires_at": past}, "invalid_preference"),
        ({"type": "mood", "description": "x"}, "invalid_request"),
        ({"type": "time", "description": "  "}, "invalid_request"),
        ({"type": "time", "description": "x", "expires_at": "2030-01-01T00:00:00"}, "invalid_request"),
    ):
        assert error(await client.post("/me/preferences", json=body, headers=headers)) == (422, expected), (
            body
        )


async def test_locations_are_created_edited_made_current_and_deleted_as_the_chat_sees_them(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    aws_settings: Settings,
    alice: str,
    make_user: Callable[..., str],
    db: Database,
    session_store: DynamoSessionStore,
) -> None:
    home = await client.post(
        "/me/locations",
        json={
            "name": "Home",
            "equipment": [{"name": "Dumbbells", "weights": [5, 10, 12.5], "unit": "kg"}, {"name": "Bench"}],
            "current": True,
        },
        headers=headers,
    )
    assert home.status_code == 201, home.text
    home_id = home.json()["location"]["id"]
    assert home.json()["location"]["equipment"][0] == {
        "name": "Dumbbells", "type": None, "weights": [5, 10, 12.5], "unit": "kg",
    }  # fmt: skip
    hotel = (await client.post("/me/locations", json={"name": "Hotel gym"}, headers=headers)).json()[
        "location"
    ]
    assert error(await client.post("/me/locations", json={"name": "hotel GYM"}, headers=headers)) == (
        409,
        "location_exists",
    )

    edited = await client.patch(
        f"/me/locations/{hotel['id']}",
        json={"description": "Tiny", "equipment": [{"name": "Treadmill", "type": "cardio"}]},
        headers=headers,
    )
    assert edited.status_code == 200, edited.text
    assert (edited.json()["location"]["name"], edited.json()["location"]["description"]) == (
        "Hotel gym",
        "Tiny",
    )
    switched = await chat_tool(SetCurrentLocation(), db, session_store, alice, location_name="hotel gym")
    assert switched.location.equipment_summary == "Treadmill"  # type: ignore[attr-defined]
    listed = (await client.get("/me/locations", headers=headers)).json()["locations"]
    assert [(loc["name"], loc["is_current"]) for loc in listed] == [("Hotel gym", True), ("Home", False)]

    current = await client.post(f"/me/locations/{home_id}/current", headers=headers)
    assert current.json()["location"]["is_current"] is True
    assert "Location: Home" in await fetched(db, session_store, alice, "current_location")
    renamed = await client.patch(f"/me/locations/{home_id}", json={"name": "Garage"}, headers=headers)
    assert renamed.json()["location"]["name"] == "Garage"
    assert error(
        await client.patch(f"/me/locations/{home_id}", json={"name": "Hotel Gym"}, headers=headers)
    ) == (
        409,
        "location_exists",
    )

    bob = bearer(aws_settings, make_user())
    bobs = (await client.post("/me/locations", json={"name": "Bob's"}, headers=bob)).json()["location"]["id"]
    for method, path, body in (
        ("PATCH", f"/me/locations/{bobs}", {"name": "Mine now"}),
        ("DELETE", f"/me/locations/{bobs}", None),
        ("POST", f"/me/locations/{bobs}/current", None),
        ("PATCH", "/me/locations/not-a-uuid", {"name": "x"}),
        ("DELETE", f"/me/locations/{home_id[:-1]}{'1' if home_id.endswith('0') else '0'}", None),
    ):
        answer = await client.request(method, path, json=body, headers=headers)
        assert error(answer) == (404, "location_not_found"), (method, path)
    assert [loc["name"] for loc in (await client.get("/me/locations", headers=bob)).json()["locations"]] == [
        "Bob's"
    ]

    for body in (
        {"name": ""},
        {"name": "x" * 101},
        {"equipment": [{"name": "Bar", "weights": [-1]}]},
        {"size": 3},
    ):
        assert error(await client.patch(f"/me/locations/{home_id}", json=body, headers=headers)) == (
            422,
            "invalid_request",
        ), body
    assert (await client.delete(f"/me/locations/{home_id}", headers=headers)).status_code == 204
    assert [
        loc["name"] for loc in (await client.get("/me/locations", headers=headers)).json()["locations"]
    ] == ["Hotel gym"]
