"""The agent loop and the session's events (docs/architecture.md#the-chat-turn) against the in-memory
store."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from trainer.agents import PromptStore, RetryPolicy
from trainer.chat import checkpoint as checkpoints
from trainer.chat.results import DEGRADED_NOTICE
from trainer.chat.turn import ESTIMATE_KEY, ESTIMATE_START_KEY, ClientResponse, TurnFailed
from trainer.providers.ports import ModelError, ModelRequest, Usage
from trainer.services.usage_limits import BudgetExceeded, UsageLimits
from trainer.store.models import CONTEXT_EVENT_TYPES, EventType
from trainer.store.ports import LeaseHeld, SessionNotFound
from trainer_dev.testing.agent_harness import (
    FIXED_NOW,
    USER,
    FakeSelector,
    chest_workout,
    make_harness,
    make_settings,
)
from trainer_dev.testing.memory_store import InMemorySessionStore
from trainer_dev.testing.scripted_model import NO_TOOL, ScriptedModel, call, hard_failure, stream_break
from trainer_dev.testing.usage_ledger import MemoryUsageLedger


def types_of(store: InMemorySessionStore, session_id: str) -> list[str]:
    return [e.event_type.value for e in store.all_events(session_id)]


# --- the agent loop ------------------------------------------------------------------------------


async def test_agent_loop_returns_structured_result_with_session_id_actions_and_iterations() -> None:
    h = make_harness([call("message_notify_user", message="Hi!"), call("idle", reason="done")])
    result = await h.loop.run_turn(USER, "hello")
    assert result.session_id == (await h.store.list_sessions(USER))[0].id
    assert result.iterations == 2
    assert [a.tool for a in result.actions] == ["message_notify_user", "idle"]
    assert result.actions[0].args == {"message": "Hi!"}
    assert result.actions[0].outcome.success is True
    assert result.response == ClientResponse(messages=["Hi!"], exercises=None, question=None)


async def test_loop_terminates_when_agent_calls_idle() -> None:
    h = make_harness([call("idle", reason="nothing to do")])
    result = await h.loop.run_turn(USER, "thanks")
    assert result.iterations == 1
    assert result.stop_reason == "done"
    assert len(h.model.requests) == 1


async def test_loop_terminates_when_agent_calls_message_ask_user() -> None:
    h = make_harness([call("message_ask_user", question="Gym or home?", options=["Gym", "Home"])])
    result = await h.loop.run_turn(USER, "workout please")
    assert result.iterations == 1
    assert result.stop_reason == "awaiting_user"
    assert result.response.question == {"text": "Gym or home?", "options": ["Gym", "Home"]}


async def test_loop_terminates_when_max_iterations_is_reached() -> None:
    h = make_harness(
        [call("message_notify_user", message=f"step {i}") for i in range(10)],
        settings=make_settings(max_iterations=10),
    )
    result = await h.loop.run_turn(USER, "loop forever")
    assert result.iterations == 10
    assert result.stop_reason == "max_iterations"
    errors = [e for e in h.store.all_events(result.session_id) if e.event_type is EventType.ERROR]
    assert any("max iterations reached" in e.data["message"] for e in errors)
    assert (await h.store.load_session(result.session_id)).status == "completed"


async def test_a_text_only_answer_is_the_reply_and_ends_the_turn() -> None:
    """Models that may not be forced to call a tool answer in text: that text is the reply, recorded
    and run as message_notify_user."""
    h = make_harness([NO_TOOL])
    result = await h.loop.run_turn(USER, "hi")
    assert result.iterations == 1
    assert result.stop_reason == "done"
    assert [a.tool for a in result.actions] == ["message_notify_user"]
    assert result.response.messages == ["plain text"]
    events = h.store.all_events(result.session_id)
    calls = [e for e in events if e.event_type is EventType.TOOL_CALL]
    assert calls[-1].data["tool_name"] == "message_notify_user"
    assert calls[-1].data["arguments"] == {"message": "plain text"}
    assert not [e for e in events if e.event_type is EventType.ERROR]


async def test_each_iteration_calls_the_llm_exactly_once_and_executes_exactly_one_tool() -> None:
    h = make_harness(
        [
            call("message_notify_user", message="a"),
            call("message_notify_user", message="b"),
            call("idle", reason="x"),
        ]
    )
    result = await h.loop.run_turn(USER, "hi")
    kinds = types_of(h.store, result.session_id)
    assert len(h.model.requests) == result.iterations == 3
    assert kinds.count("llm_request") == kinds.count("llm_response") == 3
    assert kinds.count("tool_call") == kinds.count("tool_result") == 3
    loop_part = kinds[kinds.index("llm_request") :]
    assert loop_part == ["llm_request", "llm_response", "tool_call", "tool_result"] * 3 + ["turn_end"]


async def test_a_frame_names_only_events_already_stored() -> None:
    """An SSE id is where a reconnecting phone resumes: every event up to it must be readable."""
    h = make_harness([call("generate_workout", workout=chest_workout()), call("idle", reason="x")])
    seen: list[tuple[str, int, int]] = []

    async def sink(frame: Any, seq: int) -> None:
        stored = h.store.all_events(frame_session[0]) if frame_session else []
        seen.append((type(frame).__name__, seq, stored[-1].sequence_number if stored else 0))

    frame_session: list[str] = []
    original_create = h.store.create_session

    async def remember(user_id: str) -> Any:
        session = await original_create(user_id)
        frame_session.append(session.id)
        return session

    h.store.create_session = remember  # type: ignore[method-assign]
    await h.loop.run_turn(USER, "chest workout", emit=sink)
    assert len(seen) > 5
    assert all(seq <= stored for _, seq, stored in seen), seen
    assert seen[-1][1] == h.store.all_events(frame_session[0])[-1].sequence_number


async def test_tool_choice_forces_tool_use_with_type_any() -> None:
    h = make_harness([call("idle", reason="x")])
    await h.loop.run_turn(USER, "hi")
    assert h.model.requests[0].tool_choice == {"type": "any", "disable_parallel_tool_use": True}


async def test_llm_errors_propagate_to_the_caller_after_logging() -> None:
    h = make_harness([hard_failure("overloaded")])
    with pytest.raises(TurnFailed) as info:
        await h.loop.run_turn(USER, "hi", emit=h.emit)
    session_id = info.value.session_id
    errors = [e for e in h.store.all_events(session_id) if e.event_type is EventType.ERROR]
    assert errors and "overloaded" in errors[-1].data["message"]
    assert errors[-1].data["context"] == "llm"
    assert h.store.lease_holder(session_id) is None


async def test_an_unavailable_model_degrades_the_turn_to_the_fallback_model() -> None:
    fallback = ScriptedModel([call("message_notify_user", message="Logged 3 x 10.", final=True)])
    h = make_harness([hard_failure("HTTP 529 overloaded")], fallback=fallback)
    result = await h.loop.run_turn(USER, "did 3x10 push-ups", emit=h.emit)
    assert (result.status, result.degraded, result.model_errors) == ("completed", True, 1)
    assert result.response.messages == [DEGRADED_NOTICE, "Logged 3 x 10."]
    events = h.store.all_events(result.session_id)
    marks = [e.data for e in events if e.event_type is EventType.ERROR]
    assert [(m["code"], m["context"]) for m in marks] == [("model_degraded", "degraded")]
    assert [e.data for e in events if e.event_type is EventType.TURN_END] == [
        {"outcome": "replied", "degraded": True}
    ]
    assert [f["data"]["tool"] for f in h.emitted if f["type"] == "status"][:1] == ["degraded"]


@pytest.mark.parametrize("code", ["model_incomplete"])
async def test_a_broken_answer_fails_the_turn_even_with_a_fallback_model(code: str) -> None:
    fallback = ScriptedModel([])
    h = make_harness([ModelError("cut twice", code=code)], fallback=fallback)
    with pytest.raises(TurnFailed):
        await h.loop.run_turn(USER, "hi")
    assert fallback.requests == []


async def test_retryable_model_error_is_retried_once_then_succeeds() -> None:
    h = make_harness([stream_break(), call("idle", reason="x")])
    result = await h.loop.run_turn(USER, "hi")
    assert result.stop_reason == "done"
    assert len(h.model.requests) == 2


async def test_retryable_model_error_twice_fails_the_turn() -> None:
    h = make_harness([stream_break(), stream_break()])
    with pytest.raises(TurnFailed):
        await h.loop.run_turn(USER, "hi")
    assert len(h.model.requests) == 2


async def test_the_turn_follows_the_chat_agents_definition(tmp_path: Path) -> None:
    """Its prompt comes from the prompt store under the definition's prompt id; its retry policy and
    iteration cap are the definition's."""
    (tmp_path / "coach.md").write_text("You are the coach under test.\n")
    store = PromptStore(None, defaults=tmp_path)
    h = make_harness([call("idle", reason="x")], prompts=store, prompt_id="coach")
    await h.loop.run_turn(USER, "hi")
    assert h.model.requests[0].system[0]["text"] == "You are the coach under test.\n"

    h = make_harness([stream_break()], retry=RetryPolicy(max_retries=0))
    with pytest.raises(TurnFailed):
        await h.loop.run_turn(USER, "hi")
    assert len(h.model.requests) == 1

    h = make_harness([call("message_notify_user", message=str(i)) for i in range(2)], max_steps=2)
    result = await h.loop.run_turn(USER, "hi")
    assert (result.stop_reason, result.iterations) == ("max_iterations", 2)


