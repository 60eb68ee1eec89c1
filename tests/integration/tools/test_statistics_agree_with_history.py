"""'The last N days' in the statistics tool are exactly what GET /exercises/history?days_back=N lists
(they once disagreed: "last month" said 0 workouts while the history route showed 7): the same start, the same
workout grouping, whatever the user's time zone and the time of day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from trainer.store.db import Database
from trainer.store.repositories.history import log_exercises
from trainer.tools.analytics import GetWorkoutStatistics
from trainer.tools.base import ToolContext
from trainer_dev.testing.memory_store import InMemorySessionStore

SQUAT = {
    "exercise_name": "Barbell Squat",
    "exercise_type": "reps",
    "reps": [5, 5, 5],
    "load_each": [100] * 3,
    "muscles": [{"muscle": "Quadriceps", "share": 1.0}],
    "goals": [{"goal": "Strength", "share": 1.0}],
}


@pytest.mark.parametrize("days_back", [7, 30, 45])
async def test_statistics_for_the_last_n_days_agree_with_the_history_route(
    client: httpx.AsyncClient, auth: dict[str, str], user: str, db: Database, days_back: int
) -> None:
    now = datetime.now(UTC)
    offsets = [
        timedelta(days=60), timedelta(days=31), timedelta(days=30, hours=1), timedelta(days=29, hours=23),
        timedelta(days=29, hours=20), timedelta(days=20), timedelta(days=20, minutes=5),
        timedelta(days=7, hours=1), timedelta(days=6, hours=23), timedelta(days=6, hours=20),
        timedelta(days=1), timedelta(hours=1),
    ]  # fmt: skip
    entries = [{**SQUAT, "performed_at": (now - o).isoformat()} for o in offsets]
    entries[6]["workout_id"], entries[6]["session_id"] = "w1", "s1"
    await client.put("/user-settings", json={"timezone": "Pacific/Auckland"}, headers=auth)
    async with db.connection() as conn:
        await log_exercises(conn, user, entries)

    history = (await client.get(f"/exercises/history?days_back={days_back}&limit=500", headers=auth)).json()
    store = InMemorySessionStore()
    ctx = ToolContext(user_id=user, session_id=store.new_session(user).id, store=store, db=db)
    tool = GetWorkoutStatistics()
    result = await tool.execute(tool.Args.model_validate({"days_back": days_back}), ctx)

    assert result.days_back == days_back
    assert result.stats.total_exercises == len(history["exercises"]) > 0
    assert result.stats.total_workouts == history["workoutCount"]
