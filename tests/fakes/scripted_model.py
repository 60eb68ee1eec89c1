"""ScriptedModel: an AgentModel that answers from a script, records every request, and can
simulate latency, stream deltas, retryable stream breaks and hard failures."""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from trainer.providers.ports import (
    ModelError,
    ModelRequest,
    ModelResponse,
    TextDeltaCallback,
    ToolCall,
    Usage,
)

STREAMED_ARGS = {"message_notify_user": "message", "message_ask_user": "question"}


@dataclass(frozen=True)
class Call:
    """One scripted tool call."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


NO_TOOL = object()
"""A step that answers with text only (no tool_use block)."""

Step = Call | BaseException | object | Callable[[ModelRequest], "Call | BaseException | object"]


def call(name: str, **arguments: Any) -> Call:
    return Call(name, arguments)


class ScriptedModel:
    provider: Literal["anthropic", "offline"] = "offline"

    def __init__(
        self,
        steps: list[Step],
        *,
        latency: float = 0.0,
        usage: Usage | None = None,
        model: str = "claude-haiku-4-5",
        then_idle: bool = True,
    ) -> None:
        self.steps = list(steps)
        self.latency = latency
        self.usage = usage or Usage(input_tokens=100, output_tokens=20, cache_read_input_tokens=50)
        self.model = model
        self.then_idle = then_idle
        self.requests: list[ModelRequest] = []
        self._ids = itertools.count(1)

    def _next_step(self, request: ModelRequest) -> Any:
        if self.steps:
            step = self.steps.pop(0)
        elif self.then_idle:
            step = Call("idle", {"reason": "script finished"})
        else:
            raise AssertionError("the script ran out of steps")
        if callable(step) and not isinstance(step, (Call, BaseException)):
            step = step(request)
        return step

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        self.requests.append(copy.deepcopy(request))
        if self.latency:
            await asyncio.sleep(self.latency)
        step = self._next_step(request)
        if isinstance(step, BaseException):
            raise step
        if step is NO_TOOL:
            text_raw = {"content": [{"type": "text", "text": "plain text"}], "stop_reason": "end_turn"}
            return ModelResponse(None, self.usage, self.model, "end_turn", text_raw, text="plain text")
        assert isinstance(step, Call)
        text_arg = STREAMED_ARGS.get(step.name)
        if on_text_delta is not None and text_arg and isinstance(step.arguments.get(text_arg), str):
            text = step.arguments[text_arg]
            middle = max(1, len(text) // 2)
            for chunk in (text[:middle], text[middle:]):
                if chunk:
                    await on_text_delta(step.name, chunk)
        call_id = f"toolu_{next(self._ids):04d}"
        raw: dict[str, Any] = {
            "id": f"msg_{call_id}",
            "model": self.model,
            "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": call_id, "name": step.name, "input": step.arguments}],
            "usage": {"input_tokens": self.usage.input_tokens, "output_tokens": self.usage.output_tokens},
        }
        return ModelResponse(
            ToolCall(call_id, step.name, dict(step.arguments)), self.usage, self.model, "tool_use", raw
        )


def stream_break(message: str = "stream broke off") -> ModelError:
    return ModelError(message, retryable=True)


def hard_failure(message: str = "overloaded") -> ModelError:
    return ModelError(message, retryable=False)
