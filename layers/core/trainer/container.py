"""The composition root: the one place that picks adapters and wires them together.

Importing this module is cheap; `build_container` imports the adapters (boto3, psycopg, the model
SDKs) when it runs. Nothing here knows the HTTP layer: the API reads the container, never the
other way round.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from trainer.settings import FunctionSettings, ModelSettings, Settings

if TYPE_CHECKING:
    import httpx2

    from trainer.agents.backends import Backends
    from trainer.agents.factory import AgentRunDeps
    from trainer.agents.prompts import PromptStore
    from trainer.agents.registry import AgentRegistry
    from trainer.chat.hooks import TurnHooks
    from trainer.chat.ports import EventPublisher, SourceFetcher
    from trainer.chat.turn import ChatDeps, TurnResult
    from trainer.frames import FrameSink
    from trainer.offline import OfflinePlanner
    from trainer.programs.pipeline import ProgramDeps
    from trainer.providers.ports import AgentModel, KnowledgeSelector
    from trainer.services.account import AccountEraser, AccountService
    from trainer.services.today import TodayService
    from trainer.services.usage_limits import UsageLimits
    from trainer.store.db import Database
    from trainer.store.ports import SessionStore
    from trainer.store.stream_records import StreamRecords

logger = logging.getLogger(__name__)

MAX_REGISTERED_USERS_CACHED = 10_000

ACCOUNT_ERASERS: tuple[tuple[str, str], ...] = (("trainer.container", "push_endpoint_eraser"),)
"""(module, function) pairs that build what an account deletion erases beyond Postgres and the sessions
table (trainer.services.account.AccountEraser): `function(settings, db) -> AccountEraser | None`."""


def push_endpoint_eraser(settings: Settings, db: Database | None) -> AccountEraser | None:
    """The SNS platform endpoints of the user's devices (they hold the push tokens); None without a
    database (no devices)."""
    if db is None:
        return None
    from trainer.services.devices import DeviceEndpointEraser
    from trainer.store.push_endpoints import SnsEndpoints

    return DeviceEndpointEraser(db, SnsEndpoints(settings))


class TurnRunner(Protocol):
    """What the HTTP layer needs from the chat agent (trainer.chat.turn.ChatRunner)."""

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
    limits: UsageLimits | None = None
    """Per-user daily budgets and request rates (None without the DynamoDB store)."""
    agents: AgentRunDeps | None = None
    """What `trainer.agents.run_agent` needs; `container.agents.for_user(user_id)` for a user's run."""
    programs: ProgramDeps | None = None
    """What the program pipeline needs (trainer.programs.pipeline); None without a database."""
    accounts: AccountService | None = None
    """The tombstone check, account deletion and export (trainer.services.account)."""
    stream_records: StreamRecords | None = None
    """Idempotency keys and the frames streams sent (None without the DynamoDB store: no key is kept
    and no stream can be resumed)."""
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    registered_users: set[str] = field(default_factory=set)

    async def ensure_user(self, user_id: str) -> None:
        """Gives a first-time user their `users` row (every domain table references it); each
        user costs one idempotent insert per process. A deleted account is AccountDeleted (the
        database refuses its row)."""
        if self.db is None or user_id in self.registered_users:
            return
        from trainer.services.user_data import UserDataService

        await UserDataService(self.db).for_user(user_id).profile.ensure()
        if len(self.registered_users) >= MAX_REGISTERED_USERS_CACHED:
            self.registered_users.clear()
        self.registered_users.add(user_id)

    def today_service(self, user_id: str, now: datetime) -> TodayService:
        """GET /today's service for one user at `now`: a day with nothing planned gets a workout from the
        offline coach's composer (the catalog on the user's equipment, goals, history and preferences;
        no model call), worded by the program pipeline's day messages. Needs the domain database."""
        from trainer.offline.planner import OfflineCoach
        from trainer.programs.day_messages import OfflineDayMessages
        from trainer.services.scope import UserScope, user_key
        from trainer.services.today import TodayService

        if self.db is None:
            raise RuntimeError("no domain database configured")
        return TodayService(
            UserScope(self.db, user_key(user_id)),
            OfflineCoach(self.db, self.store, clock=lambda: now),
            OfflineDayMessages(),
        )

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
    "trainer.store.usage",
    "trainer.services.usage_limits",
    "trainer.services.user_data",
    "trainer.services.today",
    "trainer.programs.day_messages",
    "trainer.store.bus",
    "trainer.chat.turn",
    "trainer.chat.agent",
    "trainer.chat.hooks",
    "trainer.agents.tools",
    "trainer.agents.steps",
    "trainer.chat.budget",
    "trainer.chat.coaching",
    "trainer.offline.planner",
    "trainer.agents.closing",
    "trainer.providers.anthropic",
    "trainer.providers.openai",
    "trainer.offline",
    "trainer.offline.selector",
    "trainer.providers.models",
    "trainer.services.account",
    "trainer.services.devices",
    "trainer.store.push_endpoints",
    "trainer.store.account_records",
    "trainer.store.stream_records",
    "trainer.services.today",
    "trainer.programs.day_messages",
    "trainer.agents.registry",
    "trainer.agents.prompts",
    "trainer.agents.context",
    "trainer.agents.invocations",
    "trainer.agents.factory",
    "trainer.agents.backends",
    "trainer.offline.structured",
    "trainer.programs.agents",
    "trainer.sources.registry",
    "trainer.runtime_secrets",
    "aws_lambda_powertools.utilities.parameters",
)
"""What `build_container`, `resolve_runtime_secrets` and a turn import when they first run (the model
SDKs come with trainer.providers, psycopg with trainer.store.db)."""
PREWARMED_AWS_SERVICES: tuple[str, ...] = ("dynamodb", "events", "ssm", "secretsmanager")


