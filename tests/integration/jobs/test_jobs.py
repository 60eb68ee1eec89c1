"""The checkpoint and cost jobs against DynamoDB (moto server), through the same handlers Lambda runs."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import uuid
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import pytest
from trainer.chat.checkpoint import render_checkpoint
from trainer.jobs import checkpoint, costs
from trainer.jobs.checkpoint import CheckpointDeps
from trainer.jobs.costs import CostDeps
from trainer.settings import Settings, get_settings
from trainer.store.metrics import DailyMetricsStore
from trainer.store.models import EventType, KnowledgeRef
from trainer.store.ports import LeaseHeld
from trainer.store.sessions import DynamoSessionStore, DynamoSessionTable
from trainer_dev.local.bus import LocalLambdaContext

ROOT = Path(__file__).resolve().parents[3]


def envelope(detail: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "TurnCompleted",
        "source": "trainer.agent",
        "account": "000000000000",
        "time": "2026-01-11T10:00:05Z",
        "region": "us-east-1",
        "resources": [],
        "detail": detail,
    }


def play_turn(store: DynamoSessionTable, session_id: str, *, message: str, responses: int) -> tuple[int, int]:
    """A turn's events as the agent writes them; returns (first_seq, last_seq)."""
    first = store.append_event(session_id, EventType.USER_MESSAGE, {"message": message})
    for i in range(responses):
        store.append_event(
            session_id,
            EventType.LLM_RESPONSE,
            {
                "raw_response": {},
                "tokens": {
                    "prompt": 500,
                    "completion": 100,
                    "cached": 4000,
                    "cache_write": 500,
                    "total": 5100,
                },
                "cost_cents": 0.25,
            },
        )
        store.append_event(
            session_id,
            EventType.TOOL_CALL,
            {"tool_name": "generate_workout", "arguments": {}, "call_id": f"c{i}"},
        )
        last = store.append_event(
            session_id,
            EventType.TOOL_RESULT,
            {
                "tool_name": "generate_workout",
                "success": True,
                "formatted": "5 exercises generated",
                "call_id": f"c{i}",
            },
        )
    return first.sequence_number, last.sequence_number


def turn_detail(
    session_id: str, user_id: str, span: tuple[int, int], *, tokens: int = 1000
) -> dict[str, Any]:
    return {
        "turn_id": str(uuid.uuid4()),
        "session_id": session_id,
        "user_id": user_id,
        "first_seq": span[0],
        "last_seq": span[1],
        "context_tokens_estimate": tokens,
        "model": "claude-haiku-4-5",
        "status": "completed",
        "usage": {},
        "cost_cents": 0.0,
    }


@pytest.fixture
def cost_deps(aws_settings: Settings, session_store: DynamoSessionStore) -> CostDeps:
    return CostDeps(
        store=session_store,
        metrics=DailyMetricsStore(aws_settings),
        idempotency=costs.build_idempotency_layer(aws_settings),
    )


def test_a_redelivered_turn_is_counted_once(cost_deps: CostDeps, session_store: DynamoSessionStore) -> None:
    session = session_store.table.create_session("user-costs")
    span = play_turn(session_store.table, session.id, message="chest day", responses=2)
    event = envelope(turn_detail(session.id, "user-costs", span))

    context = LocalLambdaContext(function_name="CostFunction")
    first = costs.handle_turn_completed(event, context, cost_deps)
    redelivery = json.loads(json.dumps(event)) | {"id": "another-delivery"}
    replay = costs.handle_turn_completed(redelivery, context, cost_deps)

    assert replay == first
    totals = session_store.table.load_session(session.id)
    assert (totals.prompt_tokens, totals.completion_tokens, totals.cached_tokens) == (2000, 200, 8000)
    assert totals.total_tokens == 10200
    assert totals.cache_write_tokens == 1000
    assert totals.total_cost_cents == pytest.approx(0.5)
    assert first["session_cache_hit_rate"] == pytest.approx(80.0)
    day = date.fromisoformat(first["day"])
    daily = cast(DailyMetricsStore, cost_deps.metrics).get("user-costs", day)
    assert daily["turns"] == 1
    assert daily["tokens"] == 10200
    assert daily["cost_cents"] == pytest.approx(0.5)


