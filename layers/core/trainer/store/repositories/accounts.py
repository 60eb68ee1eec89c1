"""A whole account in Postgres: which tables hold a user's rows (read from the schema, so a table added by
a later migration is covered without code), erasing them under a tombstone, and reading them for an export.

A user table is one with a foreign key to `users` or a `user_id` column (and `users` itself, by `id`). The
tombstone (`deleted_accounts`, migration 0009) is keyed by `account_digest(user_id)` (trainer.store.
account_keys), never the id. A trigger refuses a `users` row for a digest there (SQLSTATE TR001), and every
other row needs one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from trainer.store.account_keys import account_digest
from trainer.store.ports import AccountDeleted
from trainer.store.repositories import Conn, UserId

LOCK_CLASS = 1953653102
"""The advisory lock class of account rows ('trai'); the object is hashtext(user id)."""
ACCOUNT_DELETED_STATE = "TR001"
"""The SQLSTATE the users trigger raises for a deleted account."""
EXPORT_BATCH_ROWS = 100
"""Rows one FETCH of an export's server-side cursor brings."""


def is_account_deleted_error(error: BaseException) -> bool:
    return isinstance(error, psycopg.Error) and error.sqlstate == ACCOUNT_DELETED_STATE


@dataclass(frozen=True)
class UserTable:
    """A table holding users' rows: `column` names the user; `key` orders its rows."""

    name: str
    column: str
    key: tuple[str, ...]


async def user_tables(conn: Conn) -> list[UserTable]:
    """Every table of the schema holding users' rows, referencing tables before the tables they reference
    (so deleting in this order satisfies every foreign key); `users` is last."""
    cur = await conn.execute(
        "SELECT t.relname,"
        " coalesce("
        "   (SELECT a.attname FROM pg_constraint c JOIN pg_attribute a"
        "      ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]"
        "    WHERE c.conrelid = t.oid AND c.contype = 'f' AND c.confrelid = 'users'::regclass"
        "      AND cardinality(c.conkey) = 1 ORDER BY a.attnum LIMIT 1),"
        "   (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attname = 'user_id'"
        "      AND NOT a.attisdropped),"
        "   CASE WHEN t.oid = 'users'::regclass THEN 'id' END) AS column_name,"
        " (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM pg_index i"
        "    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)"
        "    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
        "  WHERE i.indrelid = t.oid AND i.indisprimary) AS key_columns"
        " FROM pg_class t WHERE t.relnamespace = current_schema()::regnamespace AND t.relkind IN ('r', 'p')"
        "   AND NOT t.relispartition"
    )
    rows = [r for r in await cur.fetchall() if r["column_name"] is not None]
    tables = {
        r["relname"]: UserTable(r["relname"], r["column_name"], tuple(r["key_columns"] or [r["column_name"]]))
        for r in rows
    }
    cur = await conn.execute(
        "SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint c"
        " JOIN pg_class child ON child.oid = c.conrelid JOIN pg_class parent ON parent.oid = c.confrelid"
        " WHERE c.contype = 'f' AND child.relnamespace = current_schema()::regnamespace"
    )
    edges = [(r["child"], r["parent"]) for r in await cur.fetchall()]
    return _children_first(tables, edges)


async def global_tables(conn: Conn) -> list[str]:
    """The schema's tables that hold no user's rows (prompts, the migrations' record, the tombstones)."""
    held = {table.name for table in await user_tables(conn)}
    cur = await conn.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
        " AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY relname"
    )
    return [r["relname"] for r in await cur.fetchall() if r["relname"] not in held]


def _children_first(tables: dict[str, UserTable], edges: Iterable[tuple[str, str]]) -> list[UserTable]:
    parents: dict[str, set[str]] = {name: set() for name in tables}
    for child, parent in edges:
        if child in tables and parent in tables and child != parent:
            parents[child].add(parent)
    ordered: list[UserTable] = []
    placed: set[str] = set()
    remaining = sorted(tables)
    while remaining:
        # A table goes once every table that references it is placed; a cycle takes the rest by name.
        ready = [n for n in remaining if all(n not in parents[c] or c in placed for c in remaining if c != n)]
        for name in ready or remaining[:1]:
            ordered.append(tables[name])
            placed.add(name)
        remaining = [n for n in remaining if n not in placed]
    return ordered


async def lock_account(conn: Conn, user_id: UserId) -> None:
    """Serialises with the users trigger until the transaction ends (migration 0009)."""
    await conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_CLASS, str(user_id)))


async def add_tombstone(conn: Conn, user_id: UserId) -> dict[str, Any]:
    """The account's tombstone (created now, or the one already there): {deleted_at, completed_at}."""
    cur = await conn.execute(
        "INSERT INTO deleted_accounts (user_digest) VALUES (%s) ON CONFLICT (user_digest) DO NOTHING"
        " RETURNING deleted_at, completed_at",
        (account_digest(user_id),),
    )
    row = await cur.fetchone()
    return row if row is not None else await _tombstone(conn, user_id)


async def tombstone(conn: Conn, user_id: UserId) -> dict[str, Any] | None:
    """{deleted_at, completed_at} of a deleted account; None for any other."""
    cur = await conn.execute(
        "SELECT deleted_at, completed_at FROM deleted_accounts WHERE user_digest = %s",
        (account_digest(user_id),),
    )
    return await cur.fetchone()


async def _tombstone(conn: Conn, user_id: UserId) -> dict[str, Any]:
    row = await tombstone(conn, user_id)
    assert row is not None
    return row


async def complete_tombstone(conn: Conn, user_id: UserId) -> None:
    """Records that everything outside Postgres was erased too."""
    await conn.execute(
        "UPDATE deleted_accounts SET completed_at = now() WHERE user_digest = %s AND completed_at IS NULL",
        (account_digest(user_id),),
    )


async def erase_rows(conn: Conn, user_id: UserId, tables: list[UserTable]) -> dict[str, int]:
    """Deletes the user's rows of every table, in the order given: rows deleted per table (rows a
    cascade took first count under the table whose delete cascaded)."""
    counts: dict[str, int] = {}
    for table in tables:
        cur = await conn.execute(
            sql.SQL("DELETE FROM {} WHERE {} = %s").format(
                sql.Identifier(table.name), sql.Identifier(table.column)
            ),
            (user_id,),
        )
        counts[table.name] = cur.rowcount
    return counts


async def rows_of(conn: Conn, table: UserTable, user_id: UserId) -> AsyncIterator[dict[str, Any]]:
    """The user's rows of one table in key order, fetched EXPORT_BATCH_ROWS at a time through a
    server-side cursor (the caller holds a transaction open)."""
    query = sql.SQL("SELECT * FROM {} WHERE {} = %s ORDER BY {}").format(
        sql.Identifier(table.name),
        sql.Identifier(table.column),
        sql.SQL(", ").join(sql.Identifier(column) for column in table.key),
    )
    async with conn.cursor(name=f"export_{table.name}") as cur:
        cur.itersize = EXPORT_BATCH_ROWS
        await cur.execute(query, (user_id,))
        async for row in cur:
            yield row


def refuse_if_deleted(error: BaseException) -> None:
    """Raises AccountDeleted for the users trigger's refusal (called from an `except`)."""
    if is_account_deleted_error(error):
        raise AccountDeleted("the account was deleted") from None
