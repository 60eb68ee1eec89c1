"""A final call's reply on the real path: the anthropic SDK against the loopback fake, DynamoDB on moto,
embedded Postgres. The fake plays a model that marks its call final and writes a coaching note beside
it; the reply the phone streams is the result's own facts, in code's words and numbers, then the note
(docs/architecture.md#tools). A note's sentence that holds a digit never reaches the user: a number the
model wrote could contradict the facts above it.

Run with `-s` to see the three replies (a workout, a log, a statistic) as the phone shows them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.offline.model import OfflineAgentModel
from trainer.providers.ports import ModelRequest, ModelResponse, TextDeltaCallback
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer.tools.base import FINAL_ARGUMENT, NOTE_ARGUMENT
from trainer_dev.local.fake_llm import DemoPlanner, FakeLLMServer

NOTES = {
    "generate_workout": "Keep every rep smooth and end each set with a little left in the tank.",
    "log_completed_exercise": "Solid work. Next time, aim for 9 reps on the last set before adding weight.",
    "get_workout_statistics": "Consistency is the win here, so keep the same days next week.",
}
"""The note the playing model writes beside each final call; the log's second sentence holds a digit."""


class NotingModel:
    """The offline coach as the fake's policy, writing a note beside every call it marks final."""

    provider = "offline"

    def __init__(self) -> None:
        self.inner = OfflineAgentModel(DemoPlanner())

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        response = await self.inner.complete(request, on_text_delta)
        call = response.tool_call
        if call is None or not call.arguments.get(FINAL_ARGUMENT) or call.name not in NOTES:
            return response
        return replace(
            response, tool_call=replace(call, arguments={**call.arguments, NOTE_ARGUMENT: NOTES[call.name]})
        )


class NoBus:
    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        return None


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(NotingModel()) as server:
        yield server


@pytest.fixture
async def client(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database, fake_llm: FakeLLMServer
) -> AsyncIterator[httpx.AsyncClient]:
    settings = aws_settings.model_copy(
        update={
            "anthropic_api_key": SecretStr("sk-ant-fake"),
            "anthropic_base_url": fake_llm.base_url,
            "openai_api_key": SecretStr("sk-fake"),
            "openai_base_url": fake_llm.openai_base_url,
        }
    )
    container: Container = await build_container(settings, store=session_store, db=db, publisher=NoBus())
    transport = httpx.ASGITransport(app=create_app(container))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=120) as http:
        yield http
    await container.aclose()


@pytest.fixture
def headers(aws_settings: Settings, make_user: Callable[..., str]) -> dict[str, str]:
    token = mint_dev_token(aws_settings.jwt_secret.get_secret_value(), make_user())
    return {"Authorization": f"Bearer {token}"}


async def reply_to(
    client: httpx.AsyncClient, headers: dict[str, str], message: str, session_id: str | None
) -> tuple[str, str, list[str]]:
    """(the session, the reply as the phone assembles it from its deltas, the tools called)."""
    body: dict[str, Any] = {"message": message, **({"sessionId": session_id} if session_id else {})}
    text: list[str] = []
    tools: list[str] = []
    async with client.stream("POST", "/agent/stream", json=body, headers=headers) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            frame = json.loads(line[5:])
            if frame["type"] == "session":
                session_id = frame["sessionId"]
            elif frame["type"] == "message_delta":
                text.append(frame["data"]["text"])
            elif frame["type"] == "tool_start":
                tools.append(frame["tool"])
    assert session_id is not None
    return session_id, "".join(text), tools


async def test_a_final_reply_is_the_results_facts_then_the_models_note(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    _, workout, tools = await reply_to(client, headers, "Give me a 30 minute push workout", None)
    assert "generate_workout" in tools
    facts, _, note = workout.partition("\n\n")
    assert any(c.isdigit() for c in facts), "the workout's facts carry its numbers, from code"
    assert note == NOTES["generate_workout"]

    _, logged, tools = await reply_to(client, headers, "Log bench press 3x8 at 60 kg", None)
    assert "log_completed_exercise" in tools
    facts, _, note = logged.partition("\n\n")
    assert "60" in facts and "8" in facts
    assert note == "Solid work.", "the note's sentence with a digit is left out"

    _, stat, tools = await reply_to(client, headers, "How many workouts have I done this month?", None)
    assert "get_workout_statistics" in tools
    facts, _, note = stat.partition("\n\n")
    assert "1" in facts and note == NOTES["get_workout_statistics"]

    print("\n\n---\n".join(["", workout, logged, stat]))
