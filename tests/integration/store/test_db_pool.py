"""One connection per Lambda instance: a request never holds two at once, so a pool of one serves the
data sources, the `<user_data>` block and whole turns through the API; the pool size comes from the
settings (one when deployed); the counters a load test reads (statements, checkouts, peak held)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import build_container
from trainer.services.user_data import UserData
from trainer.settings import Settings
from trainer.sources.registry import SOURCE_NAMES, SOURCES, DataSource, build_user_data_xml, fetch_sources
from trainer.store.db import Database
from trainer.store.ports import DatabaseUnavailable
from trainer.store.repositories import goals
from trainer.store.request_counts import counting
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.seed import seed_demo_user
from trainer_dev.testing.agent_harness import RecordingPublisher

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
TURNS = [
    ("Give me a quick chest workout", "generate_workout"),
    ("Swap the first exercise", "swap_exercise"),
    ("I finished the workout", "log_workout"),
    ("Set my goals to 60% strength and 40% cardio", "set_goals"),
    ("Show me my goals", "fetch_data"),
    ("Show me my stats for this month", "get_workout_statistics"),
]


async def _current_workout() -> dict[str, Any]:
    return {"title": "Push", "exercises": [{"exercise_name": "Bench", "exercise_type": "reps", "sets": 3}]}


@pytest.fixture
async def one(pg_url: str) -> AsyncIterator[Database]:
    """A pool of one, as in a Lambda instance; a second checkout would fail within a second."""
    database = Database(pg_url, max_size=1, timeout=1.0)
    await database.open()
    try:
        yield database
    finally:
        await database.close()
    assert database.stats.nested == 0


@pytest.fixture
async def user(one: Database) -> str:
    user_id = str(uuid.uuid4())
    await seed_demo_user(one, user_id, now=NOW)
    return user_id


async def test_every_source_at_once_takes_one_connection(one: Database, user: str) -> None:
    one.stats.reset()
    results = await fetch_sources(
        one, user, [(name, None) for name in SOURCE_NAMES], now=NOW, current_workout=_current_workout
    )
    assert [r.error for r in results] == [None] * len(SOURCE_NAMES)
    assert (one.stats.checkouts, one.stats.peak_in_use) == (1, 1)
    assert one.stats.queries >= len(SOURCE_NAMES)


async def test_a_source_whose_query_fails_leaves_the_shared_connection_usable(
    one: Database, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def negative_limit(data: UserData, params: Any, ctx: Any) -> Any:
        return await data.history.recent(limit=-1)  # Postgres refuses: LIMIT must not be negative

    monkeypatch.setitem(SOURCES, "broken", DataSource("broken", "Broken", "fails", negative_limit, str))
    results = await fetch_sources(
        one, user, [("broken", None), ("no_such_source", None), ("user_settings", None)]
    )
    assert [r.error is None for r in results] == [False, False, True]
    assert "Weight unit: kg" in results[2].formatted


class Unreachable(Database):
    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        raise DatabaseUnavailable("the database is not reachable")
        yield


async def test_an_unreachable_database_fails_only_the_sources_that_read_it() -> None:
    results = await fetch_sources(
        Unreachable("postgresql://127.0.0.1:1/none"),
        str(uuid.uuid4()),
        [("user_settings", None), ("current_workout_session", None)],
        current_workout=_current_workout,
    )
    assert [r.error for r in results] == ["could not load user settings", None]


async def test_sources_that_need_no_database_take_no_connection(one: Database, user: str) -> None:
    one.stats.reset()
    [result] = await fetch_sources(
        one, user, [("current_workout_session", None)], current_workout=_current_workout
    )
    assert result.error is None
    assert one.stats.checkouts == 0


async def test_user_data_takes_one_connection(one: Database, user: str) -> None:
    one.stats.reset()
    xml = await build_user_data_xml(one, user)
    assert "Home Gym" in xml
    # profile, settings, locations and the active preferences (injuries: what the profile still lacks)
    assert (one.stats.checkouts, one.stats.peak_in_use, one.stats.queries) == (1, 1, 4)


async def test_turns_through_the_api_complete_on_a_pool_of_one(
    aws_settings: Settings, session_store: DynamoSessionStore, one: Database, user: str
) -> None:
    """The offline model composes workouts from the database, the tools read and write it, the context
    loads user data and sources: every turn completes while the pool holds a single connection."""
    container = await build_container(
        aws_settings, store=session_store, db=one, publisher=RecordingPublisher()
    )
    app = create_app(container)
    token = mint_dev_token(aws_settings.jwt_secret.get_secret_value(), user)
    session_id: str | None = None
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://api.test",
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        ) as http:
            for message, tool in TURNS:
                one.stats.reset()
                body: dict[str, Any] = {
                    "message": message,
                    **({"sessionId": session_id} if session_id else {}),
                }
                reply = await http.post("/agent/chat", json=body)
                assert reply.status_code == 200, reply.text
                turn = reply.json()
                session_id = turn["sessionId"]
                results = [a["result"] for a in turn["actions"] if a["tool"] == tool]
                assert results and results[0].get("success") is True, (message, turn["actions"])
                assert one.stats.peak_in_use == 1
                assert one.stats.queries > 0
    finally:
        await app.state.container_provider.turns.wait(30)
        await container.aclose()


async def test_a_nested_checkout_is_counted_and_fails_fast_on_a_pool_of_one(pg_url: str) -> None:
    database = Database(pg_url, max_size=1, timeout=0.2)
    await database.open()
    try:
        async with database.connection():
            with pytest.raises(DatabaseUnavailable):
                async with database.connection():
                    pass
        assert database.stats.nested == 1
    finally:
        await database.close()


async def test_counters_count_statements_batches_and_checkouts(db: Database, make_user: Any) -> None:
    user_id = make_user()
    db.stats.reset()
    async with db.transaction() as conn:
        await conn.execute("SELECT 1")
        await goals.set_category_goals(
            conn,
            user_id,
            [{"category": "Strength", "percentage": 50}, {"category": "Cardio", "percentage": 50}],
        )
    async with db.connection() as conn:
        cur = conn.cursor()
        await cur.execute("SELECT 2")
    assert db.stats.checkouts == 2
    assert db.stats.in_use == 0
    assert db.stats.queries >= 3
    before = db.stats.queries
    async with db.connection() as conn:
        await conn.cursor().executemany("SELECT %s", [(1,), (2,), (3,)])
    assert db.stats.queries == before + 1


async def test_statements_count_in_the_unit_of_work_that_sent_them(db: Database) -> None:
    with counting() as counts:
        async with db.connection() as conn:
            await conn.execute("SELECT 1")
            await conn.cursor().executemany("SELECT %s", [(1,), (2,)])
    async with db.connection() as conn:
        await conn.execute("SELECT 2")
    assert counts.sql == 2


async def test_connections_prepare_nothing(db: Database) -> None:
    async with db.connection() as conn:
        assert conn.prepare_threshold is None
        assert conn.autocommit is True


@pytest.mark.parametrize(
    ("variables", "expected"),
    [({}, 10), ({"AWS_LAMBDA_FUNCTION_NAME": "trainer-api"}, 1), ({"TRAINER_DB_POOL_MAX": "3"}, 3)],
)
async def test_the_container_sizes_its_pool_from_the_settings(
    aws_settings: Settings,
    session_store: DynamoSessionStore,
    pg_url: str,
    variables: dict[str, str],
    expected: int,
) -> None:
    settings = Settings(**{**aws_settings.model_dump(by_alias=True), "DATABASE_URL": pg_url, **variables})
    container = await build_container(settings, store=session_store, publisher=RecordingPublisher())
    try:
        assert container.db is not None
        assert container.db.max_size == expected
        assert await container.db.ping()
    finally:
        await container.aclose()
