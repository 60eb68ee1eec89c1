"""Supporting routes the app already uses (seed 000 §7): unit settings, exercise history and the
distribution report. Repositories are imported on first use (psycopg stays out of cold imports)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Query
from fastapi.encoders import jsonable_encoder

from trainer.api.errors import ApiError
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
    from trainer.store.db import Database

router = APIRouter(tags=["user data"])

DISTRIBUTION_SOURCES = ("category_goals", "muscle_goals")


def require_db(container: Container) -> Database:
    if container.db is None:
        raise ApiError(503, "database_unavailable", "The domain database is not configured.")
    return container.db


@router.get(
    "/user-settings", response_model=UserSettingsResponse, responses=error_responses(AUTHENTICATED, DATABASE)
)
async def get_user_settings(container: ContainerDep, user_id: UserId) -> UserSettingsResponse:
    """The caller's units, time zone and preferred days (the defaults until they are set)."""
    from trainer.store.repositories import settings as settings_repo

    async with require_db(container).connection() as conn:
        values = await settings_repo.get_user_settings(conn, user_id)
    return UserSettingsResponse(settings=UserSettings.model_validate(values))


@router.put(
    "/user-settings",
    response_model=UserSettingsResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, {422: ("invalid_settings",)}, DATABASE),
)
async def put_user_settings(
    container: ContainerDep, user_id: UserId, update: UserSettingsUpdate
) -> UserSettingsResponse:
    """Changes the given settings and answers with all of them."""
    from trainer.store.repositories import RepositoryError, profiles
    from trainer.store.repositories import settings as settings_repo

    changes = update.model_dump(exclude_none=True)
    try:
        async with require_db(container).transaction() as conn:
            await profiles.ensure_user(conn, user_id)
            values = await settings_repo.update_user_settings(conn, user_id, **changes)
    except RepositoryError as exc:
        raise ApiError(422, "invalid_settings", str(exc)) from None
    return UserSettingsResponse(settings=UserSettings.model_validate(values))


@router.get(
    "/exercises/history",
    response_model=ExerciseHistory,
    responses=error_responses(AUTHENTICATED, INVALID_QUERY, DATABASE),
)
async def exercise_history(
    container: ContainerDep,
    user_id: UserId,
    days_back: Annotated[int, Query(ge=1, le=3650)] = 30,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> ExerciseHistory:
    """Logged exercises of the last `days_back` days, newest first, each with its local day and the
    workout it belongs to (grouped as statistics count workouts)."""
    from trainer.domain.workout_grouping import count_workouts, local_day, workout_key, zone
    from trainer.store.repositories import history
    from trainer.store.repositories import settings as settings_repo

    async with require_db(container).connection() as conn:
        values = await settings_repo.get_user_settings(conn, user_id)
        rows = await history.list_recent(conn, user_id, days_back=days_back, limit=limit)
    tz = zone(values.get("timezone"))
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
