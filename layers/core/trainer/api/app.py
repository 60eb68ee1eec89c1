"""The FastAPI application.

`create_app(container)` serves a ready container (tests, the local stack). `create_app(settings=...)`
builds one from the settings (the API and stream functions load theirs in their init phase:
functions/api/app.py, functions/stream/app.py) on first use — at startup under uvicorn, on the first
request under Mangum (lifespan off) — so importing this module stays cheap for Lambda cold starts.
In a SnapStart init (trainer.snapstart) the uvicorn startup only prewarms: the container, with its
secrets and its database pool, is built by the first request after the restore. The OpenAPI
document (/openapi.json) is built from the same settings: limits that are settings (the message
length) are documented as they are enforced.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.routing import APIRoute

from trainer import __version__, snapstart
from trainer.api.auth import TokenVerifier
from trainer.api.deadline import FunctionDeadlineMiddleware
from trainer.api.errors import BodySizeLimitMiddleware, CatchAllMiddleware, install_error_handlers
from trainer.api.json_guard import JsonBodyGuardMiddleware
from trainer.api.logging import CorrelationIdMiddleware, logger
from trainer.api.openapi import install_openapi
from trainer.api.routes import (
    account,
    agent,
    devices,
    health,
    health_data,
    profile,
    programs,
    readiness,
    sessions,
    today,
    user_data,
)
from trainer.api.sse import BackgroundTurns
from trainer.container import Container
from trainer.settings import Settings

SHUTDOWN_GRACE_SECONDS = 30.0


class ContainerProvider:
    """Builds the container once, on first demand; closes it only if it built it. Also holds what
    the HTTP layer keeps per process: the token verifier and the detached turns."""

    def __init__(
        self,
        container: Container | None,
        factory: Callable[[], Awaitable[Container]] | None = None,
        settings: Settings | None = None,
    ) -> None:
        self._container = container
        self._factory = factory
        self._settings = settings if settings is not None else container.settings if container else None
        self._owned = container is None
        self._lock: asyncio.Lock | None = None
        self._verifier: TokenVerifier | None = None
        self.turns = BackgroundTurns()

    async def verifier(self) -> TokenVerifier:
        if self._verifier is None:
            self._verifier = TokenVerifier((await self.get()).settings)
        return self._verifier

    async def get(self) -> Container:
        if self._container is not None:
            return self._container
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._container is None:
                assert self._factory is not None
                if self._settings is not None and self._settings.snapshot_init:
                    snapstart.restore_uniqueness()
                self._container = await self._factory()
        return self._container

    def prewarm(self) -> None:
        """Warms what the first container build and request use, without I/O (trainer.container.prewarm,
        plus PyJWT for the token verifier)."""
        import jwt  # noqa: F401

        from trainer.container import prewarm

        assert self._settings is not None
        prewarm(self._settings)

    def before_snapshot(self) -> None:
        """SnapStart hook: a container built during init is closed (a pool's connections would not
        survive the snapshot) and forgotten with the verifier; the first request after the restore
        builds them again. Runs on the event loop Mangum serves every request on."""
        self._verifier = None
        if self._container is None or not self._owned:
            return
        container, self._container = self._container, None
        asyncio.get_event_loop_policy().get_event_loop().run_until_complete(container.aclose())

    def after_restore(self) -> None:
        """SnapStart hook: the token verifier (and its JWKS cache, timed by a clock the restore does not
        keep) is built afresh."""
        self._verifier = None

    async def shutdown(self) -> None:
        container = self._container
        if container is None:
            return
        await self.turns.wait(SHUTDOWN_GRACE_SECONDS)
        if self._owned:
            await container.aclose()
            self._container = None


def _container_from(settings: Settings) -> Callable[[], Awaitable[Container]]:
    async def build() -> Container:
        """The settings with the secrets they name (SSM / Secrets Manager) resolved."""
        from trainer.container import build_container
        from trainer.runtime_secrets import resolve_runtime_secrets

        return await build_container(await asyncio.to_thread(resolve_runtime_secrets, settings))

    return build


OPERATION_IDS = {
    "health": "getHealth",
    "chat": "sendChatMessage",
    "stream": "streamChatTurn",
    "list_events": "listSessionEvents",
    "put_user_settings": "updateUserSettings",
    "exercise_history": "getExerciseHistory",
    "exercise_distribution": "getExerciseDistribution",
    "put_goals": "updateGoals",
    "put_notification_settings": "updateNotificationSettings",
    "make_location_current": "setCurrentLocation",
}
"""Handlers whose names do not read as a method of a client (`chat`, `health`)."""


def operation_id(route: APIRoute) -> str:
    """The method names of generated clients: a verb, then what it acts on, in camelCase
    (`listSessions`, `sendChatMessage`): the handler's name, or its entry in OPERATION_IDS."""
    if route.name in OPERATION_IDS:
        return OPERATION_IDS[route.name]
    head, *rest = route.name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def create_app(container: Container | None = None, *, settings: Settings | None = None) -> FastAPI:
    """`settings` are for an app without a container: the container is then built from them on first
    use."""
    if container is not None:
        if settings is not None and settings is not container.settings:
            raise ValueError("pass either a container or settings, not both")
        settings = container.settings
    elif settings is None:
        raise TypeError("create_app needs a container or the settings to build one from")
    provider = ContainerProvider(
        container, None if container is not None else _container_from(settings), settings
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if container is None and settings.snapshot_init:
            provider.prewarm()
        else:
            await provider.get()
        yield
        await provider.shutdown()

    app = FastAPI(
        title="AI personal trainer",
        version=__version__,
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
        generate_unique_id_function=operation_id,
    )
    app.state.container_provider = provider
    install_error_handlers(app)
    app.add_middleware(JsonBodyGuardMiddleware)
    app.add_middleware(
        BodySizeLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        path_limits={health_data.SAMPLES_PATH: health_data.SAMPLES_MAX_BYTES},
    )
    app.add_middleware(CatchAllMiddleware)
    app.add_middleware(CorrelationIdMiddleware)
    app.add_middleware(FunctionDeadlineMiddleware)
    app.include_router(health.router)
    app.include_router(sessions.router)
    app.include_router(agent.build_router(settings))
    app.include_router(user_data.router)
    app.include_router(programs.router)
    app.include_router(devices.router)
    app.include_router(today.router)
    app.include_router(profile.router)
    app.include_router(account.router)
    app.include_router(readiness.router)
    app.include_router(health_data.router)
    if settings.console_enabled:
        from trainer.api.routes.console import install_console

        install_console(app, settings)
    install_openapi(app)
    logger.debug("app created", extra={"model_mode": settings.model_mode})
    return app
