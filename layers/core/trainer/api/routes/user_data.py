"""Supporting routes the app already uses (seed 000 §7): unit settings, exercise history and the
distribution report. Repositories are imported on first use (psycopg stays out of cold imports)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.encoders import jsonable_encoder
from pydantic import BaseModel, ConfigDict

from trainer.api.errors import ApiError
from trainer.api.routes import ContainerDep, UserId
from trainer.container import Container

if TYPE_CHECKING:
    from trainer.store.db import Database

router = APIRouter(tags=["user data"])


class UserSettingsUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weight_unit: Literal["kg", "lbs"] | None = None
    distance_unit: Literal["km", "mi"] | None = None
    timezone: str | None = None
    preferred_days: list[str] | None = None


def require_db(container: Container) -> Database:
    if container.db is None:
        raise ApiError(503, "database_unavailable", "The domain database is not configured.")
    return container.db


@router.get("/user-settings")
async def get_user_settings(container: ContainerDep, user_id: UserId) -> dict[str, Any]:
    from trainer.store.repositories import settings as settings_repo

    async with require_db(container).connection() as conn:
        values = await settings_repo.get_user_settings(conn, user_id)
    return {"settings": jsonable_encoder(values)}


@router.put("/user-settings")
async def put_user_settings(
    container: ContainerDep, user_id: UserId, update: UserSettingsUpdate
) -> dict[str, Any]:
    from trainer.store.repositories import RepositoryError, profiles
    from trainer.store.repositories import settings as settings_repo

    changes = update.model_dump(exclude_none=True)
    try:
        async with require_db(container).transaction() as conn:
            await profiles.ensure_user(conn, user_id)
            values = await settings_repo.update_user_settings(conn, user_id, **changes)
    except RepositoryError as exc:
        raise ApiError(422, "invalid_settings", str(exc)) from None
    return {"settings": jsonable_encoder(values)}


@router.get("/exercises/history")
async def exercise_history(
    container: ContainerDep,
    user_id: UserId,
    days_back: Annotated[int, Query(ge=1, le=3650)] = 30,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> dict[str, Any]:
    """Logged exercises, newest first."""
    from trainer.store.repositories import history

    async with require_db(container).connection() as conn:
        rows = await history.list_recent(conn, user_id, days_back=days_back, limit=limit)
    return {"exercises": jsonable_encoder(rows), "daysBack": days_back, "limit": limit}


DISTRIBUTION_SOURCES = ("category_goals", "muscle_goals")


@router.get("/exercises/distribution")
async def exercise_distribution(container: ContainerDep, user_id: UserId) -> dict[str, Any]:
    """Goal targets against what was logged (category and muscle), with the debt of each."""
    from trainer.sources.registry import fetch_sources

    results = await fetch_sources(
        require_db(container), user_id, [(name, {}) for name in DISTRIBUTION_SOURCES]
    )
    failed = [r for r in results if r.error is not None]
    if failed:
        raise ApiError(503, "distribution_unavailable", failed[0].error or "could not load the distribution")
    by_source = {r.source: r.data or {} for r in results}
    category, muscle = by_source["category_goals"], by_source["muscle_goals"]
    return {
        "category": category.get("distribution", []),
        "muscle": muscle.get("distribution", []),
        "loggedCount": category.get("logged_count", 0),
    }