def prewarm(settings: FunctionSettings) -> None:
    """The first container build's work that opens no connection and reads no secret: the modules
    above, the agent registry and the chat agent's tool definitions, the exercise catalog, the
    configured models' prices (genai-prices' bundled table, no network), and one
    boto3 client per service the functions call (each client loads its service model; none sends a
    request). Run in an init phase no request waits for (a SnapStart snapshot, provisioned
    concurrency); what it builds is dropped, the warm caches stay."""
    for name in PREWARMED_MODULES:
        importlib.import_module(name)
    from trainer.chat.agent import CHAT
    from trainer.domain.catalog import load_catalog
    from trainer.providers.models import warm_prices
    from trainer.store.dynamo_tables import aws_client

    CHAT.toolset.definitions()
    build_agent_registry()
    load_catalog()
    if isinstance(settings, ModelSettings):
        warm_prices(settings.model, settings.light_model, settings.initializer_model)
    for service in PREWARMED_AWS_SERVICES:
        aws_client(service, settings)


def build_agent_registry() -> AgentRegistry:
    """Every agent the system runs, checked together: the chat agent and the two around its turn
    (trainer.chat.agent), the program agents (trainer.programs.agents). A problem is a RegistryError
    here, at start-up."""
    from trainer.agents.registry import AgentRegistry
    from trainer.chat.agent import CHAT_AGENTS
    from trainer.programs.agents import PROGRAM_AGENTS
    from trainer.store.prompt_files import read_prompt_files

    registry = AgentRegistry([*CHAT_AGENTS, *PROGRAM_AGENTS])
    registry.check(prompt_ids=set(read_prompt_files()))
    return registry


def build_backends(
    settings: ModelSettings, registry: AgentRegistry, http_client: httpx2.AsyncClient | None = None
) -> Backends:
    """The registry agents' model per role, by TRAINER_AGENT_PROVIDER (trainer.agents.backends)."""
    from trainer.agents.backends import Backends, ModelChoice, agent_provider

    provider = agent_provider(settings)
    if provider == "anthropic":
        from trainer.providers.anthropic import AnthropicStructured

        anthropic = AnthropicStructured(settings, http_client=http_client)
        logger.info("program agents: Anthropic (%s / %s)", settings.model, settings.light_model)
        return Backends(
            ModelChoice(anthropic, settings.model, settings.main_effort),
            ModelChoice(anthropic, settings.light_model, settings.light_effort),
        )
    if provider == "openai":
        from trainer.providers.openai import OpenAIStructured

        openai = OpenAIStructured(settings, http_client=http_client)
        logger.info(
            "program agents: OpenAI (%s / %s)", settings.openai_agent_model, settings.initializer_model
        )
        return Backends(
            ModelChoice(openai, settings.openai_agent_model), ModelChoice(openai, settings.initializer_model)
        )
    from trainer.offline.structured import OfflineStructured

    logger.info("program agents: OFFLINE deterministic implementations")
    return Backends.single(OfflineStructured(registry))


