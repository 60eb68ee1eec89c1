"""add_exercise_to_workout: one exercise into the current workout, at a position or at the end, validated
like generate_workout's exercises; the workout state, the displayables and the artifact follow, and the
turn's reply carries the changed workout."""

from __future__ import annotations

from typing import Any

import pytest
from trainer.agents.tools import ToolOutcome, ToolSet
from trainer.domain.workout import Workout
from trainer.tools.add_exercise import AddResult
from trainer.tools.base import Reply, ToolContext
from trainer.tools.communication import communication_tools
from trainer.tools.workout import workout_tools
from trainer_dev.testing.agent_harness import USER, chest_workout, exercise, make_harness, plank
from trainer_dev.testing.memory_store import InMemorySessionStore
from trainer_dev.testing.scripted_model import call


def registry() -> ToolSet:
    return ToolSet([*communication_tools(), *workout_tools()])


def context(coach: Any = None) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(USER)
    return ToolContext(user_id=USER, session_id=session.id, store=store, coach=coach)


def new_exercise(name: str = "Dips", **overrides: Any) -> dict[str, Any]:
    return {k: v for k, v in exercise(name, **overrides).items() if k != "order"}


async def generated(reg: ToolSet, ctx: ToolContext, workout: dict[str, Any] | None = None) -> dict[str, Any]:
    outcome = await reg.execute("generate_workout", {"workout": workout or chest_workout()}, ctx)
    assert outcome.success, outcome.formatted
    return outcome.result_json()


async def state(ctx: ToolContext, key: str) -> dict[str, Any]:
    value = await ctx.get_state(key)
    assert value is not None
    return value


def wire(outcome: ToolOutcome) -> dict[str, Any]:
    return outcome.result_json()


async def test_an_exercise_without_an_order_goes_at_the_end() -> None:
    ctx, reg = context(), registry()
    gen = await generated(reg, ctx)
    outcome = await reg.execute("add_exercise_to_workout", {"exercise": new_exercise("Dips")}, ctx)
    assert outcome.success, outcome.formatted
    result = wire(outcome)
    assert result["order"] == 4 and result["exercise_count"] == 4
    assert result["exercise_id"].startswith("ex_") and result["exercise_id"] not in {
        e["id"] for e in gen["exercises"]
    }
    assert result["artifact_id"] == gen["artifact_id"] and result["workout_id"] == "workout_1"
    current = await state(ctx, "current_workout")
    assert [(e["exercise_name"], e["order"]) for e in current["exercises"]] == [
        ("Bench Press", 1),
        ("Push-ups", 2),
        ("Plank", 3),
        ("Dips", 4),
    ]
    assert current["summary"]["exercise_count"] == 4
    artifact = (await state(ctx, "artifacts"))[gen["artifact_id"]]
    assert [e["exercise_name"] for e in artifact["payload"]["exercises"]] == [
        "Bench Press",
        "Push-ups",
        "Plank",
        "Dips",
    ]
    assert artifact["summary"]["exercise_count"] == 4
    displayables = await state(ctx, "displayables")
    assert displayables["workouts"]["workout_1"]["exercise_ids"][-1] == result["exercise_id"]
    assert displayables["exercises"][result["exercise_id"]]["exercise_name"] == "Dips"
    assert outcome.formatted.startswith(
        f'<tool_result tool="add_exercise_to_workout" status="ok">Added {result["exercise_id"]}: Dips (reps) '
        "[order: 4] - 3x[10,10,10], rest 60s; the workout now has 4 exercises"
    )
    assert f"artifact_id={gen['artifact_id']}" in outcome.formatted


