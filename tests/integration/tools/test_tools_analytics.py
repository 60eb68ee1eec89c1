"""Analytics tools on Postgres: numbers computed in code from the user's own history for the period,
in the user's units; formatters stay compact."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from trainer.store.db import Database
from trainer.store.repositories.goals import set_category_goals
from trainer.store.repositories.history import log_exercises
from trainer.tools.analytics import (
    GenerateStatsSummary,
    GetExerciseBreakdown,
    GetProgressTrends,
    GetWorkoutStatistics,
)
from trainer.tools.base import ToolContext, ToolError
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
BENCH = {
    "exercise_name": "Bench Press",
    "exercise_type": "reps",
    "muscles": [
        {"muscle": "Chest", "share": 0.6},
        {"muscle": "Triceps", "share": 0.2},
        {"muscle": "Shoulders", "share": 0.2},
    ],
    "goals": [{"goal": "Strength", "share": 1.0}],
}
SQUAT = {
    "exercise_name": "Squat",
    "exercise_type": "reps",
    "muscles": [
        {"muscle": "Quadriceps", "share": 0.6},
        {"muscle": "Glutes", "share": 0.2},
        {"muscle": "Hamstrings", "share": 0.2},
    ],
    "goals": [{"goal": "Strength", "share": 1.0}],
}


def tool_context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    return ToolContext(user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: NOW)


async def seed_history(db: Database, user_id: str) -> None:
    entries = [
        {
            **BENCH,
            "sets": 3,
            "reps": [5, 5, 5],
            "load_each": [100] * 3,
            "load_unit": "kg",
            "performed_at": "2026-02-16T18:00:00Z",
            "workout_id": "w1",
            "rpe": 8,
        },
        {
            **BENCH,
            "sets": 3,
            "reps": [3, 3, 3],
            "load_each": [225] * 3,
            "load_unit": "lbs",
            "performed_at": "2026-03-01T18:00:00Z",
            "workout_id": "w2",
            "rpe": 9,
        },
        {
            **SQUAT,
            "sets": 2,
            "reps": [5, 5],
            "load_each": [140] * 2,
            "load_unit": "kg",
            "performed_at": "2026-03-01T18:30:00Z",
            "workout_id": "w2",
        },
        {
            "exercise_name": "Easy Run",
            "exercise_type": "duration",
            "duration_min": 30,
            "distance": 5,
            "distance_unit": "km",
            "muscles": [{"muscle": "Quadriceps", "share": 0.5}, {"muscle": "Calves", "share": 0.5}],
            "goals": [{"goal": "Cardio", "share": 1.0}],
            "performed_at": "2026-02-25T07:00:00Z",
            "workout_id": "w3",
        },
        {
            **BENCH,
            "sets": 1,
            "reps": [1],
            "load_each": [150],
            "load_unit": "kg",
            "performed_at": "2025-06-01T18:00:00Z",
            "workout_id": "w0",
        },
    ]
    async with db.transaction() as conn:
        await log_exercises(conn, user_id, entries, now=NOW)


async def history_snapshot(db: Database, user_id: str) -> list[Any]:
    async with db.connection() as conn:
        cur = await conn.execute("SELECT * FROM workout_history WHERE user_id = %s ORDER BY id", (user_id,))
        return await cur.fetchall()


async def run(tool: Any, ctx: ToolContext, **args: Any) -> Any:
    return await tool.execute(tool.Args.model_validate(args), ctx)


@pytest.fixture
async def users(db: Database, make_user) -> tuple[str, str]:
    alice, bob = make_user(), make_user(weight_unit="lbs")
    await seed_history(db, alice)
    async with db.transaction() as conn:
        await log_exercises(
            conn,
            bob,
            [
                {
                    **BENCH,
                    "sets": 5,
                    "reps": [20] * 5,
                    "load_each": [400] * 5,
                    "load_unit": "lbs",
                    "performed_at": "2026-02-28T10:00:00Z",
                }
            ],
            now=NOW,
        )
    return alice, bob


async def test_workout_statistics(db: Database, users: tuple[str, str]) -> None:
    alice, bob = users
    bob_before = await history_snapshot(db, bob)
    result = await run(GetWorkoutStatistics(), tool_context(db, alice), time_period="month")

    s = result.stats
    assert (s.total_workouts, s.total_exercises, s.total_sets) == (3, 4, 8)
    assert s.total_volume == pytest.approx(1500 + 9 * 225 * 0.45359237 + 1400, abs=0.1)
    assert s.unit == "kg" and s.total_duration_min == 30 and s.total_distance == 5
    assert s.distance_unit == "km" and s.average_rpe == 8.5
    assert (s.start, s.end) == (datetime(2026, 2, 1, 0, 0, tzinfo=UTC), NOW)  # the last 30 days, today in
    bench, squat = (
        next(r for r in result.personal_records if r.exercise_name == n) for n in ("Bench Press", "Squat")
    )
    assert bench.best_load == pytest.approx(102.06, abs=0.01) and bench.best_load_reps == 3
    # the best estimate is 100 kg x 5 at RPE 8 (7 reps to failure, 81.1% on the RTS chart), not the
    # heavier 225 lb x 3 at RPE 9 (89.2%); Epley and Brzycki come from that same set, at 7 reps
    assert bench.e1rm == pytest.approx(123.3) and bench.e1rm_set is not None
    assert (bench.e1rm_set.load, bench.e1rm_set.reps, bench.e1rm_set.rpe) == (100, 5, 8)
    assert bench.epley_1rm == pytest.approx(123.3) and bench.brzycki_1rm == pytest.approx(120.0)
    assert bench.best_load_date == date(2026, 3, 1) and bench.unit == "kg"
    assert squat.epley_1rm == pytest.approx(163.3)
    assert result.weekly_hard_sets == {
        date(2026, 2, 16): {"Chest": 3.0, "Shoulders": 1.5, "Triceps": 1.5},
        date(2026, 2, 23): {
            "Chest": 3.0,
            "Glutes": 1.0,
            "Hamstrings": 1.0,
            "Quadriceps": 2.0,
            "Shoulders": 1.5,
            "Triceps": 1.5,
        },
    }
    text = GetWorkoutStatistics().format(result)
    assert text.splitlines()[0] == (
        "2026-02-01..2026-03-02: 3 workouts (0.7/week), 4 exercises, 8 sets, volume 3818 kg, 30 min, 5 km, "
        "avg RPE 8.5"
    )
    # 140 / 0.863 = 162.2 on the RTS chart; Epley 163.3 and Brzycki 157.5 from the same set
    assert "  Squat: 140kg x5; e1RM 162 from 140 x 5 on 2026-03-01 (Epley 163/Brzycki 158)" in text
    assert "  week of 23 Feb: Chest 3, Quadriceps 2, Shoulders 1.5, Triceps 1.5, Glutes 1, Hamstrings" in text
    assert "-W0" not in text
    assert await history_snapshot(db, bob) == bob_before

    year = await run(GetWorkoutStatistics(), tool_context(db, alice), time_period="year")
    assert year.stats.total_exercises == 5 and year.time_period == "year"
    custom = await run(
        GetWorkoutStatistics(), tool_context(db, alice), start_date="2026-03-01", end_date="2026-03-01"
    )
    assert (custom.stats.total_exercises, custom.stats.total_workouts) == (2, 1)
    with pytest.raises(ToolError, match="start_date must be before end_date"):
        await run(
            GetWorkoutStatistics(), tool_context(db, alice), start_date="2026-03-02", end_date="2026-02-01"
        )


async def test_statistics_in_the_users_unit(db: Database, users: tuple[str, str]) -> None:
    _, bob = users
    result = await run(GetWorkoutStatistics(), tool_context(db, bob), time_period="week")
    assert result.stats.unit == "lbs" and result.stats.total_volume == 40000
    assert result.personal_records[0].best_load == 400 and result.personal_records[0].unit == "lbs"
    assert "volume 40000 lbs" in GetWorkoutStatistics().format(result)


async def test_exercise_breakdown(db: Database, users: tuple[str, str]) -> None:
    alice, _ = users
    result = await run(GetExerciseBreakdown(), tool_context(db, alice), breakdown_type="muscle")
    by_name = {b.name: b for b in result.breakdown}
    assert by_name["Chest"].percentage == 30.0 and by_name["Quadriceps"].percentage == 27.5
    assert result.breakdown[0].name == "Chest" and by_name["Chest"].sets == 6
    assert (result.breakdown_type, result.time_period, result.exercise_count) == ("muscle", "month", 4)
    text = GetExerciseBreakdown().format(result)
    assert text.splitlines()[:2] == ["by muscle, month (4 exercises)", "  Chest: 30% (6 sets)"]
    names = await run(
        GetExerciseBreakdown(),
        tool_context(db, alice),
        breakdown_type="exercise_name",
        time_period="all_time",
    )
    assert (names.breakdown[0].name, names.breakdown[0].amount) == ("Bench Press", 3)
    week = await run(
        GetExerciseBreakdown(), tool_context(db, alice), breakdown_type="category", time_period="week"
    )
    assert [(b.name, b.amount) for b in week.breakdown] == [("Strength", 2), ("Cardio", 1)]


async def test_progress_trends(db: Database, users: tuple[str, str]) -> None:
    alice, _ = users
    result = await run(
        GetProgressTrends(), tool_context(db, alice), metric="weight", exercise_name="bench press"
    )
    trends = result.trends
    assert [s.week_start for s in trends.series] == [date(2026, 2, 16), date(2026, 2, 23)]
    assert trends.direction == "up" and trends.percent_change == pytest.approx(2.1)
    assert (trends.metric, trends.exercise_name, trends.period) == ("weight", "bench press", "quarter")
    assert GetProgressTrends().format(result) == (
        "weight for bench press, quarter (kg): up, 2.1%, slope 2.06/week\n"
        "  week of 16 Feb: 100 (100 x 5); week of 23 Feb: 102.1 (102.1 x 3)"
    )
    none = await run(GetProgressTrends(), tool_context(db, alice), metric="volume", exercise_name="Deadlift")
    assert GetProgressTrends().format(none) == "volume for Deadlift, quarter: no data"


async def test_stats_summary_with_goals(db: Database, users: tuple[str, str]) -> None:
    alice, _ = users
    async with db.transaction() as conn:
        await set_category_goals(
            conn,
            alice,
            [{"category": "Strength", "percentage": 50}, {"category": "Cardio", "percentage": 50}],
        )
    result = await run(
        GenerateStatsSummary(), tool_context(db, alice), include_sections=["overview", "goals"]
    )
    assert result.sections == ["overview", "goals"] and result.time_period == "month"
    lines = GenerateStatsSummary().format(result).splitlines()
    assert lines[0] == "month:"
    assert lines[1].startswith("Overview: 3 workouts") and "volume 3818.5 kg" in lines[1]
    assert lines[2] == "Goals: Cardio 25% of 50% target, Strength 75% of 50% target"
    assert len(lines) == 3
