"""Postgres access: one async connection pool per process (psycopg 3).

Every connection is pooler-safe: `prepare_threshold=None` (no server-side prepared statement outlives
its transaction) and autocommit (no session state kept between transactions), so the URL may name
PgBouncer in transaction mode or RDS Proxy as well as Postgres itself.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Self, cast

from psycopg import AsyncConnection, AsyncCursor, OperationalError
from psycopg.abc import Params, Query
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from trainer.store.ports import DatabaseUnavailable
from trainer.store.request_counts import count_sql_statement

logger = logging.getLogger(__name__)

POOLER_SAFE: dict[str, Any] = {"autocommit": True, "prepare_threshold": None}
"""Connection options that work through a transaction-mode pooler (psycopg `connect` keywords)."""

_HELD: ContextVar[frozenset[int]] = ContextVar("trainer_db_held", default=frozenset())


@dataclass
class DatabaseStats:
    """Counters a load test reads around a turn: statements sent, connections checked out, and how
    many were held at once. `nested` counts checkouts made while the same task (or one it spawned)
    already held a connection of this database: with a pool of one, each would wait forever."""

    queries: int = 0
    checkouts: int = 0
    in_use: int = 0
    peak_in_use: int = 0
    nested: int = 0

    def reset(self) -> None:
        self.queries = self.checkouts = self.nested = 0
        self.peak_in_use = self.in_use


class _Connection(AsyncConnection[DictRow]):
    stats: DatabaseStats | None = None


class _CountingCursor(AsyncCursor[DictRow]):
    """Counts each statement (an `executemany` batch is one) on its connection's stats and in the
    current unit of work's tally (trainer.store.request_counts)."""

    def _count(self) -> None:
        connection = self.connection
        if isinstance(connection, _Connection) and connection.stats is not None:
            connection.stats.queries += 1
        count_sql_statement()

    async def execute(
        self,
        query: Query,
        params: Params | None = None,
        *,
        prepare: bool | None = None,
        binary: bool | None = None,
    ) -> Self:
        self._count()
        parent: Any = super()
        return cast(Self, await parent.execute(query, params, prepare=prepare, binary=binary))

    async def executemany(
        self, query: Query, params_seq: Iterable[Params], *, returning: bool = False
    ) -> None:
        self._count()
        await super().executemany(query, params_seq, returning=returning)


class Database:
    """Hands out pooled connections; `transaction()` commits on success and rolls back on error.

    A request holds at most one connection at a time, so a pool of one per Lambda instance (the
    deployed default, TRAINER_DB_POOL_MAX) serves it."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 10, timeout: float = 30.0) -> None:
        self.url = url
        self.max_size = max_size
        self.stats = DatabaseStats()
        self._pool = AsyncConnectionPool(
            url,
            connection_class=_Connection,
            min_size=min(min_size, max_size),
            max_size=max_size,
            timeout=timeout,
            open=False,
            configure=self._configure,
            kwargs={**POOLER_SAFE, "row_factory": dict_row, "cursor_factory": _CountingCursor},
        )

    async def _configure(self, conn: _Connection) -> None:
        conn.stats = self.stats

    async def open(self) -> None:
        await self._pool.open(wait=True)

    async def close(self) -> None:
        await self._pool.close()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection[Any]]:
        """A pooled connection; an unreachable server is DatabaseUnavailable."""
        held = _HELD.get()
        if id(self) in held:
            self.stats.nested += 1
            logger.warning("a second connection was requested while one is held (pool of %d)", self.max_size)
        try:
            async with self._pool.connection() as conn:
                stats = self.stats
                stats.checkouts += 1
                stats.in_use += 1
                stats.peak_in_use = max(stats.peak_in_use, stats.in_use)
                token = _HELD.set(held | {id(self)})
                try:
                    yield conn
                finally:
                    _HELD.reset(token)
                    stats.in_use -= 1
        except (PoolTimeout, OperationalError) as exc:
            raise DatabaseUnavailable("the database is not reachable") from exc

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection[Any]]:
        async with self.connection() as conn, conn.transaction():
            yield conn

    async def ping(self) -> bool:
        try:
            async with self.connection() as conn:
                await conn.execute("SELECT 1")
            return True
        except Exception:
            return False
