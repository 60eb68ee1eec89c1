"""The data export (docs/api.md#account-deletion-and-data-export) on the real stores: every user table's rows
(the list read from the schema, the same one the deletion erases) and every session with its state and events
appear in `GET /me/export`, as the documented `AccountExport` schema says, and nothing of another user; the
document is streamed in bounded chunks."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from fastapi import FastAPI
from trainer.api.me_schemas import AccountExport
from trainer.services.account import EXPORT_CHUNK_BYTES
from trainer.services.rows import plain
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.repositories import accounts
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.testing.account_world import (
    POSTGRES_SEEDERS,
    log_history,
    populate_dynamodb,
    populate_postgres,
)

from tests.integration.services.test_account_deletion import CONFIRM, bearer

NOW = datetime.now(UTC).replace(microsecond=0)


async def rows_by_table(db: Database, user: str) -> dict[str, list[dict[str, Any]]]:
    """The user's rows of every user table, as the export writes them (plain JSON values)."""
    async with db.connection() as conn:
        found: dict[str, list[dict[str, Any]]] = {}
        for table in await accounts.user_tables(conn):
            cur = await conn.execute(f'SELECT * FROM "{table.name}" WHERE "{table.column}" = %s', (user,))
            found[table.name] = [json.loads(json.dumps(plain(row))) for row in await cur.fetchall()]
    return found


def canonical(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


async def test_every_table_and_session_of_the_user_is_in_the_export_and_nothing_of_another(
    client: httpx.AsyncClient,
    aws_settings: Settings,
    session_store: DynamoSessionStore,
    db: Database,
    make_user: Callable[..., str],
) -> None:
    alice, bob = make_user(), make_user()
    worlds = {}
    for user in (alice, bob):
        await populate_postgres(db, user, now=NOW)
        worlds[user] = await populate_dynamodb(aws_settings, session_store.table, user)

    response = await client.get("/me/export", headers=bearer(aws_settings, alice))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["content-disposition"].startswith("attachment")
    document = response.json()
    export = AccountExport.model_validate(document)  # the documented schema is what is sent
    assert list(document)[-1] == "complete" and export.complete is True
    assert export.user_id == alice

    expected = await rows_by_table(db, alice)
    assert set(export.tables) == set(expected) == set(POSTGRES_SEEDERS)
    for table, rows in expected.items():
        assert rows, f"the world gave Alice no {table} rows"
        assert canonical(export.tables[table]) == canonical(rows), table
    exported_text = json.dumps(document)
    assert bob not in exported_text and not any(s in exported_text for s in worlds[bob].sessions)

    exported = {s.session.id: s for s in export.sessions}
    assert set(exported) == set(worlds[alice].sessions)
    for session_id in worlds[alice].sessions:
        stored = session_store.table.read_events(session_id).events
        assert [e.model_dump(mode="json") for e in exported[session_id].events] == [
            e.model_dump(mode="json") for e in stored
        ]
    first = exported[worlds[alice].sessions[0]]
    assert first.state == {"current_workout": {"title": "Push day", "exercises": [{"name": "Dips"}]}}
    assert len(first.events[-1].data["result"]["rows"]) == 60_000, "a payload kept in BLOB parts, whole"
    assert {item.key.split("#")[0] for item in export.user_items} == {"DAY", "RATE"}


async def stream_sizes(app: FastAPI, path: str, headers: dict[str, str]) -> tuple[int, list[int]]:
    """Calls the ASGI app directly (httpx's ASGI transport collects the whole body first): the status
    and the size of each body message, the bodies themselves dropped as they come."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("api.test", 80),
    }
    status: list[int] = []
    sizes: list[int] = []
    requested = False
    finished = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        elif message["type"] == "http.response.body":
            if message.get("body"):
                sizes.append(len(message["body"]))
            if not message.get("more_body"):
                finished.set()

    await app(scope, receive, send)
    return status[0], sizes


async def test_the_export_streams_in_bounded_chunks_with_flat_memory(
    app: FastAPI, aws_settings: Settings, db: Database, make_user: Callable[..., str]
) -> None:
    """One and two years of history: the document leaves in chunks of about EXPORT_CHUNK_BYTES, and the
    most the export holds at once does not grow with the history: twice the document, the same peak.
    (The peak itself is mostly moto's, which serves DynamoDB from this process: bench/bench_account.py
    measures the export alone.)"""
    measured: dict[int, tuple[int, list[int]]] = {}
    await stream_sizes(app, "/me/export", bearer(aws_settings, make_user()))  # imports and caches warmed
    for days in (365, 730):
        user = make_user()
        await log_history(db, user, now=NOW, days=days)
        tracemalloc.start()
        try:
            status, sizes = await stream_sizes(app, "/me/export", bearer(aws_settings, user))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert status == 200
        measured[days] = (peak, sizes)
    (one_peak, one_sizes), (two_peak, two_sizes) = measured[365], measured[730]
    assert sum(two_sizes) > 1.8 * sum(one_sizes) > 20 * EXPORT_CHUNK_BYTES
    assert len(two_sizes) > 20 and max(two_sizes) < 2 * EXPORT_CHUNK_BYTES
    added = sum(two_sizes) - sum(one_sizes)
    assert two_peak - one_peak < added / 4, f"peak {one_peak} -> {two_peak} bytes, document +{added}"


async def test_a_deleted_account_has_nothing_to_export(
    client: httpx.AsyncClient, aws_settings: Settings, make_user: Callable[..., str]
) -> None:
    user = make_user()
    assert (
        await client.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, user))
    ).status_code == 204
    refused = await client.get("/me/export", headers=bearer(aws_settings, user))
    assert (refused.status_code, refused.json()["error"]["code"]) == (401, "account_deleted")


async def test_a_user_with_nothing_yet_exports_an_empty_document(
    client: httpx.AsyncClient, aws_settings: Settings
) -> None:
    user = str(uuid.uuid4())
    document = (await client.get("/me/export", headers=bearer(aws_settings, user))).json()
    export = AccountExport.model_validate(document)
    assert all(rows == [] for rows in export.tables.values()) and export.sessions == []
