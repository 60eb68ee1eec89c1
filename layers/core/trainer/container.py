"""The composition root: the one place that picks adapters and wires them together.

Importing this module is cheap; `build_container` imports the adapters (boto3, psycopg, the model
SDKs) when it runs. Nothing here knows the HTTP layer: the API reads the container, never the
other way round.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from trainer.settings import FunctionSettings, ModelSettings, Settings

if TYPE_CHECKING:
    import httpx2

    from trainer.agent.budget import DailyBudget
    from trainer.agent.loop import AgentDeps, TurnResult
    from trainer.agent.ports import EventPublisher, SourceFetcher, TurnHooks
    from trainer.agents.factory import AgentRunDeps
    from trainer.agents.registry import Registries
    from trainer.frames import FrameSink
    from trainer.llm.offline import OfflinePlanner
    from trainer.llm.ports import AgentModel, KnowledgeSelector
    from trainer.programs.pipeline import ProgramDeps
    from trainer.store.db import Database
    from trainer.store.ports import SessionStore
    from trainer.tools.base import AnyTool

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
    "exercises",
    "programs",
)

AGENT_REGISTRATIONS: tuple[tuple[str, str], ...] = (("trainer.programs.agents", "register_program_agents"),)
"""(module, function) pairs that register a package's agents: `function(registries)`."""


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
        emit: FrameSink | None = None,
    ) -> TurnResult: ...


@dataclass
class Container:
    settings: Settings
    store: SessionStore
    agent: TurnRunner
    db: Database | None = None
    publisher: EventPublisher | None = None
    agents: AgentRunDeps | None = None
    """What `trainer.agents.run_agent` needs; `container.agents.for_user(user_id)` for a user's run."""
    programs: ProgramDeps | None = None
    """What the program pipeline needs (trainer.programs.pipeline); None without a database."""
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


PREWARMED_MODULES: tuple[str, ...] = (
    "trainer.store.sessions",
    "trainer.store.db",
    "trainer.store.metrics",
    "trainer.store.repositories.profiles",
    "trainer.jobs.bus",
    "trainer.agent.loop",
    "trainer.agent.hooks",
    "trainer.agent.tool_registry",
    "trainer.agent.budget",
    "trainer.agent.coaching",
    "trainer.agent.offline_coach",
    "trainer.llm.factory",
    "trainer.llm.models",
    "trainer.agents.registry",
    "trainer.agents.registrations",
    "trainer.agents.prompts",
    "trainer.agents.context",
    "trainer.agents.invocations",
    "trainer.agents.factory",
    "trainer.agents.backends",
    "trainer.agents.anthropic_structured",
    "trainer.agents.openai_structured",
    "trainer.programs.agents",
    "trainer.sources.registry",
    "trainer.runtime_secrets",
    "aws_lambda_powertools.utilities.parameters",
)
"""What `build_container`, `resolve_runtime_secrets` and a turn import when they first run (the model
SDKs come with trainer.llm.factory, psycopg with trainer.store.db)."""
PREWARMED_AWS_SERVICES: tuple[str, ...] = ("dynamodb", "events", "ssm", "secretsmanager")


def prewarm(settings: FunctionSettings) -> None:
    """The first container build's work that opens no connection and reads no secret: the modules
    above, the tool registry and its definitions, the exercise catalog, and one boto3 client per
    service the functions call (each client loads its service model; none sends a request). Run in an
    init phase no request waits for (a SnapStart snapshot, provisioned concurrency); what it builds
    is dropped, the warm caches stay."""
    for name in PREWARMED_MODULES:
        importlib.import_module(name)
    from trainer.agent.tool_registry import ToolRegistry
    from trainer.domain.catalog import load_catalog
    from trainer.store.dynamo_tables import aws_client

    ToolRegistry(collect_tools()).definitions()
    build_registries()
    load_catalog()
    for service in PREWARMED_AWS_SERVICES:
        aws_client(service, settings)


