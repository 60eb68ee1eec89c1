"""The HTTP contract, route by route, on the real adapters (DynamoDB on moto, embedded Postgres, the
agent loop on the offline model): every answer below is checked against what the OpenAPI document
the app serves says for its operation and status — the status is documented, the content type and
required headers are those documented, and the body validates against the documented schema (for
/agent/stream: every event's `id` and its `data` against `Frame`; the turn's last frames are
`turn_end` and `done`). Also: the committed openapi.json is the one `scripts/export_openapi.py` writes
and a valid OpenAPI 3.1 document."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import OpenAPIV31SpecValidator, validate
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.repositories import goals, history
from trainer.store.sessions import DynamoSessionStore

from scripts.export_openapi import OPENAPI_PATH, openapi_text

WORKOUT_REQUEST = "Give me a quick chest workout"


class Contract:
    """Checks real answers against the app's own OpenAPI document."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.checked: set[tuple[str, str, int]] = set()

    def operation(self, method: str, path: str, status: int = 200) -> tuple[str, dict[str, Any]]:
        """The operation documented for `method` on `path`; for a 405 (a method the path does not
        have), each of the path's operations, which must all document it."""
        for template, item in self.document["paths"].items():
            pattern = "^" + re.sub(r"\\{[^/]+\\}", "[^/]+", re.escape(template)) + "$"
            if not re.match(pattern, path):
                continue
            if method.lower() in item:
                return template, item[method.lower()]
            if status == 405:
                operations = list(item.values())
                assert all(op["responses"]["405"] == operations[0]["responses"]["405"] for op in operations)
                return template, operations[0]
        raise AssertionError(f"{method} {path} is not documented")

    def check(self, response: httpx.Response) -> Any:
        """The parsed body (events for a stream), once it is shown to match the documentation."""
        request = response.request
        template, operation = self.operation(request.method, request.url.path, response.status_code)
        status = str(response.status_code)
        assert status in operation["responses"], f"{request.method} {template} answered undocumented {status}"
        documented = operation["responses"][status]
        self.checked.add((request.method, template, response.status_code))
        for name, header in documented.get("headers", {}).items():
            if header.get("required"):
                assert name.lower() in response.headers, f"{status} of {template} lacks {name}"
                self._validate(header["schema"], _header_value(response.headers[name], header["schema"]))
        content = documented.get("content")
        if not content:
            assert response.content == b"", f"{status} of {template} documents no body"
            return None
        media_type = response.headers["content-type"].split(";")[0].strip()
        assert media_type in content, f"{template} answered {media_type}, documented {list(content)}"
        if media_type == "text/event-stream":
            return self._check_events(content[media_type], response.text)
        body = response.json()
        self._validate(content[media_type]["schema"], body)
        if "x-error-codes" in documented:
            assert body["error"]["code"] in documented["x-error-codes"]
        return body

    def _check_events(self, media: dict[str, Any], text: str) -> list[dict[str, Any]]:
        """Each event against the schema of one event, its `data` JSON against `Frame`."""
        frames = []
        last_id: int | None = None
        for block in text.split("\n\n"):
            lines = [line for line in block.split("\n") if line and not line.startswith(":")]
            if not lines:
                continue
            event = dict(line.split(": ", 1) for line in lines)
            self._validate(media["schema"], event)
            frame = json.loads(event["data"])
            self._validate(media["schema"]["properties"]["data"]["contentSchema"], frame)
            assert media["x-sse-data"] == media["schema"]["properties"]["data"]["contentSchema"]
            # previews and `done` have no id of their own; every other frame a new, higher one
            if frame["type"] in ("message_delta", "done"):
                assert set(event) == {"data"}, event
            else:
                assert set(event) == {"id", "data"} and (last_id is None or int(event["id"]) > last_id), event
                last_id = int(event["id"])
            frames.append({"id": last_id, **frame})
        assert [f["type"] for f in frames[-2:]] == ["turn_end", "done"], frames[-3:]
        return frames

    def _validate(self, schema: dict[str, Any], instance: Any) -> None:
        root = {**schema, "components": self.document["components"]}
        validator = Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)
        errors = sorted(validator.iter_errors(instance), key=str)
        assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def _header_value(value: str, schema: dict[str, Any]) -> Any:
    return int(value) if schema.get("type") == "integer" else value


@pytest.fixture
async def contract(client: httpx.AsyncClient) -> Contract:
    return Contract((await client.get("/openapi.json")).json())


async def chat_turn(client: httpx.AsyncClient, auth: dict[str, str], **body: Any) -> httpx.Response:
    return await client.post("/agent/chat", json={"message": WORKOUT_REQUEST, **body}, headers=auth)


# --- one test per route ---------------------------------------------------------------------------


