"""The tool system (docs/architecture.md#tools) for the registry, communication and workout tools."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
from pydantic import BaseModel
from trainer.agents.tools import ToolOutcome, ToolSet
from trainer.domain.progression import ProgressionTarget
from trainer.domain.workout import Workout
from trainer.domain.workout_checks import WorkoutReview
from trainer.services.errors import UserDataError
from trainer.store.models import EventType
from trainer.tools.base import Tool, ToolContext, ToolError, ToolResult, WorkoutCoach
from trainer.tools.communication import communication_tools
from trainer.tools.generate_workout import GenerateResult
from trainer.tools.workout import workout_tools
from trainer_dev.testing.agent_harness import USER, chest_workout, exercise, plank
from trainer_dev.testing.memory_store import InMemorySessionStore


def registry() -> ToolSet:
    return ToolSet([*communication_tools(), *workout_tools()])


def context(store: InMemorySessionStore | None = None, coach: WorkoutCoach | None = None) -> ToolContext:
    store = store or InMemorySessionStore()
    session = store.new_session(USER)
    return ToolContext(user_id=USER, session_id=session.id, store=store, coach=coach)


def wire(outcome: ToolOutcome) -> dict[str, Any]:
    """The result as stored in the tool_result event and sent to the client."""
    return outcome.result_json()


async def generated(reg: ToolSet, ctx: ToolContext, workout: dict[str, Any] | None = None) -> dict[str, Any]:
    execution = await reg.execute("generate_workout", {"workout": workout or chest_workout()}, ctx)
    assert execution.success, execution.formatted
    assert isinstance(execution.result, GenerateResult)
    return wire(execution)


class FakeCoach:
    def __init__(
        self, problems: list[str] | None = None, targets: dict[str, ProgressionTarget] | None = None
    ) -> None:
        self.problems = problems or []
        self.targets = targets or {}
        self.checked: list[Workout] = []
        self.generated_in: list[str] = []

    async def check_workout(self, workout: Workout, ctx: ToolContext) -> list[str]:
        return (await self.review_workout(workout, ctx)).problems

    async def review_workout(self, workout: Workout, ctx: ToolContext) -> WorkoutReview:
        self.checked.append(workout)
        ordered = sorted(workout.exercises, key=lambda e: e.order)
        return WorkoutReview(list(self.problems), [self.targets.get(e.exercise_name) for e in ordered])

    async def after_generation(self, ctx: ToolContext) -> None:
        self.generated_in.append(ctx.session_id)


def replacement(name: str) -> dict[str, Any]:
    """An exercise without `order`: it takes the replaced exercise's position."""
    return {k: v for k, v in exercise(name).items() if k != "order"}


class _NoArgs(BaseModel):
    pass


class _Exploding(Tool[_NoArgs, ToolResult]):
    name = "exploding"
    description = "raises"
    Args = _NoArgs
    Result = ToolResult

    async def execute(self, args: _NoArgs, ctx: ToolContext) -> ToolResult:
        raise KeyError("secret detail")

    def format(self, result: ToolResult) -> str:
        return ""


class _Refusing(_Exploding):
    name = "refusing"

    async def execute(self, args: _NoArgs, ctx: ToolContext) -> ToolResult:
        raise ToolError("not allowed: reason")


class _ServiceRefusing(_Exploding):
    name = "service_refusing"

    async def execute(self, args: _NoArgs, ctx: ToolContext) -> ToolResult:
        raise UserDataError("weight_unit must be one of kg, lbs")


# --- registry -------------------------------------------------------------------------------------


def test_tool_registry_combines_the_tool_families_it_is_given() -> None:
    reg = registry()
    assert reg.names == [
        "message_notify_user",
        "message_ask_user",
        "idle",
        "generate_workout",
        "swap_exercise",
        "adjust_exercise",
        "remove_exercise",
        "add_exercise_to_workout",
    ]
    assert [d["name"] for d in reg.definitions()] == reg.names
    with pytest.raises(ValueError, match="registered twice"):
        reg.register(communication_tools()[0])


