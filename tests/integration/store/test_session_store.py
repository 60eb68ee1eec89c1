"""DynamoSessionTable (and its async DynamoSessionStore) on a moto server: sequencing, leases, expiry,
isolation, paging, large items."""

from __future__ import annotations

import json
import os
import threading
from base64 import b64encode
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client
from trainer.store.metrics import DailyMetricsStore
from trainer.store.models import EventType, KnowledgeRef
from trainer.store.ports import LeaseHeld, SessionNotFound, SessionStore
from trainer.store.sessions import DynamoSessionStore, DynamoSessionTable


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def clocked_store(aws_settings: Settings, clock: FakeClock) -> DynamoSessionTable:
    return DynamoSessionTable(aws_settings, clock=clock)


def partition_items(settings: Settings, session_id: str) -> list[dict[str, Any]]:
    client = aws_client("dynamodb", settings)
    response = client.query(
        TableName=settings.table_name,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": f"SESSION#{session_id}"}},
        ConsistentRead=True,
    )
    return list(response["Items"])


def only_the_tombstone(items: list[dict[str, Any]]) -> bool:
    """What a deleted session leaves until it expires: the deleter's lease marker, no event, no state
    and no pointer to one, so a turn that outlived its lease cannot write into the session."""
    return len(items) == 1 and items[0]["kind"] == {"S": "marker"} and "state_at" not in items[0]


def attribute_size(value: dict[str, Any]) -> int:
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner.encode("utf-8"))
    if kind == "B":
        return len(inner)
    if kind == "M":
        return sum(len(name) + attribute_size(v) for name, v in inner.items())
    if kind == "L":
        return sum(attribute_size(v) for v in inner)
    return len(str(inner))


def in_threads(count: int, work: Callable[[int], Any]) -> list[Any]:
    barrier = threading.Barrier(count)

    def run(index: int) -> Any:
        barrier.wait()
        return work(index)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


async def test_the_async_adapter_satisfies_the_port(session_store: DynamoSessionStore) -> None:
    store: SessionStore = session_store
    session = await store.create_session("user-a")
    await store.append_event(session.id, EventType.USER_MESSAGE, {"message": "hi"})
    assert (await store.load_session(session.id)).last_seq == 1
    assert [e.data for e in (await store.read_events(session.id)).events] == [{"message": "hi"}]


def test_twenty_concurrent_writers_get_gap_free_unique_sequence_numbers(aws_settings: Settings) -> None:
    session = DynamoSessionTable(aws_settings).create_session("user-a")
    stores = [DynamoSessionTable(aws_settings) for _ in range(4)]
    per_writer = 3

    def write(writer: int) -> list[int]:
        store = stores[writer % len(stores)]
        return [
            store.append_event(session.id, EventType.TOOL_RESULT, {"writer": writer, "n": n}).sequence_number
            for n in range(per_writer)
        ]

    returned = [seq for seqs in in_threads(20, write) for seq in seqs]
    total = 20 * per_writer
    assert sorted(returned) == list(range(1, total + 1))

    events = DynamoSessionTable(aws_settings).read_events(session.id).events
    assert [event.sequence_number for event in events] == list(range(1, total + 1))
    written = sorted((event.data["writer"], event.data["n"]) for event in events)
    assert written == [(writer, n) for writer in range(20) for n in range(per_writer)]
    assert DynamoSessionTable(aws_settings).load_session(session.id).last_seq == total


def test_a_stale_writer_never_overwrites_an_existing_event(aws_settings: Settings) -> None:
    first, second = DynamoSessionTable(aws_settings), DynamoSessionTable(aws_settings)
    session = first.create_session("user-a")
    assert first.append_event(session.id, EventType.USER_MESSAGE, {"message": "one"}).sequence_number == 1
    assert second.append_event(session.id, EventType.USER_MESSAGE, {"message": "two"}).sequence_number == 2
    assert first.append_event(session.id, EventType.USER_MESSAGE, {"message": "three"}).sequence_number == 3

    messages = [event.data["message"] for event in second.read_events(session.id).events]
    assert messages == ["one", "two", "three"]


