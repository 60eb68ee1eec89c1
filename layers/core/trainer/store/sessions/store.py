"""The async `SessionStore` port on DynamoDB: `DynamoSessionStore` runs each blocking table operation
(trainer.store.sessions.table) in a worker thread."""

from __future__ import annotations

from typing import Any

from trainer.settings import SessionTableSettings
from trainer.store.dynamo_tables import in_thread
from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session
from trainer.store.ports import SessionBatch
from trainer.store.sessions.items import Clock
from trainer.store.sessions.table import DynamoSessionTable


class DynamoSessionStore:
    """The async `SessionStore` port on DynamoDB: each call runs the blocking table operation in a
    worker thread, so callers never block the event loop; a store that cannot be reached (or keeps
    throttling after boto3's retries) is StoreUnavailable."""

    def __init__(
        self, settings: SessionTableSettings, client: Any = None, clock: Clock | None = None
    ) -> None:
        self.table = DynamoSessionTable(settings, client=client, clock=clock)

    async def create_session(self, user_id: str) -> Session:
        return await in_thread(self.table.create_session, user_id)

    async def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        return await in_thread(self.table.get_or_create_session, user_id, session_id)

    async def get_session(self, user_id: str, session_id: str) -> Session:
        return await in_thread(self.table.get_session, user_id, session_id)

    async def load_session(self, session_id: str) -> Session:
        return await in_thread(self.table.load_session, session_id)

    async def list_sessions(self, user_id: str, limit: int = 10) -> list[Session]:
        return await in_thread(self.table.list_sessions, user_id, limit)

    async def delete_session(self, user_id: str, session_id: str) -> None:
        await in_thread(self.table.delete_session, user_id, session_id)

    async def append_event(
        self,
        session_id: str,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None = None,
    ) -> Event:
        return await in_thread(self.table.append_event, session_id, event_type, data, duration_ms)

    async def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        return await in_thread(self.table.read_events, session_id, after, limit, types)

    async def update_session(self, session_id: str, **fields: Any) -> Session:
        return await in_thread(lambda: self.table.update_session(session_id, **fields))

    async def add_knowledge(self, session_id: str, refs: list[KnowledgeRef]) -> None:
        await in_thread(self.table.add_knowledge, session_id, refs)

    async def add_usage(self, session_id: str, **increments: float) -> Session:
        return await in_thread(lambda: self.table.add_usage(session_id, **increments))

    async def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        return await in_thread(self.table.acquire_lease, session_id, holder, ttl_seconds)

    async def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        await in_thread(self.table.renew_lease, session_id, holder, ttl_seconds)

    async def release_lease(self, session_id: str, holder: str) -> None:
        await in_thread(self.table.release_lease, session_id, holder)

    async def commit(self, session_id: str, batch: SessionBatch) -> None:
        await in_thread(self.table.commit, session_id, batch)

    async def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        return await in_thread(self.table.get_state, session_id, key)

    async def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None:
        await in_thread(self.table.put_state, session_id, key, value)

    async def delete_state(self, session_id: str, key: str) -> None:
        await in_thread(self.table.delete_state, session_id, key)
