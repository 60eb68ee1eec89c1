"""Every failure the API can produce has the one JSON error shape and the right status
(in-process TestClient over an in-memory store and a scripted agent; no sockets)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.api.schemas import NON_BLANK_PATTERN
from trainer.chat.turn import ClientResponse, TurnFailed, TurnResult
from trainer.container import Container
from trainer.domain.text import clean_text
from trainer.frames import tool_start_frame
from trainer.settings import Settings
from trainer.store.ports import LeaseHeld
from trainer_dev.testing.memory_store import InMemorySessionStore as MemoryStore

SECRET = "unit-test-secret-0123456789abcdef0123"
ALICE = "11111111-1111-4111-8111-111111111111"
BOB = "22222222-2222-4222-8222-222222222222"


@dataclass
class IdleAction:
    """Quacks like trainer.chat.turn.Action for the response (`as_json`)."""

    def as_json(self) -> dict[str, Any]:
        return {"tool": "idle", "args": {"reason": "done"}, "result": {"success": True}}


@dataclass
class ScriptedAgent:
    store: MemoryStore
    fail_with: BaseException | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def run_turn(self, user_id: str, message: str, **kwargs: Any) -> TurnResult:
        self.calls.append({"user_id": user_id, "message": message, **kwargs})
        if self.fail_with is not None:
            raise self.fail_with
        session_id = kwargs.get("session_id") or (await self.store.create_session(user_id)).id
        await self.store.get_session(user_id, session_id)
        emit = kwargs.get("emit")
        if emit is not None:
            await emit(tool_start_frame("message_notify_user", {}), 1)
        return TurnResult(
            session_id=session_id,
            actions=[IdleAction()],  # type: ignore[list-item]
            iterations=2,
            status="completed",
            response=ClientResponse(messages=["hi"]),
            stop_reason="done",
        )


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def agent(store: MemoryStore) -> ScriptedAgent:
    return ScriptedAgent(store)


@pytest.fixture
def app(store: MemoryStore, agent: ScriptedAgent) -> FastAPI:
    settings = Settings.model_validate(
        {"TRAINER_JWT_SECRET": SECRET, "TRAINER_MAX_BODY_BYTES": 4096, "TRAINER_MAX_MESSAGE_CHARS": 100}
    )
    return create_app(Container(settings=settings, store=store, agent=agent))


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    return TestClient(app, raise_server_exceptions=False)


def auth(user: str = ALICE) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(SECRET, user)}"}


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert "Traceback" not in response.text
    return body["error"]


def test_missing_token_is_401_json_with_challenge(client: TestClient) -> None:
    response = client.get("/agent/sessions")
    assert_error(response, 401, "missing_token")
    assert response.headers["www-authenticate"] == "Bearer"


def test_expired_token_is_401_json(client: TestClient) -> None:
    token = mint_dev_token(SECRET, ALICE, ttl_seconds=1, now=0)
    assert_error(
        client.get("/agent/sessions", headers={"Authorization": f"Bearer {token}"}), 401, "token_expired"
    )


@pytest.mark.parametrize("path", ["/agent/chat", "/agent/stream"])
def test_malformed_json_is_400(client: TestClient, path: str) -> None:
    response = client.post(
        path, content=b'{"message": "hi"', headers={**auth(), "content-type": "application/json"}
    )
    assert_error(response, 400, "malformed_json")


def test_malformed_json_on_a_model_bound_route_is_400(client: TestClient) -> None:
    response = client.put(
        "/user-settings", content=b"{nope", headers={**auth(), "content-type": "application/json"}
    )
    assert_error(response, 400, "malformed_json")


@pytest.mark.parametrize("body", [{}, {"message": ""}, {"message": "   "}, {"sessionId": "x"}])
@pytest.mark.parametrize("path", ["/agent/chat", "/agent/stream"])
def test_missing_message_is_400(client: TestClient, path: str, body: dict[str, Any]) -> None:
    assert_error(client.post(path, json=body, headers=auth()), 400, "missing_message")


@pytest.mark.parametrize("path", ["/agent/chat", "/agent/stream"])
def test_non_object_body_is_400(client: TestClient, path: str) -> None:
    assert_error(client.post(path, json=["hi"], headers=auth()), 400, "invalid_body")


@pytest.mark.parametrize("path", ["/agent/chat", "/agent/stream"])
def test_message_over_the_limit_is_the_schemas_validation_error_422(
    client: TestClient, agent: ScriptedAgent, path: str
) -> None:
    """The schema's `maxLength` is a validation error (422), as the document says; 413 is only a body
    over the byte limit."""
    error = assert_error(
        client.post(path, json={"message": "x" * 101}, headers=auth()), 422, "message_too_long"
    )
    assert "100" in error["message"]
    assert agent.calls == []


def test_message_at_the_limit_is_accepted(client: TestClient) -> None:
    assert client.post("/agent/chat", json={"message": "x" * 100}, headers=auth()).status_code == 200


def test_oversize_body_is_413_by_content_length(client: TestClient) -> None:
    body = json.dumps({"message": "hi", "currentWorkout": {"pad": "y" * 5000}})
    response = client.post(
        "/agent/chat", content=body, headers={**auth(), "content-type": "application/json"}
    )
    assert_error(response, 413, "body_too_large")


def test_oversize_chunked_body_is_413(client: TestClient) -> None:
    def chunks() -> Any:
        yield b'{"message": "hi", "pad": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    response = client.post(
        "/agent/chat", content=chunks(), headers={**auth(), "content-type": "application/json"}
    )
    assert_error(response, 413, "body_too_large")


def test_wrongly_typed_field_is_422(client: TestClient) -> None:
    error = assert_error(
        client.post("/agent/chat", json={"message": "hi", "currentWorkout": "nope"}, headers=auth()),
        422,
        "invalid_request",
    )
    assert error["details"][0]["field"] == "currentWorkout"


@pytest.mark.parametrize(
    ("field", "value"), [("completed", 0), ("sets", True), ("rest_sec", "60"), ("load_each", [True])]
)
def test_a_workout_field_of_another_type_than_its_schema_is_422(
    client: TestClient, agent: ScriptedAgent, field: str, value: Any
) -> None:
    exercise = {
        "exercise_name": "Bench press",
        "exercise_type": "reps",
        "order": 1,
        "muscles_utilized": [{"muscle": "Chest", "share": 1}],
        "goals_addressed": [{"goal": "strength", "share": 1}],
        "reasoning": "main lift",
        "sets": 3,
        "reps": [8, 8, 8],
        "load_each": [60, 62.5, 65],
        "rest_sec": 90,
        "completed": False,
    }
    body = {"message": "hi", "currentWorkout": {"exercises": [exercise]}}
    assert client.post("/agent/chat", json=body, headers=auth()).status_code == 200
    exercise["order"] = 1.0
    assert client.post("/agent/chat", json=body, headers=auth()).status_code == 200, "1.0 is an integer"
    exercise[field] = value
    error = assert_error(client.post("/agent/chat", json=body, headers=auth()), 422, "invalid_request")
    assert error["details"][0]["field"].startswith("currentWorkout")
    assert field in error["details"][0]["field"]


def test_unknown_model_is_422(client: TestClient, agent: ScriptedAgent) -> None:
    response = client.post("/agent/chat", json={"message": "hi", "model": "gpt-2"}, headers=auth())
    assert_error(response, 422, "unknown_model")
    assert agent.calls == []


def test_known_model_is_passed_to_the_agent(client: TestClient, agent: ScriptedAgent) -> None:
    response = client.post(
        "/agent/chat", json={"message": "hi", "model": "claude-sonnet-4-6"}, headers=auth()
    )
    assert response.status_code == 200
    assert agent.calls[0]["model"] == "claude-sonnet-4-6"


@pytest.mark.parametrize("limit", [0, 101, "ten"])
def test_sessions_limit_out_of_range_is_422(client: TestClient, limit: Any) -> None:
    assert_error(client.get(f"/agent/sessions?limit={limit}", headers=auth()), 422, "invalid_request")


def test_another_users_session_is_404_everywhere(client: TestClient, store: MemoryStore) -> None:
    bobs = store.new_session(BOB).id
    for method, path in [
        ("GET", f"/agent/sessions/{bobs}"),
        ("GET", f"/agent/sessions/{bobs}/events"),
        ("DELETE", f"/agent/sessions/{bobs}"),
    ]:
        assert_error(client.request(method, path, headers=auth(ALICE)), 404, "session_not_found")
    chat = client.post("/agent/chat", json={"message": "hi", "sessionId": bobs}, headers=auth(ALICE))
    assert_error(chat, 404, "session_not_found")
    stream = client.post("/agent/stream", json={"message": "hi", "sessionId": bobs}, headers=auth(ALICE))
    assert_error(stream, 404, "session_not_found")
    assert asyncio.run(store.get_session(BOB, bobs)).id == bobs


@pytest.mark.parametrize("path", ["/agent/chat", "/agent/stream"])
def test_concurrent_turn_is_409(client: TestClient, agent: ScriptedAgent, path: str) -> None:
    agent.fail_with = LeaseHeld("held by another turn")
    assert_error(client.post(path, json={"message": "hi"}, headers=auth()), 409, "turn_in_progress")


def test_model_failure_on_chat_is_502(client: TestClient, agent: ScriptedAgent) -> None:
    agent.fail_with = TurnFailed("The trainer is unavailable right now.", session_id="s-1")
    error = assert_error(
        client.post("/agent/chat", json={"message": "hi"}, headers=auth()), 502, "turn_failed"
    )
    assert error["message"] == "The trainer is unavailable right now."


def test_unexpected_error_is_a_json_500_without_internals(client: TestClient, store: MemoryStore) -> None:
    def boom(*_: Any, **__: Any) -> Any:
        raise RuntimeError("secret internals /etc/passwd")

    store.list_sessions = boom  # type: ignore[method-assign]
    error = assert_error(client.get("/agent/sessions", headers=auth()), 500, "internal")
    assert "passwd" not in error["message"]


def test_unknown_route_and_method_are_json(client: TestClient) -> None:
    assert_error(client.get("/nope", headers=auth()), 404, "not_found")
    assert_error(client.put("/agent/sessions", headers=auth()), 405, "method_not_allowed")


def test_stream_frames_and_headers(client: TestClient) -> None:
    with client.stream("POST", "/agent/stream", json={"message": "hi"}, headers=auth()) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        text = "".join(response.iter_text())
    frames = [f for f in text.split("\n\n") if f]
    types = [json.loads(f.split("data: ", 1)[1])["type"] for f in frames]
    assert types[-2:] == ["turn_end", "done"]
    numbered = [t for f, t in zip(frames, types, strict=True) if f.startswith("id: ")]
    assert numbered == [t for t in types if t not in ("message_delta", "done")]


def test_chat_response_shape(client: TestClient) -> None:
    body = client.post("/agent/chat", json={"message": "hi"}, headers=auth()).json()
    assert set(body) == {"sessionId", "response", "iterations", "actions", "status"}
    assert body["response"] == {"messages": ["hi"], "exercises": None, "question": None, "timers": None}
    assert body["actions"] == [{"tool": "idle", "args": {"reason": "done"}, "result": {"success": True}}]
    assert (body["iterations"], body["status"]) == (2, "completed")


def test_correlation_id_is_echoed(client: TestClient) -> None:
    response = client.get("/agent/sessions", headers={**auth(), "x-request-id": "req-123"})
    assert response.headers["x-request-id"] == "req-123"
    lambda_ctx = json.dumps({"request_id": "lambda-abc"})
    response = client.get("/agent/sessions", headers={**auth(), "x-amzn-lambda-context": lambda_ctx})
    assert response.headers["x-request-id"] == "lambda-abc"


# --- the body model's error codes and the documented contract -----------------------------------


@pytest.mark.parametrize("path", ["/agent/chat", "/agent/stream"])
def test_null_message_is_400_and_a_non_string_message_is_422(client: TestClient, path: str) -> None:
    assert_error(client.post(path, json={"message": None}, headers=auth()), 400, "missing_message")
    assert_error(client.post(path, json={"message": 5}, headers=auth()), 422, "invalid_request")


@pytest.mark.parametrize(
    "blank", [" \t\r\n", "\x1d", "\u3000\xa0", "\u2028\x85", "\x00", "\u200b\u202e", "\x1b\x07 \ufeff"]
)
def test_blank_means_nothing_visible_is_left(client: TestClient, blank: str) -> None:
    """Whitespace to `str.strip()`, or only characters the edge drops (NUL, controls, bidi, zero-width)."""
    assert_error(client.post("/agent/chat", json={"message": blank}, headers=auth()), 400, "missing_message")


def test_a_message_keeps_its_visible_text_and_loses_invisible_characters(
    client: TestClient, agent: ScriptedAgent
) -> None:
    body = {"message": " \u200b ok\x1b[31m \u202eevil\x00\nline two\t"}
    assert client.post("/agent/chat", json=body, headers=auth()).status_code == 200
    assert agent.calls[0]["message"] == "  ok[31m evil\nline two\t"


def test_the_non_blank_pattern_is_exactly_what_strip_and_the_cleaning_keep() -> None:
    whitespace = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    pattern = re.compile(NON_BLANK_PATTERN)
    assert not any(pattern.search(c) for c in whitespace)
    probes = [chr(c) for c in range(0x3100)] + ["\ufeff", "\ufffa", "\U0001f600"]
    alone_invisible = {"\u200c", "\u200d"}
    assert all(
        bool(pattern.search(c)) == bool(clean_text(c).strip()) and c not in alone_invisible
        for c in probes
        if c not in alone_invisible
    )
    assert not any(pattern.search(c) for c in alone_invisible)


def test_an_unknown_model_with_other_invalid_fields_is_invalid_request(client: TestClient) -> None:
    body = {"message": "hi", "model": "gpt-2", "currentWorkout": 3}
    error = assert_error(client.post("/agent/chat", json=body, headers=auth()), 422, "invalid_request")
    assert {d["field"] for d in error["details"]} == {"model", "currentWorkout"}
    non_string = client.post("/agent/chat", json={"message": "hi", "model": 4}, headers=auth())
    assert_error(non_string, 422, "invalid_request")


def test_unknown_fields_and_snake_case_names_are_ignored(client: TestClient, agent: ScriptedAgent) -> None:
    body = {"message": "hi", "session_id": "s-x", "extra": [1]}
    assert client.post("/agent/chat", json=body, headers=auth()).status_code == 200
    assert agent.calls[0]["session_id"] is None


def test_a_json_body_without_content_type_is_read_but_another_content_type_is_400(client: TestClient) -> None:
    raw = json.dumps({"message": "hi"}).encode()
    assert client.post("/agent/chat", content=raw, headers=auth()).status_code == 200
    text = client.post("/agent/chat", content=raw, headers={**auth(), "content-type": "text/plain"})
    assert_error(text, 400, "invalid_body")


@pytest.mark.parametrize("body", [b"[]", b'"x"', b""])
def test_a_settings_body_that_is_not_an_object_is_400(client: TestClient, body: bytes) -> None:
    response = client.put(
        "/user-settings", content=body, headers={**auth(), "content-type": "application/json"}
    )
    assert_error(response, 400, "invalid_body")


def test_405_allows_every_method_of_the_path(client: TestClient) -> None:
    response = client.put("/agent/sessions/s-1", headers=auth())
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "DELETE, GET"
    assert client.patch("/user-settings", headers=auth()).headers["allow"] == "GET, PUT"
    # a literal path wins over a template listed before it that matches it too
    assert client.options("/workouts/import", headers=auth()).headers["allow"] == "POST"
    assert client.options("/workouts/w-1", headers=auth()).headers["allow"] == "GET, PATCH"


def test_the_openapi_shows_the_limits_of_the_settings_the_app_was_built_with(app: FastAPI) -> None:
    message = app.openapi()["components"]["schemas"]["ChatRequest"]["properties"]["message"]
    assert (message["minLength"], message["maxLength"]) == (1, 100)


ERROR_CASES = [
    ("GET", "/agent/sessions", None, {}),
    ("POST", "/agent/chat", b'{"message": ', auth()),
    ("POST", "/agent/chat", json.dumps({"message": "x" * 101}).encode(), auth()),
    ("POST", "/agent/chat", json.dumps({"message": "hi", "currentWorkout": 1}).encode(), auth()),
    ("POST", "/agent/stream", json.dumps({"message": "hi", "model": "gpt-2"}).encode(), auth()),
    ("GET", "/agent/sessions?limit=0", None, auth()),
    ("GET", "/agent/sessions/nope/events", None, auth()),
    ("DELETE", "/agent/sessions/nope", None, auth()),
    ("GET", "/user-settings", None, auth()),
]


@pytest.mark.parametrize(("method", "url", "body", "headers"), ERROR_CASES)
def test_error_answers_are_documented_with_their_code_and_match_the_error_schema(
    app: FastAPI, client: TestClient, method: str, url: str, body: bytes | None, headers: dict[str, str]
) -> None:
    document = app.openapi()
    response = client.request(
        method, url, content=body, headers={**headers, "content-type": "application/json"}
    )
    operation = document["paths"][_template(document, url.split("?")[0])][method.lower()]
    documented = operation["responses"][str(response.status_code)]
    assert response.json()["error"]["code"] in documented["x-error-codes"]
    schema = documented["content"]["application/json"]["schema"]
    jsonschema.validate(response.json(), {**schema, "components": document["components"]})
    for name, header in documented.get("headers", {}).items():
        assert not header["required"] or name.lower() in response.headers


def _template(document: dict[str, Any], path: str) -> str:
    for template in document["paths"]:
        parts, wanted = template.split("/"), path.split("/")
        if len(parts) == len(wanted) and all(
            t == w or t.startswith("{") for t, w in zip(parts, wanted, strict=True)
        ):
            return template
    raise AssertionError(f"no documented path for {path}")
