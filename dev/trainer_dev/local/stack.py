"""The local stack behind `make run` / `trainer local`.

Embedded Postgres (data kept under the data directory, `.local/` by default, between runs;
migrations applied), moto (DynamoDB tables and the EventBridge bus created from template.yaml; its
DynamoDB data kept under the data directory too, so sessions survive a restart as the Postgres rows
that refer to them do),
an in-process bus that hands `TurnCompleted` to the checkpoint and cost handlers the way Lambda
would (and `PlanRequested` / `WeekDue` to the plan and week handlers, `WorkoutReady` and
`PushEndpointsRetired` to the Notifier's, pushing through moto's SNS platform applications; other
processes publish to it through its `PutEvents` endpoint, as `trainer schedule` does), and the API under
uvicorn on 127.0.0.1. DATABASE_URL / AWS_ENDPOINT_URL, when set, are used instead of the embedded servers.
Ctrl-C (or SIGTERM) stops everything in reverse order.

This is the one place that writes environment variables: the process gets dummy AWS credentials
and AWS_ENDPOINT_URL pointing at moto, so every boto3 client in it (including Powertools'
idempotency layer) talks to moto and never to a real AWS account.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainer.api.auth import mint_dev_token
from trainer.settings import Settings

if TYPE_CHECKING:
    from trainer.chat.hooks import TurnHooks
    from trainer.store.db import Database
    from trainer.store.ports import SessionStore

    from trainer_dev.local.moto_server import MotoHandle

DEMO_USER_ID = "00000000-0000-4000-8000-000000000001"
DEMO_TOKEN_TTL_SECONDS = 30 * 24 * 3600
LOCAL_HOST = "127.0.0.1"
DUMMY_AWS_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_SESSION_TOKEN": "local",
}


def default_template_path() -> Path:
    """template.yaml at the repository root (this file is dev/trainer_dev/local/stack.py)."""
    beside_source = Path(__file__).resolve().parents[3] / "template.yaml"
    return beside_source if beside_source.exists() else Path.cwd() / "template.yaml"


@dataclass(frozen=True)
class StackOptions:
    data_dir: Path
    port: int
    template_path: Path
    log_level: str = "info"
    fake_llm_latency: float | None = None
    """Seconds per model call of a loopback fake Anthropic/OpenAI server the real SDKs talk to; None
    runs without one (offline model, or the real APIs when keys are set)."""


def _say(line: str = "") -> None:
    print(line, flush=True)


def _use_moto_environment(endpoint_url: str, region: str, *, dummy_credentials: bool) -> None:
    if dummy_credentials:
        os.environ.update(DUMMY_AWS_CREDENTIALS)
    os.environ["AWS_ENDPOINT_URL"] = endpoint_url
    os.environ.setdefault("AWS_DEFAULT_REGION", region)
    os.environ.setdefault("AWS_REGION", region)
    from trainer.settings import get_settings

    get_settings.cache_clear()


def banner(base_url: str, token: str, settings: Settings) -> list[str]:
    auth = f'-H "Authorization: Bearer {token}"'
    return [
        "",
        f"trainer API on {base_url}  (model: {settings.model_mode} {settings.model}, "
        f"initializer: {settings.initializer_mode})",
        f"demo user: {DEMO_USER_ID}",
        f"dev token: {token}",
        f"session console: {base_url}/console/",
        "",
        "try:",
        f"  curl -s {auth} {base_url}/agent/sessions",
        f"  curl -N {auth} -H 'Content-Type: application/json' "
        f'-d \'{{"message": "Give me a quick chest workout"}}\' {base_url}/agent/stream',
        "",
        "Ctrl-C stops the stack.",
    ]


async def serve_local_stack(settings: Settings, options: StackOptions) -> None:
    import uvicorn
    from trainer.api.app import create_app
    from trainer.api.routes.console import offer_local_token
    from trainer.container import build_container
    from trainer.store.db import Database

    async with contextlib.AsyncExitStack() as stack:
        database_url = settings.database_url
        if database_url is None:
            from trainer_dev.local.postgres import start_postgres

            _say(f"starting embedded Postgres in {options.data_dir / 'pgdata'} ...")
            pg = await asyncio.to_thread(start_postgres, options.data_dir / "pgdata")
            stack.callback(pg.stop)
            database_url = pg.url
        from trainer.store.migrate import apply_migrations

        applied = await asyncio.to_thread(apply_migrations, database_url)
        _say(f"migrations applied: {', '.join(applied) if applied else 'none pending'}")

        endpoint_url = settings.aws_endpoint_url
        moto: MotoHandle | None = None
        if endpoint_url is None:
            from trainer_dev.local.moto_server import start_moto

            moto = await asyncio.to_thread(start_moto, 0, options.data_dir / "dynamodb")
            stack.callback(moto.stop)
            endpoint_url = moto.endpoint_url
            _say(f"moto (DynamoDB, EventBridge) on {endpoint_url}")
        _use_moto_environment(
            endpoint_url, settings.aws_region, dummy_credentials=settings.aws_endpoint_url is None
        )
        settings = settings.model_copy(
            update={"aws_endpoint_url": endpoint_url, "database_url": database_url, "console_enabled": True}
        )

        from trainer_dev.local.moto_server import create_push_applications, create_resources

        await asyncio.to_thread(create_resources, settings, options.template_path)
        push_apps = await asyncio.to_thread(create_push_applications, settings)
        settings = settings.model_copy(
            update={
                "sns_apns_application_arn": push_apps["apns"],
                "sns_apns_sandbox_application_arn": push_apps["apns_sandbox"],
                "sns_fcm_application_arn": push_apps["fcm"],
            }
        )
        if moto is not None:
            restored = await asyncio.to_thread(moto.restore_state, settings)
            stack.callback(moto.save_state, settings)
            _say(f"DynamoDB data kept in {options.data_dir / 'dynamodb'} ({restored} writes restored)")

        db = Database(database_url, max_size=settings.database_pool_max)
        await db.open()
        stack.push_async_callback(db.close)
        from trainer_dev.local.seed import seed_demo_user

        await seed_demo_user(db, DEMO_USER_ID)

        from trainer.store.sessions import DynamoSessionStore

        store = DynamoSessionStore(settings)
        hooks: list[TurnHooks] = []
        if options.fake_llm_latency is not None:
            settings, journal = _start_fake_llm(stack, settings, db, store, options.fake_llm_latency)
            hooks.append(journal)

        bus = _local_bus(settings)
        stack.callback(bus.close)
        stack.push_async_callback(bus.drain)

        container = await build_container(settings, store=store, db=db, publisher=bus, hooks=hooks)
        stack.push_async_callback(container.aclose)
        _subscribe_programs(bus, container)
        _subscribe_notifier(bus, settings, db)
        from trainer_dev.local.bus import BusEndpoint

        endpoint = BusEndpoint(bus, settings.event_bus_name).start(options.data_dir)
        stack.callback(endpoint.stop)
        _say(f"event bus for `trainer schedule` on {endpoint.endpoint_url} (PutEvents)")

        app = create_app(container)
        config = uvicorn.Config(
            app,
            host=LOCAL_HOST,
            port=options.port,
            log_level=options.log_level,
            lifespan="on",
            timeout_graceful_shutdown=30,
        )
        server = _ForegroundServer(config)
        base_url = f"http://{LOCAL_HOST}:{options.port}"
        token = mint_dev_token(
            settings.jwt_secret.get_secret_value(),
            DEMO_USER_ID,
            ttl_seconds=DEMO_TOKEN_TTL_SECONDS,
            issuer=settings.jwt_issuer,
            audience=settings.jwt_audience,
        )
        offer_local_token(app, settings, DEMO_USER_ID, token)
        server.on_started = partial(_say, "\n".join(banner(base_url, token, settings)))
        await server.serve()
        _say("stopping the local stack ...")
    _say("local stack stopped")


def _start_fake_llm(
    stack: contextlib.AsyncExitStack,
    settings: Settings,
    db: Database,
    store: SessionStore,
    latency_s: float,
) -> tuple[Settings, TurnHooks]:
    """A loopback fake of the Anthropic and OpenAI APIs in this process, its policy composing real
    workouts from the database; the settings point the real SDKs at it."""
    from pydantic import SecretStr
    from trainer.offline import OfflineAgentModel
    from trainer.offline.planner import OfflineCoach

    from trainer_dev.local.fake_llm import FakeLLMServer, ResultJournal

    journal = ResultJournal()
    fake = FakeLLMServer(
        OfflineAgentModel(OfflineCoach(db, store)),
        latency_s=latency_s,
        policy_loop=asyncio.get_running_loop(),
        journal=journal,
    ).start()
    stack.callback(fake.stop)
    _say(f"fake Anthropic/OpenAI APIs on {fake.base_url} ({latency_s * 1000:.0f} ms per call)")
    return (
        settings.model_copy(
            update={
                "anthropic_api_key": SecretStr("sk-ant-local-fake"),
                "anthropic_base_url": fake.base_url,
                "openai_api_key": SecretStr("sk-local-fake"),
                "openai_base_url": fake.openai_base_url,
            }
        ),
        journal,
    )


def _local_bus(settings: Settings) -> Any:
    from trainer.jobs import checkpoint, costs

    from trainer_dev.local.bus import InProcessBus

    bus = InProcessBus(region=settings.aws_region)
    checkpoint_deps = checkpoint.CheckpointDeps.from_settings(settings)
    cost_deps = costs.CostDeps.from_settings(settings)
    bus.subscribe("TurnCompleted", partial(checkpoint.handle_turn_completed, deps=checkpoint_deps))
    bus.subscribe("TurnCompleted", partial(costs.handle_turn_completed, deps=cost_deps))
    return bus


def _subscribe_programs(bus: Any, container: Any) -> None:
    """The plan and week handlers on the bus, working on this loop with the container's pipeline."""
    if container.programs is None:
        return
    from trainer_dev.local.programs import subscribe_programs

    subscribe_programs(bus, container.programs, asyncio.get_running_loop())


