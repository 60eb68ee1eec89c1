"""Structured logs (Powertools Logger) with a correlation id per request.

Under Mangum the Lambda context arrives as scope["aws.context"]. Under the Lambda Web Adapter
there is no context object: the adapter forwards it as the `x-amzn-lambda-context` header (JSON),
with the trace id in `x-amzn-trace-id`; API Gateway adds `x-amzn-requestid`. Keys are set on a
context variable, so concurrent requests (and the turn tasks they start) keep their own ids.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from aws_lambda_powertools import Logger
from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = Logger(service="trainer")

REQUEST_ID_HEADER = "x-request-id"


def _headers(scope: Scope) -> dict[str, str]:
    return {
        name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])
    }


def correlation_keys(scope: Scope) -> dict[str, Any]:
    """Request id, trace id and Lambda request id from whichever runtime is serving the request."""
    headers = _headers(scope)
    keys: dict[str, Any] = {}
    context = scope.get("aws.context")
    if context is not None and getattr(context, "aws_request_id", None):
        keys["lambda_request_id"] = context.aws_request_id
    lambda_context = headers.get("x-amzn-lambda-context")
    if lambda_context:
        try:
            parsed = json.loads(lambda_context)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("request_id"):
            keys["lambda_request_id"] = str(parsed["request_id"])
    if headers.get("x-amzn-trace-id"):
        keys["xray_trace_id"] = headers["x-amzn-trace-id"]
    api_request_id = headers.get("x-amzn-requestid") or headers.get("x-amzn-request-id")
    event = scope.get("aws.event")
    if not api_request_id and isinstance(event, dict):
        api_request_id = (event.get("requestContext") or {}).get("requestId")
    keys["correlation_id"] = (
        headers.get(REQUEST_ID_HEADER) or api_request_id or keys.get("lambda_request_id") or uuid.uuid4().hex
    )
    return keys


class CorrelationIdMiddleware:
    """Tags every log line of a request with its ids and echoes the correlation id back."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        keys = correlation_keys(scope)
        logger.thread_safe_append_keys(**keys, path=scope.get("path"), method=scope.get("method"))
        correlation_id = str(keys["correlation_id"]).encode("latin-1", errors="replace")

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (REQUEST_ID_HEADER.encode(), correlation_id)]
            await send(message)

        await self.app(scope, receive, send_with_id)
