"""Tiny registry agents for the factory's tests, independent of the program agents: `echo_json` (a
typed input, a json output with required fields), `echo_text` (text in, text out) and `looker` (asks for
a tool first, then answers with what it returned)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel
from trainer.agents import (
    AgentDefinition,
    AgentRegistry,
    OfflineContext,
    OutputSpec,
    RetryPolicy,
    ToolRequest,
)
from trainer.tools.base import Tool, ToolContext, ToolResult


class Echo(BaseModel):
    text: str
    count: int


class EchoInput(BaseModel):
    text: str


class LookupArgs(BaseModel):
    query: str


class LookupResult(ToolResult):
    found: str


class Lookup(Tool[LookupArgs, LookupResult]):
    name: ClassVar[str] = "lookup"
    description: ClassVar[str] = "Looks a word up"
    Args = LookupArgs
    Result = LookupResult
    priority: ClassVar[int] = 1

    async def execute(self, args: LookupArgs, ctx: ToolContext) -> LookupResult:
        return LookupResult(found=f"found {args.query}")

    def format(self, result: LookupResult) -> str:
        return result.found


async def echo_json(value: EchoInput, ctx: OfflineContext) -> Echo:
    return Echo(text=value.text, count=len(value.text))


async def echo_text(value: Any, ctx: OfflineContext) -> str:
    return f"echo: {value}"


async def looker(value: EchoInput, ctx: OfflineContext) -> Echo | ToolRequest:
    if not ctx.tool_results:
        return ToolRequest((("lookup", {"query": value.text}),))
    return Echo(text=ctx.tool_results[0].content, count=len(ctx.tool_results))


RETRY = RetryPolicy(max_retries=1, retry_on=("validation_error",))
ECHO_JSON = AgentDefinition(
    name="echo_json",
    description="echoes its input as JSON",
    input_schema=EchoInput,
    output=OutputSpec.json_of(Echo),
    retry=RETRY,
    offline=echo_json,
)
ECHO_TEXT = AgentDefinition(name="echo_text", description="echoes text", retry=RETRY, offline=echo_text)
LOOKER = AgentDefinition(
    name="looker",
    description="looks up its input",
    input_schema=EchoInput,
    tools=(Lookup(),),
    output=OutputSpec.json_of(Echo),
    offline=looker,
)


def echo_agents(*, name: str = "echo_json", max_retries: int = 1) -> tuple[AgentDefinition, ...]:
    """The three agents; the json one under `name`, retrying `max_retries` times."""
    retry = RetryPolicy(max_retries=max_retries, retry_on=("validation_error",))
    json_agent = replace(ECHO_JSON, name=name, prompt_id=name, retry=retry)
    return (json_agent, replace(ECHO_TEXT, retry=retry), LOOKER)


def echo_registry(*definitions: AgentDefinition) -> AgentRegistry:
    return AgentRegistry(definitions or echo_agents())


def write_prompts(registry: AgentRegistry, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for definition in registry:
        (folder / f"{definition.prompt_id}.md").write_text(f"You are the {definition.name} agent.\n")
    return folder
