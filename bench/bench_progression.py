"""The progression_targets source stays flat as history grows: a user with two years of history (~5,000
logged exercises) against one with 30 days, timed side by side (best of 41 alternated runs, aim <= 1.5x).
The read is bounded: the newest entries of each exercise within the last 90 days (one window query on
the (user_id, performed_at) index), so two years cost what 90 days cost. For contrast, the same targets
computed from an unbounded read of all the user's history.

`python -m bench progression`
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from functools import partial
from typing import Any

from trainer.domain.loading import LoadSteps
from trainer.domain.progression import established_range, exercise_histories, progression_targets
from trainer.sources.registry import fetch_sources
from trainer.store.repositories import history
from trainer_dev.local.seed import seed_demo_user

from bench.bench_sources import NOW, CountingDatabase, _entries, _paired_ms
from bench.postgres import on_fresh_postgres

AIM = 1.5


async def _measure(url: str) -> list[str]:
    db = CountingDatabase(url)
    await db.open()
    lines: list[str] = []
    try:
        small, large = str(uuid.uuid4()), str(uuid.uuid4())
        for user_id, days in ((small, 30), (large, 730)):
            await seed_demo_user(db, user_id, now=NOW)
            async with db.transaction() as conn:
                await history.log_exercises(conn, user_id, _entries(days), now=NOW)
        async with db.connection() as conn:
            await conn.execute("ANALYZE")
            counts = {}
            for user_id in (small, large):
                cur = await conn.execute(
                    "SELECT count(*) AS n FROM workout_history WHERE user_id = %s", (user_id,)
                )
                counts[user_id] = (await cur.fetchone())["n"]
            read = {}
            for user_id in (small, large):
                rows = await history.recent_loaded_by_exercise(conn, user_id, now=NOW)
                read[user_id] = len(rows)
        lines.append(
            f"history rows: 30-day user {counts[small]}, 2-year user {counts[large]}; "
            f"rows the source reads: {read[small]} / {read[large]}"
        )

        async def source(user_id: str) -> Any:
            [result] = await fetch_sources(db, user_id, [("progression_targets", None)], now=NOW)
            assert result.error is None, result.error
            return result

        for user_id in (small, large):
            await source(user_id)
        before = db.statements[0]
        targets = (await source(large)).data["targets"]
        statements = db.statements[0] - before
        small_ms, large_ms = await _paired_ms(partial(source, small), partial(source, large))
        ratio = large_ms / small_ms
        lines.append(f"{'':<34}{'30d ms':>8}{'2y ms':>8}{'ratio':>7}")
        lines.append(
            f"{'progression_targets (bounded)':<34}{small_ms:>8.2f}{large_ms:>8.2f}{ratio:>6.2f}x"
            f"   {statements} SQL statements, {len(targets)} targets"
        )

        async def unbounded(user_id: str) -> Any:
            async with db.connection() as conn:
                rows = await history.list_between(conn, user_id, None, NOW + timedelta(days=1))
            return progression_targets(
                exercise_histories(rows, "kg"), LoadSteps.for_unit("kg"), established_range
            )

        all_small, all_large = await _paired_ms(partial(unbounded, small), partial(unbounded, large))
        label = "all history read (contrast)"
        lines.append(f"{label:<34}{all_small:>8.2f}{all_large:>8.2f}{all_large / all_small:>6.2f}x")
        async with db.connection() as conn:
            cur = await conn.execute(
                "EXPLAIN SELECT * FROM workout_history WHERE user_id = %s AND performed_at >= %s"
                " AND exercise_type = 'reps' AND load_each IS NOT NULL",
                (large, NOW - timedelta(days=90)),
            )
            plan = await cur.fetchall()
        steps = [r["QUERY PLAN"].strip().removeprefix("->  ") for r in plan]
        access = next((p for p in steps if "Index" in p), next((p for p in steps if "Scan" in p), "?"))
        lines.append(f"window read plan: {access.split('  (')[0]}")
        verdict = "PASS" if ratio <= AIM else "FAIL"
        lines.append(f"ratio {ratio:.2f}x (aim <= {AIM}x): {verdict}")
    finally:
        await db.close()
    return lines


def run() -> list[str]:
    return on_fresh_postgres(_measure)
