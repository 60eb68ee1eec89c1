"""InMemorySessionStore: the (async) SessionStore port in memory, with the DynamoDB adapter's semantics
(gap-free sequences, user scoping, leases with expiry, per-session state, pagination)."""

from __future__ import annotations

import copy
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session
from trainer.store.ports import LeaseHeld, SequenceConflict, SessionBatch, SessionNotFound

USAGE_FIELDS = frozenset(
    {
        "total_tokens",
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "cache_write_tokens",
        "total_cost_cents",
    }
)
UPDATABLE_FIELDS = (
    frozenset(
        {
            "status",
            "context_start_sequence",
            "knowledge_in_context",
            "metadata",
            "cache_hit_rate",
            "expires_at",
        }
    )
    | USAGE_FIELDS
)


class InMemorySessionStore:
    def __init__(self, clock: Callable[[], datetime] | None = None, ttl_days: int = 30) -> None:
        self._clock = clock or (lambda: datetime.now(UTC))
        self._ttl = timedelta(days=ttl_days)
        self._lock = threading.RLock()
        self._sessions: dict[str, Session] = {}
        self._events: dict[str, list[Event]] = {}
        self._state: dict[tuple[str, str], dict[str, Any]] = {}
        self._leases: dict[str, tuple[str, datetime]] = {}
        self.calls: Counter[str] = Counter()

    def _count(self, name: str) -> None:
        self.calls[name] += 1

    def _now(self) -> datetime:
        return self._clock()

    def _require_owned(self, user_id: str, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None or session.user_id != user_id:
            raise SessionNotFound(session_id)
        return session

    def _require(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionNotFound(session_id)
        return session

    async def create_session(self, user_id: str) -> Session:
        self._count("create_session")
        return self.new_session(user_id)

    def new_session(self, user_id: str) -> Session:
        """Test helper: a new session, created synchronously."""
        with self._lock:
            now = self._now()
            session = Session(
                id=str(uuid.uuid4()),
                user_id=user_id,
                created_at=now,
                updated_at=now,
                expires_at=int((now + self._ttl).timestamp()),
            )
            self._sessions[session.id] = session
            self._events[session.id] = []
            return session.model_copy(deep=True)

    async def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        self._count("get_or_create_session")
        if session_id:
            return await self.get_session(user_id, session_id)
        with self._lock:
            active = [s for s in self._sessions.values() if s.user_id == user_id and s.status == "active"]
            if active:
                return max(active, key=lambda s: s.updated_at).model_copy(deep=True)
        return await self.create_session(user_id)

    async def get_session(self, user_id: str, session_id: str) -> Session:
        self._count("get_session")
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None or session.user_id != user_id:
                raise SessionNotFound(session_id)
            return session.model_copy(deep=True)

    async def load_session(self, session_id: str) -> Session:
        self._count("load_session")
        with self._lock:
            return self._require(session_id).model_copy(deep=True)

    async def list_sessions(self, user_id: str, limit: int = 10) -> list[Session]:
        self._count("list_sessions")
        with self._lock:
            mine = sorted(
                (s for s in self._sessions.values() if s.user_id == user_id),
                key=lambda s: s.updated_at,
                reverse=True,
            )
            return [s.model_copy(deep=True) for s in mine[:limit]]

    async def delete_session(self, user_id: str, session_id: str) -> None:
        self._count("delete_session")
        with self._lock:
            self._require_owned(user_id, session_id)
            current = self._leases.get(session_id)
            if current is not None and current[1] > self._now():
                raise LeaseHeld(session_id)
            del self._sessions[session_id]
            self._events.pop(session_id, None)
            self._leases.pop(session_id, None)
            for key in [k for k in self._state if k[0] == session_id]:
                del self._state[key]

    async def append_event(
        self,
        session_id: str,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None = None,
    ) -> Event:
        self._count("append_event")
        with self._lock:
            session = self._require(session_id)
            seq = session.last_seq + 1
            event = Event(
                session_id=session_id,
                sequence_number=seq,
                event_type=EventType(event_type),
                timestamp=self._now(),
                duration_ms=duration_ms,
                data=copy.deepcopy(data),
            )
            self._events[session_id].append(event)
            session.last_seq = seq
            session.updated_at = self._now()
            return event.model_copy(deep=True)

    async def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        self._count("read_events")
        with self._lock:
            self._require(session_id)
            matching = [
                e
                for e in self._events[session_id]
                if e.sequence_number > after and (types is None or e.event_type in types)
            ]
            page = matching if limit is None else matching[:limit]
            more = limit is not None and len(matching) > limit
            return EventPage(
                events=[e.model_copy(deep=True) for e in page],
                next_after=page[-1].sequence_number if more and page else None,
            )

    async def update_session(self, session_id: str, **fields: Any) -> Session:
        self._count("update_session")
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise ValueError(f"cannot update {sorted(unknown)}")
        with self._lock:
            session = self._require(session_id)
            for name, value in fields.items():
                if name == "knowledge_in_context":
                    value = [KnowledgeRef.model_validate(v) for v in value]
                setattr(session, name, copy.deepcopy(value))
            session.updated_at = self._now()
            return session.model_copy(deep=True)

    async def add_knowledge(self, session_id: str, refs: list[KnowledgeRef]) -> None:
        self._count("add_knowledge")
        with self._lock:
            session = self._require(session_id)
            session.knowledge_in_context.extend(r.model_copy(deep=True) for r in refs)

    async def add_usage(self, session_id: str, **increments: float) -> Session:
        self._count("add_usage")
        unknown = set(increments) - USAGE_FIELDS
        if unknown:
            raise ValueError(f"cannot increment {sorted(unknown)}")
        with self._lock:
            session = self._require(session_id)
            for name, delta in increments.items():
                setattr(session, name, getattr(session, name) + delta)
            return session.model_copy(deep=True)

    async def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        self._count("acquire_lease")
        with self._lock:
            self._require(session_id)
            now = self._now()
            current = self._leases.get(session_id)
            if current is not None and current[0] != holder and current[1] > now:
                raise LeaseHeld(session_id)
            self._leases[session_id] = (holder, now + timedelta(seconds=ttl_seconds))
            return current[0] if current is not None and current[0] != holder else None

    async def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        self._count("renew_lease")
        with self._lock:
            current = self._leases.get(session_id)
            if current is None or current[0] != holder:
                raise LeaseHeld(session_id)
            self._leases[session_id] = (holder, self._now() + timedelta(seconds=ttl_seconds))

    def expire_lease(self, session_id: str) -> None:
        """Test helper: the holder died; its lease ran out without being released."""
        with self._lock:
            holder, _ = self._leases[session_id]
            self._leases[session_id] = (holder, self._now() - timedelta(seconds=1))

    async def release_lease(self, session_id: str, holder: str) -> None:
        self._count("release_lease")
        with self._lock:
            current = self._leases.get(session_id)
            if current is not None and current[0] == holder:
                del self._leases[session_id]

    def lease_holder(self, session_id: str) -> str | None:
        """Test helper: the unexpired holder, if any."""
        with self._lock:
            current = self._leases.get(session_id)
            return current[0] if current and current[1] > self._now() else None

    async def commit(self, session_id: str, batch: SessionBatch) -> None:
        self._count("commit")
        with self._lock:
            session = self._require(session_id)
            now = self._now()
            if batch.lease is not None:
                current = self._leases.get(session_id)
                if current is None or current[0] != batch.lease.holder:
                    raise LeaseHeld(session_id)
            taken = {e.sequence_number for e in self._events[session_id]}
            if any(e.sequence_number in taken for e in batch.events):
                raise SequenceConflict(session_id)
            unknown = set(batch.fields) - UPDATABLE_FIELDS
            if unknown:
                raise ValueError(f"cannot update {sorted(unknown)}")
            for event in sorted(batch.events, key=lambda e: e.sequence_number):
                self._events[session_id].append(event.model_copy(deep=True))
                session.last_seq = max(session.last_seq, event.sequence_number)
            for key, value in batch.states.items():
                if value is None:
                    self._state.pop((session_id, key), None)
                else:
                    self._state[(session_id, key)] = copy.deepcopy(value)
            for name, field_value in batch.fields.items():
                if name == "knowledge_in_context":
                    field_value = [KnowledgeRef.model_validate(v) for v in field_value]
                setattr(session, name, copy.deepcopy(field_value))
            session.knowledge_in_context.extend(r.model_copy(deep=True) for r in batch.knowledge)
            session.updated_at = now
            if batch.lease is not None:
                if batch.lease.release:
                    del self._leases[session_id]
                else:
                    until = now + timedelta(seconds=batch.lease.ttl_seconds)
                    self._leases[session_id] = (batch.lease.holder, until)

    async def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        self._count("get_state")
        with self._lock:
            value = self._state.get((session_id, key))
            return copy.deepcopy(value) if value is not None else None

    async def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None:
        self._count("put_state")
        with self._lock:
            self._require(session_id)
            self._state[(session_id, key)] = copy.deepcopy(value)

    async def delete_state(self, session_id: str, key: str) -> None:
        self._count("delete_state")
        with self._lock:
            self._state.pop((session_id, key), None)

    def all_events(self, session_id: str) -> list[Event]:
        """Test helper: every event of the session, uncounted."""
        with self._lock:
            return [e.model_copy(deep=True) for e in self._events.get(session_id, [])]
