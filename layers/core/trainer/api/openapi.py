"""The OpenAPI document the app serves at /openapi.json (and the repo commits as openapi.json).

FastAPI generates it from the routes and their pydantic models; this module adds what FastAPI cannot
know: the error answers of each operation (one `Error` schema; the codes per status in the
description and in `x-error-codes`; 405, 500 on every operation), the typed contract of a turn
(trainer.api.contract: the SSE frames of /agent/stream, the actions, artifacts and session events,
typed per tool and per event type, which replace the generic `Action` and `Event` schemas of the
run-time models), and a little tidying (no pydantic property titles, no FastAPI default 422 where
none can happen).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from trainer.api.schemas import Error

REF_TEMPLATE = "#/components/schemas/{model}"
BEARER_SCHEME = "bearerAuth"

ErrorCodes = Mapping[int, tuple[str, ...]]

UNAUTHORIZED_CODES = (
    "missing_token",
    "invalid_token",
    "token_expired",
    "invalid_signature",
    "invalid_audience",
    "invalid_issuer",
    "account_deleted",
)

AUTHENTICATED: ErrorCodes = {
    401: UNAUTHORIZED_CODES,
    429: ("rate_limited",),
    503: ("auth_unavailable",),
}
"""Every route behind the bearer token (each has a per-user request rate)."""
BUDGET: ErrorCodes = {429: ("budget_exceeded",)}
"""Every route that starts model work (a turn, a plan, an import): the user's daily budget."""
JSON_BODY: ErrorCodes = {
    400: ("malformed_json", "invalid_body"),
    413: ("body_too_large",),
    422: ("invalid_request",),
}
"""Every route that reads a JSON body."""
INVALID_QUERY: ErrorCodes = {422: ("invalid_request",)}
SESSION_SCOPED: ErrorCodes = {404: ("session_not_found",)}
SESSION_LEASE: ErrorCodes = {409: ("turn_in_progress",)}
DATABASE: ErrorCodes = {503: ("database_unavailable",)}
SESSION_STORE: ErrorCodes = {503: ("store_unavailable",)}
"""Every route that reads or writes sessions (DynamoDB)."""

EVERY_OPERATION: ErrorCodes = {405: ("method_not_allowed",), 500: ("internal",)}
"""What any operation can answer: another method on its path (with `Allow`), an unexpected failure."""
REPLACED_BY_CONTRACT = ("Action", "Event")
"""Components of the run-time models that the typed contract replaces (with unions of typed members)."""

HEADERS: dict[int, dict[str, Any]] = {
    405: {
        "Allow": {
            "description": "The methods the path has.",
            "required": True,
            "schema": {"type": "string"},
        }
    },
    401: {
        "WWW-Authenticate": {
            "description": "Always `Bearer`.",
            "required": True,
            "schema": {"type": "string"},
        }
    },
    429: {
        "Retry-After": {
            "description": "Seconds until a retry may pass (the request rate, or the daily budget).",
            "required": True,
            "schema": {"type": "integer", "minimum": 0},
        }
    },
    503: {
        "Retry-After": {
            "description": "Seconds after which a retry may succeed.",
            "required": False,
            "schema": {"type": "integer", "minimum": 0},
        }
    },
}

DESCRIPTION = """\
Every route except `/health` needs `Authorization: Bearer <jwt>`; the token's `sub` (a UUID) is the
user id, and another user's session is always `404`.

Errors are always JSON, one schema (`Error`): `{"error": {"code", "message", "details"?}}`. Each
operation documents the statuses it can answer with and, per status, its `code`s (also
machine-readable in `x-error-codes`). An unexpected failure is `500` with code `internal`.

`POST /agent/stream` answers `text/event-stream`: each event is `id: <frame id>\\ndata: <Frame JSON>\\n\\n`
(its 200 `schema` is one parsed event; its `data` is a JSON `Frame`, also named by `x-sse-data`), with
`: heartbeat` comment lines while the turn is quiet (never an event); `turn_end` closes every turn and
`done` is always last. A retry with `Last-Event-ID` or the first request's `Idempotency-Key` resumes the
same turn and never runs it twice; `GET /agent/sessions/{session_id}/frames?after=` returns the frames
sent after an id. `POST /agent/chat`, `/plans` and `/workouts/import` take an `Idempotency-Key` too: a
retry gets the first answer.
"""


