"""Retries never run a turn twice (docs/api.md#retries-idempotency-and-catch-up), on the real adapters:
DynamoDB on moto for the sessions, the frames and the idempotency keys, embedded Postgres, and the real SDKs
against the loopback fake, whose recorded requests count the model calls.

A stream is cut after three different frames and retried, by httpx-sse with `Last-Event-ID` (what an SSE
client sends on its own), and with the first request's `Idempotency-Key`: one session, one user message,
one turn's model calls, and every frame exactly once. The catch-up route after any frame id returns the
rest of the stream; a key reused with another body is a 422; chat, plans and import retried with their
key answer the first response without a second model call or plan."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer.store.stream_records import DynamoStreamRecords, StoredFrame
from trainer_dev.local.fake_llm import FakeLLMServer

WORKOUT_REQUEST = "Give me a quick chest workout"
PASTED = "Bench press 4x8 @ 60kg\nPlank 3 x 45s\n"


class NoBus:
    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        return None


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
async def container(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database, fake_llm: FakeLLMServer
) -> AsyncIterator[Container]:
    settings = aws_settings.model_copy(
        update={
            "anthropic_api_key": SecretStr("sk-ant-fake"),
            "anthropic_base_url": fake_llm.base_url,
            "openai_api_key": SecretStr("sk-fake"),
            "openai_base_url": fake_llm.openai_base_url,
        }
    )
    built = await build_container(settings, store=session_store, db=db, publisher=NoBus())
    yield built
    await built.aclose()


@pytest.fixture
async def client(container: Container) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(container))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=120) as http:
        yield http


@pytest.fixture
def headers(aws_settings: Settings, make_user: Callable[..., str]) -> dict[str, str]:
    token = mint_dev_token(aws_settings.jwt_secret.get_secret_value(), make_user())
    return {"Authorization": f"Bearer {token}"}


Frames = list[tuple[str | None, dict[str, Any]]]


async def stream(client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str]) -> Frames:
    """The stream as httpx-sse parses it: (the event's own `id:`, or None; the frame)."""
    frames: Frames = []
    async with aconnect_sse(client, "POST", "/agent/stream", json=body, headers=headers) as source:
        assert source.response.status_code == 200, await source.response.aread()
        async for event in source.aiter_sse():
            assert event.data, "a parser got an empty message"
            frames.append((event.id, json.loads(event.data)))
    return frames


def numbered(frames: Frames) -> list[tuple[int, dict[str, Any]]]:
    """The frames that carry an id of their own (every one but `message_delta` and `done`)."""
    out: list[tuple[int, dict[str, Any]]] = []
    last: int | None = None
    for event_id, frame in frames:
        if frame["type"] in ("message_delta", "done"):
            continue
        current = int(event_id) if event_id else None
        assert current is not None and current != last, frame
        out.append((current, frame))
        last = current
    return out


async def user_messages(client: httpx.AsyncClient, session_id: str, headers: dict[str, str]) -> int:
    page = (await client.get(f"/agent/sessions/{session_id}/events?limit=500", headers=headers)).json()
    return sum(1 for e in page["events"] if e["event_type"] == "user_message")


async def test_a_stream_cut_at_three_points_and_retried_runs_the_turn_once(
    client: httpx.AsyncClient, headers: dict[str, str], fake_llm: FakeLLMServer
) -> None:
    key = {"Idempotency-Key": "phone-7b1c2f"}
    body = {"message": WORKOUT_REQUEST}
    before = len(fake_llm.requests)
    first = await stream(client, body, {**headers, **key})
    turn_calls = len(fake_llm.requests) - before
    sent = numbered(first)
    types = [frame["type"] for _, frame in sent]
    assert types[0] == "session" and types[-1] == "turn_end" and types.count("turn_end") == 1
    assert first[-1][1]["type"] == "done"
    session_id = sent[0][1]["sessionId"]
    ids = [i for i, _ in sent]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)

    cuts = [0, len(sent) // 2, len(sent) - 2]
    for cut in cuts:
        last_id = str(sent[cut][0])
        for retry_headers in ({"Last-Event-ID": last_id}, {**key, "Last-Event-ID": last_id}):
            retried = await stream(client, body, {**headers, **retry_headers})
            assert numbered(retried) == sent[cut + 1 :], (cut, retry_headers)
            assert retried[-1][1] == {"type": "done", "sessionId": session_id}
            # every frame exactly once: what the phone had, then what the retry sent
            assert [i for i, _ in sent[: cut + 1] + numbered(retried)] == ids

    again = await stream(client, body, {**headers, **key})
    assert numbered(again) == sent, "a retry with the key after the turn ended gets all its frames again"

    sessions = (await client.get("/agent/sessions", headers=headers)).json()["sessions"]
    assert [s["id"] for s in sessions] == [session_id]
    assert await user_messages(client, session_id, headers) == 1
    extra_model_calls = len(fake_llm.requests) - before - turn_calls
    assert extra_model_calls == 0
    print(f"\nextra model calls caused by {2 * len(cuts) + 1} client retries: {extra_model_calls}")


async def test_catch_up_after_any_frame_id_is_the_rest_of_the_stream(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    sent = numbered(await stream(client, {"message": WORKOUT_REQUEST}, headers))
    session_id = sent[0][1]["sessionId"]
    events = (await client.get(f"/agent/sessions/{session_id}/events?limit=500", headers=headers)).json()
    assert events["events"][-1]["event_type"] == "turn_end"
    assert events["events"][-1]["data"] == {"outcome": sent[-1][1]["outcome"]}
    for index, (frame_id, _) in enumerate(sent):
        page = (
            await client.get(f"/agent/sessions/{session_id}/frames?after={frame_id}", headers=headers)
        ).json()
        rest = [(f["id"], f["frame"]) for f in page["frames"]]
        if index == len(sent) - 1:
            assert rest == [] and page["turnEnded"] is False
        else:
            assert rest == sent[index + 1 :] and page["turnEnded"] is True
    whole = (await client.get(f"/agent/sessions/{session_id}/frames?after=0", headers=headers)).json()
    assert [(f["id"], f["frame"]) for f in whole["frames"]] == sent


async def test_a_key_reused_with_another_body_is_a_422(
    client: httpx.AsyncClient, headers: dict[str, str], fake_llm: FakeLLMServer
) -> None:
    key = {"Idempotency-Key": "same-key-1"}
    await stream(client, {"message": WORKOUT_REQUEST}, {**headers, **key})
    before = len(fake_llm.requests)
    for route in ("/agent/stream", "/agent/chat"):
        answer = await client.post(route, json={"message": "Log my run"}, headers={**headers, **key})
        if route == "/agent/chat":
            # a key is per route: the chat route has not seen this one, so it runs
            assert answer.status_code == 200
            continue
        assert answer.status_code == 422
        assert answer.json()["error"]["code"] == "idempotency_key_reused"
    reused = await client.post("/agent/chat", json={"message": "something else"}, headers={**headers, **key})
    assert reused.status_code == 422 and reused.json()["error"]["code"] == "idempotency_key_reused"
    assert len(fake_llm.requests) > before  # only the one chat turn ran


async def test_chat_retried_with_its_key_answers_the_first_response_without_a_model_call(
    client: httpx.AsyncClient, headers: dict[str, str], fake_llm: FakeLLMServer
) -> None:
    key = {"Idempotency-Key": "chat-9f0e"}
    body = {"message": WORKOUT_REQUEST}
    first = await client.post("/agent/chat", json=body, headers={**headers, **key})
    assert first.status_code == 200
    calls = len(fake_llm.requests)
    retried = [await client.post("/agent/chat", json=body, headers={**headers, **key}) for _ in range(2)]
    assert [(r.status_code, r.json()) for r in retried] == [(200, first.json())] * 2
    assert len(fake_llm.requests) == calls
    assert await user_messages(client, first.json()["sessionId"], headers) == 1


async def test_chat_retried_while_the_first_runs_waits_for_its_answer(
    client: httpx.AsyncClient, headers: dict[str, str], fake_llm: FakeLLMServer
) -> None:
    key = {"Idempotency-Key": "chat-concurrent"}
    body = {"message": WORKOUT_REQUEST}
    before = len(fake_llm.requests)
    first, second = await asyncio.gather(
        client.post("/agent/chat", json=body, headers={**headers, **key}),
        client.post("/agent/chat", json=body, headers={**headers, **key}),
    )
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    sessions = (await client.get("/agent/sessions", headers=headers)).json()["sessions"]
    assert len(sessions) == 1
    one_turn = len(fake_llm.requests) - before
    await client.post("/agent/chat", json={"message": WORKOUT_REQUEST}, headers=headers)
    assert len(fake_llm.requests) - before == 2 * one_turn, "the two keyed requests ran one turn"


async def test_plans_and_import_retried_with_their_key_return_the_first_answer(
    client: httpx.AsyncClient, headers: dict[str, str], container: Container
) -> None:
    key = {"Idempotency-Key": "plan-1"}
    plan_body = {"weeks": 4, "days_per_week": 3}
    first = await client.post("/plans", json=plan_body, headers={**headers, **key})
    assert first.status_code == 202, first.text
    again = await client.post("/plans", json=plan_body, headers={**headers, **key})
    assert (again.status_code, again.json()) == (202, first.json())
    plans = (await client.get("/plans", headers=headers)).json()
    assert len(plans["plans"]) == 1

    key = {"Idempotency-Key": "import-1"}
    started = time.monotonic()
    imported = await client.post("/workouts/import", json={"text": PASTED}, headers={**headers, **key})
    assert imported.status_code == 200, imported.text
    replayed = await client.post("/workouts/import", json={"text": PASTED}, headers={**headers, **key})
    assert (replayed.status_code, replayed.json()) == (200, imported.json())
    assert time.monotonic() - started < 60
    other = await client.post("/workouts/import", json={"text": "Squat 5x5"}, headers={**headers, **key})
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"


# --- the adapter ----------------------------------------------------------------------------------


async def test_the_first_claim_of_a_key_wins_and_the_record_follows_the_request(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    records = DynamoStreamRecords(aws_settings, client=session_store.table.client)
    claims = await asyncio.gather(*(records.claim("u-1", "chat", "k", "hash-a") for _ in range(5)))
    assert sum(1 for c in claims if c is None) == 1
    assert all(c is None or (c.state, c.body_hash) == ("running", "hash-a") for c in claims)
    assert await records.claim("u-2", "chat", "k", "hash-a") is None, "keys are per user"
    assert await records.claim("u-1", "plans", "k", "hash-a") is None, "and per route"

    await records.started("u-1", "chat", "k", "s-1", 7000)
    await records.finished("u-1", "chat", "k", 200, {"ok": [1, "é"]})
    record = await records.get("u-1", "chat", "k")
    assert record is not None
    assert (record.state, record.session_id, record.first_frame_id) == ("done", "s-1", 7000)
    assert (record.status_code, record.response) == (200, {"ok": [1, "é"]})

    await records.release("u-1", "chat", "k")
    assert await records.claim("u-1", "chat", "k", "hash-b") is None, "a released key is claimed again"


async def test_an_expired_key_is_claimed_again(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    now = [1_000_000.0]
    records = DynamoStreamRecords(aws_settings, client=session_store.table.client, clock=lambda: now[0])
    assert await records.claim("u-1", "stream", "k", "h") is None
    now[0] += 24 * 3600 - 1
    assert await records.claim("u-1", "stream", "k", "h") is not None
    now[0] += 2
    assert await records.get("u-1", "stream", "k") is None
    assert await records.claim("u-1", "stream", "k", "h2") is None


async def test_frames_read_back_in_id_order_between_bounds(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    records = DynamoStreamRecords(aws_settings, client=session_store.table.client)
    frames = [StoredFrame(5000 + i, {"type": "status", "n": i}) for i in range(30)]
    frames.append(StoredFrame(9000, {"type": "turn_end", "outcome": "replied"}))
    await records.record("u-1", "s-1", frames)
    assert await records.read("s-1", 4999) == frames
    assert await records.read("s-1", 5010, 6000) == frames[11:30]
    assert await records.read("s-1", 5000, None, 3) == frames[1:4]
    assert await records.read("s-2", 0) == []