def test_definitions_are_anthropic_format_deterministic_with_cache_control_on_the_last() -> None:
    first, second = registry().definitions(), registry().definitions()
    assert json.dumps(first) == json.dumps(second)
    assert set(first[0]) == {"name", "description", "input_schema"}
    assert first[-1]["cache_control"] == {"type": "ephemeral"}
    schema = next(d for d in first if d["name"] == "generate_workout")["input_schema"]
    assert schema["type"] == "object" and "workout" in schema["required"]
    workout_def = schema["$defs"]["WorkoutInput"]
    assert "title" in workout_def["properties"]
    assert "title" not in workout_def


async def test_unknown_tool_name_raises_an_error_observation() -> None:
    execution = await registry().execute("teleport", {}, context())
    assert not execution.success
    assert (
        execution.formatted
        == '<tool_result tool="teleport" status="error">Unknown tool: teleport</tool_result>'
    )


async def test_each_tool_result_is_wrapped_in_xml_tags() -> None:
    ok = await registry().execute("message_notify_user", {"message": "hi"}, context())
    assert ok.formatted == '<tool_result tool="message_notify_user" status="ok">ok</tool_result>'
    bad = await registry().execute("message_notify_user", {}, context())
    assert bad.formatted.startswith('<tool_result tool="message_notify_user" status="error">')


async def test_invalid_arguments_return_compact_pydantic_errors() -> None:
    workout = chest_workout()
    del workout["exercises"][0]["sets"]
    workout["exercises"][1]["muscles_utilized"] = [{"muscle": "Pecs", "share": 1.0}]
    execution = await registry().execute("generate_workout", {"workout": workout}, context())
    assert not execution.success
    assert "workout.exercises.0: 'sets' is required for reps exercises" in wire(execution)["error"]
    assert "workout.exercises.1.muscles_utilized.0.muscle" in wire(execution)["error"]
    assert "Traceback" not in execution.formatted


async def test_tool_error_becomes_an_error_observation_with_its_message() -> None:
    reg = ToolSet([_Refusing()])
    execution = await reg.execute("refusing", {}, context())
    assert wire(execution) == {"success": False, "error": "not allowed: reason"}


async def test_a_service_error_is_the_tools_expected_failure_with_its_message() -> None:
    with pytest.raises(ToolError, match=r"^weight_unit must be one of kg, lbs$"):
        await _ServiceRefusing().execute(_NoArgs(), context())
    execution = await ToolSet([_ServiceRefusing()]).execute("service_refusing", {}, context())
    assert wire(execution) == {"success": False, "error": "weight_unit must be one of kg, lbs"}