def agent_run_deps(
    settings: ModelSettings,
    db: Database | None,
    registry: AgentRegistry | None = None,
    *,
    prompts: PromptStore | None = None,
    http_client: httpx2.AsyncClient | None = None,
) -> AgentRunDeps:
    """The registry agents' dependencies: backends chosen by settings (the offline one finds each
    agent's implementation in `registry`), prompts and invocations in Postgres (in memory without a
    database), context from the data sources."""
    from trainer.agents.context import ContextService
    from trainer.agents.factory import AgentRunDeps
    from trainer.agents.invocations import InvocationRecorder, MemoryInvocations, PostgresInvocations
    from trainer.agents.prompts import PromptStore

    invocations: InvocationRecorder = PostgresInvocations(db) if db is not None else MemoryInvocations()
    return AgentRunDeps(
        backends=build_backends(settings, registry or build_agent_registry(), http_client),
        prompts=prompts or PromptStore(db),
        context=ContextService(db),
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
    budget: UsageLimits | None = None,
    erasers: Sequence[AccountEraser] | None = None,
) -> Container:
    """Wires the production adapters; anything passed in is used instead (tests, the local stack;
    `erasers` replaces the ones ACCOUNT_ERASERS builds).

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
        from trainer.store.bus import EventBridgePublisher

        publisher = EventBridgePublisher(settings)
    from trainer.agents.prompts import PromptStore
    from trainer.chat.turn import ChatRunner
    from trainer.observability import default_turn_hooks

    if budget is None:
        budget = _usage_limits(settings, store)
    prompts = PromptStore(db)
    agents = agent_run_deps(settings, db, prompts=prompts)
    programs = program_deps(settings, db, agents, publisher, budget)
    deps = chat_deps(
        settings,
        store,
        db,
        prompts=prompts,
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
        agent=ChatRunner(deps),
        db=db,
        publisher=publisher,
        limits=budget,
        agents=agents,
        programs=programs,
        accounts=account_service(settings, store, db, erasers),
        stream_records=stream_records(settings, store),
        closers=closers,
    )


def stream_records(settings: Settings, store: SessionStore) -> StreamRecords | None:
    """Idempotency keys and stream frames in the sessions table, beside the DynamoDB session store."""
    from trainer.store.sessions import DynamoSessionStore

    if not isinstance(store, DynamoSessionStore):
        return None
    from trainer.store.stream_records import DynamoStreamRecords

    return DynamoStreamRecords(settings, client=store.table.client)


def account_service(
    settings: Settings,
    store: SessionStore,
    db: Database | None,
    erasers: Sequence[AccountEraser] | None = None,
) -> AccountService:
    """Deletion and export over the database, the sessions table (when the store is DynamoDB) and the
    erasers given, else those ACCOUNT_ERASERS builds."""
    from trainer.services.account import AccountService
    from trainer.store.sessions import DynamoSessionStore

    records = None
    if isinstance(store, DynamoSessionStore):
        from trainer.store.account_records import DynamoAccountRecords

        records = DynamoAccountRecords(settings, client=store.table.client)
    if erasers is None:
        built = (getattr(importlib.import_module(m), f)(settings, db) for m, f in ACCOUNT_ERASERS)
        erasers = [eraser for eraser in built if eraser is not None]
    return AccountService(db, records, erasers)


def chat_deps(
    settings: Settings,
    store: SessionStore,
    db: Database | None,
    *,
    prompts: PromptStore | None = None,
    publisher: EventPublisher | None = None,
    agent_model: AgentModel | None = None,
    selector: KnowledgeSelector | None = None,
    planner: OfflinePlanner | None = None,
    hooks: Sequence[TurnHooks] = (),
    budget: UsageLimits | None = None,
    programs: ProgramDeps | None = None,
) -> ChatDeps:
    """The chat turn's typed dependencies: the chat agent (its iteration cap from the settings), its
    prompts, models, data sources, coaching, programs, hooks, budget."""
    from dataclasses import replace

    from trainer.agents.closing import ResultReplies
    from trainer.agents.prompts import PromptStore
    from trainer.chat.agent import CHAT
    from trainer.chat.hooks import CompositeHooks
    from trainer.chat.turn import ChatDeps

    if selector is None:
        selector = build_selector(settings)
    coach = None
    if db is not None:
        from trainer.chat.coaching import CoachServices
        from trainer.offline.planner import OfflineCoach

        coach = CoachServices(db)
        if planner is None:
            planner = OfflineCoach(db, store)
    models: Any
    fallback: AgentModel | None = None
    if agent_model is not None:
        models = FixedModel(agent_model)
    else:
        if planner is not None and settings.anthropic_api_key is not None:
            from trainer.offline import degraded_coach

            # degraded mode: a turn whose live model is unavailable is answered by the offline coach
            fallback = degraded_coach(planner)
        if planner is None and settings.model_mode == "offline":
            raise ValueError("the offline model composes workouts from the domain database: set DATABASE_URL")
        models = ModelsById(settings, planner)
    agent = (
        CHAT
        if CHAT.max_steps == settings.max_iterations
        else replace(CHAT, max_steps=settings.max_iterations)
    )
    return ChatDeps(
        agent=agent,
        prompts=prompts or PromptStore(db),
        budget=budget,
        store=store,
        models=models,
        selector=selector,
        user_data=_user_data_builder(db),
        sources=_source_fetcher_factory(db),
        settings=settings,
        publisher=publisher,
        db=db,
        coach=coach,
        programs=programs,
        closing_replies=ResultReplies(db),
        hooks=CompositeHooks(hooks),
        fallback=fallback,
    )


def program_deps(
    settings: Settings,
    db: Database | None,
    agents: AgentRunDeps,
    publisher: EventPublisher | None,
    limits: UsageLimits | None = None,
) -> ProgramDeps | None:
    """The program pipeline's dependencies: a plan request publishes `PlanRequested` on `publisher`
    (the local stack's in-process bus, EventBridge in AWS). None without a database."""
    if db is None:
        return None
    from trainer.programs.pipeline import ProgramDeps

    return ProgramDeps(
        db=db, agents=agents, publisher=publisher, morning_hour=settings.morning_hour, limits=limits
    )


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
            settings = self._settings.model_copy(update={"model": model_id})
            self._models[model_id] = build_agent_model(settings, self._planner)
        return self._models[model_id]


def build_agent_model(
    settings: Settings, planner: OfflinePlanner | None, http_client: httpx2.AsyncClient | None = None
) -> AgentModel:
    """The chat agent's model: Anthropic with its key, else the offline coach on the planner."""
    if settings.anthropic_api_key is not None:
        from trainer.providers.anthropic import AnthropicAgentModel

        logger.info("main agent model: Anthropic (%s)", settings.model)
        return AnthropicAgentModel(settings, http_client=http_client)
    if planner is None:
        raise ValueError("the offline model needs a planner (the domain database)")
    from trainer.offline import OfflineAgentModel

    logger.warning("main agent model: OFFLINE rule-based policy (no ANTHROPIC_API_KEY set)")
    return OfflineAgentModel(planner)


def build_selector(settings: Settings, http_client: httpx2.AsyncClient | None = None) -> KnowledgeSelector:
    """The initializer: OpenAI with its key (the deterministic rules when it fails), else the rules."""
    from trainer.offline.selector import DeterministicKnowledgeSelector

    if settings.openai_api_key is None:
        logger.info("initializer: deterministic rules (no OPENAI_API_KEY set)")
        return DeterministicKnowledgeSelector()
    from trainer.chat.initializer import FallbackKnowledgeSelector
    from trainer.providers.openai import OpenAIKnowledgeSelector

    logger.info("initializer: OpenAI (%s) with deterministic fallback", settings.initializer_model)
    primary = OpenAIKnowledgeSelector(settings, http_client=http_client)
    return FallbackKnowledgeSelector(primary, DeterministicKnowledgeSelector())


def _usage_limits(settings: Settings, store: SessionStore) -> UsageLimits | None:
    """Per-user daily budgets and request rates, counted beside the DynamoDB sessions."""
    from trainer.store.sessions import DynamoSessionStore

    if not isinstance(store, DynamoSessionStore):
        return None
    from trainer.services.usage_limits import UsageLimits
    from trainer.store.usage import DynamoUsageLedger

    limits = UsageLimits(
        DynamoUsageLedger(settings, client=store.table.client),
        daily={
            "turns": settings.daily_turn_limit,
            "plans": settings.daily_plan_limit,
            "imports": settings.daily_import_limit,
        },
        cost_limit_cents=settings.daily_cost_limit_cents,
    )
    if not settings.rate_limits_enabled:
        limits.rates = {}
    return limits


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