async def test_tool_execution_errors_are_logged_but_do_not_terminate_the_loop() -> None:
    h = make_harness(
        [
            call("swap_exercise", exercise_id="1", new_exercise={}),
            call("no_such_tool"),
            call("message_notify_user", message="recovered"),
            call("idle", reason="x"),
        ]
    )
    result = await h.loop.run_turn(USER, "hi")
    assert [a.tool for a in result.actions] == [
        "swap_exercise",
        "no_such_tool",
        "message_notify_user",
        "idle",
    ]
    results = [e for e in h.store.all_events(result.session_id) if e.event_type is EventType.TOOL_RESULT]
    assert [r.data["success"] for r in results] == [False, False, True, True]
    assert "Unknown tool: no_such_tool" in results[1].data["formatted"]


async def test_session_status_is_completed_on_normal_exit_and_error_on_failure() -> None:
    ok = make_harness([call("idle", reason="x")])
    result = await ok.loop.run_turn(USER, "hi")
    assert (await ok.store.load_session(result.session_id)).status == "completed"

    bad = make_harness([hard_failure()])
    with pytest.raises(TurnFailed) as info:
        await bad.loop.run_turn(USER, "hi")
    assert (await bad.store.load_session(info.value.session_id)).status == "error"
    assert bad.publisher.published[-1][1]["status"] == "error"


