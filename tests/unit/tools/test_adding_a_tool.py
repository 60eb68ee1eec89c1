"""docs/adding-a-tool.md, walked: the tool its Python blocks define is built from those blocks as written,
registered as a family registers its tools, and run through a chat turn and the offline coach's last
message, where its own words are what the user reads. A recipe that stops working fails here."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest
from trainer.agents.closing import FinishedCall, closing_text, needs_user_records
from trainer.agents.tools import ToolSet
from trainer.offline.conversation import read_conversation
from trainer.offline.turn import Turn
from trainer.providers.ports import ModelRequest
from trainer.tools.base import FINAL_ARGUMENT, NOTE_ARGUMENT, AnyTool, ToolContext, ToolResult
from trainer.tools.communication import NotifyArgs
from trainer.tools.wording import ReplyContext
from trainer_dev.testing.agent_harness import USER, make_harness
from trainer_dev.testing.scripted_model import call

from tests.unit.offline.test_offline_policy import NOW, Convo, FakePlanner

RECIPE = Path(__file__).resolve().parents[3] / "docs" / "adding-a-tool.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


@pytest.fixture(scope="module")
def family() -> types.ModuleType:
    """The family module the recipe's Python blocks make, in order."""
    blocks = PYTHON_BLOCK.findall(RECIPE.read_text())
    assert len(blocks) >= 4, "the recipe's steps are Python blocks"
    module = types.ModuleType("tests.unit.recipe_tool_family")
    sys.modules[module.__name__] = module
    try:
        exec(compile("\n".join(blocks), str(RECIPE), "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return module


def test_the_recipe_makes_a_tool_family(family: types.ModuleType) -> None:
    tools: list[AnyTool] = family.TOOLS
    assert [t.name for t in tools] == ["convert_load"]
    (tool,) = tools
    assert issubclass(tool.Result, ToolResult) and tool.Result.say is not ToolResult.say
    assert tool.can_finish
    schema = {d["name"]: d["input_schema"] for d in ToolSet(tools).definitions()}["convert_load"]
    assert set(schema["properties"]) == {"value", "from_unit", "to_unit", FINAL_ARGUMENT, NOTE_ARGUMENT}


async def test_the_recipe_tool_refuses_what_it_cannot_do(family: types.ModuleType) -> None:
    tools = ToolSet(family.TOOLS)
    same = await tools.execute("convert_load", {"value": 100, "from_unit": "kg", "to_unit": "kg"}, _ctx())
    assert not same.success and "the same" in same.body
    nan = await tools.execute(
        "convert_load", {"value": float("nan"), "from_unit": "kg", "to_unit": "lbs"}, _ctx()
    )
    assert not nan.success


async def test_a_final_call_of_the_recipe_tool_ends_the_turn_with_its_words(family: types.ModuleType) -> None:
    h = make_harness(
        [call("convert_load", value=100, from_unit="kg", to_unit="lbs", final=True)],
        extra_tools=list(family.TOOLS),
    )
    result = await h.loop.run_turn(USER, "How much is 100 kg in pounds?")

    assert len(h.model.requests) == 1
    assert [a.tool for a in result.actions] == ["convert_load", "message_notify_user"]
    assert result.response.messages == ["100 kg is 220.5 lb."]
    assert result.stop_reason == "done"


async def test_the_offline_coach_ends_with_the_same_words(family: types.ModuleType) -> None:
    result = family.ConvertLoadResult(value=100, from_unit="kg", converted=220.46, to_unit="lbs")
    arguments = {"value": 100, "from_unit": "kg", "to_unit": "lbs"}
    finished = [FinishedCall("convert_load", arguments, result)]
    assert not needs_user_records(finished)
    assert closing_text(finished, ReplyContext(text="100 kg in pounds?")) == "100 kg is 220.5 lb."

    convo = Convo("How much is 100 kg in pounds?").call("convert_load", arguments, result)
    request = ModelRequest(
        model="claude-haiku-5-5", system=[], tools=[], messages=convo.messages, results=convo.results
    )
    turn = Turn(FakePlanner(), request, read_conversation(convo.messages, convo.results), NOW)
    last = await turn.report()
    assert isinstance(last.args, NotifyArgs)
    assert last.args.message == "100 kg is 220.5 lb."


def _ctx() -> ToolContext:
    return ToolContext(user_id=USER, now=lambda: NOW)