def test_each_turn_counts_and_totals_accumulate(
    cost_deps: CostDeps, session_store: DynamoSessionStore, frozen_now: datetime
) -> None:
    session = session_store.table.create_session("user-two-turns")
    for message in ("first", "second"):
        span = play_turn(session_store.table, session.id, message=message, responses=1)
        context = LocalLambdaContext(function_name="CostFunction")
        costs.handle_turn_completed(
            envelope(turn_detail(session.id, "user-two-turns", span)), context, cost_deps
        )
    totals = session_store.table.load_session(session.id)
    assert totals.total_tokens == 10200
    assert totals.total_cost_cents == pytest.approx(0.5)
    today = frozen_now.date()
    assert cast(DailyMetricsStore, cost_deps.metrics).get("user-two-turns", today)["turns"] == 2


def _long_session(store: DynamoSessionTable, user_id: str) -> str:
    session = store.create_session(user_id)
    store.append_event(session.id, EventType.KNOWLEDGE, {"source": "workout_history", "data": "..."})
    store.add_knowledge(session.id, [KnowledgeRef(source="workout_history", params={"days_back": 14})])
    for turn in range(6):
        play_turn(store, session.id, message=f"turn {turn}: another set please", responses=2)
    store.put_state(
        session.id,
        "current_workout",
        {
            "workout_id": "w1",
            "title": "Upper body",
            "exercises": [
                {"id": "ex_aaaaaa", "exercise_name": "Bench Press", "completed": True},
                {"id": "ex_bbbbbb", "exercise_name": "Rows", "completed": False},
            ],
        },
    )
    return session.id


