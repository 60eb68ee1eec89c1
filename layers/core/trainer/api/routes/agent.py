"""POST /agent/chat (buffered JSON) and POST /agent/stream (SSE): docs/api.md#server-sent-events.

Both run the turn as a detached task: a client that disconnects does not abort it.
The body is the `ChatRequest` model built from the deployment's settings (`build_router`), validated
by FastAPI; its errors keep the chat codes: not JSON 400 `malformed_json`, not an object 400
`invalid_body`, no or blank `message` 400 `missing_message`, `message` over the schema's `maxLength`
422 `message_too_long` (a validation error, as the schema says; 413 is only a body over the byte
limit), an unknown `model` 422 `unknown_model`, anything else 422 `invalid_request`.

(No `from __future__ import annotations` here: the body parameter's annotation is a model built at
run time, which FastAPI must see as an object, not as a name to resolve.)
"""

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute

from trainer.api.contract import public_frame
from trainer.api.errors import ApiError, is_malformed_json, is_not_an_object, request_error
from trainer.api.idempotency import KEY_ERRORS, IdempotencyKeyHeader, body_hash, claim_or_existing, run_once
from trainer.api.inputs import FRAME_ID_PATTERN
from trainer.api.logging import logger
from trainer.api.openapi import (
    AUTHENTICATED,
    DATABASE,
    JSON_BODY,
    SESSION_LEASE,
    SESSION_SCOPED,
    SESSION_STORE,
    error_responses,
    session_links,
)
from trainer.api.routes import ContainerDep, RegisteredUserId, TurnsDep
from trainer.api.schemas import ChatRequest, ChatResponse, chat_request_model
from trainer.api.sse import (
    SESSION_HEADER,
    SSE_HEADERS,
    SSE_MEDIA_TYPE,
    STREAM_RESPONSE,
    BackgroundTurns,
    FrameRecorder,
    TurnStream,
    replayed_frames,
    turn_frame_range,
)
from trainer.container import Container
from trainer.frames import FrameSink, TurnOutcome
from trainer.services.usage_limits import BudgetExceeded, RateLimited
from trainer.settings import Settings
from trainer.store.dynamo_tables import STORE_CALL_DEADLINE_S
from trainer.store.ports import DatabaseUnavailable, LeaseHeld, SessionNotFound, StoreUnavailable
from trainer.store.stream_records import IdempotencyRecord, StreamRecords

if TYPE_CHECKING:
    from trainer.chat.turn import TurnResult

FIRST_EVENT_WAIT_SECONDS = STORE_CALL_DEADLINE_S + 0.5
"""How long the stream waits for the turn's first frame (normally ~50 ms, after the lease) before it
answers 200: a store that does not answer within its deadline is still a 503 with Retry-After, not a
stream that opens and fails."""
ANSWERED_AS_JSON = (
    SessionNotFound,
    LeaseHeld,
    ApiError,
    BudgetExceeded,
    RateLimited,
    StoreUnavailable,
    DatabaseUnavailable,
)
"""Failures a route answers with their own JSON status (the stream: when they come before its
first frame)."""
ATTACH_POLL_SECONDS = 0.1
REPLAY_POLL_SECONDS = 0.25
"""How often a retried stream looks for the next frames of a turn that still runs."""
TURN_FAILED_MESSAGE = "The assistant could not finish this turn. Please try again."

TURN_ERRORS = {
    400: ("missing_message",),
    422: ("message_too_long", "unknown_model"),
    429: ("budget_exceeded",),
}
"""What both agent routes can answer besides the body, auth and session errors."""

CHAT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"links": session_links("$response.body#/sessionId")},
    **error_responses(
        AUTHENTICATED,
        JSON_BODY,
        TURN_ERRORS,
        SESSION_SCOPED,
        SESSION_LEASE,
        SESSION_STORE,
        DATABASE,
        KEY_ERRORS,
        {502: ("turn_failed", "model_refused")},
    ),
}
STREAM_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: STREAM_RESPONSE,
    **error_responses(
        AUTHENTICATED,
        JSON_BODY,
        TURN_ERRORS,
        SESSION_SCOPED,
        SESSION_LEASE,
        SESSION_STORE,
        DATABASE,
        {422: ("idempotency_key_reused",)},
    ),
}


