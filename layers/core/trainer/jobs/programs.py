"""The program pipeline's functions (docs/programs.md): `PlanRequested` builds a plan and its
first week, `WeekDue` builds a week once, and the hourly schedules publish `WeekDue` for the plans due
(requesting again the plans left pending, and deleting the health samples past their 400 days) and
`WorkoutReady` for the users whose local morning it is.
The work is `trainer.programs.pipeline`'s; here the events are parsed and the dependencies held.

A deployed instance keeps one event loop and one Postgres connection across its invocations
(`LambdaRuntime`); the local stack and `trainer schedule` run the same handlers on their own loop
(`LoopRuntime`). A malformed event raises InvalidProgramEvent: retrying cannot fix it (after the
function's retries it lands in the failure queue, kept for a look). An event of a deleted account does
nothing (`account_deleted`); the schedules find nothing of one (its plans were deleted with it).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trainer.programs.pipeline import (
    PLAN_REQUESTED,
    WEEK_DUE,
    ProgramDeps,
    ProgramError,
    adapt_missed,
    build_plan,
    build_week,
    republish_deliveries,
    requeue_stale_plans,
    run_daily,
    run_hourly,
)
from trainer.services.health import purge_expired
from trainer.settings import ProgramJobSettings

logger = logging.getLogger(__name__)

WEEK_DUE_LIMIT = 1000
"""Plans one hourly run publishes `WeekDue` for (soonest due first; the rest wait an hour)."""


class InvalidProgramEvent(ValueError):
    """The event is not what the function takes; retrying cannot fix it."""


class PlanRequestedDetail(BaseModel):
    model_config = ConfigDict(extra="ignore")
    user_id: uuid.UUID
    plan_id: uuid.UUID


class WeekDueDetail(PlanRequestedDetail):
    week_number: int = Field(ge=1, le=16)


class ScheduleRun(BaseModel):
    """The schedules' input: which run, and the time it was scheduled for
    (`<aws.scheduler.scheduled-time>`; a retried invocation reads the same hour)."""

    model_config = ConfigDict(extra="ignore")
    run: Literal["hourly", "daily"]
    at: datetime | None = None

    def moment(self) -> datetime | None:
        if self.at is None:
            return None
        return self.at if self.at.tzinfo is not None else self.at.replace(tzinfo=UTC)


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'detail'}: {e['msg']}" for e in exc.errors())


def parse_detail[M: BaseModel](event: Any, detail_type: str, model: type[M]) -> M:
    """The detail of an EventBridge envelope (or a bare detail) as `model`."""
    if not isinstance(event, dict):
        raise InvalidProgramEvent(f"expected an EventBridge event object, got {type(event).__name__}")
    kind = event.get("detail-type")
    if kind is not None and kind != detail_type:
        raise InvalidProgramEvent(f"unexpected detail-type {kind!r}, expected {detail_type!r}")
    try:
        return model.model_validate(event.get("detail", event))
    except ValidationError as exc:
        raise InvalidProgramEvent(f"invalid {detail_type} detail: {_problems(exc)}") from exc


def parse_schedule(event: Any) -> ScheduleRun:
    if not isinstance(event, dict):
        raise InvalidProgramEvent(f"expected the schedule's input object, got {type(event).__name__}")
    try:
        return ScheduleRun.model_validate(event)
    except ValidationError as exc:
        raise InvalidProgramEvent(f"invalid schedule input: {_problems(exc)}") from exc


# --- where the work runs --------------------------------------------------------------------------


class ProgramRuntime(Protocol):
    def run[T](self, work: Callable[[ProgramDeps], Awaitable[T]]) -> T: ...

    def close(self) -> None: ...


class LambdaRuntime:
    """One event loop per instance, and on it, built at the first invocation, the pipeline's
    dependencies: secrets resolved, a pool of one Postgres connection, EventBridge as publisher."""

    def __init__(self, settings: ProgramJobSettings) -> None:
        self.settings = settings
        self._runner = asyncio.Runner()
        self._deps: ProgramDeps | None = None

    def run[T](self, work: Callable[[ProgramDeps], Awaitable[T]]) -> T:
        async def call() -> T:
            return await work(await self._programs())

        return self._runner.run(call())

    def close(self) -> None:
        """Closes the pool and the loop: for in-process invokes (`trainer invoke`); Lambda just freezes."""
        if self._deps is not None:
            self._runner.run(self._deps.db.close())
            self._deps = None
        self._runner.close()

    async def _programs(self) -> ProgramDeps:
        if self._deps is None:
            from trainer.container import agent_run_deps
            from trainer.runtime_secrets import resolve_runtime_secrets
            from trainer.store.bus import EventBridgePublisher
            from trainer.store.db import Database

            settings = await asyncio.to_thread(resolve_runtime_secrets, self.settings)
            if not settings.database_url:
                raise RuntimeError("no database configured: set TRAINER_DATABASE_SECRET_ARN")
            db = Database(settings.database_url, max_size=settings.database_pool_max)
            await db.open()
            self._deps = ProgramDeps(
                db=db,
                agents=agent_run_deps(settings, db),
                publisher=EventBridgePublisher(settings),
                morning_hour=settings.morning_hour,
            )
        return self._deps


class LoopRuntime:
    """Runs the work on `loop` (the local stack's, the CLI's), from the caller's thread (a bus worker)."""

    def __init__(self, programs: ProgramDeps, loop: asyncio.AbstractEventLoop) -> None:
        self.programs = programs
        self.loop = loop

    def run[T](self, work: Callable[[ProgramDeps], Awaitable[T]]) -> T:
        async def call() -> T:
            return await work(self.programs)

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result()

    def close(self) -> None:
        """The loop's owner closes what runs on it."""


