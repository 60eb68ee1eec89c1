"""TurnStore: a turn's writes buffered and committed atomically, state read once, the lease extended
by every commit, numbering gap-free whatever fails."""

from __future__ import annotations

import pytest
from trainer.chat.turn_store import LeaseLost, TurnStore
from trainer.store.models import EventType, KnowledgeRef
from trainer.store.ports import StoreUnavailable
from trainer_dev.testing.memory_store import InMemorySessionStore

HOLDER = "turn-1"


async def leased_store() -> tuple[InMemorySessionStore, TurnStore]:
    inner = InMemorySessionStore()
    session = inner.new_session("user-1")
    await inner.acquire_lease(session.id, HOLDER, 30)
    return inner, TurnStore(inner, session, HOLDER, lambda: 30)


async def test_writes_wait_for_a_flush_and_land_in_one_commit() -> None:
    inner, store = await leased_store()
    sid = store.session_id
    first = await store.append_event(sid, EventType.USER_MESSAGE, {"message": "hi"})
    await store.put_state(sid, "current_workout", {"title": "Push"})
    await store.add_knowledge(sid, [KnowledgeRef(source="category_goals")])
    second = await store.append_event(sid, EventType.TOOL_CALL, {"tool_name": "idle"})
    assert (first.sequence_number, second.sequence_number) == (1, 2)
    assert inner.all_events(sid) == [] and store.durable_seq == 0

    await store.flush()

    assert [e.sequence_number for e in inner.all_events(sid)] == [1, 2]
    assert await inner.get_state(sid, "current_workout") == {"title": "Push"}
    assert [r.source for r in (await inner.load_session(sid)).knowledge_in_context] == ["category_goals"]
    assert inner.calls["commit"] == 1 and store.durable_seq == 2
    assert inner.calls["append_event"] == inner.calls["put_state"] == inner.calls["add_knowledge"] == 0


async def test_state_is_read_once_and_the_turn_sees_its_own_writes() -> None:
    inner, store = await leased_store()
    sid = store.session_id
    await inner.put_state(sid, "artifacts", {"a": 1})
    assert await store.get_state(sid, "artifacts") == {"a": 1}
    await store.put_state(sid, "artifacts", {"a": 2})
    assert await store.get_state(sid, "artifacts") == {"a": 2}
    await store.delete_state(sid, "artifacts")
    assert await store.get_state(sid, "artifacts") is None
    assert inner.calls["get_state"] == 1


async def test_reading_events_commits_first() -> None:
    _, store = await leased_store()
    sid = store.session_id
    await store.append_event(sid, EventType.USER_MESSAGE, {"message": "hi"})
    page = await store.read_events(sid)
    assert [e.data for e in page.events] == [{"message": "hi"}]


async def test_every_commit_extends_the_lease_and_the_last_releases_it() -> None:
    inner, store = await leased_store()
    sid = store.session_id
    inner.expire_lease(sid)
    await store.append_event(sid, EventType.USER_MESSAGE, {"message": "hi"})
    await store.flush()
    assert inner.lease_holder(sid) == HOLDER
    await store.close(status="completed")
    assert inner.lease_holder(sid) is None and store.released
    assert (await inner.load_session(sid)).status == "completed"


async def test_a_lost_lease_stops_every_write() -> None:
    inner, store = await leased_store()
    sid = store.session_id
    inner.expire_lease(sid)
    await inner.acquire_lease(sid, "turn-2", 30)
    await store.append_event(sid, EventType.USER_MESSAGE, {"message": "hi"})
    with pytest.raises(LeaseLost):
        await store.flush()
    with pytest.raises(LeaseLost):
        await store.append_event(sid, EventType.ERROR, {"code": "x"})
    with pytest.raises(LeaseLost):
        await store.close(status="error")
    assert inner.all_events(sid) == [] and inner.lease_holder(sid) == "turn-2"


async def test_a_turn_writes_nothing_once_its_own_lease_ran_out() -> None:
    """A turn stalled longer than its lease (its renewals starved) may have been taken over, or its
    session deleted, without knowing: it stops rather than write past the lease's end (the deletion
    keeps a session's tombstone only until then)."""
    inner, store = await leased_store()
    sid = store.session_id
    await store.append_event(sid, EventType.USER_MESSAGE, {"message": "hi"})
    store.extended_at -= 31  # acquired for 30 s, 31 s ago
    with pytest.raises(LeaseLost, match="ran out"):
        await store.flush()
    assert store.lost and inner.all_events(sid) == [] and inner.calls["commit"] == 0


class FailingCommits(InMemorySessionStore):
    failures = 1

    async def commit(self, session_id, batch):  # type: ignore[no-untyped-def]
        if self.failures:
            self.failures -= 1
            raise StoreUnavailable("down")
        await super().commit(session_id, batch)


async def test_after_a_failed_commit_writes_go_through_and_numbering_stays_gap_free() -> None:
    inner = FailingCommits()
    session = inner.new_session("user-1")
    await inner.acquire_lease(session.id, HOLDER, 30)
    store = TurnStore(inner, session, HOLDER, lambda: 30)
    sid = session.id
    await store.append_event(sid, EventType.USER_MESSAGE, {"message": "hi"})
    await store.append_event(sid, EventType.TOOL_CALL, {"tool_name": "idle"})
    store.flush_soon()
    with pytest.raises(StoreUnavailable):
        await store.settle()

    error = await store.append_event(sid, EventType.ERROR, {"code": "store_unavailable"})
    await store.close(status="error")

    assert error.sequence_number == 1
    assert [e.event_type for e in inner.all_events(sid)] == [EventType.ERROR]
    assert (await inner.load_session(sid)).status == "error"
    assert inner.lease_holder(sid) is None


async def test_background_flushes_commit_in_order() -> None:
    inner, store = await leased_store()
    sid = store.session_id
    for n in range(3):
        await store.append_event(sid, EventType.USER_MESSAGE, {"n": n})
        store.flush_soon()
    await store.settle()
    assert [e.data["n"] for e in inner.all_events(sid)] == [0, 1, 2]
    assert store.durable_seq == 3