async def test_unexpected_internal_failure_marks_session_error_and_raises_turn_failed() -> None:
    h = make_harness([])

    def broken_build(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug")

    h.loop.context_builder.build_with_estimate = broken_build  # type: ignore[method-assign]
    with pytest.raises(TurnFailed) as info:
        await h.loop.run_turn(USER, "hi")
    assert (await h.store.load_session(info.value.session_id)).status == "error"
    assert h.store.lease_holder(info.value.session_id) is None


# --- per-turn mechanics: the lease, checkpoints, TurnCompleted -------------------------------------


async def test_events_are_read_once_per_turn_not_per_iteration() -> None:
    h = make_harness(
        [call("idle", reason="x")]
        + [call("message_notify_user", message=str(i)) for i in range(6)]
        + [call("idle", reason="x")]
    )
    first = await h.loop.run_turn(USER, "hi")
    assert h.store.calls["read_events"] == 0, "a new session has no history to read"
    result = await h.loop.run_turn(USER, "and now?", session_id=first.session_id)
    assert result.iterations == 7
    assert h.store.calls["read_events"] == 1


async def test_events_are_read_once_per_turn_across_pages() -> None:
    store = InMemorySessionStore()
    session = await store.create_session(USER)
    for i in range(1200):
        await store.append_event(session.id, EventType.USER_MESSAGE, {"message": f"m{i}"})
    h = make_harness([call("idle", reason="x")], store=store)
    await h.loop.run_turn(USER, "hi", session_id=session.id)
    assert h.store.calls["read_events"] == 3
    texts = [b.get("text") for b in h.model.requests[0].messages[0]["content"]]
    assert texts[0] == "m0" and "hi" in texts


async def test_context_events_query_filters_to_context_types() -> None:
    h = make_harness([call("idle", reason="x")])
    seen: list[Any] = []
    original = h.store.read_events

    def spy(session_id: str, after: int = 0, limit: int | None = None, types: Any = None) -> Any:
        seen.append(types)
        return original(session_id, after, limit, types)

    h.store.read_events = spy  # type: ignore[method-assign]
    first = await h.loop.run_turn(USER, "hi")
    h.model.steps = [call("idle", reason="x")]
    await h.loop.run_turn(USER, "again", session_id=first.session_id)
    assert seen == [CONTEXT_EVENT_TYPES]


async def test_artifact_appended_by_a_tool_is_in_the_next_iterations_context() -> None:
    h = make_harness([call("generate_workout", workout=chest_workout()), call("idle", reason="x")])
    await h.loop.run_turn(USER, "chest workout")
    second = h.model.requests[1].messages[-1]["content"]
    assert second[0]["type"] == "tool_result"
    assert second[1]["type"] == "text" and second[1]["text"].startswith(
        '<artifact type="exercise_list" id="art_'
    )


async def test_second_turn_lease_conflict_raises_lease_held() -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    model = ScriptedModel([call("idle", reason="x")])
    original = model.complete

    async def gated(request: Any, on_text_delta: Any = None) -> Any:
        started.set()
        await release.wait()
        return await original(request, on_text_delta)

    model.complete = gated  # type: ignore[method-assign]
    h = make_harness(model=model)
    session = await h.store.create_session(USER)
    first = asyncio.create_task(h.loop.run_turn(USER, "one", session_id=session.id))
    await started.wait()
    with pytest.raises(LeaseHeld):
        await h.loop.run_turn(USER, "two", session_id=session.id)
    release.set()
    await first
    assert h.store.lease_holder(session.id) is None


async def test_unknown_or_foreign_session_raises_session_not_found() -> None:
    h = make_harness([])
    other = await h.store.create_session("someone-else")
    with pytest.raises(SessionNotFound):
        await h.loop.run_turn(USER, "hi", session_id=other.id)
    with pytest.raises(SessionNotFound):
        await h.loop.run_turn(USER, "hi", session_id="missing")


async def test_turn_completed_is_published_with_the_agreed_detail() -> None:
    usage = Usage(
        input_tokens=100, output_tokens=20, cache_read_input_tokens=300, cache_creation_input_tokens=50
    )
    model = ScriptedModel([call("message_notify_user", message="hi"), call("idle", reason="x")], usage=usage)
    h = make_harness(model=model)
    result = await h.loop.run_turn(USER, "hi")
    [(detail_type, detail)] = h.publisher.published
    events = h.store.all_events(result.session_id)
    assert detail_type == "TurnCompleted"
    assert detail["session_id"] == result.session_id and detail["user_id"] == USER
    assert detail["turn_id"] == result.turn_id
    assert detail["first_seq"] == events[0].sequence_number
    assert detail["last_seq"] == events[-1].sequence_number
    assert detail["status"] == "completed" and detail["model"] == "claude-haiku-4-5"
    assert detail["usage"] == {
        "input_tokens": 200,
        "output_tokens": 40,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": 600,
    }
    assert detail["context_tokens_estimate"] == 100 + 300 + 50 + 20
    assert detail["cost_cents"] > 0


async def test_turn_usage_totals_equal_the_sum_of_llm_response_events() -> None:
    h = make_harness([call("message_notify_user", message="a"), call("idle", reason="x")])
    result = await h.loop.run_turn(USER, "hi")
    responses = [e for e in h.store.all_events(result.session_id) if e.event_type is EventType.LLM_RESPONSE]
    assert sum(r.data["tokens"]["completion"] for r in responses) == result.usage["output_tokens"]
    assert sum(r.data["cost_cents"] for r in responses) == pytest.approx(result.cost_cents)
    assert responses[0].data["tokens"] == {
        "prompt": 100,
        "completion": 20,
        "cached": 50,
        "cache_write": 0,
        "total": 170,
    }


async def test_publisher_failure_does_not_fail_the_turn() -> None:
    h = make_harness([call("idle", reason="x")])
    h.publisher.error = RuntimeError("bus down")
    result = await h.loop.run_turn(USER, "hi")
    assert result.status == "completed"


async def test_llm_request_event_holds_a_summary_not_the_prompt() -> None:
    h = make_harness([call("idle", reason="x")])
    result = await h.loop.run_turn(USER, "hi")
    [req] = [e for e in h.store.all_events(result.session_id) if e.event_type is EventType.LLM_REQUEST]
    assert req.data["model"] == "claude-haiku-4-5"
    assert req.data["estimated_tokens"] > 1000
    assert len(req.data["prompt"]) < 200


async def test_llm_response_raw_drops_tool_inputs() -> None:
    h = make_harness([call("generate_workout", workout=chest_workout()), call("idle", reason="x")])
    result = await h.loop.run_turn(USER, "hi")
    first = next(e for e in h.store.all_events(result.session_id) if e.event_type is EventType.LLM_RESPONSE)
    assert first.data["raw_response"]["content"] == [
        {"type": "tool_use", "id": "toolu_0001", "name": "generate_workout"}
    ]


async def test_current_workout_from_the_client_is_injected_as_knowledge() -> None:
    h = make_harness([call("idle", reason="x")])
    workout = {
        "exercises": [{"exercise_name": "Squat", "exercise_type": "reps", "sets": 3, "reps": [5, 5, 5]}]
    }
    result = await h.loop.run_turn(USER, "next?", current_workout=workout)
    knowledge = [e for e in h.store.all_events(result.session_id) if e.event_type is EventType.KNOWLEDGE]
    assert knowledge[0].data["source"] == "current_workout_session"
    assert "Squat (reps) 3x5" in knowledge[0].data["data"]
    session = await h.store.load_session(result.session_id)
    assert [r.source for r in session.knowledge_in_context] == ["current_workout_session"]


async def test_client_response_lists_the_current_workout_exercises() -> None:
    h = make_harness(
        [
            call("generate_workout", workout=chest_workout()),
            call("remove_exercise", exercise_id="2"),
            call("message_notify_user", message="Here you go"),
            call("idle", reason="x"),
        ]
    )
    result = await h.loop.run_turn(USER, "workout")
    assert [e["exercise_name"] for e in result.response.exercises] == ["Bench Press", "Plank"]
    assert result.response.messages == ["Here you go"]


async def test_initializer_errors_do_not_prevent_the_main_agent_from_running() -> None:
    h = make_harness([call("idle", reason="x")], selector=FakeSelector(error=RuntimeError("openai down")))
    result = await h.loop.run_turn(USER, "hi")
    assert result.status == "completed"
    errors = [e for e in h.store.all_events(result.session_id) if e.event_type is EventType.ERROR]
    assert errors[0].data["context"] == "context_init"


async def test_user_data_failure_falls_back_and_the_turn_goes_on() -> None:
    h = make_harness([call("idle", reason="x")])

    async def broken(_user_id: str) -> str:
        raise RuntimeError("db down")

    h.loop.deps.user_data = broken
    result = await h.loop.run_turn(USER, "hi")
    assert result.status == "completed"
    assert "(unavailable)" in h.model.requests[0].system[1]["text"]


async def test_context_over_the_hard_limit_checkpoints_synchronously_before_the_turn() -> None:
    h = make_harness([call("idle", reason="x")])
    session = await h.store.create_session(USER)
    await h.store.append_event(session.id, EventType.USER_MESSAGE, {"message": "old request"})
    await h.store.update_session(session.id, metadata={ESTIMATE_KEY: 99_000, ESTIMATE_START_KEY: 0})

    await h.loop.run_turn(USER, "new", session_id=session.id)
    after = await h.store.load_session(session.id)
    checkpoint = next(e for e in h.store.all_events(session.id) if e.event_type is EventType.CHECKPOINT)
    assert after.context_start_sequence == checkpoint.sequence_number == 2
    first = h.model.requests[0].messages[0]["content"]
    assert first[0]["text"].startswith('<checkpoint events_summarized="1-1">')
    assert [b["text"] for b in first[1:]] == ["new"]
    assert after.metadata[ESTIMATE_START_KEY] == checkpoint.sequence_number


async def test_context_estimate_under_the_hard_limit_does_not_checkpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = make_harness([call("idle", reason="x")])
    session = await h.store.create_session(USER)
    await h.store.update_session(session.id, metadata={ESTIMATE_KEY: 10, ESTIMATE_START_KEY: 0})

    async def never(*_a: Any, **_k: Any) -> None:
        raise AssertionError("must not checkpoint")

    monkeypatch.setattr(checkpoints, "create_checkpoint", never)
    await h.loop.run_turn(USER, "new", session_id=session.id)
    saved = (await h.store.load_session(session.id)).metadata
    assert saved[ESTIMATE_KEY] > 0 and saved[ESTIMATE_START_KEY] == 0


async def test_a_checkpoint_that_already_landed_is_not_repeated(monkeypatch: pytest.MonkeyPatch) -> None:
    h = make_harness([call("idle", reason="x")])
    session = await h.store.create_session(USER)
    for i in range(4):
        await h.store.append_event(session.id, EventType.USER_MESSAGE, {"message": f"m{i}"})
    checkpoint_data = {"events_summarized": "1-4", "events": "..."}
    landed = await h.store.append_event(session.id, EventType.CHECKPOINT, checkpoint_data)
    await h.store.update_session(
        session.id,
        context_start_sequence=landed.sequence_number,
        metadata={ESTIMATE_KEY: 99_000, ESTIMATE_START_KEY: 0},
    )

    async def never(*_a: Any, **_k: Any) -> None:
        raise AssertionError("must not checkpoint")

    monkeypatch.setattr(checkpoints, "create_checkpoint", never)
    result = await h.loop.run_turn(USER, "new", session_id=session.id)
    assert result.status == "completed"


async def test_model_factory_receives_the_requested_model_id() -> None:
    asked: list[str] = []
    model = ScriptedModel([call("idle", reason="x")])

    def factory(model_id: str) -> ScriptedModel:
        asked.append(model_id)
        return model

    class Models:
        def model_for(self, model_id: str) -> ScriptedModel:
            return factory(model_id)

    h = make_harness(model=model, models=Models())
    await h.loop.run_turn(USER, "hi", model="claude-sonnet-4-6")
    assert asked == ["claude-sonnet-4-6"]
    assert model.requests[0].model == "claude-sonnet-4-6"


async def test_concurrent_sessions_do_not_block_each_other() -> None:
    model = ScriptedModel([], latency=0.2)
    h = make_harness(model=model)
    model.steps = [call("idle", reason="x") for _ in range(10)]
    started = asyncio.get_running_loop().time()
    await asyncio.gather(*(h.loop.run_turn(f"user-{i}", "hi") for i in range(10)))
    assert asyncio.get_running_loop().time() - started < 1.0


# --- session and events (in-memory store; DynamoDB items are the store's integration tests) ------


async def test_sessions_are_created_with_status_active_and_context_start_sequence_0() -> None:
    session = await InMemorySessionStore().create_session(USER)
    assert session.status == "active" and session.context_start_sequence == 0


async def test_get_or_create_session_returns_the_most_recent_active_session_or_creates_one() -> None:
    h = make_harness([call("idle", reason="x"), call("idle", reason="x")])
    first = await h.loop.run_turn(USER, "hi")
    await h.store.update_session(first.session_id, status="active")
    second = await h.loop.run_turn(USER, "again")
    assert second.session_id == first.session_id
    fresh = await InMemorySessionStore().get_or_create_session(USER)
    assert fresh.status == "active"


async def test_events_are_ordered_by_sequence_number_without_duplicates_under_concurrency() -> None:
    store = InMemorySessionStore()
    session = await store.create_session(USER)

    async def writer(n: int) -> None:
        for i in range(50):
            await store.append_event(session.id, EventType.USER_MESSAGE, {"message": f"{n}-{i}"})
            await asyncio.sleep(0)

    await asyncio.gather(*(writer(n) for n in range(8)))
    seqs = [e.sequence_number for e in (await store.read_events(session.id)).events]
    assert seqs == list(range(1, 401))


async def test_artifacts_are_retrievable_by_artifact_id_within_a_session() -> None:
    h = make_harness([call("generate_workout", workout=chest_workout()), call("idle", reason="x")])
    result = await h.loop.run_turn(USER, "workout")
    art_id = result.actions[0].outcome.result_json()["artifact_id"]
    artifacts = await h.store.get_state(result.session_id, "artifacts")
    assert artifacts is not None
    assert artifacts[art_id]["type"] == "exercise_list"
    assert len(artifacts[art_id]["payload"]["exercises"]) == 3


async def test_users_are_restricted_to_their_own_sessions_and_events() -> None:
    store = InMemorySessionStore()
    mine = await store.create_session(USER)
    with pytest.raises(SessionNotFound):
        await store.get_session("intruder", mine.id)
    assert await store.list_sessions("intruder") == []


async def test_error_events_keep_a_code_and_a_safe_message_and_never_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Tracebacks stay in the logs; the timeline the app can read has none."""
    h = make_harness([])

    def broken_build(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret at /srv/app/trainer/chat/context.py line 42")

    h.loop.context_builder.build_with_estimate = broken_build  # type: ignore[method-assign]
    with pytest.raises(TurnFailed) as info:
        await h.loop.run_turn(USER, "hi")
    errors = [e.data for e in h.store.all_events(info.value.session_id) if e.event_type is EventType.ERROR]
    assert errors == [
        {"code": "agent_loop_failed", "message": "The turn stopped unexpectedly.", "context": "agent_loop"}
    ]
    assert "secret" not in str(errors) and "Traceback" not in str(errors)
    assert any(r.exc_info and "secret" in str(r.exc_info[1]) for r in caplog.records)


# --- leases that cannot strand a user ---------------------------------------------------------------


async def test_a_turn_takes_over_from_a_dead_turn_and_marks_it_interrupted() -> None:
    h = make_harness([call("message_notify_user", message="first"), call("idle", reason="x")])
    session = await h.store.create_session(USER)
    await h.store.append_event(session.id, EventType.USER_MESSAGE, {"message": "the turn that died"})
    await h.store.acquire_lease(session.id, "turn-dead", 30)
    with pytest.raises(LeaseHeld):
        await h.loop.run_turn(USER, "hello?", session_id=session.id)
    h.store.expire_lease(session.id)

    result = await h.loop.run_turn(USER, "hello?", session_id=session.id)

    assert result.status == "completed" and result.session_id == session.id
    events = h.store.all_events(session.id)
    assert [e.sequence_number for e in events] == list(range(1, len(events) + 1))
    marker = next(e for e in events if e.event_type is EventType.ERROR)
    assert marker.data["code"] == "turn_interrupted"
    kinds = [e.event_type for e in events]
    assert kinds.index(EventType.ERROR) < kinds.index(EventType.USER_MESSAGE, 1)
    assert h.store.lease_holder(session.id) is None


async def test_a_turn_without_a_session_id_never_waits_for_a_session_it_did_not_name() -> None:
    h = make_harness([call("idle", reason="x")])
    busy = await h.store.create_session(USER)
    await h.store.acquire_lease(busy.id, "turn-running", 30)

    result = await h.loop.run_turn(USER, "new question")

    assert result.status == "completed" and result.session_id != busy.id
    assert h.store.lease_holder(busy.id) == "turn-running"


async def test_the_lease_is_renewed_while_the_turn_runs_and_stops_the_turn_when_taken_over() -> None:
    model = ScriptedModel(
        [*(call("message_notify_user", message=str(i)) for i in range(2)), call("idle", reason="x")],
        latency=1.4,
    )
    h = make_harness(model=model, settings=make_settings(lease_seconds=3, function_timeout_seconds=60))
    result = await h.loop.run_turn(USER, "slow turn")
    assert result.status == "completed"
    assert h.store.calls["renew_lease"] >= 1, "a model call longer than a third of the lease renews it"

    slow = ScriptedModel(
        [call("message_notify_user", message=str(i)) for i in range(20)], latency=0.3, unfinished_ok=True
    )
    taken = make_harness(model=slow, settings=make_settings(lease_seconds=3))
    session = await taken.store.create_session(USER)

    async def steal() -> None:
        await asyncio.sleep(0.5)
        taken.store.expire_lease(session.id)
        await taken.store.acquire_lease(session.id, "turn-thief", 30)

    thief = asyncio.create_task(steal())
    with pytest.raises(TurnFailed):
        await taken.loop.run_turn(USER, "slow turn", session_id=session.id)
    await thief
    assert len(slow.requests) < 10
    assert taken.store.lease_holder(session.id) == "turn-thief"


async def test_no_lease_outlives_the_function_timeout() -> None:
    seen: list[float] = []

    def look_at_the_lease(request: ModelRequest) -> Any:
        _, until = h.store._leases[str(request.session_id)]
        seen.append((until - FIXED_NOW).total_seconds())
        return call("idle", reason="x")

    settings = make_settings(lease_seconds=120, function_timeout_seconds=20)
    h = make_harness([look_at_the_lease], settings=settings)
    await h.loop.run_turn(USER, "hi")
    assert len(seen) == 1 and 19.0 <= seen[0] <= 20.0


# --- per-user daily budget ------------------------------------------------------------------------


def limits(ledger: MemoryUsageLedger, clock: datetime | None = None) -> UsageLimits:
    at = clock or datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    return UsageLimits(
        ledger, daily={"turns": 300, "plans": 10, "imports": 50}, cost_limit_cents=500.0, clock=lambda: at
    )


@pytest.mark.parametrize("used", [{"turns_started": 300}, {"turns_started": 3, "cost_cents": 500.0}])
async def test_a_user_over_the_daily_budget_gets_no_turn_and_no_model_call(used: dict[str, float]) -> None:
    h = make_harness([])
    h.loop.deps.budget = limits(MemoryUsageLedger(**used), datetime(2026, 3, 2, 22, 0, tzinfo=UTC))
    with pytest.raises(BudgetExceeded) as info:
        await h.loop.run_turn(USER, "one more")
    assert info.value.retry_after_seconds == 2 * 3600
    assert h.model.requests == [] and await h.store.list_sessions(USER) == []


async def test_over_the_daily_budget_the_fallback_model_answers_without_a_model_call() -> None:
    fallback = ScriptedModel([call("message_notify_user", message="Logged.", final=True)])
    h = make_harness([], fallback=fallback)
    ledger = MemoryUsageLedger(turns_started=300)
    h.loop.deps.budget = limits(ledger)
    result = await h.loop.run_turn(USER, "did 3x10 push-ups")
    assert (result.status, result.degraded) == ("completed", True)
    assert result.response.messages == [DEGRADED_NOTICE, "Logged."]
    assert h.model.requests == [] and ledger.reserved == [], "no live model call, nothing counted"
    marks = [e.data for e in h.store.all_events(result.session_id) if e.event_type is EventType.ERROR]
    assert [m["code"] for m in marks] == ["model_degraded"]


async def test_a_user_under_the_budget_runs_as_usual_and_the_turn_is_counted_before_it_runs() -> None:
    h = make_harness([call("idle", reason="x")])
    ledger = MemoryUsageLedger(turns_started=299, cost_cents=499.0)
    h.loop.deps.budget = limits(ledger)
    assert (await h.loop.run_turn(USER, "hi")).status == "completed"
    assert ledger.reserved and ledger.reserved[0][0] == USER
    with pytest.raises(BudgetExceeded):
        await h.loop.run_turn(USER, "and another")


async def test_concurrent_turns_at_a_limit_of_three_run_exactly_three() -> None:
    h = make_harness([call("idle", reason=str(i)) for i in range(3)])
    ledger = MemoryUsageLedger()
    h.loop.deps.budget = UsageLimits(
        ledger, daily={"turns": 3, "plans": 1, "imports": 1}, cost_limit_cents=500.0
    )
    results = await asyncio.gather(
        *(h.loop.run_turn(USER, f"hi {i}") for i in range(12)), return_exceptions=True
    )
    assert sum(1 for r in results if not isinstance(r, BaseException)) == 3
    assert sum(1 for r in results if isinstance(r, BudgetExceeded)) == 9
    assert len(h.model.requests) == 3