@dataclass
class ProgramJobDeps:
    runtime: ProgramRuntime
    week_due_limit: int = WEEK_DUE_LIMIT

    @classmethod
    def from_settings(cls, settings: ProgramJobSettings) -> ProgramJobDeps:
        return cls(runtime=LambdaRuntime(settings))

    @classmethod
    def on_loop(cls, programs: ProgramDeps, loop: asyncio.AbstractEventLoop) -> ProgramJobDeps:
        return cls(runtime=LoopRuntime(programs, loop))

    def close_instance(self) -> None:
        """What a function instance holds open, closed (`trainer invoke` calls it after each invoke)."""
        self.runtime.close()


# --- the handlers ---------------------------------------------------------------------------------


async def account_deleted(programs: ProgramDeps, user_id: str) -> bool:
    """A late event of a deleted account builds nothing (its plans are gone, and its rows cannot be
    written again; this answers before any work starts); a build whose account is deleted while it runs
    fails on its next write and ends the same way, not as an error to retry."""
    from trainer.services.account import AccountService

    return await AccountService(programs.db).is_deleted(user_id)


def handle_plan_requested(event: dict[str, Any], context: Any, deps: ProgramJobDeps) -> dict[str, Any]:
    """Lambda entry for PlanRequested: the plan built (`ready` with week 1, or `failed`) once."""
    request = parse_detail(event, PLAN_REQUESTED, PlanRequestedDetail)
    ids = {"user_id": str(request.user_id), "plan_id": str(request.plan_id)}

    async def work(programs: ProgramDeps) -> dict[str, Any]:
        if await account_deleted(programs, ids["user_id"]):
            return {**ids, "status": "account_deleted", "error": None}
        try:
            row = await build_plan(programs, ids["user_id"], ids["plan_id"])
        except Exception as exc:
            if await account_deleted(programs, ids["user_id"]):  # deleted while the plan was built
                return {**ids, "status": "account_deleted", "error": None}
            if isinstance(exc, ProgramError):
                return {**ids, "status": exc.code, "error": exc.message}
            raise
        return {**ids, "status": row["status"], "error": row.get("error")}

    return deps.runtime.run(work)


def handle_week_due(event: dict[str, Any], context: Any, deps: ProgramJobDeps) -> dict[str, Any]:
    """Lambda entry for WeekDue: the week built once per (user, plan, week). A build the model fails is
    reported, not retried here: the plan is due again later (backing off) and the hourly run resends."""
    due = parse_detail(event, WEEK_DUE, WeekDueDetail)
    user_id, plan_id = str(due.user_id), str(due.plan_id)
    ids: dict[str, Any] = {"user_id": user_id, "plan_id": plan_id, "week_number": due.week_number}

    async def work(programs: ProgramDeps) -> dict[str, Any]:
        if await account_deleted(programs, user_id):
            return {**ids, "built": False, "reason": "account_deleted", "days": 0}
        try:
            build = await build_week(programs, user_id, plan_id, due.week_number)
        except Exception as exc:
            if await account_deleted(programs, user_id):  # deleted while the week was built
                return {**ids, "built": False, "reason": "account_deleted", "days": 0}
            if isinstance(exc, ProgramError):
                return {**ids, "built": False, "reason": exc.code, "error": exc.message}
            raise
        return {**ids, "built": build.built, "reason": build.reason, "days": len(build.days)}

    return deps.runtime.run(work)


@dataclass
class ScheduleResult:
    run: str
    at: datetime
    published: list[dict[str, Any]] = field(default_factory=list)
    """WeekDue details (hourly) or WorkoutReady details (daily)."""
    requeued: list[dict[str, Any]] = field(default_factory=list)
    """PlanRequested details sent again (hourly)."""
    republished: list[dict[str, Any]] = field(default_factory=list)
    """WorkoutReady details sent again for deliveries the Notifier deferred (daily)."""
    missed: list[dict[str, Any]] = field(default_factory=list)
    """The users whose missed sessions the daily run adapted, with what changed (daily)."""
    health_samples_purged: int = 0
    """Health samples deleted past their retention (hourly; trainer.services.health.purge_expired)."""

    def summary(self) -> dict[str, Any]:
        counts = (
            {
                "week_due": len(self.published),
                "plans_requeued": len(self.requeued),
                "health_samples_purged": self.health_samples_purged,
            }
            if self.run == "hourly"
            else {
                "workout_ready": len(self.published),
                "deliveries_republished": len(self.republished),
                "missed_adapted": sum(len(m["changes"]) for m in self.missed),
            }
        )
        return {"run": self.run, "at": self.at.isoformat(), **counts}


async def run_schedule(
    programs: ProgramDeps, run: ScheduleRun, *, week_due_limit: int = WEEK_DUE_LIMIT
) -> ScheduleResult:
    at = run.moment() or programs.now()
    if run.run == "daily":
        missed = await adapt_missed(programs, now=at)
        published = await run_daily(programs, now=at)
        return ScheduleResult(
            "daily", at, published, republished=await republish_deliveries(programs, now=at), missed=missed
        )
    published = await run_hourly(programs, now=at, limit=week_due_limit)
    requeued = await requeue_stale_plans(programs, now=at)
    purged = await purge_expired(programs.db, at)
    return ScheduleResult("hourly", at, published, requeued, health_samples_purged=purged)


def handle_schedule(event: dict[str, Any], context: Any, deps: ProgramJobDeps) -> dict[str, Any]:
    """Lambda entry for the EventBridge Scheduler schedules: `{"run": "hourly" | "daily", "at": ...}`."""
    run = parse_schedule(event)

    async def work(programs: ProgramDeps) -> dict[str, Any]:
        result = await run_schedule(programs, run, week_due_limit=deps.week_due_limit)
        return result.summary()

    return deps.runtime.run(work)
