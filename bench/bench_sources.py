"""Data sources stay flat as history grows: a user with two years of history (~5,000 logged exercises)
against one with 30 days, same goals/locations/preferences/schedule. Reports per-source latency
ratio (best of 41 alternated runs, 2y / 30d, target <= 2x), SQL round trips per source, and the
statistics range reads.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from trainer.sources.registry import SOURCE_NAMES, fetch_sources
from trainer.store.db import Database
from trainer.store.repositories import history
from trainer_dev.local.seed import _SESSIONS, seed_demo_user

from bench.postgres import on_fresh_postgres

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
PER_DAY = 7
RUNS = 41
LIMIT = 2.0


class _CountingConnection:
    """Delegates to a psycopg connection, counting statements sent (one round trip each)."""

    def __init__(self, conn: Any, counter: list[int]) -> None:
        self._conn = conn
        self._counter = counter

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        self._counter[0] += 1
        return await self._conn.execute(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class CountingDatabase(Database):
    def __init__(self, url: str) -> None:
        super().__init__(url, min_size=4, max_size=16)
        self.statements = [0]

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        async with super().connection() as conn:
            yield _CountingConnection(conn, self.statements)


def _entries(days: int) -> list[dict[str, Any]]:
    flat = [exercise for session in _SESSIONS for exercise in session]
    entries = []
    for day in range(days, 0, -1):
        start = (NOW - timedelta(days=day)).replace(hour=17, minute=0)
        for k in range(PER_DAY):
            entries.append({**flat[(day + k) % len(flat)], "performed_at": start + timedelta(minutes=8 * k)})
    return entries


async def _paired_ms(
    small: Callable[[], Awaitable[Any]], large: Callable[[], Awaitable[Any]]
) -> tuple[float, float]:
    """Best-of-RUNS latency of each (the least load-sensitive estimate of the work done), sampled
    alternately so drift hits both sides alike."""
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(3):
        await small()
        await large()
    for run in range(RUNS):
        order = ((0, small), (1, large)) if run % 2 == 0 else ((1, large), (0, small))
        for side, call in order:
            started = time.perf_counter()
            await call()
            samples[side].append((time.perf_counter() - started) * 1000)
    return min(samples[0]), min(samples[1])


async def _measure(url: str) -> list[str]:
    db = CountingDatabase(url)
    await db.open()
    lines: list[str] = []
    try:
        small, large = str(uuid.uuid4()), str(uuid.uuid4())
        for user_id in (small, large):
            await seed_demo_user(db, user_id, now=NOW)
        async with db.transaction() as conn:
            await history.log_exercises(conn, small, _entries(30), now=NOW)
        large_entries = _entries(730)
        started = time.perf_counter()
        async with db.transaction() as conn:
            await history.log_exercises(conn, large, large_entries, now=NOW)
        insert_s = time.perf_counter() - started
        async with db.connection() as conn:
            await conn.execute("ANALYZE")
            counts = {}
            for user_id in (small, large):
                cur = await conn.execute(
                    "SELECT count(*) AS n FROM workout_history WHERE user_id = %s", (user_id,)
                )
                counts[user_id] = (await cur.fetchone())["n"]
        lines.append(
            f"history rows: 30-day user {counts[small]}, 2-year user {counts[large]} "
            f"(bulk insert of {len(large_entries)} with distribution tracking: {insert_s:.2f}s)"
        )

        async def provider() -> dict[str, Any]:
            return {
                "title": "Push",
                "exercises": [{"exercise_name": "Bench", "exercise_type": "reps", "sets": 3}],
            }

        worst = 0.0
        lines.append(f"{'source':<26}{'30d ms':>8}{'2y ms':>8}{'ratio':>7}{'SQL':>5}")
        for name in SOURCE_NAMES:

            def fetch(user_id: str, source: str = name) -> Awaitable[Any]:
                return fetch_sources(db, user_id, [(source, None)], now=NOW, current_workout=provider)

            for user_id in (small, large):
                [result] = await fetch(user_id)
                assert result.error is None, (name, result.error)
            before = db.statements[0]
            await fetch(large)
            round_trips = db.statements[0] - before
            small_ms, large_ms = await _paired_ms(partial(fetch, small), partial(fetch, large))
            ratio = large_ms / small_ms
            worst = max(worst, ratio)
            lines.append(f"{name:<26}{small_ms:>8.2f}{large_ms:>8.2f}{ratio:>6.2f}x{round_trips:>5}")

        everything = [(n, None) for n in SOURCE_NAMES]
        small_ms, large_ms = await _paired_ms(
            lambda: fetch_sources(db, small, everything, now=NOW, current_workout=provider),
            lambda: fetch_sources(db, large, everything, now=NOW, current_workout=provider),
        )
        worst = max(worst, large_ms / small_ms)
        lines.append(
            f"{'all 13 concurrently':<26}{small_ms:>8.2f}{large_ms:>8.2f}{large_ms / small_ms:>6.2f}x"
        )

        for days in (7, 30):

            async def range_read(user_id: str, window: int = days) -> Any:
                async with db.connection() as conn:
                    return await history.list_between(conn, user_id, NOW - timedelta(days=window), NOW)

            small_ms, large_ms = await _paired_ms(partial(range_read, small), partial(range_read, large))
            worst = max(worst, large_ms / small_ms)
            label = f"stats range read {days}d"
            lines.append(f"{label:<26}{small_ms:>8.2f}{large_ms:>8.2f}{large_ms / small_ms:>6.2f}x{1:>5}")

        async with db.connection() as conn:
            cur = await conn.execute(
                "EXPLAIN SELECT id FROM workout_history WHERE user_id = %s AND performed_at >= %s"
                " ORDER BY performed_at DESC LIMIT 15",
                (large, NOW - timedelta(days=14)),
            )
            plan = await cur.fetchall()
        access = next((r["QUERY PLAN"].strip() for r in plan if "Scan" in r["QUERY PLAN"]), "?")
        lines.append(f"recent-history plan: {access.split('  (')[0]}")
        verdict = "PASS" if worst <= LIMIT else "FAIL"
        lines.append(f"worst ratio {worst:.2f}x (limit {LIMIT:.0f}x): {verdict}")
    finally:
        await db.close()
    return lines


def run() -> list[str]:
    return on_fresh_postgres(_measure)
