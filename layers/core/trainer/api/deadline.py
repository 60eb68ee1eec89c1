"""The function's deadline for the request: under Lambda (Mangum's `aws.context`, or
the Lambda Web Adapter's `x-amzn-lambda-context` header) the remaining time sets the deadline every model
call of the request is bounded by (trainer.providers.deadline), so a turn ends with its `error` frame and
a closed stream before the platform ends the function. Elsewhere the turn sets its own (the configured
function timeout)."""

from __future__ import annotations

import contextlib

from starlette.types import ASGIApp, Receive, Scope, Send

from trainer.providers.deadline import deadline_in, remaining_seconds


class FunctionDeadlineMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        remaining = None
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            remaining = remaining_seconds(scope.get("aws.context"), headers)
        with deadline_in(remaining) if remaining is not None else contextlib.nullcontext():
            await self.app(scope, receive, send)
