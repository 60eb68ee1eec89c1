"""Fixtures for the API on the real adapters: DynamoDB on moto, embedded Postgres, the agent on the
offline model, served in-process over httpx's ASGI transport.

Postgres is reached through PgBouncer in transaction mode (`DISCARD ALL` after every transaction), the
stricter of the two ways a deployment connects (RDS Proxy, or straight to the database): a statement
that relied on session state, a server-side prepared statement or a session advisory lock fails here
every time. The same statements on a direct connection run in the scenarios and the e2e stack, and
`pytest --direct-postgres tests/integration` runs these tests directly too."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from fastapi import FastAPI
from starlette.types import Receive, Scope, Send
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.testing.agent_harness import RecordingPublisher

from tests.fixtures_pg import DIRECT_OPTION


@pytest.fixture(scope="session")
def pg_url(pg_url: str, request: pytest.FixtureRequest) -> str:
    """The PgBouncer in front of the session's cluster (migrations already applied through the direct
    URL), or the cluster itself with `--direct-postgres`."""
    if request.config.getoption(DIRECT_OPTION):
        return pg_url
    url: str = request.getfixturevalue("pgbouncer").url
    return url


@pytest.fixture
async def container(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database
) -> AsyncIterator[Container]:
    built = await build_container(aws_settings, store=session_store, db=db, publisher=RecordingPublisher())
    yield built
    await built.aclose()


@pytest.fixture
async def app(container: Container) -> AsyncIterator[FastAPI]:
    app = create_app(container)
    yield app
    await app.state.container_provider.turns.wait(30)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=120) as http:
        yield http


@pytest.fixture
def user(make_user: Callable[..., str]) -> str:
    return make_user()


@pytest.fixture
def auth(aws_settings: Settings, user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(aws_settings.jwt_secret.get_secret_value(), user)}"}


class RealStoresApp:
    """The API on the stores `use()` names; its ASGI lifespan builds the container (and closes it)."""

    def __init__(self) -> None:
        self.stores: tuple[Settings, DynamoSessionStore, str] | None = None
        self.app: FastAPI | None = None
        self.db: Database | None = None

    def use(self, settings: Settings, store: DynamoSessionStore, pg_url: str) -> None:
        self.stores = (settings, store, pg_url)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        assert self.app is not None, "the lifespan has not started"
        await self.app(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                assert self.stores is not None, "use() names the stores first"
                settings, store, pg_url = self.stores
                self.db = Database(pg_url, min_size=1, max_size=4)
                await self.db.open()
                container = await build_container(
                    settings, store=store, db=self.db, publisher=RecordingPublisher()
                )
                self.app = create_app(container)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.app is not None:
                    await self.app.state.container_provider.shutdown()
                if self.db is not None:
                    await self.db.close()
                self.app = self.db = None
                await send({"type": "lifespan.shutdown.complete"})
                return
