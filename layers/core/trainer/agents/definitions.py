"""Agent definitions as code: frozen dataclasses holding the Python objects an
agent runs with, so go-to-definition follows every one of them: its tools, input and output models, the
code that finalizes and checks a draft, its sub-agents with their transforms and conditions, its
callbacks, context providers and offline implementation.

Names remain only where they are stored: an agent's `name` (rows of `agent_invocations`, the
`x-trainer-agent` header the loopback fake dispatches on, the registry the API and the fake look it up
in) and its `prompt_id` (rows of the `prompts` table, the prompt file `agents/prompts/<prompt_id>.md`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

from trainer.agents.tools import ToolSet
from trainer.providers.ports import OutputSpec
from trainer.sources.registry import DataSource
from trainer.tools.base import AnyTool

__all__ = [
    "AgentDefinition",
    "Callback",
    "CallbackEvent",
    "ContextProvider",
    "ContextRequest",
    "OfflineContext",
    "OutputSpec",
    "Rejected",
    "RetryPolicy",
    "SubAgent",
    "ToolExchange",
    "ToolRequest",
]

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,57}$")
"""Agent names and prompt ids: usable in an HTTP header and a file name."""

ModelRole = Literal["main", "light"]
Trigger = Literal["always", "on_demand"]
CallbackTiming = Literal["on_success", "on_failure", "always"]
RetryReason = Literal["validation_error", "timeout", "model_error"]
CostCategory = Literal["low", "medium", "high"]


class Rejected(Exception):
    """A draft that cannot become the agent's output: `errors` go back to the model with its answer."""

    def __init__(self, errors: Sequence[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = list(errors)


@dataclass(frozen=True)
class ToolExchange:
    """One earlier tool call of this attempt and what it returned."""

    name: str
    arguments: dict[str, Any]
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class OfflineContext:
    """What an offline implementation gets besides its typed input: the rendered context blocks, the
    tool calls it asked for earlier with their results, and the attempt number."""

    agent: str
    context: tuple[str, ...] = ()
    tool_results: tuple[ToolExchange, ...] = ()
    attempt: int = 1


@dataclass(frozen=True)
class ToolRequest:
    """Returned by an offline implementation that wants tools called first: (name, arguments) pairs."""

    calls: tuple[tuple[str, dict[str, Any]], ...]


@dataclass(frozen=True)
class CallbackEvent:
    """What a callback sees. On success it may return a replacement output (None keeps it)."""

    agent: str
    input: Any
    output: Any
    success: bool
    errors: tuple[str, ...]
    invocation_id: str
    sub_outputs: Mapping[str, Any]


@dataclass(frozen=True)
class ContextRequest:
    user_id: str | None
    input: Any
    now: datetime


Finalize = Callable[[Any, Any], Any]
"""(draft, input) -> the output; raises Rejected with the errors the model must fix."""
Validator = Callable[[Any, Any], Sequence[str]]
"""(output, input) -> error messages; none means valid."""
Transform = Callable[[Any, Any], Any]
"""(parent output, parent input) -> the sub-agent's input (a list for a fan-out)."""
Condition = Callable[[Any, Any], bool]
ModelView = Callable[[Any], Any]
"""(typed input) -> the part of it the model reads: an instance of the input schema with what the agent
does not use left out, so an offline implementation answers from it as from the whole input."""
OfflineImpl = Callable[[Any, OfflineContext], Awaitable[Any]]
"""(typed input, context) -> a draft, text, or a ToolRequest; deterministic, no model."""


@dataclass(frozen=True)
class Callback:
    """A deterministic side effect run after the agent, by timing, in the definition's order."""

    run: Callable[[CallbackEvent], Awaitable[Any]]
    when: CallbackTiming = "on_success"

    @property
    def name(self) -> str:
        return getattr(self.run, "__name__", repr(self.run))


@dataclass(frozen=True)
class ContextProvider:
    """A context block beyond the data sources of trainer.sources; returns its text escaped
    (`trainer.domain.text.escape_text`), as the sources' formatters do. `name` is the block's type."""

    name: str
    build: Callable[[ContextRequest], Awaitable[str]]


ContextSource = DataSource | ContextProvider


@dataclass(frozen=True)
class RetryPolicy:
    """Retries after the first attempt; `backoff_ms` doubles with each retry."""

    max_retries: int = 1
    retry_on: tuple[RetryReason, ...] = ("validation_error",)
    backoff_ms: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.max_retries <= 5 or not 0 <= self.backoff_ms <= 60_000:
            raise ValueError("max_retries must be 0-5 and backoff_ms 0-60000")


@dataclass(frozen=True)
class SubAgent:
    """A sub-agent run on the parent's output. Batches run in ascending order, one after another; the
    sub-agents of one batch run concurrently."""

    agent: AgentDefinition
    transform: Transform | None = None
    """Turns (parent output, parent input) into the sub-agent's input; none: the parent's output."""
    condition: Condition | None = None
    """(parent output, parent input) -> bool; the sub-agent is skipped when it is false."""
    trigger: Trigger = "always"
    """`on_demand`: runs only when the caller names it (`run_agent(..., on_demand={...})`)."""
    cache_output: bool = False
    """Reuse the output of an earlier run with the same input (per `AgentRunDeps`)."""
    batch: int = 0
    fan_out: bool = False
    """The transform returns a list: the sub-agent runs once per item (concurrently); its output is a list."""
    optional: bool = False
    """A failure of this sub-agent is recorded but does not fail the parent."""
    key: str | None = None
    """Where the output goes in `AgentRun.sub_outputs`; default: the agent's name."""

    @property
    def output_key(self) -> str:
        return self.key or self.agent.name


@dataclass(frozen=True, eq=False)
class AgentDefinition:
    """One agent the system runs. An agent `implemented_by` its own code (the chat turn, the
    initializer, the checkpoint summariser) is listed for the registry's completeness and refused by
    `run_agent`; the others run through the factory (trainer.agents.factory)."""

    name: str
    description: str
    model_role: ModelRole = "main"
    prompt_id: str = ""
    """The prompt's id (file `agents/prompts/<prompt_id>.md`, rows in `prompts`); default: `name`."""
    input_schema: type[BaseModel] | None = None
    """The model the input is validated against; none: the input is taken as it is."""
    model_view: ModelView | None = None
    """What of the input the model is sent (its tokens are the per-user part of every request); none:
    all of it. Finalizers, validators, tools and sub-agents still get the whole typed input."""
    stable_input: tuple[str, ...] = ()
    """The input's leading fields that stay the same across a user's runs (the plan a week is built
    from): the request closes a cache breakpoint after them, for the user's next run within the cache's
    lifetime (a change to the week, another week built)."""
    tools: tuple[AnyTool, ...] = ()
    context: tuple[ContextSource, ...] = ()
    """Data sources (trainer.sources) and context providers, in prompt order."""
    output: OutputSpec = field(default_factory=OutputSpec)
    finalize: Finalize | None = None
    """Turns the parsed draft into the output in code; its Rejected errors go back to the model."""
    validators: tuple[Validator, ...] = ()
    """Checks of the (finalized) output."""
    sub_agents: tuple[SubAgent, ...] = ()
    callbacks: tuple[Callback, ...] = ()
    offline: OfflineImpl | None = None
    """The deterministic implementation run without a model key (and by the loopback fake)."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_seconds: float = 30.0
    """Per attempt (one model exchange with its tool steps)."""
    cost_category: CostCategory = "medium"
    max_tokens: int = 4096
    max_steps: int = 6
    """Model calls per attempt (the chat agent's iteration cap)."""
    implemented_by: Callable[..., Any] | None = None
    """The code that runs an agent the factory does not."""

    def __post_init__(self) -> None:
        if not self.prompt_id:
            object.__setattr__(self, "prompt_id", self.name)
        for value in (self.name, self.prompt_id):
            if not NAME_PATTERN.match(value):
                raise ValueError(f"{value!r} is not an agent name (lower case, digits, underscores)")
        if not 0 < self.timeout_seconds <= 900 or not 1 <= self.max_steps <= 50:
            raise ValueError(f"agent {self.name!r}: timeout_seconds must be 0-900 and max_steps 1-50")

    @property
    def runs_in_factory(self) -> bool:
        return self.implemented_by is None

    @cached_property
    def toolset(self) -> ToolSet:
        """The agent's tools and their executor."""
        return ToolSet(self.tools)
