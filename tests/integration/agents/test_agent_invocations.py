"""The factory on embedded Postgres: every invocation lands in `agent_invocations` (a clean failure
after exhausted retries included, tokens and cost from the SDK path), and prompt versions: the repo's
file until the table has a row, then the latest row."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from trainer.agents import (
    AgentDefinition,
    AgentFailed,
    AgentRunDeps,
    Backends,
    PostgresInvocations,
    PromptStore,
    SubAgent,
    run_agent,
)
from trainer.container import build_backends
from trainer.offline.structured import OfflineStructured
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.migrate import apply_migrations
from trainer.store.prompt_files import read_prompt_files
from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.testing.echo_agents import ECHO_TEXT, echo_agents, echo_registry, write_prompts

KEY = "sk-invocations-test"


@pytest.fixture
def agent_name() -> str:
    return f"echo_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def server(agent_name: str) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(api_key=KEY, agents=echo_registry(*echo_agents(name=agent_name))) as running:
        yield running


async def test_exhausted_retries_are_a_clean_failure_recorded_with_its_errors(
    db: Database, server: FakeLLMServer, agent_name: str, make_user: Callable[..., str], tmp_path: Path
) -> None:
    agents = echo_agents(name=agent_name, max_retries=1)
    registry = echo_registry(*agents)
    settings = Settings(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=server.base_url)
    deps = AgentRunDeps(
        backends=build_backends(settings, registry),
        prompts=PromptStore(db, defaults=write_prompts(registry, tmp_path / "prompts"), ttl_s=0),
        invocations=PostgresInvocations(db),
        db=db,
    ).for_user(make_user())
    server.fail_next_structured_with_invalid = 2

    with pytest.raises(AgentFailed) as failed:
        await run_agent(agents[0], {"text": "bench"}, deps)

    (row,) = await PostgresInvocations(db).recent(agent=agent_name)
    assert str(row["id"]) == failed.value.invocation_id
    assert str(row["user_id"]) == deps.user_id
    assert row["status"] == "failed"
    assert (row["attempts"], row["model_calls"], row["prompt_version"]) == (2, 2, 0)
    assert (row["provider"], row["model"], row["prompt_id"]) == ("anthropic", "claude-haiku-5-5", agent_name)
    assert [e["attempt"] for e in row["validation_errors"]] == [1, 2]
    assert all(e["kind"] == "validation_error" for e in row["validation_errors"])
    assert "count: Field required" in row["validation_errors"][0]["errors"]
    assert row["error"] == "validation_error: text: Field required; count: Field required"
    assert row["input_tokens"] > 0 and row["output_tokens"] > 0
    assert row["cost_cents"] > Decimal(0)
    assert row["duration_ms"] >= 0


async def test_successful_runs_and_their_sub_agents_are_recorded(db: Database, tmp_path: Path) -> None:
    parent = f"parent_{uuid.uuid4().hex[:8]}"
    definition = AgentDefinition(
        name=parent, description="p", sub_agents=(SubAgent(ECHO_TEXT),), offline=ECHO_TEXT.offline
    )
    registry = echo_registry(definition, ECHO_TEXT)
    deps = AgentRunDeps(
        backends=Backends.single(OfflineStructured(registry)),
        prompts=PromptStore(db, defaults=write_prompts(registry, tmp_path / "prompts"), ttl_s=0),
        invocations=PostgresInvocations(db),
        db=db,
    )
    run = await run_agent(definition, "hi", deps)
    assert run.sub_outputs == {"echo_text": "echo: echo: hi"}
    (row,) = await PostgresInvocations(db).recent(agent=parent)
    assert row["status"] == "success" and row["attempts"] == 1 and row["provider"] == "offline"
    assert row["validation_errors"] == [] and row["error"] is None and row["user_id"] is None
    children = [
        r for r in await PostgresInvocations(db).recent(agent="echo_text") if r["parent_id"] == row["id"]
    ]
    assert len(children) == 1 and children[0]["status"] == "success"


async def test_a_newer_prompt_row_wins_over_the_file_default(
    db: Database, pg_url: str, agent_name: str, tmp_path: Path
) -> None:
    agents = echo_agents(name=agent_name)
    registry = echo_registry(*agents)
    seen: list[str] = []

    class Recording(OfflineStructured):
        async def generate(self, request):  # type: ignore[no-untyped-def]
            seen.append(request.system)
            return await super().generate(request)

    store = PromptStore(db, defaults=write_prompts(registry, tmp_path / "prompts"), ttl_s=0)
    deps = AgentRunDeps(
        backends=Backends.single(Recording(registry)),
        prompts=store,
        invocations=PostgresInvocations(db),
        db=db,
    )

    first = await run_agent(agents[0], {"text": "a"}, deps)
    assert (first.prompt_version, seen[-1]) == (0, f"You are the {agent_name} agent.\n")

    await asyncio.to_thread(apply_migrations, pg_url, {agent_name: "Seeded text."})
    await asyncio.to_thread(apply_migrations, pg_url, {agent_name: "Seeded text."})
    assert (await store.get(agent_name)).version == 1, "seeding the same text again adds no version"
    second = await run_agent(agents[0], {"text": "a"}, deps)
    assert (second.prompt_version, seen[-1]) == (1, "Seeded text.")

    assert await store.publish(agent_name, "Edited text.", note="tighter wording") == 2
    third = await run_agent(agents[0], {"text": "a"}, deps)
    assert (third.prompt_version, seen[-1]) == (2, "Edited text.")
    assert (await store.get(agent_name)).source == "edit"

    rows = await PostgresInvocations(db).recent(agent=agent_name)
    assert [r["prompt_version"] for r in rows] == [2, 1, 0]


async def test_cached_prompt_versions_expire(db: Database, agent_name: str, tmp_path: Path) -> None:
    registry = echo_registry(*echo_agents(name=agent_name))
    store = PromptStore(db, defaults=write_prompts(registry, tmp_path / "prompts"), ttl_s=3600)
    assert (await store.get(agent_name)).version == 0
    other = PromptStore(db, ttl_s=0)
    await other.publish(agent_name, "New text.")
    assert (await store.get(agent_name)).version == 0, "cached for the process"
    assert (await other.get(agent_name)).body == "New text."


async def test_the_migrations_seed_every_prompt_file(db: Database) -> None:
    store = PromptStore(db, ttl_s=0)
    files = read_prompt_files()
    assert files, "the program agents' prompt files ship in the package"
    for prompt_id, text in files.items():
        latest = await store.get(prompt_id)
        assert latest.version >= 1
        assert latest.source == "edit" or latest.body == text
