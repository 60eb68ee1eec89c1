"""`error` events: a stable code and a message safe to show anyone who can read the session (the
app, the session console). The exception itself, with its traceback, goes to the logs only."""

from __future__ import annotations

import logging

from trainer.providers.ports import ModelError
from trainer.store.models import Event, EventType
from trainer.store.ports import SessionStore

logger = logging.getLogger(__name__)

SAFE_MESSAGES: dict[str, str] = {
    "agent_loop": "The turn stopped unexpectedly.",
    "checkpoint": "Summarising the earlier conversation failed.",
    "context_init": "Loading the user's data for this turn failed.",
    "llm": "The model call failed.",
    "user_data": "The user's profile and location could not be loaded.",
}


def error_code(exc: BaseException | str, context: str) -> str:
    if isinstance(exc, ModelError):
        return "model_error"
    base = context.split(":", 1)[0]
    return f"{base}_failed" if not isinstance(exc, str) else base


def safe_message(exc: BaseException | str, context: str) -> str:
    """Our own wording for a string or a model error; a generic line for anything else."""
    if isinstance(exc, str):
        return exc
    if isinstance(exc, ModelError):
        return str(exc)
    return SAFE_MESSAGES.get(context.split(":", 1)[0], "An internal error occurred.")


async def log_error(
    store: SessionStore, session_id: str, exc: BaseException | str, context: str, *, code: str | None = None
) -> Event | None:
    """Appends an `error` event (code, message, context) and logs the exception with its traceback."""
    if isinstance(exc, BaseException):
        logger.error("%s in session %s", context, session_id, exc_info=exc, extra={"session_id": session_id})
    data = {
        "code": code or error_code(exc, context),
        "message": safe_message(exc, context),
        "context": context,
    }
    try:
        return await store.append_event(session_id, EventType.ERROR, data)
    except Exception:
        logger.exception("could not log error event (%s)", context)
        return None
