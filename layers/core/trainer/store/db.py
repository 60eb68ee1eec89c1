"""Postgres access: one async connection pool per process (psycopg 3).

Every connection is pooler-safe: `prepare_threshold=None` (no server-side prepared statement outlives
its transaction) and autocommit (no session state kept between transactions), so the URL may name
PgBouncer in transaction mode or RDS Proxy as well as Postgres itself.
"""

from __future__ import annotations

import asyncio
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

CONNECT_TIMEOUT_S = 2
"""libpq's connect_timeout: an unreachable server fails a connection attempt within it."""
TCP_USER_TIMEOUT_MS = 4000
"""libpq's tcp_user_timeout: a connection whose sent data stays unacknowledged this long (a cut network
path, a host that vanished) is closed by the kernel instead of waiting for TCP's own minutes."""
POOL_WAIT_S = 3.0
"""How long a request waits for a pooled connection: with Postgres down, a request is answered 503
within it instead of after psycopg_pool's 30 s default (API Gateway gives up at 29 s)."""
FAIL_FAST: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S, "tcp_user_timeout": TCP_USER_TIMEOUT_MS}

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


async def _check_connection(conn: AsyncConnection[Any]) -> None:
    """psycopg_pool's check on checkout (an empty query; a connection a restarted server dropped is
    replaced before a request uses it), on a plain cursor so it is not counted as a statement."""
    await AsyncCursor(conn).execute("")


SERVER_GONE_STATES = frozenset({"57P01", "57P02", "57P03"})
"""admin_shutdown, crash_shutdown, cannot_connect_now: the server is stopping or starting."""


def conn_lost(error: OperationalError) -> bool:
    """The connection or the server went away (no SQLSTATE, class 08, a shutdown), not a statement
    that failed on a live server (a statement timeout, a deadlock, a lock not available)."""
    state = error.sqlstate
    return state is None or state.startswith("08") or state in SERVER_GONE_STATES


class Database:
    """Hands out pooled connections; `transaction()` commits on success and rolls back on error.

    A request holds at most one connection at a time, so a pool of one per Lambda instance (the
    deployed default, TRAINER_DB_POOL_MAX) serves it."""

    def __init__(
        self, url: str, *, min_size: int = 1, max_size: int = 10, timeout: float = POOL_WAIT_S
    ) -> None:
        self.url = url
        self.min_size = min(min_size, max_size)
        self.max_size = max_size
        self.timeout = timeout
        self.stats = DatabaseStats()
        self._pool = self._new_pool()
        self._failing = False
        """A checkout failed: until a direct probe reaches the server, requests probe instead of
        waiting on the pool (whose reconnection backs off for minutes after a long outage)."""
        self._swap = asyncio.Lock()
        self._retired: set[asyncio.Task[None]] = set()

    def _new_pool(self) -> AsyncConnectionPool[_Connection]:
        return AsyncConnectionPool(
            self.url,
            connection_class=_Connection,
            min_size=self.min_size,
            max_size=self.max_size,
            timeout=self.timeout,
            open=False,
            configure=self._configure,
            check=_check_connection,
            kwargs={**POOLER_SAFE, **FAIL_FAST, "row_factory": dict_row, "cursor_factory": _CountingCursor},
        )

    async def _configure(self, conn: _Connection) -> None:
        conn.stats = self.stats

    async def open(self) -> None:
        """Opens the pool and waits for its first connection; a server that is down now does not stop
        the process from starting: each request that finds no server is DatabaseUnavailable (503)
        until it is back."""
        try:
            await self._pool.open(wait=True, timeout=self.timeout)
        except PoolTimeout:
            logger.warning("the database is not reachable yet; requests are refused until it is")
            self._failing = True

    async def close(self) -> None:
        await self._pool.close()
        if self._retired:
            await asyncio.gather(*self._retired, return_exceptions=True)

    async def _recover(self) -> None:
        """While the server was unreachable: one direct connection attempt. Refused (or no answer
        within the connect timeout) is DatabaseUnavailable at once; success means the server is back,
        and a fresh pool replaces the one whose reconnection attempts may be backing off."""
        async with self._swap:
            if not self._failing:
                return
            try:
                probe = await AsyncConnection.connect(self.url, **POOLER_SAFE, **FAIL_FAST)
            except OperationalError as exc:
                raise DatabaseUnavailable("the database is not reachable") from exc
            await probe.close()
            retired, self._pool = self._pool, self._new_pool()
            await self._pool.open(wait=False)
            self._failing = False
            task = asyncio.create_task(retired.close(), name="retire-db-pool")
            self._retired.add(task)
            task.add_done_callback(self._retired.discard)
            logger.info("the database is reachable again")

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection[Any]]:
        """A pooled connection; an unreachable server is DatabaseUnavailable."""
        held = _HELD.get()
        if id(self) in held:
            self.stats.nested += 1
            logger.warning("a second connection was requested while one is held (pool of %d)", self.max_size)
        if self._failing:
            await self._recover()
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
        except PoolTimeout as exc:
            self._failing = True
            raise DatabaseUnavailable("the database is not reachable") from exc
        except OperationalError as exc:
            if conn_lost(exc):
                self._failing = True
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
