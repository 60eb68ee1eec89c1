"""The composition root: the one place that picks adapters and wires them together.

Importing this module is cheap; `build_container` imports the adapters (boto3, psycopg, the model
SDKs) when it runs.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from trainer.api.auth import TokenVerifier
from trainer.api.sse import BackgroundTurns, Emit
from trainer.settings import Settings

if TYPE_CHECKING:
    from trainer.store.db import Database
    from trainer.store.ports import SessionStore
    from trainer.tools.base import Tool

logger = logging.getLogger(__name__)

MAX_REGISTERED_USERS_CACHED = 10_000

TOOL_MODULES: tuple[str, ...] = (
    "communication",
    "workout",
    "goals",
    "preferences",
    "logging",
    "timers",
    "calendar",
    "analytics",
    "data",
    "location",
)


class TurnRunner(Protocol):
    """What the HTTP layer needs from the agent (trainer.agent.loop.AgentLoop)."""

    async def run_turn(
        self,
        user_id: str,
        message: str,
        *,
        session_id: str | None = None,
        current_workout: dict[str, Any] | None = None,
        model: str | None = None,
        emit: Emit | None = None,
    ) -> Any: ...


@dataclass
class Container:
    settings: Settings
    store: SessionStore
    agent: TurnRunner
    verifier: TokenVerifier
    db: Database | None = None
    publisher: Any = None
    turns: BackgroundTurns = field(default_factory=BackgroundTurns)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    registered_users: set[str] = field(default_factory=set)

    async def ensure_user(self, user_id: str) -> None:
        """Gives a first-time user their `users` row (every domain table references it); each
        user costs one idempotent insert per process."""
        if self.db is None or user_id in self.registered_users:
            return
        from trainer.store.repositories import profiles

        async with self.db.connection() as conn:
            await profiles.ensure_user(conn, user_id)
        if len(self.registered_users) >= MAX_REGISTERED_USERS_CACHED:
            self.registered_users.clear()
        self.registered_users.add(user_id)

    def is_known_model(self, model_id: str) -> bool:
        from trainer.llm.models import get_model

        try:
            get_model(model_id)
        except (LookupError, ValueError):
            return False
        return True

    async def aclose(self) -> None:
        for close in reversed(self.closers):
            try:
                await close()
            except Exception:
                logger.warning("error while closing a resource", exc_info=True)
        self.closers.clear()


def collect_tools(module_names: Iterable[str] = TOOL_MODULES) -> list[Tool]:
    """Every tool exported as `TOOLS` by the trainer.tools.* modules. A module that is missing is
    logged and skipped, so a partial checkout still starts."""
    tools: list[Tool] = []
    for name in module_names:
        try:
            module = importlib.import_module(f"trainer.tools.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"trainer.tools.{name}":
                raise
            logger.warning("tool module trainer.tools.%s is missing; its tools are unavailable", name)
            continue
        tools.extend(getattr(module, "TOOLS", []))
    return tools


async def build_container(
    settings: Settings,
    *,
    store: SessionStore | None = None,
    db: Database | None = None,
    publisher: Any = None,
    agent_model: Any = None,
    selector: Any = None,
    planner: Any = None,
) -> Container:
    """Wires the production adapters; anything passed in is used instead (tests, the local stack).

    A `db` passed in stays owned by the caller; one built here (from DATABASE_URL) is opened now
    and closed by `Container.aclose()`.
    """
    closers: list[Callable[[], Awaitable[None]]] = []
    if store is None:
        from trainer.store.sessions import DynamoSessionStore

        store = DynamoSessionStore(settings)
    if db is None and settings.database_url:
        from trainer.store.db import Database

        db = Database(settings.database_url)
        await db.open()
        closers.append(db.close)
    if publisher is None:
        from trainer.jobs.bus import EventBridgePublisher

        publisher = EventBridgePublisher(settings)
    agent = _build_agent(settings, store, db, publisher, agent_model, selector, planner)
    return Container(
        settings=settings,
        store=store,
        agent=agent,
        verifier=TokenVerifier(settings),
        db=db,
        publisher=publisher,
        closers=closers,
    )


def _build_agent(
    settings: Settings,
    store: SessionStore,
    db: Database | None,
    publisher: Any,
    agent_model: Any,
    selector: Any,
    planner: Any,
) -> TurnRunner:
    from trainer.agent.loop import AgentLoop
    from trainer.agent.tool_registry import ToolRegistry

    registry = ToolRegistry(collect_tools())
    if selector is None:
        from trainer.llm.factory import build_selector

        selector = build_selector(settings)
    tool_extras: dict[str, Any] = {}
    if db is not None:
        from trainer.agent.coaching import CoachPlanner, workout_tool_extras

        tool_extras = workout_tool_extras()
        planner = planner if planner is not None else CoachPlanner(db, store)
    if agent_model is None and planner is None and settings.model_mode == "offline":
        planner = _fallback_planner()
    model_factory = agent_model if agent_model is not None else ModelsById(settings, planner)
    return AgentLoop(
        store=store,
        model_factory=model_factory,
        selector=selector,
        registry=registry,
        context_builder=None,
        user_data=_user_data_builder(db),
        fetch_sources_factory=_source_fetcher_factory(db),
        publisher=publisher,
        settings=settings,
        db=db,
        tool_extras=tool_extras,
    )


def _fallback_planner() -> Any:
    from trainer.local.fake_llm import DemoPlanner

    logger.warning("offline model without a planner: using the fixed demo workout planner")
    return DemoPlanner()


class ModelsById:
    """One agent model per model id (the request's `model` overrides TRAINER_MODEL), built once."""

    def __init__(self, settings: Settings, planner: Any) -> None:
        self._settings = settings
        self._planner = planner
        self._models: dict[str, Any] = {}

    def __call__(self, model_id: str) -> Any:
        if model_id not in self._models:
            from trainer.llm.factory import build_agent_model

            settings = self._settings.model_copy(update={"model": model_id})
            self._models[model_id] = build_agent_model(settings, self._planner)
        return self._models[model_id]


def _user_data_builder(db: Database | None) -> Callable[[str], Awaitable[str]]:
    async def user_data(user_id: str) -> str:
        if db is None:
            raise RuntimeError("no domain database configured")
        from trainer.sources.registry import build_user_data_xml

        return await build_user_data_xml(db, user_id)

    return user_data


def _source_fetcher_factory(db: Database | None) -> Callable[[str], Any]:
    def for_user(user_id: str) -> Any:
        async def fetch(requests: list[tuple[str, dict[str, Any]]]) -> list[Any]:
            if db is None or not requests:
                return []
            from trainer.sources.registry import fetch_sources

            return list(await fetch_sources(db, user_id, requests))

        return fetch

    return for_user
