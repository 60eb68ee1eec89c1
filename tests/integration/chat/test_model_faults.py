"""The fault suite's model half: the API on the real stores, its chat agent on
the real anthropic SDK over HTTP to a fault-injecting loopback server (tests/fakes/faulty_model.py) in
front of the loopback fake. For each fault — 529, 500, a stream cut mid-answer, a hung model, bad tool
JSON, tool arguments outside the schema — the stream ends with a clean `error` frame carrying a code (or
the turn recovers and completes), then `done`; no traceback reaches the client; no half-written answer
is stored as the reply; the session's events run 1..n with none lost or duplicated; and the same session
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


@pytest.mark.parametrize(
    ("fault", "code"),
    [("overloaded", "model_unavailable"), ("server_error", "model_unavailable"), ("cut", "model_incomplete")],
)
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


async def test_a_hung_model_ends_with_a_timeout_error_frame_before_the_function_deadline(
    api: tuple[httpx.AsyncClient, Container], faulty: FaultyModelServer, auth: dict[str, str]
) -> None:
    client, _ = api
    faulty.always("hang")
    frames, raw, seconds = await stream_turn(client, auth, "Give me a push workout")
    ended_with_error(frames, "model_timeout")
    assert_no_traceback(raw)
    budget = FUNCTION_TIMEOUT_S - MARGIN_S
    assert budget - 0.5 <= seconds < FUNCTION_TIMEOUT_S, f"error frame after {seconds:.1f} s"
    session_id = frames[0]["sessionId"]
    assert_events_whole(await session_events(client, auth, session_id))
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
