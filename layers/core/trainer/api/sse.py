"""Server-Sent Events for agent turns.

A turn runs as a detached asyncio task that feeds a queue; the response generator drains the queue,
writing `id: <frame id>\\ndata: <json>\\n\\n` frames (ids numbered per turn in the task, unique in the
session; `message_delta`, `message_reset` and `done` have none) and a heartbeat whenever nothing was
sent for `heartbeat_seconds`: a comment line alone (`: heartbeat\\n`, no blank line after it), which by the
WHATWG processing model never dispatches an event — no parser hands the client an empty message. The
turn's frames end with `turn_end` (how the turn ended), then `done`. If the client goes away the generator
stops and the emitter drops further events, but the task runs on: the turn still completes and
persists its events and its frames (`FrameRecorder`: a retried stream, `replayed_frames`, and
GET /agent/sessions/{id}/frames read them back with the ids they were sent with).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from trainer.api.logging import logger
from trainer.frames import (
    PREVIEW_FRAMES,
    DoneFrame,
    ErrorFrame,
    Frame,
    FrameSink,
    SessionFrame,
    TurnEndFrame,
    TurnOutcome,
    done_frame,
    error_frame,
    frame_json,
    turn_end_frame,
)
from trainer.store import request_counts
from trainer.store.ports import AccountDeleted
from trainer.store.stream_records import FrameLog, StoredFrame

SSE_HEADERS = {
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "X-Accel-Buffering": "no",
}
SSE_MEDIA_TYPE = "text/event-stream"
HEARTBEAT = b": heartbeat\n"
"""A comment line alone: it keeps the connection busy and dispatches nothing."""
SESSION_HEADER = "X-Session-Id"

STREAM_RESPONSE: dict[str, Any] = {
    "description": (
        "The turn as Server-Sent Events. Each event is `id: <frame id>\\ndata: <Frame JSON>\\n\\n` (the data "
        "is one `Frame`, `x-sse-data`; the schema is that of one parsed event). Frame ids increase and "
        "are unique in the session; `message_delta` (a preview of the message the next `tool_result` "
        "carries whole), `message_reset` (drop that preview: the answer was cut off and is written again, "
        "or withdrawn) and `done` carry no id, so the client's last event id stays that of the frame "
        "before. A client that lost the stream retries it with `Last-Event-ID` (and its "
        "`Idempotency-Key`): it gets the rest of the same turn, never a second run, or catches up with "
        "`GET /agent/sessions/{session_id}/frames?after=<frame id>`. The first frame is `session` (the "
        "session the turn runs in, also in the `X-Session-Id` header), sent before any model call. "
        "While the turn is quiet a `: heartbeat` comment line is sent, which dispatches no event. A "
        "failure during the turn is an `error` frame; `turn_end` (with the outcome) closes every turn, "
        "and `done` is always the last frame."
    ),
    "content": {
        SSE_MEDIA_TYPE: {
            # OpenAPI 3.1 has no keyword for the items of a stream (3.2's `itemSchema`); by the
            # convention 3.2 writes down for earlier documents, `schema` describes one event as a
            # parsed object. Its `data` is the JSON of a `Frame`, as `encode_frame` writes it.
            "schema": {
                "type": "object",
                "description": "One Server-Sent Event of the stream; its `data` is a JSON `Frame`.",
                "required": ["data"],
                "properties": {
                    "id": {
                        "type": "string",
                        "pattern": "^[0-9]+$",
                        "description": (
                            "The frame id (absent on `message_delta`, `message_reset` and `done`)."
                        ),
                    },
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": {"$ref": "#/components/schemas/Frame"},
                    },
                },
            },
            "x-sse-data": {"$ref": "#/components/schemas/Frame"},
        }
    },
    "headers": {
        **{
            name: {"required": True, "schema": {"type": "string", "const": SSE_HEADERS[name]}}
            for name in ("Cache-Control", "X-Accel-Buffering")
        },
        SESSION_HEADER: {
            "description": "The session the turn runs in (a new one when the request named none).",
            "required": True,
            "schema": {"type": "string"},
        },
    },
}
"""The OpenAPI 200 response of a streamed turn."""


FRAMES_PER_TURN = 1000
"""Frame ids: a turn's frames are numbered from `(n + 1) * FRAMES_PER_TURN`, n being the session's last
event sequence when the turn started (so each turn has its own range, in session order, and
`frame_id // FRAMES_PER_TURN` is the sequence of the turn's first event)."""


def encode_frame_json(data: dict[str, Any], event_id: int | None) -> bytes:
    """One SSE event; without an id (`message_delta`, `message_reset`, `done`) the client's last event id
    stays that of the frame before."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    if event_id is None:
        return f"data: {text}\n\n".encode()
    return f"id: {event_id}\ndata: {text}\n\n".encode()


def encode_frame(frame: BaseModel, event_id: int | None) -> bytes:
    return encode_frame_json(frame_json(frame), event_id)


def turn_frame_range(frame_id: int) -> tuple[int, int]:
    """The ids of the turn a frame id belongs to: `first <= id < end`."""
    first = frame_id - frame_id % FRAMES_PER_TURN
    return first, first + FRAMES_PER_TURN


class BackgroundTurns:
    """Keeps detached turn tasks referenced until they finish, so neither a client disconnect nor
    the garbage collector cancels them; `wait()` lets shutdown let them complete."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def start[T](self, coro: Awaitable[T]) -> asyncio.Task[T]:
        task: asyncio.Task[T] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    async def wait(self, grace_seconds: float | None = None) -> None:
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=grace_seconds)


