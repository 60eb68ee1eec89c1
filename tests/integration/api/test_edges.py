"""Every field bounded at the edge, over HTTP on the real stores (DynamoDB on moto, embedded Postgres,
the offline model): headers and query integers in ASCII digits, no NUL or invisible character stored
or sent to the model, dates Python can read back, settings of their JSON types, a cap on
preferences; each refusal a JSON 4xx that stores nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from trainer.services.user_data import UserDataService
from trainer.settings import Settings
from trainer.sources.registry import fetch_sources
from trainer.sources.user_data import build_user_data_xml
from trainer.store.db import Database
from trainer.store.repositories import preferences as preference_rows

INVISIBLE = "\u202e\x1b\x07\u200b\ufeff\x00\u2066"


def error_code(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    return str(response.json()["error"]["code"])


@pytest.mark.parametrize("value", ["²", "¹²³", "9" * 5000, "-1", " 5", "1_000", "١٢"])
async def test_a_last_event_id_that_is_not_ascii_digits_is_422_and_runs_nothing(
    client: httpx.AsyncClient, auth: dict[str, str], value: str
) -> None:
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError:
        raw = value.encode()
    headers: dict[str, Any] = {**auth, "Last-Event-ID": raw}
    response = await client.post("/agent/stream", json={"message": "hi"}, headers=headers)
    assert error_code(response, 422) == "invalid_request"
    assert (await client.get("/agent/sessions", headers=auth)).json()["sessions"] == []


async def test_a_resumed_stream_with_a_frame_id_in_ascii_digits_still_resumes(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    first = await client.post("/agent/stream", json={"message": "hi"}, headers=auth)
    assert first.status_code == 200
    frame_ids = [line[4:] for line in first.text.splitlines() if line.startswith("id: ")]
    again = await client.post(
        "/agent/stream", json={"message": "hi"}, headers={**auth, "Last-Event-ID": frame_ids[0]}
    )
    assert again.status_code == 200
    assert [line[4:] for line in again.text.splitlines() if line.startswith("id: ")] == frame_ids[1:]
    assert len((await client.get("/agent/sessions", headers=auth)).json()["sessions"]) == 1


async def test_a_nul_in_readiness_notes_is_dropped_and_notes_of_nothing_visible_are_refused(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    stored = await client.post("/readiness", json={"energy": 4, "notes": "sore\x00 legs\u200b"}, headers=auth)
    assert stored.status_code == 201, stored.text
    assert [entry["notes"] for entry in stored.json()["entries"]] == ["sore legs"]

    refused = await client.post("/readiness", json={"energy": 2, "notes": "\x00\u200b"}, headers=auth)
    assert error_code(refused, 422) == "invalid_request"
    assert len((await client.get("/readiness", headers=auth)).json()["entries"]) == 1


async def test_dates_python_could_not_read_back_are_a_422_that_stores_nothing(
    client: httpx.AsyncClient, auth: dict[str, str], frozen_now: datetime
) -> None:
    zone = await client.put("/user-settings", json={"timezone": "Etc/GMT+12"}, headers=auth)
    assert zone.status_code == 200
    in_six_years = (frozen_now + timedelta(days=6 * 366)).date().isoformat()
    far = [
        {"type": "other", "description": "x", "expires_at": "9999-12-31T23:00:00-12:00"},
        {"type": "other", "description": "x", "expires_at": f"{in_six_years}T10:00:00Z"},
    ]
    codes = [error_code(await client.post("/me/preferences", json=body, headers=auth), 422) for body in far]
    assert codes == ["invalid_request", "invalid_preference"]
    assert (await client.get("/me/preferences", headers=auth)).json()["preferences"] == []

    for body in (
        {"date": "9999-12-31", "workout_type": "Run"},
        {"date": "9999-12-31", "time": "23:00", "workout_type": "Run"},
        {"date": in_six_years, "workout_type": "Run"},
    ):
        refused = await client.post("/workouts", json=body, headers=auth)
        assert error_code(refused, 422) == "invalid_workout_change"
    tomorrow = (frozen_now + timedelta(days=2)).date().isoformat()
    added = await client.post("/workouts", json={"date": tomorrow, "workout_type": "Run"}, headers=auth)
    assert added.status_code == 201, added.text
    workout_id = added.json()["workout"]["id"]
    for day in ("9999-12-31", in_six_years):
        moved = await client.patch(f"/workouts/{workout_id}", json={"date": day}, headers=auth)
        assert error_code(moved, 422) == "invalid_workout_change"
    shown = (await client.get(f"/workouts/{workout_id}", headers=auth)).json()["workout"]
    assert shown["date"] == tomorrow
    listed = await client.get("/workouts", params={"from": "9999-12-25"}, headers=auth)
    assert listed.status_code == 200 and listed.json()["workouts"] == []


@pytest.mark.parametrize(
    "change",
    [
        {"push_enabled": 1},
        {"push_enabled": "true"},
        {"morning_hour": "8"},
        {"morning_hour": 7.0},
        {"morning_hour": True},
        {"sms_enabled": 0},
    ],
)
async def test_notification_settings_of_another_json_type_are_refused_and_change_nothing(
    client: httpx.AsyncClient, auth: dict[str, str], change: dict[str, Any]
) -> None:
    body = {"push_enabled": False, "morning_hour": 9, "quiet_hours": None, "sms_enabled": False}
    before = (await client.put("/notification-settings", json=body, headers=auth)).json()
    refused = await client.put("/notification-settings", json={**body, **change}, headers=auth)
    assert error_code(refused, 422) == "invalid_request"
    assert (await client.get("/notification-settings", headers=auth)).json() == before


async def test_invisible_characters_reach_neither_the_store_nor_the_prompt(
    client: httpx.AsyncClient, auth: dict[str, str], user: str, db: Database
) -> None:
    profile = await client.patch(
        "/me/profile", json={"display_name": f"{INVISIBLE}Sam{INVISIBLE}"}, headers=auth
    )
    location = await client.post(
        "/me/locations",
        json={
            "name": f"Home{INVISIBLE}",
            "current": True,
            "equipment": [{"name": f"Dumb\u200bbells{INVISIBLE}", "weights": [5, 10], "unit": "kg"}],
        },
        headers=auth,
    )
    preference = await client.post(
        "/me/preferences",
        json={"type": "injury", "description": f"bad\u202e knee{INVISIBLE}", "guidance": "no\x1b jumps"},
        headers=auth,
    )
    assert (profile.status_code, location.status_code, preference.status_code) == (200, 201, 201)
    assert profile.json()["profile"]["display_name"] == "Sam"
    assert location.json()["location"]["name"] == "Home"
    assert location.json()["location"]["equipment"][0]["name"] == "Dumbbells"
    assert (preference.json()["preference"]["description"], preference.json()["preference"]["guidance"]) == (
        "bad knee",
        "no jumps",
    )
    # A row stored before the edge cleaned it still reaches the model clean.
    async with db.transaction() as conn:
        await preference_rows.create_preference(conn, user, type="exercise", description="old\u202e row\x07")

    prompt = await build_user_data_xml(db, user)
    sources = await fetch_sources(db, user, [("active_preferences", {}), ("current_location", {})])
    for text in (prompt, *(source.formatted for source in sources)):
        assert not set(INVISIBLE) & set(text), text
    assert "Name: Sam" in prompt and "Location: Home" in prompt
    assert "old row" in sources[0].formatted


async def test_a_51st_active_preference_is_refused_until_one_is_removed_or_expires(
    client: httpx.AsyncClient, auth: dict[str, str], user: str, db: Database
) -> None:
    now = datetime.now(UTC)
    data = UserDataService(db).for_user(user)
    await data.preferences.create(
        type="time", description="short sessions this week", expires_at=now + timedelta(hours=1)
    )
    for n in range(49):
        await data.preferences.create(type="exercise", description=f"preference {n}")

    refused = await client.post(
        "/me/preferences", json={"type": "other", "description": "one more"}, headers=auth
    )
    assert error_code(refused, 422) == "invalid_preference"
    assert "50 active preferences" in refused.json()["error"]["message"]
    assert len((await client.get("/me/preferences", headers=auth)).json()["preferences"]) == 50

    later = now + timedelta(hours=2)
    created = await data.preferences.create(type="other", description="after the expiry", now=later)
    assert created.description == "after the expiry"
    # Now (before the expiry) 51 are active: with two removed there is room for one.
    listed = (await client.get("/me/preferences", headers=auth)).json()["preferences"]
    assert len(listed) == 51
    for removed in listed[:2]:
        assert (await client.delete(f"/me/preferences/{removed['id']}", headers=auth)).status_code == 204
    again = await client.post(
        "/me/preferences", json={"type": "other", "description": "one more"}, headers=auth
    )
    assert again.status_code == 201, again.text


async def test_a_user_at_the_preference_cap_with_the_largest_location_keeps_the_request_bounded(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    user: str,
    db: Database,
    make_user: Callable[..., str],
    aws_settings: Settings,
) -> None:
    """The main request's estimated size for a user with every preference and location field at its
    limit is within the budget of a user with none; each knowledge event says how it fitted."""
    from trainer.api.auth import mint_dev_token

    data = UserDataService(db).for_user(user)
    for n in range(50):
        kind = "injury" if n % 10 == 0 else "exercise"
        await data.preferences.create(
            type=kind, description=f"preference {n} " + "d" * 980, guidance="g" * 2000
        )
    weights = [round(1 + 0.25 * k, 2) for k in range(200)]
    location = {
        "name": "G" * 100,
        "description": "D" * 1000,
        "current": True,
        "equipment": [
            {"name": f"Item {n} " + "n" * 90, "type": "t" * 50, "weights": weights} for n in range(200)
        ],
    }
    assert (await client.post("/me/locations", json=location, headers=auth)).status_code == 201
    empty = {
        "Authorization": f"Bearer {mint_dev_token(aws_settings.jwt_secret.get_secret_value(), make_user())}"
    }

    async def turn(headers: dict[str, str]) -> tuple[int, list[dict[str, Any]]]:
        answer = await client.post(
            "/agent/chat", json={"message": "Give me a full body workout for 45 minutes"}, headers=headers
        )
        assert answer.status_code == 200, answer.text
        session_id = answer.json()["sessionId"]
        events = (await client.get(f"/agent/sessions/{session_id}/events", headers=headers)).json()["events"]
        requests = [e["data"]["estimated_tokens"] for e in events if e["event_type"] == "llm_request"]
        return max(requests), [e["data"] for e in events if e["event_type"] == "knowledge"]

    loaded, knowledge = await turn(auth)
    baseline, _ = await turn(empty)
    # The turn's sources (6,000 tokens) and the user data block's locations (1,450), with some margin.
    assert loaded - baseline <= 8_000, (loaded, baseline)

    from trainer.sources.budget import TURN_TOKENS

    assert {k["source"] for k in knowledge} >= {"active_preferences"}
    assert all(k["budget"]["tokens"] <= k["budget"]["limit"] for k in knowledge)
    assert sum(k["budget"]["tokens"] for k in knowledge) <= TURN_TOKENS
    preferences = next(k for k in knowledge if k["source"] == "active_preferences")
    assert preferences["budget"]["left_out"] > 0 and "more entries left out" in preferences["data"]