def collect_tools(module_names: Iterable[str] = TOOL_MODULES) -> list[AnyTool]:
    """Every tool exported as `TOOLS` by the trainer.tools.* modules."""
    tools: list[AnyTool] = []
    for name in module_names:
        module = importlib.import_module(f"trainer.tools.{name}")
        tools.extend(getattr(module, "TOOLS", []))
    return tools


def build_registries(chat_tools: Iterable[str] | None = None) -> Registries:
    """Every agent the system runs (the system agents, then each package of `AGENT_REGISTRATIONS`),
    checked: a name that does not resolve is a RegistryError here, at start-up."""
    from trainer.agents.prompts import read_prompt_files
    from trainer.agents.registrations import register_system_agents
    from trainer.agents.registry import Registries

    registries = Registries()
    names = list(chat_tools) if chat_tools is not None else [tool.name for tool in collect_tools()]
    register_system_agents(registries, names)
    for module_name, function in AGENT_REGISTRATIONS:
        getattr(importlib.import_module(module_name), function)(registries)
    registries.check(prompt_ids=set(read_prompt_files()))
    return registries


def agent_run_deps(
    settings: ModelSettings,
    db: Database | None,
    registries: Registries | None = None,
    *,
    http_client: httpx2.AsyncClient | None = None,
) -> AgentRunDeps:
    """The registry agents' dependencies: backends chosen by settings, prompts and invocations in
    Postgres (in memory without a database), context from the data sources."""
    from trainer.agents.backends import build_backends
    from trainer.agents.context import ContextService
    from trainer.agents.factory import AgentRunDeps
    from trainer.agents.invocations import InvocationRecorder, MemoryInvocations, PostgresInvocations
    from trainer.agents.prompts import PromptStore

    registries = registries or build_registries()
    invocations: InvocationRecorder = PostgresInvocations(db) if db is not None else MemoryInvocations()
    return AgentRunDeps(
        registries=registries,
        backends=build_backends(settings, registries, http_client),
        prompts=PromptStore(db),
        context=ContextService(db, registries.contexts),
        invocations=invocations,
        db=db,
    )


