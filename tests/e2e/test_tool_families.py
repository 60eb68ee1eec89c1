"""The agent drives each tool family end to end over HTTP, on the offline model and on the real SDKs
against the loopback fake server: workout editing and timers, goals, preferences, data, logging and
undo, statistics, calendar and plans, milestones, and locations. Each test checks the tool ran and
that its effect is visible through the API."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from trainer.api.auth import mint_dev_token

from tests.e2e.conftest import E2E_SECRET, Stack

pytestmark = pytest.mark.e2e


def newcomer(stack: Stack) -> httpx.Client:
    """A client acting as a brand-new user, so tests never see each other's data."""
    token = mint_dev_token(E2E_SECRET, str(uuid.uuid4()), ttl_seconds=3600)
    return httpx.Client(base_url=stack.base_url, headers=stack.headers(token), timeout=120)


def say(http: httpx.Client, message: str, session_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message}
    if session_id:
        body["sessionId"] = session_id
    reply = http.post("/agent/chat", json=body)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def ran(reply: dict[str, Any], *tools: str) -> dict[str, Any]:
    """The result of the first of `tools` the turn called, which must have succeeded."""
    calls = [a for a in reply["actions"] if a["tool"] in tools]
    assert calls, f"none of {tools} in {[a['tool'] for a in reply['actions']]}"
    result = calls[0]["result"]
    assert result.get("success") is True, result
    return dict(result)


def history(http: httpx.Client) -> list[dict[str, Any]]:
    response = http.get("/exercises/history", params={"days_back": 30})
    assert response.status_code == 200, response.text
    return list(response.json()["exercises"])


def test_workout_edits_timers_and_logging(stack: Stack) -> None:
    with newcomer(stack) as http:
        generated = say(http, "Give me a quick chest workout")
        session = generated["sessionId"]
        created = ran(generated, "generate_workout")
        assert created["artifact_id"].startswith("art_")

        swapped = ran(say(http, "Swap the first exercise", session), "swap_exercise")
        assert swapped["new_exercise"]["exercise_name"] != swapped["old_exercise"]["exercise_name"]
        ran(say(http, "Make exercise 1 harder with more reps", session), "adjust_exercise")
        before = len(ran(say(http, "Remove exercise 2", session), "remove_exercise")["remaining"])

        timers = ran(say(http, "Give me timers for this workout", session), "generate_workout_timers")
        assert 1 <= len(timers["timers"]) <= before
        for timer in timers["timers"]:
            assert timer["total_duration_sec"] == sum(p["duration_sec"] for p in timer["phases"])

        logged = ran(say(http, "I finished the workout", session), "log_workout")
        assert logged["logged_count"] >= 1
        assert len(history(http)) == logged["logged_count"]


def test_goals_preferences_and_fetching_data(stack: Stack) -> None:
    with newcomer(stack) as http:
        ran(say(http, "Set my goals to 60% strength and 40% cardio"), "set_goals")
        targets = {
            row["name"]: row["target"] for row in http.get("/exercises/distribution").json()["category"]
        }
        assert targets == pytest.approx({"Strength": 0.6, "Cardio": 0.4})

        preference = ran(say(http, "I hate burpees"), "set_preference")
        assert "burpee" in str(preference).lower()

        shown = say(http, "Show me my goals")
        ran(shown, "fetch_data")
        assert any("Strength" in message for message in shown["response"]["messages"])


def test_logging_undo_and_statistics(stack: Stack) -> None:
    with newcomer(stack) as http:
        logged = say(http, "Log 3x10 squats at 60kg")
        ran(logged, "log_completed_exercise")
        assert [row["sets"] for row in history(http)] == [3]

        ran(say(http, "Undo that last log", logged["sessionId"]), "undo_logged_exercise")
        assert history(http) == []

        say(http, "Log 3x10 squats at 60kg")
        say(http, "Log 5x5 bench press at 80kg")
        stats = ran(
            say(http, "Show me my stats for this month"),
            "get_workout_statistics",
            "generate_stats_summary",
        )
        assert "2" in str(stats)


def test_calendar_plans_and_milestones(stack: Stack) -> None:
    with newcomer(stack) as http:
        ran(say(http, "Schedule a leg workout tomorrow for 45 minutes"), "schedule_workout")
        program = ran(
            say(http, "Make me a 4-week strength plan on Monday and Thursday"), "request_training_plan"
        )
        assert program["plan"]["training_days"] == ["Monday", "Thursday"]
        assert [p["id"] for p in http.get("/plans").json()["plans"]] == [program["plan"]["plan_id"]]
        labels = say(http, "Put a 4-week strength plan on my calendar on Monday and Thursday")
        assert ran(labels, "create_workout_plan")["plan"]["preferred_days"] == ["Monday", "Thursday"]
        ran(say(http, "I want to run a 5k by March"), "manage_milestone")

        shown = say(http, "What is on my schedule?")
        listed = " ".join(shown["response"]["messages"]).lower()
        assert "leg" in listed and "tomorrow" in listed


def test_switching_location(stack: Stack) -> None:
    with stack.client() as http:
        moved = ran(say(http, "I am at the commercial gym today"), "set_current_location")
        assert moved["location"]["name"] == "Commercial Gym"
        back = ran(say(http, "I am at the home gym today"), "set_current_location")
        assert back["location"]["name"] == "Home Gym"
