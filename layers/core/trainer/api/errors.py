"""One JSON error shape for every failure: {"error": {"code", "message"}} (plus `details` for
validation errors), the `Error` schema of api/schemas.py. Nothing reaches the client as a traceback.

Request validation: a body that is not JSON is `400 malformed_json`; a body that is missing or not a
JSON object is `400 invalid_body`; anything else the schema does not allow is `422 invalid_request`.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trainer.api.logging import logger
from trainer.api.schemas import Error, ErrorDetail, ErrorInfo
from trainer.services.usage_limits import BudgetExceeded, RateLimited
from trainer.store.ports import (
    AccountDeleted,
    DatabaseUnavailable,
    LeaseHeld,
    SessionNotFound,
    StoreUnavailable,
)

RETRY_AFTER_SECONDS = 2


class ApiError(HTTPException):
    """An expected failure with its HTTP status and a stable machine-readable code. It is an
    HTTPException so FastAPI re-raises it untouched when it surfaces while reading a body."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.details = details


def error_body(code: str, message: str, details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    info = ErrorInfo(
        code=code, message=message, details=[ErrorDetail.model_validate(d) for d in details or ()]
    )
    return Error(error=info).wire()


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: dict[str, str] | None = None,
    details: list[dict[str, Any]] | None = None,
) -> JSONResponse:
    return JSONResponse(error_body(code, message, details), status_code=status, headers=headers)


