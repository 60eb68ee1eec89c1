"""The buffered Lambda path: Mangum(create_app(container), lifespan="off") invoked with API Gateway
REST (v1) proxy events, on DynamoDB (moto), embedded Postgres and the offline model.

Mangum runs each invocation on `asyncio.get_event_loop()`; the Postgres pool is opened on that loop."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from mangum import Mangum
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.testing.agent_harness import RecordingPublisher

USER = "3f2b8c1e-5d4a-4e6f-9a0b-1c2d3e4f5a6b"


@dataclass
class LambdaContext:
    aws_request_id: str = "lambda-req-1"
    function_name: str = "trainer-api"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:trainer-api"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def rest_event(
    method: str,
    path: str,
    *,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    base64_body: bool = False,
) -> dict[str, Any]:
    all_headers = {"Host": "api.example.com", "Content-Type": "application/json", **(headers or {})}
    raw = body.encode() if isinstance(body, str) else body
    encoded = base64.b64encode(raw).decode() if (base64_body and raw is not None) else (raw or b"").decode()
    return {
        "resource": "/{proxy+}",
        "path": path,
        "httpMethod": method,
        "headers": all_headers,
        "multiValueHeaders": {k: [v] for k, v in all_headers.items()},
        "queryStringParameters": query,
        "multiValueQueryStringParameters": {k: [v] for k, v in (query or {}).items()} or None,
        "pathParameters": {"proxy": path.lstrip("/")},
        "stageVariables": None,
        "requestContext": {
            "requestId": "apigw-req-1",
            "stage": "dev",
            "resourcePath": "/{proxy+}",
            "httpMethod": method,
            "path": f"/dev{path}",
            "identity": {"sourceIp": "127.0.0.1", "userAgent": "pytest"},
        },
        "body": encoded if raw is not None else None,
        "isBase64Encoded": base64_body,
    }


@pytest.fixture
def container(aws_settings: Settings, session_store: DynamoSessionStore, pg_url: str) -> Iterator[Container]:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    db = Database(pg_url, min_size=1, max_size=2)
    loop.run_until_complete(db.open())
    built = loop.run_until_complete(
        build_container(aws_settings, store=session_store, db=db, publisher=RecordingPublisher())
    )
    try:
        yield built
    finally:
        loop.run_until_complete(db.close())
        asyncio.set_event_loop(None)
        loop.close()


@pytest.fixture
def handler(container: Container) -> Mangum:
    return Mangum(create_app(container), lifespan="off")


def auth(settings: Settings) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), USER)}"}


def call(handler: Mangum, event: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    response = handler(event, LambdaContext())  # type: ignore[arg-type]
    body = response["body"]
    if response.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    return response["statusCode"], headers, json.loads(body) if body else None


def test_health(handler: Mangum) -> None:
    status, _, body = call(handler, rest_event("GET", "/health"))
    assert status == 200
    assert body["stores"] == {"sessions": True, "database": True}


def test_missing_token_is_401_json(handler: Mangum) -> None:
    status, headers, body = call(handler, rest_event("GET", "/agent/sessions"))
    assert (status, body["error"]["code"]) == (401, "missing_token")
    assert headers["x-request-id"] == "apigw-req-1"


def test_session_then_buffered_turn(handler: Mangum, aws_settings: Settings, container: Container) -> None:
    status, _, created = call(handler, rest_event("POST", "/agent/sessions", headers=auth(aws_settings)))
    assert status == 201
    session_id = created["session"]["id"]
    body = json.dumps({"message": "Give me a quick chest workout", "sessionId": session_id})
    status, _, turn = call(handler, rest_event("POST", "/agent/chat", body=body, headers=auth(aws_settings)))
    assert status == 200, turn
    assert turn["sessionId"] == session_id and turn["iterations"] >= 1
    query = {"limit": "5"}
    status, _, listed = call(
        handler, rest_event("GET", "/agent/sessions", headers=auth(aws_settings), query=query)
    )
    assert [s["id"] for s in listed["sessions"]] == [session_id]
    assert [kind for kind, _ in container.publisher.published] == ["TurnCompleted"]


def test_base64_bodies_and_body_errors(handler: Mangum, aws_settings: Settings) -> None:
    malformed = rest_event(
        "POST", "/agent/chat", body='{"message": ', headers=auth(aws_settings), base64_body=True
    )
    status, _, body = call(handler, malformed)
    assert (status, body["error"]["code"]) == (400, "malformed_json")
    huge = json.dumps({"message": "hi", "currentWorkout": {"pad": "y" * (aws_settings.max_body_bytes + 1)}})
    status, _, body = call(handler, rest_event("POST", "/agent/chat", body=huge, headers=auth(aws_settings)))
    assert (status, body["error"]["code"]) == (413, "body_too_large")
    status, _, body = call(handler, rest_event("GET", f"/agent/sessions/{USER}", headers=auth(aws_settings)))
    assert (status, body["error"]["code"]) == (404, "session_not_found")
