"""The registry agents' offline backend: each agent's own deterministic implementation (its definition's
`offline`, found by the agent's name in the registry) behind the `StructuredModel` port, so every agent
runs with no key. The loopback fake server (trainer_dev.local.fake_llm) answers agent requests with the same
functions."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from trainer.agents.backends import OFFLINE_MODEL
from trainer.agents.definitions import OfflineContext, ToolExchange, ToolRequest
from trainer.agents.registry import AgentRegistry
from trainer.agents.wire import canonical, jsonable
from trainer.providers.ports import (
    AgentReply,
    AgentRequest,
    ModelError,
    Provider,
    ToolCall,
    ToolResultsTurn,
    Turn,
    Usage,
)


def tool_exchanges(turns: Sequence[Turn]) -> tuple[ToolExchange, ...]:
    """Every tool call made so far with its result."""
    found: list[ToolExchange] = []
    for turn in turns:
        if isinstance(turn, ToolResultsTurn):
            found.extend(ToolExchange(c.name, dict(c.arguments), text, err) for c, text, err in turn.results)
    return tuple(found)


async def offline_output(registry: AgentRegistry, agent: str, raw_input: Any, context: OfflineContext) -> Any:
    """Runs the agent's offline implementation on its input (validated against the input schema)."""
    definition = registry.get(agent)
    if definition.offline is None:
        raise ModelError(f"agent {agent!r} has no offline implementation")
    value = raw_input
    if definition.input_schema is not None and not isinstance(raw_input, BaseModel):
        value = definition.input_schema.model_validate(raw_input)
    return await definition.offline(value, context)


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
    """The deterministic backend: each agent's offline implementation, no keys needed."""

    provider: Provider = "offline"

    def __init__(self, registry: AgentRegistry) -> None:
        self._registry = registry
        self._ids = itertools.count(1)

    async def generate(self, request: AgentRequest) -> AgentReply:
        context = OfflineContext(
            agent=request.agent,
            context=tuple(request.context),
            tool_results=tool_exchanges(request.messages),
            attempt=request.attempt,
        )
        try:
            output = await offline_output(self._registry, request.agent, request.input, context)
        except ValidationError as exc:
            raise ModelError(f"the offline implementation got an invalid input: {exc}") from exc
        return reply_from_output(output, call_ids=self._ids)
