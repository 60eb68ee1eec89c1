"""The log's records: a commit's events with the state values it set as one `EVENT#` item (or a marker
with no events), written as the new head; and the events read back from them."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import uuid4

from trainer.store.models import Event, EventPage, EventType
from trainer.store.sessions.codec import encode_payload, iso, plain_number
from trainer.store.sessions.head import KIND_EVENTS, KIND_MARKER, NO_STATE
from trainer.store.sessions.items import TableItems, expired
from trainer.store.sessions.keys import MAX_EVENTS_PER_COMMIT, MAX_SEQ, Item, event_sk, session_pk, valid_id


def record_item(
    pk: str,
    events: list[Event],
    states: dict[str, dict[str, Any] | None],
    lease: Item,
    pointers: dict[str, str],
    expires_at: int,
    slot: int | None = None,
) -> tuple[Item, list[Item]]:
    """A log record: `events` (consecutive) with the state values this commit set, or a marker
    (no events) at `slot`; it carries the lease fields and the state pointers as the new head. The
    BLOB part items of a large body come with it, to write first."""
    first = events[0].sequence_number if events else int(slot or 1)
    body: dict[str, Any] = {
        "events": [
            [e.sequence_number, EventType(e.event_type).value, iso(e.timestamp), e.duration_ms, e.data]
            for e in events
        ]
    }
    record_states = {key: value for key, value in states.items() if value is not None}
    if record_states:
        body["states"] = record_states
    item: Item = {
        "PK": {"S": pk},
        "SK": {"S": event_sk(first)},
        "kind": {"S": KIND_EVENTS if events else KIND_MARKER},
        "last": {"N": str(events[-1].sequence_number if events else first - 1)},
        "token": {"S": uuid4().hex},
        "expires_at": {"N": str(expires_at)},
        **lease,
    }
    blob_items: list[Item] = []
    if events:
        payload, blob_items = encode_payload("body", body, pk, expires_at)
        item.update(payload)
    sk = item["SK"]["S"]
    merged = dict(pointers)
    for key, value in states.items():
        merged[key] = NO_STATE if value is None else sk
    if merged:
        item["state_at"] = {"M": {key: {"S": pointer} for key, pointer in sorted(merged.items())}}
    return item, blob_items


def read_events(
    items: TableItems,
    session_id: str,
    after: int = 0,
    limit: int | None = None,
    types: frozenset[EventType] | None = None,
) -> EventPage:
    """The session's events after sequence `after`, oldest first: at most `limit` (then `next_after`
    says where the next page starts), of `types` only when given."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError("limit must be a positive integer")
    if not valid_id(session_id) or after >= MAX_SEQ:
        return EventPage(events=[])
    after = max(after, 0)
    query: dict[str, Any] = {
        "TableName": items.name,
        "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
        "ExpressionAttributeValues": {
            ":pk": {"S": session_pk(session_id)},
            ":lo": {"S": event_sk(max(after + 2 - MAX_EVENTS_PER_COMMIT, 1))},
            ":hi": {"S": event_sk(MAX_SEQ)},
        },
        "ConsistentRead": True,
    }
    if limit is not None:
        query["Limit"] = limit + 1
    wanted = {EventType(t) for t in types} if types else None
    now = items.epoch()
    events: list[Event] = []
    for item in items.query(query):
        if expired(item, now):
            continue
        for event in _events_of(items, session_id, item):
            if event.sequence_number <= after or (wanted and event.event_type not in wanted):
                continue
            events.append(event)
            if limit is not None and len(events) > limit:
                return EventPage(events=events[:limit], next_after=events[limit - 1].sequence_number)
    return EventPage(events=events)


def _events_of(items: TableItems, session_id: str, item: Item) -> list[Event]:
    kind = item.get("kind", {}).get("S")
    if kind is None:
        return [_event_from_item(items, session_id, item)]
    if kind != KIND_EVENTS:
        return []
    body = items.payload(item["PK"]["S"], item, "body")
    return [
        Event(
            session_id=session_id,
            sequence_number=seq,
            event_type=EventType(event_type),
            timestamp=datetime.fromisoformat(stamp),
            duration_ms=duration,
            data=data,
        )
        for seq, event_type, stamp, duration, data in body.get("events", [])
    ]


def _event_from_item(items: TableItems, session_id: str, item: Item) -> Event:
    """An event written one to an item, before the log held records."""
    duration = item.get("duration_ms")
    return Event(
        session_id=session_id,
        sequence_number=int(item["SK"]["S"].removeprefix("EVENT#")),
        event_type=EventType(item["event_type"]["S"]),
        timestamp=datetime.fromisoformat(item["timestamp"]["S"]),
        duration_ms=int(plain_number(duration)) if duration else None,
        data=items.payload(item["PK"]["S"], item, "data"),
    )
