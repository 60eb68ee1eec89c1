"""Tiny registry agents for the factory's tests, independent of the program agents: `echo_json` (a
typed input, a json output with required fields), `echo_text` (text in, text out) and `looker` (asks for
a tool first, then answers with what it returned)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel
from trainer.agents import (
    AgentDefinition,
    AgentTool,
    OfflineContext,
    OutputSpec,
    Registries,
    RetryPolicy,
    ToolCallContext,
    ToolRequest,
)


class Echo(BaseModel):
    text: str
    count: int


class EchoInput(BaseModel):
    text: str


class LookupArgs(BaseModel):
    query: str


async def echo_json(value: EchoInput, ctx: OfflineContext) -> Echo:
    return Echo(text=value.text, count=len(value.text))


async def echo_text(value: Any, ctx: OfflineContext) -> str:
    return f"echo: {value}"


async def looker(value: EchoInput, ctx: OfflineContext) -> Echo | ToolRequest:
    if not ctx.tool_results:
        return ToolRequest((("lookup", {"query": value.text}),))
    return Echo(text=ctx.tool_results[0].content, count=len(ctx.tool_results))


async def lookup(args: LookupArgs, ctx: ToolCallContext) -> str:
    return f"found {args.query}"


def echo_registries(*, name: str = "echo_json", max_retries: int = 1) -> Registries:
    retry = RetryPolicy(max_retries=max_retries, retry_on=("validation_error",))
    r = Registries()
    r.agents.register_schema("echo", Echo)
    r.agents.register_schema("echo_input", EchoInput)
    r.tools.register(AgentTool("lookup", "Looks a word up", LookupArgs, lookup, priority=1))
    r.agents.register(
        AgentDefinition(
            name=name,
            description="echoes its input as JSON",
            input_schema="echo_input",
            output=OutputSpec.json_of("echo"),
            retry=retry,
        )
    )
    r.agents.register(AgentDefinition(name="echo_text", description="echoes text", retry=retry))
    r.agents.register(
        AgentDefinition(
            name="looker",
            description="looks up its input",
            input_schema="echo_input",
            tools=("lookup",),
            output=OutputSpec.json_of("echo"),
        )
    )
    r.offline.register(name, echo_json)
    r.offline.register("echo_text", echo_text)
    r.offline.register("looker", looker)
    return r


def write_prompts(registries: Registries, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for definition in registries.agents.definitions():
        (folder / f"{definition.prompt_id}.md").write_text(f"You are the {definition.name} agent.\n")
    return folder
