"""Readiness check-ins (docs/api.md#readiness): the same entries the chat's check_readiness tool stores, and
today's readiness (the check-in, else the phone's health data: trainer.services.day_readiness)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query

from trainer.api.errors import ApiError
from trainer.api.inputs import ASCII_DIGITS
from trainer.api.openapi import AUTHENTICATED, DATABASE, INVALID_QUERY, JSON_BODY, error_responses
from trainer.api.readiness_schemas import ReadinessCheckIn, ReadinessEntry, ReadinessResponse, ReadinessToday
from trainer.api.routes import ContainerDep, RegisteredUserId, UserId
from trainer.api.routes.user_data import user_data

if TYPE_CHECKING:
    from trainer.services.day_readiness import DayReadiness
    from trainer.services.user_data import UserData

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
        day = await day_readiness(data, datetime.now(UTC))
    return _response(rows, day)


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
        day = await day_readiness(reads, datetime.now(UTC))
    return _response(rows, day)


async def day_readiness(data: UserData, now: datetime) -> DayReadiness:
    from trainer.services.day_readiness import day_readiness as read_day

    return await read_day(data, now)


def _response(rows: list[dict[str, Any]], day: DayReadiness) -> ReadinessResponse:
    readings = list(day.health.readings) if day.health is not None else []
    found = day.assessment
    if found is None:
        now = ReadinessToday(
            level=None,
            source=None,
            reasons=[],
            sore_muscles=[],
            advice="No check-in today.",
            health_readings=readings,
        )
    else:
        now = ReadinessToday(
            level=found.level,
            source=day.source,
            reasons=list(found.reasons),
            sore_muscles=list(found.sore_muscles),
            advice=found.advice,
            health_readings=readings,
        )
    entries = [ReadinessEntry.model_validate({**row, "id": str(row["id"])}) for row in rows]
    return ReadinessResponse(today=now, entries=entries)
