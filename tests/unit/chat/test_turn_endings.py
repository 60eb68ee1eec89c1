"""How a chat turn ends on what today's models answer besides a tool call: an empty answer, a refusal
(HTTP 200, stop_reason "refusal"), an answer cut off by max_tokens; and the thinking blocks a tool call
came with, kept in the turn's events, sent back with the call (in later turns too), and never shown."""

from __future__ import annotations

import json
from typing import Any

from trainer.api.schemas import Event as ApiEvent
from trainer.chat.results import MODEL_REFUSED
from trainer.frames import ErrorFrame, Frame, MessageDeltaFrame, TurnEndFrame
from trainer.providers.ports import ModelRequest, ModelResponse, TextDeltaCallback, ToolCall, Usage
from trainer.store.models import EventType
from trainer_dev.testing.agent_harness import USER, make_harness, make_settings
from trainer_dev.testing.scripted_model import ScriptedModel, stream_break

THINKING = {"type": "thinking", "thinking": "", "signature": "sig-1"}


def answer(
    *,
    call: ToolCall | None = None,
    text: str = "",
    stop: str = "end_turn",
    preamble: list[dict[str, Any]] | None = None,
    raw: dict[str, Any] | None = None,
) -> ModelResponse:
    return ModelResponse(
        call,
        Usage(input_tokens=10, output_tokens=5),
        "claude-haiku-5-5",
        stop,
        raw or {"stop_reason": stop},
        text=text,
        preamble=preamble or [],
    )


class AnswerModel(ScriptedModel):
    """Answers from a list of ModelResponses (and streams each text answer as deltas)."""

    def __init__(self, answers: list[ModelResponse]) -> None:
        super().__init__([])
        self.answers = list(answers)

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        self.requests.append(request)
        response = self.answers.pop(0)
        if on_text_delta is not None and response.text:
            await on_text_delta("message_notify_user", response.text)
        return response


def notify(call_id: str, message: str) -> ToolCall:
    return ToolCall(call_id, "message_notify_user", {"message": message})


def idle(call_id: str) -> ToolCall:
    return ToolCall(call_id, "idle", {"reason": "done"})


async def test_an_empty_answer_ends_the_turn_as_no_tool_call() -> None:
    h = make_harness(model=AnswerModel([answer(text="  ")]))
    result = await h.loop.run_turn(USER, "hi")
    assert (result.stop_reason, result.actions) == ("no_tool_call", [])
    errors = [e for e in h.store.all_events(result.session_id) if e.event_type is EventType.ERROR]
    assert errors[-1].data["message"] == "No tool call in response"


async def test_a_text_reply_is_streamed_as_message_delta_frames() -> None:
    frames: list[Frame] = []

    async def sink(frame: Frame, seq: int) -> None:
        frames.append(frame)

    h = make_harness(model=AnswerModel([answer(text="Rest today.")]))
    result = await h.loop.run_turn(USER, "hi", emit=sink)
    assert result.response.messages == ["Rest today."]
    deltas = [f for f in frames if isinstance(f, MessageDeltaFrame)]
    assert "".join(d.data.text for d in deltas) == "Rest today."


async def test_a_refusal_is_an_answer_saying_so_and_the_preview_is_dropped() -> None:
    """stop_reason `refusal` (HTTP 200) ends the turn `refused` with a reply the user can read, as an
    answer (the session completed, no error), and the partial text previewed is dropped."""
    frames: list[Frame] = []

    async def sink(frame: Frame, seq: int) -> None:
        frames.append(frame)

    refusal = answer(
        stop="refusal", text="partial", raw={"stop_details": {"type": "refusal", "category": "cyber"}}
    )
    h = make_harness(model=AnswerModel([refusal]))
    result = await h.loop.run_turn(USER, "something refused", emit=sink)

    assert (result.status, result.stop_reason, result.outcome) == ("completed", "refused", "refused")
    assert result.response.messages == [MODEL_REFUSED]
    assert not [f for f in frames if isinstance(f, ErrorFrame)]
    kinds = [f.type for f in frames]
    assert kinds.index("message_reset") > kinds.index("message_delta"), kinds
    after_reset = kinds[kinds.index("message_reset") :]
    deltas = [f for f in frames[kinds.index("message_reset") :] if isinstance(f, MessageDeltaFrame)]
    assert "".join(d.data.text for d in deltas) == MODEL_REFUSED, "the preview after the reset is the reply"
    assert "tool_result" in after_reset and kinds[-2:] == ["turn_end", "done"], kinds
    (end,) = [f for f in frames if isinstance(f, TurnEndFrame)]
    assert end.outcome == "refused"
    session = await h.store.load_session(result.session_id)
    assert session.status == "completed"
    events = h.store.all_events(session.id)
    assert not [e for e in events if e.event_type is EventType.ERROR]
    (response,) = [e for e in events if e.event_type is EventType.LLM_RESPONSE]
    assert response.data["stop_reason"] == "refusal"
    assert [e.data["outcome"] for e in events if e.event_type is EventType.TURN_END] == ["refused"]
    assert "partial" not in json.dumps([e.data for e in events if e.event_type is EventType.TOOL_CALL])


