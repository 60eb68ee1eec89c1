"""Through PgBouncer in transaction mode (reset after every transaction, so nothing of a session
survives it): the app's connections, repeated statements and concurrent migration runners work; the
fixture's PgBouncer stops and frees its port."""

from __future__ import annotations

import socket
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from trainer.store.db import Database
from trainer.store.migrate import apply_migrations, load_migrations
from trainer_dev.local.pgbouncer import PgBouncerHandle, start_pgbouncer
from trainer_dev.local.postgres import PgHandle


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _fresh_database(pg_server: PgHandle, bouncer: PgBouncerHandle) -> str:
    name = f"pool_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    return bouncer.url.rsplit("/", 1)[0] + f"/{name}"


def test_session_state_does_not_survive_a_transaction(pgbouncer: PgBouncerHandle) -> None:
    """The harness is strict: what would break behind a shared pooler breaks here every time."""
    with psycopg.connect(pgbouncer.url, autocommit=True) as conn:
        conn.execute("SET work_mem = '7MB'")
        assert conn.execute("SHOW work_mem").fetchone() != ("7MB",)
    with (
        psycopg.connect(pgbouncer.url, autocommit=True) as conn,
        pytest.raises(psycopg.errors.InvalidSqlStatementName),
    ):
        for number in range(10):
            conn.execute("SELECT %s::int", (number,))


async def test_the_app_repeats_statements_on_one_connection(pgbouncer: PgBouncerHandle, pg_url: str) -> None:
    database = Database(pgbouncer.url, max_size=1)
    await database.open()
    try:
        async with database.connection() as conn:
            for number in range(20):
                cur = await conn.execute("SELECT %s::int AS n", (number,))
                assert await cur.fetchone() == {"n": number}
        for _ in range(3):
            async with database.transaction() as conn:
                await conn.execute("SELECT count(*) FROM users")
    finally:
        await database.close()


def test_concurrent_migration_runners_apply_each_file_once(
    pg_server: PgHandle, pgbouncer: PgBouncerHandle
) -> None:
    url = _fresh_database(pg_server, pgbouncer)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(apply_migrations, [url] * 4))
    assert sorted(name for result in results for name in result) == sorted(m.name for m in load_migrations())
    assert apply_migrations(url) == []


def test_pgbouncer_stops_and_frees_its_port(pg_server: PgHandle, tmp_path: Path) -> None:
    bouncer = start_pgbouncer(pg_server.url, tmp_path / "bouncer")
    with psycopg.connect(bouncer.url, autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert bouncer.running and _listening(bouncer.port)
    bouncer.stop()
    bouncer.stop()
    assert not bouncer.running
    assert not _listening(bouncer.port)
