"""`SessionStore.commit` on DynamoDB (moto): a batch of events, states, knowledge and fields lands in
one transaction or not at all, only under the lease it names, at the sequence numbers it carries."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client
from trainer.store.models import Event, EventType, KnowledgeRef
from trainer.store.ports import LeaseClaim, LeaseHeld, SequenceConflict, SessionBatch, SessionNotFound
from trainer.store.sessions import DynamoSessionStore, DynamoSessionTable
from trainer.store.sessions.keys import MAX_EVENTS_PER_COMMIT

HOLDER = "turn-test"


def events(session_id: str, first: int, count: int, size: int = 10) -> list[Event]:
    return [
        Event(
            session_id=session_id,
            sequence_number=first + i,
            event_type=EventType.TOOL_RESULT,
            timestamp=datetime.now(UTC),
            duration_ms=5,
            data={"n": first + i, "text": "x" * size},
        )
        for i in range(count)
    ]


def counted(table: DynamoSessionTable) -> Counter[str]:
    calls: Counter[str] = Counter()

    def count(model: Any = None, **_: Any) -> None:
        calls[model.name] += 1

    table.client.meta.events.register("before-call.dynamodb", count)
    return calls


@pytest.fixture
def leased(session_table: DynamoSessionTable) -> str:
    session = session_table.create_session("user-1")
    session_table.acquire_lease(session.id, HOLDER, 30)
    return session.id


def test_a_batch_lands_in_one_request_with_everything_it_carries(
    session_table: DynamoSessionTable, leased: str
) -> None:
    calls = counted(session_table)
    batch = SessionBatch(
        events=events(leased, 1, 4),
        states={"current_workout": {"title": "Push"}, "artifacts": {"a1": {"title": "Push"}}},
        knowledge=[KnowledgeRef(source="category_goals")],
        fields={"status": "completed", "metadata": {"k": 1}},
        lease=LeaseClaim(HOLDER, 30),
    )
    session_table.commit(leased, batch)

    assert calls == Counter({"TransactWriteItems": 1})
    stored = session_table.read_events(leased).events
    assert [e.sequence_number for e in stored] == [1, 2, 3, 4]
    assert stored[2].data == {"n": 3, "text": "x" * 10} and stored[2].duration_ms == 5
    assert session_table.get_state(leased, "current_workout") == {"title": "Push"}
    session = session_table.load_session(leased)
    assert session.status == "completed" and session.metadata == {"k": 1}
    assert session.last_seq == 4
    assert [r.source for r in session.knowledge_in_context] == ["category_goals"]


def test_a_commit_extends_the_lease_and_a_releasing_commit_frees_it(
    session_table: DynamoSessionTable, leased: str
) -> None:
    session_table.commit(leased, SessionBatch(events=events(leased, 1, 1), lease=LeaseClaim(HOLDER, 30)))
    with pytest.raises(LeaseHeld):
        session_table.acquire_lease(leased, "turn-other", 30)
    session_table.commit(
        leased, SessionBatch(events=events(leased, 2, 1), lease=LeaseClaim(HOLDER, 30, True))
    )
    assert session_table.acquire_lease(leased, "turn-other", 30) is None


def test_nothing_lands_when_the_lease_was_taken_over(session_table: DynamoSessionTable, leased: str) -> None:
    session_table.release_lease(leased, HOLDER)
    session_table.acquire_lease(leased, "turn-thief", 30)
    batch = SessionBatch(events=events(leased, 1, 3), states={"s": {"v": 1}}, lease=LeaseClaim(HOLDER, 30))
    with pytest.raises(LeaseHeld):
        session_table.commit(leased, batch)
    assert session_table.read_events(leased).events == []
    assert session_table.get_state(leased, "s") is None


def test_nothing_lands_when_a_sequence_number_is_taken(
    session_table: DynamoSessionTable, leased: str
) -> None:
    session_table.append_event(leased, EventType.ERROR, {"code": "x"})
    with pytest.raises(SequenceConflict):
        session_table.commit(leased, SessionBatch(events=events(leased, 1, 3), lease=LeaseClaim(HOLDER, 30)))
    assert [e.sequence_number for e in session_table.read_events(leased).events] == [1]


def test_a_deleted_session_takes_no_commit(session_table: DynamoSessionTable) -> None:
    session = session_table.create_session("user-1")
    session_table.delete_session("user-1", session.id)
    with pytest.raises(SessionNotFound):
        session_table.commit(session.id, SessionBatch(events=events(session.id, 1, 1)))
    assert session_table.read_events(session.id).events == []


def test_a_batch_past_one_transaction_lands_in_order_and_gap_free(
    session_table: DynamoSessionTable, leased: str
) -> None:
    count = MAX_EVENTS_PER_COMMIT + 15
    session_table.commit(leased, SessionBatch(events=events(leased, 1, count), lease=LeaseClaim(HOLDER, 30)))
    stored = session_table.read_events(leased).events
    assert [e.sequence_number for e in stored] == list(range(1, count + 1))


def test_a_state_too_large_for_one_item_replaces_one_that_had_parts(
    session_table: DynamoSessionTable, leased: str, aws_settings: Settings
) -> None:
    import os
    from base64 import b64encode

    big = {"blob": b64encode(os.urandom(700_000)).decode()}
    session_table.put_state(leased, "artifacts", big)
    session_table.commit(
        leased, SessionBatch(states={"artifacts": {"small": True}, "big": big}, lease=LeaseClaim(HOLDER, 30))
    )
    assert session_table.get_state(leased, "artifacts") == {"small": True}
    assert session_table.get_state(leased, "big") == big
    client = aws_client("dynamodb", aws_settings)
    items = client.query(
        TableName=aws_settings.table_name,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :blob)",
        ExpressionAttributeValues={":pk": {"S": f"SESSION#{leased}"}, ":blob": {"S": "BLOB#"}},
    )["Items"]
    big_parts = {item["SK"]["S"].split("#")[1] for item in items}
    assert len(big_parts) == 1, "the old value's parts are gone; only the new big value's remain"


def test_concurrent_commits_under_one_lease_never_share_a_number(
    session_table: DynamoSessionTable, leased: str
) -> None:
    """Two writers that both think they own the next numbers: one wins, the other writes nothing."""
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def write(tag: str) -> None:
        barrier.wait()
        batch = SessionBatch(events=events(leased, 1, 5, size=100), lease=LeaseClaim(HOLDER, 30))
        for event in batch.events:
            event.data["writer"] = tag
        try:
            session_table.commit(leased, batch)
            outcomes.append("ok")
        except SequenceConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=write, args=(tag,)) for tag in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict", "ok"]
    stored = session_table.read_events(leased).events
    assert [e.sequence_number for e in stored] == [1, 2, 3, 4, 5]
    assert len({e.data["writer"] for e in stored}) == 1


async def test_a_three_iteration_turn_makes_at_most_five_requests_per_iteration(
    session_store: DynamoSessionStore,
) -> None:
    """The write budget: everything a turn writes (events, state, knowledge, status, the lease)
    rides on one commit per step; reads are the session, the history and each state key once."""
    from trainer_dev.testing.agent_harness import FakeSelector, chest_workout, make_harness, selection
    from trainer_dev.testing.scripted_model import call

    def notify(request: Any) -> Any:
        text = request.messages[-1]["content"][0]["content"]
        return call(
            "message_notify_user", message="Here", artifact_id=text.split("artifact_id=")[1].split(" ")[0]
        )

    def script() -> list[Any]:
        return [call("generate_workout", workout=chest_workout()), notify, call("idle", reason="done")]

    selector = FakeSelector([selection("category_goals"), selection("workout_history", days_back=14)])
    h = make_harness(script(), store=session_store, selector=selector)  # type: ignore[arg-type]
    first = await h.loop.run_turn("user-1", "chest workout")
    await session_store.update_session(first.session_id, status="active")
    h.model.steps = script()
    calls = counted(session_store.table)

    result = await h.loop.run_turn("user-1", "another one", session_id=first.session_id)

    assert result.iterations == 3 and result.status == "completed"
    assert sum(calls.values()) <= 5 * result.iterations, calls
    assert result.dynamodb_requests == sum(calls.values()), "the turn counts its own requests"
    assert calls["TransactWriteItems"] <= result.iterations + 2, calls
    stored = (await session_store.read_events(first.session_id)).events
    assert [e.sequence_number for e in stored] == list(range(1, len(stored) + 1))
    assert await session_store.get_state(first.session_id, "current_workout") is not None


def test_a_cancelled_commit_leaves_existing_items_as_they_were(
    session_table: DynamoSessionTable, leased: str
) -> None:
    session_table.put_state(leased, "current_workout", {"title": "Before"})
    session_table.append_event(leased, EventType.USER_MESSAGE, {"message": "hi"})
    before = session_table.load_session(leased)
    batch = SessionBatch(
        events=events(leased, 2, 2) + events(leased, 1, 1),
        states={"current_workout": {"title": "After"}},
        fields={"status": "completed"},
        lease=LeaseClaim(HOLDER, 30),
    )
    with pytest.raises(SequenceConflict):
        session_table.commit(leased, batch)
    assert session_table.get_state(leased, "current_workout") == {"title": "Before"}
    assert [e.sequence_number for e in session_table.read_events(leased).events] == [1]
    after = session_table.load_session(leased)
    assert (after.status, after.updated_at) == (before.status, before.updated_at)


def test_a_turns_commit_is_one_conditional_put_and_knowledge_reaches_meta_on_close(
    session_table: DynamoSessionTable, leased: str, aws_settings: Settings
) -> None:
    calls = counted(session_table)
    session_table.commit(
        leased,
        SessionBatch(
            events=events(leased, 1, 3),
            states={"current_workout": {"title": "Push"}},
            knowledge=[KnowledgeRef(source="category_goals")],
            lease=LeaseClaim(HOLDER, 30),
        ),
    )
    assert calls == Counter({"PutItem": 1}), "no transaction, no META update, no lease item"
    assert [r.source for r in session_table.load_session(leased).knowledge_in_context] == ["category_goals"]

    session_table.commit(
        leased, SessionBatch(fields={"status": "completed"}, lease=LeaseClaim(HOLDER, 30, True))
    )
    meta = aws_client("dynamodb", aws_settings).get_item(
        TableName=aws_settings.table_name, Key={"PK": {"S": f"SESSION#{leased}"}, "SK": {"S": "META"}}
    )["Item"]
    assert len(meta["knowledge_in_context"]["L"]) == 1 and meta["last_seq"] == {"N": "3"}
    session = session_table.load_session(leased)
    assert [r.source for r in session.knowledge_in_context] == ["category_goals"], "moved, not copied"
    assert session.status == "completed" and session.last_seq == 3
    assert session_table.get_state(leased, "current_workout") == {"title": "Push"}


def test_a_state_lives_in_the_commit_that_set_it_and_is_read_through_later_ones(
    session_table: DynamoSessionTable, leased: str
) -> None:
    session_table.commit(
        leased,
        SessionBatch(
            events=events(leased, 1, 1),
            states={"artifacts": {"a1": {"title": "Push"}}},
            lease=LeaseClaim(HOLDER, 30),
        ),
    )
    sizes: list[int] = []

    def record_size(params: dict[str, Any], **_: Any) -> None:
        if "Item" in params:
            sizes.append(len(str(params["Item"])))

    session_table.client.meta.events.register("before-parameter-build.dynamodb.PutItem", record_size)
    session_table.commit(leased, SessionBatch(events=events(leased, 2, 1), lease=LeaseClaim(HOLDER, 30)))
    with_state = SessionBatch(
        events=events(leased, 3, 1),
        states={"artifacts": {"a1": {"title": "Push" * 200}}},
        lease=LeaseClaim(HOLDER, 30),
    )
    session_table.commit(leased, with_state)
    assert sizes[0] < 700 < sizes[1], "a commit that does not change a state does not carry it"
    assert session_table.get_state(leased, "artifacts") == {"a1": {"title": "Push" * 200}}
    session_table.commit(leased, SessionBatch(states={"artifacts": None}, lease=LeaseClaim(HOLDER, 30)))
    assert session_table.get_state(leased, "artifacts") is None


def test_a_turn_that_outlived_its_lease_writes_nothing_into_a_deleted_session(aws_settings: Settings) -> None:
    from tests.integration.store.test_session_store import FakeClock, only_the_tombstone, partition_items

    clock = FakeClock()
    table = DynamoSessionTable(aws_settings, clock=clock)
    session = table.create_session("user-1")
    table.acquire_lease(session.id, HOLDER, 30)
    table.commit(session.id, SessionBatch(events=events(session.id, 1, 1), lease=LeaseClaim(HOLDER, 30)))
    clock.advance(seconds=31)
    DynamoSessionTable(aws_settings, clock=clock).delete_session("user-1", session.id)

    with pytest.raises(LeaseHeld):
        table.commit(session.id, SessionBatch(events=events(session.id, 2, 1), lease=LeaseClaim(HOLDER, 30)))
    assert only_the_tombstone(partition_items(aws_settings, session.id))


def test_the_session_a_user_resumes_has_the_logs_last_sequence(session_table: DynamoSessionTable) -> None:
    """A turn that died before its closing commit left META behind the log: the next turn must number
    after the log, not after META."""
    session = session_table.create_session("user-1")
    session_table.acquire_lease(session.id, HOLDER, 30)
    session_table.commit(
        session.id, SessionBatch(events=events(session.id, 1, 3), lease=LeaseClaim(HOLDER, 30))
    )

    resumed = DynamoSessionTable(session_table._settings).get_or_create_session("user-1")
    assert (resumed.id, resumed.last_seq) == (session.id, 3)
