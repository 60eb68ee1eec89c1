"""The FastAPI application.

`create_app(container)` serves a ready container (tests, the local stack). `create_app()` builds
one from `get_settings()` on first use — at startup under uvicorn, on the first request under
Mangum (lifespan off) — so importing this module stays cheap for Lambda cold starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from trainer import __version__
from trainer.api.errors import BodySizeLimitMiddleware, CatchAllMiddleware, install_error_handlers
from trainer.api.logging import CorrelationIdMiddleware, logger
from trainer.api.routes import agent, health, sessions, user_data
from trainer.container import Container
from trainer.settings import Settings, get_settings

SHUTDOWN_GRACE_SECONDS = 30.0


class ContainerProvider:
    """Builds the container once, on first demand; closes it only if it built it."""

    def __init__(
        self, container: Container | None, factory: Callable[[], Awaitable[Container]] | None = None
    ) -> None:
        self._container = container
        self._factory = factory
        self._owned = container is None
        self._lock: asyncio.Lock | None = None

    async def get(self) -> Container:
        if self._container is not None:
            return self._container
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._container is None:
                assert self._factory is not None
                self._container = await self._factory()
        return self._container

    async def shutdown(self) -> None:
        container = self._container
        if container is None:
            return
        await container.turns.wait(SHUTDOWN_GRACE_SECONDS)
        if self._owned:
            await container.aclose()
            self._container = None


async def _container_from_environment() -> Container:
    """Settings from the environment, with secrets named there (SSM / Secrets Manager) resolved."""
    from trainer.container import build_container
    from trainer.runtime_secrets import resolve_runtime_secrets

    settings = await asyncio.to_thread(resolve_runtime_secrets, get_settings())
    return await build_container(settings)


def create_app(container: Container | None = None) -> FastAPI:
    provider = ContainerProvider(container, None if container is not None else _container_from_environment)
    settings: Settings = container.settings if container is not None else get_settings()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await provider.get()
        yield
        await provider.shutdown()

    app = FastAPI(
        title="AI personal trainer",
        version=__version__,
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.container_provider = provider
    install_error_handlers(app)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(CatchAllMiddleware)
    app.add_middleware(CorrelationIdMiddleware)
    for module in (health, sessions, agent, user_data):
        app.include_router(module.router)
    logger.debug("app created", extra={"model_mode": settings.model_mode})
    return app