def chat_request_error(errors: list[Any]) -> ApiError:
    """The chat codes for a body that fails validation (see the module docstring)."""
    if is_malformed_json(errors) or is_not_an_object(errors):
        return request_error(errors)
    message_errors = [err for err in errors if tuple(err.get("loc", ())) == ("body", "message")]
    for err in message_errors:
        blank = err["type"] in ("missing", "string_too_short", "string_pattern_mismatch")
        if blank or (err["type"] == "string_type" and err.get("input") is None):
            return ApiError(400, "missing_message", "The 'message' field is required and must not be blank.")
    for err in message_errors:
        if err["type"] == "string_too_long":
            length, limit = len(err["input"]), err["ctx"]["max_length"]
            return ApiError(
                422, "message_too_long", f"The message has {length} characters; the limit is {limit}."
            )
    if len(errors) == 1:
        (err,) = errors
        if tuple(err.get("loc", ())) == ("body", "model") and isinstance(err.get("input"), str):
            return ApiError(422, "unknown_model", f"Unknown model '{err['input']}'.")
    return request_error(errors)


class ChatRoute(APIRoute):
    """An APIRoute whose request validation errors get the chat codes."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                raise chat_request_error(list(exc.errors())) from None

        return route_handler


def _describe_failure(exc: BaseException) -> tuple[str, str | None]:
    session_id = getattr(exc, "session_id", None)
    if isinstance(exc, SessionNotFound):
        return "Session not found.", session_id
    if isinstance(exc, LeaseHeld):
        return "Another turn is running on this session; retry when it has finished.", session_id
    from trainer.chat.turn import TurnFailed

    if isinstance(exc, TurnFailed):
        return str(exc) or TURN_FAILED_MESSAGE, session_id
    logger.exception("turn failed unexpectedly", exc_info=exc)
    return TURN_FAILED_MESSAGE, session_id


def turn_outcome(result: "TurnResult") -> TurnOutcome:
    from trainer.chat.results import STOP_OUTCOMES

    return STOP_OUTCOMES.get(result.stop_reason, "failed")


def _run_turn(
    container: Container, user_id: str, body: ChatRequest, emit: FrameSink | None
) -> Awaitable["TurnResult"]:
    return container.agent.run_turn(
        user_id,
        body.message,
        session_id=body.session_id,
        current_workout=(
            body.current_workout.model_dump(mode="json", exclude_none=True) if body.current_workout else None
        ),
        model=body.model,
        emit=emit,
    )


def agent_model_ids() -> list[str]:
    """The models a request may name: those the main agent can run on, the default first."""
    from trainer.providers.models import agent_models

    return [model.id for model in agent_models()]


def build_router(settings: Settings) -> APIRouter:
    """The agent routes with the body model of these settings (the message limit is a setting)."""
    body_model = chat_request_model(settings.max_message_chars, agent_model_ids())
    router = APIRouter(prefix="/agent", tags=["agent"], route_class=ChatRoute, strict_content_type=False)

    @router.post("/chat", response_model=ChatResponse, responses=CHAT_RESPONSES)
    async def chat(
        body: body_model,  # type: ignore[valid-type]
        container: ContainerDep,
        turns: TurnsDep,
        user_id: RegisteredUserId,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> JSONResponse:
        """Runs one agent turn and answers when it is over (several model calls). Prefer
        /agent/stream for anything but short turns. With an `Idempotency-Key`, a retry gets the first
        request's response (waiting for it while it runs) and runs nothing again."""

        async def run() -> tuple[int, ChatResponse]:
            task = turns.start(_run_turn(container, user_id, body, None))
            try:
                result = await asyncio.shield(task)
            except ANSWERED_AS_JSON:
                raise
            except Exception as exc:
                message, _ = _describe_failure(exc)
                raise ApiError(502, getattr(exc, "code", None) or "turn_failed", message) from None
            return 200, ChatResponse.from_turn(result)

        return await run_once(
            container.stream_records,
            user_id,
            "chat",
            idempotency_key,
            body,
            run,
            wait_seconds=container.settings.function_timeout_seconds,
        )

    @router.post("/stream", response_class=StreamingResponse, responses=STREAM_RESPONSES)
    async def stream(
        body: body_model,  # type: ignore[valid-type]
        container: ContainerDep,
        turns: TurnsDep,
        user_id: RegisteredUserId,
        idempotency_key: IdempotencyKeyHeader = None,
        last_event_id: Annotated[
            str | None,
            Header(
                alias="Last-Event-ID",
                pattern=FRAME_ID_PATTERN,
                description=(
                    "The id of the last frame the client got (SSE clients send it when they retry): the "
                    "stream resumes the turn that frame belongs to after it, instead of running the "
                    "message again. ASCII digits only (at most 18); anything else is `422 invalid_request`."
                ),
            ),
        ] = None,
    ) -> StreamingResponse:
        """Runs one agent turn and streams it as Server-Sent Events. Errors found before the stream
        starts are ordinary JSON answers; after that, an `error` frame. A retry (the same
        `Idempotency-Key`, or `Last-Event-ID`) gets the first turn's frames after the last one it
        got, live while the turn runs, and never runs the message again."""
        request: ChatRequest = body
        records = container.stream_records
        resume_after = _frame_id(last_event_id)
        if records is not None and idempotency_key is not None:
            hashed = body_hash(body)
            existing = await claim_or_existing(records, user_id, "stream", idempotency_key, hashed)
            if existing is not None:
                return await _attach(container, records, user_id, idempotency_key, existing, resume_after)
            try:
                return await _start_stream(container, turns, user_id, body, idempotency_key)
            except BaseException:
                await asyncio.shield(records.release(user_id, "stream", idempotency_key))
                raise
        if records is not None and resume_after is not None:
            session_id = await _session_of_frame(
                container, records, user_id, request.session_id, resume_after
            )
            if session_id is not None:
                return _replay(container, records, session_id, resume_after)
        return await _start_stream(container, turns, user_id, body, None)

    return router


