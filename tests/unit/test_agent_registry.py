"""The agent registry (seed 004): definitions are data, names resolve at start-up, the dependency
graph, tool priority, clear/replace, and the system agents listed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError
from trainer import container
from trainer.agents import (
    AgentDefinition,
    AgentTool,
    CallbackEvent,
    CallbackSpec,
    OutputSpec,
    Registries,
    RegistryError,
    RetryPolicy,
    SubAgentSpec,
)
from trainer.agents.registrations import CHAT_TOOLS, SYSTEM_AGENTS, register_system_agents
from trainer.agents.registry import ToolCallContext
from trainer.container import build_registries, collect_tools
from trainer.providers.ports import ToolCall


class Echo(BaseModel):
    text: str


class Args(BaseModel):
    query: str = ""


async def _tool(args: Any, ctx: ToolCallContext) -> str:
    return "ok"


async def _callback(event: CallbackEvent) -> None:
    return None


async def _offline(value: Any, ctx: Any) -> Echo:
    return Echo(text=str(value))


def _tool_entry(name: str, priority: int, kind: str = "query") -> AgentTool:
    return AgentTool(name, f"{name} tool", Args, _tool, priority=priority, kind=kind)  # type: ignore[arg-type]


PLANNER = AgentDefinition(
    name="planner",
    description="plans",
    model_role="main",
    tools=("lookup", "save"),
    context_types=("user_profile", "training_plan"),
    output=OutputSpec.json_of("echo"),
    validators=("non_empty",),
    sub_agents=(
        SubAgentSpec(agent="formatter", transform="to_text", batch=0),
        SubAgentSpec(
            agent="extractor", condition="has_text", trigger="on_demand", cache_output=True, batch=1
        ),
    ),
    callbacks=(CallbackSpec(name="notify", when="always"),),
    retry=RetryPolicy(max_retries=2, retry_on=("validation_error", "timeout"), backoff_ms=10),
    timeout_seconds=45,
    cost_category="high",
)
FORMATTER = AgentDefinition(name="formatter", description="formats", model_role="light")
EXTRACTOR = AgentDefinition(name="extractor", description="extracts", output=OutputSpec.json_of("echo"))


def _registries() -> Registries:
    r = Registries()
    r.tools.register(_tool_entry("lookup", 2))
    r.tools.register(_tool_entry("save", 1, "action"))
    r.agents.register_schema("echo", Echo)
    r.agents.register_validator("non_empty", lambda output, _: [] if output.text else ["empty"])
    r.agents.register_transform("to_text", lambda output, _: output.text)
    r.agents.register_condition("has_text", lambda output, _: bool(output.text))
    r.callbacks.register("notify", _callback)
    r.contexts.register("training_plan", lambda request: _async_text("plan"))
    for definition in (PLANNER, FORMATTER, EXTRACTOR):
        r.agents.register(definition)
        r.offline.register(definition.name, _offline)
    return r


async def _async_text(text: str) -> str:
    return text


def _callables(node: Any) -> Iterator[Any]:
    if callable(node):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _callables(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _callables(value)


def test_definitions_are_plain_data_that_round_trip_through_json() -> None:
    for definition in (PLANNER, FORMATTER, EXTRACTOR, *SYSTEM_AGENTS):
        dumped = definition.model_dump(mode="json")
        assert not list(_callables(dumped))
        text = json.dumps(dumped)
        assert AgentDefinition.model_validate_json(text) == definition
    assert PLANNER.prompt_id == "planner"
    with pytest.raises(ValidationError):
        PLANNER.model_copy().__setattr__("name", "other")


def test_definitions_refuse_code_and_inconsistent_outputs() -> None:
    with pytest.raises(ValidationError):
        AgentDefinition(name="x", description="d", validators=(len,))
    with pytest.raises(ValidationError):
        OutputSpec(kind="json")
    with pytest.raises(ValidationError):
        OutputSpec(kind="text", schema_name="echo")
    with pytest.raises(ValidationError):
        AgentDefinition(name="Bad Name", description="d")


def test_a_complete_registry_passes_check() -> None:
    _registries().check()


def test_every_unknown_name_is_listed_by_check() -> None:
    r = _registries()
    r.agents.register(
        AgentDefinition(
            name="broken",
            description="refers to nothing",
            tools=("no_such_tool",),
            context_types=("no_such_context",),
            input_schema="no_such_input",
            output=OutputSpec.json_of("no_such_schema"),
            validators=("no_such_validator",),
            sub_agents=(
                SubAgentSpec(agent="no_such_agent", transform="no_such_transform", condition="nope"),
            ),
            callbacks=(CallbackSpec(name="no_such_callback"),),
        )
    )
    with pytest.raises(RegistryError) as raised:
        r.check(prompt_ids={"planner", "formatter", "extractor"})
    problems = "\n".join(raised.value.problems)
    for expected in (
        "unknown tool 'no_such_tool'",
        "unknown context type 'no_such_context'",
        "unknown schema 'no_such_input'",
        "unknown schema 'no_such_schema'",
        "unknown validator 'no_such_validator'",
        "unknown sub-agent 'no_such_agent'",
        "unknown transform 'no_such_transform'",
        "unknown condition 'nope'",
        "unknown callback 'no_such_callback'",
        "agent 'broken': no offline implementation",
        "agent 'broken': no prompt 'broken'",
    ):
        assert expected in problems
    assert "'planner'" not in problems


def test_sub_agent_cycles_and_external_tools_fail_check() -> None:
    r = _registries()
    r.agents.replace(FORMATTER.model_copy(update={"sub_agents": (SubAgentSpec(agent="planner"),)}))
    r.tools.declare_external(["chat_only"], "trainer.agents.tools")
    r.agents.replace(EXTRACTOR.model_copy(update={"tools": ("chat_only",)}))
    with pytest.raises(RegistryError) as raised:
        r.check()
    problems = raised.value.problems
    assert "sub-agent cycle: planner -> formatter -> planner" in problems
    assert "agent 'extractor': tool 'chat_only' belongs to trainer.agents.tools and cannot run here" in (
        problems
    )


def test_the_dependency_graph() -> None:
    graph = _registries().dependency_graph()
    assert graph["planner"] == {
        "tools": ["lookup", "save"],
        "sub_agents": ["formatter", "extractor"],
        "callbacks": ["notify"],
        "validators": ["non_empty"],
        "context_types": ["user_profile", "training_plan"],
    }
    assert graph["formatter"]["sub_agents"] == []


def test_tool_calls_run_in_priority_order_then_in_the_order_written() -> None:
    r = _registries()
    r.tools.register(_tool_entry("audit", 2))
    calls = [
        ToolCall("1", "lookup", {}),
        ToolCall("2", "unknown", {}),
        ToolCall("3", "save", {}),
        ToolCall("4", "audit", {}),
    ]
    assert [c.id for c in r.tools.order(calls)] == ["3", "1", "4", "2"]


def test_register_refuses_duplicates_and_replace_refuses_unknown_names() -> None:
    r = _registries()
    with pytest.raises(RegistryError, match="registered twice"):
        r.agents.register(FORMATTER)
    with pytest.raises(RegistryError, match="registered twice"):
        r.tools.register(_tool_entry("save", 5))
    with pytest.raises(RegistryError, match="cannot replace unknown agent"):
        r.agents.replace(FORMATTER.model_copy(update={"name": "ghost"}))
    with pytest.raises(RegistryError, match="unknown agent 'ghost'"):
        r.agents.get("ghost")
    with pytest.raises(RegistryError, match="would hide the data source"):
        r.contexts.register("user_profile", lambda request: _async_text(""))


def test_replace_swaps_an_entry_and_copy_keeps_the_original() -> None:
    original = _registries()
    copy = original.copy()
    copy.tools.replace(_tool_entry("save", 9))
    copy.agents.replace(FORMATTER.model_copy(update={"description": "mocked"}))
    copy.callbacks.replace("notify", _callback, "mocked")
    assert copy.tools.priority("save") == 9
    assert original.tools.priority("save") == 1
    assert copy.agents.get("formatter").description == "mocked"
    assert original.agents.get("formatter").description == "formats"
    assert copy.callbacks.get("notify").description == "mocked"


def test_clear_empties_every_registry() -> None:
    r = _registries()
    r.clear()
    assert r.agents.names == [] and r.tools.names == [] and r.callbacks.names == []
    assert len(r.offline) == 0 and len(r.contexts) == 0 and r.agents.schemas.names == []
    r.check()


def test_the_registry_lists_every_agent_the_system_runs() -> None:
    registries = build_registries()
    assert set(registries.agents.names) == {
        "chat",
        "initializer",
        "checkpoint_summariser",
        "fitness_plan",
        "microcycle",
        "workout_message",
        "workout_structure",
    }
    assert registries.dependency_graph()["chat"]["tools"] == list(CHAT_TOOLS)


def test_the_chat_definition_lists_exactly_the_chat_tools() -> None:
    assert sorted(CHAT_TOOLS) == sorted(tool.name for tool in collect_tools())


def test_a_chat_tool_that_no_longer_exists_fails_at_start_up() -> None:
    r = Registries()
    register_system_agents(r, [name for name in CHAT_TOOLS if name != "idle"])
    with pytest.raises(RegistryError, match="agent 'chat': unknown tool 'idle'"):
        r.check()


def register_broken(registries: Registries) -> None:
    registries.agents.register(
        AgentDefinition(name="broken", description="b", callbacks=(CallbackSpec(name="send_sms"),))
    )


def test_the_container_refuses_to_start_on_a_name_that_does_not_resolve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registration = ("tests.unit.test_agent_registry", "register_broken")
    monkeypatch.setattr(container, "AGENT_REGISTRATIONS", (*container.AGENT_REGISTRATIONS, registration))
    with pytest.raises(RegistryError) as raised:
        build_registries()
    assert "agent 'broken': unknown callback 'send_sms'" in raised.value.problems
    assert "agent 'broken': no offline implementation" in raised.value.problems
    assert "agent 'broken': no prompt 'broken'" in raised.value.problems
