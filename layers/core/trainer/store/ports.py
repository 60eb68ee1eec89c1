"""The session/event store port. The DynamoDB adapter implements it; unit tests use a fake.

The port is async; an adapter over a blocking client (boto3) runs its calls in worker threads itself,
so no caller ever blocks the event loop.
"""

from __future__ import annotations

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

    async def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        """Per-session state that must survive invocations (current workout, displayables)."""
        ...

    async def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None: ...

    async def delete_state(self, session_id: str, key: str) -> None: ...
