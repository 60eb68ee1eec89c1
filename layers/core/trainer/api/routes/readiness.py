"""Readiness check-ins (docs/api.md#readiness): the same entries the chat's check_readiness tool stores."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from trainer.api.errors import ApiError
from trainer.api.inputs import ASCII_DIGITS
from trainer.api.openapi import AUTHENTICATED, DATABASE, INVALID_QUERY, JSON_BODY, error_responses
from trainer.api.readiness_schemas import ReadinessCheckIn, ReadinessEntry, ReadinessResponse, ReadinessToday
from trainer.api.routes import ContainerDep, RegisteredUserId, UserId
from trainer.api.routes.user_data import user_data

router = APIRouter(tags=["readiness"])


@router.get(
    "/readiness",
    response_model=ReadinessResponse,
    responses=error_responses(AUTHENTICATED, INVALID_QUERY, DATABASE),
)
async def get_readiness(
    container: ContainerDep, user_id: UserId, days_back: Annotated[int, Query(ge=1, le=90), ASCII_DIGITS] = 14
) -> ReadinessResponse:
    """The caller's check-ins of the last `days_back` days and today's readiness."""
    async with user_data(container, user_id).reading() as data:
        rows = await data.readiness.recent(days=days_back)
        today = await data.readiness.today()
    return _response(rows, today)


@router.post(
    "/readiness",
    response_model=ReadinessResponse,
    status_code=201,
    responses=error_responses(AUTHENTICATED, JSON_BODY, {422: ("invalid_readiness",)}, DATABASE),
)
async def create_readiness_check_in(
    container: ContainerDep, user_id: RegisteredUserId, check_in: ReadinessCheckIn
) -> ReadinessResponse:
    """Stores a check-in (today's workouts adjust to it) and answers with today's readiness."""
    fields = check_in.model_dump(exclude_none=True)
    soreness: dict[str, int] = fields.pop("soreness", {})
    if not fields and not soreness:
        raise ApiError(422, "invalid_readiness", "give at least one field")
    data = user_data(container, user_id)
    await data.readiness.check_in(**fields, soreness=soreness)
    async with data.reading() as reads:
        rows = await reads.readiness.recent(days=1)
        today = await reads.readiness.today()
    return _response(rows, today)


def _response(rows: list[dict[str, Any]], today: dict[str, Any] | None) -> ReadinessResponse:
    from trainer.domain.readiness import CheckIn, assess

    if today is None:
        now = ReadinessToday(level=None, reasons=[], sore_muscles=[], advice="No check-in today.")
    else:
        found = assess(CheckIn.from_row(today))
        now = ReadinessToday(
            level=found.level,
            reasons=list(found.reasons),
            sore_muscles=list(found.sore_muscles),
            advice=found.advice,
        )
    entries = [ReadinessEntry.model_validate({**row, "id": str(row["id"])}) for row in rows]
    return ReadinessResponse(today=now, entries=entries)
