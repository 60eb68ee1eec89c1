"""Writes to a session's log: an event appended on its own, and a turn's commit (its events, state
values, knowledge, fields and lease claim landing together or not at all).

One write per commit in the common case: a conditional PutItem of one record at the head's next slot
holding the events and the state values they set, and the lease claim (extended or released) as the new
head. The condition (the slot is free, or is the marker this writer last saw) is what makes the sequence
numbers free and the lease still the claimant's. A batch with fields or knowledge, without a lease, with
states but no events, or past one record's events, is one TransactWriteItems of its records, state
items and a META update."""

from __future__ import annotations

import logging
import random
import time
from dataclasses import replace
from datetime import datetime
from typing import Any
from uuid import uuid4

from trainer.store.models import Event, EventType, KnowledgeRef
from trainer.store.ports import LeaseHeld, SequenceConflict, SessionBatch, SessionNotFound
from trainer.store.sessions.codec import blob_keys, dumps, encode_payload, iso
from trainer.store.sessions.head import (
    APPEND_ATTEMPTS,
    Head,
    Heads,
    carried,
    head_of,
    lease_fields,
    pending_knowledge,
)
from trainer.store.sessions.items import (
    CONDITION_FAILED,
    TableItems,
    cancellation_reasons,
    is_condition_failure,
)
from trainer.store.sessions.keys import (
    MAX_EVENTS_PER_COMMIT,
    MAX_ID_LENGTH,
    MAX_SEQ,
    Item,
    session_pk,
    state_sk,
    valid_id,
)
from trainer.store.sessions.meta import SessionMeta
from trainer.store.sessions.records import record_item

logger = logging.getLogger(__name__)

COMMIT_ATTEMPTS = 6


def touches_meta(batch: SessionBatch) -> bool:
    """Whether a commit updates META. Under a lease it need not: the record's condition
    already proves the lease held, and a deleted session's slot is taken by its tombstone; META's
    last_seq, updated_at, expires_at and knowledge move with the turn's closing commit, which sets
    fields. An update per commit would make every commit a transaction (twice the write units)
    and rewrite the GSI1 entry."""
    return batch.lease is None or bool(batch.fields)


def commit_fits(head: Head, batch: SessionBatch, events: list[Event]) -> bool:
    """Whether a commit can go on `head` (the cached guess is re-read when not)."""
    if head.erased:
        return False
    if batch.lease is not None and (head.holder != batch.lease.holder or head.released):
        return False
    return not events or events[0].sequence_number == head.next_slot


def check_commit(session_id: str, head: Head, batch: SessionBatch, events: list[Event]) -> None:
    """LeaseHeld when the batch's lease is no longer its holder's (a deleted session's tombstone took
    it), SessionNotFound for a lease-less batch on a deleted session; SequenceConflict when its events
    do not follow the head."""
    if head.erased:
        if batch.lease is not None:
            raise LeaseHeld(f"session {session_id} was deleted while a turn held it")
        raise SessionNotFound(session_id)
    if batch.lease is not None and (head.holder != batch.lease.holder or head.released):
        raise LeaseHeld(f"the lease on session {session_id} was taken over")
    if events:
        numbers = [e.sequence_number for e in events]
        if numbers != list(range(head.next_slot, head.next_slot + len(numbers))):
            raise SequenceConflict(
                f"events {numbers[0]}..{numbers[-1]} of session {session_id} do not follow {head.highest}"
            )


