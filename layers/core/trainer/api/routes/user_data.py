"""Supporting routes the app already uses: unit settings, exercise history and the
distribution report, served by the user-data services (trainer.services), imported on first use
(psycopg stays out of cold imports)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Query
from fastapi.encoders import jsonable_encoder

from trainer.api.errors import ApiError
from trainer.api.inputs import ASCII_DIGITS
from trainer.api.openapi import AUTHENTICATED, DATABASE, INVALID_QUERY, JSON_BODY, error_responses
from trainer.api.routes import ContainerDep, UserId
from trainer.api.schemas import (
    Distribution,
    DistributionRow,
    ExerciseHistory,
    HistoryEntry,
    UserSettings,
    UserSettingsResponse,
    UserSettingsUpdate,
)
from trainer.container import Container

if TYPE_CHECKING:
    from trainer.services.user_data import UserData
    from trainer.store.db import Database

router = APIRouter(tags=["user data"])

DISTRIBUTION_SOURCES = ("category_goals", "muscle_goals")


def require_db(container: Container) -> Database:
    if container.db is None:
        raise ApiError(503, "database_unavailable", "The domain database is not configured.")
    return container.db


def user_data(container: Container, user_id: str) -> UserData:
    from trainer.services.user_data import UserDataService

    return UserDataService(require_db(container)).for_user(user_id)


@router.get(
    "/user-settings", response_model=UserSettingsResponse, responses=error_responses(AUTHENTICATED, DATABASE)
)
async def get_user_settings(container: ContainerDep, user_id: UserId) -> UserSettingsResponse:
    """The caller's units, time zone and preferred days (the defaults until they are set)."""
    settings = await user_data(container, user_id).settings.get()
    return UserSettingsResponse(settings=UserSettings.model_validate(settings.model_dump()))


@router.put(
    "/user-settings",
    response_model=UserSettingsResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, {422: ("invalid_settings",)}, DATABASE),
)
async def put_user_settings(
    container: ContainerDep, user_id: UserId, update: UserSettingsUpdate
) -> UserSettingsResponse:
    """Changes the given settings and answers with all of them."""
    from trainer.services.errors import UserDataError

    changes = update.model_dump(exclude_none=True)
    try:
        settings = await user_data(container, user_id).settings.update(**changes)
    except UserDataError as exc:
        raise ApiError(422, "invalid_settings", str(exc)) from None
    return UserSettingsResponse(settings=UserSettings.model_validate(settings.model_dump()))


@router.get(
    "/exercises/history",
    response_model=ExerciseHistory,
    responses=error_responses(AUTHENTICATED, INVALID_QUERY, DATABASE),
)
async def exercise_history(
    container: ContainerDep,
    user_id: UserId,
    days_back: Annotated[int, Query(ge=1, le=3650), ASCII_DIGITS] = 30,
    limit: Annotated[int, Query(ge=1, le=500), ASCII_DIGITS] = 50,
) -> ExerciseHistory:
    """Logged exercises of the last `days_back` days, newest first, each with its local day and the
    workout it belongs to (grouped as statistics count workouts)."""
    from trainer.domain.workout_grouping import count_workouts, local_day, workout_key, zone

    async with user_data(container, user_id).reading() as data:
        settings = await data.settings.get()
        rows = await data.history.recent(days_back=days_back, limit=limit)
    tz = zone(settings.timezone)
    entries = [
        HistoryEntry.model_validate(
            {**row, "local_date": local_day(row["performed_at"], tz), "workout_key": workout_key(row, tz)}
        )
        for row in rows
    ]
    return ExerciseHistory(
        exercises=entries, days_back=days_back, limit=limit, workout_count=count_workouts(rows, tz)
    )


@router.get(
    "/exercises/distribution",
    response_model=Distribution,
    responses=error_responses(AUTHENTICATED, DATABASE, {503: ("distribution_unavailable",)}),
)
async def exercise_distribution(container: ContainerDep, user_id: UserId) -> Distribution:
    """Goal targets against what was logged (category and muscle), with the debt of each."""
    from trainer.sources.registry import fetch_sources

    results = await fetch_sources(
        require_db(container), user_id, [(name, {}) for name in DISTRIBUTION_SOURCES]
    )
    failed = [r for r in results if r.error is not None]
    if failed:
        raise ApiError(503, "distribution_unavailable", failed[0].error or "could not load the distribution")
    by_source = {r.source: jsonable_encoder(r.data or {}) for r in results}
    category, muscle = by_source["category_goals"], by_source["muscle_goals"]
    return Distribution(
        category=[DistributionRow.model_validate(row) for row in category.get("distribution", [])],
        muscle=[DistributionRow.model_validate(row) for row in muscle.get("distribution", [])],
        logged_count=category.get("logged_count", 0),
    )
