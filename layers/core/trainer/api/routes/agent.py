"""POST /agent/chat (buffered JSON) and POST /agent/stream (SSE) — seed 002 §10.2, ARCHITECTURE §7.

Both run the turn as a detached task: a client that disconnects does not abort it.
Body errors: not JSON 400, no `message` 400, `message` over the limit 413 (`message_too_long`),
other invalid fields 422, unknown `model` 422.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, is_dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trainer.api.errors import ApiError, validation_details
from trainer.api.logging import logger
from trainer.api.routes import ContainerDep, RegisteredUserId
from trainer.api.sse import SSE_HEADERS, SSE_MEDIA_TYPE, Emit, TurnStream
from trainer.container import Container
from trainer.store.ports import LeaseHeld, SessionNotFound

router = APIRouter(prefix="/agent", tags=["agent"])

FIRST_EVENT_WAIT_SECONDS = 2.0
TURN_FAILED_MESSAGE = "The assistant could not finish this turn. Please try again."

REQUEST_BODY_SCHEMA = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["message"],
                    "properties": {
                        "message": {"type": "string", "maxLength": 8000},
                        "sessionId": {"type": "string"},
                        "currentWorkout": {"type": "object"},
                        "model": {"type": "string"},
                    },
                }
            }
        },
    }
}


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    message: str
    session_id: str | None = Field(default=None, alias="sessionId")
    current_workout: dict[str, Any] | None = Field(default=None, alias="currentWorkout")
    model: str | None = None


async def parse_chat_request(request: Request, container: Container) -> ChatRequest:
    raw = await request.body()
    try:
        payload = json.loads(raw) if raw else None
    except ValueError:
        raise ApiError(400, "malformed_json", "The request body is not valid JSON.") from None
    if not isinstance(payload, dict):
        raise ApiError(400, "invalid_body", "The request body must be a JSON object.")
    message = payload.get("message")
    if message is None or (isinstance(message, str) and not message.strip()):
        raise ApiError(400, "missing_message", "The 'message' field is required.")
    limit = container.settings.max_message_chars
    if isinstance(message, str) and len(message) > limit:
        raise ApiError(
            413, "message_too_long", f"The message has {len(message)} characters; the limit is {limit}."
        )
    try:
        body = ChatRequest.model_validate(payload)
    except ValidationError as exc:
        raise ApiError(
            422,
            "invalid_request",
            "The request is not valid.",
            details=validation_details(list(exc.errors())),
        ) from None
    if body.model is not None and not container.is_known_model(body.model):
        raise ApiError(422, "unknown_model", f"Unknown model '{body.model}'.")
    return body


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def chat_response(result: Any) -> dict[str, Any]:
    response = _plain(getattr(result, "response", None)) or {"messages": []}
    return jsonable_encoder(
        {
            "sessionId": result.session_id,
            "response": response,
            "iterations": result.iterations,
            "actions": [_plain(a) for a in getattr(result, "actions", [])],
            "status": getattr(result, "status", "completed"),
        }
    )


def _describe_failure(exc: BaseException) -> tuple[str, str | None]:
    session_id = getattr(exc, "session_id", None)
    if isinstance(exc, SessionNotFound):
        return "Session not found.", session_id
    if isinstance(exc, LeaseHeld):
        return "Another turn is running on this session; retry when it has finished.", session_id
    from trainer.agent.loop import TurnFailed

    if isinstance(exc, TurnFailed):
        return str(exc) or TURN_FAILED_MESSAGE, session_id
    logger.exception("turn failed unexpectedly", exc_info=exc)
    return TURN_FAILED_MESSAGE, session_id


def _run_turn(container: Container, user_id: str, body: ChatRequest, emit: Emit | None) -> Any:
    return container.agent.run_turn(
        user_id,
        body.message,
        session_id=body.session_id,
        current_workout=body.current_workout,
        model=body.model,
        emit=emit,
    )


@router.post("/chat", openapi_extra=REQUEST_BODY_SCHEMA)
async def chat(request: Request, container: ContainerDep, user_id: RegisteredUserId) -> dict[str, Any]:
    """Buffered: answers when the turn is over. Prefer /agent/stream for long turns."""
    body = await parse_chat_request(request, container)
    task = container.turns.start(_run_turn(container, user_id, body, None))
    try:
        result = await asyncio.shield(task)
    except (SessionNotFound, LeaseHeld, ApiError):
        raise
    except Exception as exc:
        message, _ = _describe_failure(exc)
        raise ApiError(502, "turn_failed", message) from None
    return chat_response(result)


@router.post("/stream", openapi_extra=REQUEST_BODY_SCHEMA, response_class=StreamingResponse)
async def stream(request: Request, container: ContainerDep, user_id: RegisteredUserId) -> StreamingResponse:
    body = await parse_chat_request(request, container)
    turn = TurnStream(
        lambda emit: _run_turn(container, user_id, body, emit),
        turns=container.turns,
        heartbeat_seconds=container.settings.heartbeat_seconds,
        session_id_of=lambda result: result.session_id,
        describe_error=_describe_failure,
        early_errors=(SessionNotFound, LeaseHeld, ApiError),
    )
    await turn.start(FIRST_EVENT_WAIT_SECONDS)
    return StreamingResponse(turn.frames(), media_type=SSE_MEDIA_TYPE, headers=SSE_HEADERS)
