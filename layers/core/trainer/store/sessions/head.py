"""The head of a session's log: its newest item, which holds the highest sequence number, the lease and
where each state value lives; every write goes to the head's next slot on condition that the slot is
still as the writer read it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from trainer.store.sessions.codec import number
from trainer.store.sessions.items import TableItems
from trainer.store.sessions.keys import Item, erased_index, session_pk

KIND_EVENTS = "events"
KIND_MARKER = "marker"
NO_STATE = "-"
"""A state pointer meaning the key was deleted."""
HEAD_ATTRIBUTES = (
    "SK",
    "kind",
    "last",
    "token",
    "holder",
    "lease_until",
    "released",
    "state_at",
    "legacy_states",
    "knowledge",
    "erased",
    "fence_until",
)
APPEND_ATTEMPTS = 25
"""Writes at the head's next slot tried before giving up (other writers kept taking it)."""
REMEMBERED_HEADS = 4096
FENCE_SLACK_SECONDS = 2.0
"""Added to a lease's end before a deleted session's tombstone goes: the holder's clock may run behind
the deleter's."""


@dataclass(frozen=True)
class Head:
    """The newest item of a session's log: the highest sequence number, the lease and where each
    state value lives."""

    slot: int
    highest: int
    kind: str | None
    token: str | None
    holder: str | None
    lease_until: float
    released: bool
    states: dict[str, str]
    legacy_states: bool
    knowledge: tuple[str, ...] = ()
    """Knowledge refs (JSON) added since META's knowledge_in_context was last written: a commit under a
    lease keeps them here rather than pay for a META update; the next commit that updates META
    moves them there."""
    erased: bool = False
    """The head is a deleted session's tombstone (its owner deleted it, or their account): nothing
    may be written after it (keys.py)."""
    fence_until: float = 0.0
    """On a tombstone: until when the lease it took over may still be held by a turn that has not
    noticed (epoch seconds); the tombstone stays until then."""

    @property
    def next_slot(self) -> int:
        """Where the next record goes: over a marker, else right after the highest event."""
        return self.slot if self.kind == KIND_MARKER else self.highest + 1

    def slot_condition(self) -> dict[str, Any]:
        """The condition of a write at `next_slot`: the slot is free, or still holds this marker."""
        if self.kind == KIND_MARKER and self.token is not None:
            return {
                "ConditionExpression": "#kind = :marker AND #token = :token",
                "ExpressionAttributeNames": {"#kind": "kind", "#token": "token"},
                "ExpressionAttributeValues": {":marker": {"S": KIND_MARKER}, ":token": {"S": self.token}},
            }
        return {"ConditionExpression": "attribute_not_exists(PK)"}


def head_of(item: Item | None) -> Head:
    if item is None:
        return Head(0, 0, None, None, None, 0.0, False, {}, True)
    seq = int(item["SK"]["S"].removeprefix("EVENT#"))
    kind = item.get("kind", {}).get("S")
    if kind is None:
        return Head(seq, seq, None, None, None, 0.0, False, {}, True)
    return Head(
        slot=seq,
        highest=int(item["last"]["N"]),
        kind=kind,
        token=item.get("token", {}).get("S"),
        holder=item.get("holder", {}).get("S"),
        lease_until=float(item.get("lease_until", {"N": "0"})["N"]),
        released=bool(item.get("released", {}).get("BOOL", False)),
        states={key: value["S"] for key, value in item.get("state_at", {}).get("M", {}).items()},
        legacy_states=bool(item.get("legacy_states", {}).get("BOOL", True)),
        knowledge=tuple(entry["S"] for entry in item.get("knowledge", {}).get("L", [])),
        erased=bool(item.get("erased", {}).get("BOOL", False)),
        fence_until=float(item.get("fence_until", {"N": "0"})["N"]),
    )


def live_lease_until(head: Head, now: float) -> float:
    """Until when a turn may still hold the head's lease (0: none can): the lease of a holder that has
    not released it (plus FENCE_SLACK_SECONDS, for a clock behind this one), or the fence a tombstone
    carries forward."""
    held = head.lease_until if head.holder is not None and not head.released and not head.erased else 0.0
    latest = max(held + FENCE_SLACK_SECONDS if held else 0.0, head.fence_until)
    return latest if latest > now else 0.0


def lease_fields(holder: str, until: float) -> Item:
    return {"holder": {"S": holder}, "lease_until": number(until)}


def tombstone_fields(user_id: str, session_id: str, fence_until: float) -> Item:
    """What makes a marker a deleted session's tombstone: nothing is written after it, it is listed
    under the owner's account digest (GSI1, no user id), and `fence_until` (see Head)."""
    return {
        "erased": {"BOOL": True},
        "fence_until": number(fence_until),
        "GSI1PK": {"S": erased_index(user_id)},
        "GSI1SK": {"S": session_id},
    }


def pending_knowledge(refs: Iterable[str]) -> Item:
    entries = list(refs)
    return {"knowledge": {"L": [{"S": ref} for ref in entries]}} if entries else {}


def carried(head: Head) -> Item:
    """The head's lease and pending knowledge, for a record written by someone other than its
    holder."""
    fields = pending_knowledge(head.knowledge)
    if head.holder is None:
        return fields
    fields.update(lease_fields(head.holder, head.lease_until))
    if head.released:
        fields["released"] = {"BOOL": True}
    return fields


class Heads:
    """Reads each session's head (one `Limit=1` query) and remembers the last one this process wrote
    or read: a guess its conditional writes verify, so a turn's commit needs no read first."""

    def __init__(self, items: TableItems) -> None:
        self._items = items
        self._known: OrderedDict[str, Head] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, session_id: str) -> Head:
        names = {f"#h{index}": name for index, name in enumerate(HEAD_ATTRIBUTES)}
        response = self._items.client.query(
            TableName=self._items.name,
            KeyConditionExpression="PK = :pk AND begins_with(SK, :event)",
            ExpressionAttributeValues={":pk": {"S": session_pk(session_id)}, ":event": {"S": "EVENT#"}},
            ExpressionAttributeNames=names,
            ProjectionExpression=", ".join(names),
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        )
        items = response.get("Items", [])
        head = head_of(items[0] if items else None)
        self.remember(session_id, head)
        return head

    def cached(self, session_id: str) -> Head | None:
        """The head this store last wrote or read."""
        with self._lock:
            return self._known.get(session_id)

    def remember(self, session_id: str, head: Head) -> None:
        """Remembers `head` unless a newer one is known (a read that raced a commit can finish
        after it)."""
        with self._lock:
            known = self._known.get(session_id)
            if known is not None and known.next_slot > head.next_slot:
                return
            self._known[session_id] = head
            self._known.move_to_end(session_id)
            while len(self._known) > REMEMBERED_HEADS:
                self._known.popitem(last=False)

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._known.pop(session_id, None)
