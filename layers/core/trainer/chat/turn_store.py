"""The session store as one turn sees it: a unit of work over the turn's session.

A turn holds the session's lease, so nothing else writes its events: the turn numbers them itself
and commits them in batches, each batch one atomic `SessionStore.commit` (one DynamoDB transaction)
that also extends the lease, instead of one request per event, state write and renewal. State is
read once per turn and served from memory after. What a commit has not written yet is not visible
to other readers; `durable_seq` is the last event they can read (what an SSE frame may name).

Reads of events and of the session commit first, so the turn always reads its own writes. If a
commit fails, the batch is dropped (nothing of it landed, so numbering stays gap-free) and the store
turns write-through: later writes (the turn's error event, its final status) go straight to the
underlying store, which numbers them after what really landed.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session
from trainer.store.ports import LeaseClaim, LeaseHeld, SessionBatch, SessionStore, StoreUnavailable

logger = logging.getLogger(__name__)


class LeaseLost(RuntimeError):
    """Another turn took the session over while this one ran (it was presumed dead), or its lease ran
    out: this one must not write anything more. A lease that ran out because the session store stopped
    answering its renewals has that StoreUnavailable as its cause (`__cause__`): the turn then ends as
    the store's outage, not as a broken turn."""


def _utcnow() -> datetime:
    return datetime.now(UTC)