def test_appending_to_an_unknown_or_deleted_session_fails_without_leaving_events(
    aws_settings: Settings,
) -> None:
    store = DynamoSessionTable(aws_settings)
    with pytest.raises(SessionNotFound):
        store.append_event("no-such-session", EventType.USER_MESSAGE, {"message": "hi"})

    session = store.create_session("user-a")
    store.append_event(session.id, EventType.USER_MESSAGE, {"message": "hi"})
    DynamoSessionTable(aws_settings).delete_session("user-a", session.id)
    with pytest.raises(SessionNotFound):
        DynamoSessionTable(aws_settings).append_event(
            session.id, EventType.USER_MESSAGE, {"message": "after delete"}
        )
    assert only_the_tombstone(partition_items(aws_settings, session.id))


def test_a_session_cannot_be_deleted_while_a_turn_holds_its_lease(aws_settings: Settings) -> None:
    store = DynamoSessionTable(aws_settings)
    session = store.create_session("user-a")
    store.acquire_lease(session.id, "turn-1", 60)
    with pytest.raises(LeaseHeld):
        DynamoSessionTable(aws_settings).delete_session("user-a", session.id)
    store.append_event(session.id, EventType.USER_MESSAGE, {"message": "still here"})
    store.release_lease(session.id, "turn-1")
    DynamoSessionTable(aws_settings).delete_session("user-a", session.id)
    assert only_the_tombstone(partition_items(aws_settings, session.id))


def test_an_append_is_one_conditional_write(aws_settings: Settings) -> None:
    """One transaction: the record at the next slot, and a check that the session is live (an append
    holds no lease, so nothing else keeps it out of a deleted session)."""
    store = DynamoSessionTable(aws_settings)
    session = store.create_session("user-a")
    store.append_event(session.id, EventType.USER_MESSAGE, {"message": "first"})
    calls: list[str] = []
    store._client.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    store.append_event(session.id, EventType.USER_MESSAGE, {"message": "second"})
    assert calls == ["TransactWriteItems"]
    assert DynamoSessionTable(aws_settings).load_session(session.id).last_seq == 2


def test_event_data_round_trips_exactly(session_table: DynamoSessionTable) -> None:
    session = session_table.create_session("user-a")
    data = {"x": 0.1 + 0.2, "big": 12345678901234567890, "nested": {"list": [1, "two", None, True]}, "é": "ü"}
    appended = session_table.append_event(session.id, EventType.TOOL_RESULT, data, duration_ms=42)

    (event,) = session_table.read_events(session.id).events
    assert event.data == data
    assert event.duration_ms == 42
    assert event.timestamp == appended.timestamp
    assert event.event_type is EventType.TOOL_RESULT


def test_non_json_event_data_is_a_clear_error(session_table: DynamoSessionTable) -> None:
    session = session_table.create_session("user-a")
    with pytest.raises(ValueError, match="JSON-serialisable"):
        session_table.append_event(session.id, EventType.TOOL_RESULT, {"obj": object()})
    with pytest.raises(ValueError):
        session_table.append_event(session.id, "not-a-type", {})  # type: ignore[arg-type]


def test_lease_refuses_a_second_holder_until_release_or_expiry(clocked_store: DynamoSessionTable) -> None:
    store, clock = clocked_store, clocked_store._clock
    assert isinstance(clock, FakeClock)
    session = store.create_session("user-a")

    store.acquire_lease(session.id, "turn-1", ttl_seconds=60)
    with pytest.raises(LeaseHeld):
        store.acquire_lease(session.id, "turn-2", ttl_seconds=60)
    store.acquire_lease(session.id, "turn-1", ttl_seconds=60)

    clock.advance(seconds=61)
    store.acquire_lease(session.id, "turn-2", ttl_seconds=60)
    store.release_lease(session.id, "turn-1")
    with pytest.raises(LeaseHeld):
        store.acquire_lease(session.id, "turn-3", ttl_seconds=60)

    store.release_lease(session.id, "turn-2")
    store.acquire_lease(session.id, "turn-3", ttl_seconds=60)


def test_only_one_of_many_concurrent_lease_requests_wins(session_table: DynamoSessionTable) -> None:
    session = session_table.create_session("user-a")

    def attempt(index: int) -> bool:
        try:
            session_table.acquire_lease(session.id, f"turn-{index}", ttl_seconds=60)
        except LeaseHeld:
            return False
        return True

    assert sum(in_threads(10, attempt)) == 1


def _dynamodb_requests(table: DynamoSessionTable) -> list[str]:
    seen: list[str] = []
    table.client.meta.events.register(
        "before-call.dynamodb", lambda model, **_: seen.append(model.name), unique_id=f"seen-{id(seen)}"
    )
    return seen


