"""GET /health: version, model mode, and whether the stores answer. 503 when a store does not."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from trainer import __version__
from trainer.api.logging import logger
from trainer.api.routes import ContainerDep
from trainer.api.schemas import Health, InitializerStatus, ModelStatus, StoresStatus

router = APIRouter(tags=["health"])

PROBE_TIMEOUT_SECONDS = 3.0
PROBE_USER_ID = "00000000-0000-0000-0000-000000000000"


async def _probe_sessions(container: Any) -> bool:
    try:
        await asyncio.wait_for(container.store.list_sessions(PROBE_USER_ID, 1), PROBE_TIMEOUT_SECONDS)
        return True
    except Exception:
        logger.warning("session store unreachable", exc_info=True)
        return False


async def _probe_database(container: Any) -> bool | None:
    if container.db is None:
        return None
    try:
        return bool(await asyncio.wait_for(container.db.ping(), PROBE_TIMEOUT_SECONDS))
    except Exception:
        logger.warning("database unreachable", exc_info=True)
        return False


@router.get(
    "/health",
    response_model=Health,
    responses={503: {"model": Health, "description": "Degraded: a store did not answer."}},
)
async def health(container: ContainerDep) -> JSONResponse:
    """Version, model mode, and whether the stores answer. No token needed."""
    sessions_ok, database_ok = await asyncio.gather(_probe_sessions(container), _probe_database(container))
    healthy = sessions_ok and database_ok is not False
    settings = container.settings
    body = Health(
        status="ok" if healthy else "degraded",
        version=__version__,
        model=ModelStatus(mode=settings.model_mode, id=settings.model),
        initializer=InitializerStatus(mode=settings.initializer_mode, id=settings.initializer_model),
        stores=StoresStatus(sessions=sessions_ok, database=database_ok),
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=200 if healthy else 503)
