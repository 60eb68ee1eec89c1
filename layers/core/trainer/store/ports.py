"""The session/event store port. The DynamoDB adapter implements it; unit tests use a fake.

The port is async; an adapter over a blocking client (boto3) runs its calls in worker threads itself,
so no caller ever blocks the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session


class SessionNotFound(LookupError):
    """The session does not exist, has expired, or belongs to another user."""


class LeaseHeld(RuntimeError):
    """Another turn (or a checkpoint) holds the session's lease."""


class StoreUnavailable(RuntimeError):
    """The session store cannot be reached or is throttling; retrying shortly may work."""


class DatabaseUnavailable(RuntimeError):
    """The domain database cannot be reached; retrying shortly may work."""


class AccountDeleted(PermissionError):
    """The user deleted their account: nothing may be read or written for them again."""


class SequenceConflict(RuntimeError):
    """An event's sequence number was taken by another writer (or none was left)."""


@dataclass(frozen=True)
class LeaseClaim:
    """A commit made under the session lease: it lands only while `holder` holds the lease, and moves
    the lease's expiry to now + `ttl_seconds` (or releases it)."""

    holder: str
    ttl_seconds: int
    release: bool = False


@dataclass
class SessionBatch:
    """Writes to one session that land together or not at all (`SessionStore.commit`)."""

    events: list[Event] = field(default_factory=list)
    """New events, numbered by the writer: consecutive, right after the session's last event."""
    states: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """State values by key; None deletes the key."""
    knowledge: list[KnowledgeRef] = field(default_factory=list)
    """Appended to the session's knowledge_in_context."""
    fields: dict[str, Any] = field(default_factory=dict)
    """Session fields to set, as `update_session` takes them."""
    lease: LeaseClaim | None = None

    def is_empty(self) -> bool:
        return not (self.events or self.states or self.knowledge or self.fields or self.lease)


class SessionStore(Protocol):
    async def create_session(self, user_id: str) -> Session: ...

    async def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        """The named session (SessionNotFound if not the user's), else the most recent active one,
        else a new one."""
        ...

    async def get_session(self, user_id: str, session_id: str) -> Session:
        """User-scoped read; raises SessionNotFound."""
        ...

    async def load_session(self, session_id: str) -> Session:
        """Unscoped read for trusted back-end jobs (checkpoint, costs)."""
        ...

    async def list_sessions(self, user_id: str, limit: int = 10) -> list[Session]: ...

    async def delete_session(self, user_id: str, session_id: str) -> None:
        """Deletes the session with its events and state; raises SessionNotFound."""
        ...

    async def append_event(
        self,
        session_id: str,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None = None,
    ) -> Event:
        """Appends with the next gap-free sequence number (conditional write, bounded retry)."""
        ...

    async def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        """Events with sequence_number > after, ascending; `limit` pages, `types` filters."""
        ...

    async def update_session(self, session_id: str, **fields: Any) -> Session:
        """Sets status, context_start_sequence, knowledge_in_context, metadata and the like."""
        ...

    async def add_knowledge(self, session_id: str, refs: list[KnowledgeRef]) -> None:
        """Appends to knowledge_in_context atomically."""
        ...

    async def add_usage(self, session_id: str, **increments: float) -> Session:
        """Atomically increments token/cost totals (total_tokens, cached_tokens, total_cost_cents...)."""
        ...

    async def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        """Raises LeaseHeld if an unexpired lease belongs to another holder. Returns the holder of an
        expired lease that was never released (its turn died), which this one takes over."""
        ...

    async def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        """Extends the holder's lease to now + ttl; raises LeaseHeld if it is no longer the holder."""
        ...

    async def release_lease(self, session_id: str, holder: str) -> None: ...

    async def commit(self, session_id: str, batch: SessionBatch) -> None:
        """Writes the batch atomically: every event at the sequence number it carries (SequenceConflict
        if one is taken; nothing is written), the states, knowledge and fields; with a lease claim,
        only while the claim's holder holds the lease (LeaseHeld otherwise), extending or releasing it.
        SessionNotFound if the session is gone."""
        ...

    async def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        """Per-session state that must survive invocations (current workout, displayables)."""
        ...

    async def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None: ...

    async def delete_state(self, session_id: str, key: str) -> None: ...
