"""Logging tools on Postgres: history and distribution tracking change together; undo reverses both;
the current workout is read from (and cleared in) session state; other users are untouched."""

from __future__ import annotations

import contextlib
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trainer.store.db import Database
from trainer.store.repositories.history import distribution_totals
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.log_corrections import UndoLoggedExercise
from trainer.tools.logging import LogCompletedExercise, LogWorkout, MarkExerciseComplete
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


def tool_context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    return ToolContext(user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: NOW)


def planned_workout() -> dict[str, Any]:
    return {
        "workout_id": "workout_1",
        "title": "Push day",
        "artifact_id": "art_1",
        "exercises": [
            {
                "id": "ex_aaaaaa",
                "exercise_name": "Bench Press",
                "exercise_type": "reps",
                "order": 1,
                "muscles_utilized": [
                    {"muscle": "Chest", "share": 0.6},
                    {"muscle": "Triceps", "share": 0.2},
                    {"muscle": "Shoulders", "share": 0.2},
                ],
                "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                "reasoning": "main lift",
                "equipment": ["barbell"],
                "sets": 3,
                "reps": [10, 10, 10],
                "load_each": [60, 60, 60],
                "load_unit": "kg",
                "rest_sec": 120,
                "completed": False,
            },
            {
                "id": "ex_bbbbbb",
                "exercise_name": "Plank",
                "exercise_type": "hold",
                "order": 2,
                "muscles_utilized": [{"muscle": "Abs", "share": 1.0}],
                "goals_addressed": [{"goal": "Stability", "share": 1.0}],
                "reasoning": "core",
                "equipment": [],
                "sets": 2,
                "hold_sec": [45, 45],
                "rest_sec": 30,
                "completed": False,
            },
            {
                "id": "ex_cccccc",
                "exercise_name": "Easy Run",
                "exercise_type": "duration",
                "order": 3,
                "muscles_utilized": [
                    {"muscle": "Quadriceps", "share": 0.5},
                    {"muscle": "Calves", "share": 0.5},
                ],
                "goals_addressed": [{"goal": "Cardio", "share": 1.0}],
                "reasoning": "aerobic base",
                "equipment": [],
                "duration_min": 20,
                "distance": 3,
                "distance_unit": "km",
                "completed": False,
            },
        ],
    }


async def history_rows(db: Database, user_id: str) -> list[Any]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id, exercise_name, sets, reps, load_each, load_unit, hold_sec, duration_min, distance,"
            " distance_unit, rpe, muscles, goals, workout_id, notes FROM workout_history"
            " WHERE user_id = %s ORDER BY exercise_name, id",
            (user_id,),
        )
        return await cur.fetchall()


async def tracking(db: Database, user_id: str) -> dict[str, Any]:
    async with db.connection() as conn:
        totals = await distribution_totals(conn, user_id)
    return {
        "count": totals["logged_count"],
        "muscle": {k: float(v) for k, v in totals["muscle"].items()},
        "category": {k: float(v) for k, v in totals["category"].items()},
    }


async def log_for_other_user(db: Database, user_id: str) -> None:
    await LogCompletedExercise().execute(
        LogCompletedExercise.Args.model_validate(
            {"exercise_name": "Pushups", "exercise_type": "reps", "reps": [12, 12]}
        ),
        tool_context(db, user_id),
    )