async def test_unexpected_exception_becomes_an_internal_error_observation(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reg = ToolSet([_Exploding()])
    execution = await reg.execute("exploding", {}, context())
    assert wire(execution)["error"] == "internal error in exploding: KeyError"
    assert "secret detail" not in execution.formatted
    assert any(r.exc_info for r in caplog.records)


def test_status_messages_follow_the_seed_table() -> None:
    reg = registry()
    expected = {
        "generate_workout": ("Creating your workout...", "Workout ready"),
        "swap_exercise": ("Finding alternative...", "Exercise swapped"),
        "adjust_exercise": ("Adjusting exercise...", "Exercise updated"),
        "remove_exercise": ("Removing exercise...", "Exercise removed"),
        "idle": ("Wrapping up...", "All done"),
    }
    for name, (start, done) in expected.items():
        status = reg.status_for(name)
        assert status is not None and (status.start, status.done) == (start, done)
    assert reg.status_for("message_notify_user") is None
    assert reg.status_for("message_ask_user") is None
    ends = {name: tool.ends_turn for name in reg.names if (tool := reg.get(name))}
    assert ends["idle"] == "done" and ends["message_ask_user"] == "awaiting_user"
    assert ends["message_notify_user"] is None and ends["generate_workout"] is None


# --- generate_workout -------------------------------------------------------------------------------


async def test_generate_workout_returns_an_artifact_id_and_stores_exercises_in_session_state() -> None:
    store = InMemorySessionStore()
    ctx = context(store)
    reg = registry()
    result = await generated(reg, ctx)
    assert result["artifact_id"].startswith("art_") and len(result["artifact_id"]) == 16
    assert result["workout_id"] == "workout_1"
    assert result["exercise_count"] == 3
    assert all(e["id"].startswith("ex_") and len(e["id"]) == 9 for e in result["exercises"])
    current = await store.get_state(ctx.session_id, "current_workout")
    assert current is not None
    assert [e["id"] for e in current["exercises"]] == [e["id"] for e in result["exercises"]]
    assert current["artifact_id"] == result["artifact_id"]
    displayables = await store.get_state(ctx.session_id, "displayables")
    assert displayables is not None
    assert displayables["workouts"]["workout_1"]["exercise_ids"] == [e["id"] for e in result["exercises"]]
    [artifact_event] = [e for e in store.all_events(ctx.session_id) if e.event_type is EventType.ARTIFACT]
    assert artifact_event.data["artifact_id"] == result["artifact_id"]
    assert artifact_event.data["type"] == "exercise_list" and artifact_event.data["schema_version"] == "1"
    assert artifact_event.data["auto_start"] is False
    assert artifact_event.data["summary"]["exercise_count"] == 3
    assert len(artifact_event.data["payload"]["exercises"]) == 3
    second = await generated(reg, ctx)
    assert second["workout_id"] == "workout_2"


async def test_generate_workout_formatted_result_says_the_workout_is_not_shown_yet() -> None:
    """A fact, not an order: how a turn ends and delivers is the system prompt's <turn_end>."""
    ctx = context()
    execution = await registry().execute("generate_workout", {"workout": chest_workout()}, ctx)
    art = wire(execution)["artifact_id"]
    first = wire(execution)["exercises"][0]
    assert (
        f"{first['id']}: Bench Press (reps) [order: 1] - 3x[10,10,10] @ 60kg, rest 120s"
        in execution.formatted
    )
    assert execution.formatted.endswith(f"artifact_id={art} is not shown to the user yet.</tool_result>")


async def test_generate_workout_reports_checker_problems_without_blocking() -> None:
    coach = FakeCoach(["Bench Press needs a barbell, not available at Home"])
    execution = await registry().execute(
        "generate_workout", {"workout": chest_workout()}, context(coach=coach)
    )
    assert isinstance(execution.result, GenerateResult)
    assert execution.result.problems == ["Bench Press needs a barbell, not available at Home"]
    assert "Problems to fix before delivering:" in execution.formatted
    assert coach.checked[0].exercises[0].id is not None


async def test_generate_workout_carries_each_exercises_progression_target() -> None:
    workout = chest_workout()
    name = workout["exercises"][0]["exercise_name"]
    target = ProgressionTarget(
        exercise_name=name, load=62.5, unit="kg", reps=8, sets=3, rep_low=8, rep_high=12, rule="more_load",
        based_on=name, last_load=60, last_reps=12, last_date=date(2026, 3, 2), max_load=62.5,
        reference_e1rm=79.17, reasoning="60 kg x 12 on 2 Mar reached the top of your 8-12 reps.",
    )  # fmt: skip
    execution = await registry().execute(
        "generate_workout", {"workout": workout}, context(coach=FakeCoach(targets={name: target}))
    )
    assert isinstance(execution.result, GenerateResult)
    targets = execution.result.targets
    assert [t.exercise_name for t in targets] == [e["exercise_name"] for e in workout["exercises"]]
    assert targets[0].target == target and all(t.target is None for t in targets[1:])
    assert targets[0].exercise_id == execution.result.exercises[0].id
    assert f"{targets[0].exercise_id} {name}: 62.5 kg x 8 - 60 kg x 12 on 2 Mar" in execution.formatted


async def test_generate_workout_runs_the_after_generation_hook() -> None:
    coach = FakeCoach()
    ctx = context(coach=coach)
    await generated(registry(), ctx)
    assert coach.generated_in == [ctx.session_id]


async def test_workout_state_survives_new_tool_instances() -> None:
    store = InMemorySessionStore()
    ctx = context(store)
    await generated(registry(), ctx)
    execution = await registry().execute("remove_exercise", {"exercise_id": "3"}, ctx)
    assert execution.success


# --- message_notify_user ----------------------------------------------------------------------------


async def test_message_notify_user_with_artifact_id_resolves_and_includes_the_artifact_payload() -> None:
    ctx = context()
    reg = registry()
    art = (await generated(reg, ctx))["artifact_id"]
    execution = await reg.execute("message_notify_user", {"message": "Here!", "artifact_id": art}, ctx)
    assert wire(execution)["artifact_id"] == art
    assert wire(execution)["artifact"]["type"] == "exercise_list"
    assert len(wire(execution)["artifact"]["payload"]["exercises"]) == 3


async def test_message_notify_user_unknown_artifact_is_a_warning_not_a_failure() -> None:
    execution = await registry().execute(
        "message_notify_user", {"message": "x", "artifact_id": "art_nope"}, context()
    )
    assert execution.success
    assert "artifact art_nope not found" in wire(execution)["warning"]
    assert "artifact" not in wire(execution)
    assert execution.formatted.startswith('<tool_result tool="message_notify_user" status="ok">ok (warning:')


async def test_message_notify_user_resolves_workout_and_exercise_attachments() -> None:
    ctx = context()
    reg = registry()
    gen = await generated(reg, ctx)
    ex_id = gen["exercises"][1]["id"]
    execution = await reg.execute(
        "message_notify_user", {"message": "Look", "attachments": ["workout_1", ex_id, "ex_ghost"]}, ctx
    )
    workout, single = wire(execution)["attachments"]
    assert workout["type"] == "workout" and len(workout["data"]["exercises"]) == 3
    assert single == {"type": "exercise", "id": ex_id, "data": workout["data"]["exercises"][1]}
    assert "ex_ghost" in wire(execution)["warning"]
    assert wire(execution)["artifact_id"] == gen["artifact_id"]


async def test_message_ask_user_and_idle_results() -> None:
    reg = registry()
    ask = await reg.execute("message_ask_user", {"question": "Gym?", "options": ["Yes", "No"]}, context())
    assert wire(ask) == {
        "success": True,
        "question": "Gym?",
        "options": ["Yes", "No"],
        "awaiting_response": True,
    }
    idle = await reg.execute("idle", {"reason": "done"}, context())
    assert wire(idle) == {"success": True, "idle": True, "reason": "done"}
    assert idle.formatted == '<tool_result tool="idle" status="ok"></tool_result>'


# --- swap / adjust / remove -------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["id", "order"])
async def test_swap_adjust_remove_accept_both_the_id_and_the_order_number(by: str) -> None:
    ctx = context()
    reg = registry()
    gen = await generated(reg, ctx)
    ref = (lambda i: gen["exercises"][i]["id"]) if by == "id" else (lambda i: str(i + 1))

    swap = await reg.execute(
        "swap_exercise", {"exercise_id": ref(1), "new_exercise": replacement("Dips")}, ctx
    )
    assert swap.success, swap.formatted
    assert wire(swap)["old_name"] == "Push-ups" and wire(swap)["new_exercise"]["order"] == 2

    adjust = await reg.execute(
        "adjust_exercise", {"exercise_id": ref(0), "adjustments": {"rest_sec": 90}}, ctx
    )
    assert adjust.success, adjust.formatted
    assert wire(adjust)["old_values"] == {"rest_sec": 120}

    remove = await reg.execute("remove_exercise", {"exercise_id": ref(2)}, ctx)
    assert remove.success, remove.formatted
    assert wire(remove)["removed_exercise"]["exercise_name"] == "Plank"


async def test_adjust_exercise_prevents_changing_id_and_type() -> None:
    ctx = context()
    reg = registry()
    await generated(reg, ctx)
    for field, value in (("id", "ex_hacked"), ("exercise_type", "hold"), ("type", "hold")):
        execution = await reg.execute(
            "adjust_exercise", {"exercise_id": "1", "adjustments": {field: value}}, ctx
        )
        assert not execution.success
        assert f"Cannot change {field}" in wire(execution)["error"]
    current = await ctx.store.get_state(ctx.session_id, "current_workout")
    assert current is not None and current["exercises"][0]["exercise_type"] == "reps"


async def test_adjust_exercise_revalidates_and_resizes_per_set_lists() -> None:
    ctx = context()
    reg = registry()
    await generated(reg, ctx)
    grow = await reg.execute("adjust_exercise", {"exercise_id": "1", "adjustments": {"sets": 4}}, ctx)
    assert grow.success, grow.formatted
    assert wire(grow)["exercise"]["reps"] == [10, 10, 10, 10]
    assert wire(grow)["exercise"]["load_each"] == [60, 60, 60, 60]
    assert "sets 3→4" in grow.formatted
    bad = await reg.execute("adjust_exercise", {"exercise_id": "1", "adjustments": {"reps": [5]}}, ctx)
    assert not bad.success and "'reps' needs one value per set (4), got 1" in wire(bad)["error"]
    unknown = await reg.execute("adjust_exercise", {"exercise_id": "1", "adjustments": {"load": 80}}, ctx)
    assert not unknown.success and "load" in wire(unknown)["error"]


async def test_adjust_exercise_order_moves_and_renumbers() -> None:
    ctx = context()
    reg = registry()
    gen = await generated(reg, ctx)
    execution = await reg.execute("adjust_exercise", {"exercise_id": "3", "adjustments": {"order": 1}}, ctx)
    assert execution.success, execution.formatted
    current = await ctx.store.get_state(ctx.session_id, "current_workout")
    assert current is not None
    assert [(e["exercise_name"], e["order"]) for e in current["exercises"]] == [
        ("Plank", 1),
        ("Bench Press", 2),
        ("Push-ups", 3),
    ]
    assert current["exercises"][0]["id"] == gen["exercises"][2]["id"]


async def test_remove_exercise_renumbers_orders_and_updates_the_artifact() -> None:
    ctx = context()
    reg = registry()
    gen = await generated(reg, ctx)
    execution = await reg.execute("remove_exercise", {"exercise_id": gen["exercises"][0]["id"]}, ctx)
    assert wire(execution)["remaining_count"] == 2
    current = await ctx.store.get_state(ctx.session_id, "current_workout")
    assert current is not None and [e["order"] for e in current["exercises"]] == [1, 2]
    artifacts = await ctx.store.get_state(ctx.session_id, "artifacts")
    assert artifacts is not None
    payload = artifacts[gen["artifact_id"]]["payload"]
    assert [e["exercise_name"] for e in payload["exercises"]] == ["Push-ups", "Plank"]
    assert artifacts[gen["artifact_id"]]["summary"]["exercise_count"] == 2
    displayables = await ctx.store.get_state(ctx.session_id, "displayables")
    assert displayables is not None and len(displayables["workouts"]["workout_1"]["exercise_ids"]) == 2


async def test_removing_a_superset_member_dissolves_the_superset() -> None:
    ctx = context()
    reg = registry()
    workout = {
        "exercises": [
            exercise(
                "Fly",
                1,
                group={"id": "ss1", "type": "superset", "position": 1, "name": "Finisher", "rounds": 3},
            ),
            exercise("Push-ups", 2, group={"id": "ss1", "type": "superset", "position": 2}),
            plank(3),
        ]
    }
    await generated(reg, ctx, workout)
    execution = await reg.execute("remove_exercise", {"exercise_id": "1"}, ctx)
    assert execution.success, execution.formatted
    current = await ctx.store.get_state(ctx.session_id, "current_workout")
    assert current is not None and all("group" not in e for e in current["exercises"])


async def test_swap_keeps_the_replaced_exercise_group() -> None:
    ctx = context()
    reg = registry()
    workout = {
        "exercises": [
            exercise("Fly", 1, group={"id": "ss1", "type": "superset", "position": 1, "name": "Finisher"}),
            exercise("Push-ups", 2, group={"id": "ss1", "type": "superset", "position": 2}),
        ]
    }
    await generated(reg, ctx, workout)
    execution = await reg.execute(
        "swap_exercise", {"exercise_id": "2", "new_exercise": replacement("Dips")}, ctx
    )
    assert execution.success, execution.formatted
    assert wire(execution)["new_exercise"]["group"]["position"] == 2
    assert execution.formatted.startswith('<tool_result tool="swap_exercise" status="ok">Replaced ')


async def test_swap_with_an_explicit_order_moves_the_new_exercise() -> None:
    ctx = context()
    reg = registry()
    await generated(reg, ctx)
    execution = await reg.execute(
        "swap_exercise", {"exercise_id": "3", "new_exercise": exercise("Dips", 1)}, ctx
    )
    assert execution.success, execution.formatted
    current = await ctx.store.get_state(ctx.session_id, "current_workout")
    assert current is not None
    assert [e["exercise_name"] for e in current["exercises"]] == ["Dips", "Bench Press", "Push-ups"]


async def test_modification_tools_without_a_workout_or_with_a_bad_id_give_clear_errors() -> None:
    ctx = context()
    reg = registry()
    none = await reg.execute("remove_exercise", {"exercise_id": "1"}, ctx)
    assert "No active workout" in wire(none)["error"]
    gen = await generated(reg, ctx)
    missing = await reg.execute(
        "adjust_exercise", {"exercise_id": "ex_zzzzzz", "adjustments": {"sets": 2}}, ctx
    )
    assert "Exercise 'ex_zzzzzz' not found" in wire(missing)["error"]
    assert gen["exercises"][0]["id"] in wire(missing)["error"] and "order 1" in wire(missing)["error"]


def test_the_agent_loop_names_no_tool() -> None:
    """What the loop needs to know about a tool is a property of the tool or of its result."""
    import re
    from pathlib import Path

    from trainer.agents import closing, steps
    from trainer.chat import turn, turn_recorder
    from trainer.chat.agent import CHAT

    source = "".join(Path(m.__file__).read_text() for m in (turn, turn_recorder, steps, closing))
    named = [t.name for t in CHAT.tools if re.search(rf"\b{t.name}\b", source)]
    assert named == []


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("generate_workout", {"workout": {"exercises": [exercise("Run", exercise_type="duration",
            sets=None, reps=None, rest_sec=None, duration_min=30, distance=1e308, distance_unit="km")]}}),
        ("generate_workout", {"workout": {"exercises": [exercise("Bench", load_each=[float("nan")] * 3,
            load_unit="kg")]}}),
        ("generate_workout", {"workout": {"exercises": [exercise("Bench", reps=[10**9] * 3)]}}),
    ],
)  # fmt: skip
async def test_unbounded_or_non_finite_numbers_are_refused_before_anything_is_stored(
    tool: str, args: dict[str, Any]
) -> None:
    """`distance: 1e308`, NaN loads and absurd reps are an error observation; nothing
    reaches the session state or the observation as a number."""
    store = InMemorySessionStore()
    ctx = context(store)
    outcome = await registry().execute(tool, args, ctx)
    assert not outcome.success
    assert "Invalid arguments" in outcome.formatted
    assert await store.get_state(ctx.session_id, "current_workout") is None
