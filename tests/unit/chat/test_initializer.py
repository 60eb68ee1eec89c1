"""The initializer (docs/architecture.md#knowledge-the-initializer-and-the-data-sources) with a fake selector
and a fake source fetcher."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from trainer.chat.initializer import initialize_context, is_covered
from trainer.frames import Frame, frame_json
from trainer.store.models import EventType, KnowledgeRef
from trainer_dev.testing.agent_harness import USER, FakeFetcher, FakeSelector, make_harness, selection
from trainer_dev.testing.memory_store import InMemorySessionStore
from trainer_dev.testing.scripted_model import call


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    async def __call__(self, frame: Frame) -> None:
        self.events.append(frame_json(frame))


async def run(
    selector: FakeSelector,
    fetcher: FakeFetcher | None = None,
    store: InMemorySessionStore | None = None,
    existing: list[KnowledgeRef] | None = None,
) -> tuple[Any, InMemorySessionStore, str, Recorder]:
    store = store or InMemorySessionStore()
    session = await store.create_session(USER)
    if existing:
        await store.add_knowledge(session.id, existing)
        session = await store.load_session(session.id)
    emit = Recorder()
    outcome = await initialize_context(
        store, session, "give me a workout", selector, fetcher or FakeFetcher(), emit
    )
    return outcome, store, session.id, emit


async def test_receives_the_user_message_and_the_list_of_already_loaded_knowledge_sources() -> None:
    selector = FakeSelector()
    await run(selector, existing=[KnowledgeRef(source="workout_history", params={"days_back": 14})])
    assert selector.seen == [
        ("give me a workout", [{"source": "workout_history", "params": {"days_back": 14}}])
    ]


async def test_append_knowledge_selections_with_reasons_drive_the_fetch() -> None:
    fetcher = FakeFetcher()
    selector = FakeSelector(
        [selection("category_goals"), selection("workout_history", "expand_range", days_back=30)]
    )
    outcome, *_ = await run(selector, fetcher)
    assert fetcher.calls == [[("category_goals", {}), ("workout_history", {"days_back": 30})]]
    assert outcome.reasoning == "test"


async def test_fetches_selected_data_sources_in_parallel() -> None:
    fetcher = FakeFetcher(delay=0.2)
    selector = FakeSelector([selection(s) for s in ("category_goals", "muscle_goals", "active_preferences")])
    started = asyncio.get_running_loop().time()
    await run(selector, fetcher)
    assert asyncio.get_running_loop().time() - started < 0.4
    assert len(fetcher.calls) == 1 and len(fetcher.calls[0]) == 3


async def test_logs_each_fetched_source_as_a_knowledge_event() -> None:
    selector = FakeSelector([selection("category_goals"), selection("workout_history", days_back=14)])
    outcome, store, session_id, _ = await run(selector)
    knowledge = [e for e in store.all_events(session_id) if e.event_type is EventType.KNOWLEDGE]
    assert [e.data for e in knowledge] == [
        {
            "source": "category_goals",
            "params": {},
            "data": "<category_goals>data</category_goals>",
            "budget": {"tokens": 10, "limit": 1500, "full_tokens": 10, "left_out": 0},
        },
        {
            "source": "workout_history",
            "params": {"days_back": 14},
            "data": "<workout_history>data</workout_history>",
            "budget": {"tokens": 10, "limit": 2000, "full_tokens": 10, "left_out": 0},
        },
    ]
    assert [e.sequence_number for e in outcome.events] == [e.sequence_number for e in knowledge]
    refs = (await store.load_session(session_id)).knowledge_in_context
    assert [(r.source, r.params) for r in refs] == [
        ("category_goals", {}),
        ("workout_history", {"days_back": 14}),
    ]


async def test_emits_knowledge_sse_events_for_real_time_ui_feedback() -> None:
    selector = FakeSelector([selection("active_preferences")])
    _, _, _, emit = await run(selector)
    assert emit.events == [
        {
            "type": "knowledge",
            "data": {
                "source": "active_preferences",
                "displayName": emit.events[0]["data"]["displayName"],
                "status": "done",
            },
        }
    ]
    assert emit.events[0]["data"]["displayName"]


async def test_follows_append_only_rules_and_never_replaces_existing_knowledge() -> None:
    store = InMemorySessionStore()
    existing = [
        KnowledgeRef(source="workout_history", params={"days_back": 14}),
        KnowledgeRef(source="muscle_goals"),
    ]
    selector = FakeSelector(
        [
            selection("workout_history", "expand_range", days_back=30),
            selection("workout_history", "expand_range", days_back=7),
            selection("muscle_goals"),
        ]
    )
    fetcher = FakeFetcher()
    _, store, session_id, _ = await run(selector, fetcher, store, existing)
    assert fetcher.calls == [[("workout_history", {"days_back": 30})]]
    refs = (await store.load_session(session_id)).knowledge_in_context
    assert [(r.source, r.params) for r in refs] == [
        ("workout_history", {"days_back": 14}),
        ("muscle_goals", {}),
        ("workout_history", {"days_back": 30}),
    ]


async def test_refresh_state_refetches_even_when_in_context() -> None:
    existing = [KnowledgeRef(source="current_workout_session")]
    fetcher = FakeFetcher()
    await run(
        FakeSelector([selection("current_workout_session", "refresh_state")]), fetcher, existing=existing
    )
    assert fetcher.calls == [[("current_workout_session", {})]]


def test_is_covered_uses_source_default_ranges() -> None:
    assert is_covered("workout_history", {"days_back": 14}, [KnowledgeRef(source="workout_history")])
    assert not is_covered("workout_history", {"days_back": 30}, [KnowledgeRef(source="workout_history")])
    assert not is_covered("milestone_goals", {"status": "all"}, [KnowledgeRef(source="milestone_goals")])


async def test_errors_in_the_initializer_do_not_prevent_the_main_agent_from_running() -> None:
    outcome, store, session_id, _ = await run(FakeSelector(error=RuntimeError("rate limited")))
    [error] = store.all_events(session_id)
    assert error.event_type is EventType.ERROR
    assert error.data == {
        "code": "context_init_failed",
        "message": "Loading the user's data for this turn failed.",
        "context": "context_init",
    }
    assert outcome.appended == []

    h = make_harness(
        [call("idle", reason="x")],
        fetcher=FakeFetcher(raise_error=OSError("db down")),
        selector=FakeSelector([selection("category_goals")]),
    )
    result = await h.loop.run_turn(USER, "hi")
    assert result.status == "completed"


async def test_a_failed_source_is_logged_and_the_others_still_append() -> None:
    selector = FakeSelector([selection("category_goals"), selection("muscle_goals")])
    outcome, store, session_id, emit = await run(selector, FakeFetcher(failing={"muscle_goals"}))
    kinds = [
        (e.event_type.value, e.data.get("source") or e.data.get("context"))
        for e in store.all_events(session_id)
    ]
    assert kinds == [("knowledge", "category_goals"), ("error", "knowledge:muscle_goals")]
    assert outcome.failed == {"muscle_goals": "muscle_goals unavailable"}
    assert [e["data"]["source"] for e in emit.events] == ["category_goals"]


async def test_openai_initializer_usage_is_logged_as_an_llm_response_event() -> None:
    selector = FakeSelector(
        provider="openai", usage={"prompt_tokens": 900, "cached_tokens": 400, "completion_tokens": 60}
    )
    _, store, session_id, _ = await run(selector)
    [event] = store.all_events(session_id)
    assert event.event_type is EventType.LLM_RESPONSE
    assert event.data["provider"] == "openai" and event.data["purpose"] == "initializer"
    assert event.data["tokens"] == {
        "prompt": 500,
        "completion": 60,
        "cached": 400,
        "cache_write": 0,
        "total": 960,
    }
    assert event.data["cost_cents"] >= 0


async def test_deterministic_selector_logs_no_usage_event() -> None:
    _, store, session_id, _ = await run(FakeSelector())
    assert store.all_events(session_id) == []


async def test_a_strict_structured_answer_with_every_parameter_keeps_its_knowledge(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """OpenAI strict output sends days_back/days_ahead/status on every selection. A
    parameter the source does not take is dropped, a number out of range clamped, an invalid choice
    ignored, each logged — and every selected source is still fetched."""
    caplog.set_level(logging.INFO)
    selector = FakeSelector(
        [
            selection("category_goals", days_back=14, status="active"),
            selection("workout_history", days_back=99_999, days_ahead=3),
            selection("workout_plans", status="someday"),
            selection("no_such_source", days_back=7),
        ]
    )
    fetcher = FakeFetcher()
    outcome, _, _, _ = await run(selector, fetcher)
    assert fetcher.calls == [
        [("category_goals", {}), ("workout_history", {"days_back": 3650}), ("workout_plans", {})]
    ]
    assert [ref.source for ref in outcome.appended] == ["category_goals", "workout_history", "workout_plans"]
    logged = caplog.text
    assert "days_back is not a parameter of category_goals" in logged
    assert "days_back=99999 clamped to 3650" in logged
    assert "status='someday' is not one of" in logged
    assert "unknown source 'no_such_source'" in logged


def test_the_initializer_system_prompt_is_long_enough_for_openais_automatic_cache() -> None:
    """OpenAI caches a prompt prefix from 1,024 tokens: below that every initializer call pays the full
    input price (docs/capacity.md prices the cached part)."""
    from trainer.providers.openai import SYSTEM_PROMPT
    from trainer_dev.local.fake_llm import OPENAI_MIN_CACHED, estimate_tokens

    assert estimate_tokens(SYSTEM_PROMPT) >= OPENAI_MIN_CACHED
