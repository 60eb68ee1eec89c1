"""Timer tools from the current workout (session state) or an inline exercise: every exercise type,
groups with rounds, totals equal to the sum of the phases. A timer changes no workout; each call stores
one timer artifact that message_notify_user delivers."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError
from trainer.tools.artifacts import TimerData
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.timers import GenerateExerciseTimer, GenerateWorkoutTimers
from trainer_dev.testing.memory_store import InMemorySessionStore

SHARES = {
    "muscles_utilized": [{"muscle": "Chest", "share": 1.0}],
    "goals_addressed": [{"goal": "Strength", "share": 1.0}],
    "reasoning": "r",
}


def workout() -> dict[str, Any]:
    return {
        "workout_id": "workout_1",
        "title": "Mixed",
        "exercises": [
            {
                "id": "ex_reps01",
                "exercise_name": "Bench Press",
                "exercise_type": "reps",
                "order": 1,
                "sets": 3,
                "reps": [10, 8, 6],
                "load_each": [60, 65, 70],
                "load_unit": "kg",
                "rest_sec": 90,
                **SHARES,
            },
            {
                "id": "ex_hold01",
                "exercise_name": "Plank",
                "exercise_type": "hold",
                "order": 2,
                "sets": 2,
                "hold_sec": [45, 60],
                "rest_sec": 30,
                **SHARES,
            },
            {
                "id": "ex_sup001",
                "exercise_name": "Curl",
                "exercise_type": "reps",
                "order": 3,
                "sets": 3,
                "reps": [12, 12, 12],
                "rest_sec": 0,
                **SHARES,
                "group": {
                    "id": "ss1",
                    "type": "superset",
                    "position": 1,
                    "name": "Arms",
                    "rounds": 3,
                    "rest_between_rounds_sec": 60,
                },
            },
            {
                "id": "ex_sup002",
                "exercise_name": "Pushdown",
                "exercise_type": "reps",
                "order": 4,
                "sets": 3,
                "reps": [12, 12, 12],
                "rest_sec": 0,
                **SHARES,
                "group": {"id": "ss1", "type": "superset", "position": 2},
            },
            {
                "id": "ex_int001",
                "exercise_name": "Bike Sprints",
                "exercise_type": "intervals",
                "order": 5,
                "rounds": 6,
                "work_sec": 20,
                "rest_sec": 40,
                **SHARES,
            },
            {
                "id": "ex_dur001",
                "exercise_name": "Cooldown Walk",
                "exercise_type": "duration",
                "order": 6,
                "duration_min": 10,
                **SHARES,
            },
        ],
    }


async def context_with_workout() -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session("user-timers")
    ctx = ToolContext(
        user_id="user-timers", session_id=session.id, store=store, now=lambda: datetime.now(UTC)
    )
    await ctx.put_state("current_workout", workout())
    return ctx


def assert_consistent(timer: TimerData) -> None:
    assert timer.total_duration_sec == sum(p.duration_sec for p in timer.phases)
    assert all(p.phase_type in ("work", "rest", "hold", "transition") for p in timer.phases)


async def test_exercise_timer_by_order_and_by_id() -> None:
    ctx = await context_with_workout()
    tool = GenerateExerciseTimer()
    bench = await tool.execute(tool.Args.model_validate({"exercise_id": "1"}), ctx)
    (timer,) = bench.timers
    assert_consistent(timer)
    assert bench.total_duration_sec == timer.total_duration_sec
    assert (timer.exercise_name, timer.exercise_type) == ("Bench Press", "reps")
    kinds = [p.phase_type for p in timer.phases]
    assert kinds == ["transition", "work", "rest", "work", "rest", "work"]
    assert timer.phases[5].detail == "6 reps at 70kg"
    text = tool.format(bench)
    assert text.splitlines()[0] == (
        f"Bench Press: {timer.total_duration_sec // 60}m {timer.total_duration_sec % 60:02d}s "
        f"({timer.total_duration_sec}s; 6 phases: 1 transition, 3 work, 2 rest)"
    )
    assert "  rest 90s: Rest (Next: set 2 of 3)" in text
    plank = await tool.execute(tool.Args.model_validate({"exercise_id": "ex_hold01"}), ctx)
    assert [p.duration_sec for p in plank.timers[0].phases if p.phase_type == "hold"] == [45, 60]
    assert await ctx.get_state("current_workout") == workout()


async def test_inline_exercise_timer_and_errors() -> None:
    ctx = await context_with_workout()
    tool = GenerateExerciseTimer()
    result = await tool.execute(
        tool.Args.model_validate(
            {
                "exercise": {
                    "exercise_name": "Tabata",
                    "exercise_type": "intervals",
                    "rounds": 8,
                    "work_sec": 20,
                    "rest_sec": 10,
                }
            }
        ),
        ctx,
    )
    (timer,) = result.timers
    assert_consistent(timer)
    assert timer.total_duration_sec == 10 + 8 * 20 + 7 * 10
    with pytest.raises(ToolError, match="cannot build a timer: 'rounds' is required"):
        await tool.execute(
            tool.Args.model_validate({"exercise": {"exercise_name": "X", "exercise_type": "intervals"}}), ctx
        )
    with pytest.raises(ToolError, match="not in the current workout"):
        await tool.execute(tool.Args.model_validate({"exercise_id": "9"}), ctx)
    with pytest.raises(ValidationError, match="exactly one of"):
        tool.Args.model_validate({})


async def test_workout_timers_cover_every_type_and_group_rounds() -> None:
    ctx = await context_with_workout()
    tool = GenerateWorkoutTimers()
    result = await tool.execute(tool.Args.model_validate({}), ctx)

    timers = result.timers
    assert [t.exercise_name for t in timers] == [
        "Bench Press",
        "Plank",
        "Arms",
        "Bike Sprints",
        "Cooldown Walk",
    ]
    for timer in timers:
        assert_consistent(timer)
    assert result.total_duration_sec == sum(t.total_duration_sec for t in timers)
    arms = timers[2]
    assert sum(1 for p in arms.phases if p.phase_type == "work") == 6  # 3 rounds x 2 exercises
    assert sum(1 for p in arms.phases if p.phase_type == "rest") == 2 and arms.exercise_type == "superset"
    assert timers[4].total_duration_sec == 10 + 600
    lines = tool.format(result).splitlines()
    assert len(lines) == 6 and lines[5].startswith("Total: ")
    assert result.delivery_note() == f"artifact_id={result.artifact_id} is not shown to the user yet."
    assert lines[4] == "  Cooldown Walk: 10m 10s (610s; 2 phases: 1 transition, 1 work)"

    subset = await tool.execute(tool.Args.model_validate({"exercise_ids": ["5", "ex_int001", "1"]}), ctx)
    assert [t.exercise_name for t in subset.timers] == ["Bench Press", "Bike Sprints"]


async def test_workout_timers_need_a_workout() -> None:
    store = InMemorySessionStore()
    session = store.new_session("u")
    ctx = ToolContext(user_id="u", session_id=session.id, store=store)
    with pytest.raises(ToolError, match="no active workout"):
        await GenerateWorkoutTimers().execute(GenerateWorkoutTimers.Args.model_validate({}), ctx)
    broken = copy.deepcopy(workout())
    broken["exercises"][0]["sets"] = 0
    await ctx.put_state("current_workout", broken)
    with pytest.raises(ToolError, match="cannot build timers"):
        await GenerateWorkoutTimers().execute(GenerateWorkoutTimers.Args.model_validate({}), ctx)
