"""Sessions and their event timelines, served by the session service (trainer.services.sessions); every
read is scoped to the caller (another user's session is 404, never visible)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from trainer.api.inputs import ASCII_DIGITS, MAX_QUERY_INT
from trainer.api.openapi import (
    AUTHENTICATED,
    INVALID_QUERY,
    SESSION_LEASE,
    SESSION_SCOPED,
    SESSION_STORE,
    error_responses,
    session_links,
)
from trainer.api.routes import ContainerDep, UserId
from trainer.api.schemas import (
    Event,
    EventsPage,
    FramesPage,
    SentFrame,
    Session,
    SessionDetail,
    SessionList,
    SessionResponse,
)
from trainer.container import Container
from trainer.services.sessions import SessionService

router = APIRouter(prefix="/agent/sessions", tags=["sessions"])


def sessions(container: Container) -> SessionService:
    return SessionService(container.store)


@router.post(
    "",
    status_code=201,
    response_model=SessionResponse,
    responses={
        201: {"links": session_links("$response.body#/session/id")},
        **error_responses(AUTHENTICATED, SESSION_STORE),
    },
)
async def create_session(container: ContainerDep, user_id: UserId) -> SessionResponse:
    session = await sessions(container).create(user_id)
    return SessionResponse(session=Session.of(session))


@router.get(
    "", response_model=SessionList, responses=error_responses(AUTHENTICATED, INVALID_QUERY, SESSION_STORE)
)
async def list_sessions(
    container: ContainerDep, user_id: UserId, limit: Annotated[int, Query(ge=1, le=100), ASCII_DIGITS] = 10
) -> SessionList:
    """The caller's sessions, newest first."""
    newest = await sessions(container).newest(user_id, limit)
    return SessionList(sessions=[Session.of(s) for s in newest])


@router.get(
    "/{session_id}",
    response_model=SessionDetail,
    responses=error_responses(AUTHENTICATED, SESSION_SCOPED, SESSION_STORE),
)
async def get_session(container: ContainerDep, user_id: UserId, session_id: str) -> SessionDetail:
    """The session with its last 20 actions (user messages, tool calls and results, artifacts)."""
    summary = await sessions(container).summary(user_id, session_id)
    return SessionDetail(
        session=Session.of(summary.session), recent_actions=[Event.of(e) for e in summary.recent_actions]
    )


@router.get(
    "/{session_id}/events",
    response_model=EventsPage,
    responses=error_responses(AUTHENTICATED, SESSION_SCOPED, INVALID_QUERY, SESSION_STORE),
)
async def list_events(
    container: ContainerDep,
    user_id: UserId,
    session_id: str,
    after: Annotated[int, Query(ge=0, le=MAX_QUERY_INT), ASCII_DIGITS] = 0,
    limit: Annotated[int, Query(ge=1, le=500), ASCII_DIGITS] = 100,
) -> EventsPage:
    """The full timeline in pages: pass `nextAfter` back as `after` until it is null."""
    page = await sessions(container).events(user_id, session_id, after=after, limit=limit)
    return EventsPage(events=[Event.of(e) for e in page.events], next_after=page.next_after)


FRAMES_PAGE_LIMIT = 500


@router.get(
    "/{session_id}/frames",
    response_model=FramesPage,
    responses=error_responses(AUTHENTICATED, SESSION_SCOPED, INVALID_QUERY, SESSION_STORE),
)
async def list_frames(
    container: ContainerDep,
    user_id: UserId,
    session_id: str,
    after: Annotated[
        int,
        Query(ge=0, le=MAX_QUERY_INT, description="The id of the last frame the client got."),
        ASCII_DIGITS,
    ] = 0,
) -> FramesPage:
    """Catch-up in frames: exactly the frames the stream sent (or is sending) after frame `after`, with
    the ids it sent them with, through the end of that turn (`turn_end`) — no repeats, no gaps, so
    the renderer of the stream renders them. `message_delta` previews are not kept (the `tool_result`
    that follows carries the whole message). With `after` at a turn's `turn_end`, the next turn's
    frames."""
    await container.store.get_session(user_id, session_id)
    records = container.stream_records
    stored = await records.read(session_id, after, None, FRAMES_PAGE_LIMIT) if records is not None else []
    frames: list[SentFrame] = []
    for item in stored:
        frames.append(SentFrame(id=item.frame_id, frame=item.frame))
        if item.frame.get("type") == "turn_end":
            break
    ended = bool(frames) and frames[-1].frame.get("type") == "turn_end"
    return FramesPage(frames=frames, turn_ended=ended)


@router.delete(
    "/{session_id}",
    status_code=204,
    response_class=Response,
    responses=error_responses(AUTHENTICATED, SESSION_SCOPED, SESSION_LEASE, SESSION_STORE),
)
async def delete_session(container: ContainerDep, user_id: UserId, session_id: str) -> Response:
    """Deletes the session with its events; 409 while a turn runs on it."""
    await sessions(container).delete(user_id, session_id)
    return Response(status_code=204)
