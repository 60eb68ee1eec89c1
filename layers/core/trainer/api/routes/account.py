"""The account itself (docs/api.md#account-deletion-and-data-export): `DELETE /me` erases everything the
system holds for the caller, `GET /me/export` streams it all as one JSON document. The work is
trainer.services.account's.

`DELETE /me` is the one route a deleted account's token still reaches: a repeated deletion is answered as
the first was (204), and resumes one that stopped at its deadline (202)."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import StreamingResponse

from trainer.api.auth import Principal
from trainer.api.errors import ApiError
from trainer.api.me_schemas import AccountDeletion, AccountExport, DeletionResponse, DeletionStatus
from trainer.api.openapi import AUTHENTICATED, DATABASE, JSON_BODY, SESSION_STORE, error_responses
from trainer.api.routes import ContainerDep, UserId, current_principal, rate_bucket
from trainer.api.schemas import Event, Session
from trainer.container import Container
from trainer.store.ports import AccountDeleted

if TYPE_CHECKING:
    from trainer.services.account import AccountService
    from trainer.store.models import Event as StoredEvent
    from trainer.store.models import Session as StoredSession

router = APIRouter(prefix="/me", tags=["account"])

RETRY_DELETION_SECONDS = 1
EXPORT_DISPOSITION = 'attachment; filename="trainer-export.json"'


class ContractShapes:
    """The export's sessions and events as the contract publishes them (`Session`, `Event`): a session's
    `metadata` with every field its schema requires, an event without the keys kept for the model."""

    def session(self, session: StoredSession) -> str:
        return Session.of(session).model_dump_json(by_alias=True)

    def event(self, event: StoredEvent) -> str:
        return Event.of(event).model_dump_json(by_alias=True)


def accounts(container: Container) -> AccountService:
    if container.accounts is None or container.db is None:
        raise ApiError(503, "database_unavailable", "The domain database is not configured.")
    return container.accounts


async def account_holder(
    request: Request, principal: Annotated[Principal, Depends(current_principal)]
) -> str:
    """The caller, deleted or not; a live account's request rate is checked (a deleted one writes
    nothing, its rate item included)."""
    container: Container = await request.app.state.container_provider.get()
    service = accounts(container)
    if container.limits is not None and not await service.is_deleted(principal.user_id):
        with contextlib.suppress(AccountDeleted):  # deleted meanwhile: the rate item is refused
            await container.limits.check_rate(principal.user_id, rate_bucket(request.method, "/me"))
    return principal.user_id


@router.delete(
    "",
    status_code=204,
    response_class=Response,
    responses={
        202: {
            "model": DeletionResponse,
            "description": "Not finished within the request, or a turn it cannot stop may still be "
            "writing: send it again after `Retry-After`.",
            "headers": {
                "Retry-After": {
                    "description": "Seconds until a repeat can finish (the end of a running turn's lease).",
                    "required": True,
                    "schema": {"type": "integer", "minimum": 1},
                }
            },
        },
        **error_responses(AUTHENTICATED, JSON_BODY, DATABASE, SESSION_STORE),
    },
)
async def delete_account(
    container: ContainerDep,
    user_id: Annotated[str, Depends(account_holder)],
    body: AccountDeletion,
) -> Response:
    """Erases everything the system holds for the caller: profile, settings, goals, preferences,
    locations, history, plans, schedule, milestones, chat sessions and their events, usage records, and
    what registered integrations hold (push endpoints). Irreversible. From the moment it starts the
    caller's tokens are refused (`401 account_deleted`) on every other route, and nothing can recreate
    the account's data. `204` when everything is erased and nothing more can be written for the account
    (again `204` for an account already deleted); `202` (with `Retry-After`) when it did not finish
    within the request, or a turn it cannot stop is still running in one of the sessions (it writes
    nothing more, and its lease runs out by then): send the same request again after `Retry-After`
    (it resumes) until it answers `204`."""
    report = await accounts(container).delete(user_id)
    container.registered_users.discard(user_id)
    if report.complete:
        return Response(status_code=204)
    body_json = DeletionResponse(
        deletion=DeletionStatus(status="in_progress", deleted_at=report.deleted_at)
    ).model_dump_json(by_alias=True)
    wait = max(RETRY_DELETION_SECONDS, math.ceil(report.fenced_until - time.time()))
    return Response(
        body_json,
        status_code=202,
        media_type="application/json",
        headers={"Retry-After": str(wait if report.fenced_until else RETRY_DELETION_SECONDS)},
    )


@router.get(
    "/export",
    response_class=StreamingResponse,
    responses={
        200: {
            "model": AccountExport,
            "description": "The whole account as one JSON document, streamed (the `AccountExport` schema).",
        },
        **error_responses(AUTHENTICATED, DATABASE, SESSION_STORE),
    },
)
async def export_account(container: ContainerDep, user_id: UserId) -> StreamingResponse:
    """Everything the system holds about the caller (data portability): every table's rows, the chat
    sessions with their events, the usage records. Streamed as it is read, so its size does not
    matter; the document's last key is `complete: true`."""
    chunks = accounts(container).export(user_id, ContractShapes()).__aiter__()
    first = await anext(chunks)  # a store that cannot be reached is a 503 before the answer starts

    async def body() -> AsyncIterator[bytes]:
        yield first
        async for chunk in chunks:
            yield chunk

    return StreamingResponse(
        body(),
        media_type="application/json",
        headers={"Content-Disposition": EXPORT_DISPOSITION, "Cache-Control": "no-store"},
    )
