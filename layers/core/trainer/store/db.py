"""Postgres access: one async connection pool per process (psycopg 3)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from psycopg import AsyncConnection, OperationalError
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from trainer.store.ports import DatabaseUnavailable


class Database:
    """Hands out pooled connections; `transaction()` commits on success and rolls back on error."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 10) -> None:
        self.url = url
        self._pool = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            open=False,
            kwargs={"row_factory": dict_row, "autocommit": True},
        )

    async def open(self) -> None:
        await self._pool.open(wait=True)

    async def close(self) -> None:
        await self._pool.close()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection]:
        """A pooled connection; an unreachable server is DatabaseUnavailable."""
        try:
            async with self._pool.connection() as conn:
                yield conn
        except (PoolTimeout, OperationalError) as exc:
            raise DatabaseUnavailable("the database is not reachable") from exc

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        async with self.connection() as conn, conn.transaction():
            yield conn

    async def ping(self) -> bool:
        try:
            async with self.connection() as conn:
                await conn.execute("SELECT 1")
            return True
        except Exception:
            return False
