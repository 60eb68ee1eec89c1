"""Streaming (docs/api.md#server-sent-events): the SSE frames the loop emits (as their wire JSON), their order
and shapes. HTTP framing (Content-Type, `id:` lines, heartbeats) is the API's test."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter
from trainer.chat.turn import TurnFailed
from trainer.frames import Frame
from trainer.store.models import EventType
from trainer_dev.testing.agent_harness import USER, FakeSelector, chest_workout, make_harness, selection
from trainer_dev.testing.scripted_model import call, hard_failure


def strip_seq(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "seq"} for e in events]


def kinds(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in events:
        if e["type"] == "status":
            out.append(f"status:{e['data']['phase']}")
        elif e["type"] == "tool_start":
            out.append(f"{e['tool']}:running")
        elif e["type"] == "tool_result":
            out.append(f"{e['tool']}:{e['status']}")
        else:
            out.append(e["type"])
    return out


async def workout_turn() -> tuple[Any, Any]:
    h = make_harness(
        [call("generate_workout", workout=chest_workout()), "NOTIFY", call("idle", reason="delivered")],
        selector=FakeSelector([selection("category_goals")]),
    )

    def notify(request: Any) -> Any:
        text = request.messages[-1]["content"][0]["content"]
        art = text.split("artifact_id=")[1].split(" ")[0]
        return call("message_notify_user", message="Here is your workout", artifact_id=art)

    h.model.steps[1] = notify
    result = await h.loop.run_turn(USER, "chest workout", emit=h.emit)
    return h, result


async def test_streaming_events_arrive_in_the_correct_order() -> None:
    h, _ = await workout_turn()
    assert kinds(h.emitted) == [
        "session",
        "knowledge",
        "status:start",
        "generate_workout:running",
        "generate_workout:done",
        "status:done",
        "message_delta",
        "message_delta",
        "message_notify_user:running",
        "message_notify_user:done",
        "status:start",
        "idle:running",
        "idle:done",
        "status:done",
        "turn_end",
        "done",
    ]


async def test_status_events_are_emitted_for_tool_start_and_done_phases() -> None:
    h, _ = await workout_turn()
    statuses = [e for e in strip_seq(h.emitted) if e["type"] == "status"]
    assert statuses[:2] == [
        {
            "type": "status",
            "data": {"message": "Creating your workout...", "tool": "generate_workout", "phase": "start"},
        },
        {"type": "status", "data": {"message": "Workout ready", "tool": "generate_workout", "phase": "done"}},
    ]
    assert all(s["data"]["tool"] != "message_notify_user" for s in statuses)


async def test_failed_tool_emits_a_failed_result_and_an_error_status_phase() -> None:
    h = make_harness([call("remove_exercise", exercise_id="1"), call("idle", reason="x")])
    await h.loop.run_turn(USER, "remove one", emit=h.emit)
    events = strip_seq(h.emitted)
    result = next(e for e in events if e["type"] == "tool_result" and e["tool"] == "remove_exercise")
    assert result["status"] == "failed" and result["data"]["success"] is False
    assert {
        "type": "status",
        "data": {"message": "Something went wrong", "tool": "remove_exercise", "phase": "error"},
    } in events


async def test_tool_start_events_include_the_tool_name_and_arguments() -> None:
    h, _ = await workout_turn()
    start = next(e for e in strip_seq(h.emitted) if e["type"] == "tool_start")
    assert start == {"type": "tool_start", "tool": "generate_workout", "args": {"workout": chest_workout()}}


async def test_tool_result_events_include_the_result_data_and_the_formatted_string() -> None:
    h, result = await workout_turn()
    done = next(
        e for e in strip_seq(h.emitted) if e["type"] == "tool_result" and e["tool"] == "generate_workout"
    )
    assert done["status"] == "done"
    assert done["data"] == result.actions[0].as_json()["result"]
    assert done["formatted"].startswith('<tool_result tool="generate_workout" status="ok">Created workout_1')
    assert done["data"]["artifact_id"] == result.actions[0].as_json()["result"]["artifact_id"]


async def test_message_notify_user_results_with_artifacts_include_the_artifact_payload_in_the_sse_event() -> (
    None
):
    h, result = await workout_turn()
    art = result.actions[0].as_json()["result"]["artifact_id"]
    notify = next(
        e for e in strip_seq(h.emitted) if e["type"] == "tool_result" and e["tool"] == "message_notify_user"
    )
    assert notify["artifact_id"] == art
    assert notify["artifact"]["artifact_id"] == art
    assert len(notify["artifact"]["payload"]["exercises"]) == 3


async def test_the_first_frame_names_the_session_before_any_model_call() -> None:
    """A phone that loses the stream still knows which session to catch up on."""
    h, result = await workout_turn()
    assert strip_seq(h.emitted)[0] == {"type": "session", "sessionId": result.session_id}
    assert h.emitted[0]["seq"] < min(
        e["seq"] for e in h.emitted if e["type"] in ("tool_start", "message_delta")
    )


async def test_knowledge_events_are_emitted_as_data_sources_are_loaded() -> None:
    h, _ = await workout_turn()
    first = strip_seq(h.emitted)[1]
    assert first["type"] == "knowledge"
    assert first["data"]["source"] == "category_goals" and first["data"]["status"] == "done"


async def test_done_event_is_sent_with_the_session_id_on_completion() -> None:
    h, result = await workout_turn()
    assert strip_seq(h.emitted)[-1] == {"type": "done", "sessionId": result.session_id}


async def test_error_event_is_sent_on_unrecoverable_errors() -> None:
    h = make_harness([hard_failure("529 overloaded")])
    with pytest.raises(TurnFailed):
        await h.loop.run_turn(USER, "hi", emit=h.emit)
    *_, last, end = strip_seq(h.emitted)
    assert last["type"] == "error"
    assert "try again" in last["message"] and "529" not in last["message"]
    assert end == {"type": "turn_end", "outcome": "failed", "sessionId": h.emitted[0]["sessionId"]}
    assert not any(e["type"] == "done" for e in h.emitted)


async def test_client_disconnect_is_tolerated_and_sse_writes_are_silently_skipped() -> None:
    h = make_harness([call("message_notify_user", message="hello"), call("idle", reason="x")])

    async def dead_socket(_frame: Frame, _seq: int) -> None:
        raise ConnectionResetError("client went away")

    result = await h.loop.run_turn(USER, "hi", emit=dead_socket)
    assert result.status == "completed" and result.iterations == 2
    kinds_logged = [e.event_type for e in h.store.all_events(result.session_id)]
    assert kinds_logged.count(EventType.TOOL_RESULT) == 2
    assert (await h.store.load_session(result.session_id)).status == "completed"


async def test_message_delta_events_stream_the_message_while_the_model_writes_it() -> None:
    h = make_harness([call("message_notify_user", message="Great session!"), call("idle", reason="x")])
    await h.loop.run_turn(USER, "hi", emit=h.emit)
    deltas = [e["data"] for e in h.emitted if e["type"] == "message_delta"]
    assert deltas == [
        {"tool": "message_notify_user", "text": "Great s"},
        {"tool": "message_notify_user", "text": "ession!"},
    ]


async def test_every_event_carries_the_last_persisted_sequence_for_catch_up() -> None:
    h, result = await workout_turn()
    seqs = [e["seq"] for e in h.emitted]
    assert seqs == sorted(seqs)
    assert seqs[-1] == (await h.store.load_session(result.session_id)).last_seq


async def test_every_emitted_frame_is_a_member_of_the_published_frame_union() -> None:
    h, _ = await workout_turn()
    union: TypeAdapter[Frame] = TypeAdapter(Frame)
    for event in strip_seq(h.emitted):
        frame = union.validate_python(event)
        assert frame.model_dump(mode="json", by_alias=True, exclude_none=True) == event
