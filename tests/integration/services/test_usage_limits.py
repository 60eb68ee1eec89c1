"""Budgets and rate limits that hold under concurrency (docs/api.md#daily-budget-and-request-rates), on
DynamoDB (moto) and embedded Postgres over HTTP: each turn, plan and import reserves its place with one
conditional write before any model call, and every authenticated route has a per-user request rate."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import datetime

import httpx
import pytest
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.services.usage_limits import Rate
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.metrics import DailyMetricsStore
from trainer.store.sessions import DynamoSessionStore
from trainer.store.usage import DynamoUsageLedger

PASTED = "Bench press 4x8 @ 60kg\nGoblet squat 3 sets of 12 @ 20kg\n"


@pytest.fixture
async def limited(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database
) -> AsyncIterator[tuple[httpx.AsyncClient, Container]]:
    settings = aws_settings.model_copy(update={"daily_turn_limit": 3, "daily_plan_limit": 1})
    container = await build_container(settings, store=session_store, db=db, publisher=None)
    app = create_app(container)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=120
    ) as client:
        yield client, container
    await app.state.container_provider.turns.wait(30)
    await container.aclose()


def bearer(settings: Settings, user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user)}"}


async def model_runs(db: Database, user: str) -> int:
    async with db.connection() as conn:
        cur = await conn.execute("SELECT count(*) AS n FROM agent_invocations WHERE user_id = %s", (user,))
        row = await cur.fetchone()
    return int(row["n"]) if row else 0


async def test_twelve_simultaneous_turns_at_a_limit_of_three_run_exactly_three(
    limited: tuple[httpx.AsyncClient, Container],
    aws_settings: Settings,
    make_user: Callable[..., str],
    session_store: DynamoSessionStore,
) -> None:
    client, container = limited
    assert container.limits is not None
    container.limits.rates = {}
    user = make_user()
    headers = bearer(aws_settings, user)
    answers = await asyncio.gather(
        *(client.post("/agent/chat", json={"message": f"hi {i}"}, headers=headers) for i in range(12))
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses.count(200) == 3, [a.text for a in answers if a.status_code != 429]
    refused = [a for a in answers if a.status_code == 429]
    assert len(refused) == 9
    assert {a.json()["error"]["code"] for a in refused} == {"budget_exceeded"}
    assert all(int(a.headers["retry-after"]) > 0 for a in refused)
    messages = 0
    for session in await session_store.list_sessions(user, 20):
        page = await session_store.read_events(session.id, 0, 500, None)
        messages += sum(e.event_type == "user_message" for e in page.events)
    assert messages == 3, "nine turns never started"


async def test_a_user_over_budget_starts_no_plan_no_import_and_no_turn(
    limited: tuple[httpx.AsyncClient, Container],
    aws_settings: Settings,
    make_user: Callable[..., str],
    db: Database,
    session_store: DynamoSessionStore,
    frozen_now: datetime,
) -> None:
    client, _ = limited
    user = make_user()
    headers = bearer(aws_settings, user)
    DailyMetricsStore(aws_settings, client=session_store.table.client).add(
        user, frozen_now.date(), cost_cents=aws_settings.daily_cost_limit_cents
    )
    for route, body in (
        ("/plans", {"weeks": 4}),
        ("/workouts/import", {"text": PASTED}),
        ("/agent/chat", {"message": "one more"}),
    ):
        answer = await client.post(route, json=body, headers=headers)
        assert answer.status_code == 429, (route, answer.text)
        assert answer.json()["error"]["code"] == "budget_exceeded"
        assert int(answer.headers["retry-after"]) > 0
    assert await model_runs(db, user) == 0
    assert await session_store.list_sessions(user, 5) == []
    assert (await client.get("/plans", headers=headers)).json()["plans"] == []


async def test_plans_have_a_daily_count_and_a_plan_joined_by_a_retry_costs_nothing(
    limited: tuple[httpx.AsyncClient, Container], aws_settings: Settings, make_user: Callable[..., str]
) -> None:
    """Limit 1: the first plan is accepted (and queued on the bus), the next request is refused."""
    client, _ = limited
    user = make_user()
    headers = bearer(aws_settings, user)
    first = await client.post("/plans", json={"weeks": 4}, headers=headers)
    assert first.status_code == 202, first.text
    second = await client.post("/plans", json={"weeks": 6}, headers=headers)
    assert second.status_code == 429 and second.json()["error"]["code"] == "budget_exceeded"


async def test_requests_faster_than_the_rate_are_429_with_retry_after(
    limited: tuple[httpx.AsyncClient, Container], aws_settings: Settings, make_user: Callable[..., str]
) -> None:
    client, container = limited
    assert container.limits is not None
    now = [1_000_000.0]
    container.limits.epoch_clock = lambda: now[0]
    container.limits.rates = {"read": Rate(per_minute=60, burst=3)}
    headers = bearer(aws_settings, make_user())
    statuses = [(await client.get("/agent/sessions", headers=headers)).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited_answer = await client.get("/agent/sessions", headers=headers)
    assert limited_answer.json()["error"]["code"] == "rate_limited"
    assert int(limited_answer.headers["retry-after"]) == 1
    now[0] += 1.0
    assert (await client.get("/agent/sessions", headers=headers)).status_code == 200
    other = bearer(aws_settings, make_user())
    assert (await client.get("/agent/sessions", headers=other)).status_code == 200, "per user"


async def test_the_rate_window_is_one_number_per_user_and_bucket(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    """GCRA on DynamoDB: a burst of `burst`, then one per interval; concurrent takes never exceed it."""
    ledger = DynamoUsageLedger(aws_settings, client=session_store.table.client)
    now = 2_000_000.0
    waits = await asyncio.gather(*(ledger.take("u1", "model", now, 3.0, 5) for _ in range(8)))
    assert sum(1 for w in waits if w == 0) == 5
    assert min(w for w in waits if w > 0) == pytest.approx(3.0)
    assert await ledger.take("u1", "model", now + 3.0, 3.0, 5) == 0
    assert await ledger.take("u1", "model", now + 3.0, 3.0, 5) > 0


async def test_a_users_requests_in_quick_succession_cost_one_write_each(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    """The ledger tries first the write it last saw pass for the bucket (idle, then busy), and still
    keeps the rate: the burst passes, the next is refused, an idle bucket later passes again. Each write
    is one transaction (the update and the account's tombstone check)."""
    ledger = DynamoUsageLedger(aws_settings, client=session_store.table.client)
    writes: list[str] = []
    session_store.table.client.meta.events.register(
        "before-call.dynamodb.TransactWriteItems",
        lambda **_: writes.append("TransactWriteItems"),
        unique_id="count-writes",
    )
    now = 3_000_000.0
    waits = [await ledger.take("u2", "model", now + 0.1 * n, 3.0, 3) for n in range(4)]
    assert waits[:3] == [0, 0, 0] and waits[3] > 0
    assert len(writes) == 1 + 1 + 1 + 2, "idle, busy, busy, then both refused"
    writes.clear()
    assert await ledger.take("u2", "model", now + 60, 3.0, 3) == 0, "idle again a minute later"
    assert len(writes) == 1, "the last pass is more than an interval ago: the idle write first"
    writes.clear()
    assert await ledger.take("u2", "model", now + 60.5, 3.0, 3) == 0
    assert len(writes) == 1, "the busy write first"
    other = DynamoUsageLedger(aws_settings, client=session_store.table.client)
    writes.clear()
    assert await other.take("u2", "model", now + 61, 3.0, 3) == 0
    assert len(writes) == 2, "another process guesses idle, is refused, then passes busy"


async def test_a_named_session_is_read_beside_the_reservation_and_neither_outlives_a_refusal(
    limited: tuple[httpx.AsyncClient, Container],
    aws_settings: Settings,
    make_user: Callable[..., str],
    session_store: DynamoSessionStore,
) -> None:
    """With a session id, the turn reads the session while it reserves its place: an unknown session is
    a 404 that gives the reservation back, and a refused reservation leaves the session's lease free."""
    client, container = limited
    assert container.limits is not None
    container.limits.rates = {}
    user = make_user()
    headers = bearer(aws_settings, user)
    first = await client.post("/agent/chat", json={"message": "hi"}, headers=headers)
    assert first.status_code == 200, first.text
    session_id = first.json()["sessionId"]
    for _ in range(3):
        unknown = await client.post(
            "/agent/chat", json={"message": "hi", "sessionId": "no-such-session"}, headers=headers
        )
        assert unknown.status_code == 404, unknown.text
    second = await client.post(
        "/agent/chat", json={"message": "again", "sessionId": session_id}, headers=headers
    )
    assert second.status_code == 200, "the 404s gave their reservations back: " + second.text
    third = await client.post(
        "/agent/chat", json={"message": "more", "sessionId": session_id}, headers=headers
    )
    assert third.status_code == 200, third.text
    refused = await client.post(
        "/agent/chat", json={"message": "over", "sessionId": session_id}, headers=headers
    )
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "budget_exceeded"
    assert await session_store.acquire_lease(session_id, "turn-after", 30) is None, "the lease is free"
