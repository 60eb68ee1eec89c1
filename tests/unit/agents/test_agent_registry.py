"""The agent registry (docs/architecture.md#one-agent-runtime): definitions point at their code, the registry
checks them together at start-up, the dependency graph, tool priority, clear/replace, and every agent the
system runs listed."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel
from trainer.agents import (
    AgentDefinition,
    AgentRegistry,
    Callback,
    CallbackEvent,
    ContextProvider,
    ContextRequest,
    OutputSpec,
    RegistryError,
    RetryPolicy,
    SubAgent,
)
from trainer.agents.tools import ToolSet
from trainer.chat.agent import CHAT, CHAT_AGENTS, CHAT_TOOLS
from trainer.chat.turn import ChatRunner
from trainer.container import build_agent_registry
from trainer.programs import agents as program_agents
from trainer.providers.ports import ToolCall
from trainer.sources.registry import SOURCES
from trainer.tools.base import Tool, ToolContext, ToolResult


class Echo(BaseModel):
    text: str


class Args(BaseModel):
    query: str = ""


class Done(ToolResult):
    pass


def _tool(tool_name: str, tool_priority: int) -> Tool[Args, Done]:
    class Named(Tool[Args, Done]):
        name: ClassVar[str] = tool_name
        description: ClassVar[str] = f"{tool_name} tool"
        Args = Args
        Result = Done
        priority: ClassVar[int] = tool_priority

        async def execute(self, args: Args, ctx: ToolContext) -> Done:
            return Done()

        def format(self, result: Done) -> str:
            return "ok"

    return Named()


async def notify(event: CallbackEvent) -> None:
    return None


async def _offline(value: Any, ctx: Any) -> Echo:
    return Echo(text=str(value))


async def training_plan(request: ContextRequest) -> str:
    return "plan"


def non_empty(output: Echo, _: Any) -> list[str]:
    return [] if output.text else ["empty"]


FORMATTER = AgentDefinition(name="formatter", description="formats", model_role="light", offline=_offline)
EXTRACTOR = AgentDefinition(
    name="extractor", description="extracts", output=OutputSpec.json_of(Echo), offline=_offline
)
PLANNER = AgentDefinition(
    name="planner",
    description="plans",
    model_role="main",
    tools=(_tool("lookup", 2), _tool("save", 1)),
    context=(SOURCES["user_profile"], ContextProvider("training_plan", training_plan)),
    output=OutputSpec.json_of(Echo),
    validators=(non_empty,),
    sub_agents=(
        SubAgent(FORMATTER, transform=lambda output, _: output.text, batch=0),
        SubAgent(
            EXTRACTOR,
            condition=lambda output, _: bool(output.text),
            trigger="on_demand",
            cache_output=True,
            batch=1,
        ),
    ),
    callbacks=(Callback(notify, when="always"),),
    offline=_offline,
    retry=RetryPolicy(max_retries=2, retry_on=("validation_error", "timeout"), backoff_ms=10),
    timeout_seconds=45,
    cost_category="high",
)


def _registry() -> AgentRegistry:
    return AgentRegistry([PLANNER, FORMATTER, EXTRACTOR])


def test_a_definition_holds_its_code_and_is_frozen() -> None:
    assert PLANNER.prompt_id == "planner"
    assert PLANNER.validators == (non_empty,) and PLANNER.callbacks[0].run is notify
    assert PLANNER.sub_agents[0].agent is FORMATTER and PLANNER.output.schema is Echo
    assert [t.name for t in PLANNER.toolset.specs()] == ["lookup", "save"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PLANNER.name = "other"  # type: ignore[misc]


def test_definitions_refuse_bad_names_and_inconsistent_outputs() -> None:
    with pytest.raises(ValueError, match="json output names its schema"):
        OutputSpec(kind="json")
    with pytest.raises(ValueError, match="json output names its schema"):
        OutputSpec(kind="text", schema=Echo)
    with pytest.raises(ValueError, match="not an agent name"):
        AgentDefinition(name="Bad Name", description="d")
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=9)
    assert OutputSpec.json_of(Echo).name == "echo"


def test_a_complete_registry_passes_check() -> None:
    _registry().check(prompt_ids={"planner", "formatter", "extractor"})


def test_every_problem_is_listed_by_check() -> None:
    stray = AgentDefinition(name="stray", description="not registered", offline=_offline)
    broken = AgentDefinition(
        name="broken",
        description="does not fit",
        tools=(_tool("lookup", 1), _tool("lookup", 2)),
        sub_agents=(SubAgent(stray), SubAgent(FORMATTER, key="x"), SubAgent(CHAT, key="x")),
    )
    registry = _registry()
    registry.register(broken)
    with pytest.raises(RegistryError) as raised:
        registry.check(prompt_ids={"planner", "formatter", "extractor"})
    problems = "\n".join(raised.value.problems)
    for expected in (
        "agent 'broken': two tools named 'lookup'",
        "agent 'broken': sub-agent 'stray' is not the registered agent of that name",
        "agent 'broken': two sub-agents write 'x'",
        "agent 'broken': sub-agent 'chat' is not run by the factory",
        "agent 'broken': no offline implementation",
        "agent 'broken': no prompt 'broken'",
    ):
        assert expected in problems
    assert "'planner'" not in problems


def test_sub_agent_cycles_fail_check() -> None:
    registry = _registry()
    registry.replace(dataclasses.replace(FORMATTER, sub_agents=(SubAgent(PLANNER),)))
    with pytest.raises(RegistryError) as raised:
        registry.check()
    assert "sub-agent cycle: planner -> formatter -> planner" in raised.value.problems


def test_the_dependency_graph() -> None:
    graph = _registry().dependency_graph()
    assert graph["planner"] == {
        "tools": ["lookup", "save"],
        "sub_agents": ["formatter", "extractor"],
        "callbacks": ["notify"],
        "validators": ["non_empty"],
        "context_types": ["user_profile", "training_plan"],
    }
    assert graph["formatter"]["sub_agents"] == []


def test_tool_calls_run_in_priority_order_then_in_the_order_written() -> None:
    tools = ToolSet([*PLANNER.tools, _tool("audit", 2)])
    calls = [
        ToolCall("1", "lookup", {}),
        ToolCall("2", "unknown", {}),
        ToolCall("3", "save", {}),
        ToolCall("4", "audit", {}),
    ]
    assert [c.id for c in tools.order(calls)] == ["3", "1", "4", "2"]


def test_register_refuses_duplicates_and_replace_refuses_unknown_names() -> None:
    registry = _registry()
    with pytest.raises(RegistryError, match="registered twice"):
        registry.register(FORMATTER)
    with pytest.raises(RegistryError, match="cannot replace unknown agent"):
        registry.replace(dataclasses.replace(FORMATTER, name="ghost"))
    with pytest.raises(RegistryError, match="unknown agent 'ghost'"):
        registry.get("ghost")


def test_replace_swaps_an_entry_and_copy_keeps_the_original() -> None:
    original = _registry()
    copy = original.copy()
    copy.replace(dataclasses.replace(FORMATTER, description="mocked"))
    assert copy.get("formatter").description == "mocked"
    assert original.get("formatter") is FORMATTER


def test_clear_empties_the_registry() -> None:
    registry = _registry()
    registry.clear()
    assert registry.names == [] and len(registry) == 0
    registry.check()


def test_the_registry_lists_every_agent_the_system_runs() -> None:
    registry = build_agent_registry()
    assert set(registry.names) == {
        "chat",
        "initializer",
        "checkpoint_summariser",
        "fitness_plan",
        "microcycle",
        "week_messages",
        "workout_message",
        "workout_structure",
    }
    assert registry.get("chat") is CHAT
    assert registry.dependency_graph()["chat"]["tools"] == [tool.name for tool in CHAT_TOOLS]


def test_the_chat_agent_is_a_definition_its_turn_runs() -> None:
    assert CHAT in CHAT_AGENTS and CHAT.prompt_id == "chat"
    assert CHAT.implemented_by == ChatRunner.run_turn and not CHAT.runs_in_factory
    assert len({tool.name for tool in CHAT.tools}) == len(CHAT.tools) == 46
    assert CHAT.retry.retry_on == ("model_error",) and CHAT.max_steps == 10


def test_the_container_refuses_to_start_on_agents_that_do_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = AgentDefinition(name="broken", description="b", callbacks=(Callback(notify),))
    monkeypatch.setattr(program_agents, "PROGRAM_AGENTS", (*program_agents.PROGRAM_AGENTS, broken))
    with pytest.raises(RegistryError) as raised:
        build_agent_registry()
    assert "agent 'broken': no offline implementation" in raised.value.problems
    assert "agent 'broken': no prompt 'broken'" in raised.value.problems