def test_a_lease_on_a_session_this_process_just_read_or_made_takes_one_write(aws_settings: Settings) -> None:
    table = DynamoSessionTable(aws_settings)
    seen = _dynamodb_requests(table)
    created = table.create_session("user-a")
    table.acquire_lease(created.id, "turn-1", ttl_seconds=60)
    assert seen == ["TransactWriteItems", "PutItem"], (
        "META with its index entry (checking the account's tombstone), then the marker: no read of an "
        "empty log"
    )
    table.release_lease(created.id, "turn-1")
    other = DynamoSessionTable(aws_settings)
    seen = _dynamodb_requests(other)
    other.load_session(created.id)
    other.acquire_lease(created.id, "turn-2", ttl_seconds=60)
    assert seen == ["GetItem", "Query", "PutItem"], "the head load_session read serves the lease"


def test_a_stale_head_never_wins_a_held_lease_nor_refuses_a_free_one(aws_settings: Settings) -> None:
    """The lease's first attempt trusts the head this process knows, which another process may have
    moved on: a lease released there is still granted here (no LeaseHeld from a stale guess), and a
    lease taken there is still refused here."""
    here, there = DynamoSessionTable(aws_settings), DynamoSessionTable(aws_settings)
    session = here.create_session("user-a")
    there.acquire_lease(session.id, "turn-a", ttl_seconds=60)
    here.load_session(session.id)  # here knows a head whose lease turn-a holds
    there.release_lease(session.id, "turn-a")
    assert here.acquire_lease(session.id, "turn-b", ttl_seconds=60) is None

    here.release_lease(session.id, "turn-b")  # here knows the head free
    there.acquire_lease(session.id, "turn-c", ttl_seconds=60)
    with pytest.raises(LeaseHeld):
        here.acquire_lease(session.id, "turn-d", ttl_seconds=60)


def test_expired_items_are_not_returned(aws_settings: Settings, clocked_store: DynamoSessionTable) -> None:
    store, clock = clocked_store, clocked_store._clock
    assert isinstance(clock, FakeClock)
    ttl_days = aws_settings.session_ttl_days
    session = store.create_session("user-a")
    store.append_event(session.id, EventType.USER_MESSAGE, {"message": "old"})
    store.put_state(session.id, "current_workout", {"title": "old"})

    clock.advance(days=ttl_days - 1)
    store.append_event(session.id, EventType.USER_MESSAGE, {"message": "recent"})
    store.update_session(session.id, status="completed")
    clock.advance(days=2)
    assert [e.data["message"] for e in store.read_events(session.id).events] == ["recent"]
    assert store.get_state(session.id, "current_workout") is None
    assert store.get_session("user-a", session.id).last_seq == 2

    clock.advance(days=ttl_days)
    with pytest.raises(SessionNotFound):
        store.get_session("user-a", session.id)
    assert store.list_sessions("user-a") == []
    assert store.read_events(session.id).events == []
    assert store.get_or_create_session("user-a").id != session.id


def test_another_users_session_is_never_visible(session_table: DynamoSessionTable) -> None:
    session = session_table.create_session("owner")
    session_table.append_event(session.id, EventType.USER_MESSAGE, {"message": "private"})

    with pytest.raises(SessionNotFound):
        session_table.get_session("intruder", session.id)
    with pytest.raises(SessionNotFound):
        session_table.get_or_create_session("intruder", session.id)
    with pytest.raises(SessionNotFound):
        session_table.delete_session("intruder", session.id)
    assert session_table.list_sessions("intruder") == []
    assert session_table.get_or_create_session("intruder").id != session.id

    assert session_table.get_session("owner", session.id).last_seq == 1
    assert len(session_table.read_events(session.id).events) == 1


def test_unknown_and_malformed_session_ids_are_not_found(session_table: DynamoSessionTable) -> None:
    for bad in ("missing", "", "x" * 500, "bad\nid"):
        with pytest.raises(SessionNotFound):
            session_table.get_session("user-a", bad)
        with pytest.raises(SessionNotFound):
            session_table.delete_session("user-a", bad)


