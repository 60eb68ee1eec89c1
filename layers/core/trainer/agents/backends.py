"""The port agents run on (`StructuredModel.generate`) with its request and reply, the offline
backend, and the choice of backend per model role from settings (like `trainer.llm.factory` for the chat
model): Anthropic (`anthropic_structured`), OpenAI (`openai_structured`) or the offline implementations.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from trainer.agents.definitions import ModelRole, OutputSpec
from trainer.agents.registry import OfflineContext, Registries, ToolExchange, ToolRequest
from trainer.agents.wire import canonical, jsonable
from trainer.llm.ports import ModelError, ToolCall, Usage
from trainer.settings import ModelSettings

if TYPE_CHECKING:
    import httpx2

log = logging.getLogger(__name__)

Provider = Literal["anthropic", "openai", "offline"]
OFFLINE_MODEL = "offline"


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
    """One model call of an agent. The first user message is the context blocks then `input_text`;
    `messages` are the turns after it (tool exchanges, rejected outputs and their feedback)."""

    agent: str
    system: str
    context: list[str]
    input: Any
    input_text: str
    output: OutputSpec
    schema: type[BaseModel] | None
    model_id: str
    max_tokens: int
    messages: list[Turn] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    attempt: int = 1


@dataclass
class AgentReply:
    """`data` is the structured output (json agents), `text` the written answer; `raw_output` is the
    output as the model wrote it (fed back when it is rejected)."""

    text: str | None
    data: dict[str, Any] | None
    tool_calls: list[ToolCall]
    usage: Usage
    model: str
    raw_output: str
    output_call_id: str | None = None


class StructuredModel(Protocol):
    provider: Provider

    async def generate(self, request: AgentRequest) -> AgentReply: ...


def tool_exchanges(turns: Sequence[Turn]) -> tuple[ToolExchange, ...]:
    """Every tool call made so far with its result."""
    found: list[ToolExchange] = []
    for turn in turns:
        if isinstance(turn, ToolResultsTurn):
            found.extend(ToolExchange(c.name, dict(c.arguments), text, err) for c, text, err in turn.results)
    return tuple(found)


async def offline_output(registries: Registries, agent: str, raw_input: Any, context: OfflineContext) -> Any:
    """Runs the agent's offline implementation on its input (validated against the input schema)."""
    definition = registries.agents.get(agent)
    value = raw_input
    if definition.input_schema is not None and not isinstance(raw_input, BaseModel):
        value = registries.agents.schema(definition.input_schema).model_validate(raw_input)
    return await registries.offline.get(agent)(value, context)


def reply_from_output(output: Any, *, call_ids: itertools.count[int] | None = None) -> AgentReply:
    """An offline output (a model, a dict, text or a ToolRequest) as a model's reply."""
    ids = call_ids or itertools.count(1)
    if isinstance(output, ToolRequest):
        calls = [ToolCall(f"call_offline_{next(ids)}", name, dict(args)) for name, args in output.calls]
        return AgentReply(None, None, calls, Usage(), OFFLINE_MODEL, "")
    if isinstance(output, str):
        return AgentReply(output, None, [], Usage(), OFFLINE_MODEL, output)
    data = jsonable(output)
    if not isinstance(data, dict):
        raise ModelError(f"the offline implementation returned {type(output).__name__}, not an output")
    return AgentReply(None, data, [], Usage(), OFFLINE_MODEL, canonical(data))


class OfflineStructured:
    """The deterministic backend: each agent's registered offline implementation, no keys needed."""

    provider: Provider = "offline"

    def __init__(self, registries: Registries) -> None:
        self._registries = registries
        self._ids = itertools.count(1)

    async def generate(self, request: AgentRequest) -> AgentReply:
        context = OfflineContext(
            agent=request.agent,
            context=tuple(request.context),
            tool_results=tool_exchanges(request.messages),
            attempt=request.attempt,
        )
        try:
            output = await offline_output(self._registries, request.agent, request.input, context)
        except ValidationError as exc:
            raise ModelError(f"the offline implementation got an invalid input: {exc}") from exc
        return reply_from_output(output, call_ids=self._ids)


@dataclass(frozen=True)
class ModelChoice:
    model: StructuredModel
    model_id: str


@dataclass(frozen=True)
class Backends:
    """The backend and model id of each model role."""

    main: ModelChoice
    light: ModelChoice

    def for_role(self, role: ModelRole) -> ModelChoice:
        return self.main if role == "main" else self.light

    @classmethod
    def single(cls, model: StructuredModel, model_id: str = OFFLINE_MODEL) -> Backends:
        choice = ModelChoice(model, model_id)
        return cls(choice, choice)


def agent_provider(settings: ModelSettings) -> Provider:
    """TRAINER_AGENT_PROVIDER, or with `auto`: Anthropic with its key, else OpenAI with its key, else
    offline."""
    chosen = settings.agent_provider
    if chosen == "auto":
        if settings.anthropic_api_key is not None:
            return "anthropic"
        return "openai" if settings.openai_api_key is not None else "offline"
    return chosen


def build_backends(
    settings: ModelSettings, registries: Registries, http_client: httpx2.AsyncClient | None = None
) -> Backends:
    provider = agent_provider(settings)
    if provider == "anthropic":
        from trainer.agents.anthropic_structured import AnthropicStructured

        anthropic = AnthropicStructured(settings, http_client=http_client)
        log.info("program agents: Anthropic (%s / %s)", settings.model, settings.light_model)
        return Backends(ModelChoice(anthropic, settings.model), ModelChoice(anthropic, settings.light_model))
    if provider == "openai":
        from trainer.agents.openai_structured import OpenAIStructured

        openai = OpenAIStructured(settings, http_client=http_client)
        log.info("program agents: OpenAI (%s / %s)", settings.openai_agent_model, settings.initializer_model)
        return Backends(
            ModelChoice(openai, settings.openai_agent_model), ModelChoice(openai, settings.initializer_model)
        )
    log.info("program agents: OFFLINE deterministic implementations")
    return Backends.single(OfflineStructured(registries))