async def test_an_exercise_at_a_position_moves_the_later_ones_down() -> None:
    ctx, reg = context(), registry()
    await generated(reg, ctx)
    outcome = await reg.execute(
        "add_exercise_to_workout", {"exercise": {**new_exercise("Incline Press"), "order": 2}}, ctx
    )
    assert outcome.success, outcome.formatted
    current = await state(ctx, "current_workout")
    assert [(e["exercise_name"], e["order"]) for e in current["exercises"]] == [
        ("Bench Press", 1),
        ("Incline Press", 2),
        ("Push-ups", 3),
        ("Plank", 4),
    ]
    far = await reg.execute(
        "add_exercise_to_workout", {"exercise": {**new_exercise("Curl"), "order": 50}}, ctx
    )
    assert far.success and wire(far)["order"] == 5


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"muscles_utilized": [{"muscle": "Chest", "share": 0.5}]}, "muscles_utilized shares sum to 0.50"),
        ({"exercise_type": "hold"}, "'hold_sec' is required for hold exercises"),
        ({"muscles_utilized": [{"muscle": "Wings", "share": 1.0}]}, "muscle"),
        ({"id": "ex_chosen"}, "id"),
    ],
)
async def test_the_new_exercise_is_validated_like_a_generated_one(change: dict[str, Any], error: str) -> None:
    ctx, reg = context(), registry()
    await generated(reg, ctx)
    before = await state(ctx, "current_workout")
    exercise_in = {**new_exercise(), **change}
    outcome = await reg.execute("add_exercise_to_workout", {"exercise": exercise_in}, ctx)
    if change.get("id"):
        assert outcome.success and wire(outcome)["exercise_id"] != "ex_chosen"
        return
    assert not outcome.success and error in wire(outcome)["error"]
    assert await state(ctx, "current_workout") == before


async def test_group_rules_hold_after_the_insert() -> None:
    ctx, reg = context(), registry()
    workout = {
        "exercises": [
            exercise("Fly", 1, group={"id": "ss1", "type": "superset", "position": 1, "name": "Finisher"}),
            exercise("Push-ups", 2, group={"id": "ss1", "type": "superset", "position": 2}),
            plank(3),
        ]
    }
    await generated(reg, ctx, workout)
    split = await reg.execute("add_exercise_to_workout", {"exercise": {**new_exercise(), "order": 2}}, ctx)
    assert not split.success and "members must be consecutive" in wire(split)["error"]
    third = await reg.execute(
        "add_exercise_to_workout",
        {
            "exercise": {
                **new_exercise(),
                "order": 3,
                "group": {"id": "ss1", "type": "superset", "position": 3},
            }
        },
        ctx,
    )
    assert not third.success and "superset 'ss1' needs exactly 2 exercises, has 3" in wire(third)["error"]


async def test_adding_needs_a_workout_and_reports_coach_problems() -> None:
    reg = registry()
    empty = await reg.execute("add_exercise_to_workout", {"exercise": new_exercise()}, context())
    assert not empty.success and "No active workout" in wire(empty)["error"]

    class Coach:
        def __init__(self) -> None:
            self.checked: list[Workout] = []

        async def check_workout(self, workout: Workout, ctx: ToolContext) -> list[str]:
            self.checked.append(workout)
            return ["Dips needs a dip station, not available at Home"]

        async def after_generation(self, ctx: ToolContext) -> None:
            return None

    coach = Coach()
    ctx = context(coach)
    await generated(reg, ctx)
    outcome = await reg.execute("add_exercise_to_workout", {"exercise": new_exercise()}, ctx)
    assert isinstance(outcome.result, AddResult)
    assert outcome.result.problems == ["Dips needs a dip station, not available at Home"]
    assert [e.exercise_name for e in coach.checked[-1].exercises][-1] == "Dips"
    assert "Problems to fix before delivering:" in outcome.formatted


def test_the_result_marks_the_workout_changed() -> None:
    result = AddResult(exercise_id="ex_1", exercise={}, exercise_count=1, order=1, artifact_id="art_1")
    reply = Reply()
    result.add_to_reply(reply)
    delivered = result.delivered_artifact()
    assert reply.workout_changed and delivered is not None and delivered.artifact_id == "art_1"


async def test_the_turn_reply_carries_the_workout_with_the_added_exercise() -> None:
    h = make_harness(
        [
            call("generate_workout", workout=chest_workout()),
            call("add_exercise_to_workout", exercise={**new_exercise("Dips"), "order": 1}),
            call("message_notify_user", message="Added dips first"),
            call("idle", reason="x"),
        ]
    )
    result = await h.loop.run_turn(USER, "add dips at the start")
    assert [e["exercise_name"] for e in result.response.exercises or []] == [
        "Dips",
        "Bench Press",
        "Push-ups",
        "Plank",
    ]
