"""Embedded Postgres fixtures: one server per test session (per xdist worker), migrations applied.

`pg_server` (session) - a fresh cluster on 127.0.0.1, stopped at the end.
`pgbouncer` (session) - PgBouncer in transaction mode in front of it (started on first use, stopped at
                        the end).
`pg_url` (session)    - URL of the cluster, migrations applied. tests/integration overrides it with the
                        PgBouncer's URL (its conftest), unless `--direct-postgres` is given.
`db` (function)       - an opened trainer.store.db.Database on it; a test fails if it ever asked for a
                        second connection while holding one (a Lambda instance's pool holds one).
`make_user`           - factory: make_user(weight_unit="kg", distance_unit="km", ...) -> new user id (str),
                        with users + user_settings rows.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import psycopg
import pytest
from trainer.store.db import Database
from trainer.store.migrate import apply_migrations
from trainer_dev.local.pgbouncer import PgBouncerHandle, start_pgbouncer
from trainer_dev.local.postgres import PgHandle, start_postgres

DIRECT_OPTION = "--direct-postgres"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        DIRECT_OPTION,
        action="store_true",
        help="the integration tests connect to the embedded Postgres directly, not through PgBouncer",
    )


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgHandle]:
    handle = start_postgres(tmp_path_factory.mktemp("pg") / "data", durable=False)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture(scope="session")
def pgbouncer(pg_server: PgHandle, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgBouncerHandle]:
    bouncer = start_pgbouncer(pg_server.url, tmp_path_factory.mktemp("pgbouncer"))
    try:
        yield bouncer
    finally:
        bouncer.stop()


@pytest.fixture(scope="session")
def pg_url(pg_server: PgHandle) -> str:
    apply_migrations(pg_server.url)
    return pg_server.url


@pytest.fixture
async def db(pg_url: str) -> AsyncIterator[Database]:
    database = Database(pg_url, min_size=1, max_size=8)
    await database.open()
    try:
        yield database
    finally:
        await database.close()
    assert database.stats.nested == 0, "a second connection was asked for while one was held"


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
