"""Store outages answered fast and truthfully: DynamoDB cut through a loopback TCP
proxy (refused, or a path that never answers) and Postgres stopped and restarted. Each answer is a 503
with Retry-After and the JSON error body, never a 500 or a hang, and the same session and user are served
again as soon as the store is back.

The hang guard (`asyncio.timeout`) only keeps a regression from stalling the suite; the figures (time to
answer during an outage, time to the first good turn after it) are `python -m bench faults`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.migrate import apply_migrations
from trainer.store.repositories import profiles
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.postgres import PgHandle, start_postgres
from trainer_dev.testing.agent_harness import RecordingPublisher
from trainer_dev.testing.tcp_proxy import TcpProxy, tcp_proxy

HANG_GUARD_S = 20


def error_code(response: httpx.Response) -> str:
    assert response.headers["content-type"].startswith("application/json"), response.text
    return str(response.json()["error"]["code"])


async def call(client: httpx.AsyncClient, method: str, route: str, **kwargs: Any) -> httpx.Response:
    async with asyncio.timeout(HANG_GUARD_S):
        return await client.request(method, route, **kwargs)


@pytest.fixture
def dynamo_proxy(moto_endpoint: str) -> Iterator[TcpProxy]:
    host, port = moto_endpoint.removeprefix("http://").split(":")
    with tcp_proxy(host, int(port)) as proxy:
        yield proxy


@pytest.fixture
async def proxied(
    aws_settings: Settings, dynamo_proxy: TcpProxy, db: Database
) -> AsyncIterator[tuple[httpx.AsyncClient, Container]]:
    """The API whose every DynamoDB request goes through the proxy (tables made on moto directly)."""
    settings = aws_settings.model_copy(
        update={"aws_endpoint_url": f"http://{dynamo_proxy.address}", "lease_seconds": 3}
    )
    container = await build_container(
        settings, store=DynamoSessionStore(settings), db=db, publisher=RecordingPublisher()
    )
    app = create_app(container)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        yield client, container
    await app.state.container_provider.turns.wait(30)
    await container.aclose()


@pytest.mark.parametrize("mode", ["refuse", "blackhole"])
async def test_dynamodb_unreachable_is_a_503_with_retry_after_and_the_session_works_after(
    proxied: tuple[httpx.AsyncClient, Container], dynamo_proxy: TcpProxy, auth: dict[str, str], mode: Any
) -> None:
    client, _ = proxied
    first = await call(client, "POST", "/agent/chat", json={"message": "hi"}, headers=auth)
    assert first.status_code == 200, first.text
    session_id = first.json()["sessionId"]

    dynamo_proxy.set_mode(mode)
    for method, route, body in (
        ("GET", "/agent/sessions", None),
        ("GET", f"/agent/sessions/{session_id}", None),
        ("POST", "/agent/chat", {"message": "hi", "sessionId": session_id}),
        ("POST", "/agent/stream", {"message": "hi", "sessionId": session_id}),
    ):
        answer = await call(client, method, route, json=body, headers=auth)
        assert answer.status_code == 503, (route, answer.status_code, answer.text)
        assert error_code(answer) == "store_unavailable"
        assert int(answer.headers["retry-after"]) > 0

    dynamo_proxy.set_mode("forward")
    again = await call(
        client, "POST", "/agent/chat", json={"message": "hi", "sessionId": session_id}, headers=auth
    )
    assert again.status_code == 200, again.text
    events = (await call(client, "GET", f"/agent/sessions/{session_id}/events", headers=auth)).json()[
        "events"
    ]
    sequences = [e["sequence_number"] for e in events]
    assert sequences == list(range(1, len(sequences) + 1)), "no event lost or duplicated"
    assert sum(e["event_type"] == "user_message" for e in events) == 2


# --- Postgres stopped and restarted ---------------------------------------------------------------


@pytest.fixture
def own_postgres(tmp_path: Path) -> Iterator[PgHandle]:
    """A cluster of this test's own, so stopping it leaves the session's shared one alone."""
    handle = start_postgres(tmp_path / "pgdata", durable=False)
    try:
        apply_migrations(handle.url)
        yield handle
    finally:
        handle.stop()


async def test_postgres_stopped_is_a_503_within_the_pool_wait_and_served_again_after_restart(
    own_postgres: PgHandle, aws_settings: Settings, session_store: DynamoSessionStore, tmp_path: Path
) -> None:
    db = Database(own_postgres.url, max_size=2)
    await db.open()
    user = str(uuid.uuid4())
    async with db.transaction() as conn:
        await profiles.ensure_user(conn, user)
    container = await build_container(
        aws_settings, store=session_store, db=db, publisher=RecordingPublisher()
    )
    auth = {"Authorization": f"Bearer {mint_dev_token(aws_settings.jwt_secret.get_secret_value(), user)}"}
    app = create_app(container)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            assert (await call(client, "GET", "/user-settings", headers=auth)).status_code == 200
            own_postgres.stop()
            for method, route, body in (
                ("GET", "/user-settings", None),
                ("PUT", "/user-settings", {"weight_unit": "lbs"}),
                ("GET", "/exercises/history", None),
            ):
                answer = await call(client, method, route, json=body, headers=auth)
                assert answer.status_code == 503, (route, answer.status_code, answer.text)
                assert error_code(answer) == "database_unavailable"
                assert int(answer.headers["retry-after"]) > 0

            start_postgres(own_postgres.data_dir, own_postgres.port, durable=False)
            changed = await call(client, "PUT", "/user-settings", json={"weight_unit": "lbs"}, headers=auth)
            assert changed.status_code == 200, changed.text
            assert changed.json()["settings"]["weight_unit"] == "lbs"
    finally:
        await app.state.container_provider.turns.wait(30)
        await container.aclose()
        await db.close()


async def test_a_database_down_at_start_does_not_stop_the_process(own_postgres: PgHandle) -> None:
    """The pool opens without its first connection and serves once the server is there."""
    own_postgres.stop()
    db = Database(own_postgres.url, max_size=1, timeout=0.5)
    await db.open()
    try:
        assert await db.ping() is False
        start_postgres(own_postgres.data_dir, own_postgres.port, durable=False)
        assert await db.ping() is True, "served as soon as the server is back"
    finally:
        await db.close()