def test_a_long_session_checkpoints_and_moves_its_context_start(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    session_id = _long_session(session_store.table, "user-long")
    last_seq = session_store.table.load_session(session_id).last_seq
    deps = CheckpointDeps(settings=aws_settings, store=session_store)
    tokens = int(aws_settings.context_window_tokens * aws_settings.checkpoint_threshold) + 1
    event = envelope(turn_detail(session_id, "user-long", (last_seq - 3, last_seq), tokens=tokens))

    result = checkpoint.handle_turn_completed(event, None, deps)

    assert result == {"session_id": session_id, "checkpointed": True, "sequence": last_seq + 1}
    session = session_store.table.load_session(session_id)
    assert session.context_start_sequence == last_seq + 1
    assert session.knowledge_in_context == []
    (written,) = session_store.table.read_events(session_id, after=last_seq).events
    assert written.event_type is EventType.CHECKPOINT
    assert written.data["events_summarized"] == f"1-{last_seq}"
    lines = written.data["events"].splitlines()
    assert lines[0] == "1. knowledge: workout_history"
    assert len(lines) == 1 + 6 * (1 + 2 * 2)
    assert written.data["current_state"]["workout_in_progress"] == "1/2 complete"
    assert "<current_state>" in render_checkpoint(written.data, sequence=written.sequence_number)

    assert checkpoint.handle_turn_completed(event, None, deps)["checkpointed"] is False
    assert session_store.table.load_session(session_id).last_seq == last_seq + 1


def test_checkpoint_refuses_while_a_turn_holds_the_lease(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    session_id = _long_session(session_store.table, "user-busy")
    last_seq = session_store.table.load_session(session_id).last_seq
    deps = CheckpointDeps(settings=aws_settings, store=session_store)
    event = envelope(turn_detail(session_id, "user-busy", (1, last_seq), tokens=10**6))
    session_store.table.acquire_lease(session_id, "turn:running", 60)

    with pytest.raises(LeaseHeld):
        checkpoint.handle_turn_completed(event, None, deps)
    assert session_store.table.load_session(session_id).last_seq == last_seq
    assert session_store.table.load_session(session_id).context_start_sequence == 0

    session_store.table.release_lease(session_id, "turn:running")
    assert checkpoint.handle_turn_completed(event, None, deps)["checkpointed"] is True
    session_store.table.acquire_lease(session_id, "turn:next", 60)


@pytest.fixture
def load_handler(
    aws_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str], ModuleType]]:
    """Imports functions/<name>/app.py the way Lambda does, with the environment pointing at moto."""
    environment = {
        "AWS_ENDPOINT_URL": aws_settings.aws_endpoint_url or "",
        "AWS_REGION": aws_settings.aws_region,
        "TRAINER_TABLE_NAME": aws_settings.table_name,
        "TRAINER_IDEMPOTENCY_TABLE_NAME": aws_settings.idempotency_table_name,
        "TRAINER_EVENT_BUS_NAME": aws_settings.event_bus_name,
    }
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(
            f"lambda_{name}_app", ROOT / "functions" / name / "app.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    yield load
    get_settings.cache_clear()


def _sample(name: str, session_id: str, user_id: str, span: tuple[int, int]) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((ROOT / "events" / name).read_text())
    event["detail"].update(session_id=session_id, user_id=user_id, first_seq=span[0], last_seq=span[1])
    return event


def test_lambda_handlers_accept_the_sample_events(
    load_handler: Callable[[str], ModuleType], session_store: DynamoSessionStore, aws_settings: Settings
) -> None:
    session_id = _long_session(session_store.table, "user-samples")
    last_seq = session_store.table.load_session(session_id).last_seq
    span = (last_seq - 6, last_seq)

    cost_event = _sample("costs-turn-completed.json", session_id, "user-samples", span)
    cost_result = load_handler("costs").handler(cost_event, LocalLambdaContext(function_name="CostFunction"))
    checkpoint_event = _sample("checkpoint-turn-completed.json", session_id, "user-samples", span)
    checkpoint_result = load_handler("checkpoint").handler(checkpoint_event, None)

    assert cost_result["llm_calls"] == 2
    assert session_store.table.load_session(session_id).total_tokens == 10200
    assert checkpoint_result == {"session_id": session_id, "checkpointed": True, "sequence": last_seq + 1}
    assert (
        DailyMetricsStore(aws_settings).get("user-samples", date.fromisoformat(cost_result["day"]))["turns"]
        == 1
    )


async def test_after_a_checkpoint_the_next_turns_context_starts_at_it(
    aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    from trainer_dev.testing.agent_harness import make_harness
    from trainer_dev.testing.scripted_model import idle

    session_id = _long_session(session_store.table, "user-next")
    last_seq = session_store.table.load_session(session_id).last_seq
    deps = CheckpointDeps(settings=aws_settings, store=session_store)
    tokens = int(aws_settings.context_window_tokens * aws_settings.checkpoint_threshold) + 1
    event = envelope(turn_detail(session_id, "user-next", (last_seq - 3, last_seq), tokens=tokens))
    assert (await asyncio.to_thread(checkpoint.handle_turn_completed, event, None, deps))["checkpointed"]

    harness = make_harness([idle()], store=cast(Any, session_store))
    await harness.loop.run_turn("user-next", "what now?", session_id=session_id)

    first = harness.model.requests[0].messages
    opening = first[0]["content"][0]["text"]
    assert opening.startswith("<checkpoint")
    assert f'events_summarized="1-{last_seq}"' in opening
    later_blocks = [json.dumps(block) for block in first[0]["content"][1:]]
    later_blocks += [json.dumps(message) for message in first[1:]]
    assert not any("another set please" in block for block in later_blocks)
    assert any("what now?" in block for block in later_blocks)