def test_read_events_pages_by_limit_and_filters_types(session_table: DynamoSessionTable) -> None:
    session = session_table.create_session("user-a")
    for n in range(1, 26):
        kind = EventType.LLM_RESPONSE if n % 5 == 0 else EventType.USER_MESSAGE
        session_table.append_event(session.id, kind, {"n": n})

    pages, after = [], 0
    while True:
        page = session_table.read_events(session.id, after=after, limit=10)
        pages.append([event.sequence_number for event in page.events])
        if page.next_after is None:
            break
        after = page.next_after
    assert pages == [list(range(1, 11)), list(range(11, 21)), list(range(21, 26))]

    exact = session_table.read_events(session.id, after=15, limit=10)
    assert [e.sequence_number for e in exact.events] == list(range(16, 26))
    assert exact.next_after is None

    llm = session_table.read_events(session.id, limit=3, types=frozenset({EventType.LLM_RESPONSE}))
    assert [e.sequence_number for e in llm.events] == [5, 10, 15]
    assert llm.next_after == 15
    rest = session_table.read_events(session.id, after=15, types=frozenset({EventType.LLM_RESPONSE}))
    assert [e.sequence_number for e in rest.events] == [20, 25]

    with pytest.raises(ValueError):
        session_table.read_events(session.id, limit=0)


def test_list_sessions_newest_first_with_limit(clocked_store: DynamoSessionTable) -> None:
    store, clock = clocked_store, clocked_store._clock
    assert isinstance(clock, FakeClock)
    first = store.create_session("user-a")
    clock.advance(minutes=1)
    second = store.create_session("user-a")
    clock.advance(minutes=1)
    third = store.create_session("user-a")
    store.create_session("user-b")
    clock.advance(minutes=1)
    store.append_event(first.id, EventType.USER_MESSAGE, {"message": "back again"})
    store.update_session(first.id, status="completed")

    assert [s.id for s in store.list_sessions("user-a")] == [first.id, third.id, second.id]
    assert [s.id for s in store.list_sessions("user-a", limit=2)] == [first.id, third.id]
    with pytest.raises(ValueError):
        store.list_sessions("user-a", limit=0)


def test_get_or_create_returns_most_recent_active_else_creates(clocked_store: DynamoSessionTable) -> None:
    store, clock = clocked_store, clocked_store._clock
    assert isinstance(clock, FakeClock)
    created = store.get_or_create_session("user-a")
    clock.advance(minutes=1)
    assert store.get_or_create_session("user-a").id == created.id

    newer = store.create_session("user-a")
    clock.advance(minutes=1)
    assert store.get_or_create_session("user-a").id == newer.id

    store.update_session(newer.id, status="completed")
    clock.advance(minutes=1)
    assert store.get_or_create_session("user-a").id == created.id
    store.update_session(created.id, status="error")
    fresh = store.get_or_create_session("user-a")
    assert fresh.id not in {created.id, newer.id}
    assert store.get_or_create_session("user-a", newer.id).id == newer.id


def test_delete_removes_events_state_lease_and_large_payloads(
    aws_settings: Settings, session_table: DynamoSessionTable
) -> None:
    session = session_table.create_session("user-a")
    keep = session_table.create_session("user-a")
    for n in range(30):
        session_table.append_event(session.id, EventType.USER_MESSAGE, {"n": n})
    session_table.append_event(
        session.id, EventType.TOOL_RESULT, {"blob": b64encode(os.urandom(450_000)).decode()}
    )
    session_table.put_state(session.id, "current_workout", {"title": "Legs"})
    session_table.acquire_lease(session.id, "turn-1", ttl_seconds=60)
    session_table.release_lease(session.id, "turn-1")
    session_table.append_event(keep.id, EventType.USER_MESSAGE, {"n": 0})

    session_table.delete_session("user-a", session.id)

    assert only_the_tombstone(partition_items(aws_settings, session.id))
    with pytest.raises(SessionNotFound):
        session_table.get_session("user-a", session.id)
    assert [s.id for s in session_table.list_sessions("user-a")] == [keep.id]
    assert len(session_table.read_events(keep.id).events) == 1


