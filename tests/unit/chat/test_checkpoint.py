"""Checkpoint format (docs/architecture.md#checkpoints) and the lease discipline, against an in-memory
store."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

import pytest
from trainer.chat.checkpoint import (
    estimate_tokens,
    event_line,
    needs_checkpoint,
    render_checkpoint,
    run_checkpoint,
    summarize,
    workout_state,
)
from trainer.chat.turn_completed import InvalidTurnEvent
from trainer.jobs.checkpoint import CheckpointDeps, handle_turn_completed
from trainer.settings import Settings
from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session
from trainer.store.ports import LeaseHeld, SessionNotFound, SessionStore

T0 = datetime(2026, 1, 11, 10, 0, tzinfo=UTC)


def ev(seq: int, kind: EventType, **data: Any) -> Event:
    return Event(session_id="s1", sequence_number=seq, event_type=kind, timestamp=T0, data=data)


class FakeStore:
    """Just enough of SessionStore for checkpointing."""

    def __init__(self) -> None:
        self.session = Session(id="s1", user_id="u1", created_at=T0, updated_at=T0)
        self.events: list[Event] = []
        self.state: dict[str, dict[str, Any]] = {}
        self.lease: str | None = None
        self.lease_log: list[str] = []

    async def load_session(self, session_id: str) -> Session:
        if session_id != self.session.id:
            raise SessionNotFound(session_id)
        return self.session.model_copy(deep=True)

    async def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        if self.lease is not None and self.lease != holder:
            raise LeaseHeld(self.lease)
        self.lease = holder
        self.lease_log.append(f"acquire {holder}")

    async def release_lease(self, session_id: str, holder: str) -> None:
        if self.lease == holder:
            self.lease = None
            self.lease_log.append(f"release {holder}")

    async def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        found = [
            e for e in self.events if e.sequence_number > after and (types is None or e.event_type in types)
        ]
        return EventPage(events=found[:limit] if limit else found, next_after=None)

    async def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        return self.state.get(key)

    async def append_event(
        self, session_id: str, event_type: EventType, data: dict[str, Any], duration_ms: int | None = None
    ) -> Event:
        assert self.lease is not None, "checkpoint appended without holding the lease"
        event = Event(
            session_id=session_id,
            sequence_number=len(self.events) + 1,
            event_type=event_type,
            timestamp=T0,
            data=data,
        )
        self.events.append(event)
        self.session.last_seq = event.sequence_number
        return event

    async def update_session(self, session_id: str, **fields: Any) -> Session:
        self.session = self.session.model_copy(update=fields)
        return self.session

    def add(self, kind: EventType, **data: Any) -> None:
        self.events.append(ev(len(self.events) + 1, kind, **data))


def as_store(fake: FakeStore) -> SessionStore:
    return cast(SessionStore, fake)


WORKOUT = {
    "workout_id": "w1",
    "title": "Upper body",
    "exercises": [
        {"id": "ex_a", "exercise_name": "Bench Press", "completed": True},
        {"id": "ex_b", "exercise_name": "Rows", "completed": True},
        {"id": "ex_c", "exercise_name": "Shoulder Press", "completed": True},
        {"id": "ex_d", "exercise_name": "Bicep Curls", "completed": False},
        {"id": "ex_e", "exercise_name": "Overhead Extensions"},
    ],
}


def test_estimate_tokens_is_chars_over_four_rounded_up() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000


def test_needs_checkpoint_uses_threshold_and_hard_limit() -> None:
    settings = Settings(TRAINER_CONTEXT_WINDOW_TOKENS=1000, TRAINER_CHECKPOINT_THRESHOLD=0.8)
    assert not needs_checkpoint(800, settings)
    assert needs_checkpoint(801, settings)
    assert not needs_checkpoint(900, settings, hard=True)
    assert needs_checkpoint(951, settings, hard=True)


def test_event_lines_follow_the_seed_format() -> None:
    long = "Give me a quick upper body workout for today please"
    assert event_line(ev(1, EventType.USER_MESSAGE, message=long)) == (
        'user: "Give me a quick upper body workout for t..."'
    )
    assert event_line(ev(2, EventType.TOOL_CALL, tool_name="generate_workout", arguments={})) == (
        "action: generate_workout"
    )
    swapped = "swapped: Tricep Kickbacks → Overhead Extensions"
    assert event_line(
        ev(3, EventType.TOOL_RESULT, tool_name="swap_exercise", success=True, formatted=swapped)
    ) == ("result: swapped: Tricep Kickbacks → Ov...")
    tagged = '<result tool="generate_workout">\n  5 exercises generated\n</result>'
    assert event_line(ev(3, EventType.TOOL_RESULT, formatted=tagged)) == "result: 5 exercises generated"
    assert event_line(
        ev(4, EventType.TOOL_RESULT, tool_name="idle", success=True, result={"success": True})
    ) == ("result: ok")
    assert (
        event_line(
            ev(
                5,
                EventType.TOOL_RESULT,
                success=False,
                result={"success": False, "error": "no such exercise"},
            )
        )
        == "result: failed: no such exercise"
    )
    assert (
        event_line(ev(6, EventType.KNOWLEDGE, source="workout_history", data="..."))
        == "knowledge: workout_history"
    )
    assert event_line(ev(7, EventType.KNOWLEDGE, source="workout_history", reason="expand_range")) == (
        "knowledge_update: workout_history (expand_range)"
    )


def test_multiline_user_text_stays_on_one_line() -> None:
    assert event_line(ev(1, EventType.USER_MESSAGE, message="a\n\nb")) == 'user: "a b"'


def test_summarize_numbers_lines_and_skips_observability_events() -> None:
    events = [
        ev(1, EventType.KNOWLEDGE, source="category_goals"),
        ev(2, EventType.USER_MESSAGE, message="Swap the rows"),
        ev(3, EventType.LLM_REQUEST, model="m"),
        ev(4, EventType.LLM_RESPONSE, tokens={}),
        ev(5, EventType.TOOL_CALL, tool_name="swap_exercise"),
        ev(6, EventType.TOOL_RESULT, tool_name="swap_exercise", formatted="swapped"),
        ev(7, EventType.ERROR, message="boom"),
    ]
    data = summarize(events, {"workout_in_progress": "0/3 complete"})
    assert data == {
        "events_summarized": "1-7",
        "events": "\n".join(
            [
                "1. knowledge: category_goals",
                '2. user: "Swap the rows"',
                "3. action: swap_exercise",
                "4. result: swapped",
            ]
        ),
        "current_state": {"workout_in_progress": "0/3 complete"},
    }


def test_summarize_carries_a_previous_checkpoint_forward() -> None:
    previous = ev(
        31, EventType.CHECKPOINT, events_summarized="1-30", events="1. knowledge: x\n2. action: idle"
    )
    data = summarize([previous, ev(32, EventType.USER_MESSAGE, message="hi")], {})
    assert data["events_summarized"] == "1-32"
    assert data["events"] == '1. knowledge: x\n2. action: idle\n3. user: "hi"'


def test_summarize_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError):
        summarize([], {})


def test_workout_state_counts_completed_and_lists_remaining() -> None:
    assert workout_state(WORKOUT) == {
        "workout": "Upper body",
        "workout_in_progress": "3/5 complete",
        "remaining": "Bicep Curls, Overhead Extensions",
    }
    assert workout_state(None) == {}
    assert workout_state({"exercises": []}) == {}


def test_render_matches_the_seed_layout_and_escapes() -> None:
    data = {
        "events_summarized": "1-30",
        "events": '1. user: "a < b & c"\n2. action: idle',
        "current_state": {"workout_in_progress": "3/5 complete", "remaining": "Curls"},
    }
    assert render_checkpoint(data, sequence=31) == "\n".join(
        [
            '<checkpoint sequence="31" events_summarized="1-30">',
            "  <events>",
            '    1. user: "a &lt; b &amp; c"',
            "    2. action: idle",
            "  </events>",
            "  <current_state>",
            "    workout_in_progress: 3/5 complete",
            "    remaining: Curls",
            "  </current_state>",
            "</checkpoint>",
        ]
    )
    assert "<current_state>" not in render_checkpoint({**data, "current_state": {}})


def _long_session(store: FakeStore) -> None:
    store.add(EventType.KNOWLEDGE, source="workout_history", data="...")
    store.add(EventType.USER_MESSAGE, message="Give me an upper body workout")
    store.add(EventType.LLM_RESPONSE, tokens={"prompt": 10})
    store.add(EventType.TOOL_CALL, tool_name="generate_workout")
    store.add(EventType.TOOL_RESULT, tool_name="generate_workout", formatted="5 exercises generated")
    store.session.knowledge_in_context = [KnowledgeRef(source="workout_history")]
    store.state["current_workout"] = WORKOUT


async def test_run_checkpoint_appends_event_moves_start_and_clears_knowledge() -> None:
    store = FakeStore()
    _long_session(store)
    provider_calls: list[str] = []

    async def preferences(session: Session) -> dict[str, str]:
        provider_calls.append(session.id)
        return {"temp_preferences": "intensity: lower today"}

    checkpoint = await run_checkpoint(as_store(store), "s1", state_provider=preferences, now=T0)

    assert checkpoint is not None
    assert checkpoint.sequence_number == 6
    assert checkpoint.event_type is EventType.CHECKPOINT
    assert checkpoint.data["events_summarized"] == "1-5"
    assert checkpoint.data["events"].splitlines()[-1] == "4. result: 5 exercises generated"
    assert checkpoint.data["current_state"] == {
        "workout": "Upper body",
        "workout_in_progress": "3/5 complete",
        "remaining": "Bicep Curls, Overhead Extensions",
        "temp_preferences": "intensity: lower today",
    }
    assert checkpoint.data["created_at"] == T0.isoformat()
    assert store.session.context_start_sequence == 6
    assert store.session.knowledge_in_context == []
    assert provider_calls == ["s1"]
    assert store.lease is None
    assert [entry.split()[0] for entry in store.lease_log] == ["acquire", "release"]
    assert store.lease_log[0].split()[1].startswith("checkpoint:")


async def test_second_checkpoint_with_nothing_new_is_a_no_op() -> None:
    store = FakeStore()
    _long_session(store)
    assert await run_checkpoint(as_store(store), "s1") is not None
    assert await run_checkpoint(as_store(store), "s1") is None
    assert len(store.events) == 6


async def test_redelivered_turn_does_not_checkpoint_twice() -> None:
    store = FakeStore()
    _long_session(store)
    first = await run_checkpoint(as_store(store), "s1", covers_through=5)
    store.add(EventType.USER_MESSAGE, message="next turn")
    assert first is not None
    assert await run_checkpoint(as_store(store), "s1", covers_through=5) is None
    assert store.session.context_start_sequence == first.sequence_number


async def test_checkpoint_refuses_while_a_turn_holds_the_lease() -> None:
    store = FakeStore()
    _long_session(store)
    store.lease = "turn:abc"
    with pytest.raises(LeaseHeld):
        await run_checkpoint(as_store(store), "s1")
    assert store.lease == "turn:abc"
    assert all(e.event_type is not EventType.CHECKPOINT for e in store.events)


async def test_lease_is_released_when_the_checkpoint_fails() -> None:
    store = FakeStore()
    _long_session(store)

    async def broken(session: Session) -> dict[str, str]:
        raise RuntimeError("preferences unavailable")

    with pytest.raises(RuntimeError):
        await run_checkpoint(as_store(store), "s1", state_provider=broken)
    assert store.lease is None


def _turn_event(tokens: int, session_id: str = "s1") -> dict[str, Any]:
    return {
        "version": "0",
        "detail-type": "TurnCompleted",
        "source": "trainer.agent",
        "detail": {
            "turn_id": "t1",
            "session_id": session_id,
            "user_id": "u1",
            "first_seq": 1,
            "last_seq": 5,
            "context_tokens_estimate": tokens,
            "model": "claude-haiku-4-5",
            "status": "completed",
        },
    }


def _handle(event: dict[str, Any], store: FakeStore) -> dict[str, Any]:
    settings = Settings(TRAINER_CONTEXT_WINDOW_TOKENS=1000, TRAINER_CHECKPOINT_THRESHOLD=0.8)
    return handle_turn_completed(event, None, CheckpointDeps(settings=settings, store=as_store(store)))


def test_handler_checkpoints_only_above_the_threshold() -> None:
    store = FakeStore()
    _long_session(store)
    assert _handle(_turn_event(800), store)["checkpointed"] is False
    assert store.session.context_start_sequence == 0
    assert _handle(_turn_event(801), store) == {"session_id": "s1", "checkpointed": True, "sequence": 6}


def test_handler_skips_a_deleted_session_and_rejects_a_bad_event() -> None:
    store = FakeStore()
    assert _handle(_turn_event(5000, session_id="gone"), store)["reason"] == "session_not_found"
    bad = _turn_event(5000)
    del bad["detail"]["session_id"]
    with pytest.raises(InvalidTurnEvent, match="session_id"):
        _handle(bad, store)
