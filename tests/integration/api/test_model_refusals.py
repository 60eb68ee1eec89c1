"""A model refusal is an answer (docs/api.md#refusals), on the real adapters: the chat agent on the real
anthropic SDK against the loopback fake, which answers the next request with a refusal (HTTP 200,
stop_reason `refusal`). Both agent routes answer 200: `/agent/chat` with `outcome: refused` and the reply
saying the trainer can't help, `/agent/stream` with that reply and `turn_end` `refused`; neither sends an
error, and the session is ready for the next turn."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.chat.results import MODEL_REFUSED
from trainer.container import build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.testing.agent_harness import RecordingPublisher

KEY = "sk-ant-refusals"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(api_key=KEY) as server:
        yield server


@pytest.fixture
async def client(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database, fake_llm: FakeLLMServer
) -> AsyncIterator[httpx.AsyncClient]:
    settings = aws_settings.model_copy(
        update={"anthropic_api_key": SecretStr(KEY), "anthropic_base_url": fake_llm.base_url}
    )
    container = await build_container(settings, store=session_store, db=db, publisher=RecordingPublisher())
    app = create_app(container)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=60) as http:
        yield http
    await app.state.container_provider.turns.wait(30)
    await container.aclose()


@pytest.fixture
def headers(aws_settings: Settings, make_user: Callable[..., str]) -> dict[str, str]:
    token = mint_dev_token(aws_settings.jwt_secret.get_secret_value(), make_user())
    return {"Authorization": f"Bearer {token}"}


def sse_frames(body: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data: ") :])
        for block in body.split("\n\n")
        for line in block.splitlines()
        if line.startswith("data: ")
    ]


async def test_a_refusal_on_the_chat_route_is_a_200_answer_saying_so(
    client: httpx.AsyncClient, fake_llm: FakeLLMServer, headers: dict[str, str]
) -> None:
    fake_llm.refuse_next = 1
    answered = await client.post("/agent/chat", json={"message": "Help me hurt someone"}, headers=headers)
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert (body["status"], body["outcome"]) == ("completed", "refused")
    assert body["response"]["messages"] == [MODEL_REFUSED]
    session = await client.get(f"/agent/sessions/{body['sessionId']}", headers=headers)
    assert session.json()["session"]["status"] == "completed"

    again = await client.post(
        "/agent/chat", json={"message": "A push workout", "sessionId": body["sessionId"]}, headers=headers
    )
    assert again.status_code == 200 and again.json()["outcome"] in ("replied", "asked"), again.text


async def test_a_refusal_on_the_stream_is_a_reply_and_turn_end_refused(
    client: httpx.AsyncClient, fake_llm: FakeLLMServer, headers: dict[str, str]
) -> None:
    fake_llm.refuse_next = 1
    answered = await client.post("/agent/stream", json={"message": "Help me hurt someone"}, headers=headers)
    assert answered.status_code == 200, answered.text
    frames = sse_frames(answered.text)
    types = [f["type"] for f in frames]
    assert "error" not in types, frames
    assert types[-2:] == ["turn_end", "done"] and frames[-2]["outcome"] == "refused"
    (reply,) = [f for f in frames if f["type"] == "tool_result" and f["tool"] == "message_notify_user"]
    assert reply["data"]["message"] == MODEL_REFUSED
