"""Trust, over HTTP on the real adapters (DynamoDB on moto, embedded Postgres, the
offline model): auth that fails closed, no 5xx on bad input, nothing internal in the timeline, a
budget that answers 429 before any model call, and a stream that names its session first. Plus a
property: arbitrary JSON at every route is never a 5xx, always a JSON error, and never marks a
session `error`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx
import jwt
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.settings import LOCAL_JWT_SECRET, ApiSettings, ConfigurationError, Settings
from trainer.store.db import Database
from trainer.store.metrics import DailyMetricsStore
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.testing.agent_harness import RecordingPublisher

from tests.integration.conftest import RealStoresApp

WORKOUT = "Give me a quick chest workout"


def error_of(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/json"), response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] and body["error"]["message"], body
    return dict(body["error"])


# --- auth fails closed ------------------------------------------------------------------------------


async def test_a_deployed_api_verifies_no_token_with_the_public_default_secret(
    aws_settings: Settings,
    session_store: DynamoSessionStore,
    db: Database,
    user: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a JWKS URL, on the public default secret, the API function does not start; with a secret
    of its own, a token forged with the public one is 401 and its own tokens pass."""
    for name, value in aws_settings.model_dump(by_alias=True, exclude_none=True).items():
        monkeypatch.setenv(name, value.get_secret_value() if isinstance(value, SecretStr) else str(value))
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "trainer-dev-ApiFunction")
    monkeypatch.setenv("DATABASE_URL", "postgresql://trainer@db.internal/trainer")
    monkeypatch.delenv("TRAINER_JWKS_URL", raising=False)
    monkeypatch.setenv("TRAINER_JWT_SECRET", LOCAL_JWT_SECRET)
    with pytest.raises(ConfigurationError, match="TRAINER_JWT_SECRET is the public development default"):
        ApiSettings.from_environment()

    secret = "a-secret-of-this-deployment-0123456789abcdef"
    monkeypatch.setenv("TRAINER_JWT_SECRET", secret)
    own = ApiSettings.from_environment()
    assert own.deployed and not own.jwks_url
    container = await build_container(own, store=session_store, db=db, publisher=RecordingPublisher())
    app = create_app(container)
    forged = {"Authorization": f"Bearer {mint_dev_token(LOCAL_JWT_SECRET, user)}"}
    bearer = {"Authorization": f"Bearer {mint_dev_token(secret, user)}"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        refused = await client.get("/agent/sessions", headers=forged)
        assert refused.status_code == 401
        assert error_of(refused)["code"] == "invalid_signature"
        assert (await client.get("/agent/sessions", headers=bearer)).status_code == 200
    await container.aclose()


@pytest.mark.parametrize(
    ("claims", "code"),
    [
        ({"exp": "9999999999"}, "invalid_token"),
        ({"aud": "some-other-app"}, "invalid_audience"),
    ],
)
async def test_string_exp_and_an_unchecked_audience_are_401(
    client: httpx.AsyncClient, aws_settings: Settings, user: str, claims: dict[str, Any], code: str
) -> None:
    payload = {"sub": user, "iat": int(time.time()), "exp": int(time.time()) + 600, **claims}
    token = jwt.encode(payload, aws_settings.jwt_secret.get_secret_value(), algorithm="HS256")
    response = await client.get("/agent/sessions", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401 and error_of(response)["code"] == code


# --- no 5xx on bad input ----------------------------------------------------------------------------


BAD_WORKOUTS = [
    {"exercises": "abc"},
    [1, 2, 3],
    {"exercises": [{"exercise_name": "Row", "exercise_type": "reps", "order": 1, "reps": ["ten"]}]},
    {"exercises": [{"exercise_name": "Row", "exercise_type": "reps", "order": 1, "load_each": [{}]}]},
    {"exercises": [{"exercise_name": "Row", "exercise_type": "reps", "order": 1, "load_each": [1e309]}]},
]


@pytest.mark.parametrize("route", ["/agent/chat", "/agent/stream"])
@pytest.mark.parametrize("workout", BAD_WORKOUTS, ids=["string", "list", "reps", "load", "infinity"])
async def test_a_malformed_client_workout_is_422_before_any_turn(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    route: str,
    workout: Any,
    session_store: DynamoSessionStore,
) -> None:
    body = json.dumps({"message": "next?", "currentWorkout": workout}).replace("Infinity", "1e999")
    response = await client.post(route, content=body, headers={**auth, "Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    assert error_of(response)["code"] == "invalid_request"
    user = auth["Authorization"]
    assert (
        user
        and await session_store.list_sessions(
            jwt.decode(user[7:], options={"verify_signature": False})["sub"]
        )
        == []
    )


@pytest.mark.parametrize("route", ["/agent/chat", "/agent/stream", "/user-settings"])
async def test_deeply_nested_json_is_400(client: httpx.AsyncClient, auth: dict[str, str], route: str) -> None:
    body = '{"message": "hi", "currentWorkout": ' + "[" * 3000 + "]" * 3000 + "}"
    method = "PUT" if route == "/user-settings" else "POST"
    response = await client.request(
        method, route, content=body, headers={**auth, "Content-Type": "application/json"}
    )
    assert response.status_code == 400 and error_of(response)["code"] == "invalid_body"
    assert "nested" in error_of(response)["message"]


@pytest.mark.parametrize("route", ["/agent/chat", "/agent/stream"])
async def test_a_lone_surrogate_in_the_message_is_400_and_starts_no_turn(
    client: httpx.AsyncClient, auth: dict[str, str], route: str
) -> None:
    body = '{"message": "I did 3x10 \\ud800 bench"}'
    response = await client.post(route, content=body, headers={**auth, "Content-Type": "application/json"})
    assert response.status_code == 400 and error_of(response)["code"] == "invalid_body"
    assert (await client.get("/agent/sessions", headers=auth)).json()["sessions"] == []
    paired = '{"message": "great set \\ud83d\\udcaa"}'
    ok = await client.post(
        "/agent/chat", content=paired, headers={**auth, "Content-Type": "application/json"}
    )
    assert ok.status_code == 200


async def test_an_unreachable_session_store_is_503_with_retry_after(
    aws_settings: Settings, db: Database, auth: dict[str, str]
) -> None:
    gone = aws_settings.model_copy(update={"aws_endpoint_url": "http://127.0.0.1:9"})
    store = DynamoSessionStore(gone)
    container = await build_container(gone, store=store, db=db, publisher=RecordingPublisher())
    app = create_app(container)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        for method, route in (("GET", "/agent/sessions"), ("POST", "/agent/chat"), ("POST", "/agent/stream")):
            response = await client.request(method, route, json={"message": "hi"}, headers=auth)
            assert response.status_code == 503, (route, response.text)
            assert error_of(response)["code"] == "store_unavailable"
            assert int(response.headers["retry-after"]) > 0


# --- nothing internal leaves the server -------------------------------------------------------------


async def test_the_timeline_holds_no_traceback(
    client: httpx.AsyncClient, auth: dict[str, str], container: Container
) -> None:
    async def broken(_user_id: str) -> str:
        raise RuntimeError("db at /srv/trainer/store/db.py line 42 said no")

    container.agent.deps.user_data = broken  # type: ignore[attr-defined]
    turn = (await client.post("/agent/chat", json={"message": WORKOUT}, headers=auth)).json()
    events = (await client.get(f"/agent/sessions/{turn['sessionId']}/events?limit=500", headers=auth)).json()
    errors = [e["data"] for e in events["events"] if e["event_type"] == "error"]
    assert errors and all(set(e) == {"code", "message", "context"} for e in errors)
    text = json.dumps(events)
    assert "Traceback" not in text and "/srv/" not in text and ".py" not in text


# --- the budget, and the stream names its session; 429 before any model call ------------------------


async def test_the_stream_names_its_session_in_a_header_and_its_first_frame(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post("/agent/stream", json={"message": WORKOUT}, headers=auth)
    assert response.status_code == 200
    session_id = response.headers["x-session-id"]
    first = next(block for block in response.text.split("\n\n") if block.startswith("id:"))
    assert json.loads(first.split("data: ", 1)[1]) == {"type": "session", "sessionId": session_id}


@pytest.mark.parametrize("route", ["/agent/chat", "/agent/stream"])
async def test_a_user_over_the_daily_budget_gets_429_before_any_model_call(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    user: str,
    aws_settings: Settings,
    route: str,
    frozen_now: datetime,
) -> None:
    metrics = DailyMetricsStore(aws_settings)
    metrics.add(user, frozen_now.date(), turns_started=aws_settings.daily_turn_limit, cost_cents=1.0)
    response = await client.post(route, json={"message": WORKOUT}, headers=auth)
    assert response.status_code == 429 and error_of(response)["code"] == "budget_exceeded"
    assert 0 < int(response.headers["retry-after"]) <= 86_400
    assert (await client.get("/agent/sessions", headers=auth)).json()["sessions"] == []


# --- the property: arbitrary JSON at every route ----------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
BODIES = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"message": st.text(max_size=40)}, optional={"currentWorkout": JSON, "sessionId": JSON, "model": JSON}
    ),
)
ROUTES = [
    ("POST", "/agent/chat"),
    ("POST", "/agent/stream"),
    ("POST", "/agent/sessions"),
    ("GET", "/agent/sessions"),
    ("GET", "/agent/sessions/{id}"),
    ("GET", "/agent/sessions/{id}/events"),
    ("DELETE", "/agent/sessions/{id}"),
    ("GET", "/user-settings"),
    ("PUT", "/user-settings"),
    ("GET", "/exercises/history"),
    ("GET", "/exercises/distribution"),
    ("GET", "/health"),
]


@pytest.fixture
def fuzz_client(
    aws_settings: Settings, session_store: DynamoSessionStore, pg_url: str
) -> Iterator[TestClient]:
    """The app on this test's stores, served from the TestClient's own event loop."""
    app = RealStoresApp()
    app.use(aws_settings, session_store, pg_url)
    with TestClient(app) as client:  # type: ignore[arg-type]
        yield client


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    route=st.sampled_from(ROUTES),
    body=BODIES,
    path_id=st.text(max_size=40),
    query=st.dictionaries(st.sampled_from(["limit", "after", "days_back"]), st.text(max_size=6), max_size=2),
)
def test_arbitrary_json_is_never_a_5xx_and_never_marks_a_session_error(
    fuzz_client: TestClient,
    auth: dict[str, str],
    route: tuple[str, str],
    body: Any,
    path_id: str,
    query: dict[str, str],
) -> None:
    method, template = route
    path = template.replace("{id}", quote(path_id, safe="") or "x")
    response = fuzz_client.request(method, path, content=json.dumps(body), params=query, headers=auth)
    assert response.status_code < 500, (method, path, body, response.text)
    if response.status_code >= 400:
        error_of(response)  # type: ignore[arg-type]
        sessions = fuzz_client.get("/agent/sessions", headers=auth).json()["sessions"]
        assert all(s["status"] != "error" for s in sessions), (method, path, body)
