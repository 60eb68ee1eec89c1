"""Workouts counted in the user's time zone, through the repositories on embedded Postgres: the
statistics tools and the /exercises/history route group logged exercises into logged workouts, else
local calendar days, and name weeks by their local Monday ("week of 5 Jan"), never as ISO weeks.

A New York user (UTC-5 in January), worked out by hand:

| # | New York            | UTC             | ids              | workout         |
|---|---------------------|-----------------|------------------|-----------------|
| 1 | Mon 5 Jan 18:00     | 5 Jan 23:00     | session s1       | A: day 5 Jan    |
| 2 | Mon 5 Jan 23:30     | 6 Jan 04:30     | session s1       | A               |
| 3 | Wed 7 Jan 07:00     | 7 Jan 12:00     | session s1       | B: day 7 Jan    |
| 4 | Wed 7 Jan 18:00     | 7 Jan 23:00     | s2 / workout_1   | C               |
| 5 | Wed 7 Jan 20:00     | 8 Jan 01:00     | s2 / workout_2   | D               |
| 6 | Sun 11 Jan 23:30    | 12 Jan 04:30    | session s1       | E: day 11 Jan   |

5 workouts, all in the week of 5 Jan (grouped by session, as before: 3, over two ISO weeks).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from trainer.api.auth import mint_dev_token
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.repositories.history import log_exercises
from trainer.tools.analytics import GetProgressTrends, GetWorkoutStatistics
from trainer.tools.base import ToolContext
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 1, 14, 17, 0, tzinfo=UTC)


def entry(utc: str, session: str, workout: str | None = None) -> dict[str, Any]:
    return {
        "exercise_name": "Goblet Squat",
        "exercise_type": "reps",
        "sets": 2,
        "reps": [10, 10],
        "load_each": [20, 20],
        "load_unit": "kg",
        "muscles": [{"muscle": "Quadriceps", "share": 1.0}],
        "goals": [{"goal": "Strength", "share": 1.0}],
        "performed_at": utc,
        "session_id": session,
        "workout_id": workout,
    }


ENTRIES = [
    entry("2026-01-05T23:00:00Z", "s1"),
    entry("2026-01-06T04:30:00Z", "s1"),
    entry("2026-01-07T12:00:00Z", "s1"),
    entry("2026-01-07T23:00:00Z", "s2", "workout_1"),
    entry("2026-01-08T01:00:00Z", "s2", "workout_2"),
    entry("2026-01-12T04:30:00Z", "s1"),
]


@pytest.fixture
async def new_yorker(db: Database, make_user: Callable[..., str]) -> str:
    user = make_user(timezone="America/New_York")
    async with db.transaction() as conn:
        await log_exercises(conn, user, ENTRIES, now=NOW)
    return user


def context(db: Database, user: str) -> ToolContext:
    store = InMemorySessionStore()
    return ToolContext(
        user_id=user, session_id=store.new_session(user).id, store=store, db=db, now=lambda: NOW
    )


async def test_statistics_count_local_days_and_logged_workouts(db: Database, new_yorker: str) -> None:
    tool = GetWorkoutStatistics()
    result = await tool.execute(
        tool.Args(start_date="2026-01-01", end_date="2026-01-31"), context(db, new_yorker)
    )
    assert (result.stats.total_workouts, result.stats.total_exercises) == (5, 6)
    assert result.stats.start == datetime(2026, 1, 1, 5, 0, tzinfo=UTC)  # local midnight
    assert result.weekly_hard_sets == {date(2026, 1, 5): {"Quadriceps": 12.0}}
    text = tool.format(result)
    assert text.startswith("2026-01-01..2026-01-31: 5 workouts (1.13/week)")
    assert "  week of 5 Jan: Quadriceps 12" in text and "-W0" not in text

    week = await tool.execute(tool.Args(time_period="week"), context(db, new_yorker))
    # the last 7 New York days: 8-14 Jan, from 8 Jan 00:00 (05:00 UTC): only #6
    assert (week.stats.total_workouts, week.stats.total_exercises) == (1, 1)


async def test_frequency_trend_buckets_local_weeks(db: Database, new_yorker: str) -> None:
    tool = GetProgressTrends()
    result = await tool.execute(tool.Args(metric="frequency", time_period="month"), context(db, new_yorker))
    assert [(p.week_start, p.value) for p in result.trends.series] == [(date(2026, 1, 5), 5.0)]
    assert tool.format(result).endswith("\n  week of 5 Jan: 5")


async def test_history_route_groups_entries_into_workouts(
    client: httpx.AsyncClient, aws_settings: Settings, new_yorker: str
) -> None:
    token = mint_dev_token(aws_settings.jwt_secret.get_secret_value(), new_yorker)
    headers = {"Authorization": f"Bearer {token}"}
    response = await client.get("/exercises/history?days_back=3650", headers=headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["workoutCount"] == 5
    entries = sorted(body["exercises"], key=lambda e: e["performed_at"])
    assert [e["local_date"] for e in entries] == [
        "2026-01-05", "2026-01-05", "2026-01-07", "2026-01-07", "2026-01-07", "2026-01-11",
    ]  # fmt: skip
    keys = [e["workout_key"] for e in entries]
    assert keys[0] == keys[1] and len(set(keys)) == 5
