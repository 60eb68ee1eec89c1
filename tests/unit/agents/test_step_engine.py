"""The one step engine (trainer.agents.steps): a step calls the model, runs the calls it asked for
through the one executor in priority order with the run's hooks around each, and returns the explicit
next step: run again, end the turn, or the final output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel
from trainer.agents.steps import (
    EndTurn,
    FinalOutput,
    ModelTurn,
    RunAgain,
    run_steps,
)
from trainer.agents.tools import ToolOutcome, ToolSet
from trainer.providers.ports import ToolCall
from trainer.tools.base import EndsTurn, Tool, ToolContext, ToolResult


class Args(BaseModel):
    value: int = 0


class Echoed(ToolResult):
    value: int


def tool(tool_name: str, *, ends: EndsTurn | None = None, tool_priority: int = 100) -> Tool[Args, Echoed]:
    class Named(Tool[Args, Echoed]):
        name: ClassVar[str] = tool_name
        description: ClassVar[str] = tool_name
        Args = Args
        Result = Echoed
        ends_turn: ClassVar[EndsTurn | None] = ends
        priority: ClassVar[int] = tool_priority

        async def execute(self, args: Args, ctx: ToolContext) -> Echoed:
            return Echoed(value=args.value)

        def format(self, result: Echoed) -> str:
            return str(result.value)

    return Named()


class Scripted:
    """A conversation whose model answers with the scripted calls, step by step, then with text."""

    def __init__(self, *steps: Sequence[ToolCall]) -> None:
        self.steps = list(steps)
        self.asked: list[int] = []
        self.ran: list[list[tuple[str, str]]] = []
        self.log: list[str] = []

    async def ask(self, step: int) -> ModelTurn[str]:
        self.asked.append(step)
        calls = tuple(self.steps.pop(0)) if self.steps else ()
        return ModelTurn(f"answer {step}", calls)

    async def answered(self, turn: ModelTurn[str]) -> EndTurn | FinalOutput[Any]:
        return FinalOutput(turn.reply)

    def tool_context(self) -> ToolContext:
        return ToolContext(user_id="u")

    async def tools_ran(self, turn: ModelTurn[str], results: Sequence[tuple[ToolCall, ToolOutcome]]) -> None:
        self.ran.append([(call.id, outcome.body) for call, outcome in results])

    async def on_tool_start(self, ctx: ToolContext, call: ToolCall) -> None:
        self.log.append(f"start {call.id}")

    async def on_tool_end(self, ctx: ToolContext, call: ToolCall, outcome: ToolOutcome) -> None:
        self.log.append(f"end {call.id} {'ok' if outcome.success else 'failed'}")


TOOLS = ToolSet([tool("look", tool_priority=2), tool("save", tool_priority=1), tool("idle", ends="done")])


async def test_steps_run_again_until_the_model_answers_with_its_output() -> None:
    convo = Scripted([ToolCall("a", "look", {"value": 1})], [ToolCall("b", "look", {"value": 2})])
    result = await run_steps(convo, TOOLS, max_steps=5, hooks=convo)
    assert result.next_step == FinalOutput("answer 3") and result.steps == 3 and not result.exhausted
    assert convo.ran == [[("a", "1")], [("b", "2")]]


async def test_the_calls_of_a_step_run_in_priority_order_with_the_hooks_around_each() -> None:
    convo = Scripted([ToolCall("a", "look", {"value": 1}), ToolCall("b", "save", {"value": "x"})])
    await run_steps(convo, TOOLS, max_steps=5, hooks=convo)
    assert convo.log == ["start b", "end b failed", "start a", "end a ok"]
    assert convo.ran[0][0][1].startswith("Invalid arguments for save")


async def test_a_tool_that_ends_the_turn_ends_it() -> None:
    convo = Scripted([ToolCall("a", "idle", {})], [ToolCall("b", "look", {})])
    result = await run_steps(convo, TOOLS, max_steps=5)
    assert result.next_step == EndTurn("done") and result.steps == 1
    assert convo.asked == [1]


async def test_steps_that_run_out_say_so() -> None:
    convo = Scripted(*([ToolCall(str(i), "look", {})] for i in range(5)))
    result = await run_steps(convo, TOOLS, max_steps=3)
    assert result.next_step == RunAgain() and result.exhausted and result.steps == 3
    assert convo.asked == [1, 2, 3]
