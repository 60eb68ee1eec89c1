"""The step engine: the one loop every agent runs (the chat turn and the registry agents' tool rounds).

A step calls the model on the conversation so far, executes the tool calls it asked for through the one
executor (trainer.agents.tools.ToolSet, in the tools' priority order; the chat agent asks for one per
step), and returns the explicit next step, as openai-agents' `NextStepRunAgain` / `NextStepFinalOutput`:

- `RunAgain`: the model is called again;
- `EndTurn`: a tool that ends the turn ran (the agent is done, or waits for the user), or the chat
  model answered without a tool;
- `FinalOutput`: a registry agent answered with its output (validated by the factory).

What a run keeps and how it talks to the model is its `Conversation` (the chat turn's event-backed
session, a registry agent's in-memory turns); what it does around each tool call is its `StepHooks`
(the chat turn records events and sends SSE frames).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from trainer.agents.tools import ToolOutcome, ToolSet
from trainer.providers.ports import ToolCall
from trainer.tools.base import ToolContext

EndReason = Literal["done", "awaiting_user", "no_tool_call", "max_tokens", "refused"]


@dataclass(frozen=True)
class RunAgain:
    """Call the model again."""


@dataclass(frozen=True)
class EndTurn:
    """The turn is over: the agent is done, asked the user and waits, answered without a tool, or the
    model declined (the chat turn replies saying so)."""

    reason: EndReason


@dataclass(frozen=True)
class FinalOutput[OutputT]:
    """The model answered with the run's output."""

    output: OutputT


NextStep = RunAgain | EndTurn | FinalOutput[Any]


@dataclass(frozen=True)
class ModelTurn[ReplyT]:
    """What the model answered, and the tool calls it asks for (none: it answered)."""

    reply: ReplyT
    tool_calls: tuple[ToolCall, ...] = ()


class Conversation[ReplyT](Protocol):
    """One run's conversation with the model."""

    async def ask(self, step: int) -> ModelTurn[ReplyT]:
        """Calls the model on the conversation so far (step 1, 2...)."""
        ...

    async def answered(self, turn: ModelTurn[ReplyT]) -> EndTurn | FinalOutput[Any]:
        """The next step when the model called no tool."""
        ...

    def tool_context(self) -> ToolContext:
        """The dependencies of one tool call."""
        ...

    async def tools_ran(
        self, turn: ModelTurn[ReplyT], results: Sequence[tuple[ToolCall, ToolOutcome]]
    ) -> None:
        """The calls of a step ran (in execution order): the conversation keeps them."""
        ...


class StepHooks(Protocol):
    """What a run does around each tool call (openai-agents' `RunHooks.on_tool_start/on_tool_end`)."""

    async def on_tool_start(self, ctx: ToolContext, call: ToolCall) -> None: ...

    async def on_tool_end(self, ctx: ToolContext, call: ToolCall, outcome: ToolOutcome) -> None: ...


class NoHooks:
    async def on_tool_start(self, ctx: ToolContext, call: ToolCall) -> None:
        return None

    async def on_tool_end(self, ctx: ToolContext, call: ToolCall, outcome: ToolOutcome) -> None:
        return None


@dataclass(frozen=True)
class StepsResult:
    next_step: NextStep
    """The step that ended the run; `RunAgain` when the steps ran out."""
    steps: int
    """Model calls made."""

    @property
    def exhausted(self) -> bool:
        return isinstance(self.next_step, RunAgain)


def next_step_after(outcomes: Sequence[ToolOutcome]) -> RunAgain | EndTurn:
    """`EndTurn` when a call that ends the turn succeeded, else `RunAgain`."""
    for outcome in outcomes:
        if outcome.ends_turn is not None:
            return EndTurn(outcome.ends_turn)
    return RunAgain()


async def run_steps[ReplyT](
    conversation: Conversation[ReplyT],
    tools: ToolSet,
    *,
    max_steps: int,
    hooks: StepHooks | None = None,
) -> StepsResult:
    """Steps until one ends the run or `max_steps` model calls were made."""
    observer: StepHooks = hooks if hooks is not None else NoHooks()
    for step in range(1, max_steps + 1):
        turn = await conversation.ask(step)
        if not turn.tool_calls:
            return StepsResult(await conversation.answered(turn), step)
        results: list[tuple[ToolCall, ToolOutcome]] = []
        for call in tools.order(turn.tool_calls):
            ctx = conversation.tool_context()
            await observer.on_tool_start(ctx, call)
            outcome = await tools.execute(call.name, call.arguments, ctx)
            await observer.on_tool_end(ctx, call, outcome)
            results.append((call, outcome))
        await conversation.tools_ran(turn, results)
        next_step = next_step_after([outcome for _, outcome in results])
        if not isinstance(next_step, RunAgain):
            return StepsResult(next_step, step)
    return StepsResult(RunAgain(), max_steps)
