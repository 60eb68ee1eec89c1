"""A user's chat sessions and their event timelines (the DynamoDB session store). Every read is scoped
to the user: another user's session raises SessionNotFound, as a missing one does."""

from __future__ import annotations

from dataclasses import dataclass

from trainer.store.models import Event, EventPage, EventType, Session
from trainer.store.ports import SessionStore

RECENT_ACTIONS = 20
ACTION_TYPES = frozenset(
    {EventType.USER_MESSAGE, EventType.TOOL_CALL, EventType.TOOL_RESULT, EventType.ARTIFACT}
)
"""What a session's summary shows of its timeline: user messages, tool calls and results, artifacts."""


@dataclass(frozen=True)
class SessionSummary:
    session: Session
    recent_actions: list[Event]
    """The last RECENT_ACTIONS actions, oldest first."""


class SessionService:
    def __init__(self, store: SessionStore) -> None:
        self._store = store

    async def create(self, user_id: str) -> Session:
        return await self._store.create_session(user_id)

    async def newest(self, user_id: str, limit: int = 10) -> list[Session]:
        """The user's sessions, newest first."""
        return await self._store.list_sessions(user_id, limit)

    async def summary(self, user_id: str, session_id: str) -> SessionSummary:
        """The session with its recent actions, read from a window of its newest events."""
        session = await self._store.get_session(user_id, session_id)
        window_start = max(0, session.last_seq - 4 * RECENT_ACTIONS)
        page = await self._store.read_events(session_id, window_start, None, ACTION_TYPES)
        return SessionSummary(session=session, recent_actions=page.events[-RECENT_ACTIONS:])

    async def events(self, user_id: str, session_id: str, *, after: int = 0, limit: int = 100) -> EventPage:
        """One page of the full timeline: the events after sequence number `after`."""
        await self._store.get_session(user_id, session_id)
        return await self._store.read_events(session_id, after, limit)

    async def delete(self, user_id: str, session_id: str) -> None:
        """The session with its events and state; LeaseHeld while a turn runs on it."""
        await self._store.delete_session(user_id, session_id)