class _End:
    """The end of the queue: `done` follows."""

    def __init__(self, session_id: str | None) -> None:
        self.session_id = session_id


class FrameRecorder:
    """Writes the frames a turn of `user_id` streams to the frame log, in the background and in order,
    so a retried stream and the catch-up route read back the same frames with the same ids. `turn_end`
    is written alone and last: a reader that sees it has seen every frame before it. Once the account
    is deleted the log refuses the frames (its tombstone is checked with each write) and the recorder
    writes nothing more."""

    def __init__(self, log: FrameLog, turns: BackgroundTurns, user_id: str) -> None:
        self._log = log
        self._turns = turns
        self._user_id = user_id
        self._pending: list[StoredFrame] = []
        self._lock = asyncio.Lock()
        self.session_id: str | None = None
        self.failed = False

    def add(self, frame_id: int, frame: dict[str, Any]) -> None:
        self._pending.append(StoredFrame(frame_id, frame))
        self._turns.start(self.flush())

    async def flush(self) -> None:
        async with self._lock:
            batch, self._pending = self._pending, []
            if not batch or self.session_id is None or self.failed:
                return
            try:
                await self._log.record(self._user_id, self.session_id, batch)
            except AccountDeleted:
                self.failed = True
                logger.info("frames of session %s not recorded: the account was deleted", self.session_id)
            except Exception:
                self.failed = True
                logger.exception("could not record the frames of session %s", self.session_id)


