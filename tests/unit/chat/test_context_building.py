"""Context building and its cache-stability rules (docs/architecture.md#context-and-the-prompt-cache)."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from typing import Any

import pytest
from trainer.agents.tools import ToolSet
from trainer.chat.agent import CHAT
from trainer.chat.context import ContextBuilder, events_to_messages
from trainer.domain.muscles import MUSCLES
from trainer.store.models import Event, EventType, Session
from trainer.store.prompt_files import read_prompt_files
from trainer.tools.communication import communication_tools
from trainer.tools.workout import workout_tools
from trainer_dev.testing.agent_harness import USER, USER_DATA, make_harness
from trainer_dev.testing.scripted_model import call

NOW = datetime(2025, 1, 11, 10, 0, tzinfo=UTC)
EPHEMERAL = {"type": "ephemeral"}

SYSTEM_PROMPT = read_prompt_files()["chat"]


def ev(seq: int, kind: EventType, **data: Any) -> Event:
    return Event(session_id="s", sequence_number=seq, event_type=kind, timestamp=NOW, data=data)


def session(start: int = 0) -> Session:
    return Session(id="s", user_id=USER, created_at=NOW, updated_at=NOW, context_start_sequence=start)


def builder() -> ContextBuilder:
    return ContextBuilder(ToolSet([*communication_tools(), *workout_tools()]))


def tool_pair(seq: int, call_id: str, name: str = "message_notify_user", ok: bool = True) -> list[Event]:
    return [
        ev(seq, EventType.TOOL_CALL, tool_name=name, arguments={"message": "hi"}, call_id=call_id),
        ev(
            seq + 1,
            EventType.TOOL_RESULT,
            tool_name=name,
            result={"success": ok},
            success=ok,
            call_id=call_id,
            formatted=f'<tool_result tool="{name}" status="ok">ok</tool_result>',
        ),
    ]


def without_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(v) for v in value]
    return value


def test_events_are_converted_to_anthropic_native_multi_turn_format() -> None:
    events = [ev(1, EventType.USER_MESSAGE, message="chest workout"), *tool_pair(2, "t1")]
    messages = events_to_messages(events)
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "chest workout"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "message_notify_user", "input": {"message": "hi"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": '<tool_result tool="message_notify_user" status="ok">ok</tool_result>',
                }
            ],
        },
    ]


def test_every_tool_use_is_immediately_followed_by_a_tool_result_in_the_next_user_message() -> None:
    events = [
        ev(1, EventType.USER_MESSAGE, message="go"),
        *tool_pair(2, "t1"),
        ev(4, EventType.TOOL_CALL, tool_name="generate_workout", arguments={}, call_id="t2"),
        ev(5, EventType.ARTIFACT, artifact_id="art_1", type="exercise_list", title="T", summary={}),
        ev(
            6,
            EventType.TOOL_RESULT,
            tool_name="generate_workout",
            result={},
            success=True,
            call_id="t2",
            formatted="x",
        ),
        *tool_pair(7, "t3"),
    ]
    messages = events_to_messages(events)
    for i, message in enumerate(messages):
        for block in message["content"]:
            if block["type"] == "tool_use":
                nxt = messages[i + 1]
                assert nxt["role"] == "user"
                assert nxt["content"][0] == {
                    **nxt["content"][0],
                    "type": "tool_result",
                    "tool_use_id": block["id"],
                }


def test_consecutive_user_messages_are_merged_into_a_single_message() -> None:
    events = [
        ev(1, EventType.USER_MESSAGE, message="one"),
        ev(2, EventType.USER_MESSAGE, message="two"),
        ev(3, EventType.KNOWLEDGE, source="workout_history", data="<h/>"),
    ]
    messages = events_to_messages(events)
    assert len(messages) == 1
    assert [b["text"] for b in messages[0]["content"]] == [
        "one",
        "two",
        '<knowledge source="workout_history">\n<h/>\n</knowledge>',
    ]


def test_knowledge_and_artifact_events_are_buffered_while_a_tool_result_is_pending() -> None:
    events = [
        ev(1, EventType.USER_MESSAGE, message="go"),
        ev(2, EventType.TOOL_CALL, tool_name="generate_workout", arguments={"b": 1, "a": 2}, call_id="t1"),
        ev(
            3,
            EventType.ARTIFACT,
            artifact_id="art_1",
            type="exercise_list",
            title="Chest",
            summary={"exercise_count": 3, "muscles_targeted": ["Chest", "Abs"]},
            payload={"workout_id": "workout_1"},
        ),
        ev(4, EventType.KNOWLEDGE, source="active_preferences", data="<p/>"),
        ev(
            5,
            EventType.TOOL_RESULT,
            tool_name="generate_workout",
            result={},
            success=True,
            call_id="t1",
            formatted="created",
        ),
    ]
    messages = events_to_messages(events)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    last = messages[-1]["content"]
    assert last[0]["type"] == "tool_result"
    assert last[1]["text"] == (
        '<artifact type="exercise_list" id="art_1">\ntitle: Chest\nworkout_id: workout_1\n'
        "exercise_count: 3\nmuscles_targeted: Chest, Abs\n</artifact>"
    )
    assert last[2]["text"] == '<knowledge source="active_preferences">\n<p/>\n</knowledge>'


def test_failed_tool_result_is_marked_is_error() -> None:
    messages = events_to_messages(
        [ev(1, EventType.USER_MESSAGE, message="go"), *tool_pair(2, "t1", ok=False)]
    )
    assert messages[-1]["content"][0]["is_error"] is True


def test_trailing_tool_use_without_result_gets_a_synthetic_error_result() -> None:
    events = [
        ev(1, EventType.USER_MESSAGE, message="go"),
        ev(2, EventType.TOOL_CALL, tool_name="generate_workout", arguments={}, call_id="t1"),
        ev(3, EventType.USER_MESSAGE, message="hello again"),
    ]
    messages = events_to_messages(events)
    assert messages[-1]["role"] == "user"
    result, text = messages[-1]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "t1" and result["is_error"] is True
    assert 'status="error"' in result["content"]
    assert text == {"type": "text", "text": "hello again"}


def test_conversation_always_starts_with_a_user_message() -> None:
    messages = events_to_messages(tool_pair(5, "t1"))
    assert messages[0]["role"] == "user"
    assert messages[1]["role"] == "assistant"


def test_checkpoint_is_rendered_as_a_user_text_block() -> None:
    data = {
        "events_summarized": "1-30",
        "events": '1. knowledge: category_goals\n2. user: "hi"',
        "current_state": {"workout_in_progress": "3/5 complete"},
    }
    messages = events_to_messages(
        [ev(31, EventType.CHECKPOINT, **data), ev(32, EventType.USER_MESSAGE, message="x")]
    )
    assert messages[0]["content"][0]["text"] == (
        '<checkpoint events_summarized="1-30">\n  <events>\n    1. knowledge: category_goals\n'
        '    2. user: "hi"\n  </events>\n  <current_state>\n    workout_in_progress: 3/5 complete\n'
        "  </current_state>\n</checkpoint>"
    )


def test_only_context_event_types_from_context_start_sequence_are_included() -> None:
    events = [
        ev(1, EventType.USER_MESSAGE, message="before checkpoint"),
        ev(2, EventType.CHECKPOINT, events_summarized="1-1", events="1. user"),
        ev(3, EventType.LLM_REQUEST, model="m", prompt="p", estimated_tokens=1),
        ev(4, EventType.ERROR, message="boom"),
        ev(5, EventType.USER_MESSAGE, message="after"),
    ]
    request = builder().build(
        session(start=2), events, USER_DATA, "claude-haiku-4-5", system_prompt=SYSTEM_PROMPT
    )
    texts = [b["text"] for b in request.messages[0]["content"]]
    assert len(texts) == 2
    assert texts[0].startswith("<checkpoint") and texts[1] == "after"


def test_cache_breakpoint_1_is_on_the_last_tool_definition() -> None:
    request = builder().build(
        session(), [ev(1, EventType.USER_MESSAGE, message="hi")], USER_DATA, "m", system_prompt=SYSTEM_PROMPT
    )
    assert request.tools[-1]["cache_control"] == EPHEMERAL
    assert all("cache_control" not in t for t in request.tools[:-1])


def test_cache_breakpoint_2_is_on_the_system_prompt_text_block() -> None:
    request = builder().build(
        session(), [ev(1, EventType.USER_MESSAGE, message="hi")], USER_DATA, "m", system_prompt=SYSTEM_PROMPT
    )
    assert request.system[0] == {"type": "text", "text": SYSTEM_PROMPT, "cache_control": EPHEMERAL}


def test_cache_breakpoint_3_is_on_the_user_data_xml_text_block() -> None:
    request = builder().build(
        session(), [ev(1, EventType.USER_MESSAGE, message="hi")], USER_DATA, "m", system_prompt=SYSTEM_PROMPT
    )
    assert request.system[1] == {"type": "text", "text": USER_DATA, "cache_control": EPHEMERAL}


def test_cache_breakpoint_4_is_on_the_last_content_block_of_the_last_message_only() -> None:
    events = [ev(1, EventType.USER_MESSAGE, message="go"), *tool_pair(2, "t1"), *tool_pair(4, "t2")]
    request = builder().build(session(), events, USER_DATA, "m", system_prompt=SYSTEM_PROMPT)
    marked = [
        (i, j)
        for i, m in enumerate(request.messages)
        for j, block in enumerate(m["content"])
        if "cache_control" in block
    ]
    assert marked == [(len(request.messages) - 1, len(request.messages[-1]["content"]) - 1)]
    total = json.dumps([request.tools, request.system, request.messages]).count('"cache_control"')
    assert total == 4


def test_empty_event_list_raises_cannot_build_context() -> None:
    with pytest.raises(ValueError, match="Cannot build context: no events in session"):
        builder().build(session(), [], USER_DATA, "m", system_prompt=SYSTEM_PROMPT)
    with pytest.raises(ValueError, match="Cannot build context: no events in session"):
        builder().build(
            session(), [ev(1, EventType.ERROR, message="x")], USER_DATA, "m", system_prompt=SYSTEM_PROMPT
        )


def test_request_prefix_is_byte_identical_across_iterations() -> None:
    events = [
        ev(1, EventType.USER_MESSAGE, message="go"),
        ev(
            2,
            EventType.TOOL_CALL,
            tool_name="generate_workout",
            arguments={"z": {"b": 1, "a": [3, 1]}, "a": 0},
            call_id="t1",
        ),
        ev(
            3,
            EventType.TOOL_RESULT,
            tool_name="generate_workout",
            result={},
            success=True,
            call_id="t1",
            formatted="ok",
        ),
    ]
    b = builder()
    first = b.build(session(), events, USER_DATA, "m", system_prompt=SYSTEM_PROMPT)
    second = b.build(session(), [*events, *tool_pair(4, "t2")], USER_DATA, "m", system_prompt=SYSTEM_PROMPT)
    assert json.dumps(first.tools) == json.dumps(second.tools)
    assert json.dumps(first.system) == json.dumps(second.system)
    before = json.dumps(without_cache_control(first.messages))[:-1]
    assert json.dumps(without_cache_control(second.messages)).startswith(before)


def test_tool_inputs_are_reserialised_with_sorted_keys() -> None:
    events = [
        ev(1, EventType.USER_MESSAGE, message="go"),
        ev(2, EventType.TOOL_CALL, tool_name="x", arguments={"b": {"d": 1, "c": 2}, "a": 1}, call_id="t1"),
    ]
    tool_use = events_to_messages(events)[1]["content"][0]
    assert json.dumps(tool_use["input"]) == '{"a": 1, "b": {"c": 2, "d": 1}}'


def test_current_date_goes_in_the_user_data_block_not_the_system_prompt() -> None:
    request = builder().build(
        session(),
        [ev(1, EventType.USER_MESSAGE, message="hi")],
        USER_DATA,
        "m",
        system_prompt=SYSTEM_PROMPT,
        today=date(2025, 1, 11),
    )
    assert request.system[1]["text"].startswith(
        "<current_date>2025-01-11 (Saturday)</current_date>\n<user_data>"
    )
    assert "2025" not in SYSTEM_PROMPT


def test_the_system_prompt_states_each_section_once() -> None:
    """The chat prompt's sections, each once: what the context holds, how a turn ends (the one
    protocol), safety, coaching, exercises, routing between tools, and the voice; no tool catalogue
    (the tool definitions carry the tools) and no date (it would break the shared cache prefix)."""
    sections = ["context", "turn_end", "safety", "coaching", "exercises", "routing", "voice"]
    for name in sections:
        assert SYSTEM_PROMPT.count(f"<{name}>") == 1 and SYSTEM_PROMPT.count(f"</{name}>") == 1, name
    assert "<available_tools>" not in SYSTEM_PROMPT
    assert not re.search(r"\d{4}-\d{2}-\d{2}", SYSTEM_PROMPT)
    for field in ("muscles_utilized", "goals_addressed", "load_each", "hold_sec", "work_sec"):
        assert field in SYSTEM_PROMPT
    assert "48 hours" in SYSTEM_PROMPT and "24" in SYSTEM_PROMPT


async def test_user_data_xml_is_fetched_fresh_for_every_turn() -> None:
    h = make_harness(
        [call("idle", reason="a"), call("message_notify_user", message="x"), call("idle", reason="b")]
    )
    first = await h.loop.run_turn(USER, "one")
    await h.store.update_session(first.session_id, status="active")
    await h.loop.run_turn(USER, "two", session_id=first.session_id)
    assert h.user_data_calls == [USER, USER]
    assert h.model.requests[1].system[1]["text"] == h.model.requests[2].system[1]["text"]


def test_the_valid_muscles_reach_the_model_once_in_generate_workout() -> None:
    sent = next(d for d in CHAT.toolset.definitions() if d["name"] == "generate_workout")
    muscle = sent["input_schema"]["$defs"]["MuscleShare"]["properties"]["muscle"]
    assert muscle["enum"] == list(MUSCLES)
    assert "Trapezius" not in SYSTEM_PROMPT  # the list is not copied into the prompt
