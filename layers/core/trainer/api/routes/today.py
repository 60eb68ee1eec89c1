"""GET /today: the day's workout in the user's time zone with its message, in the one
call the app makes at launch (trainer.services.today: the active plan's day, else a workout scheduled
that day, else one composed once for the day and kept)."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter

from trainer.api.delivery_schemas import TodayResponse, TodayWorkout
from trainer.api.errors import ApiError
from trainer.api.openapi import AUTHENTICATED, DATABASE, error_responses
from trainer.api.routes import ContainerDep, RegisteredUserId
from trainer.api.routes.user_data import require_db

router = APIRouter(tags=["delivery"])

TODAY_ERRORS = {422: ("no_workout",)}


@router.get(
    "/today", response_model=TodayResponse, responses=error_responses(AUTHENTICATED, TODAY_ERRORS, DATABASE)
)
async def get_today(container: ContainerDep, user_id: RegisteredUserId) -> TodayResponse:
    """Today's workout: the active plan's day (a training day, or a rest day with its recovery notes),
    else the first workout scheduled today, else one composed for the user's equipment, goals and
    recovery the first time today is asked for (the same workout all day). With its push/SMS message.
    `422 no_workout` when nothing is planned and no workout fits the user's constraints."""
    from trainer.services.errors import UserDataError

    require_db(container)
    now = container.programs.now() if container.programs is not None else datetime.now(UTC)
    service = container.today_service(user_id, now)
    try:
        today = await service.today(now)
    except UserDataError as exc:
        raise ApiError(422, "no_workout", str(exc)) from None
    return TodayResponse(today=TodayWorkout.model_validate(today, from_attributes=True))