class TurnStream:
    """One turn streamed as SSE.

    `await start()` launches `run(emit)` detached and waits (up to `first_event_timeout`) for its
    first event; a failure of a type in `early_errors` raised before any event (a held lease, an
    unknown session) is re-raised there, so the route can still answer with a JSON error status.
    After that, failures become an `error` frame. The turn's frames end with `turn_end` (the outcome
    the turn emitted, else `outcome_of(result)`, or `failed`), then `done`. `publish` turns each
    frame the turn emits into the frame sent (None: not sent).

    Every frame but the previews (`message_delta`, `message_reset`: the message a `tool_result` then
    carries whole) and `done` gets a frame id and, with a `recorder`, is written to the frame log; ids
    and recording happen in the turn's task, so they do not depend on a client listening.
    `on_started(session_id, first_frame_id)` is called once the turn has its session.
    """

    def __init__(
        self,
        run: Callable[[FrameSink], Awaitable[Any]],
        *,
        turns: BackgroundTurns,
        heartbeat_seconds: float,
        session_id_of: Callable[[Any], str | None],
        describe_error: Callable[[BaseException], tuple[str, str | None]],
        outcome_of: Callable[[Any], TurnOutcome] = lambda _: "replied",
        publish: Callable[[Frame], Frame | None] = lambda frame: frame,
        early_errors: tuple[type[BaseException], ...] = (),
        recorder: FrameRecorder | None = None,
        on_started: Callable[[str, int], Awaitable[None]] | None = None,
    ) -> None:
        self._run = run
        self._turns = turns
        self._heartbeat = heartbeat_seconds
        self._session_id_of = session_id_of
        self._describe_error = describe_error
        self._outcome_of = outcome_of
        self._publish = publish
        self._early_errors = early_errors
        self._recorder = recorder
        self._on_started = on_started
        self._queue: asyncio.Queue[tuple[int | None, dict[str, Any]] | _End] = asyncio.Queue()
        self._signal = asyncio.Event()
        self._listening = True
        self._committed = False
        self._early: BaseException | None = None
        self._next_id: int | None = None
        self._error_sent = False
        self._turn_end: TurnEndFrame | None = None
        self._done_session: str | None = None
        self.session_id: str | None = None
        """The session the turn runs in, from its first frame (for the X-Session-Id header)."""
        self.first_frame_id: int | None = None

    def _send(self, frame: Frame, numbered: bool = True) -> None:
        frame_id: int | None = None
        data = frame_json(frame)
        if numbered:
            assert self._next_id is not None
            frame_id = self._next_id
            self._next_id += 1
            if self._recorder is not None:
                self._recorder.add(frame_id, data)
        if self._listening:
            self._queue.put_nowait((frame_id, data))
        request_counts.mark(request_counts.FIRST_FRAME)

    async def _emit(self, frame: Frame, seq: int) -> None:
        if self._next_id is None:
            self._next_id = self.first_frame_id = (seq + 1) * FRAMES_PER_TURN
        if isinstance(frame, SessionFrame) and self.session_id is None:
            self.session_id = frame.session_id
            if self._recorder is not None:
                self._recorder.session_id = frame.session_id
            if self._on_started is not None:
                # behind the first frame: a retry that comes before the note waits for it
                self._turns.start(self._note_started(self._on_started, frame.session_id, self._next_id))
        self._signal.set()
        if isinstance(frame, DoneFrame):
            self._done_session = frame.session_id or self._done_session
            return
        if isinstance(frame, TurnEndFrame):
            self._turn_end = frame
            return
        published = self._publish(frame)
        if published is None:
            return
        self._error_sent = self._error_sent or isinstance(published, ErrorFrame)
        self._send(published, numbered=not isinstance(published, PREVIEW_FRAMES))

    @staticmethod
    async def _note_started(
        on_started: Callable[[str, int], Awaitable[None]], session_id: str, first_frame_id: int
    ) -> None:
        try:
            await on_started(session_id, first_frame_id)
        except Exception:
            logger.exception("could not note the turn of an idempotency key")

    async def _close(self, session_id: str | None, error: str | None, outcome: TurnOutcome) -> None:
        session_id = session_id or self._done_session
        if self._next_id is None:
            self._next_id = 0
        if error is not None and not self._error_sent:
            self._send(error_frame(error))
        end = self._turn_end or turn_end_frame(outcome, session_id)
        if self._recorder is not None:
            await self._recorder.flush()
        self._send(end)
        if self._recorder is not None:
            await self._recorder.flush()
        if self._listening:
            self._queue.put_nowait(_End(session_id))

    async def _run_to_end(self) -> None:
        try:
            result = await self._run(self._emit)
        except Exception as exc:
            if not self._committed and isinstance(exc, self._early_errors):
                self._early = exc
            else:
                message, session_id = self._describe_error(exc)
                await self._close(session_id, message, "failed")
        else:
            await self._close(self._session_id_of(result), None, self._outcome_of(result))
        finally:
            self._signal.set()

    async def start(self, first_event_timeout: float) -> None:
        self._turns.start(self._run_to_end())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._signal.wait(), timeout=first_event_timeout)
        self._committed = True
        if self._early is not None:
            raise self._early

    async def frames(self) -> AsyncIterator[bytes]:
        finished = False
        try:
            while True:
                try:
                    item = await asyncio.wait_for(self._queue.get(), timeout=self._heartbeat)
                except TimeoutError:
                    yield HEARTBEAT
                    continue
                if isinstance(item, _End):
                    finished = True
                    yield encode_frame(done_frame(item.session_id), None)
                    return
                frame_id, data = item
                yield encode_frame_json(data, frame_id)
        finally:
            self._listening = False
            if not finished:
                logger.info("client left the stream; the turn runs to completion")
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:
                    self._queue.get_nowait()


async def replayed_frames(
    log: FrameLog,
    session_id: str,
    after: int,
    *,
    heartbeat_seconds: float,
    poll_seconds: float,
    give_up_seconds: float,
) -> AsyncIterator[bytes]:
    """A turn's frames read back from the frame log, from the one after `after` through `turn_end`,
    then `done`: what a retried stream gets, whether the turn still runs (it waits for each next
    frame, sending heartbeats) or ended. A turn that never ends within `give_up_seconds` (its
    function died) ends the stream with `error` and `turn_end` (failed)."""
    _, end = turn_frame_range(after + 1)
    last = after
    loop = asyncio.get_running_loop()
    started = quiet_since = loop.time()
    while True:
        for stored in await log.read(session_id, last, end):
            last = stored.frame_id
            quiet_since = loop.time()
            request_counts.mark(request_counts.FIRST_FRAME)
            yield encode_frame_json(stored.frame, stored.frame_id)
            if stored.frame.get("type") == "turn_end":
                yield encode_frame(done_frame(session_id), None)
                return
        now = loop.time()
        if now - started > give_up_seconds:
            yield encode_frame(error_frame(TURN_LOST_MESSAGE), None)
            yield encode_frame(turn_end_frame("failed", session_id), None)
            yield encode_frame(done_frame(session_id), None)
            return
        if now - quiet_since >= heartbeat_seconds:
            quiet_since = now
            yield HEARTBEAT
        await asyncio.sleep(poll_seconds)


TURN_LOST_MESSAGE = "The assistant stopped before it finished this turn. Please try again."
