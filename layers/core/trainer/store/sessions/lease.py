"""The lease on a session: one turn at a time writes to it. Taking, renewing or releasing the lease
writes a marker record holding it at the head's next slot, so a writer that lost the lease finds its
slot taken."""

from __future__ import annotations

import logging

from trainer.store.ports import LeaseHeld, SessionNotFound
from trainer.store.sessions.head import APPEND_ATTEMPTS, Head, Heads, head_of, lease_fields, pending_knowledge
from trainer.store.sessions.items import TableItems, is_condition_failure
from trainer.store.sessions.keys import Item, session_pk
from trainer.store.sessions.records import record_item

logger = logging.getLogger(__name__)


class SessionLease:
    def __init__(self, items: TableItems, heads: Heads) -> None:
        self._items = items
        self._heads = heads

    def acquire(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        """Writes a marker holding the lease at the head's next slot (or over the head marker),
        unless another holder's lease there is still running. The holder it took over from, if any."""
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        # The first attempt trusts the head this process last read or wrote (a turn loads its session
        # just before; a new session's log is empty): the marker's write is conditional on that head,
        # so a stale one costs a failed write and a read, never a lost lease. Only a fresh read may
        # refuse the lease.
        hint = self._heads.cached(session_id)
        for attempt in range(APPEND_ATTEMPTS + 1):
            head = hint if attempt == 0 and hint is not None else self._heads.read(session_id)
            if head.erased:
                if head is hint:
                    continue
                raise SessionNotFound(session_id)
            now = self._items.seconds()
            other = head.holder is not None and not head.released and head.holder != holder
            if other and head.lease_until >= now:
                if head is hint:
                    continue
                raise LeaseHeld(f"session {session_id} is busy with another turn")
            if self.write_marker(session_id, head, lease_fields(holder, now + ttl_seconds)):
                return head.holder if other else None
        raise LeaseHeld(f"session {session_id} is busy with another turn")

    def renew(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        for _ in range(APPEND_ATTEMPTS):
            head = self._heads.read(session_id)
            if head.holder != holder or head.released:
                raise LeaseHeld(f"the lease on session {session_id} was taken over")
            until = self._items.seconds() + ttl_seconds
            if self.write_marker(session_id, head, lease_fields(holder, until)):
                return
        raise LeaseHeld(f"the lease on session {session_id} kept moving")

    def release(self, session_id: str, holder: str) -> None:
        for _ in range(APPEND_ATTEMPTS):
            head = self._heads.read(session_id)
            if head.holder != holder or head.released:
                logger.info("lease on %s not released: no longer held by %s", session_id, holder)
                return
            fields = lease_fields(holder, self._items.seconds())
            fields["released"] = {"BOOL": True}
            if self.write_marker(session_id, head, fields):
                return
        logger.warning("lease on %s not released: the head kept moving", session_id)

    def write_marker(self, session_id: str, head: Head, lease: Item) -> bool:
        """A marker record with `lease` as the new head; False when the head moved meanwhile."""
        fields = {**pending_knowledge(head.knowledge), **lease}
        expires_at = self._items.expires_at(self._items.now())
        item, _ = record_item(
            session_pk(session_id), [], {}, fields, head.states, expires_at, slot=head.next_slot
        )
        item["legacy_states"] = {"BOOL": head.legacy_states}
        try:
            self._items.client.put_item(TableName=self._items.name, Item=item, **head.slot_condition())
        except Exception as exc:
            if is_condition_failure(exc):
                return False
            raise
        self._heads.remember(session_id, head_of(item))
        return True
