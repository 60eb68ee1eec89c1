"""The program pipeline locally: the in-process bus hands `PlanRequested` and `WeekDue` to the handlers the
functions run (trainer.jobs.programs), on the event loop where the pipeline's database pool lives;
`WorkoutReady` has no local subscriber but a log line (in AWS a delivery integration subscribes).

`trainer schedule run-hourly|run-daily [--at ISO-TIME]` runs a schedule against the database of a data
directory (the running `trainer local`'s embedded Postgres, found through its `postmaster.pid`, or one
started for the command) and dispatches what it publishes in-process, printing both.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import Callable
from datetime import UTC, datetime
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

from trainer_dev.local.bus import Handler, InProcessBus

logger = logging.getLogger(__name__)

Delivered = list[tuple[str, dict[str, Any]]]


def subscribe_programs(
    bus: InProcessBus,
    programs: ProgramDeps,
    loop: asyncio.AbstractEventLoop,
    *,
    delivered: Delivered | None = None,
) -> None:
    """The function handlers on `bus`, running their work on `loop`; each result is appended to
    `delivered` when given."""
    jobs = ProgramJobDeps.on_loop(programs, loop)

    def handler(
        function: Callable[[dict[str, Any], Any, ProgramJobDeps], dict[str, Any]], name: str
    ) -> Handler:
        def deliver(event: dict[str, Any], context: Any) -> dict[str, Any]:
            result = function(event, context, jobs)
            if delivered is not None:
                delivered.append((str(event["detail-type"]), result))
            return result

        deliver.__name__ = name
        return deliver

    bus.subscribe(PLAN_REQUESTED, handler(handle_plan_requested, "PlanFunction"))
    bus.subscribe(WEEK_DUE, handler(handle_week_due, "MicrocycleFunction"))
    bus.subscribe(WORKOUT_READY, log_workout_ready)


def log_workout_ready(event: dict[str, Any], context: Any) -> None:
    detail = event.get("detail") or {}
    logger.info(
        "WorkoutReady for user %s, %s (no delivery integration runs locally)",
        detail.get("user_id"),
        detail.get("date"),
    )


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
        report = asyncio.run(_schedule(local, ScheduleRun.model_validate({"run": run, "at": at}), deliveries))
    if as_json:
        print(json.dumps(report, default=str), file=out)
    else:
        for line in report_lines(report):
            print(line, file=out)
    return 1 if report["failures"] else 0


async def _schedule(settings: Settings, run: ScheduleRun, deliveries: int) -> dict[str, Any]:
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
    subscribe_programs(bus, programs, asyncio.get_running_loop(), delivered=delivered)
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