async def build_container(
    settings: Settings,
    *,
    store: SessionStore | None = None,
    db: Database | None = None,
    publisher: EventPublisher | None = None,
    agent_model: AgentModel | None = None,
    selector: KnowledgeSelector | None = None,
    planner: OfflinePlanner | None = None,
    hooks: Sequence[TurnHooks] = (),
    budget: DailyBudget | None = None,
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

        db = Database(settings.database_url, max_size=settings.database_pool_max)
        await db.open()
        closers.append(db.close)
    if publisher is None:
        from trainer.jobs.bus import EventBridgePublisher

        publisher = EventBridgePublisher(settings)
    from trainer.agent.loop import AgentLoop
    from trainer.observability import default_turn_hooks

    if budget is None:
        budget = _daily_budget(settings, store)
    agents = agent_run_deps(settings, db)
    programs = program_deps(settings, db, agents, publisher)
    deps = agent_deps(
        settings,
        store,
        db,
        publisher=publisher,
        agent_model=agent_model,
        selector=selector,
        planner=planner,
        hooks=[*default_turn_hooks(settings), *hooks],
        budget=budget,
        programs=programs,
    )
    return Container(
        settings=settings,
        store=store,
        agent=AgentLoop(deps),
        db=db,
        publisher=publisher,
        agents=agents,
        programs=programs,
        closers=closers,
    )


def agent_deps(
    settings: Settings,
    store: SessionStore,
    db: Database | None,
    *,
    publisher: EventPublisher | None = None,
    agent_model: AgentModel | None = None,
    selector: KnowledgeSelector | None = None,
    planner: OfflinePlanner | None = None,
    hooks: Sequence[TurnHooks] = (),
    budget: DailyBudget | None = None,
    programs: ProgramDeps | None = None,
) -> AgentDeps:
    """The agent's typed dependencies: tools, models, data sources, coaching, programs, hooks, budget."""
    from trainer.agent.hooks import CompositeHooks
    from trainer.agent.loop import AgentDeps
    from trainer.agent.tool_registry import ToolRegistry

    if selector is None:
        from trainer.llm.factory import build_selector

        selector = build_selector(settings)
    coach = None
    if db is not None:
        from trainer.agent.coaching import CoachServices
        from trainer.agent.offline_coach import OfflineCoach

        coach = CoachServices(db)
        if planner is None:
            planner = OfflineCoach(db, store)
    models: Any
    if agent_model is not None:
        models = FixedModel(agent_model)
    else:
        if planner is None and settings.model_mode == "offline":
            raise ValueError("the offline model composes workouts from the domain database: set DATABASE_URL")
        models = ModelsById(settings, planner)
    return AgentDeps(
        budget=budget,
        store=store,
        models=models,
        selector=selector,
        registry=ToolRegistry(collect_tools()),
        user_data=_user_data_builder(db),
        sources=_source_fetcher_factory(db),
        settings=settings,
        publisher=publisher,
        db=db,
        coach=coach,
        programs=programs,
        hooks=CompositeHooks(hooks),
    )


def program_deps(
    settings: Settings, db: Database | None, agents: AgentRunDeps, publisher: EventPublisher | None
) -> ProgramDeps | None:
    """The program pipeline's dependencies: a plan request publishes `PlanRequested` on `publisher`
    (the local stack's in-process bus, EventBridge in AWS). None without a database."""
    if db is None:
        return None
    from trainer.programs.pipeline import ProgramDeps

    return ProgramDeps(db=db, agents=agents, publisher=publisher, morning_hour=settings.morning_hour)


class FixedModel:
    """One model for every model id (tests, benchmarks)."""

    def __init__(self, model: AgentModel) -> None:
        self._model = model

    def model_for(self, model_id: str) -> AgentModel:
        return self._model


class ModelsById:
    """One agent model per model id (the request's `model` overrides TRAINER_MODEL), built once."""

    def __init__(self, settings: Settings, planner: OfflinePlanner | None) -> None:
        self._settings = settings
        self._planner = planner
        self._models: dict[str, AgentModel] = {}

    def model_for(self, model_id: str) -> AgentModel:
        if model_id not in self._models:
            from trainer.llm.factory import build_agent_model

            settings = self._settings.model_copy(update={"model": model_id})
            self._models[model_id] = build_agent_model(settings, self._planner)
        return self._models[model_id]


def _daily_budget(settings: Settings, store: SessionStore) -> DailyBudget | None:
    """The per-user daily budget, on the daily metrics the cost job keeps beside DynamoDB sessions."""
    from trainer.store.sessions import DynamoSessionStore

    if not isinstance(store, DynamoSessionStore):
        return None
    from trainer.agent.budget import DailyBudget
    from trainer.store.metrics import DailyMetricsStore, DynamoDailyUsage

    usage = DynamoDailyUsage(DailyMetricsStore(settings, client=store.table.client))
    return DailyBudget(usage, settings.daily_turn_limit, settings.daily_cost_limit_cents)


def _user_data_builder(db: Database | None) -> Callable[[str], Awaitable[str]]:
    async def user_data(user_id: str) -> str:
        if db is None:
            raise RuntimeError("no domain database configured")
        from trainer.sources.registry import build_user_data_xml

        return await build_user_data_xml(db, user_id)

    return user_data


def _source_fetcher_factory(db: Database | None) -> Callable[[str], SourceFetcher]:
    def for_user(user_id: str) -> SourceFetcher:
        async def fetch(requests: list[tuple[str, dict[str, Any]]]) -> list[Any]:
            if db is None or not requests:
                return []
            from trainer.sources.registry import fetch_sources

            return list(await fetch_sources(db, user_id, requests))

        return fetch

    return for_user
