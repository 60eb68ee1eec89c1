"""The fault suite's model half: the API on the real stores, its chat agent on
the real anthropic SDK over HTTP to a fault-injecting loopback server (trainer_dev.testing.faulty_model)
in front of the loopback fake. A model that is unavailable (529, 500) or hangs past the turn's deadline
puts the turn in degraded mode: the offline coach answers it for what it does well (logging, today's
workout, swaps, stats), the user is told the full coach is back soon, and the turn is marked in its
events. For the other faults - a stream cut mid-answer, bad tool JSON, tool arguments outside the
schema - the stream ends with a clean `error` frame carrying a code (or the turn recovers and
completes), then `done`. In every case no traceback reaches the client; no half-written answer is
stored as the reply; the session's events run 1..n with none lost or duplicated; and the same session
serves the next turn."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.container import Container, build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.testing.agent_harness import RecordingPublisher
from trainer_dev.testing.faulty_model import CUT_TEXT, Fault, FaultyModelServer

KEY = "sk-ant-fault-suite"
FUNCTION_TIMEOUT_S = 12
MARGIN_S = 4
"""A hung model call is given up at 12 - 4 = 8 s after the turn starts: the error frame comes then."""
HANG_GUARD_S = 60
TRACEBACK_MARKS = ("Traceback", 'File "', "Error(", "anthropic.", "httpx")


@pytest.fixture
def faulty() -> Iterator[FaultyModelServer]:
    with FakeLLMServer(api_key=KEY) as fake, FaultyModelServer(fake.base_url) as server:
        yield server


@pytest.fixture
async def api(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database, faulty: FaultyModelServer
) -> AsyncIterator[tuple[httpx.AsyncClient, Container]]:
    settings = aws_settings.model_copy(
        update={
            "anthropic_api_key": SecretStr(KEY),
            "anthropic_base_url": faulty.base_url,
            "function_timeout_seconds": FUNCTION_TIMEOUT_S,
            "model_deadline_margin_seconds": MARGIN_S,
        }
    )
    container = await build_container(settings, store=session_store, db=db, publisher=RecordingPublisher())
    app = create_app(container)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://api.test", timeout=HANG_GUARD_S
    ) as client:
        yield client, container
    faulty.always(None)
    faulty.release()
    await app.state.container_provider.turns.wait(30)
    await container.aclose()


def sse_frames(body: str) -> list[dict[str, Any]]:
    frames = []
    for block in body.split("\n\n"):
        data = [line[len("data: ") :] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            frames.append(json.loads(data[0]))
    return frames


async def stream_turn(
    client: httpx.AsyncClient, auth: dict[str, str], message: str, session_id: str | None = None
) -> tuple[list[dict[str, Any]], str, float]:
    """The frames of one streamed turn, its raw body, and the seconds it took."""
    body: dict[str, Any] = {"message": message}
    if session_id:
        body["sessionId"] = session_id
    started = time.monotonic()
    async with asyncio.timeout(HANG_GUARD_S):
        answer = await client.post("/agent/stream", json=body, headers=auth)
    assert answer.status_code == 200, answer.text
    return sse_frames(answer.text), answer.text, time.monotonic() - started


async def session_events(
    client: httpx.AsyncClient, auth: dict[str, str], session_id: str
) -> list[dict[str, Any]]:
    answer = await client.get(f"/agent/sessions/{session_id}/events", headers=auth, params={"limit": 500})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["events"])


def assert_no_traceback(raw: str) -> None:
    for mark in TRACEBACK_MARKS:
        assert mark not in raw, f"{mark!r} reached the client: {raw[:2000]}"


def assert_events_whole(events: list[dict[str, Any]]) -> None:
    sequences = [e["sequence_number"] for e in events]
    assert sequences == list(range(1, len(sequences) + 1)), f"lost or duplicated events: {sequences}"


def ended_with_error(frames: list[dict[str, Any]], code: str) -> dict[str, Any]:
    types = [f["type"] for f in frames]
    assert types[0] == "session", types
    assert types[-1] == "done", types
    errors = [f for f in frames if f["type"] == "error"]
    assert len(errors) == 1, frames
    assert errors[0]["code"] == code, errors
    assert types[-3:] == ["error", "turn_end", "done"], (
        f"the error comes last, before the turn's end: {types}"
    )
    assert frames[-2]["outcome"] == "failed", frames[-2]
    return errors[0]


async def next_turn_works(
    client: httpx.AsyncClient, auth: dict[str, str], session_id: str, faulty: FaultyModelServer
) -> list[dict[str, Any]]:
    """The same session serves the next turn once the model behaves; its events stay whole."""
    faulty.always(None)
    frames, raw, _ = await stream_turn(client, auth, "hi again", session_id)
    assert [f["type"] for f in frames][-1] == "done"
    assert not [f for f in frames if f["type"] == "error"], frames
    assert_no_traceback(raw)
    events = await session_events(client, auth, session_id)
    assert_events_whole(events)
    return events


def notified_messages(events: list[dict[str, Any]]) -> list[str]:
    """What the agent told the user (the message_notify_user calls that were recorded)."""
    return [
        str(e["data"]["arguments"].get("message"))
        for e in events
        if e["event_type"] == "tool_call" and e["data"]["tool_name"] == "message_notify_user"
    ]


@pytest.mark.parametrize(("fault", "code"), [("cut", "model_incomplete")])
async def test_a_model_failing_on_every_call_ends_the_turn_with_a_coded_error_frame(
    api: tuple[httpx.AsyncClient, Container],
    faulty: FaultyModelServer,
    auth: dict[str, str],
    fault: Fault,
    code: str,
) -> None:
    client, _ = api
    faulty.always(fault)
    frames, raw, _ = await stream_turn(client, auth, "Give me a push workout")
    ended_with_error(frames, code)
    assert_no_traceback(raw)
    session_id = frames[0]["sessionId"]
    events = await session_events(client, auth, session_id)
    assert_events_whole(events)
    assert not [e for e in events if e["event_type"] in ("llm_response", "tool_call")], "nothing half-written"
    assert CUT_TEXT not in json.dumps(events), "the half sentence is not stored"
    if fault == "cut":
        assert len(faulty.chat_calls()) == 2, "a cut answer is retried once, then the turn ends"
    session = (await client.get(f"/agent/sessions/{session_id}", headers=auth)).json()
    assert session["session"]["status"] == "error", session
    await next_turn_works(client, auth, session_id, faulty)


@pytest.mark.parametrize("fault", ["cut", "bad_json"])
async def test_one_broken_answer_is_retried_and_the_turn_completes(
    api: tuple[httpx.AsyncClient, Container], faulty: FaultyModelServer, auth: dict[str, str], fault: Fault
) -> None:
    client, _ = api
    faulty.inject(fault)
    frames, raw, _ = await stream_turn(client, auth, "hi")
    assert [f["type"] for f in frames][-1] == "done"
    assert not [f for f in frames if f["type"] == "error"], frames
    assert_no_traceback(raw)
    events = await session_events(client, auth, frames[0]["sessionId"])
    assert_events_whole(events)
    assert CUT_TEXT not in json.dumps(notified_messages(events)), "the cut answer is never the reply"
    assert [e.fault for e in faulty.chat_calls()][:2] == [fault, None]


async def test_arguments_outside_the_schema_are_a_failed_tool_call_the_model_recovers_from(
    api: tuple[httpx.AsyncClient, Container], faulty: FaultyModelServer, auth: dict[str, str]
) -> None:
    client, _ = api
    faulty.inject("off_schema")
    frames, raw, _ = await stream_turn(client, auth, "hi")
    assert [f["type"] for f in frames][-1] == "done"
    assert not [f for f in frames if f["type"] == "error"], frames
    assert_no_traceback(raw)
    events = await session_events(client, auth, frames[0]["sessionId"])
    assert_events_whole(events)
    results = [e["data"] for e in events if e["event_type"] == "tool_result"]
    assert results[0]["success"] is False, results[0]
    assert any(r["success"] for r in results[1:]), "the next call answered"


def degraded_turn(frames: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    """The turn completed on the offline coach: no error frame, a status frame saying the full coach is
    back soon, and the turn marked degraded in its events (an `error` event of context `degraded`, its
    `turn_end`)."""
    types = [f["type"] for f in frames]
    assert types[-1] == "done", types
    assert not [f for f in frames if f["type"] == "error"], frames
    notices = [f for f in frames if f["type"] == "status" and f["data"]["tool"] == "degraded"]
    assert len(notices) == 1 and "back soon" in notices[0]["data"]["message"], frames
    marks = [e["data"] for e in events if e["event_type"] == "error"]
    assert [(m["code"], m["context"]) for m in marks][-1:] == [("model_degraded", "degraded")], marks
    ends = [e["data"] for e in events if e["event_type"] == "turn_end"]
    assert ends[-1] == {"outcome": "replied", "degraded": True}, ends


@pytest.mark.parametrize("fault", ["overloaded", "server_error"])
async def test_with_the_model_unavailable_the_user_still_gets_todays_workout_and_logs_a_set(
    api: tuple[httpx.AsyncClient, Container], faulty: FaultyModelServer, auth: dict[str, str], fault: Fault
) -> None:
    client, _ = api
    faulty.always(fault)
    frames, raw, _ = await stream_turn(client, auth, "give me today's workout")
    assert_no_traceback(raw)
    session_id = frames[0]["sessionId"]
    events = await session_events(client, auth, session_id)
    assert_events_whole(events)
    degraded_turn(frames, events)
    assert "generate_workout" in [f["tool"] for f in frames if f["type"] == "tool_start"], frames
    workout = [f for f in frames if f["type"] == "tool_result" and f["tool"] == "generate_workout"]
    assert workout and workout[0]["status"] == "done", workout

    answer = await client.post(
        "/agent/chat",
        json={"message": "did 3 sets of 12 push-ups", "sessionId": session_id},
        headers=auth,
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "completed", body
    assert "back soon" in body["response"]["messages"][0], body["response"]
    assert_no_traceback(answer.text)
    history = (await client.get("/exercises/history", headers=auth)).json()["exercises"]
    assert [(e["exercise_name"], e["sets"], e["reps"]) for e in history] == [("Push Ups", 3, [12, 12, 12])]
    events = await session_events(client, auth, session_id)
    assert_events_whole(events)
    assert len([e for e in events if e["event_type"] == "turn_end" and e["data"].get("degraded")]) == 2
    assert faulty.chat_calls(), "the live model was asked first"
    await next_turn_works(client, auth, session_id, faulty)


async def test_in_degraded_mode_what_the_offline_coach_cannot_do_is_left_for_the_full_coach(
    api: tuple[httpx.AsyncClient, Container], faulty: FaultyModelServer, auth: dict[str, str]
) -> None:
    client, _ = api
    faulty.always("overloaded")
    answer = await client.post(
        "/agent/chat", json={"message": "build me a 12 week plan for a half marathon"}, headers=auth
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [a["tool"] for a in body["actions"]] == ["message_notify_user"], body["actions"]
    assert "back soon" in " ".join(body["response"]["messages"]), body["response"]
    assert "log your sets" in body["actions"][0]["args"]["message"], body["actions"]


async def test_a_hung_model_falls_back_to_the_offline_coach_before_the_function_deadline(
    api: tuple[httpx.AsyncClient, Container], faulty: FaultyModelServer, auth: dict[str, str]
) -> None:
    client, _ = api
    faulty.always("hang")
    frames, raw, seconds = await stream_turn(client, auth, "Give me a push workout")
    assert_no_traceback(raw)
    budget = FUNCTION_TIMEOUT_S - MARGIN_S
    assert budget - 0.5 <= seconds < FUNCTION_TIMEOUT_S, f"answered after {seconds:.1f} s"
    session_id = frames[0]["sessionId"]
    events = await session_events(client, auth, session_id)
    assert_events_whole(events)
    degraded_turn(frames, events)
    faulty.release()
    await next_turn_works(client, auth, session_id, faulty)


async def test_a_cut_answer_is_dropped_from_the_preview_before_the_retry_writes_it_again(
    api: tuple[httpx.AsyncClient, Container], faulty: FaultyModelServer, auth: dict[str, str]
) -> None:
    """The cut answer's text was previewed as `message_delta`: a `message_reset` follows it, and what is
    previewed after it is the retry's message alone, the one the `tool_result` carries whole (a client
    showing the deltas never shows the cut half followed by the new answer)."""
    client, _ = api
    faulty.inject("cut")
    frames, _, _ = await stream_turn(client, auth, "Give me a push workout")
    types = [f["type"] for f in frames]
    assert types.count("message_reset") == 1, types
    reset = types.index("message_reset")
    cut = "".join(f["data"]["text"] for f in frames[:reset] if f["type"] == "message_delta")
    assert cut and CUT_TEXT.startswith(cut), cut
    results = [
        f
        for f in frames[reset:]
        if f["type"] == "tool_result" and f["tool"] in ("message_notify_user", "message_ask_user")
    ]
    assert results, types
    first_result = frames.index(results[0])
    previewed = "".join(f["data"]["text"] for f in frames[reset:first_result] if f["type"] == "message_delta")
    assert CUT_TEXT not in previewed
    shown = results[0]["data"].get("message") or results[0]["data"].get("question")
    assert previewed == shown, (previewed, shown)