async def test_log_workout_logs_from_the_plan_and_clears_the_session(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    await log_for_other_user(db, bob)
    bob_before = (await history_rows(db, bob), await tracking(db, bob))
    ctx = tool_context(db, alice)
    await ctx.put_state("current_workout", planned_workout())
    tool = LogWorkout()

    args = tool.Args.model_validate(
        {
            "completed_exercises": [
                {"exercise_id": "ex_aaaaaa", "reps": [10, 9, 8], "rpe": 8},
                {"exercise_id": "ex_stale", "exercise_name": "plank"},
                {"exercise_id": "3", "duration_min": 22.5},
            ],
            "workout_notes": "felt strong",
        }
    )
    result = await tool.execute(args, ctx)

    assert result.logged_count == 3 and result.total_in_workout == 3 and result.workout_id == "workout_1"
    rows = {r["exercise_name"]: r for r in await history_rows(db, alice)}
    bench = rows["Bench Press"]
    assert bench["reps"] == [10, 9, 8] and [float(v) for v in bench["load_each"]] == [60, 60, 60]
    assert bench["load_unit"] == "kg" and float(bench["rpe"]) == 8 and bench["workout_id"] == "workout_1"
    assert {m["muscle"] for m in bench["muscles"]} == {"Chest", "Triceps", "Shoulders"}
    assert "felt strong" in bench["notes"]
    assert rows["Plank"]["hold_sec"] == [45, 45] and rows["Plank"]["sets"] == 2
    assert float(rows["Easy Run"]["duration_min"]) == 22.5 and float(rows["Easy Run"]["distance"]) == 3
    assert {str(r["id"]) for r in rows.values()} == {r.id for r in result.logged}
    logged_bench = next(r for r in result.logged if r.exercise_name == "Bench Press")
    assert logged_bench.reps == [10, 9, 8] and logged_bench.load_each == [60.0, 60.0, 60.0]
    assert logged_bench.rpe == 8.0 and logged_bench.workout_id == "workout_1"
    assert logged_bench.session_id == ctx.session_id and logged_bench.performed_at == NOW
    totals = await tracking(db, alice)
    assert totals["count"] == 3
    assert totals["muscle"]["Chest"] == pytest.approx(0.6) and totals["muscle"]["Abs"] == pytest.approx(1.0)
    assert totals["category"] == {"Strength": 1.0, "Stability": 1.0, "Cardio": 1.0}
    assert await ctx.get_state("current_workout") is None

    text = tool.format(result)
    assert text.startswith("logged 3 of 3 exercises")
    assert "Bench Press 3x[10,9,8] @60kg RPE 8" in text and "Plank 2x45s" in text and "22.5 min" in text
    assert (await history_rows(db, bob), await tracking(db, bob)) == bob_before


async def test_log_workout_errors(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    tool = LogWorkout()
    args = tool.Args.model_validate({"completed_exercises": [{"exercise_id": "1"}]})
    with pytest.raises(ToolError, match="no active workout"):
        await tool.execute(args, ctx)
    await ctx.put_state("current_workout", planned_workout())
    unknown = tool.Args.model_validate({"completed_exercises": [{"exercise_name": "Deadlift"}]})
    with pytest.raises(ToolError, match=r"'Deadlift' is not in the current workout: 1\. Bench Press"):
        await tool.execute(unknown, ctx)
    twice = tool.Args.model_validate(
        {"completed_exercises": [{"exercise_id": "1"}, {"exercise_id": "ex_aaaaaa"}]}
    )
    with pytest.raises(ToolError, match="listed twice"):
        await tool.execute(twice, ctx)
    assert await ctx.get_state("current_workout") is not None
    assert await history_rows(db, ctx.user_id) == []


async def test_mark_complete_then_undo_restores_history_distribution_and_session(
    db: Database, make_user
) -> None:
    alice, bob = make_user(weight_unit="lbs"), make_user()
    await log_for_other_user(db, bob)
    bob_before = (await history_rows(db, bob), await tracking(db, bob))
    ctx = tool_context(db, alice)
    workout = planned_workout()
    del workout["exercises"][0]["load_each"], workout["exercises"][0]["load_unit"]
    await ctx.put_state("current_workout", workout)

    mark = MarkExerciseComplete()
    result = await mark.execute(
        mark.Args.model_validate(
            {"exercise_id": "1", "actual_reps": [8, 8, 6], "actual_load": 135, "rpe": 9}
        ),
        ctx,
    )
    assert mark.format(result) == (
        f"logged: Bench Press 3x[8,8,6] @135lbs RPE 9 (id={result.logged.id}); 2 exercises left"
    )
    assert result.exercise_id == "ex_aaaaaa" and result.remaining == 2
    (row,) = await history_rows(db, alice)
    assert str(row["id"]) == result.logged.id
    assert row["load_unit"] == "lbs" and [float(v) for v in row["load_each"]] == [135, 135, 135]
    state = await ctx.get_state("current_workout")
    assert state is not None and state["exercises"][0]["completed"] is True
    assert (await tracking(db, alice))["muscle"]["Chest"] == pytest.approx(0.6)
    with pytest.raises(ToolError, match="already logged"):
        await mark.execute(mark.Args.model_validate({"exercise_id": "ex_aaaaaa"}), ctx)

    undo = UndoLoggedExercise()
    undone = await undo.execute(undo.Args.model_validate({"exercise_id": result.logged.id}), ctx)
    assert undo.format(undone) == f"removed: Bench Press 3x[8,8,6] @135lbs RPE 9 (id={result.logged.id})"
    assert undone.removed.id == result.logged.id and undone.removed.load_each == [135, 135, 135]
    assert await history_rows(db, alice) == []
    assert await tracking(db, alice) == {"count": 0, "muscle": {}, "category": {}}
    state = await ctx.get_state("current_workout")
    assert state is not None and state["exercises"][0]["completed"] is False
    with pytest.raises(ToolError, match="not found"):
        await undo.execute(undo.Args.model_validate({"exercise_id": result.logged.id}), ctx)
    assert (await history_rows(db, bob), await tracking(db, bob)) == bob_before


async def test_log_workout_skips_exercises_already_marked_complete(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    await ctx.put_state("current_workout", planned_workout())
    await MarkExerciseComplete().execute(MarkExerciseComplete.Args.model_validate({"exercise_id": "2"}), ctx)
    tool = LogWorkout()
    result = await tool.execute(
        tool.Args.model_validate({"completed_exercises": [{"exercise_id": "1"}, {"exercise_id": "2"}]}), ctx
    )
    assert result.logged_count == 1 and result.already_logged == ["Plank"]
    assert sorted(r["exercise_name"] for r in await history_rows(db, ctx.user_id)) == ["Bench Press", "Plank"]
    assert "already logged before: Plank" in tool.format(result)


async def test_undo_cannot_touch_another_users_history(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    bob_ctx = tool_context(db, bob)
    logged = await LogCompletedExercise().execute(
        LogCompletedExercise.Args.model_validate(
            {"exercise_name": "Plank", "exercise_type": "hold", "hold_sec": [60]}
        ),
        bob_ctx,
    )
    before = (await history_rows(db, bob), await tracking(db, bob))
    undo = UndoLoggedExercise()
    with pytest.raises(ToolError, match="not found"):
        await undo.execute(
            undo.Args.model_validate({"exercise_id": logged.logged.id}), tool_context(db, alice)
        )
    with pytest.raises(ToolError, match="not found"):
        await undo.execute(undo.Args.model_validate({"exercise_id": "not-a-uuid"}), tool_context(db, alice))
    assert (await history_rows(db, bob), await tracking(db, bob)) == before


async def test_log_completed_exercise_defaults_muscles_from_catalog_and_units_from_settings(
    db: Database, make_user
) -> None:
    alice = make_user(weight_unit="lbs", distance_unit="mi")
    ctx = tool_context(db, alice)
    tool = LogCompletedExercise()

    result = await tool.execute(
        tool.Args.model_validate(
            {"exercise_name": "pull-ups", "exercise_type": "reps", "sets": 3, "reps": [8], "load": 25}
        ),
        ctx,
    )
    assert result.catalog_match == "Pullups"
    assert tool.format(result) == (
        f"logged: pull-ups 3x8 @25lbs (id={result.logged.id}) (muscles from catalog: Pullups)"
    )
    assert [(m.muscle, m.share) for m in result.logged.muscles] == [("Back", 0.6), ("Biceps", 0.4)]
    run = await tool.execute(
        tool.Args.model_validate(
            {
                "exercise_name": "Trail run",
                "exercise_type": "duration",
                "duration_min": 40,
                "distance": 5,
                "muscles_utilized": [{"muscle": "Quadriceps", "share": 1.0}],
                "goals_addressed": [{"goal": "Endurance", "share": 1.0}],
                "performed_at": "2026-03-01T07:30:00Z",
            }
        ),
        ctx,
    )
    rows = {r["exercise_name"]: r for r in await history_rows(db, alice)}
    assert rows["pull-ups"]["load_unit"] == "lbs" and rows["pull-ups"]["reps"] == [8, 8, 8]
    assert {m["muscle"]: m["share"] for m in rows["pull-ups"]["muscles"]} == {"Back": 0.6, "Biceps": 0.4}
    assert rows["pull-ups"]["goals"] == [{"goal": "Strength", "share": 1.0}]
    assert rows["Trail run"]["distance_unit"] == "mi" and run.logged.distance_unit == "mi"
    assert run.logged.performed_at == datetime(2026, 3, 1, 7, 30, tzinfo=UTC) and run.catalog_match is None
    assert (await tracking(db, alice))["category"] == {"Strength": 1.0, "Endurance": 1.0}

    with pytest.raises(ToolError, match=r"not in the exercise catalog.*give muscles_utilized"):
        await tool.execute(
            tool.Args.model_validate(
                {"exercise_name": "Zorbing", "exercise_type": "duration", "duration_min": 30}
            ),
            ctx,
        )
    with pytest.raises(ValueError, match="'reps' is required"):
        tool.Args.model_validate({"exercise_name": "Pushups", "exercise_type": "reps"})


async def log_plank(ctx: ToolContext, seconds: int = 60) -> str:
    tool = LogCompletedExercise()
    result = await tool.execute(
        tool.Args.model_validate({"exercise_name": "Plank", "exercise_type": "hold", "hold_sec": [seconds]}),
        ctx,
    )
    return result.logged.id


async def test_undo_never_deletes_what_an_earlier_conversation_logged(db: Database, make_user) -> None:
    """The reported bug: an undo in a new conversation removed a plank logged days earlier."""
    alice = make_user()
    earlier = await log_plank(tool_context(db, alice))
    now_ctx = tool_context(db, alice)
    undo = UndoLoggedExercise()
    with pytest.raises(ToolError, match="before this conversation"):
        await undo.execute(undo.Args.model_validate({"exercise_id": earlier}), now_ctx)
    assert [str(r["id"]) for r in await history_rows(db, alice)] == [earlier]
    assert (await tracking(db, alice))["count"] == 1

    mine = await log_plank(now_ctx, 45)
    undone = await undo.execute(undo.Args.model_validate({"exercise_id": mine}), now_ctx)
    assert undone.removed.id == mine and undone.removed.hold_sec == [45]
    assert [str(r["id"]) for r in await history_rows(db, alice)] == [earlier]
    assert (await tracking(db, alice))["count"] == 1


UNDO_TARGETS = st.lists(
    st.tuples(st.sampled_from(["earlier", "mine", "unknown"]), st.integers(min_value=0, max_value=5)),
    max_size=6,
)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    earlier_sessions=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=4),
    logged_now=st.integers(min_value=0, max_value=3),
    attempts=UNDO_TARGETS,
)
async def test_an_undo_never_deletes_a_row_logged_before_the_conversation_started(
    db: Database, make_user, earlier_sessions: list[str], logged_now: int, attempts: list[tuple[str, int]]
) -> None:
    user = make_user()
    contexts = {name: tool_context(db, user) for name in set(earlier_sessions)}
    earlier = [await log_plank(contexts[name], 30 + n) for n, name in enumerate(earlier_sessions)]
    ctx = tool_context(db, user)
    mine = [await log_plank(ctx, 90 + n) for n in range(logged_now)]
    undo = UndoLoggedExercise()
    removed: set[str] = set()
    for source, index in attempts:
        pool = {"earlier": earlier, "mine": mine}.get(source) or [str(uuid.uuid4())]
        target = pool[index % len(pool)]
        with contextlib.suppress(ToolError):
            removed.add(
                (await undo.execute(undo.Args.model_validate({"exercise_id": target}), ctx)).removed.id
            )
    left = {str(r["id"]) for r in await history_rows(db, user)}
    assert set(earlier) <= left
    assert removed <= set(mine) and left == set(earlier) | (set(mine) - removed)
    assert (await tracking(db, user))["count"] == len(left)
