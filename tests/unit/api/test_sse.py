"""SSE framing and the detached turn behind /agent/stream (no sockets: the generator is driven directly)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import TypeAdapter
from trainer.api.sse import (
    HEARTBEAT,
    BackgroundTurns,
    FrameRecorder,
    TurnStream,
    encode_frame,
    replayed_frames,
    turn_frame_range,
)
from trainer.frames import (
    Frame,
    FrameSink,
    done_frame,
    error_frame,
    message_delta_frame,
    session_frame,
    status_frame,
    tool_start_frame,
    turn_end_frame,
)
from trainer.store.ports import LeaseHeld
from trainer.store.stream_records import StoredFrame

FRAME: TypeAdapter[Frame] = TypeAdapter(Frame)


class Result:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id


def parse(frame: bytes) -> tuple[int | None, dict[str, Any]]:
    text = frame.decode()
    assert text.endswith("\n\n")
    lines = text.strip("\n").split("\n")
    data_line = lines[-1]
    assert data_line.startswith("data: ")
    if len(lines) == 1:
        return None, json.loads(data_line[6:])
    (id_line,) = lines[:-1]
    assert id_line.startswith("id: ")
    return int(id_line[4:]), json.loads(data_line[6:])


def make_stream(run: Any, turns: BackgroundTurns, heartbeat: float = 5.0, early: tuple = ()) -> TurnStream:
    return TurnStream(
        run,
        turns=turns,
        heartbeat_seconds=heartbeat,
        session_id_of=lambda r: r.session_id,
        describe_error=lambda exc: (f"failed: {exc}", "s-err"),
        early_errors=early,
    )


async def collect(stream: TurnStream) -> list[bytes]:
    return [frame async for frame in stream.frames()]


def test_frame_has_id_and_single_line_json() -> None:
    frame = encode_frame(message_delta_frame("message_notify_user", "two\nlines é"), 7)
    event_id, event = parse(frame)
    assert event_id == 7
    assert event["data"]["text"] == "two\nlines é"
    assert FRAME.validate_python(event) == message_delta_frame("message_notify_user", "two\nlines é")


def test_a_frame_without_an_id_has_no_id_line() -> None:
    assert encode_frame(done_frame("s-1"), None) == b'data: {"type":"done","sessionId":"s-1"}\n\n'


async def test_frame_ids_count_up_from_the_turns_range_and_previews_and_done_have_none() -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(status_frame("idle", "Thinking", "start"), 3)
        await emit(tool_start_frame("generate_workout", {}), 5)
        await emit(message_delta_frame("message_notify_user", "Hi"), 5)
        return Result("s-1")

    stream = make_stream(run, BackgroundTurns())
    await stream.start(1.0)
    frames = [parse(f) for f in await collect(stream)]
    assert [i for i, _ in frames] == [4000, 4001, None, 4002, None]
    assert stream.first_frame_id == 4000
    assert [e["type"] for _, e in frames] == ["status", "tool_start", "message_delta", "turn_end", "done"]
    assert frames[-2][1] == {"type": "turn_end", "outcome": "replied", "sessionId": "s-1"}
    assert frames[-1][1] == {"type": "done", "sessionId": "s-1"}


async def test_heartbeat_comment_is_sent_while_the_turn_is_quiet() -> None:
    release = asyncio.Event()

    async def run(emit: FrameSink) -> Result:
        await release.wait()
        return Result("s-1")

    stream = make_stream(run, BackgroundTurns(), heartbeat=0.02)
    await stream.start(0.01)
    frames = stream.frames()
    assert await anext(frames) == HEARTBEAT
    release.set()
    rest = [f async for f in frames]
    assert parse(rest[-1])[1]["type"] == "done"


async def test_failure_after_streaming_began_gives_error_then_done() -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(status_frame("idle", "Thinking", "start"), 1)
        raise RuntimeError("model down")

    stream = make_stream(run, BackgroundTurns())
    await stream.start(1.0)
    events = [parse(f)[1] for f in await collect(stream)]
    assert events[-3:] == [
        {"type": "error", "message": "failed: model down"},
        {"type": "turn_end", "outcome": "failed", "sessionId": "s-err"},
        {"type": "done", "sessionId": "s-err"},
    ]


async def test_early_lease_conflict_is_raised_before_any_byte_is_sent() -> None:
    async def run(emit: FrameSink) -> Result:
        raise LeaseHeld("busy")

    stream = make_stream(run, BackgroundTurns(), early=(LeaseHeld,))
    with pytest.raises(LeaseHeld):
        await stream.start(1.0)


async def test_client_disconnect_does_not_cancel_the_turn() -> None:
    turns = BackgroundTurns()
    progressed = asyncio.Event()
    finished: list[str] = []

    async def run(emit: FrameSink) -> Result:
        await emit(status_frame("idle", "Thinking", "start"), 1)
        await progressed.wait()
        for i in range(5):
            await emit(message_delta_frame("message_notify_user", str(i)), 1)
            await asyncio.sleep(0)
        finished.append("persisted")
        return Result("s-1")

    stream = make_stream(run, turns)
    await stream.start(1.0)
    frames = stream.frames()
    await anext(frames)
    await frames.aclose()  # type: ignore[attr-defined]
    progressed.set()
    await turns.wait(2.0)
    assert finished == ["persisted"]
    assert len(turns) == 0


async def test_background_turns_survive_cancellation_of_the_awaiting_request() -> None:
    turns = BackgroundTurns()
    done = asyncio.Event()

    async def turn() -> str:
        await asyncio.sleep(0.01)
        done.set()
        return "ok"

    task = turns.start(turn())
    waiter = asyncio.ensure_future(asyncio.shield(task))
    await asyncio.sleep(0)
    waiter.cancel()
    await turns.wait(1.0)
    assert done.is_set() and task.result() == "ok"


async def test_done_from_the_turn_is_sent_once_and_last() -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(done_frame("s-1"), 1)
        await emit(status_frame("idle", "Done", "done"), 1)
        return Result("s-1")

    stream = make_stream(run, BackgroundTurns())
    await stream.start(1.0)
    events = [parse(f)[1] for f in await collect(stream)]
    assert [e["type"] for e in events] == ["status", "turn_end", "done"]
    assert events[-1]["sessionId"] == "s-1"


async def test_error_already_emitted_by_the_turn_is_not_repeated() -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(status_frame("idle", "Thinking", "start"), 1)
        await emit(error_frame("The trainer is unavailable"), 1)
        raise RuntimeError("model down")

    stream = make_stream(run, BackgroundTurns())
    await stream.start(1.0)
    events = [parse(f)[1] for f in await collect(stream)]
    assert [e["type"] for e in events] == ["status", "error", "turn_end", "done"]


async def test_every_frame_of_a_stream_parses_as_the_published_frame_union() -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(tool_start_frame("generate_workout", {"focus": "chest"}), 2)
        await emit(error_frame("The trainer is unavailable"), 3)
        return Result("s-9")

    stream = make_stream(run, BackgroundTurns())
    await stream.start(1.0)
    events = [parse(f)[1] for f in await collect(stream)]
    assert [type(FRAME.validate_python(e)).__name__ for e in events] == [
        "ToolStartFrame",
        "ErrorFrame",
        "TurnEndFrame",
        "DoneFrame",
    ]


async def test_a_done_frame_without_a_session_leaves_the_session_out() -> None:
    async def run(emit: FrameSink) -> Result:
        raise RuntimeError("no session yet")

    stream = TurnStream(
        run,
        turns=BackgroundTurns(),
        heartbeat_seconds=5.0,
        session_id_of=lambda r: r.session_id,
        describe_error=lambda exc: ("failed", None),
    )
    await stream.start(1.0)
    events = [parse(f)[1] for f in await collect(stream)]
    assert events == [
        {"type": "error", "message": "failed"},
        {"type": "turn_end", "outcome": "failed"},
        {"type": "done"},
    ]


def test_a_heartbeat_is_a_comment_line_alone() -> None:
    """WHATWG SSE: a line starting with `:` is ignored and only a blank line dispatches; a comment
    followed by a blank line is what parsers such as httpx-sse and fetch-event-source hand over as an
    empty message."""
    assert HEARTBEAT == b": heartbeat\n"


@pytest.mark.parametrize(
    ("outcome", "expected"), [("replied", "replied"), ("asked", "asked"), ("limit", "limit")]
)
async def test_turn_end_carries_the_outcome_of_the_turn_right_before_done(
    outcome: str, expected: str
) -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(status_frame("idle", "Thinking", "start"), 2)
        return Result("s-1")

    stream = TurnStream(
        run,
        turns=BackgroundTurns(),
        heartbeat_seconds=5.0,
        session_id_of=lambda r: r.session_id,
        describe_error=lambda exc: ("failed", None),
        outcome_of=lambda _: outcome,  # type: ignore[arg-type,return-value]
    )
    await stream.start(1.0)
    frames = [parse(f) for f in await collect(stream)]
    assert frames[-2] == (3001, {"type": "turn_end", "outcome": expected, "sessionId": "s-1"})
    assert frames[-1][1]["type"] == "done"


async def test_a_turn_end_emitted_by_the_turn_is_sent_once_before_done() -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(turn_end_frame("asked", "s-1"), 1)
        await emit(status_frame("idle", "Done", "done"), 1)
        return Result("s-1")

    stream = make_stream(run, BackgroundTurns())
    await stream.start(1.0)
    events = [parse(f)[1] for f in await collect(stream)]
    assert [e["type"] for e in events] == ["status", "turn_end", "done"]
    assert events[1]["outcome"] == "asked"


async def test_publish_decides_which_frames_are_sent_and_how() -> None:
    async def run(emit: FrameSink) -> Result:
        await emit(tool_start_frame("teleport", {}), 1)
        await emit(tool_start_frame("idle", {"reason": "x"}), 2)
        return Result("s-1")

    def publish(frame: Frame) -> Frame | None:
        return None if getattr(frame, "tool", None) == "teleport" else frame

    stream = TurnStream(
        run,
        turns=BackgroundTurns(),
        heartbeat_seconds=5.0,
        session_id_of=lambda r: r.session_id,
        describe_error=lambda exc: ("failed", None),
        publish=publish,
    )
    await stream.start(1.0)
    events = [parse(f) for f in await collect(stream)]
    assert [(i, e["type"], e.get("tool")) for i, e in events] == [
        (2000, "tool_start", "idle"),
        (2001, "turn_end", None),
        (None, "done", None),
    ]


# --- frames recorded for retries and catch-up --------------------------------------------------------


class MemoryFrameLog:
    """The FrameLog port in memory (the DynamoDB adapter: tests/integration/api/test_retried_turns.py)."""

    def __init__(self) -> None:
        self.frames: dict[str, list[StoredFrame]] = {}

    async def record(self, user_id: str, session_id: str, frames: list[StoredFrame]) -> None:
        self.frames.setdefault(session_id, []).extend(frames)

    async def read(
        self, session_id: str, after: int, before: int | None = None, limit: int | None = None
    ) -> list[StoredFrame]:
        found = sorted(
            (
                f
                for f in self.frames.get(session_id, [])
                if f.frame_id > after and (before is None or f.frame_id < before)
            ),
            key=lambda f: f.frame_id,
        )
        return found[:limit] if limit is not None else found


async def test_the_turns_frames_are_recorded_with_their_ids_even_after_the_client_left() -> None:
    turns = BackgroundTurns()
    log = MemoryFrameLog()
    started: list[tuple[str, int]] = []
    progressed = asyncio.Event()

    async def run(emit: FrameSink) -> Result:
        await emit(session_frame("s-1"), 6)
        await progressed.wait()
        await emit(status_frame("idle", "Thinking", "start"), 7)
        await emit(message_delta_frame("message_notify_user", "Hi"), 7)
        await emit(turn_end_frame("asked", "s-1"), 8)
        await emit(done_frame("s-1"), 8)
        return Result("s-1")

    async def on_started(session_id: str, first_frame_id: int) -> None:
        started.append((session_id, first_frame_id))

    stream = TurnStream(
        run,
        turns=turns,
        heartbeat_seconds=5.0,
        session_id_of=lambda r: r.session_id,
        describe_error=lambda exc: ("failed", None),
        recorder=FrameRecorder(log, turns, "u-1"),
        on_started=on_started,
    )
    await stream.start(1.0)
    frames = stream.frames()
    assert parse(await anext(frames)) == (7000, {"type": "session", "sessionId": "s-1"})
    await frames.aclose()  # type: ignore[attr-defined]
    progressed.set()
    await turns.wait(2.0)
    assert started == [("s-1", 7000)]
    assert [(f.frame_id, f.frame["type"]) for f in log.frames["s-1"]] == [
        (7000, "session"),
        (7001, "status"),
        (7002, "turn_end"),
    ]
    assert log.frames["s-1"][-1].frame == {"type": "turn_end", "outcome": "asked", "sessionId": "s-1"}


async def test_a_replay_waits_for_the_rest_of_a_running_turn_and_ends_with_turn_end() -> None:
    log = MemoryFrameLog()
    await log.record("u-1", "s-1", [StoredFrame(7000, {"type": "session", "sessionId": "s-1"})])

    async def finish_later() -> None:
        await asyncio.sleep(0.05)
        await log.record("u-1", "s-1", [StoredFrame(7001, {"type": "status", "data": {}})])
        await log.record("u-1", "s-1", [StoredFrame(7002, {"type": "turn_end", "outcome": "replied"})])
        await log.record("u-1", "s-1", [StoredFrame(9000, {"type": "session", "sessionId": "s-1"})])

    writer = asyncio.ensure_future(finish_later())
    replay = replayed_frames(log, "s-1", 7000, heartbeat_seconds=0.02, poll_seconds=0.01, give_up_seconds=5)
    sent = [parse(f) for f in [chunk async for chunk in replay] if f != HEARTBEAT]
    await writer
    assert sent == [
        (7001, {"type": "status", "data": {}}),
        (7002, {"type": "turn_end", "outcome": "replied"}),
        (None, {"type": "done", "sessionId": "s-1"}),
    ]


async def test_a_replay_of_a_turn_that_never_ends_gives_up_with_a_failed_turn_end() -> None:
    log = MemoryFrameLog()
    replay = replayed_frames(log, "s-1", 7003, heartbeat_seconds=1, poll_seconds=0.01, give_up_seconds=0.05)
    sent = [parse(f)[1]["type"] for f in [chunk async for chunk in replay] if f != HEARTBEAT]
    assert sent == ["error", "turn_end", "done"]


def test_a_frame_id_names_its_turns_range() -> None:
    assert turn_frame_range(7002) == (7000, 8000)
    assert turn_frame_range(7000) == (7000, 8000)
