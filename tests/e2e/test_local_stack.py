"""Every route of the local stack over HTTP, as the mobile app would call it."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import httpx
import pytest
from trainer.api.auth import mint_dev_token
from trainer.settings import LOCAL_JWT_SECRET

from tests.e2e.conftest import Stack, frame_ids, sse_events, stack_environment
from tests.model_requests import ALLOW_VARIABLE

pytestmark = pytest.mark.e2e

STRANGER = "99999999-9999-4999-8999-999999999999"


def error_code(response: httpx.Response) -> str:
    body = response.json()
    assert set(body) == {"error"} and body["error"]["message"], body
    return str(body["error"]["code"])


def test_the_stacks_run_with_model_requests_as_off_as_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stack process is told what this one was (tests/model_requests.py): off, unless allowed."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-exported")
    for told, passed_on in ((None, "0"), ("0", "0"), ("1", "1")):
        if told is None:
            monkeypatch.delenv(ALLOW_VARIABLE, raising=False)
        else:
            monkeypatch.setenv(ALLOW_VARIABLE, told)
        environment = stack_environment(8000, {})
        assert environment[ALLOW_VARIABLE] == passed_on
        assert "ANTHROPIC_API_KEY" not in environment


def test_health_reports_version_model_mode_and_stores(local_stack: Stack) -> None:
    body = httpx.get(f"{local_stack.base_url}/health").json()
    assert body["status"] == "ok"
    assert body["model"]["mode"] == "offline"
    assert body["stores"] == {"sessions": True, "database": True}
    assert body["version"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/agent/sessions"),
        ("POST", "/agent/sessions"),
        ("POST", "/agent/chat"),
        ("POST", "/agent/stream"),
        ("GET", "/user-settings"),
        ("GET", "/exercises/history"),
        ("GET", "/exercises/distribution"),
    ],
)
def test_every_user_route_needs_a_token(local_stack: Stack, method: str, path: str) -> None:
    response = httpx.request(method, f"{local_stack.base_url}{path}", json={"message": "hi"})
    assert response.status_code == 401
    assert error_code(response) == "missing_token"


def test_bad_tokens_are_401(local_stack: Stack) -> None:
    expired = mint_dev_token(LOCAL_JWT_SECRET, STRANGER, ttl_seconds=1, now=time.time() - 3600)
    forged = mint_dev_token("not-the-secret-but-long-enough-0123456789", STRANGER)
    for token, code in [
        (expired, "token_expired"),
        (forged, "invalid_signature"),
        ("garbage", "invalid_token"),
    ]:
        response = httpx.get(f"{local_stack.base_url}/agent/sessions", headers=local_stack.headers(token))
        assert (response.status_code, error_code(response)) == (401, code)


def test_sessions_crud_and_isolation(local_stack: Stack) -> None:
    with local_stack.client() as http:
        created = http.post("/agent/sessions")
        assert created.status_code == 201
        session = created.json()["session"]
        assert session["status"] == "active"
        listed = http.get("/agent/sessions", params={"limit": 100}).json()["sessions"]
        assert session["id"] in [s["id"] for s in listed]
        assert len(http.get("/agent/sessions", params={"limit": 1}).json()["sessions"]) == 1
        assert http.get("/agent/sessions", params={"limit": 0}).status_code == 422
        got = http.get(f"/agent/sessions/{session['id']}").json()
        assert got["session"]["id"] == session["id"] and got["recentActions"] == []

        stranger = local_stack.headers(mint_dev_token(LOCAL_JWT_SECRET, STRANGER))
        for method, path in [
            ("GET", f"/agent/sessions/{session['id']}"),
            ("GET", f"/agent/sessions/{session['id']}/events"),
            ("DELETE", f"/agent/sessions/{session['id']}"),
        ]:
            response = http.request(method, path, headers=stranger)
            assert (response.status_code, error_code(response)) == (404, "session_not_found")
        turn = http.post("/agent/chat", json={"message": "hi", "sessionId": session["id"]}, headers=stranger)
        assert turn.status_code == 404

        assert http.delete(f"/agent/sessions/{session['id']}").status_code == 204
        assert http.get(f"/agent/sessions/{session['id']}").status_code == 404
        assert http.get(f"/agent/sessions/{uuid.uuid4()}").status_code == 404


def test_chat_turn_then_events_paging(local_stack: Stack) -> None:
    with local_stack.client() as http:
        result = http.post("/agent/chat", json={"message": "Give me a quick chest workout"})
        assert result.status_code == 200, result.text
        body = result.json()
        assert body["response"]["messages"]
        session_id = body["sessionId"]

        timeline: list[dict[str, Any]] = []
        after = 0
        while True:
            page = http.get(
                f"/agent/sessions/{session_id}/events", params={"after": after, "limit": 3}
            ).json()
            assert len(page["events"]) <= 3
            timeline.extend(page["events"])
            if page["nextAfter"] is None:
                break
            after = page["nextAfter"]
        sequences = [e["sequence_number"] for e in timeline]
        assert sequences == list(range(1, len(sequences) + 1))
        whole = http.get(f"/agent/sessions/{session_id}/events", params={"limit": 500}).json()["events"]
        assert [e["sequence_number"] for e in whole] == sequences
        recent = http.get(f"/agent/sessions/{session_id}").json()["recentActions"]
        assert recent and {e["event_type"] for e in recent} <= {
            "user_message",
            "tool_call",
            "tool_result",
            "artifact",
        }


def test_request_body_errors(local_stack: Stack) -> None:
    with local_stack.client() as http:
        malformed = http.post(
            "/agent/chat", content=b'{"message": ', headers={"content-type": "application/json"}
        )
        assert (malformed.status_code, error_code(malformed)) == (400, "malformed_json")
        missing = http.post("/agent/stream", json={"sessionId": None})
        assert (missing.status_code, error_code(missing)) == (400, "missing_message")
        too_long = http.post("/agent/chat", json={"message": "x" * 8001})
        assert (too_long.status_code, error_code(too_long)) == (422, "message_too_long")
        huge = http.post("/agent/chat", json={"message": "hi", "currentWorkout": {"pad": "y" * 300_000}})
        assert (huge.status_code, error_code(huge)) == (413, "body_too_large")
        model = http.post("/agent/chat", json={"message": "hi", "model": "claude-unknown-9"})
        assert (model.status_code, error_code(model)) == (422, "unknown_model")


def test_concurrent_turn_on_one_session_is_409(fake_model_stack: Stack) -> None:
    """The second turn is sent once the first one streams; at 500 ms per model call it is still running."""
    with fake_model_stack.client() as http:
        session_id = http.post("/agent/sessions").json()["session"]["id"]
    first_started = threading.Event()
    outcome: dict[str, Any] = {}

    def first_turn() -> None:
        with fake_model_stack.client() as http:
            body = {"message": "Give me a quick chest workout", "sessionId": session_id}
            with http.stream("POST", "/agent/stream", json=body) as response:
                outcome["status"] = response.status_code
                for _ in response.iter_lines():
                    first_started.set()
            first_started.set()

    worker = threading.Thread(target=first_turn)
    worker.start()
    assert first_started.wait(60)
    with fake_model_stack.client() as http:
        second = http.post("/agent/chat", json={"message": "And a leg workout", "sessionId": session_id})
    worker.join(120)
    assert outcome["status"] == 200
    assert (second.status_code, error_code(second)) == (409, "turn_in_progress")


def test_user_settings_round_trip_and_validation(local_stack: Stack) -> None:
    with local_stack.client() as http:
        assert (
            http.put("/user-settings", json={"weight_unit": "lbs", "distance_unit": "mi"}).status_code == 200
        )
        stored = http.get("/user-settings").json()["settings"]
        assert (stored["weight_unit"], stored["distance_unit"]) == ("lbs", "mi")
        bad = http.put("/user-settings", json={"weight_unit": "stone"})
        assert (bad.status_code, error_code(bad)) == (422, "invalid_request")
        malformed = http.put("/user-settings", content=b"{", headers={"content-type": "application/json"})
        assert (malformed.status_code, error_code(malformed)) == (400, "malformed_json")
        assert (
            http.put("/user-settings", json={"weight_unit": "kg", "distance_unit": "km"}).status_code == 200
        )
        assert http.get("/user-settings").json()["settings"]["weight_unit"] == "kg"


def test_exercise_history_and_distribution_of_the_demo_user(local_stack: Stack) -> None:
    with local_stack.client() as http:
        history = http.get("/exercises/history", params={"days_back": 60, "limit": 3}).json()
        assert 0 < len(history["exercises"]) <= 3
        times = [e["performed_at"] for e in history["exercises"]]
        assert times == sorted(times, reverse=True)
        assert http.get("/exercises/history", params={"limit": 0}).status_code == 422
        distribution = http.get("/exercises/distribution").json()
        assert distribution["category"] and distribution["muscle"]
        row = distribution["category"][0]
        assert set(row) >= {"name", "target", "actual", "debt"}
        assert abs(row["target"] - row["actual"] - row["debt"]) < 1e-9


def test_stream_frames_and_headers(local_stack: Stack) -> None:
    with (
        local_stack.client() as http,
        http.stream("POST", "/agent/stream", json={"message": "Give me a quick chest workout"}) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        text = response.read().decode()
    frames = sse_events(text)
    ids = frame_ids(frames)
    assert ids == sorted(set(ids)), "numbered frames: unique and increasing"
    assert frames[-1][1]["type"] == "done" and frames[-1][1]["sessionId"]
    assert frames[-2][1] == {
        "type": "turn_end",
        "outcome": "replied",
        "sessionId": frames[-1][1]["sessionId"],
    }
    assert [e["type"] for _, e in frames].count("done") == 1
