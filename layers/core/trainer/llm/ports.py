"""Ports the agent talks to. Requests are already in Anthropic's native shape (the context builder
makes them); adapters for other back ends (the offline policy) read the same shape."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel


class ModelError(RuntimeError):
    """A model call failed after the SDK's own retries. `retryable` marks a mid-stream error
    that the loop may retry once."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


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


@dataclass
class ModelResponse:
    tool_call: ToolCall | None
    usage: Usage
    model: str
    stop_reason: str | None
    raw: dict[str, Any]
    text: str = ""


TextDeltaCallback = Callable[[str, str], Awaitable[None]]
"""(tool_name, text_so_far_delta) called while a user-visible message argument is being written."""


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


class InitializerResponse(BaseModel):
    """Seed 002 §5.3. No non-None defaults: OpenAI strict structured output."""

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
