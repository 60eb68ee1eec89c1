"""The Notifier function (docs/delivery.md): `WorkoutReady` -> the day's workout on the user's phones
through SNS mobile push (and SMS for users who opted in), once per user and local day; and
`PushEndpointsRetired` -> the SNS endpoints of devices no longer registered deleted.

The work is `trainer.services.delivery.DeliveryService`'s; here the events are parsed and the
dependencies held. A deployed instance keeps one event loop, one Postgres connection and one SNS client
across its invocations (`LambdaNotifierRuntime`); the local stack runs the same handlers on its own loop
(`LoopNotifierRuntime`). A malformed event raises InvalidNotifierEvent (retrying cannot fix it); a day
another invocation is still sending raises DeliveryInProgress, so the function's retry settles it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trainer.services.delivery import DeliveryService, ReadyWorkout
from trainer.services.devices import ENDPOINTS_RETIRED
from trainer.settings import NotifierSettings

logger = logging.getLogger(__name__)

WORKOUT_READY = "WorkoutReady"
MAX_RETIRED_PER_EVENT = 100


class InvalidNotifierEvent(ValueError):
    """The event is not what the function takes; retrying cannot fix it."""


class EndpointsRetired(BaseModel):
    model_config = ConfigDict(extra="ignore")
    user_id: uuid.UUID
    endpoint_arns: list[str] = Field(min_length=1, max_length=MAX_RETIRED_PER_EVENT)


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'detail'}: {e['msg']}" for e in exc.errors())


def parse_event[M: BaseModel](event: Any, detail_type: str, model: type[M]) -> M:
    """The detail of an EventBridge envelope (or a bare detail) as `model`."""
    if not isinstance(event, dict):
        raise InvalidNotifierEvent(f"expected an EventBridge event object, got {type(event).__name__}")
    kind = event.get("detail-type")
    if kind is not None and kind != detail_type:
        raise InvalidNotifierEvent(f"unexpected detail-type {kind!r}, expected {detail_type!r}")
    try:
        return model.model_validate(event.get("detail", event))
    except ValidationError as exc:
        raise InvalidNotifierEvent(f"invalid {detail_type} detail: {_problems(exc)}") from exc


# --- where the work runs --------------------------------------------------------------------------


class NotifierRuntime(Protocol):
    def run[T](self, work: Callable[[DeliveryService], Awaitable[T]]) -> T: ...

    def close(self) -> None: ...


class LambdaNotifierRuntime:
    """One event loop per instance and, built at the first invocation, the delivery service: secrets
    resolved, a pool of one Postgres connection, an SNS client."""

    def __init__(self, settings: NotifierSettings) -> None:
        self.settings = settings
        self._runner = asyncio.Runner()
        self._service: DeliveryService | None = None
        self._db: Any = None

    def run[T](self, work: Callable[[DeliveryService], Awaitable[T]]) -> T:
        async def call() -> T:
            return await work(await self._delivery())

        return self._runner.run(call())

    def close(self) -> None:
        """Closes the pool and the loop: for in-process invokes (`trainer invoke`); Lambda just freezes."""
        if self._db is not None:
            self._runner.run(self._db.close())
            self._db = self._service = None
        self._runner.close()

    async def _delivery(self) -> DeliveryService:
        if self._service is None:
            from trainer.jobs.sns import SnsPushGateway
            from trainer.runtime_secrets import resolve_runtime_secrets
            from trainer.store.db import Database

            settings = await asyncio.to_thread(resolve_runtime_secrets, self.settings)
            if not settings.database_url:
                raise RuntimeError("no database configured: set TRAINER_DATABASE_SECRET_ARN")
            db = Database(settings.database_url, max_size=settings.database_pool_max)
            await db.open()
            self._db = db
            self._service = delivery_service(settings, db, SnsPushGateway.from_settings(settings))
        return self._service


class LoopNotifierRuntime:
    """Runs the work on `loop` (the local stack's), from the caller's thread (a bus worker)."""

    def __init__(self, service: DeliveryService, loop: asyncio.AbstractEventLoop) -> None:
        self.service = service
        self.loop = loop

    def run[T](self, work: Callable[[DeliveryService], Awaitable[T]]) -> T:
        async def call() -> T:
            return await work(self.service)

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result()

    def close(self) -> None:
        """The loop's owner closes what runs on it."""


def delivery_service(
    settings: NotifierSettings, db: Any, gateway: Any, clock: Callable[[], datetime] | None = None
) -> DeliveryService:
    """The delivery service on `gateway` (push, and SMS when the deployment enables it)."""
    return DeliveryService(
        db,
        gateway,
        gateway if settings.sms_enabled else None,
        morning_hour=settings.morning_hour,
        clock=clock or (lambda: datetime.now(UTC)),
    )


@dataclass
class NotifierDeps:
    runtime: NotifierRuntime

    @classmethod
    def from_settings(cls, settings: NotifierSettings) -> NotifierDeps:
        return cls(runtime=LambdaNotifierRuntime(settings))

    @classmethod
    def on_loop(cls, service: DeliveryService, loop: asyncio.AbstractEventLoop) -> NotifierDeps:
        return cls(runtime=LoopNotifierRuntime(service, loop))

    def close_instance(self) -> None:
        """What a function instance holds open, closed (`trainer invoke` calls it after each invoke)."""
        self.runtime.close()


# --- the handlers ---------------------------------------------------------------------------------


def handle_workout_ready(event: dict[str, Any], context: Any, deps: NotifierDeps) -> dict[str, Any]:
    """Lambda entry for WorkoutReady: the day delivered (or deferred, or skipped) once per user and day."""
    ready = parse_event(event, WORKOUT_READY, ReadyWorkout)
    ids = {"user_id": str(ready.user_id), "date": ready.date.isoformat(), "workout_id": str(ready.workout_id)}

    async def work(service: DeliveryService) -> dict[str, Any]:
        return {**ids, **(await service.deliver(ready)).summary()}

    return deps.runtime.run(work)


def handle_endpoints_retired(event: dict[str, Any], context: Any, deps: NotifierDeps) -> dict[str, Any]:
    """Lambda entry for PushEndpointsRetired: each endpoint deleted (deleting a gone one is no error)."""
    retired = parse_event(event, ENDPOINTS_RETIRED, EndpointsRetired)

    async def work(service: DeliveryService) -> dict[str, Any]:
        return {"user_id": str(retired.user_id), "retired": await service.retire(retired.endpoint_arns)}

    return deps.runtime.run(work)


def handle(event: dict[str, Any], context: Any, deps: NotifierDeps) -> dict[str, Any]:
    """The function's one entry: dispatch on the event's detail-type."""
    kind = event.get("detail-type") if isinstance(event, dict) else None
    if kind == ENDPOINTS_RETIRED:
        return {"detail_type": kind, **handle_endpoints_retired(event, context, deps)}
    return {"detail_type": WORKOUT_READY, **handle_workout_ready(event, context, deps)}
