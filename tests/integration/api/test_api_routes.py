"""The API on the real adapters: DynamoDB (moto), embedded Postgres, the agent loop on the offline
model, and a JWKS served over HTTP on 127.0.0.1. Requests go through httpx's ASGI transport."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore

ISSUER = "https://cognito-idp.local/pool"
AUDIENCE = "trainer-mobile"


def bearer(settings: Settings, user_id: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user_id)}"}


async def test_sessions_on_dynamodb_are_scoped_to_their_user(
    client: httpx.AsyncClient, aws_settings: Settings, make_user: Callable[..., str]
) -> None:
    alice, bob = make_user(), make_user()
    created = await client.post("/agent/sessions", headers=bearer(aws_settings, alice))
    assert created.status_code == 201
    session_id = created.json()["session"]["id"]
    listed = await client.get("/agent/sessions?limit=5", headers=bearer(aws_settings, alice))
    assert [s["id"] for s in listed.json()["sessions"]] == [session_id]
    assert (await client.get("/agent/sessions", headers=bearer(aws_settings, bob))).json()["sessions"] == []
    for path in (f"/agent/sessions/{session_id}", f"/agent/sessions/{session_id}/events"):
        response = await client.get(path, headers=bearer(aws_settings, bob))
        assert response.json()["error"]["code"] == "session_not_found"
    assert (
        await client.delete(f"/agent/sessions/{session_id}", headers=bearer(aws_settings, bob))
    ).status_code == 404
    assert (
        await client.delete(f"/agent/sessions/{session_id}", headers=bearer(aws_settings, alice))
    ).status_code == 204
    assert (
        await client.get(f"/agent/sessions/{session_id}", headers=bearer(aws_settings, alice))
    ).status_code == 404


async def test_chat_turn_persists_events_and_publishes_turn_completed(
    client: httpx.AsyncClient, container: Container, aws_settings: Settings, make_user: Callable[..., str]
) -> None:
    user = make_user()
    response = await client.post(
        "/agent/chat", json={"message": "Give me a quick chest workout"}, headers=bearer(aws_settings, user)
    )
    assert response.status_code == 200, response.text
    body = response.json()
    session_id = body["sessionId"]
    assert body["iterations"] >= 1 and body["actions"]
    events = (
        await client.get(f"/agent/sessions/{session_id}/events", headers=bearer(aws_settings, user))
    ).json()
    types = [e["event_type"] for e in events["events"]]
    assert types[0] == "user_message" and "llm_response" in types and "tool_call" in types
    published = container.publisher.published
    assert [(kind, detail["session_id"]) for kind, detail in published] == [("TurnCompleted", session_id)]


async def test_turn_on_a_leased_session_is_409(
    client: httpx.AsyncClient,
    session_store: DynamoSessionStore,
    aws_settings: Settings,
    make_user: Callable[..., str],
) -> None:
    user = make_user()
    session = await session_store.create_session(user)
    await session_store.acquire_lease(session.id, "checkpoint-job", 60)
    try:
        body = {"message": "hi", "sessionId": session.id}
        for path in ("/agent/chat", "/agent/stream"):
            response = await client.post(path, json=body, headers=bearer(aws_settings, user))
            assert response.status_code == 409
            assert response.json()["error"]["code"] == "turn_in_progress"
        deleted = await client.delete(f"/agent/sessions/{session.id}", headers=bearer(aws_settings, user))
        assert deleted.status_code == 409
        assert (await session_store.get_session(user, session.id)).id == session.id
    finally:
        await session_store.release_lease(session.id, "checkpoint-job")


async def test_user_settings_history_and_distribution_on_postgres(
    client: httpx.AsyncClient, aws_settings: Settings, make_user: Callable[..., str]
) -> None:
    user = make_user()
    headers = bearer(aws_settings, user)
    updated = await client.put(
        "/user-settings", json={"weight_unit": "lbs", "distance_unit": "mi"}, headers=headers
    )
    assert updated.status_code == 200
    settings = (await client.get("/user-settings", headers=headers)).json()["settings"]
    assert (settings["weight_unit"], settings["distance_unit"]) == ("lbs", "mi")
    for zone in ("Mars/Olympus", "localtime", "posixrules", "Factory", "posix/Europe/Berlin", "right/UTC"):
        bad = await client.put("/user-settings", json={"timezone": zone}, headers=headers)
        assert (bad.status_code, bad.json()["error"]["code"]) == (422, "invalid_settings"), zone
    for zone in ("Europe/Berlin", "America/Argentina/Cordoba", "UTC"):
        good = await client.put("/user-settings", json={"timezone": zone}, headers=headers)
        assert good.json()["settings"]["timezone"] == zone
    assert (await client.get("/exercises/history", headers=headers)).json()["exercises"] == []
    distribution = (await client.get("/exercises/distribution", headers=headers)).json()
    assert distribution["loggedCount"] == 0


async def test_settings_of_a_user_without_rows_are_created_on_first_put(
    client: httpx.AsyncClient, aws_settings: Settings
) -> None:
    newcomer = "7d1c2a4e-3b5f-4c6d-8e9f-0a1b2c3d4e5f"
    headers = bearer(aws_settings, newcomer)
    assert (await client.get("/user-settings", headers=headers)).json()["settings"]["weight_unit"] == "kg"
    assert (
        await client.put("/user-settings", json={"weight_unit": "lbs"}, headers=headers)
    ).status_code == 200
    assert (await client.get("/user-settings", headers=headers)).json()["settings"]["weight_unit"] == "lbs"


# --- JWKS fetched over HTTP ---------------------------------------------------------------------

SIGNING_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture
def jwks_url() -> Iterator[str]:
    jwk = {
        **json.loads(RSAAlgorithm.to_jwk(SIGNING_KEY.public_key())),
        "kid": "k1",
        "alg": "RS256",
        "use": "sig",
    }
    payload = json.dumps({"keys": [jwk]}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/.well-known/jwks.json"
    finally:
        server.shutdown()
        server.server_close()


def rs256(user_id: str, **claims: Any) -> str:
    now = int(time.time())
    body = {"sub": user_id, "iat": now, "exp": now + 300, "iss": ISSUER, "aud": AUDIENCE, **claims}
    return jwt.encode(body, SIGNING_KEY, algorithm="RS256", headers={"kid": "k1"})


async def test_jwks_tokens_over_http(
    container: Container, jwks_url: str, make_user: Callable[..., str]
) -> None:
    settings = container.settings.model_copy(
        update={"jwks_url": jwks_url, "jwt_issuer": ISSUER, "jwt_audience": AUDIENCE}
    )
    jwks_container = replace(container, settings=settings, closers=[])
    transport = httpx.ASGITransport(app=create_app(jwks_container))
    user = make_user()
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        ok = await http.get("/agent/sessions", headers={"Authorization": f"Bearer {rs256(user)}"})
        assert ok.status_code == 200
        wrong_aud = await http.get(
            "/agent/sessions", headers={"Authorization": f"Bearer {rs256(user, aud='x')}"}
        )
        assert (wrong_aud.status_code, wrong_aud.json()["error"]["code"]) == (401, "invalid_audience")
        local = mint_dev_token(settings.jwt_secret.get_secret_value(), user, issuer=ISSUER, audience=AUDIENCE)
        hs = await http.get("/agent/sessions", headers={"Authorization": f"Bearer {local}"})
        assert hs.status_code == 401


async def test_unreachable_jwks_is_503_not_401(container: Container) -> None:
    settings = container.settings.model_copy(update={"jwks_url": "http://127.0.0.1:9/jwks.json"})
    offline = replace(container, settings=settings, closers=[])
    transport = httpx.ASGITransport(app=create_app(offline))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        token = rs256("7d1c2a4e-3b5f-4c6d-8e9f-0a1b2c3d4e5f")
        response = await http.get("/agent/sessions", headers={"Authorization": f"Bearer {token}"})
    assert (response.status_code, response.json()["error"]["code"]) == (503, "auth_unavailable")


async def test_a_first_time_users_turn_can_write_domain_data(
    client: httpx.AsyncClient, aws_settings: Settings, db: Database
) -> None:
    newcomer = str(uuid.uuid4())
    response = await client.post(
        "/agent/chat", json={"message": "I hate burpees"}, headers=bearer(aws_settings, newcomer)
    )
    assert response.status_code == 200, response.text
    calls = {a["tool"]: a for a in response.json()["actions"]}
    assert calls["set_preference"]["result"]["success"] is True
    async with db.connection() as conn:
        rows = await (
            await conn.execute("SELECT description FROM preferences WHERE user_id = %s", (newcomer,))
        ).fetchall()
    assert len(rows) == 1 and "burpee" in rows[0]["description"].lower()