class LogWriter:
    def __init__(self, items: TableItems, heads: Heads, meta: SessionMeta) -> None:
        self._items = items
        self._heads = heads
        self._meta = meta

    def append(
        self,
        session_id: str,
        head: Head,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None,
        now: datetime,
    ) -> Event:
        """One conditional put of a one-event record at the head's next slot, carrying the head's
        lease and state pointers forward, in a transaction with a check that the session is live (its
        META there): a write that holds no lease never lands in a deleted session, whatever head it
        knew. A conflict re-reads the head and retries with jittered backoff, bounded."""
        pk = session_pk(session_id)
        expires_at = self._items.expires_at(now)
        event = Event(
            session_id=session_id,
            sequence_number=head.next_slot,
            event_type=event_type,
            timestamp=now,
            duration_ms=duration_ms,
            data=data,
        )
        dumps(data)
        for attempt in range(APPEND_ATTEMPTS):
            if head.erased:
                raise SessionNotFound(session_id)
            seq = head.next_slot
            if seq > MAX_SEQ:
                raise SequenceConflict(f"session {session_id} has no sequence numbers left")
            event = event.model_copy(update={"sequence_number": seq})
            item, blob_items = record_item(pk, [event], {}, carried(head), head.states, expires_at)
            item["legacy_states"] = {"BOOL": head.legacy_states}
            if blob_items:
                self._items.batch_write([{"PutRequest": {"Item": part}} for part in blob_items])
            try:
                self._items.client.transact_write_items(
                    TransactItems=[
                        {"Put": {"TableName": self._items.name, "Item": item, **head.slot_condition()}},
                        {"ConditionCheck": self._meta.live_check(session_id)},
                    ]
                )
            except Exception as exc:
                self._drop_parts(blob_items)
                codes = cancellation_reasons(exc)
                if codes is None:
                    raise
                if len(codes) > 1 and codes[1] == CONDITION_FAILED:
                    raise SessionNotFound(session_id) from exc
                time.sleep(random.uniform(0, min(1.0, 0.01 * 2**attempt)))
                head = self._heads.read(session_id)
                continue
            self._heads.remember(session_id, head_of(item))
            return event
        raise SequenceConflict(
            f"no free sequence number for session {session_id} after {APPEND_ATTEMPTS} tries"
        )

    def commit(self, session_id: str, batch: SessionBatch) -> None:
        """The batch as one write (see the module docstring), retried on the head re-read when another
        writer took the slot; LeaseHeld, SequenceConflict or SessionNotFound when it cannot land."""
        if batch.is_empty():
            return
        if not valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        pk = session_pk(session_id)
        now = self._items.now()
        expires_at = self._items.expires_at(now)
        events = sorted(batch.events, key=lambda e: e.sequence_number)
        states = {key: value for key, value in batch.states.items() if valid_id(key)}
        for value in states.values():
            if value is not None:
                dumps(value)
        head = self._heads.cached(session_id)
        if head is None or not commit_fits(head, batch, events):
            head = self._heads.read(session_id)
        for attempt in range(COMMIT_ATTEMPTS):
            check_commit(session_id, head, batch, events)
            try:
                new_head, superseded = self._write(pk, head, batch, events, states, now, expires_at)
            except Exception as exc:
                kinds: list[tuple[str, str]] | None = getattr(exc, "kinds", None)
                if kinds is None and not is_condition_failure(exc):
                    raise
                refused = {kind for kind, code in kinds or [] if code == CONDITION_FAILED}
                if "meta" in refused:
                    raise SessionNotFound(session_id) from exc
                head = self._heads.read(session_id)
                if kinds is None or refused:
                    check_commit(session_id, head, batch, events)
                else:
                    time.sleep(random.uniform(0, min(1.0, 0.02 * 2**attempt)))
                continue
            self._heads.remember(session_id, new_head)
            self._delete_superseded(pk, superseded)
            return
        raise SequenceConflict(f"commit to session {session_id} kept conflicting")

    def _write(
        self,
        pk: str,
        head: Head,
        batch: SessionBatch,
        events: list[Event],
        states: dict[str, dict[str, Any] | None],
        now: datetime,
        expires_at: int,
    ) -> tuple[Head, list[str]]:
        """One attempt: the new head and the state items it no longer points to."""
        added = [dumps(KnowledgeRef.model_validate(ref).model_dump(mode="json")) for ref in batch.knowledge]
        pending = [*head.knowledge, *added]
        if batch.lease is None:
            lease = carried(head)
        else:
            lease = lease_fields(batch.lease.holder, now.timestamp() + batch.lease.ttl_seconds)
            if batch.lease.release:
                lease["released"] = {"BOOL": True}
        lease.pop("knowledge", None)
        if not touches_meta(batch):
            lease.update(pending_knowledge(pending))
        chunks = [events[i : i + MAX_EVENTS_PER_COMMIT] for i in range(0, len(events), MAX_EVENTS_PER_COMMIT)]
        entries: list[tuple[str, Item]] = []
        blob_items: list[Item] = []
        pointers = dict(head.states)
        state_items: list[Item] = []
        if not events and any(value is not None for value in states.values()):
            for key, value in states.items():
                if value is None:
                    continue
                sk = f"{state_sk(key)}#{uuid4().hex}"
                payload, parts = encode_payload("value", value, pk, expires_at)
                blob_items += parts
                state_items.append(
                    {
                        "PK": {"S": pk},
                        "SK": {"S": sk},
                        "updated_at": {"S": iso(now)},
                        "expires_at": {"N": str(expires_at)},
                        **payload,
                    }
                )
                pointers[key] = sk
            states = {key: value for key, value in states.items() if value is None}
        record: Item = {}
        for index, chunk in enumerate(chunks or [[]]):
            last = index == len(chunks or [[]]) - 1
            record, parts = record_item(
                pk,
                chunk,
                states if last else {},
                lease if last else {},
                pointers if last else {},
                expires_at,
                slot=head.next_slot,
            )
            if last:
                record["legacy_states"] = {"BOOL": head.legacy_states}
            blob_items += parts
            condition = (
                head.slot_condition() if index == 0 else {"ConditionExpression": "attribute_not_exists(PK)"}
            )
            entries.append(("record", {"Put": {"TableName": self._items.name, "Item": record, **condition}}))
        for item in state_items:
            entries.append(("state", {"Put": {"TableName": self._items.name, "Item": item}}))
        if touches_meta(batch):
            # The update moves the head's pending knowledge into META (an explicit
            # knowledge_in_context replaces it) and checks the session is live.
            last_seq = events[-1].sequence_number if events else head.highest
            kept = added if "knowledge_in_context" in batch.fields else pending
            moved = replace(batch, knowledge=[KnowledgeRef.model_validate_json(ref) for ref in kept])
            update = self._meta.commit_update(pk.removeprefix("SESSION#"), moved, last_seq, now)
            entries.append(("meta", {"Update": update}))
        if blob_items:
            self._items.batch_write([{"PutRequest": {"Item": part}} for part in blob_items])
        try:
            if len(entries) == 1:
                self._items.client.put_item(**entries[0][1]["Put"])
            else:
                try:
                    self._items.client.transact_write_items(
                        TransactItems=[entry for _, entry in entries], ClientRequestToken=uuid4().hex
                    )
                except Exception as exc:
                    codes = cancellation_reasons(exc)
                    if codes is not None:
                        exc.kinds = list(zip([k for k, _ in entries], codes, strict=False))  # type: ignore[attr-defined]
                    raise
        except Exception:
            self._drop_parts(blob_items)
            raise
        new_head = head_of(record)
        superseded = [
            pointer
            for key, pointer in head.states.items()
            if pointer.startswith("STATE#") and new_head.states.get(key) != pointer
        ]
        return new_head, superseded

    def _drop_parts(self, blob_items: list[Item]) -> None:
        """The BLOB parts of a write that did not land (best effort: TTL is the backstop), so a write
        refused by a deleted session's tombstone leaves nothing in it."""
        if not blob_items:
            return
        try:
            self._items.delete_keys(blob_items)
        except Exception:
            logger.warning("could not delete the parts of a write that did not land", exc_info=True)

    def _delete_superseded(self, pk: str, pointers: list[str]) -> None:
        """State items no head points to any more, with their BLOB parts (best effort: TTL is the
        backstop)."""
        for sk in pointers:
            try:
                response = self._items.client.delete_item(
                    TableName=self._items.name, Key={"PK": {"S": pk}, "SK": {"S": sk}}, ReturnValues="ALL_OLD"
                )
                self._items.delete_keys(blob_keys(pk, response.get("Attributes") or {}, "value"))
            except Exception:
                logger.warning("could not delete superseded state item %s of %s", sk, pk, exc_info=True)
