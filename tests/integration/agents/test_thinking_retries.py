"""Each agent's first answer rejected on each thinking model of the catalogue (Claude Haiku,
Sonnet and Opus 5.5), through the real anthropic SDK against the loopback fake: the fake thinks before
every answer (a signed thinking block) and refuses, as the API does, a follow-up whose thinking blocks
are altered or, in a tool loop, missing. The retry carries the rejected answer with its thinking block
unchanged, and the agent's second answer is used. The chat agent's first call, failed for arguments no
tool takes, goes back with its thinking block before its failed result."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from trainer.agents import AgentDefinition, AgentRunDeps, MemoryInvocations, PromptStore, run_agent
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_agent_registry, build_backends, build_container
from trainer.programs.agents import (
    FITNESS_PLAN,
    MICROCYCLE,
    WEEK_MESSAGES,
    WORKOUT_MESSAGE,
    WORKOUT_STRUCTURE,
    week_messages_input,
)
from trainer.programs.microcycle.week import build_week
from trainer.programs.models import MessageInput, PlanInputs, StructureInput, WeekInput
from trainer.programs.plan.finalize import build_plan
from trainer.providers.models import MODELS
from trainer.providers.ports import AGENT_HEADER
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.testing.agent_harness import RecordingPublisher

KEY = "sk-ant-thinking-retries"
THINKING_MODELS = sorted(model.id for model in MODELS.values() if model.thinks)
NOW = datetime(2026, 3, 1, 9, tzinfo=UTC)
GIVEN = PlanInputs(
    now=NOW,
    start_date=date(2026, 3, 2),
    weeks=8,
    training_days=["Monday", "Wednesday", "Friday"],
    session_minutes=45,
    experience="intermediate",
    category_goals={"Strength": 60.0, "Hypertrophy": 40.0},
    equipment=["bodyweight", "dumbbell", "barbell", "bench", "squat_rack"],
)
PLAN = build_plan(GIVEN)
WEEK = build_week(PLAN, 1, GIVEN)
INPUTS: dict[str, tuple[AgentDefinition, Any]] = {
    "fitness_plan": (FITNESS_PLAN, GIVEN),
    "microcycle": (MICROCYCLE, WeekInput(plan=PLAN, week_number=1, inputs=GIVEN)),
    "week_messages": (
        WEEK_MESSAGES,
        week_messages_input(WEEK, WeekInput(plan=PLAN, week_number=1, inputs=GIVEN)),
    ),
    "workout_message": (WORKOUT_MESSAGE, MessageInput(day=next(d for d in WEEK.days if d.workout))),
    "workout_structure": (WORKOUT_STRUCTURE, StructureInput(text="Bench press 4x8 @ 60kg\nPlank 3 x 45s")),
}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(api_key=KEY, agents=build_agent_registry()) as running:
        yield running


def test_the_catalogue_has_the_three_thinking_models() -> None:
    assert THINKING_MODELS == ["claude-haiku-5-5", "claude-opus-5-5", "claude-sonnet-5-5"]


@pytest.mark.parametrize("model", THINKING_MODELS)
@pytest.mark.parametrize("agent", sorted(INPUTS))
async def test_a_rejected_first_answer_is_retried_with_its_thinking(
    server: FakeLLMServer, model: str, agent: str
) -> None:
    definition, given = INPUTS[agent]
    settings = Settings(
        ANTHROPIC_API_KEY=KEY,
        ANTHROPIC_BASE_URL=server.base_url,
        TRAINER_MODEL=model,
        TRAINER_LIGHT_MODEL=model,
    )
    registry = build_agent_registry()
    deps = AgentRunDeps(
        backends=build_backends(settings, registry),
        prompts=PromptStore(None),
        invocations=MemoryInvocations(),
    )
    since = len(server.requests)
    server.fail_next_structured_with_invalid = 1

    run = await run_agent(definition, given, deps)

    assert run.attempts == 2 and run.model == model
    requests = [r.body for r in server.requests[since:] if r.headers.get(AGENT_HEADER) == agent]
    retry = next(
        body for body in requests if "Your previous output was rejected" in str(body["messages"][-1])
    )
    rejected = retry["messages"][-2]
    assert rejected["role"] == "assistant"
    thinking = rejected["content"][0]
    assert thinking["type"] == "thinking" and thinking["signature"], rejected["content"]


@pytest.fixture
async def chat(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database, server: FakeLLMServer
) -> AsyncIterator[Callable[[str], Awaitable[httpx.Response]]]:
    """POST /agent/chat for a new user, on the model given, the real stores and the fake."""
    containers: list[Container] = []

    async def send(model: str) -> httpx.Response:
        settings = aws_settings.model_copy(
            update={
                "anthropic_api_key": SecretStr(KEY),
                "anthropic_base_url": server.base_url,
                "model": model,
            }
        )
        container = await build_container(
            settings, store=session_store, db=db, publisher=RecordingPublisher()
        )
        containers.append(container)
        token = mint_dev_token(settings.jwt_secret.get_secret_value(), str(uuid.uuid4()))
        transport = httpx.ASGITransport(app=create_app(container))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=60) as http:
            return await http.post(
                "/agent/chat",
                json={"message": "Give me a quick chest workout"},
                headers={"Authorization": f"Bearer {token}"},
            )

    yield send
    for container in containers:
        await container.aclose()


@pytest.mark.parametrize("model", THINKING_MODELS)
async def test_the_chat_agents_rejected_first_call_is_repaired_with_its_thinking(
    server: FakeLLMServer, chat: Callable[[str], Awaitable[httpx.Response]], model: str
) -> None:
    """The chat agent's first call has arguments no tool takes: the call fails, and the repair request
    sends it back with the thinking block it came with (the fake answers 400 otherwise) before its
    failed result; the turn then completes."""
    since = len(server.anthropic_requests())
    server.break_next_tool_arguments = 1
    answered = await chat(model)
    assert answered.status_code == 200, answered.text
    assert answered.json()["status"] == "completed"
    chat_requests = [r.body for r in server.anthropic_requests()[since:] if AGENT_HEADER not in r.headers]
    repair = next(
        body
        for body in chat_requests
        if any(
            block.get("type") == "tool_use" and block.get("input") == {"_fake_invalid": True}
            for message in body["messages"]
            if message["role"] == "assistant"
            for block in message["content"]
        )
    )
    rejected_at = next(
        index
        for index, message in enumerate(repair["messages"])
        if message["role"] == "assistant" and message["content"][-1].get("input") == {"_fake_invalid": True}
    )
    assert repair["model"] == model
    thinking, call = repair["messages"][rejected_at]["content"]
    assert thinking["type"] == "thinking" and thinking["signature"] and call["type"] == "tool_use"
    (result,) = repair["messages"][rejected_at + 1]["content"][:1]
    assert result["type"] == "tool_result" and result["is_error"] is True