async def test_a_cut_answer_is_retried_and_the_client_drops_its_preview() -> None:
    """A stream cut mid-message is asked again: `message_reset` follows the cut text's deltas, the
    retry's text follows it, and only the retry's message is the reply (in the frames and events)."""
    frames: list[Frame] = []

    async def sink(frame: Frame, seq: int) -> None:
        frames.append(frame)

    class CutOnce(AnswerModel):
        async def complete(
            self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
        ) -> ModelResponse:
            if not self.requests and on_text_delta is not None:
                self.requests.append(request)
                await on_text_delta("message_notify_user", "Here is the first half of a long answer that")
                raise stream_break("cut")
            return await super().complete(request, on_text_delta)

    model = CutOnce([answer(call=notify("t1", "Happy to help."), stop="tool_use"), answer(call=idle("t2"))])
    h = make_harness(model=model)
    result = await h.loop.run_turn(USER, "hi", emit=sink)

    assert result.response.messages == ["Happy to help."]
    kinds = [f.type for f in frames]
    reset = kinds.index("message_reset")
    assert "message_delta" in kinds[:reset]
    previews = "".join(f.data.text for f in frames[reset:] if isinstance(f, MessageDeltaFrame))
    assert "first half" not in previews
    events = h.store.all_events(result.session_id)
    assert "first half" not in json.dumps([e.data for e in events], default=str)


async def test_max_tokens_is_retried_once_with_more_room() -> None:
    model = AnswerModel([answer(stop="max_tokens"), answer(call=idle("t1"), stop="tool_use")])
    h = make_harness(model=model)
    result = await h.loop.run_turn(USER, "hi")
    assert result.stop_reason == "done"
    first, second = model.requests
    assert second.max_tokens == 2 * first.max_tokens


async def test_max_tokens_twice_ends_the_turn_cleanly() -> None:
    model = AnswerModel([answer(stop="max_tokens"), answer(stop="max_tokens", text="cut")])
    h = make_harness(model=model)
    result = await h.loop.run_turn(USER, "hi")
    assert (result.status, result.stop_reason, result.actions) == ("completed", "max_tokens", [])
    events = h.store.all_events(result.session_id)
    assert [e.data.get("code") for e in events if e.event_type is EventType.ERROR] == ["max_tokens"]


async def test_thinking_blocks_go_back_unchanged_with_their_call_in_this_turn_and_later_ones() -> None:
    thinking = [THINKING, {"type": "redacted_thinking", "data": "opaque"}]
    model = AnswerModel(
        [
            answer(call=notify("t1", "On it"), stop="tool_use", preamble=thinking),
            answer(call=idle("t2"), stop="tool_use"),
            answer(call=idle("t3"), stop="tool_use"),
        ]
    )
    h = make_harness(model=model)
    first = await h.loop.run_turn(USER, "hi")
    await h.loop.run_turn(USER, "again", session_id=first.session_id)
    second_turn_request = model.requests[2]
    in_turn = model.requests[1].messages
    assistant = [m for m in in_turn if m["role"] == "assistant"]
    assert assistant[-1]["content"][:2] == thinking
    assert assistant[-1]["content"][2]["id"] == "t1"
    # the next turn: the conversation stays append-only, the call keeps its blocks
    later = [m for m in second_turn_request.messages if m["role"] == "assistant"]
    assert later[0]["content"][:2] == thinking
    # kept in the turn's events, never in what the API shows the user
    call_event = next(e for e in h.store.all_events(first.session_id) if e.event_type is EventType.TOOL_CALL)
    assert call_event.data["preamble"] == thinking
    assert "preamble" not in ApiEvent.of(call_event).data


async def test_the_turn_asks_for_the_main_roles_effort() -> None:
    model = AnswerModel([answer(call=idle("t1"), stop="tool_use")])
    h = make_harness(model=model, settings=make_settings(TRAINER_MAIN_EFFORT="low"))
    await h.loop.run_turn(USER, "hi")
    assert model.requests[0].effort == "low"


async def test_a_final_message_ends_the_turn_in_one_call_without_idle() -> None:
    final = ToolCall("t1", "message_notify_user", {"message": "Rest 2-3 minutes.", "final": True})
    model = AnswerModel([answer(call=final, stop="tool_use")])
    h = make_harness(model=model)
    result = await h.loop.run_turn(USER, "How long should I rest?")
    assert (result.stop_reason, result.iterations, len(model.requests)) == ("done", 1, 1)
    assert result.response.messages == ["Rest 2-3 minutes."]
    assert [a.tool for a in result.actions] == ["message_notify_user"]


async def test_a_message_that_is_not_final_lets_the_loop_go_on() -> None:
    model = AnswerModel(
        [answer(call=notify("t1", "On it"), stop="tool_use"), answer(call=idle("t2"), stop="tool_use")]
    )
    h = make_harness(model=model)
    result = await h.loop.run_turn(USER, "hi")
    assert (result.stop_reason, len(model.requests)) == ("done", 2)
    assert [a.tool for a in result.actions] == ["message_notify_user", "idle"]


async def test_a_final_message_whose_artifact_is_unknown_does_not_end_the_turn() -> None:
    wrong = ToolCall(
        "t1", "message_notify_user", {"message": "Here", "artifact_id": "art_nope", "final": True}
    )
    model = AnswerModel([answer(call=wrong, stop="tool_use"), answer(call=idle("t2"), stop="tool_use")])
    h = make_harness(model=model)
    result = await h.loop.run_turn(USER, "my workout")
    assert (result.stop_reason, len(model.requests)) == ("done", 2)
    assert "art_nope not found" in model.requests[1].messages[-1]["content"][0]["content"]
