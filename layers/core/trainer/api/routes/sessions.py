"""Sessions and their event timelines; every read is scoped to the caller (another user's session
is 404, never visible)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from trainer.api.routes import ContainerDep, UserId, in_thread
from trainer.store.models import Event, EventType, Session

router = APIRouter(prefix="/agent/sessions", tags=["sessions"])

RECENT_ACTIONS = 20
ACTION_TYPES = frozenset(
    {EventType.USER_MESSAGE, EventType.TOOL_CALL, EventType.TOOL_RESULT, EventType.ARTIFACT}
)


def session_json(session: Session) -> dict[str, Any]:
    return session.model_dump(mode="json")


def event_json(event: Event) -> dict[str, Any]:
    return event.model_dump(mode="json")


@router.post("", status_code=201)
async def create_session(container: ContainerDep, user_id: UserId) -> dict[str, Any]:
    session = await in_thread(container.store.create_session, user_id)
    return {"session": session_json(session)}


@router.get("")
async def list_sessions(
    container: ContainerDep, user_id: UserId, limit: Annotated[int, Query(ge=1, le=100)] = 10
) -> dict[str, Any]:
    sessions = await in_thread(container.store.list_sessions, user_id, limit)
    return {"sessions": [session_json(s) for s in sessions]}


@router.get("/{session_id}")
async def get_session(container: ContainerDep, user_id: UserId, session_id: str) -> dict[str, Any]:
    store = container.store
    session = await in_thread(store.get_session, user_id, session_id)
    window_start = max(0, session.last_seq - 4 * RECENT_ACTIONS)
    page = await in_thread(store.read_events, session_id, window_start, None, ACTION_TYPES)
    recent = page.events[-RECENT_ACTIONS:]
    return {"session": session_json(session), "recentActions": [event_json(e) for e in recent]}


@router.get("/{session_id}/events")
async def list_events(
    container: ContainerDep,
    user_id: UserId,
    session_id: str,
    after: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> dict[str, Any]:
    """The full timeline in pages: pass `nextAfter` back as `after` until it is null."""
    store = container.store
    await in_thread(store.get_session, user_id, session_id)
    page = await in_thread(store.read_events, session_id, after, limit)
    return {"events": [event_json(e) for e in page.events], "nextAfter": page.next_after}


@router.delete("/{session_id}", status_code=204)
async def delete_session(container: ContainerDep, user_id: UserId, session_id: str) -> Response:
    await in_thread(container.store.delete_session, user_id, session_id)
    return Response(status_code=204)
