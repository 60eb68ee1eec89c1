"""Embedded Postgres fixtures: one server per test session (per xdist worker), migrations applied.

`pg_url` (session) - URL of a fresh cluster on 127.0.0.1, stopped at the end.
`db` (function)   - an opened trainer.store.db.Database on it.
`make_user`       - factory: make_user(weight_unit="kg", distance_unit="km", ...) -> new user id (str),
                    with users + user_settings rows.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import psycopg
import pytest
from trainer.local.postgres import start_postgres
from trainer.store.db import Database
from trainer.store.migrate import apply_migrations


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    handle = start_postgres(tmp_path_factory.mktemp("pg") / "data", durable=False)
    try:
        apply_migrations(handle.url)
        yield handle.url
    finally:
        handle.stop()


@pytest.fixture
async def db(pg_url: str) -> AsyncIterator[Database]:
    database = Database(pg_url, min_size=1, max_size=8)
    await database.open()
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
def make_user(pg_url: str) -> Callable[..., str]:
    def make(
        *,
        display_name: str = "Test User",
        weight_unit: str = "kg",
        distance_unit: str = "km",
        timezone: str = "UTC",
    ) -> str:
        user_id = str(uuid.uuid4())
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("INSERT INTO users (id, display_name) VALUES (%s, %s)", (user_id, display_name))
            conn.execute(
                "INSERT INTO user_settings (user_id, weight_unit, distance_unit, timezone)"
                " VALUES (%s, %s, %s, %s)",
                (user_id, weight_unit, distance_unit, timezone),
            )
        return user_id

    return make
