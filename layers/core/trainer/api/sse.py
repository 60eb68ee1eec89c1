"""Server-Sent Events for agent turns.

A turn runs as a detached asyncio task that feeds a queue; the response generator drains the queue,
writing `id: <seq>\\ndata: <json>\\n\\n` frames (seq: the last session event persisted when the frame
was sent, so it never decreases) and a heartbeat whenever nothing was sent for `heartbeat_seconds`:
a comment line alone (`: heartbeat\\n`, no blank line after it), which by the WHATWG processing model
never dispatches an event — no parser hands the client an empty message. The turn's frames end with
`turn_end` (how the turn ended), then `done`. If the client goes away the generator
stops and the emitter drops further events, but the task runs on: the turn still completes and
persists its events (a phone that lost its stream catches up with GET /agent/sessions/{id}/events).
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
        "The turn as Server-Sent Events. Each event is `id: <seq>\\ndata: <Frame JSON>\\n\\n`, where "
        "`<seq>` is the last session event persisted when the frame was sent (it never decreases; "
        "pass it as `after` to `GET /agent/sessions/{session_id}/events` to catch up) and the data "
        "is one `Frame` (`x-sse-data`; the schema is that of one parsed event). The first frame is "
        "`session` (the session the turn runs in, also in the `X-Session-Id` header), sent before any "
        "model call. While the turn is quiet a `: heartbeat` comment line is sent, which dispatches no "
        "event. A failure during the turn is an `error` frame; `turn_end` (with the outcome) closes "
        "every turn, and `done` is always the last frame."
    ),
    "content": {
        SSE_MEDIA_TYPE: {
            # OpenAPI 3.1 has no keyword for the items of a stream (3.2's `itemSchema`); by the
            # convention 3.2 writes down for earlier documents, `schema` describes one event as a
            # parsed object. Its `data` is the JSON of a `Frame`, as `encode_frame` writes it.
            "schema": {
                "type": "object",
                "description": "One Server-Sent Event of the stream; its `data` is a JSON `Frame`.",
                "required": ["id", "data"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[0-9]+$"},
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


def encode_frame(frame: BaseModel, event_id: int) -> bytes:
    data = json.dumps(frame_json(frame), ensure_ascii=False, separators=(",", ":"))
    return f"id: {event_id}\ndata: {data}\n\n".encode()


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
    def __init__(self, session_id: str | None, error: str | None, outcome: TurnOutcome) -> None:
        self.session_id = session_id
        self.error = error
        self.outcome = outcome


class TurnStream:
    """One turn streamed as SSE.

    `await start()` launches `run(emit)` detached and waits (up to `first_event_timeout`) for its
    first event; a failure of a type in `early_errors` raised before any event (a held lease, an
    unknown session) is re-raised there, so the route can still answer with a JSON error status.
    After that, failures become an `error` frame. `frames()` yields the SSE body: `turn_end` (the
    outcome: `outcome_of(result)`, or `failed`), then `done`. `publish` turns each frame the turn
    emits into the frame sent (None: not sent).
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
    ) -> None:
        self._run = run
        self._turns = turns
        self._heartbeat = heartbeat_seconds
        self._session_id_of = session_id_of
        self._describe_error = describe_error
        self._outcome_of = outcome_of
        self._publish = publish
        self._early_errors = early_errors
        self._queue: asyncio.Queue[tuple[Frame, int] | _End] = asyncio.Queue()
        self._signal = asyncio.Event()
        self._listening = True
        self._committed = False
        self._early: BaseException | None = None
        self.session_id: str | None = None
        """The session the turn runs in, from its first frame (for the X-Session-Id header)."""

    async def _emit(self, frame: Frame, seq: int) -> None:
        if isinstance(frame, SessionFrame) and self.session_id is None:
            self.session_id = frame.session_id
        self._signal.set()
        if self._listening:
            self._queue.put_nowait((frame, seq))

    async def _run_to_end(self) -> None:
        try:
            result = await self._run(self._emit)
        except Exception as exc:
            if not self._committed and isinstance(exc, self._early_errors):
                self._early = exc
            else:
                message, session_id = self._describe_error(exc)
                self._queue.put_nowait(_End(session_id, message, "failed"))
        else:
            self._queue.put_nowait(_End(self._session_id_of(result), None, self._outcome_of(result)))
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
        """A `turn_end` or `done` emitted by the turn itself is held back and sent once, at the end;
        an `error` the turn already emitted is not repeated."""
        frame_id = 0
        finished = False
        error_sent = False
        done_session: str | None = None
        turn_end: TurnEndFrame | None = None
        try:
            while True:
                try:
                    item = await asyncio.wait_for(self._queue.get(), timeout=self._heartbeat)
                except TimeoutError:
                    yield HEARTBEAT
                    continue
                if isinstance(item, _End):
                    if item.error is not None and not error_sent:
                        yield encode_frame(error_frame(item.error), frame_id)
                    session_id = item.session_id or done_session
                    finished = True
                    yield encode_frame(turn_end or turn_end_frame(item.outcome, session_id), frame_id)
                    yield encode_frame(done_frame(session_id), frame_id)
                    return
                emitted, seq = item
                if isinstance(emitted, DoneFrame):
                    done_session = emitted.session_id or done_session
                    continue
                if isinstance(emitted, TurnEndFrame):
                    turn_end = emitted
                    continue
                frame = self._publish(emitted)
                if frame is None:
                    continue
                error_sent = error_sent or isinstance(frame, ErrorFrame)
                frame_id = max(frame_id, seq)
                yield encode_frame(frame, frame_id)
        finally:
            self._listening = False
            if not finished:
                logger.info("client left the stream; the turn runs to completion")
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:
                    self._queue.get_nowait()