async def test_health(client: httpx.AsyncClient, contract: Contract) -> None:
    body = contract.check(await client.get("/health"))
    assert body["status"] == "ok" and body["stores"] == {"sessions": True, "database": True}


async def test_chat(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    body = contract.check(await chat_turn(client, auth))
    assert body["status"] == "completed" and body["actions"]
    assert body["response"]["messages"]


async def test_stream(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    response = await client.post("/agent/stream", json={"message": WORKOUT_REQUEST}, headers=auth)
    frames = contract.check(response)
    assert frames[-1]["type"] == "done" and frames[-1]["sessionId"]
    assert frames[-2] == {
        **frames[-2],
        "type": "turn_end",
        "outcome": "replied",
        "sessionId": frames[-1]["sessionId"],
    }
    assert [f["id"] for f in frames] == sorted(f["id"] for f in frames)
    assert {"status", "message_delta", "tool_start", "tool_result"} <= {f["type"] for f in frames}


async def test_session_frames(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    response = await client.post("/agent/stream", json={"message": WORKOUT_REQUEST}, headers=auth)
    streamed = [f for f in contract.check(response) if f["type"] not in ("message_delta", "done")]
    session_id = streamed[0]["sessionId"]
    body = contract.check(await client.get(f"/agent/sessions/{session_id}/frames?after=0", headers=auth))
    assert body["turnEnded"] is True
    assert [{"id": f["id"], **f["frame"]} for f in body["frames"]] == streamed


async def test_create_session(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    body = contract.check(await client.post("/agent/sessions", headers=auth))
    assert body["session"]["status"] == "active"


async def test_list_sessions(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    await chat_turn(client, auth)
    body = contract.check(await client.get("/agent/sessions?limit=5", headers=auth))
    assert len(body["sessions"]) == 1 and body["sessions"][0]["knowledge_in_context"]


async def test_get_session(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    session_id = (await chat_turn(client, auth)).json()["sessionId"]
    body = contract.check(await client.get(f"/agent/sessions/{session_id}", headers=auth))
    assert body["session"]["id"] == session_id
    assert {e["event_type"] for e in body["recentActions"]} >= {"user_message", "tool_call", "tool_result"}


async def test_list_events(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    session_id = (await chat_turn(client, auth)).json()["sessionId"]
    first = contract.check(await client.get(f"/agent/sessions/{session_id}/events?limit=2", headers=auth))
    assert len(first["events"]) == 2 and first["nextAfter"] == 2
    rest = contract.check(
        await client.get(f"/agent/sessions/{session_id}/events?after=2&limit=500", headers=auth)
    )
    assert rest["nextAfter"] is None and rest["events"][0]["sequence_number"] == 3


async def test_delete_session(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    session_id = (await client.post("/agent/sessions", headers=auth)).json()["session"]["id"]
    assert contract.check(await client.delete(f"/agent/sessions/{session_id}", headers=auth)) is None
    gone = contract.check(await client.get(f"/agent/sessions/{session_id}", headers=auth))
    assert gone["error"]["code"] == "session_not_found"


async def test_get_user_settings(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    body = contract.check(await client.get("/user-settings", headers=auth))
    assert body["settings"] == {
        "weight_unit": "kg",
        "distance_unit": "km",
        "timezone": "UTC",
        "preferred_days": [],
    }


async def test_put_user_settings(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]) -> None:
    update = {"weight_unit": "lbs", "timezone": "Europe/Berlin", "preferred_days": ["fri", "MONDAY"]}
    body = contract.check(await client.put("/user-settings", json=update, headers=auth))
    assert body["settings"]["preferred_days"] == ["Monday", "Friday"]
    unknown_zone = await client.put("/user-settings", json={"timezone": "Mars/Olympus"}, headers=auth)
    assert contract.check(unknown_zone)["error"]["code"] == "invalid_settings"
    bad_day = await client.put("/user-settings", json={"preferred_days": ["Funday"]}, headers=auth)
    assert contract.check(bad_day)["error"]["code"] == "invalid_request"


async def test_exercise_history(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], db: Database, user: str
) -> None:
    await log_history(db, user)
    body = contract.check(await client.get("/exercises/history?days_back=30&limit=10", headers=auth))
    assert [e["exercise_name"] for e in body["exercises"]] == ["Plank", "Bench Press"]
    assert (body["daysBack"], body["limit"]) == (30, 10)


async def test_exercise_distribution(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], db: Database, user: str
) -> None:
    async with db.transaction() as conn:
        await goals.set_category_goals(conn, user, [{"category": "Strength", "percentage": 100}])
        await goals.set_muscle_goals(conn, user, {"Chest": 60, "Abs": 40})
    await log_history(db, user)
    body = contract.check(await client.get("/exercises/distribution", headers=auth))
    assert body["loggedCount"] == 2
    assert {row["name"] for row in body["muscle"]} >= {"Chest", "Abs"}


async def log_history(db: Database, user: str) -> None:
    now = datetime.now(UTC)
    async with db.transaction() as conn:
        await history.log_exercises(
            conn,
            user,
            [
                {
                    "exercise_name": "Bench Press",
                    "exercise_type": "reps",
                    "sets": 3,
                    "reps": [10, 8, 8],
                    "load_each": [60, 62.5, 62.5],
                    "load_unit": "kg",
                    "rpe": 8,
                    "muscles": [{"muscle": "Chest", "share": 0.7}, "Triceps"],
                    "goals": ["Strength"],
                    "performed_at": (now - timedelta(days=2)).isoformat(),
                },
                {
                    "exercise_name": "Plank",
                    "exercise_type": "hold",
                    "sets": 2,
                    "hold_sec": [45, 60],
                    "muscles": ["Abs"],
                    "notes": "felt solid",
                    "performed_at": (now - timedelta(days=1)).isoformat(),
                },
            ],
        )


# --- documented errors on the real adapters ---------------------------------------------------------


async def test_authenticated_routes_answer_a_documented_401_with_its_challenge(
    client: httpx.AsyncClient, contract: Contract
) -> None:
    for path, item in contract.document["paths"].items():
        for method, operation in item.items():
            if not operation.get("security"):
                continue
            url = path.replace("{session_id}", "s-1")
            response = await client.request(method.upper(), url, json={"message": "hi"})
            assert contract.check(response)["error"]["code"] == "missing_token"
            assert response.headers["www-authenticate"] == "Bearer"


async def test_body_errors_are_documented(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], aws_settings: Settings
) -> None:
    too_long = {"message": "x" * (aws_settings.max_message_chars + 1)}
    cases: list[tuple[str, Any, str]] = [
        ("/agent/chat", {"message": "  "}, "missing_message"),
        ("/agent/stream", ["hi"], "invalid_body"),
        ("/agent/chat", too_long, "message_too_long"),
        ("/agent/stream", too_long, "message_too_long"),
        ("/agent/stream", {"message": "hi", "model": "gpt-2"}, "unknown_model"),
        ("/agent/chat", {"message": "hi", "currentWorkout": []}, "invalid_request"),
        ("/agent/chat", {"message": "hi", "sessionId": "no-such-session"}, "session_not_found"),
    ]
    for path, body, code in cases:
        answer = contract.check(await client.post(path, json=body, headers=auth))
        assert answer["error"]["code"] == code, (path, body)
    malformed = await client.post(
        "/agent/chat", content=b"{", headers={**auth, "content-type": "application/json"}
    )
    assert contract.check(malformed)["error"]["code"] == "malformed_json"
    bad_query = await client.get("/agent/sessions?limit=0", headers=auth)
    assert contract.check(bad_query)["error"]["code"] == "invalid_request"


async def test_a_turn_on_a_leased_session_is_a_documented_409(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], session_store: DynamoSessionStore
) -> None:
    session_id = (await client.post("/agent/sessions", headers=auth)).json()["session"]["id"]
    await session_store.acquire_lease(session_id, "checkpoint-job", 60)
    try:
        for path in ("/agent/chat", "/agent/stream"):
            response = await client.post(path, json={"message": "hi", "sessionId": session_id}, headers=auth)
            assert contract.check(response)["error"]["code"] == "turn_in_progress"
        deleted = await client.delete(f"/agent/sessions/{session_id}", headers=auth)
        assert contract.check(deleted)["error"]["code"] == "turn_in_progress"
    finally:
        await session_store.release_lease(session_id, "checkpoint-job")


# --- the committed document ---------------------------------------------------------------------


def test_committed_openapi_json_is_a_valid_openapi_3_1_document() -> None:
    document = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    assert document["openapi"].startswith("3.1.")
    validate(document, cls=OpenAPIV31SpecValidator)
    assert "itemSchema" not in OPENAPI_PATH.read_text(encoding="utf-8"), "itemSchema is OpenAPI 3.2"


async def test_a_wrong_method_is_a_documented_405_with_allow(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]
) -> None:
    for method, path in (("PATCH", "/agent/sessions"), ("GET", "/agent/stream"), ("POST", "/health")):
        response = await client.request(method, path, headers=auth)
        assert contract.check(response)["error"]["code"] == "method_not_allowed"
        assert response.headers["allow"]


def test_committed_openapi_json_is_current() -> None:
    committed = OPENAPI_PATH.read_text(encoding="utf-8") if OPENAPI_PATH.exists() else ""
    assert committed == openapi_text(), (
        f"{OPENAPI_PATH.name} is stale: regenerate it with `.venv/bin/python scripts/export_openapi.py` "
        "and commit the result"
    )