def _frame_id(header: str | None) -> int | None:
    """The frame id of a `Last-Event-ID` the header's pattern let through (ASCII digits)."""
    return int(header) if header is not None else None


async def _start_stream(
    container: Container, turns: BackgroundTurns, user_id: str, body: ChatRequest, key: str | None
) -> StreamingResponse:
    records = container.stream_records
    on_started = None
    if records is not None and key is not None:

        async def on_started(session_id: str, first_frame_id: int) -> None:
            await records.started(user_id, "stream", key, session_id, first_frame_id)

    turn = TurnStream(
        lambda emit: _run_turn(container, user_id, body, emit),
        turns=turns,
        heartbeat_seconds=container.settings.heartbeat_seconds,
        session_id_of=lambda result: result.session_id,
        describe_error=_describe_failure,
        outcome_of=turn_outcome,
        publish=public_frame,
        early_errors=ANSWERED_AS_JSON,
        recorder=FrameRecorder(records, turns) if records is not None else None,
        on_started=on_started,
    )
    await turn.start(FIRST_EVENT_WAIT_SECONDS)
    headers = {**SSE_HEADERS, SESSION_HEADER: turn.session_id or ""}
    return StreamingResponse(turn.frames(), media_type=SSE_MEDIA_TYPE, headers=headers)


async def _attach(
    container: Container,
    records: StreamRecords,
    user_id: str,
    key: str,
    record: IdempotencyRecord,
    resume_after: int | None,
) -> StreamingResponse:
    """A retry with the key of a stream that started: the first turn's frames after the last one the
    client got (all of them without `Last-Event-ID`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FIRST_EVENT_WAIT_SECONDS
    while record.session_id is None or record.first_frame_id is None:
        if loop.time() >= deadline:
            raise ApiError(409, "turn_in_progress", "The first request with this key is starting; retry.")
        await asyncio.sleep(ATTACH_POLL_SECONDS)
        refreshed = await records.get(user_id, "stream", key)
        if refreshed is None:
            raise ApiError(409, "turn_in_progress", "The first request with this key failed; retry.")
        record = refreshed
    first, end = turn_frame_range(record.first_frame_id)
    after = resume_after if resume_after is not None and first <= resume_after < end else first - 1
    return _replay(container, records, record.session_id, after)


async def _session_of_frame(
    container: Container, records: StreamRecords, user_id: str, session_id: str | None, frame_id: int
) -> str | None:
    """The session a retried stream's `Last-Event-ID` names: the request's session, else the user's
    latest, if that session has the frame."""
    if session_id is None:
        latest = await container.store.list_sessions(user_id, 1)
        if not latest:
            return None
        session_id = latest[0].id
    else:
        await container.store.get_session(user_id, session_id)
    found = await records.read(session_id, frame_id - 1, frame_id + 1)
    return session_id if found else None


def _replay(container: Container, records: StreamRecords, session_id: str, after: int) -> StreamingResponse:
    settings = container.settings
    frames = replayed_frames(
        records,
        session_id,
        after,
        heartbeat_seconds=settings.heartbeat_seconds,
        poll_seconds=REPLAY_POLL_SECONDS,
        give_up_seconds=settings.function_timeout_seconds + settings.turn_lease_seconds,
    )
    headers = {**SSE_HEADERS, SESSION_HEADER: session_id}
    return StreamingResponse(frames, media_type=SSE_MEDIA_TYPE, headers=headers)