class TurnStore:
    """Implements the `SessionStore` port; calls for other sessions go straight through."""

    def __init__(
        self,
        store: SessionStore,
        session: Session,
        holder: str,
        lease_ttl: Callable[[], int],
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self.inner = store
        self.session = session
        self.holder = holder
        self._lease_ttl = lease_ttl
        self._clock = clock
        self._next_seq = session.last_seq + 1
        self.durable_seq = session.last_seq
        self.extended_at = time.monotonic()
        """When the lease was last extended (acquired, or by a commit): measured before the write, so
        never later than the lease's end as stored."""
        self.lease_seconds: int | None = None
        """How long the lease last granted runs from `extended_at` (None: as long as `lease_ttl` says,
        the length it was taken for)."""
        self.released = False
        self.lost = False
        self._lost_how = "was taken over"
        self._lost_cause: BaseException | None = None
        self.failed: BaseException | None = None
        self.unanswered: StoreUnavailable | None = None
        """The last renewal or read the session store did not answer (None once one is answered)."""
        self.commits = 0
        self._pending = SessionBatch()
        self._states: dict[str, dict[str, Any] | None] = {}
        self._lock = asyncio.Lock()
        self._background: asyncio.Task[None] | None = None

    @property
    def session_id(self) -> str:
        return self.session.id

    def _own(self, session_id: str) -> bool:
        return session_id == self.session.id

    # -- flushes --------------------------------------------------------------------------------

    async def flush(self, *, release: bool = False) -> None:
        """Writes everything pending in one atomic commit that extends (or releases) the lease.
        Raises what the store raised; the batch is then dropped and the store turns write-through."""
        async with self._lock:
            if self.lost:
                raise self.lost_error()
            if self.failed is not None:
                if release:
                    await self._release_directly()
                return
            if self._pending.is_empty() and not release:
                return
            granted = self.lease_seconds if self.lease_seconds is not None else max(1, self._lease_ttl())
            if time.monotonic() >= self.extended_at + granted:
                # The lease ran out (a stall longer than it): another may hold the session now, or its
                # deletion may have taken it; a turn never writes past its lease.
                self.mark_lost("ran out", self.unanswered)
                raise self.lost_error()
            batch, self._pending = self._pending, SessionBatch()
            ttl = max(1, self._lease_ttl())
            batch.lease = LeaseClaim(self.holder, ttl, release=release)
            asked_at = time.monotonic()
            try:
                await self.inner.commit(self.session.id, batch)
            except LeaseHeld as exc:
                self.mark_lost()
                raise LeaseLost(f"the lease on session {self.session.id} was taken over") from exc
            except BaseException as exc:
                self.failed = exc
                self._states.clear()
                if batch.events:
                    self._next_seq = batch.events[0].sequence_number
                raise
            self.commits += 1
            self.extended_at, self.lease_seconds = asked_at, ttl
            self.released = release
            if batch.events:
                self.durable_seq = max(self.durable_seq, batch.events[-1].sequence_number)

    def mark_lost(self, how: str = "was taken over", cause: BaseException | None = None) -> None:
        """The session is no longer this turn's: another took it over, or the lease ran out (`cause`: the
        store's silence that kept it from being renewed, when that is why)."""
        if not self.lost:
            self.lost = True
            self._lost_how, self._lost_cause = how, cause
        self.failed = self.failed or self.lost_error()

    def lost_error(self) -> LeaseLost:
        """What a write after the lease was lost raises, with its cause."""
        error = LeaseLost(f"the lease on session {self.session.id} {self._lost_how}")
        error.__cause__ = self._lost_cause
        return error

    def raise_if_failed(self) -> None:
        """Raises what made a flush fail (LeaseLost once the session was taken over), if one did."""
        if self.failed is not None:
            raise self.failed

    def _writable(self, session_id: str) -> bool:
        """True when a write to `session_id` is buffered; False when it goes straight through."""
        if not self._own(session_id):
            return False
        if self.lost:
            raise self.lost_error()
        return self.failed is None

    def flush_soon(self) -> None:
        """Starts a commit of what is pending without waiting for it; `settle()` waits."""
        previous = self._background

        async def run() -> None:
            if previous is not None:
                await asyncio.gather(previous, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self.flush()

        self._background = asyncio.create_task(run(), name=f"flush-{self.session.id}")

    async def settle(self) -> None:
        """Waits for the flushes started by `flush_soon()`; raises what made a flush fail, if one did."""
        task, self._background = self._background, None
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        self.raise_if_failed()

    async def close(self, **fields: Any) -> Session:
        """The turn's last commit: session fields set, the lease released."""
        await asyncio.gather(self.settle(), return_exceptions=True)
        if self.lost:
            raise self.lost_error()
        if self.failed is not None:
            self.session = await self.inner.update_session(self.session.id, **fields)
            await self._release_directly()
            return self.session
        self._pending.fields.update(fields)
        await self.flush(release=True)
        self.session = self.session.model_copy(update={**fields, "last_seq": self.durable_seq})
        return self.session

    async def _answered[T](self, call: Awaitable[T]) -> T:
        """Awaits a call to the session store, noting whether the store answered it."""
        try:
            result = await call
        except StoreUnavailable as exc:
            self.unanswered = exc
            raise
        self.unanswered = None
        return result

    async def _release_directly(self) -> None:
        if not self.released:
            await self.inner.release_lease(self.session.id, self.holder)
            self.released = True

    # -- buffered writes ------------------------------------------------------------------------

    async def append_event(
        self,
        session_id: str,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None = None,
    ) -> Event:
        if not self._writable(session_id):
            return await self.inner.append_event(session_id, event_type, data, duration_ms)
        event = Event(
            session_id=session_id,
            sequence_number=self._next_seq,
            event_type=EventType(event_type),
            timestamp=self._clock(),
            duration_ms=duration_ms,
            data=data,
        )
        self._next_seq += 1
        self._pending.events.append(event)
        return event

    async def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        if not self._own(session_id) or self.failed is not None:
            return await self.inner.get_state(session_id, key)
        if key not in self._states:
            self._states[key] = await self._answered(self.inner.get_state(session_id, key))
        value = self._states[key]
        return copy.deepcopy(value) if value is not None else None

    async def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None:
        if not self._writable(session_id):
            await self.inner.put_state(session_id, key, value)
            return
        if not isinstance(value, dict):
            raise ValueError("state value must be a dict")
        self._states[key] = copy.deepcopy(value)
        self._pending.states[key] = copy.deepcopy(value)

    async def delete_state(self, session_id: str, key: str) -> None:
        if not self._writable(session_id):
            await self.inner.delete_state(session_id, key)
            return
        self._states[key] = None
        self._pending.states[key] = None

    async def add_knowledge(self, session_id: str, refs: list[KnowledgeRef]) -> None:
        if not self._writable(session_id):
            await self.inner.add_knowledge(session_id, refs)
            return
        self._pending.knowledge.extend(refs)
        known = [*self.session.knowledge_in_context, *refs]
        self.session = self.session.model_copy(update={"knowledge_in_context": known})

    async def update_session(self, session_id: str, **fields: Any) -> Session:
        if not self._writable(session_id):
            return await self.inner.update_session(session_id, **fields)
        await self.settle()
        self._pending.fields.update(fields)
        await self.flush()
        self.session = self.session.model_copy(update={**fields, "last_seq": self.durable_seq})
        return self.session

    # -- reads (after committing, so the turn reads its own writes) ------------------------------

    async def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        if self._own(session_id):
            await self.settle()
            await self.flush()
        return await self.inner.read_events(session_id, after, limit, types)

    async def load_session(self, session_id: str) -> Session:
        if not self._own(session_id):
            return await self.inner.load_session(session_id)
        await self.settle()
        await self.flush()
        self.session = await self.inner.load_session(session_id)
        self._next_seq = max(self._next_seq, self.session.last_seq + 1)
        return self.session

    # -- the rest of the port, unchanged --------------------------------------------------------

    async def create_session(self, user_id: str) -> Session:
        return await self.inner.create_session(user_id)

    async def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        return await self.inner.get_or_create_session(user_id, session_id)

    async def get_session(self, user_id: str, session_id: str) -> Session:
        return await self.inner.get_session(user_id, session_id)

    async def list_sessions(self, user_id: str, limit: int = 10) -> list[Session]:
        return await self.inner.list_sessions(user_id, limit)

    async def delete_session(self, user_id: str, session_id: str) -> None:
        await self.inner.delete_session(user_id, session_id)

    async def add_usage(self, session_id: str, **increments: float) -> Session:
        return await self.inner.add_usage(session_id, **increments)

    async def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        return await self.inner.acquire_lease(session_id, holder, ttl_seconds)

    async def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        asked_at = time.monotonic()
        await self._answered(self.inner.renew_lease(session_id, holder, ttl_seconds))
        if self._own(session_id) and holder == self.holder:
            self.extended_at, self.lease_seconds = asked_at, ttl_seconds

    async def release_lease(self, session_id: str, holder: str) -> None:
        if self._own(session_id) and holder == self.holder:
            if self.released:
                return
            self.released = True
        await self.inner.release_lease(session_id, holder)

    async def commit(self, session_id: str, batch: SessionBatch) -> None:
        await self.inner.commit(session_id, batch)