def session_links(session_id: str) -> dict[str, Any]:
    """OpenAPI links from an answer naming a session (`session_id`: a runtime expression) to the
    operations on that session."""
    return {
        name: {"operationId": operation_id, "parameters": {"session_id": session_id}}
        for name, operation_id in (
            ("GetSession", "getSession"),
            ("ListSessionEvents", "listSessionEvents"),
            ("DeleteSession", "deleteSession"),
        )
    }


def error_responses(*groups: ErrorCodes) -> dict[int | str, dict[str, Any]]:
    """The `responses=` of a route: one entry per status with the union of the groups' codes."""
    merged: dict[int, list[str]] = {}
    for group in groups:
        for status, codes in group.items():
            known = merged.setdefault(status, [])
            known.extend(code for code in codes if code not in known)
    return {status: _error_response(status, codes) for status, codes in sorted(merged.items())}


def _error_response(status: int, codes: list[str]) -> dict[str, Any]:
    response: dict[str, Any] = {
        "model": Error,
        "description": f"{HTTPStatus(status).phrase}: " + ", ".join(f"`{code}`" for code in codes),
        "x-error-codes": codes,
    }
    if status in HEADERS:
        response["headers"] = HEADERS[status]
    return response


def install_openapi(app: FastAPI) -> None:
    """Serves `build_openapi(app)` (built once) as the app's OpenAPI document."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def build_openapi(app: FastAPI) -> dict[str, Any]:
    document = get_openapi(
        title=app.title,
        version=app.version,
        openapi_version=app.openapi_version,
        description=DESCRIPTION,
        routes=app.routes,
    )
    from trainer.api.contract import contract_schemas, untyped_objects_as_json

    schemas: dict[str, Any] = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in contract_schemas(REF_TEMPLATE, schemas["Event"]).items():
        if name in schemas and name not in REPLACED_BY_CONTRACT:
            if _comparable(schemas[name]) != _comparable(schema):
                raise RuntimeError(f"two different schemas are named {name!r}")
            continue
        schemas[name] = schema
    for name, schema in list(schemas.items()):
        schemas[name] = untyped_objects_as_json(schema, REF_TEMPLATE)
    _drop_impossible_validation_errors(document)
    for schema in schemas.values():
        _drop_property_titles(schema)
    for operation in _operations(document):
        for parameter in operation.get("parameters", []):
            parameter.get("schema", {}).pop("title", None)
        responses = operation.setdefault("responses", {})
        for status, response in error_responses(EVERY_OPERATION).items():
            responses.setdefault(str(status), _error_response_json(response))
    return document


def _comparable(schema: Any) -> Any:
    """A schema without what FastAPI rewrites of pydantic's (titles, null defaults)."""
    if isinstance(schema, dict):
        return {key: _comparable(value) for key, value in schema.items() if key not in ("title", "default")}
    if isinstance(schema, list):
        return [_comparable(item) for item in schema]
    return schema


def _error_response_json(response: dict[str, Any]) -> dict[str, Any]:
    """An `error_responses` entry as it reads in the document (FastAPI writes `model` as content)."""
    written = {key: value for key, value in response.items() if key != "model"}
    written["content"] = {"application/json": {"schema": {"$ref": REF_TEMPLATE.format(model="Error")}}}
    return written


def render_openapi(document: Mapping[str, Any]) -> str:
    """The committed form: pretty-printed with sorted keys, so regenerating gives the same bytes."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _operations(document: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    for path_item in document.get("paths", {}).values():
        for method, operation in path_item.items():
            if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
                yield operation


VALIDATION_ERROR_REF = "#/components/schemas/HTTPValidationError"


def _drop_impossible_validation_errors(document: dict[str, Any]) -> None:
    """FastAPI adds a default 422 (its own HTTPValidationError) to any operation with a parameter
    and no 422 of its own; every 422 this API can answer is declared with the Error schema, so
    what is left of FastAPI's cannot happen."""
    for operation in _operations(document):
        responses = operation.get("responses", {})
        content = responses.get("422", {}).get("content", {})
        if any(media.get("schema", {}).get("$ref") == VALIDATION_ERROR_REF for media in content.values()):
            del responses["422"]
    if VALIDATION_ERROR_REF not in json.dumps(document):
        schemas = document["components"]["schemas"]
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)


def _drop_property_titles(schema: Any) -> None:
    """Pydantic titles every property after its name (`Session Id`); code generators would turn
    them into type names."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for prop in value.values():
                    if isinstance(prop, dict):
                        prop.pop("title", None)
            _drop_property_titles(value)
    elif isinstance(schema, list):
        for item in schema:
            _drop_property_titles(item)
