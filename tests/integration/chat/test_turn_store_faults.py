"""The fault suite's store half under a running turn: the chat agent's model (the real
anthropic SDK over HTTP to tests/fakes/faulty_model.py) holds its answer while the test cuts DynamoDB
through the loopback TCP proxy or stops Postgres, then lets the turn go on. The stream ends cleanly (an
`error` frame with the store's code, or a completed turn whose failed tool says so) then `done`, with
no traceback; after the store is back the session's events run 1..n (none lost or duplicated), no
half-written workout is left in Postgres, and the same session serves the next turn."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.migrate import apply_migrations
from trainer.store.repositories import profiles
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.local.postgres import PgHandle, start_postgres
from trainer_dev.testing.agent_harness import RecordingPublisher
from trainer_dev.testing.faulty_model import FaultyModelServer
from trainer_dev.testing.tcp_proxy import TcpProxy, tcp_proxy

KEY = "sk-ant-fault-suite"
HANG_GUARD_S = 60
LEASE_S = 3
LOG_MESSAGE = "I did 3 sets of 10 push-ups"
TRACEBACK_MARKS = ("Traceback", 'File "', "psycopg", "botocore")


@pytest.fixture
def faulty() -> Iterator[FaultyModelServer]:
    with FakeLLMServer(api_key=KEY) as fake, FaultyModelServer(fake.base_url) as server:
        yield server


def model_settings(settings: Settings, faulty: FaultyModelServer, **extra: Any) -> Settings:
    return settings.model_copy(
        update={
            "anthropic_api_key": SecretStr(KEY),
            "anthropic_base_url": faulty.base_url,
            "lease_seconds": LEASE_S,
            "rate_limits_enabled": False,
            **extra,
        }
    )


def sse_frames(body: str) -> list[dict[str, Any]]:
    frames = []
    for block in body.split("\n\n"):
        data = [line[len("data: ") :] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            frames.append(json.loads(data[0]))
    return frames


async def post_stream(
    client: httpx.AsyncClient, auth: dict[str, str], body: dict[str, Any]
) -> httpx.Response:
    async with asyncio.timeout(HANG_GUARD_S):
        return await client.post("/agent/stream", json=body, headers=auth)


async def turn_with_store_cut(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    faulty: FaultyModelServer,
    session_id: str,
    message: str,
    cut: Any,
) -> httpx.Response:
    """A streamed turn whose first model call is held while `cut()` breaks a store, then let go."""
    calls = len(faulty.chat_calls())
    faulty.hold_next()
    request = asyncio.create_task(post_stream(client, auth, {"message": message, "sessionId": session_id}))
    await asyncio.to_thread(faulty.wait_for_chat_calls, calls + 1)
    await asyncio.to_thread(cut)
    faulty.release()
    return await request


def assert_clean_end(answer: httpx.Response) -> list[dict[str, Any]]:
    assert answer.status_code == 200, answer.text
    for mark in TRACEBACK_MARKS:
        assert mark not in answer.text, f"{mark!r} reached the client: {answer.text[:2000]}"
    frames = sse_frames(answer.text)
    types = [f["type"] for f in frames]
    assert types[-1] == "done", types
    assert types.count("done") == 1, types
    assert types.count("error") <= 1, types
    assert types[-2] == "turn_end", types
    return frames


async def until_served(
    client: httpx.AsyncClient, auth: dict[str, str], session_id: str, message: str
) -> tuple[list[dict[str, Any]], float]:
    """The next turn on the same session, retried while the dead turn's lease runs out (409)."""
    started = time.monotonic()
    while True:
        answer = await post_stream(client, auth, {"message": message, "sessionId": session_id})
        if answer.status_code != 409 or time.monotonic() - started > LEASE_S * 4:
            break
        await asyncio.sleep(0.5)
    frames = assert_clean_end(answer)
    assert "error" not in [f["type"] for f in frames], frames
    return frames, time.monotonic() - started


async def events_of(client: httpx.AsyncClient, auth: dict[str, str], session_id: str) -> list[dict[str, Any]]:
    answer = await client.get(f"/agent/sessions/{session_id}/events", headers=auth, params={"limit": 500})
    assert answer.status_code == 200, answer.text
    events = list(answer.json()["events"])
    sequences = [e["sequence_number"] for e in events]
    assert sequences == list(range(1, len(sequences) + 1)), f"lost or duplicated events: {sequences}"
    return events


# --- DynamoDB cut mid-turn ---------------------------------------------------------------------------


@pytest.fixture
def dynamo_proxy(moto_endpoint: str) -> Iterator[TcpProxy]:
    host, port = moto_endpoint.removeprefix("http://").split(":")
    with tcp_proxy(host, int(port)) as proxy:
        yield proxy


