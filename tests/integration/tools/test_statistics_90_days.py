"""Statistics on a seeded 90-day history, through the analytics tool and Postgres, against values
worked out by hand below.

The history: 30 sessions, one every third day (1, 4, ..., 88 days before NOW). Session k (k = 0 oldest
.. 29 newest) is Bench Press 3x5 at 50 + 2.5k kg (RPE 8) and Squat 3x5 at 100 kg (RPE 7)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from trainer.store.db import Database
from trainer.store.repositories.history import log_exercises
from trainer.tools.analytics import GetWorkoutStatistics, WorkoutStatisticsResult
from trainer.tools.base import ToolContext
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
SESSIONS = 30
BENCH_MUSCLES = [
    {"muscle": "Chest", "share": 0.6},
    {"muscle": "Triceps", "share": 0.2},
    {"muscle": "Shoulders", "share": 0.2},
]
SQUAT_MUSCLES = [
    {"muscle": "Quadriceps", "share": 0.6},
    {"muscle": "Glutes", "share": 0.2},
    {"muscle": "Hamstrings", "share": 0.2},
]


def sessions() -> list[dict[str, Any]]:
    rows = []
    for k in range(SESSIONS):
        when = NOW - timedelta(days=88 - 3 * k)
        common = {
            "exercise_type": "reps",
            "sets": 3,
            "reps": [5, 5, 5],
            "load_unit": "kg",
            "workout_id": f"w{k}",
        }
        rows.append(
            {
                **common,
                "exercise_name": "Bench Press",
                "load_each": [50 + 2.5 * k] * 3,
                "rpe": 8,
                "muscles": BENCH_MUSCLES,
                "goals": [{"goal": "Strength", "share": 1.0}],
                "performed_at": when.isoformat(),
            }
        )
        rows.append(
            {
                **common,
                "exercise_name": "Squat",
                "load_each": [100] * 3,
                "rpe": 7,
                "muscles": SQUAT_MUSCLES,
                "goals": [{"goal": "Strength", "share": 1.0}],
                "performed_at": (when + timedelta(minutes=20)).isoformat(),
            }
        )
    return rows


@pytest.fixture
async def seeded_user(db: Database, make_user: Any) -> str:
    user = make_user()
    async with db.transaction() as conn:
        await log_exercises(conn, user, sessions(), now=NOW)
    return user


async def statistics(db: Database, user: str, period: str) -> WorkoutStatisticsResult:
    store = InMemorySessionStore()
    session = store.new_session(user)
    ctx = ToolContext(user_id=user, session_id=session.id, store=store, db=db, now=lambda: NOW)
    tool = GetWorkoutStatistics()
    return await tool.execute(tool.Args.model_validate({"time_period": period}), ctx)


async def test_quarter_statistics_match_the_hand_computed_values(db: Database, seeded_user: str) -> None:
    result = await statistics(db, seeded_user, "quarter")
    overview = result.stats
    assert overview.total_workouts == 30
    assert overview.total_exercises == 60
    assert overview.total_sets == 180
    # bench: sum over k of 15 * (50 + 2.5k) = 15 * (30 * 50 + 2.5 * 435) = 38,812.5
    # squat: 30 sessions * 15 reps * 100 kg = 45,000
    assert overview.total_volume == pytest.approx(83_812.5)
    assert overview.average_rpe == pytest.approx(7.5)  # (30 * 8 + 30 * 7) / 60
    assert overview.workouts_per_week == pytest.approx(2.33, abs=0.005)  # 30 / (90 / 7)

    records = {r.exercise_name: r for r in result.personal_records}
    bench, squat = records["Bench Press"], records["Squat"]
    assert bench.best_load == pytest.approx(122.5)  # 50 + 2.5 * 29
    # the sets were logged at RPE 8 (bench) and 7 (squat): 2 and 3 reps in reserve (RPE = 10 - RIR,
    # Helms et al. 2016), so 5 reps are 7 and 8 reps to failure; the RTS chart: 81.1% and 78.6%
    assert bench.e1rm == pytest.approx(122.5 / 0.811, abs=0.05)  # 151.05
    assert bench.e1rm_set is not None and (bench.e1rm_set.load, bench.e1rm_set.reps) == (122.5, 5)
    assert bench.epley_1rm == pytest.approx(122.5 * (1 + 7 / 30), abs=0.05)  # 151.08
    assert bench.brzycki_1rm == pytest.approx(122.5 * 36 / (37 - 7), abs=0.05)  # 147.0
    assert squat.e1rm == pytest.approx(100 / 0.786, abs=0.05)  # 127.23
    assert squat.epley_1rm == pytest.approx(100 * (1 + 8 / 30), abs=0.05)  # 126.67
    assert squat.brzycki_1rm == pytest.approx(100 * 36 / 29, abs=0.05)  # 124.14

    totals: dict[str, float] = {}
    for week in result.weekly_hard_sets.values():
        for muscle, sets in week.items():
            totals[muscle] = totals.get(muscle, 0.0) + sets
    # every session: 3 sets for each primary muscle, half of that for each 0.2-share secondary
    assert totals == pytest.approx(
        {"Chest": 90, "Triceps": 45, "Shoulders": 45, "Quadriceps": 90, "Glutes": 45, "Hamstrings": 45}
    )


async def test_month_statistics_cover_only_the_last_thirty_days(db: Database, seeded_user: str) -> None:
    overview = (await statistics(db, seeded_user, "month")).stats
    # sessions 1, 4, ..., 28 days ago: k = 20..29, ten sessions
    assert overview.total_workouts == 10
    assert overview.total_sets == 60
    # bench: 15 * sum over k=20..29 of (50 + 2.5k) = 15 * (500 + 612.5) = 16,687.5; squat 10 * 1,500
    assert overview.total_volume == pytest.approx(31_687.5)
    assert overview.workouts_per_week == pytest.approx(2.33, abs=0.005)  # 10 / (30 / 7)
