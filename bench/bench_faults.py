"""Faults and abuse: how fast a store outage is answered and recovered from, /health while
the worst pasted workout is read, and budgets under concurrency. The API runs in-process (httpx's ASGI
transport) on moto and an embedded Postgres of its own; DynamoDB is cut through a loopback TCP proxy.

- Postgres stopped: time to the 503 of `GET /user-settings` and of a turn (aim <= 5 s); Postgres
  restarted: time to the first successful request and turn.
- DynamoDB refused / never answering: time to the 503 of `GET /agent/sessions` and of a turn (aim
  <= 5 s); link restored: time to the first successful turn.
- /health latency (max of polls every 50 ms) while the worst import of 20,000 characters is parsed
  (aim <= 1 s), beside the import's own time.
- 12 simultaneous turns for one user at a daily limit of 3: turns accepted (aim: exactly 3).
- A user over the daily cost budget asks for a turn, a plan and an import: model calls made (aim 0).

`python -m bench faults`
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.metrics import DailyMetricsStore
from trainer.store.migrate import apply_migrations
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.postgres import PgHandle, start_postgres
from trainer_dev.testing.agent_harness import RecordingPublisher
from trainer_dev.testing.tcp_proxy import tcp_proxy

from bench.moto import moto_tables

POLL_S = 0.05


async def _timed(call: Awaitable[httpx.Response]) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = await call
    return time.perf_counter() - started, response


async def _until_ok(send: Callable[[], Awaitable[httpx.Response]], limit_s: float = 120.0) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < limit_s:
        if (await send()).status_code == 200:
            return time.perf_counter() - started
        await asyncio.sleep(POLL_S)
    raise RuntimeError("no successful answer")


def _headers(settings: Settings, user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user)}"}


async def _api(settings: Settings, db: Database) -> tuple[Container, httpx.AsyncClient]:
    container = await build_container(
        settings, store=DynamoSessionStore(settings), db=db, publisher=RecordingPublisher()
    )
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(container)), base_url="http://bench", timeout=120
    )
    return container, client


async def _postgres_outage(settings: Settings, pg: PgHandle) -> list[str]:
    db = Database(pg.url, max_size=2)
    await db.open()
    container, client = await _api(settings, db)
    user = str(uuid.uuid4())
    headers = _headers(settings, user)
    try:
        assert (await client.get("/user-settings", headers=headers)).status_code == 200
        pg.stop()
        read_s, read = await _timed(client.get("/user-settings", headers=headers))
        turn_s, turn = await _timed(client.post("/agent/chat", json={"message": "hi"}, headers=headers))
        start_postgres(pg.data_dir, pg.port, durable=False)
        back_read = await _until_ok(lambda: client.get("/user-settings", headers=headers))
        back_turn = await _until_ok(
            lambda: client.post("/agent/chat", json={"message": "hi"}, headers=headers)
        )
    finally:
        await client.aclose()
        await container.aclose()
        await db.close()
    return [
        f"Postgres stopped: GET /user-settings {read.status_code} in {read_s * 1000:.0f} ms, "
        f"a turn {turn.status_code} in {turn_s * 1000:.0f} ms (aim <= 5000 ms)",
        f"Postgres restarted: first successful request after {back_read * 1000:.0f} ms, "
        f"first successful turn {back_turn * 1000:.0f} ms later",
    ]


async def _dynamodb_outage(settings: Settings, db: Database) -> list[str]:
    endpoint = str(settings.aws_endpoint_url).removeprefix("http://")
    host, port = endpoint.split(":")
    lines: list[str] = []
    with tcp_proxy(host, int(port)) as proxy:
        proxied = settings.model_copy(update={"aws_endpoint_url": f"http://{proxy.address}"})
        container, client = await _api(proxied, db)
        headers = _headers(settings, str(uuid.uuid4()))
        try:
            first = await client.post("/agent/chat", json={"message": "hi"}, headers=headers)
            session_id = first.json()["sessionId"]
            body = {"message": "hi", "sessionId": session_id}
            for mode in ("refuse", "blackhole"):
                proxy.set_mode(mode)
                list_s, listed = await _timed(client.get("/agent/sessions", headers=headers))
                turn_s, turn = await _timed(client.post("/agent/chat", json=body, headers=headers))
                proxy.set_mode("forward")
                back = await _until_ok(lambda: client.post("/agent/chat", json=body, headers=headers))
                lines.append(
                    f"DynamoDB {mode}: GET /agent/sessions {listed.status_code} in {list_s * 1000:.0f} ms, "
                    f"a turn {turn.status_code} in {turn_s * 1000:.0f} ms (aim <= 5000 ms); link restored: "
                    f"first successful turn on the same session after {back * 1000:.0f} ms"
                )
        finally:
            await client.aclose()
            await container.aclose()
    return lines


def _worst_import() -> str:
    """Lines of random words: every line is read as an exercise name and matched against the catalog."""
    rng = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    lines = []
    while sum(len(line) + 1 for line in lines) < 19_800:
        words = ["".join(rng.choice(alphabet) for _ in range(4)) for _ in range(39)]
        lines.append(" ".join(words)[:239])
    return "\n".join(lines)[:20_000]


async def _health_during_import(settings: Settings, db: Database) -> list[str]:
    container, client = await _api(settings.model_copy(update={"rate_limits_enabled": False}), db)
    headers = _headers(settings, str(uuid.uuid4()))
    latencies: list[float] = []
    try:
        started = time.perf_counter()
        task = asyncio.create_task(
            client.post("/workouts/import", json={"text": _worst_import()}, headers=headers)
        )
        while not task.done():
            took, _ = await _timed(client.get("/health"))
            latencies.append(took)
            await asyncio.sleep(POLL_S)
        answer = await task
        import_s = time.perf_counter() - started
    finally:
        await client.aclose()
        await container.aclose()
    return [
        f"/health while the worst import is read: max {max(latencies) * 1000:.0f} ms over "
        f"{len(latencies)} polls (aim <= 1000 ms); the import answered {answer.status_code} "
        f"in {import_s * 1000:.0f} ms"
    ]


async def _budgets(settings: Settings, db: Database) -> list[str]:
    limited = settings.model_copy(update={"daily_turn_limit": 3, "rate_limits_enabled": False})
    container, client = await _api(limited, db)
    try:
        user = str(uuid.uuid4())
        answers = await asyncio.gather(
            *(
                client.post("/agent/chat", json={"message": f"hi {i}"}, headers=_headers(settings, user))
                for i in range(12)
            )
        )
        accepted = sum(a.status_code == 200 for a in answers)
        broke = str(uuid.uuid4())
        DailyMetricsStore(settings).add(
            broke, datetime.now(UTC).date(), cost_cents=settings.daily_cost_limit_cents
        )
        statuses = []
        for route, body in (
            ("/agent/chat", {"message": "one more"}),
            ("/plans", {"weeks": 4}),
            ("/workouts/import", {"text": "Bench press 4x8 @ 60kg"}),
        ):
            statuses.append(
                (await client.post(route, json=body, headers=_headers(settings, broke))).status_code
            )
        async with db.connection() as conn:
            cur = await conn.execute(
                "SELECT count(*) AS n FROM agent_invocations WHERE user_id = %s", (broke,)
            )
            row = await cur.fetchone()
        sessions = await DynamoSessionStore(settings).list_sessions(broke, 5)
        model_calls = int(row["n"] if row else 0) + len(sessions)
    finally:
        await client.aclose()
        await container.aclose()
    return [
        f"12 simultaneous turns at a daily limit of 3: {accepted} accepted (aim: exactly 3), "
        f"{sum(a.status_code == 429 for a in answers)} answered 429",
        f"a user over the cost budget: turn/plan/import answered {statuses}; "
        f"model calls made: {model_calls} (aim 0)",
    ]


async def _measure(settings: Settings, pg: PgHandle) -> list[str]:
    lines: list[str] = []
    lines += await _postgres_outage(settings, pg)
    db = Database(pg.url, max_size=4)
    await db.open()
    try:
        lines += await _dynamodb_outage(settings, db)
        lines += await _health_during_import(settings, db)
        lines += await _budgets(settings, db)
    finally:
        await db.close()
    return lines


def run() -> list[str]:
    async def main() -> list[str]:
        async with moto_tables() as settings:
            handle = await asyncio.to_thread(
                start_postgres, Path(tempfile.mkdtemp(prefix="bench-faults-")) / "data", None, durable=False
            )
            try:
                await asyncio.to_thread(apply_migrations, handle.url)
                return await _measure(settings, handle)
            finally:
                await asyncio.to_thread(handle.stop)

    result: list[str] = asyncio.run(main())
    return result
