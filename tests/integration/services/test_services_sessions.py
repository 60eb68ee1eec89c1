"""The session service on the DynamoDB session store (moto): a session's summary shows its last actions
only, its timeline pages, and another user's session is never found."""

from __future__ import annotations

import pytest
from trainer.services.sessions import RECENT_ACTIONS, SessionService
from trainer.store.models import EventType
from trainer.store.ports import SessionNotFound
from trainer.store.sessions import DynamoSessionStore

USER = "6a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b"
OTHER = "7b2f3c4d-5e6f-4a71-9b8c-0d1e2f3a4b5c"


async def test_a_summary_holds_the_last_actions_and_pages_hold_everything(
    session_store: DynamoSessionStore,
) -> None:
    sessions = SessionService(session_store)
    session = await sessions.create(USER)
    for n in range(RECENT_ACTIONS + 5):
        await session_store.append_event(session.id, EventType.USER_MESSAGE, {"message": f"message {n}"})
        await session_store.append_event(session.id, EventType.KNOWLEDGE, {"source": "user_settings"})

    summary = await sessions.summary(USER, session.id)

    assert summary.session.id == session.id
    assert [e.data["message"] for e in summary.recent_actions] == [
        f"message {n}" for n in range(5, RECENT_ACTIONS + 5)
    ]
    page = await sessions.events(USER, session.id, after=0, limit=10)
    assert [e.sequence_number for e in page.events] == list(range(1, 11))
    assert page.next_after == 10
    assert [s.id for s in await sessions.newest(USER)] == [session.id]


async def test_another_users_session_is_never_found(session_store: DynamoSessionStore) -> None:
    sessions = SessionService(session_store)
    session = await sessions.create(USER)

    with pytest.raises(SessionNotFound):
        await sessions.summary(OTHER, session.id)
    with pytest.raises(SessionNotFound):
        await sessions.events(OTHER, session.id)
    with pytest.raises(SessionNotFound):
        await sessions.delete(OTHER, session.id)
    assert await sessions.newest(OTHER) == []

    await sessions.delete(USER, session.id)
    with pytest.raises(SessionNotFound):
        await sessions.summary(USER, session.id)
