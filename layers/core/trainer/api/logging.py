"""Structured logs (the Powertools Logger of trainer.observability) with a correlation id per request,
and the per-request metrics flush where no Lambda handler decorator does it.

Under Mangum the Lambda context arrives as scope["aws.context"] (and the handler's
`@logger.inject_lambda_context` has already tagged the logs). Under the Lambda Web Adapter there is
no context object: the adapter forwards it as the `x-amzn-lambda-context` header (JSON: request_id,
invoked_function_arn, xray_trace_id, env_config.function_name/memory...), the API Gateway request
context as `x-amzn-request-context`, and API Gateway's trace header arrives as `x-amzn-trace-id`.
The middleware turns them into the same log keys `inject_lambda_context` writes (function_name,
function_arn, function_memory_size, function_request_id) plus lambda_request_id and correlation_id;
the request's trace becomes the xray_trace_id Powertools logs (trainer.observability). Keys and
trace are set on context variables, so concurrent requests (and the turn tasks they start) keep
their own ids.

Every request ends with one log line, `request done`: its status, its duration, and the store round
trips it made (DynamoDB requests, SQL statements) in all and, for a stream, before its first frame was
ready to send, so a write that lands in front of the first frame shows in the logs (and in
`python -m bench first_bytes`; tests/integration/api/test_first_frame_round_trips.py holds the budget).

Metrics: under Mangum `@metrics.log_metrics` on the handler flushes the shared buffer once per
invocation; anywhere else (uvicorn behind the adapter, the local stack) the middleware flushes it
when the response is over. Per-turn metrics are written by trainer.observability.TurnMetrics when
the turn ends, which for a streamed turn is before the final `done` frame, so before the adapter
ends the invocation.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trainer.observability import bind_request_trace_id, flush_request_metrics, logger, root_trace_id
from trainer.store.request_counts import FIRST_FRAME, counting

__all__ = ["REQUEST_ID_HEADER", "CorrelationIdMiddleware", "correlation_keys", "logger"]

REQUEST_ID_HEADER = "x-request-id"


def _headers(scope: Scope) -> dict[str, str]:
    return {
        name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])
    }


def _json_header(headers: dict[str, str], name: str) -> dict[str, Any]:
    raw = headers.get(name)
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _adapter_context_keys(lambda_context: dict[str, Any]) -> dict[str, Any]:
    """The Lambda Web Adapter's `x-amzn-lambda-context` as inject_lambda_context's log keys."""
    keys: dict[str, Any] = {}
    config = lambda_context.get("env_config")
    config = config if isinstance(config, dict) else {}
    if config.get("function_name"):
        keys["function_name"] = str(config["function_name"])
    if config.get("memory"):
        keys["function_memory_size"] = config["memory"]
    if lambda_context.get("invoked_function_arn"):
        keys["function_arn"] = str(lambda_context["invoked_function_arn"])
    if lambda_context.get("request_id"):
        keys["function_request_id"] = keys["lambda_request_id"] = str(lambda_context["request_id"])
    return keys


def correlation_keys(scope: Scope) -> dict[str, Any]:
    """Request id, trace id and Lambda request id from whichever runtime is serving the request."""
    headers = _headers(scope)
    keys: dict[str, Any] = {}
    context = scope.get("aws.context")
    if context is not None and getattr(context, "aws_request_id", None):
        keys["lambda_request_id"] = context.aws_request_id
    lambda_context = _json_header(headers, "x-amzn-lambda-context")
    keys.update(_adapter_context_keys(lambda_context))
    trace_id = root_trace_id(str(headers.get("x-amzn-trace-id") or lambda_context.get("xray_trace_id") or ""))
    if trace_id:
        keys["xray_trace_id"] = trace_id
    api_request_id = headers.get("x-amzn-requestid") or headers.get("x-amzn-request-id")
    if not api_request_id:
        api_request_id = _json_header(headers, "x-amzn-request-context").get("requestId")
    event = scope.get("aws.event")
    if not api_request_id and isinstance(event, dict):
        api_request_id = (event.get("requestContext") or {}).get("requestId")
    keys["correlation_id"] = (
        headers.get(REQUEST_ID_HEADER) or api_request_id or keys.get("lambda_request_id") or uuid.uuid4().hex
    )
    return keys


class CorrelationIdMiddleware:
    """Tags every log line of a request with its ids, echoes the correlation id back, and flushes
    the metrics buffer after the request when no Lambda handler decorator will."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        keys = correlation_keys(scope)
        # Powertools writes xray_trace_id itself (from the environment); the request's goes through it.
        bind_request_trace_id(keys.pop("xray_trace_id", None))
        logger.thread_safe_append_keys(**keys, path=scope.get("path"), method=scope.get("method"))
        correlation_id = str(keys["correlation_id"]).encode("latin-1", errors="replace")
        started = time.perf_counter()
        status: int | None = None

        with counting() as counts:

            async def send_with_id(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    message.setdefault("headers", [])
                    message["headers"] = [*message["headers"], (REQUEST_ID_HEADER.encode(), correlation_id)]
                await send(message)

            try:
                await self.app(scope, receive, send_with_id)
            finally:
                calls: dict[str, Any] = {"store_calls": counts.snapshot()}
                if FIRST_FRAME in counts.marks:
                    calls["store_calls_before_first_frame"] = counts.marks[FIRST_FRAME]
                logger.info(
                    "request done",
                    extra={
                        "status": status,
                        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                        **calls,
                    },
                )
                if "aws.context" not in scope:
                    flush_request_metrics()
