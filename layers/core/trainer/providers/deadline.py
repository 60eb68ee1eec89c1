"""How long a model call may take: until the request's deadline minus a margin, so a
turn always has the time to record the failure, send its `error` frame and close its stream before the
platform ends the function.

The deadline is the function's: the Lambda context's remaining time when the request carries one
(`remaining_seconds`, set by trainer.api.deadline), else the configured turn deadline
(TRAINER_FUNCTION_TIMEOUT_SECONDS from the turn's start). It lives in a context variable, so every model
call made for the request (the chat agent's, the program agents' run from its tools) sees it; tasks
started for the request inherit it.

Each adapter bounds a call by `call_timeout(...)` as a whole (the SDK's own retries included) and hands
the same figure to the SDK as its request timeout, so neither the SDK's 600 s default nor its retries
can outlive the function."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from trainer.providers.ports import ModelError

if TYPE_CHECKING:
    from trainer.settings.groups import DeadlineSettings

MODEL_TIMEOUT = "model_timeout"
MIN_CALL_SECONDS = 1.0
"""A call with less than this left is not started: it could not answer anyway."""

_deadline: ContextVar[float | None] = ContextVar("trainer_request_deadline", default=None)
"""`time.monotonic()` at which the function ends (None: no deadline known)."""


def current_deadline() -> float | None:
    return _deadline.get()


@contextlib.contextmanager
def deadline_in(seconds: float) -> Iterator[float]:
    """Sets the deadline `seconds` from now for the block, unless an earlier one is already set
    (a turn inside a Lambda invocation keeps the invocation's)."""
    candidate = time.monotonic() + seconds
    earlier = _deadline.get()
    deadline = candidate if earlier is None else min(earlier, candidate)
    token = _deadline.set(deadline)
    try:
        yield deadline
    finally:
        _deadline.reset(token)


def remaining_seconds(lambda_context: Any = None, headers: Mapping[str, str] | None = None) -> float | None:
    """The function's remaining time from whatever runtime serves the request: the Lambda context's
    `get_remaining_time_in_millis()` (Mangum's `aws.context`), or the Lambda Web Adapter's
    `x-amzn-lambda-context` header (its `deadline`, epoch milliseconds). None when neither is there."""
    remaining = getattr(lambda_context, "get_remaining_time_in_millis", None)
    if callable(remaining):
        with contextlib.suppress(Exception):
            return max(0.0, float(remaining()) / 1000)
    raw = (headers or {}).get("x-amzn-lambda-context")
    if raw:
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            deadline_ms = float(json.loads(raw).get("deadline"))
            return max(0.0, deadline_ms / 1000 - time.time())
    return None


def deadline_budget(settings: DeadlineSettings) -> tuple[float, float]:
    """`call_timeout`'s arguments from a function's settings: its timeout (the fallback deadline) and
    the margin a model call leaves of it."""
    return float(settings.function_timeout_seconds), settings.model_deadline_margin_seconds


def call_timeout(fallback_seconds: float, margin_seconds: float) -> float:
    """Seconds the next model call may take: to the deadline (or `fallback_seconds` from now when none
    is set) less `margin_seconds`. A ModelError (`model_timeout`) when less than a second is left."""
    deadline = _deadline.get()
    left = (deadline - time.monotonic()) if deadline is not None else fallback_seconds
    budget = left - margin_seconds
    if budget < MIN_CALL_SECONDS:
        raise ModelError("no time left for a model call before the function's deadline", code=MODEL_TIMEOUT)
    return budget


def timed_out(seconds: float) -> ModelError:
    return ModelError(f"the model did not answer within {seconds:.0f} s", code=MODEL_TIMEOUT)