@pytest.mark.parametrize("mode", ["refuse", "blackhole"])
async def test_dynamodb_cut_mid_turn_ends_the_stream_cleanly_and_the_session_recovers(
    aws_settings: Settings,
    db: Database,
    dynamo_proxy: TcpProxy,
    faulty: FaultyModelServer,
    auth: dict[str, str],
    mode: Any,
) -> None:
    settings = model_settings(aws_settings, faulty, aws_endpoint_url=f"http://{dynamo_proxy.address}")
    container = await build_container(
        settings, store=DynamoSessionStore(settings), db=db, publisher=RecordingPublisher()
    )
    app = create_app(container)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            first = await post_stream(client, auth, {"message": "hi"})
            session_id = assert_clean_end(first)[0]["sessionId"]
            before = await events_of(client, auth, session_id)

            answer = await turn_with_store_cut(
                client, auth, faulty, session_id, "hi again", lambda: dynamo_proxy.set_mode(mode)
            )
            frames = assert_clean_end(answer)
            errors = [f for f in frames if f["type"] == "error"]
            assert [e.get("code") for e in errors] == ["store_unavailable"], frames

            dynamo_proxy.set_mode("forward")
            _, seconds = await until_served(client, auth, session_id, "and once more")
            assert seconds < LEASE_S * 4, f"served again {seconds:.1f} s after DynamoDB came back"
            after = await events_of(client, auth, session_id)
            assert after[: len(before)] == before, "the events before the cut are untouched"
            assert sum(e["event_type"] == "user_message" for e in after) in (2, 3)
    finally:
        await app.state.container_provider.turns.wait(30)
        await container.aclose()


# --- Postgres stopped and restarted under a turn -----------------------------------------------------


@pytest.fixture
def own_postgres(tmp_path: Path) -> Iterator[PgHandle]:
    """A cluster of this test's own, so stopping it leaves the session's shared one alone."""
    handle = start_postgres(tmp_path / "pgdata", durable=False)
    try:
        apply_migrations(handle.url)
        yield handle
    finally:
        handle.stop()


@pytest.fixture
async def own_db(own_postgres: PgHandle) -> AsyncIterator[Database]:
    database = Database(own_postgres.url, max_size=2)
    await database.open()
    yield database
    await database.close()


async def history_rows(db: Database, user: str) -> int:
    async with db.transaction() as conn:
        cursor = await conn.execute("SELECT count(*) AS n FROM workout_history WHERE user_id = %s", (user,))
        row = await cursor.fetchone()
    assert row is not None
    return int(row["n"])


async def test_postgres_stopped_under_a_turn_ends_it_cleanly_and_the_session_works_after_restart(
    aws_settings: Settings,
    session_store: DynamoSessionStore,
    own_postgres: PgHandle,
    own_db: Database,
    faulty: FaultyModelServer,
) -> None:
    user = str(uuid.uuid4())
    async with own_db.transaction() as conn:
        await profiles.ensure_user(conn, user)
    settings = model_settings(aws_settings, faulty)
    auth = {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user)}"}
    container = await build_container(
        settings, store=session_store, db=own_db, publisher=RecordingPublisher()
    )
    app = create_app(container)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            first = await post_stream(client, auth, {"message": "hi"})
            session_id = sse_frames(first.text)[0]["sessionId"]
            assert_clean_end(first)

            answer = await turn_with_store_cut(
                client, auth, faulty, session_id, LOG_MESSAGE, own_postgres.stop
            )
            frames = assert_clean_end(answer)
            errors = [f for f in frames if f["type"] == "error"]
            assert [e.get("code") for e in errors] in ([], ["database_unavailable"]), frames
            logged = [
                f for f in frames if f["type"] == "tool_result" and f["tool"] == "log_completed_exercise"
            ]
            assert [f["status"] for f in logged if "status" in f] == ["failed"], (
                "the turn reached the stopped database"
            )

            start_postgres(own_postgres.data_dir, own_postgres.port, durable=False)
            assert await history_rows(own_db, user) == 0, "nothing half-written by the failed log"
            frames, _ = await until_served(client, auth, session_id, LOG_MESSAGE)
            logged = [
                f for f in frames if f["type"] == "tool_result" and f["tool"] == "log_completed_exercise"
            ]
            assert [f["status"] for f in logged if "status" in f] == ["done"], logged
            assert await history_rows(own_db, user) > 0
            events = await events_of(client, auth, session_id)
            assert sum(e["event_type"] == "user_message" for e in events) == 3
            results = [e["data"] for e in events if e["event_type"] == "tool_result"]
            assert [r["success"] for r in results if r["tool_name"] == "log_completed_exercise"] == [
                False,
                True,
            ]
    finally:
        await app.state.container_provider.turns.wait(30)
        await container.aclose()
