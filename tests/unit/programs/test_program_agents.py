"""The four program agents through the registry and run_agent: registration resolves, the offline
backend builds a plan, a week with each day's message and the on-demand structure, a pasted workout;
a model's draft goes through the same code (numbers computed after it answers), a draft that breaks
the plan's rules is sent back with the errors and the second answer is used."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from pydantic import BaseModel
from trainer.agents import (
    AgentFailed,
    AgentRegistry,
    AgentRunDeps,
    Backends,
    MemoryInvocations,
    PromptStore,
    run_agent,
)
from trainer.agents.tools import ToolSet
from trainer.offline.structured import OfflineStructured
from trainer.programs.agents import (
    FITNESS_PLAN,
    MICROCYCLE,
    PROGRAM_AGENTS,
    WEEK_MESSAGES,
    WORKOUT_MESSAGE,
    WORKOUT_STRUCTURE,
    ExerciseOptions,
    ExerciseOptionsArgs,
    ExerciseOptionsResult,
    attach_messages,
    week_messages_input,
)
from trainer.programs.inputs import slim_row
from trainer.programs.microcycle.week import build_week, draft_week
from trainer.programs.models import (
    SMS_LIMIT,
    MessageInput,
    PlanInputs,
    PlanResult,
    PlanWeek,
    StructuredWorkout,
    StructureInput,
    WeekInput,
    WeekMessagesDraft,
    WeekMessagesInput,
)
from trainer.programs.plan.draft import draft_plan
from trainer.programs.plan.finalize import build_plan
from trainer.providers.ports import AgentReply, AgentRequest, RetryTurn, ToolCall, Usage
from trainer.tools.base import ToolContext

from tests.unit.programs.programs_fixtures import NOW, inputs, logged


def deps(model: Any = None) -> AgentRunDeps:
    async def no_sleep(_: float) -> None:
        return None

    offline = OfflineStructured(AgentRegistry(PROGRAM_AGENTS))
    backends = Backends.single(model or offline, "claude-haiku-4-5" if model else "offline")
    return AgentRunDeps(
        backends=backends,
        prompts=PromptStore(None),
        invocations=MemoryInvocations(),
        sleep=no_sleep,
    )


class Scripted:
    """A model answering each call with the next output (a pydantic model, a dict or text)."""

    provider = "anthropic"

    def __init__(self, *outputs: Any) -> None:
        self.outputs = list(outputs)
        self.requests: list[AgentRequest] = []

    async def generate(self, request: AgentRequest) -> AgentReply:
        self.requests.append(request)
        output = self.outputs.pop(0)
        usage = Usage(input_tokens=1000, output_tokens=200)
        if isinstance(output, str):
            return AgentReply(output, None, [], usage, "claude-haiku-4-5", output)
        data = output.model_dump(mode="json") if isinstance(output, BaseModel) else output
        return AgentReply(
            None,
            data,
            [],
            usage,
            "claude-haiku-4-5",
            str(data),
            ToolCall(f"toolu_{len(self.requests)}", "emit_x", data),
        )


def test_the_program_agents_fit_together_with_their_prompts() -> None:
    AgentRegistry(PROGRAM_AGENTS).check(prompt_ids=PromptStore(None).default_ids)
    assert [s.agent for s in MICROCYCLE.sub_agents] == [WEEK_MESSAGES, WORKOUT_STRUCTURE]
    assert MICROCYCLE.sub_agents[1].trigger == "on_demand"


async def test_offline_plan_then_week_with_messages() -> None:
    given = inputs()
    plan_run = await run_agent(FITNESS_PLAN, given, deps())
    result = plan_run.output_as(PlanResult)
    assert result.plan.deload_weeks == [4, 8, 12]
    assert result.markdown.startswith("# 12-Week Upper/Lower Strength Plan")
    week_run = await run_agent(MICROCYCLE, WeekInput(plan=result.plan, week_number=1, inputs=given), deps())
    week = week_run.output_as(PlanWeek)
    assert len(week.days) == 7
    assert all(d.message and len(d.message) <= SMS_LIMIT for d in week.days)
    assert week.days[0].message.startswith("🏋️ Monday Upper A - Week 1")  # type: ignore[union-attr]
    assert len(week_run.sub_outputs["week_messages"]) == 7
    assert "workout_structure" not in week_run.sub_outputs


async def test_the_structure_sub_agent_runs_on_demand() -> None:
    given = inputs()
    plan = build_plan(given)
    run = await run_agent(
        MICROCYCLE,
        WeekInput(plan=plan, week_number=1, inputs=given),
        deps(),
        on_demand={"workout_structure"},
    )
    structured = run.sub_outputs["workout_structure"]
    week = run.output_as(PlanWeek)
    training = [d for d in week.days if d.workout is not None]
    assert len(structured) == len(training)
    for item, day in zip(structured, training, strict=True):
        assert isinstance(item, StructuredWorkout)
        assert [e.exercise_name for e in item.workout.exercises] == [
            e.exercise_name for e in day.workout.exercises
        ]  # type: ignore[union-attr]


async def test_a_pasted_workout_imports() -> None:
    run = await run_agent(WORKOUT_STRUCTURE, StructureInput(text="Bench 4x8 @ 60kg\nhi coach"), deps())
    result = run.output_as(StructuredWorkout)
    assert result.workout.exercises[0].exercise_name == "Barbell Bench Press - Medium Grip"
    assert result.unrecognised == ["hi coach"]


async def test_a_models_draft_gets_its_numbers_from_code() -> None:
    given = inputs()
    draft = draft_plan(given).model_dump(mode="json")
    for cycle in draft["microcycles"]:
        cycle["weekly_pattern"][0]["slots"][0]["sets"] = 9
        cycle["weekly_pattern"][0]["slots"][0]["rep_low"] = 7
    model = Scripted(draft)
    result = (await run_agent(FITNESS_PLAN, given, deps(model))).output_as(PlanResult)
    slot = result.plan.microcycles[0].weekly_pattern[0].slots[0]
    assert slot.sets == 5 and (slot.rep_low, slot.rep_high) == (6, 8) and slot.rest_sec == 120
    assert model.requests[0].tools[0].name == ExerciseOptions.name


async def test_a_draft_on_the_wrong_days_is_retried_with_the_errors() -> None:
    given = inputs()
    good = draft_plan(given)
    bad = good.model_dump(mode="json")
    bad["microcycles"] = bad["microcycles"][:2]
    bad["microcycles"][1]["end_week"] = 12
    bad["microcycles"][1]["weekly_pattern"][0]["weekday"] = "Sunday"
    model = Scripted(bad, good)
    run = await run_agent(FITNESS_PLAN, given, deps(model))
    assert run.attempts == 2
    feedback = model.requests[1].messages[-1]
    assert isinstance(feedback, RetryTurn)
    assert "a 12-week plan needs at least 3 microcycles, has 2" in feedback.text
    assert "it must be Monday, Tuesday, Thursday, Friday" in feedback.text
    assert run.output_as(PlanResult).plan.microcycles[0].weekly_pattern[0].weekday == "Monday"


async def test_a_week_that_keeps_failing_fails_cleanly() -> None:
    given = inputs()
    plan = build_plan(given)
    draft = draft_week(plan, 1, given).model_dump(mode="json")
    draft["days"] = draft["days"][:6]
    model = Scripted(draft, draft, draft)
    with pytest.raises(AgentFailed) as failed:
        await run_agent(MICROCYCLE, WeekInput(plan=plan, week_number=1, inputs=given), deps(model))
    assert "the week needs exactly 7 days, has 6" in failed.value.errors


async def test_a_long_model_message_is_sent_back_then_cut() -> None:
    given = inputs()
    week = build_week(build_plan(given), 1, given)
    long = "💪 " + "x" * 2000
    model = Scripted(long, long + "!")
    with pytest.raises(AgentFailed) as failed:
        await run_agent(WORKOUT_MESSAGE, MessageInput(day=week.days[0]), deps(model))
    assert failed.value.errors == ["the message has 2003 characters; at most 1600"]
    fine = Scripted("Today: bench and rows 💪")
    run = await run_agent(WORKOUT_MESSAGE, MessageInput(day=week.days[0]), deps(fine))
    assert run.output == "Today: bench and rows 💪"


async def test_a_weeks_seven_messages_come_from_one_call() -> None:
    given = inputs()
    plan = build_plan(given)
    week_draft = draft_week(plan, 1, given)
    texts = [f"Day {i} 💪" for i in range(7)]
    model = Scripted(week_draft, WeekMessagesDraft(messages=texts))
    run = await run_agent(MICROCYCLE, WeekInput(plan=plan, week_number=1, inputs=given), deps(model))
    assert [r.agent for r in model.requests] == ["microcycle", "week_messages"]
    assert [d.message for d in run.output_as(PlanWeek).days] == texts
    asked = model.requests[1].input
    assert isinstance(asked, WeekMessagesInput) and len(asked.days) == 7 and asked.week_number == 1


async def test_a_wrong_number_of_messages_or_a_long_one_is_sent_back() -> None:
    given = inputs()
    plan = build_plan(given)
    week = build_week(plan, 1, given)
    asked = week_messages_input(week, WeekInput(plan=plan, week_number=1, inputs=given))
    long = "💪 " + "x" * 2000
    model = Scripted(WeekMessagesDraft(messages=["only one"]), WeekMessagesDraft(messages=[long] * 7))
    with pytest.raises(AgentFailed) as failed:
        await run_agent(WEEK_MESSAGES, asked, deps(model))
    assert "1 messages for 7 days; one per day, in order" in model.requests[1].messages[-1].text  # type: ignore[union-attr]
    assert failed.value.errors[0] == "the message for Monday has 2002 characters; at most 1600"
    offline = await run_agent(WEEK_MESSAGES, asked, deps())
    assert len(offline.output) == 7 and all(len(text) <= SMS_LIMIT for text in offline.output)
    assert offline.output[0].startswith("🏋️ Monday")


def test_missing_messages_fall_back_to_the_offline_text() -> None:
    given = inputs()
    week = build_week(build_plan(given), 1, given)
    attached = attach_messages(week, ["Custom Monday", None], "Plan")
    assert attached.days[0].message == "Custom Monday"
    assert attached.days[1].message and attached.days[1].message.startswith("🏋️ Tuesday")


async def test_the_exercise_options_tool_lists_only_what_the_user_can_do() -> None:
    given = inputs(
        equipment=["dumbbell", "bench"], preferences=[{"type": "injury", "description": "knee pain"}]
    )
    tools = ToolSet([ExerciseOptions()])
    ctx = ToolContext(user_id="u", agent_input=given)
    chest = await tools.execute("exercise_options", {"muscle": "Chest", "pattern": "horizontal push"}, ctx)
    assert isinstance(chest.result, ExerciseOptionsResult)
    assert "Dumbbell Bench Press" in chest.body and "Barbell" not in chest.body
    legs = await tools.execute("exercise_options", {"muscle": "Quadriceps", "pattern": "squat"}, ctx)
    assert "No exercise for Quadriceps" in legs.body
    assert ExerciseOptionsArgs(muscle="Chest").role == "main"


def test_offline_outputs_survive_the_inputs_json_round_trip() -> None:
    rows = [slim_row(logged("Barbell Bench Press - Medium Grip", 80, [10, 10, 9], NOW - timedelta(days=2)))]
    given = inputs(history=rows, progression_history=rows, timezone="America/New_York")
    again = PlanInputs.model_validate_json(given.model_dump_json())
    assert draft_plan(again) == draft_plan(given)
    plan = build_plan(given)
    assert draft_week(plan, 1, again) == draft_week(plan, 1, given)
    assert build_week(plan, 1, again) == build_week(plan, 1, given)
