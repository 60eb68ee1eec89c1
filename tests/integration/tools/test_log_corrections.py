"""Per-set loads in every logging path (a 60/60/65 kg pyramid is stored as such), and corrections of a
logged entry (adjust_logged_exercise) that keep the exercise-distribution totals exact: the corrected
entry's shares replace the old ones, never add to them. Totals are checked against hand-computed values
and against a rebuild from history."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from trainer.store.db import Database
from trainer.store.repositories import history
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.log_corrections import AdjustLoggedExercise
from trainer.tools.logging import LogCompletedExercise, LogWorkout, MarkExerciseComplete
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
BENCH_SHARES = {
    "muscles": [
        {"muscle": "Chest", "share": 0.6},
        {"muscle": "Triceps", "share": 0.2},
        {"muscle": "Shoulders", "share": 0.2},
    ],
    "goals": [{"goal": "Strength", "share": 1.0}],
}


def tool_context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    return ToolContext(user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: NOW)


def pyramid_plan(loads: list[float]) -> dict[str, Any]:
    return {
        "workout_id": "workout_1",
        "title": "Push",
        "exercises": [
            {
                "id": "ex_bench1",
                "exercise_name": "Bench Press",
                "exercise_type": "reps",
                "order": 1,
                "muscles_utilized": BENCH_SHARES["muscles"],
                "goals_addressed": BENCH_SHARES["goals"],
                "reasoning": "main lift",
                "sets": 3,
                "reps": [10, 10, 8],
                "load_each": loads,
                "load_unit": "kg",
                "rest_sec": 120,
            }
        ],
    }


async def rows(db: Database, user_id: str) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        return await history.list_recent(conn, user_id, days_back=30, limit=50, now=NOW)


def loads(row: dict[str, Any]) -> list[float]:
    return [float(v) for v in row["load_each"]]


async def totals(db: Database, user_id: str) -> dict[str, Any]:
    async with db.connection() as conn:
        found = await history.distribution_totals(conn, user_id)
    return {
        "count": found["logged_count"],
        "muscle_total": float(found["muscle_total"]),
        "category_total": float(found["category_total"]),
        "muscle": {k: float(v) for k, v in found["muscle"].items()},
        "category": {k: float(v) for k, v in found["category"].items()},
    }


async def rebuilt(db: Database, user_id: str) -> dict[str, Any]:
    async with db.transaction() as conn:
        await history.rebuild_distribution(conn, user_id)
    return await totals(db, user_id)


# --- per-set loads --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "stored"),
    [
        ({}, [60, 60, 65]),
        ({"load": 65}, [60, 60, 65]),
        ({"load": 70}, [70, 70, 70]),
        ({"load_each": [60, 62.5, 65]}, [60, 62.5, 65]),
        ({"load_each": [50]}, [50, 50, 50]),
    ],
)
async def test_log_workout_keeps_a_pyramid_per_set(
    db: Database, make_user, item: dict[str, Any], stored: list[float]
) -> None:
    ctx = tool_context(db, make_user())
    await ctx.put_state("current_workout", pyramid_plan([60, 60, 65]))
    tool = LogWorkout()
    result = await tool.execute(
        tool.Args.model_validate({"completed_exercises": [{"exercise_id": "1", **item}]}), ctx
    )
    (row,) = await rows(db, ctx.user_id)
    assert loads(row) == stored and row["load_unit"] == "kg"
    assert result.logged[0].load == max(stored), "an entry's single load is its top set"


async def test_log_workout_refuses_loads_that_do_not_fit(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    await ctx.put_state("current_workout", pyramid_plan([60, 60, 65]))
    tool = LogWorkout()
    for item, error in (
        ({"reps": [10, 10, 8], "load_each": [60, 65]}, r"one load per set \(3\), got 2"),
        ({"load": 60, "load_each": [60, 60, 65]}, "heaviest set"),
    ):
        with pytest.raises(ToolError, match=error):
            await tool.execute(
                tool.Args.model_validate({"completed_exercises": [{"exercise_id": "1", **item}]}), ctx
            )
    assert await rows(db, ctx.user_id) == []


async def test_mark_exercise_complete_logs_loads_per_set(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    await ctx.put_state("current_workout", pyramid_plan([60, 60, 60]))
    tool = MarkExerciseComplete()
    result = await tool.execute(
        tool.Args.model_validate(
            {"exercise_id": "1", "actual_load_each": [60, 60, 65], "actual_reps": [10, 10, 8]}
        ),
        ctx,
    )
    (row,) = await rows(db, ctx.user_id)
    assert loads(row) == [60, 60, 65] and row["reps"] == [10, 10, 8]
    assert tool.format(result).startswith("logged: Bench Press 3 sets: 60, 60, 65 kg x 10, 10, 8 reps")


async def test_log_completed_exercise_logs_loads_per_set(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user(weight_unit="lbs"))
    tool = LogCompletedExercise()
    result = await tool.execute(
        tool.Args.model_validate(
            {
                "exercise_name": "Bench Press",
                "exercise_type": "reps",
                "reps": [10],
                "load_each": [135, 135, 145],
            }
        ),
        ctx,
    )
    (row,) = await rows(db, ctx.user_id)
    assert row["sets"] == 3 and row["reps"] == [10, 10, 10]
    assert loads(row) == [135, 135, 145] and row["load_unit"] == "lbs"
    assert result.logged.load == 145
    assert tool.format(result).startswith("logged: Bench Press 3 sets: 135, 135, 145 lbs x 10 reps")
    with pytest.raises(ValueError, match="one value per set"):
        tool.Args.model_validate(
            {
                "exercise_name": "Bench",
                "exercise_type": "reps",
                "sets": 2,
                "reps": [10],
                "load_each": [1, 2, 3],
            }
        )


# --- corrections ----------------------------------------------------------------------------------


async def log_bench_and_plank(db: Database, ctx: ToolContext) -> tuple[str, str]:
    tool = LogCompletedExercise()
    bench = await tool.execute(
        tool.Args.model_validate(
            {
                "exercise_name": "Bench Press",
                "exercise_type": "reps",
                "sets": 3,
                "reps": [10],
                "load": 60,
                "muscles_utilized": BENCH_SHARES["muscles"],
                "goals_addressed": BENCH_SHARES["goals"],
            }
        ),
        ctx,
    )
    plank = await tool.execute(
        tool.Args.model_validate(
            {
                "exercise_name": "Plank",
                "exercise_type": "hold",
                "sets": 2,
                "hold_sec": [45],
                "muscles_utilized": [{"muscle": "Abs", "share": 1.0}],
                "goals_addressed": [{"goal": "Stability", "share": 1.0}],
            }
        ),
        ctx,
    )
    return bench.logged.id, plank.logged.id


async def adjust(ctx: ToolContext, **fields: Any) -> Any:
    tool = AdjustLoggedExercise()
    return await tool.execute(tool.Args.model_validate(fields), ctx)


async def test_corrections_replace_the_entrys_share_of_the_distribution(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    bench_id, plank_id = await log_bench_and_plank(db, ctx)
    assert await totals(db, ctx.user_id) == {
        "count": 2,
        "muscle_total": 2.0,
        "category_total": 2.0,
        "muscle": {"Chest": 0.6, "Triceps": 0.2, "Shoulders": 0.2, "Abs": 1.0},
        "category": {"Strength": 1.0, "Stability": 1.0},
    }
    before = await totals(db, ctx.user_id)

    # the loads were a pyramid: the row changes, the distribution does not
    loads_fixed = await adjust(ctx, exercise_id=bench_id, load_each=[60, 60, 65])
    assert loads_fixed.before.load_each == [60, 60, 60] and loads_fixed.after.load_each == [60, 60, 65]
    assert loads_fixed.after.id == bench_id and loads_fixed.after.reps == [10, 10, 10]
    assert await totals(db, ctx.user_id) == before
    assert AdjustLoggedExercise().format(loads_fixed) == (
        f"corrected: Bench Press 3x10 @60kg (id={bench_id}) -> "
        f"Bench Press 3 sets: 60, 60, 65 kg x 10 reps (id={bench_id})"
    )

    # it was pull-ups, not bench press: Chest/Triceps/Shoulders out, the catalog's Back/Biceps in
    swapped = await adjust(ctx, exercise_id=bench_id, exercise_name="Pullups", load_each=[0, 0, 0])
    assert swapped.catalog_match == "Pullups"
    assert await totals(db, ctx.user_id) == {
        "count": 2,
        "muscle_total": 2.0,
        "category_total": 2.0,
        "muscle": {"Back": 0.6, "Biceps": 0.4, "Abs": 1.0},
        "category": {"Strength": 1.0, "Stability": 1.0},
    }

    # the plank was half core work: its goals change, the others stay
    await adjust(
        ctx,
        exercise_id=plank_id,
        hold_sec=[60, 50],
        goals_addressed=[{"goal": "Core", "share": 0.5}, {"goal": "Stability", "share": 0.5}],
    )
    expected = {
        "count": 2,
        "muscle_total": 2.0,
        "category_total": 2.0,
        "muscle": {"Back": 0.6, "Biceps": 0.4, "Abs": 1.0},
        "category": {"Strength": 1.0, "Stability": 0.5, "Core": 0.5},
    }
    assert await totals(db, ctx.user_id) == expected
    assert await rebuilt(db, ctx.user_id) == expected
    stored = {r["exercise_name"]: r for r in await rows(db, ctx.user_id)}
    assert set(stored) == {"Pullups", "Plank"} and stored["Plank"]["hold_sec"] == [60, 50]


async def test_a_correction_to_another_type_drops_the_old_fields(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    bench_id, _ = await log_bench_and_plank(db, ctx)
    with pytest.raises(ToolError, match="duration exercise needs duration_min"):
        await adjust(ctx, exercise_id=bench_id, exercise_name="Running, Treadmill", exercise_type="duration")
    ran = await adjust(
        ctx,
        exercise_id=bench_id,
        exercise_name="Running, Treadmill",
        exercise_type="duration",
        duration_min=30,
    )
    after = ran.after
    assert (after.exercise_type, after.duration_min, after.sets, after.reps, after.load_each) == (
        "duration",
        30,
        None,
        None,
        None,
    )
    found = await totals(db, ctx.user_id)
    assert "Chest" not in found["muscle"] and found["category"]["Cardio"] == 1.0
    assert found == await rebuilt(db, ctx.user_id)


async def test_sets_alone_resizes_the_per_set_values(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    bench_id, _ = await log_bench_and_plank(db, ctx)
    await adjust(ctx, exercise_id=bench_id, load_each=[60, 60, 65])
    grown = await adjust(ctx, exercise_id=bench_id, sets=4)
    assert grown.after.reps == [10, 10, 10, 10] and grown.after.load_each == [60, 60, 65, 65]
    shrunk = await adjust(ctx, exercise_id=bench_id, reps=[8, 8])
    assert shrunk.after.sets == 2 and shrunk.after.load_each == [60, 60]


async def test_corrections_are_refused_cleanly(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    alice_ctx = tool_context(db, alice)
    bench_id, plank_id = await log_bench_and_plank(db, alice_ctx)
    before = (await rows(db, alice), await totals(db, alice))
    bob_ctx = tool_context(db, bob)
    for ctx, fields, error in (
        (bob_ctx, {"exercise_id": bench_id, "rpe": 8}, "not found"),
        (alice_ctx, {"exercise_id": "not-a-uuid", "rpe": 8}, "not found"),
        (alice_ctx, {"exercise_id": plank_id, "load": 20}, "load not part of a hold exercise"),
        (alice_ctx, {"exercise_id": bench_id, "exercise_name": "Zorbing"}, "not in the exercise catalog"),
        (
            alice_ctx,
            {"exercise_id": bench_id, "reps": [10, 10], "load_each": [60, 60, 65]},
            r"per set \(2\), got 3",
        ),
    ):
        with pytest.raises(ToolError, match=error):
            await adjust(ctx, **fields)
    with pytest.raises(ValueError, match="at least one field"):
        AdjustLoggedExercise.Args.model_validate({"exercise_id": bench_id})
    assert (await rows(db, alice), await totals(db, alice)) == before
    assert await totals(db, bob) == {
        "count": 0,
        "muscle_total": 0.0,
        "category_total": 0.0,
        "muscle": {},
        "category": {},
    }


async def test_update_logged_is_scoped_to_the_user(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    async with db.transaction() as conn:
        (row,) = await history.log_exercises(
            conn,
            alice,
            [{"exercise_name": "Squat", "exercise_type": "reps", "reps": [5], **BENCH_SHARES}],
            now=NOW,
        )
        entry = {**row, "reps": [6]}
        assert await history.update_logged(conn, bob, row["id"], entry, now=NOW) is None
        changed = await history.update_logged(conn, alice, row["id"], entry, now=NOW)
    assert changed is not None
    old, new = changed
    assert old["reps"] == [5] and new["reps"] == [6] and new["id"] == row["id"]
    assert new["created_at"] == row["created_at"]
