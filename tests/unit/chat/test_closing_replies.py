"""A call marked final (`Tool.can_finish`, `final: true`) ends the turn with a reply the code writes from
the turn's results and the model's own note after them: one model call where a model-written reply took
two, the numbers the results' own, the workout the call made delivered with it, the coach's voice in
the note."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from trainer.agents.closing import coaching_note
from trainer.agents.tools import ToolSet
from trainer.offline.model import finishing
from trainer.offline.replies import COACHING_NOTES
from trainer.offline.turn import notify
from trainer.providers.ports import ModelRequest
from trainer.store.models import EventType
from trainer.tools.base import (
    FINAL_ARGUMENT,
    MAX_NOTE_CHARS,
    NOTE_ARGUMENT,
    Tool,
    ToolContext,
    ToolInvocation,
    ToolResult,
)
from trainer.tools.communication import MessageNotifyUser
from trainer_dev.testing.agent_harness import USER, chest_workout, make_harness
from trainer_dev.testing.memory_store import InMemorySessionStore
from trainer_dev.testing.scripted_model import call


class NoteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


class NoteResult(ToolResult):
    text: str
    blocked: bool = False

    def unfinished(self) -> str | None:
        return "the note is blocked" if self.blocked else None


class SaveNote(Tool[NoteArgs, NoteResult]):
    name = "save_note"
    description = "Save a note."
    Args = NoteArgs
    Result = NoteResult
    can_finish = True

    async def execute(self, args: NoteArgs, ctx: ToolContext) -> NoteResult:
        return NoteResult(text=args.text, blocked=args.text == "blocked")

    def format(self, result: NoteResult) -> str:
        return f"saved {result.text}"


class ReadNote(SaveNote):
    name = "read_note"
    can_finish = False


async def no_frames(frame: Any) -> None:
    return None


def context() -> ToolContext:
    return ToolContext(
        user_id=USER,
        session_id="s1",
        store=InMemorySessionStore(),
        emit=no_frames,
        now=lambda: datetime(2026, 11, 26, tzinfo=UTC),
    )


def test_only_a_tool_that_can_finish_is_sent_the_final_argument_and_the_note() -> None:
    defs = {d["name"]: d["input_schema"] for d in ToolSet([SaveNote(), ReadNote()]).definitions()}
    assert defs["save_note"]["properties"][FINAL_ARGUMENT] == {
        "type": "boolean",
        "description": "Ends the turn",
    }
    assert defs["save_note"]["properties"][NOTE_ARGUMENT]["type"] == "string"
    assert not {FINAL_ARGUMENT, NOTE_ARGUMENT} & set(defs["read_note"]["properties"])
    assert not {FINAL_ARGUMENT, NOTE_ARGUMENT} & set(defs["save_note"].get("required", []))


async def test_the_note_goes_with_a_final_call_and_only_with_one() -> None:
    tools = ToolSet([SaveNote()])
    final = await tools.execute("save_note", {"text": "x", "final": True, "note": "Well done."}, context())
    assert final.finishes and final.note == "Well done."
    plain = await tools.execute("save_note", {"text": "x", "note": "Well done."}, context())
    assert plain.success and not plain.finishes and plain.note is None
    blocked = await tools.execute("save_note", {"text": "blocked", "final": True, "note": "Hi."}, context())
    assert not blocked.finishes and blocked.note is None
    wrong = await tools.execute("save_note", {"text": "x", "final": True, "note": 5}, context())
    assert not wrong.success and "note: must be a string" in wrong.body


def test_the_note_keeps_the_numbers_to_the_facts() -> None:
    """A sentence of the model's note that holds a digit could contradict the facts the code wrote
    above it: it is left out; the rest is kept, whitespace collapsed, a sentence or two at most."""
    assert coaching_note("Great work!  Next week aim for 70 kg. Rest well tonight.") == (
        "Great work! Rest well tonight."
    )
    assert coaching_note(None) == "" and coaching_note("Only 3 sets left.") == ""
    long = " ".join(["Keep your back flat and brace before every rep."] * 12)
    assert len(coaching_note(long)) <= MAX_NOTE_CHARS


async def test_a_final_call_with_a_note_is_the_facts_then_the_note() -> None:
    note = "Warm up with an empty bar first. Keep 2 reps in reserve."
    h = make_harness([call("generate_workout", workout=chest_workout(), final=True, note=note)])
    result = await h.loop.run_turn(USER, "chest workout please", emit=h.emit)
    (message,) = result.response.messages
    facts, words = message.split("\n\n")
    assert facts.startswith("Here's Chest & Core, 3 exercises:")
    assert words == "Warm up with an empty bar first."
    assert len(h.model.requests) == 1


async def test_final_true_is_taken_off_before_validation_and_ends_the_turn() -> None:
    tools = ToolSet([SaveNote(), ReadNote()])
    final = await tools.execute("save_note", {"text": "x", FINAL_ARGUMENT: True}, context())
    assert final.success and final.finishes and final.ends_turn == "done"
    plain = await tools.execute("save_note", {"text": "x", FINAL_ARGUMENT: False}, context())
    assert plain.success and not plain.finishes and plain.ends_turn is None
    refused = await tools.execute("read_note", {"text": "x", FINAL_ARGUMENT: True}, context())
    assert not refused.success  # a tool that cannot finish validates `final` as the unknown field it is


async def test_a_result_that_is_not_finished_keeps_the_turn_going_and_says_why() -> None:
    outcome = await ToolSet([SaveNote()]).execute("save_note", {"text": "blocked", "final": True}, context())
    assert outcome.success and not outcome.finishes and outcome.ends_turn is None
    assert "Not final: the note is blocked" in outcome.body


async def test_a_final_workout_call_is_the_whole_turn_with_a_reply_written_from_its_result() -> None:
    h = make_harness([call("generate_workout", workout=chest_workout(), final=True)])
    result = await h.loop.run_turn(USER, "chest workout please", emit=h.emit)

    assert len(h.model.requests) == result.iterations == 1
    assert result.stop_reason == "done"
    assert [a.tool for a in result.actions] == ["generate_workout", "message_notify_user"]
    (message,) = result.response.messages
    assert message.startswith("Here's Chest & Core, 3 exercises:")
    assert "1. Bench Press: 3 x 10 at 60 kg" in message  # the stored prescription, not the model's words
    assert [e["exercise_name"] for e in result.response.exercises or []] == [
        "Bench Press",
        "Push-ups",
        "Plank",
    ]
    assert "message_notify_user" not in result.actions[0].outcome.formatted  # no delivery note: done
    delivered = result.actions[1]
    artifact_id = result.actions[0].outcome.result.artifact_id  # type: ignore[union-attr]
    assert delivered.args == {"message": message, "artifact_id": artifact_id, "final": True}
    calls = [e.data for e in h.store.all_events(result.session_id) if e.event_type is EventType.TOOL_CALL]
    assert calls[0]["arguments"]["final"] is True  # what the model sent is kept as sent
    assert calls[1]["tool_name"] == "message_notify_user"
    deltas = [f for f in h.emitted if f["type"] == "message_delta"]
    assert [d["data"]["text"] for d in deltas] == [message]
    delivered_frames = [f for f in h.emitted if f["type"] == "tool_result" and f["data"].get("artifact")]
    assert delivered_frames and delivered_frames[-1]["data"]["artifact_id"] == artifact_id


async def test_without_final_the_model_writes_its_own_reply() -> None:
    h = make_harness(
        [
            call("generate_workout", workout=chest_workout()),
            call("message_notify_user", message="Here it is", final=True),
        ]
    )
    result = await h.loop.run_turn(USER, "chest workout please")
    assert len(h.model.requests) == 2
    assert result.response.messages == ["Here it is"]
    assert "is not shown to the user yet" in result.actions[0].outcome.formatted


def request_with(*tools: Any) -> ModelRequest:
    return ModelRequest(
        model="claude-haiku-5-5",
        system=[],
        tools=ToolSet(tools).definitions(),
        messages=[{"role": "user", "content": "x"}],
    )


def test_the_offline_coach_sends_its_note_with_the_tools_it_has_one_for() -> None:
    """The loopback fake plays the model with the offline coach: its final generate_workout carries a
    note, so the note path runs in every mode; a tool without a note of its own goes final without."""
    from trainer.tools.generate_workout import GenerateArgs, GenerateWorkout

    request = request_with(GenerateWorkout(), SaveNote(), MessageNotifyUser())
    workout = GenerateWorkout().call(GenerateArgs.model_validate({"workout": chest_workout()}))
    marked = finishing(workout, request, [])
    assert marked.final and marked.note == COACHING_NOTES["generate_workout"]
    assert marked.arguments()[NOTE_ARGUMENT] == marked.note
    assert finishing(SaveNote().call(NoteArgs(text="x")), request, []).note is None


def test_the_offline_coach_marks_its_last_call_final_only_when_every_call_can_finish() -> None:
    save = SaveNote().call(NoteArgs(text="x"))
    request = request_with(SaveNote(), ReadNote(), MessageNotifyUser())
    assert finishing(save, request, []).final is True
    assert finishing(save, request, []).arguments()[FINAL_ARGUMENT] is True
    read = ReadNote().call(NoteArgs(text="x"))
    assert finishing(read, request, []).final is False
    earlier = [_past("read_note")]
    assert finishing(save, request, earlier).final is False
    reply = notify("hello")
    assert finishing(reply, request, []) == reply  # a reply tool is the reply, never marked again
    assert isinstance(save, ToolInvocation)


def _past(name: str) -> Any:
    from trainer.offline.conversation import PastCall

    return PastCall(call_id="c", name=name, arguments={}, result=None, failed=False)


def test_every_tool_of_the_chat_agent_has_words_for_its_result() -> None:
    """What a call did is its result's to say (`ToolResult.say`): no tool's result falls back to a bare
    'Done.' but the reply tools', whose message is the reply itself."""
    from trainer.chat.agent import CHAT

    reply_tools = {t.name for t in CHAT.tools if t.text_reply_argument or t.ends_turn}
    assert reply_tools == {"message_notify_user", "message_ask_user", "idle"}
    silent = [t.name for t in CHAT.tools if t.name not in reply_tools and t.Result.say is ToolResult.say]
    assert silent == []
