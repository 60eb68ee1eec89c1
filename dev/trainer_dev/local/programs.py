"""The program pipeline locally: the in-process bus hands `PlanRequested` and `WeekDue` to the handlers the
functions run (trainer.jobs.programs), on the event loop where the pipeline's database pool lives;
`WorkoutReady` is logged here (the local stack also hands it to the Notifier's handler).

`trainer schedule run-hourly|run-daily [--at ISO-TIME]` runs a schedule against the database of a data
directory (the running `trainer local`'s embedded Postgres, found through its `postmaster.pid`, or one
started for the command) and dispatches what it publishes, printing both: `PlanRequested` and `WeekDue`
in-process, `WorkoutReady` to the running stack's bus (trainer_dev.local.bus.BusEndpoint, found through
its `bus.json`) with the publisher the scheduler uses in AWS, so the stack's Notifier pushes through its
moto SNS and records the delivery (`GET /notifications`). With no stack running there, `WorkoutReady`
reaches no Notifier: the report says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import IO, Any

from trainer.jobs.programs import (
    ProgramJobDeps,
    ScheduleRun,
    handle_plan_requested,
    handle_week_due,
    run_schedule,
)
from trainer.programs.pipeline import PLAN_REQUESTED, WEEK_DUE, WORKOUT_READY, ProgramDeps
from trainer.settings import Settings

from trainer_dev.local.bus import Handler, InProcessBus, RunningBus, running_bus

logger = logging.getLogger(__name__)

Delivered = list[tuple[str, dict[str, Any]]]


def subscribe_programs(
    bus: InProcessBus,
    programs: ProgramDeps,
    loop: asyncio.AbstractEventLoop,
    *,
    delivered: Delivered | None = None,
    workout_ready: Handler | None = None,
) -> None:
    """The function handlers on `bus`, running their work on `loop`; each result is appended to
    `delivered` when given. `WorkoutReady` goes to `workout_ready` (default: logged)."""
    jobs = ProgramJobDeps.on_loop(programs, loop)

    def recorded(function: Handler, name: str) -> Handler:
        def deliver(event: dict[str, Any], context: Any) -> Any:
            result = function(event, context)
            if delivered is not None:
                delivered.append((str(event["detail-type"]), result))
            return result

        deliver.__name__ = name
        return deliver

    bus.subscribe(PLAN_REQUESTED, recorded(partial(handle_plan_requested, deps=jobs), "PlanFunction"))
    bus.subscribe(WEEK_DUE, recorded(partial(handle_week_due, deps=jobs), "MicrocycleFunction"))
    if workout_ready is None:
        bus.subscribe(WORKOUT_READY, log_workout_ready)
    else:
        bus.subscribe(WORKOUT_READY, recorded(workout_ready, "NotifierFunction"))


def log_workout_ready(event: dict[str, Any], context: Any) -> None:
    detail = event.get("detail") or {}
    logger.info(
        "WorkoutReady for user %s, %s",
        detail.get("user_id"),
        detail.get("date"),
    )


def no_notifier(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """WorkoutReady with no local stack running on the data directory: nothing takes it."""
    detail = event.get("detail") or {}
    return {
        "user_id": detail.get("user_id"),
        "date": detail.get("date"),
        "handed_to": None,
        "note": "no local stack runs on this data directory (make run): no Notifier took it",
    }


def forward_to(running: RunningBus, settings: Settings) -> Handler:
    """WorkoutReady handed to the running stack's bus with EventBridgePublisher (the scheduler's
    publisher in AWS): the stack's Notifier takes it there."""
    from trainer.store.bus import EventBridgePublisher

    publisher = EventBridgePublisher(
        settings.model_copy(
            update={"aws_endpoint_url": running.endpoint_url, "event_bus_name": running.event_bus_name}
        )
    )

    def forward(event: dict[str, Any], context: Any) -> dict[str, Any]:
        detail = event.get("detail") or {}
        publisher.publish_sync([(str(event["detail-type"]), detail)])
        return {
            "user_id": detail.get("user_id"),
            "date": detail.get("date"),
            "handed_to": f"the local stack's bus at {running.endpoint_url} (pid {running.pid})",
        }

    return forward


def parse_at(text: str) -> datetime:
    """An ISO time; without an offset it is UTC."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def run_schedule_command(
    settings: Settings,
    run: str,
    *,
    at: datetime | None,
    data_dir: Path,
    deliveries: int = 1,
    as_json: bool = False,
    out: IO[str],
) -> int:
    from trainer.store.migrate import apply_migrations

    from trainer_dev.local.postgres import attached_postgres

    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(sys.stderr))  # logs; `out` gets the report
        url = settings.database_url or stack.enter_context(attached_postgres(Path(data_dir) / "pgdata"))
        apply_migrations(url)
        local = settings.model_copy(update={"database_url": url})
        run_at = ScheduleRun.model_validate({"run": run, "at": at})
        report = asyncio.run(_schedule(local, run_at, deliveries, running_bus(Path(data_dir))))
    if as_json:
        print(json.dumps(report, default=str), file=out)
    else:
        for line in report_lines(report):
            print(line, file=out)
    return 1 if report["failures"] else 0


async def _schedule(
    settings: Settings, run: ScheduleRun, deliveries: int, stack_bus: RunningBus | None
) -> dict[str, Any]:
    from trainer.container import agent_run_deps
    from trainer.store.db import Database

    assert settings.database_url is not None
    db = Database(settings.database_url, min_size=1, max_size=4)
    await db.open()
    bus = InProcessBus(region=settings.aws_region)
    at = run.moment()
    programs = ProgramDeps(
        db=db,
        agents=agent_run_deps(settings, db),
        publisher=bus,
        now=(lambda: at) if at is not None else (lambda: datetime.now(UTC)),
        morning_hour=settings.morning_hour,
    )
    delivered: Delivered = []
    workout_ready = forward_to(stack_bus, settings) if stack_bus is not None else no_notifier
    subscribe_programs(
        bus, programs, asyncio.get_running_loop(), delivered=delivered, workout_ready=workout_ready
    )
    try:
        result = await run_schedule(programs, run)
        kind = WEEK_DUE if result.run == "hourly" else WORKOUT_READY
        published = [(kind, d) for d in result.published] + [(PLAN_REQUESTED, d) for d in result.requeued]
        for _ in range(deliveries - 1):
            for detail_type, detail in published:
                bus.publish_nowait(detail_type, detail)
        await bus.drain()
    finally:
        bus.close()
        await db.close()
    return {
        **result.summary(),
        "deliveries": deliveries,
        "published": [{"detail-type": t, "detail": d} for t, d in published],
        "delivered": [{"detail-type": t, "result": r} for t, r in delivered],
        "failures": [f"{name}: {exc}" for name, exc in bus.failures],
    }


def report_lines(report: dict[str, Any]) -> list[str]:
    counts = ", ".join(f"{k}={v}" for k, v in report.items() if isinstance(v, int) and k != "deliveries")
    lines = [f"{report['run']} run at {report['at']}: {counts}"]
    lines += [
        f"published {p['detail-type']} {json.dumps(p['detail'], default=str)}" for p in report["published"]
    ]
    lines += [
        f"delivered {d['detail-type']} -> {json.dumps(d['result'], default=str)}" for d in report["delivered"]
    ]
    lines += [f"FAILED {failure}" for failure in report["failures"]]
    return lines