def _subscribe_notifier(bus: Any, settings: Settings, db: Database) -> None:
    """The Notifier's handler on the bus (WorkoutReady, PushEndpointsRetired), working on this loop."""
    from trainer.jobs.notifier import WORKOUT_READY, NotifierDeps, delivery_service, handle
    from trainer.jobs.sns import SnsPushGateway
    from trainer.services.devices import ENDPOINTS_RETIRED

    deps = NotifierDeps.on_loop(
        delivery_service(settings, db, SnsPushGateway.from_settings(settings)), asyncio.get_running_loop()
    )

    def notifier(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return handle(event, context, deps)

    notifier.__name__ = "NotifierFunction"
    bus.subscribe(WORKOUT_READY, notifier)
    bus.subscribe(ENDPOINTS_RETIRED, notifier)


class _ForegroundServer:
    """uvicorn.Server that stops on SIGINT/SIGTERM without re-raising the signal afterwards, so the
    stack can tear down the databases cleanly and exit 0."""

    def __init__(self, config: Any) -> None:
        import uvicorn

        outer = self

        class Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Generator[None, None, None]:
                if threading.current_thread() is not threading.main_thread():
                    yield
                    return
                handled = (signal.SIGINT, signal.SIGTERM)
                originals = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
                try:
                    yield
                finally:
                    for sig, handler in originals.items():
                        signal.signal(sig, handler)

            async def startup(self, sockets: Any = None) -> None:
                await super().startup(sockets)
                if self.started and outer.on_started is not None:
                    outer.on_started()

        self._server = Server(config)
        self.on_started: Callable[[], Any] | None = None

    async def serve(self) -> None:
        await self._server.serve()
        if not self._server.started:
            raise RuntimeError(f"the API could not start on port {self._server.config.port}")


def run_local_stack(settings: Settings, options: StackOptions) -> int:
    try:
        asyncio.run(serve_local_stack(settings, options))
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    return 0