def test_large_payloads_round_trip_and_every_item_stays_under_the_limit(
    aws_settings: Settings, session_table: DynamoSessionTable
) -> None:
    session = session_table.create_session("user-a")
    incompressible = {"result": b64encode(os.urandom(700_000)).decode(), "success": True}
    compressible = {"rows": [{"exercise": "Back Squat", "reps": [5, 5, 5], "load": 102.5}] * 20_000}
    session_table.append_event(session.id, EventType.TOOL_RESULT, incompressible)
    session_table.append_event(session.id, EventType.TOOL_RESULT, compressible)
    session_table.append_event(session.id, EventType.USER_MESSAGE, {"message": "small"})

    events = session_table.read_events(session.id).events
    assert [e.data for e in events] == [incompressible, compressible, {"message": "small"}]
    assert len(json.dumps(compressible)) > 400_000

    for item in partition_items(aws_settings, session.id):
        assert sum(len(name) + attribute_size(value) for name, value in item.items()) < 400_000


def test_state_round_trips_is_overwritten_and_deleted(
    aws_settings: Settings, session_table: DynamoSessionTable
) -> None:
    session = session_table.create_session("user-a")
    assert session_table.get_state(session.id, "current_workout") is None

    large = {"workouts": {f"w{i}": b64encode(os.urandom(3_000)).decode() for i in range(200)}}
    session_table.put_state(session.id, "displayables", large)
    assert session_table.get_state(session.id, "displayables") == large
    blob_items = [i for i in partition_items(aws_settings, session.id) if i["SK"]["S"].startswith("BLOB#")]
    assert blob_items

    session_table.put_state(session.id, "displayables", {"workouts": {}})
    assert session_table.get_state(session.id, "displayables") == {"workouts": {}}
    assert not [i for i in partition_items(aws_settings, session.id) if i["SK"]["S"].startswith("BLOB#")]

    session_table.put_state(session.id, "current_workout", {"title": "Push", "load": 72.5})
    session_table.delete_state(session.id, "current_workout")
    assert session_table.get_state(session.id, "current_workout") is None
    assert session_table.get_state(session.id, "displayables") == {"workouts": {}}


def test_usage_and_knowledge_updates_are_atomic(session_table: DynamoSessionTable) -> None:
    session = session_table.create_session("user-a")

    def record(index: int) -> None:
        session_table.add_usage(
            session.id, total_tokens=100, cached_tokens=30, prompt_tokens=70, total_cost_cents=0.1
        )
        session_table.add_knowledge(
            session.id, [KnowledgeRef(source=f"source-{index}", params={"days": index})]
        )

    in_threads(10, record)
    loaded = session_table.load_session(session.id)
    assert loaded.total_tokens == 1000
    assert loaded.cached_tokens == 300
    assert loaded.total_cost_cents == pytest.approx(1.0)
    assert loaded.cache_hit_rate == pytest.approx(30.0)
    assert sorted(ref.source for ref in loaded.knowledge_in_context) == sorted(
        f"source-{i}" for i in range(10)
    )

    with pytest.raises(ValueError, match="cannot add"):
        session_table.add_usage(session.id, last_seq=5)
    with pytest.raises(SessionNotFound):
        session_table.add_usage("missing", total_tokens=1)


def test_update_session_sets_fields_and_rejects_unknown_or_invalid_ones(
    session_table: DynamoSessionTable,
) -> None:
    session = session_table.create_session("user-a")
    updated = session_table.update_session(
        session.id,
        context_start_sequence=7,
        knowledge_in_context=[],
        metadata={"client": "ios", "ratio": 0.3},
        status="completed",
    )
    assert (updated.context_start_sequence, updated.status) == (7, "completed")
    assert session_table.load_session(session.id).metadata == {"client": "ios", "ratio": 0.3}

    with pytest.raises(ValueError, match="cannot update"):
        session_table.update_session(session.id, last_seq=100)
    with pytest.raises(ValueError, match="status"):
        session_table.update_session(session.id, status="paused")
    with pytest.raises(SessionNotFound):
        session_table.update_session("missing", status="completed")


def test_daily_metrics_accumulate_atomically(aws_settings: Settings) -> None:
    metrics = DailyMetricsStore(aws_settings)
    day = date(2026, 3, 4)
    assert metrics.get("user-a", day) == {}

    in_threads(8, lambda _: metrics.add("user-a", day, turns=1, input_tokens=250, cost_cents=0.125))
    assert metrics.get("user-a", day) == {"turns": 8, "input_tokens": 2000, "cost_cents": 1.0}
    assert metrics.get("user-a", date(2026, 3, 5)) == {}
    assert metrics.get("user-b", day) == {}
    with pytest.raises(ValueError):
        metrics.add("user-a", day, **{"bad name": 1})
