"""Turn cost arithmetic (docs/architecture.md#tokens-and-cost) and TurnCompleted parsing; no I/O."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from trainer.chat.turn_completed import InvalidTurnEvent, TurnCompleted, parse_turn_completed
from trainer.jobs.costs import TurnCost, cache_hit_rate, turn_cost, turn_day
from trainer.store.models import Event, EventType

T0 = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)


def response(seq: int, prompt: int, completion: int, cached: int, cost: float, **extra: Any) -> Event:
    tokens = {
        "prompt": prompt,
        "completion": completion,
        "cached": cached,
        "cache_write": extra.get("write", 0),
    }
    if "total" in extra:
        tokens["total"] = extra["total"]
    return Event(
        session_id="s1",
        sequence_number=seq,
        event_type=EventType.LLM_RESPONSE,
        timestamp=extra.get("at", T0),
        data={"tokens": tokens, "cost_cents": cost, "raw_response": {}},
    )


def turn(first: int = 3, last: int = 9, **fields: Any) -> TurnCompleted:
    return TurnCompleted(
        turn_id="t1", session_id="s1", user_id="u1", first_seq=first, last_seq=last, **fields
    )


def test_sums_only_the_turns_llm_responses() -> None:
    events = [
        response(2, 999, 999, 999, 9.9),
        response(4, 200, 200, 4000, 0.5, write=800, total=5200),
        Event(session_id="s1", sequence_number=5, event_type=EventType.TOOL_CALL, timestamp=T0),
        response(7, 1000, 100, 5000, 0.25),
        response(10, 999, 999, 999, 9.9),
    ]
    assert turn_cost(events, turn()) == TurnCost(
        llm_calls=2,
        prompt_tokens=2000,
        completion_tokens=300,
        cached_tokens=9000,
        cache_write_tokens=800,
        total_tokens=11300,
        cost_cents=0.75,
    )


def test_falls_back_to_the_event_usage_when_the_turn_logged_no_responses() -> None:
    detail = turn(
        usage={
            "input_tokens": 100,
            "output_tokens": 50,
            "cache_creation_input_tokens": 300,
            "cache_read_input_tokens": 4000,
        },
        cost_cents=0.4,
    )
    assert turn_cost([], detail) == TurnCost(
        llm_calls=0,
        prompt_tokens=400,
        completion_tokens=50,
        cached_tokens=4000,
        cache_write_tokens=300,
        total_tokens=4450,
        cost_cents=0.4,
    )


def test_malformed_token_values_count_as_zero() -> None:
    bad = Event(
        session_id="s1",
        sequence_number=4,
        event_type=EventType.LLM_RESPONSE,
        timestamp=T0,
        data={"tokens": {"prompt": "lots", "completion": -5}, "cost_cents": None},
    )
    assert turn_cost([bad], turn()) == TurnCost(llm_calls=1)


def test_increments_use_the_store_field_names() -> None:
    cost = TurnCost(2, 100, 20, 60, 10, 120, 0.5)
    assert cost.session_increments() == {
        "total_tokens": 120,
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "cached_tokens": 60,
        "cache_write_tokens": 10,
        "total_cost_cents": 0.5,
    }
    assert cost.daily_increments()["turns"] == 1
    assert cost.daily_increments()["tokens"] == 120
    assert cost.daily_increments()["cost_cents"] == 0.5


def test_cache_hit_rate_is_cached_over_uncached_plus_cached() -> None:
    assert cache_hit_rate(9000, 2000) == 81.82
    assert cache_hit_rate(0, 0) == 0.0


def test_turn_day_is_the_utc_day_of_the_last_response() -> None:
    late = response(4, 1, 1, 0, 0, at=T0)
    after_midnight = response(5, 1, 1, 0, 0, at=T0 + timedelta(minutes=2))
    assert turn_day([late], fallback=T0 + timedelta(days=5)) == date(2026, 3, 1)
    assert turn_day([late, after_midnight], fallback=T0) == date(2026, 3, 2)
    assert turn_day([], fallback=T0) == date(2026, 3, 1)


def test_parse_accepts_an_envelope_or_a_bare_detail() -> None:
    detail = {"turn_id": "t1", "session_id": "s1", "user_id": "u1", "first_seq": 1, "last_seq": 4}
    envelope = {"detail-type": "TurnCompleted", "source": "trainer.agent", "detail": detail}
    assert parse_turn_completed(envelope) == parse_turn_completed(detail)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"detail-type": "SomethingElse", "detail": {}}, "unexpected detail-type"),
        ({"detail-type": "TurnCompleted", "detail": {"turn_id": "t1"}}, "session_id"),
        (
            {"detail": {"turn_id": "", "session_id": "s", "user_id": "u", "first_seq": 1, "last_seq": 1}},
            "turn_id",
        ),
        ("not a dict", "expected an EventBridge event object"),
    ],
)
def test_parse_rejects_malformed_events_clearly(event: Any, message: str) -> None:
    with pytest.raises(InvalidTurnEvent, match=message):
        parse_turn_completed(event)
