"""ScriptedModel: an AgentModel that answers from a script, records every request, and can
simulate latency, stream deltas, retryable stream breaks and hard failures.

A script is the whole conversation: a call past its end raises ScriptExhausted, and `assert_complete()`
(as openai-agents' FakeModel) fails unless every step was used and none was asked for beyond the last.
`scripted_models_built()` collects the models built inside it: tests/conftest.py wraps every test in it
and checks each model when the test ends, so a script that ran out, or was left unfinished, fails its
test even when the loop caught the error; `ScriptedModel(..., unfinished_ok=True)` is for the tests
whose turn is cut short on purpose.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


def idle(reason: str = "done") -> Call:
    """The step that ends a turn."""
    return Call("idle", {"reason": reason})


class ScriptExhausted(AssertionError):
    """The model was called after its script's last step."""


_built: list[ScriptedModel] | None = None
"""The models built inside `scripted_models_built()` (None outside it)."""


class ScriptedModel:
    provider: Literal["anthropic", "offline"] = "offline"

    def __init__(
        self,
        steps: list[Step],
        *,
        latency: float = 0.0,
        usage: Usage | None = None,
        model: str = "claude-haiku-4-5",
        unfinished_ok: bool = False,
    ) -> None:
        self.steps = list(steps)
        self.latency = latency
        self.usage = usage or Usage(input_tokens=100, output_tokens=20, cache_read_input_tokens=50)
        self.model = model
        self.unfinished_ok = unfinished_ok
        """Steps may be left unused (a turn cut short on purpose); running out still fails."""
        self.requests: list[ModelRequest] = []
        self.calls_past_the_end = 0
        self._ids = itertools.count(1)
        if _built is not None:
            _built.append(self)

    def assert_complete(self) -> None:
        """Every step was used, and the model was not called after the last one."""
        if self.calls_past_the_end:
            raise ScriptExhausted(
                f"the model was called {self.calls_past_the_end} time(s) after its script ended "
                f"({len(self.requests)} calls in all): script the rest of the turn, e.g. idle()"
            )
        if self.steps and not self.unfinished_ok:
            raise AssertionError(f"{len(self.steps)} scripted step(s) never used: {self.steps!r}")

    def _next_step(self, request: ModelRequest) -> Any:
        if not self.steps:
            self.calls_past_the_end += 1
            raise ScriptExhausted(f"the script ran out of steps at model call {len(self.requests)}")
        step = self.steps.pop(0)
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


@contextmanager
def scripted_models_built() -> Iterator[list[ScriptedModel]]:
    """The ScriptedModels built inside the block (for `assert_complete()` once it ends)."""
    global _built
    _built = []
    try:
        yield _built
    finally:
        _built = None
