"""The end-to-end smoke test of a chat turn, over HTTP, run twice: on the offline model and on the
real anthropic + openai SDKs talking to the loopback fake server. Plus the SSE checks and a client
that disconnects mid-stream."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Stack, frame_ids, sse_events

pytestmark = pytest.mark.e2e

POLL_TIMEOUT_S = 60.0
EXERCISE_TYPES = {"reps", "hold", "duration", "intervals"}


def poll_session(http: httpx.Client, session_id: str, ready: Any) -> dict[str, Any]:
    deadline = time.monotonic() + POLL_TIMEOUT_S
    while True:
        session = http.get(f"/agent/sessions/{session_id}").json()["session"]
        if ready(session) or time.monotonic() > deadline:
            return dict(session)
        time.sleep(0.25)


def timeline(http: httpx.Client, session_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = http.get(f"/agent/sessions/{session_id}/events", params={"after": after, "limit": 500}).json()
        events.extend(page["events"])
        after = page["nextAfter"]
    return events


def test_smoke(stack: Stack) -> None:
    with stack.client() as http:
        # 1. a session
        session = http.post("/agent/sessions").json()["session"]
        assert session["status"] == "active"

        # 2. a workout request
        reply = http.post(
            "/agent/chat",
            json={
                "message": "Give me a quick chest workout",
                "sessionId": session["id"],
                "model": "claude-haiku-4-5",
            },
        )
        assert reply.status_code == 200, reply.text
        result = reply.json()
        assert result["sessionId"] == session["id"]
        assert 1 <= result["iterations"] <= 10

        # 3. tool sequence
        tools = [a["tool"] for a in result["actions"]]
        assert "generate_workout" in tools and "message_notify_user" in tools
        assert tools.index("message_notify_user") > tools.index("generate_workout")

        # 4. artifact delivery
        generated = next(a for a in result["actions"] if a["tool"] == "generate_workout")
        assert generated["result"]["success"] is True
        artifact_id = generated["result"]["artifact_id"]
        assert artifact_id.startswith("art_")
        notified = next(a for a in result["actions"] if a["tool"] == "message_notify_user")
        assert notified["result"]["artifact_id"] == artifact_id
        assert notified["result"]["artifact"] is not None

        # 5. the timeline
        events = timeline(http, session["id"])
        types = {e["event_type"] for e in events}
        assert {
            "user_message",
            "tool_call",
            "tool_result",
            "artifact",
            "llm_request",
            "llm_response",
        } <= types

        # 6. completion; the totals come from the cost function via the bus, so poll briefly
        final = poll_session(
            http, session["id"], lambda s: s["total_tokens"] > 0 and s["total_cost_cents"] > 0
        )
        assert final["status"] == "completed"
        assert final["total_tokens"] > 0
        assert final["total_cost_cents"] > 0

        # 7. the exercises in the artifact
        artifact = next(
            e["data"]
            for e in events
            if e["event_type"] == "artifact" and e["data"].get("artifact_id") == artifact_id
        )
        assert artifact["type"] == "exercise_list"
        exercises = artifact["payload"]["exercises"]
        assert exercises
        first = exercises[0]
        assert first["exercise_name"]
        assert first["exercise_type"] in EXERCISE_TYPES
        assert first["muscles_utilized"] and first["goals_addressed"]

        # 8. streaming: tool start and tool result events, ids on every frame, turn_end then done last
        with http.stream(
            "POST", "/agent/stream", json={"message": "Show me a leg workout", "sessionId": session["id"]}
        ) as response:
            assert response.status_code == 200
            text = response.read().decode()
    frames = sse_events(text)
    sse = [event for _, event in frames]
    starts = [e for e in sse if e["type"] == "tool_start"]
    results = [e for e in sse if e["type"] == "tool_result" and e["status"] in ("done", "failed")]
    assert starts and results
    assert {e["tool"] for e in results} <= {e["tool"] for e in starts}
    assert sse[-2:] == [
        {"type": "turn_end", "outcome": "replied", "sessionId": session["id"]},
        {"type": "done", "sessionId": session["id"]},
    ]
    ids = frame_ids(frames)
    assert ids == sorted(set(ids)), "numbered frames: unique and increasing"


def test_client_disconnect_does_not_abort_the_turn(stack: Stack) -> None:
    with stack.client() as http:
        session_id = http.post("/agent/sessions").json()["session"]["id"]
        body = {"message": "Give me a quick chest workout", "sessionId": session_id}
        with http.stream("POST", "/agent/stream", json=body) as response:
            assert response.status_code == 200
            seen = 0
            for line in response.iter_lines():
                seen += line.startswith("data: ")
                if seen >= 2:
                    break
        # the connection is closed here, mid-turn

        final = poll_session(http, session_id, lambda s: s["status"] != "active")
        assert final["status"] == "completed"
        events = timeline(http, session_id)
    calls = [e for e in events if e["event_type"] == "tool_call"]
    results = [e for e in events if e["event_type"] == "tool_result"]
    assert calls
    assert [c["data"]["call_id"] for c in calls] == [r["data"]["call_id"] for r in results]
    last = calls[-1]["data"]
    assert (last["tool_name"], last["arguments"].get("final")) == ("message_notify_user", True)
    assert "generate_workout" in [c["data"]["tool_name"] for c in calls]