def _status_code_name(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return "error"


def validation_details(errors: list[Any]) -> list[dict[str, Any]]:
    """Pydantic/FastAPI errors reduced to what a client can act on (no echoed input)."""
    details = []
    for err in errors:
        loc = [str(part) for part in err.get("loc", ()) if part != "body"]
        details.append({"field": ".".join(loc) or None, "message": str(err.get("msg", "invalid value"))})
    return details


def is_malformed_json(errors: list[Any]) -> bool:
    return any(err.get("type") == "json_invalid" for err in errors)


def is_not_an_object(errors: list[Any]) -> bool:
    """The body is missing or is not a JSON object (errors about the body as a whole)."""
    return any(tuple(err.get("loc", ())) == ("body",) for err in errors)


def request_error(errors: list[Any]) -> ApiError:
    """The generic answer to a request that fails validation."""
    if is_malformed_json(errors):
        return ApiError(400, "malformed_json", "The request body is not valid JSON.")
    if is_not_an_object(errors):
        return ApiError(
            400, "invalid_body", "The request body must be a JSON object (Content-Type: application/json)."
        )
    return ApiError(422, "invalid_request", "The request is not valid.", details=validation_details(errors))


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    headers = dict(exc.headers) if exc.headers else None
    return error_response(exc.status, exc.code, exc.message, headers=headers, details=exc.details)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return await _api_error(request, request_error(list(exc.errors())))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    message = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        allowed = documented_methods(request.app.openapi(), _route_path(request))
        if allowed:
            headers["Allow"] = ", ".join(allowed)
    return error_response(exc.status_code, _status_code_name(exc.status_code), message, headers=headers)


def documented_methods(document: dict[str, Any], path: str) -> list[str]:
    """The methods the OpenAPI document has for `path` (Starlette's 405 names only the methods of
    the first route on the path: GET but not DELETE for /agent/sessions/{id}). A literal segment wins
    over a parameter, as in the router: /workouts/import is POST's, not /workouts/{workout_id}'s."""
    wanted = path.rstrip("/").split("/")
    matches: list[tuple[int, list[str]]] = []
    for template, item in document.get("paths", {}).items():
        parts = template.rstrip("/").split("/")
        if len(parts) == len(wanted) and all(
            part == segment or (part.startswith("{") and segment)
            for part, segment in zip(parts, wanted, strict=True)
        ):
            parameters = sum(part.startswith("{") for part in parts)
            matches.append((parameters, sorted(method.upper() for method in item if method in HTTP_METHODS)))
    return min(matches, key=lambda match: match[0])[1] if matches else []


HTTP_METHODS = frozenset({"get", "put", "post", "delete", "patch", "head", "options", "trace"})


def _route_path(request: Request) -> str:
    """The path the router matched: without the `root_path` a proxy (an API Gateway stage) added."""
    return _scope_path(request.scope)


def _scope_path(scope: Scope) -> str:
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


async def _session_not_found(_: Request, exc: Exception) -> JSONResponse:
    return error_response(404, "session_not_found", "Session not found.")


async def _lease_held(_: Request, exc: Exception) -> JSONResponse:
    return error_response(
        409, "turn_in_progress", "Another turn is running on this session; retry when it has finished."
    )


async def _account_deleted(_: Request, exc: Exception) -> JSONResponse:
    return error_response(
        401,
        "account_deleted",
        "This account was deleted; its data is gone and its tokens are no longer accepted.",
        headers={"WWW-Authenticate": "Bearer"},
    )


async def _budget_exceeded(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, BudgetExceeded)
    return error_response(
        429, "budget_exceeded", str(exc), headers={"Retry-After": str(exc.retry_after_seconds)}
    )


async def _rate_limited(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RateLimited)
    return error_response(
        429, "rate_limited", str(exc), headers={"Retry-After": str(exc.retry_after_seconds)}
    )


async def _store_unavailable(_: Request, exc: Exception) -> JSONResponse:
    logger.warning("session store unavailable", exc_info=exc)
    return error_response(
        503,
        "store_unavailable",
        "Sessions cannot be reached right now; please retry shortly.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


async def _database_unavailable(_: Request, exc: Exception) -> JSONResponse:
    logger.warning("database unavailable", exc_info=exc)
    return error_response(
        503,
        "database_unavailable",
        "Your training data cannot be reached right now; please retry shortly.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(SessionNotFound, _session_not_found)
    app.add_exception_handler(LeaseHeld, _lease_held)
    app.add_exception_handler(AccountDeleted, _account_deleted)
    app.add_exception_handler(BudgetExceeded, _budget_exceeded)
    app.add_exception_handler(RateLimited, _rate_limited)
    app.add_exception_handler(StoreUnavailable, _store_unavailable)
    app.add_exception_handler(DatabaseUnavailable, _database_unavailable)


def body_too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"The request body exceeds {limit} bytes.")


class BodySizeLimitMiddleware:
    """413 for bodies over `max_bytes` (a path of `path_limits`: its own limit, when larger): by
    Content-Length up front, else while the body streams in (the overflow surfaces as an ApiError inside
    the route, where the handlers turn it into JSON)."""

    def __init__(self, app: ASGIApp, max_bytes: int, path_limits: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.path_limits = {path: max(limit, max_bytes) for path, limit in (path_limits or {}).items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = (
            self.path_limits.get(_scope_path(scope), self.max_bytes) if self.path_limits else self.max_bytes
        )
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            err = body_too_large(limit)
            response = error_response(err.status, err.code, err.message)
            await response(scope, receive, send)
            return

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise body_too_large(limit)
            return message

        await self.app(scope, limited_receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class CatchAllMiddleware:
    """The last line: an unexpected exception is logged with its traceback and answered with a
    JSON 500, or, if the response has already started (a stream), the response is just ended. A request
    whose account was deleted while it ran fails on its next write (its rows are gone, and no row of
    the account can be made again): that is `401 account_deleted`, as the request would have been
    answered a moment later, not a 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if not started and await _deleted_meanwhile(scope):
                logger.info("a request stopped: its account was deleted while it ran")
                refused = await _account_deleted(Request(scope), exc)
                await refused(scope, receive, send)
                return
            logger.exception(
                "unhandled error", extra={"path": scope.get("path"), "method": scope.get("method")}
            )
            if started:
                return
            response = error_response(500, "internal", "An unexpected error occurred.")
            await response(scope, receive, send)


async def _deleted_meanwhile(scope: Scope) -> bool:
    """Whether the request's account (known once its token was checked) is deleted now."""
    user_id = (scope.get("state") or {}).get("user_id")
    app = scope.get("app")
    if user_id is None or app is None:
        return False
    try:
        container = await app.state.container_provider.get()
        return container.accounts is not None and bool(await container.accounts.is_deleted(user_id))
    except Exception:
        logger.warning("could not tell whether the account was deleted", exc_info=True)
        return False
