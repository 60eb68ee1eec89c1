"""Account deletion and export for a heavy user (docs/api.md#account-deletion-and-data-export): two years of
history (four workouts a week, six exercises each), a plan, goals, locations, and 200 chat sessions of five
turns each, on embedded Postgres and moto. Prints the export's size, time and peak memory (tracemalloc, the
export only: moto serves DynamoDB from a process of its own) next to a user with half the history and
sessions, then the deletion's time, phases and DynamoDB requests, and a repeated deletion's. (The export's
peak is that of its largest single item besides: one 1 MB tool result adds about 5 MB while it is written.)

moto answers one request at a time, a few milliseconds each; DynamoDB takes 5-10 ms per BatchWriteItem
but runs the deletion's DELETE_WORKERS at once, so the DynamoDB part is faster there than here.
"""

from __future__ import annotations

import asyncio
import time
import tracemalloc
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trainer.services.account import DELETION_BUDGET_S, AccountService
from trainer.settings import Settings
from trainer.store.account_records import DynamoAccountRecords
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionTable
from trainer_dev.testing.account_world import populate_dynamodb, populate_postgres

from bench.moto import moto_in_a_process
from bench.postgres import on_fresh_postgres

TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"
HEAVY = {"history_days": 730, "sessions": 200, "turns_per_session": 5}
HALF = {"history_days": 365, "sessions": 100, "turns_per_session": 5}


async def _user(
    db: Database, settings: Settings, *, history_days: int, sessions: int, turns_per_session: int
) -> str:
    user = str(uuid.uuid4())
    await populate_postgres(db, user, now=datetime.now(UTC), history_days=history_days)
    table = DynamoSessionTable(settings)
    await populate_dynamodb(
        settings, table, user, sessions=sessions, turns_per_session=turns_per_session, large_payload=False
    )
    return user


async def _rows(db: Database, user: str) -> int:
    async with db.connection() as conn:
        cur = await conn.execute("SELECT count(*) AS n FROM workout_history WHERE user_id = %s", (user,))
        row = await cur.fetchone()
    return int(row["n"]) if row else 0


async def _export(service: AccountService, user: str) -> tuple[int, int, float, int]:
    """(bytes, chunks, seconds, peak traced bytes) of an export, its chunks dropped as they come: timed
    once, then traced once (tracemalloc slows everything down)."""
    size = chunks = 0
    started = time.perf_counter()
    async for chunk in service.export(user):
        size += len(chunk)
        chunks += 1
    seconds = time.perf_counter() - started
    tracemalloc.start()
    try:
        async for _ in service.export(user):
            pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return size, chunks, seconds, peak


def _measure(database_url: str, settings: Settings) -> Any:
    async def measure(_: str) -> list[str]:
        from trainer_dev.local.moto_server import create_resources

        await asyncio.to_thread(create_resources, settings, TEMPLATE)
        db = Database(database_url, max_size=4)
        await db.open()
        lines: list[str] = []
        try:
            started = time.perf_counter()
            heavy = await _user(db, settings, **HEAVY)
            half = await _user(db, settings, **HALF)
            seeded = time.perf_counter() - started
            lines.append(
                f"seeded in {seeded:.0f}s: {await _rows(db, heavy):,} history rows and "
                f"{HEAVY['sessions']} sessions ({HEAVY['turns_per_session']} turns each); half: "
                f"{await _rows(db, half):,} rows, {HALF['sessions']} sessions"
            )
            records = DynamoAccountRecords(settings)
            requests = {"n": 0}
            records.table._client.meta.events.register(
                "before-call.dynamodb", lambda **_: requests.__setitem__("n", requests["n"] + 1)
            )
            service = AccountService(db, records)
            for label, user in (("half", half), ("2 years", heavy)):
                requests["n"] = 0
                size, chunks, seconds, peak = await _export(service, user)
                lines.append(
                    f"export {label}: {size / 1e6:.2f} MB in {chunks} chunks, {seconds:.2f}s, "
                    f"{requests['n'] // 2:,} DynamoDB requests; peak traced memory {peak / 1e3:,.0f} KB"
                )
            requests["n"] = 0
            started = time.perf_counter()
            reports = [await service.delete(heavy)]
            while not reports[-1].complete:  # each a `DELETE /me` of its own (202, then again)
                reports.append(await service.delete(heavy))
            seconds = time.perf_counter() - started
            rows = {
                table: sum(r.postgres_rows.get(table, 0) for r in reports)
                for table in reports[0].postgres_rows
            }
            lines.append(
                f"delete 2 years + {HEAVY['sessions']} sessions: {seconds:.2f}s in {len(reports)} request(s) "
                f"of the {DELETION_BUDGET_S:.0f} s budget, {sum(rows.values()):,} Postgres rows in "
                f"{sum(1 for n in rows.values() if n)} tables, {sum(r.dynamodb_items for r in reports):,} "
                f"DynamoDB items over {requests['n']:,} DynamoDB requests"
            )
            for report in reports:
                lines.append("  phases (ms): " + ", ".join(f"{k} {v:,}" for k, v in report.phase_ms.items()))
            started = time.perf_counter()
            again = await service.delete(heavy)
            lines.append(
                f"delete again: {(time.perf_counter() - started) * 1000:.0f} ms "
                f"(already_complete={again.already_complete})"
            )
        finally:
            await db.close()
        return lines

    return measure


def run() -> list[str]:
    with moto_in_a_process() as settings:

        def with_url(url: str) -> Any:
            return _measure(url, settings)(url)

        return on_fresh_postgres(with_url)
