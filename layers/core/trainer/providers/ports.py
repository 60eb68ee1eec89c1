"""The model ports: what the agents ask a model and what it answers, for every provider adapter
(`trainer.providers.anthropic`, `trainer.providers.openai`, the offline coach `trainer.offline`).

- `AgentModel`: the chat agent's model. Requests are in Anthropic's native shape (the chat context builder
  makes them); back ends that are not Anthropic (the offline coach) read the same shape.
- `StructuredModel`: a registry agent's model (`trainer.agents.run_agent`): system prompt, context
  blocks, input, tool exchanges, and an output of a given kind (text, markdown, or json of a schema).
- `KnowledgeSelector`: the initializer, which picks the data sources a chat turn needs.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel


class ModelError(RuntimeError):
    """A model call failed after the SDK's own retries. `retryable` marks a mid-stream error
    that the loop may retry once; `code` names the failure on the client's `error` frame
    (`model_unavailable`, `model_incomplete`: the answer ended without a proper stop,
    `model_timeout`: no answer before the function's deadline)."""

    def __init__(self, message: str, *, retryable: bool = False, code: str = "model_unavailable") -> None:
        super().__init__(message)
        self.retryable = retryable
        self.code = code


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Anthropic convention: input_tokens excludes cache reads and cache writes."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_1h_input_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        """Every input token the model saw (uncached + cache writes + cache reads)."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens


@dataclass
class ModelRequest:
    """Anthropic Messages request body pieces, cache_control already placed."""

    model: str
    system: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    max_tokens: int = 8192
    tool_choice: dict[str, Any] = field(
        default_factory=lambda: {"type": "any", "disable_parallel_tool_use": True}
    )
    user_id: str | None = None
    session_id: str | None = None
    shared_system_blocks: int = 1
    """How many leading system blocks are the same for every user: with the tools they are the
    prefix all sessions share, whose cache breakpoints the adapter gives TRAINER_PROMPT_CACHE_TTL."""
    results: dict[str, BaseModel] = field(default_factory=dict)
    """The typed result (a ToolResult or ToolFailure) of each tool call in `messages`, by call id, for
    back ends that are not a language model (the offline policy). Never sent to a provider."""
    effort: str | None = None
    """`output_config.effort` on models that think adaptively (the catalogue says which); None: the
    model's default."""


@dataclass
class ModelResponse:
    tool_call: ToolCall | None
    usage: Usage
    model: str
    stop_reason: str | None
    raw: dict[str, Any]
    text: str = ""
    preamble: list[dict[str, Any]] = field(default_factory=list)
    """The content blocks before the tool call (thinking, redacted_thinking, text), exactly as received:
    the API needs the thinking blocks back unchanged while the tool loop continues. Never shown to
    users."""


TextDeltaCallback = Callable[[str, str], Awaitable[None]]
"""(tool_name, text_so_far_delta) called while a user-visible message argument is being written, and
for text the model writes outside a tool call (tool_name `message_notify_user`)."""


class AgentModel(Protocol):
    provider: Literal["anthropic", "offline"]

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse: ...


class KnowledgeSelection(BaseModel):
    source: str
    reason: Literal["not_in_context", "expand_range", "refresh_state"]
    days_back: int | None
    days_ahead: int | None
    status: str | None
    query: str | None = None
    """exercise_info only: the exercise the user asks about, as they named it."""


# No non-None defaults anywhere in this schema: OpenAI's strict structured output refuses them.
class InitializerResponse(BaseModel):
    """Which data sources to append to the conversation for the user's message, and why."""

    reasoning: str
    append_knowledge: list[KnowledgeSelection]
    use_existing: list[str]


@dataclass
class InitializerResult:
    selection: InitializerResponse
    usage: dict[str, int] | None
    model: str
    provider: Literal["openai", "deterministic"]


class KnowledgeSelector(Protocol):
    async def select(self, message: str, existing: list[dict[str, Any]]) -> InitializerResult: ...


# --- structured output (registry agents) ---------------------------------------------------------

Provider = Literal["anthropic", "openai", "offline"]
OutputKind = Literal["text", "markdown", "json"]
AGENT_HEADER = "x-trainer-agent"
"""Names the agent on every structured model request (the loopback fake dispatches on it; providers
ignore it)."""
_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


def schema_name(model: type[BaseModel]) -> str:
    """A model's name on the wire (`PlanDraft` -> `plan_draft`): the output tool's or response format's."""
    return _WORD_START.sub("_", model.__name__).lower()


@dataclass(frozen=True)
class OutputSpec:
    """`text` and `markdown` answers are strings; a `json` answer is an object of `schema`
    (`OutputSpec.json_of(PlanDraft)`)."""

    kind: OutputKind = "text"
    schema: type[BaseModel] | None = None

    def __post_init__(self) -> None:
        if (self.kind == "json") != (self.schema is not None):
            raise ValueError("a json output names its schema; text and markdown outputs name none")

    @classmethod
    def json_of(cls, schema: type[BaseModel]) -> OutputSpec:
        return cls(kind="json", schema=schema)

    @property
    def name(self) -> str | None:
        """The schema's wire name; None for text outputs."""
        return schema_name(self.schema) if self.schema is not None else None


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class AssistantTurn:
    """What the model answered: text and/or tool calls (an output tool call included)."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: tuple[dict[str, Any], ...] = ()
    """The thinking blocks the model wrote before its tool calls or its written answer, sent back
    unchanged (Anthropic)."""


@dataclass(frozen=True)
class ToolResultsTurn:
    results: tuple[tuple[ToolCall, str, bool], ...]
    """(call, content, is_error) per executed call, in execution order."""


@dataclass(frozen=True)
class RetryTurn:
    """The feedback on a rejected output; `output_call_id` when the output came as a tool call."""

    text: str
    output_call_id: str | None = None


Turn = AssistantTurn | ToolResultsTurn | RetryTurn


@dataclass
class AgentRequest:
    """One model call of a registry agent. The first user message is the context blocks then
    `input_text`; `messages` are the turns after it (tool exchanges, rejected outputs and their
    feedback)."""

    agent: str
    system: str
    context: list[str]
    input: Any
    input_text: str
    output: OutputSpec
    model_id: str
    max_tokens: int
    messages: list[Turn] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    attempt: int = 1
    effort: str | None = None
    """`output_config.effort` on models that think adaptively; None: the model's default."""
    stable_input_chars: int = 0
    """How many leading characters of `input_text` stay the same across the user's runs (0: none
    marked); the Anthropic adapter closes a cache breakpoint there."""


@dataclass
class AgentReply:
    """`data` is the structured output (json agents), `text` the written answer; `raw_output` is the
    output as the model wrote it (fed back when it is rejected); `output_call` the tool call that
    carried the output, when it came as one."""

    text: str | None
    data: dict[str, Any] | None
    tool_calls: list[ToolCall]
    usage: Usage
    model: str
    raw_output: str
    output_call: ToolCall | None = None
    thinking: tuple[dict[str, Any], ...] = ()
    """Thinking blocks before the tool calls or the written answer, exactly as received (Anthropic;
    sent back in the loop, and with a rejected answer)."""


class StructuredModel(Protocol):
    provider: Provider

    async def generate(self, request: AgentRequest) -> AgentReply: ...
