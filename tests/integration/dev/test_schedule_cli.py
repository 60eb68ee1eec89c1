"""`trainer schedule run-hourly|run-daily`: a schedule run against a database, its events dispatched in
process to the functions' handlers (each delivered as often as `--deliveries` says, at once), WorkoutReady
to the bus of the local stack running on the data directory, and the embedded cluster of a data
directory found while another process runs it (a `trainer local`)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import uuid
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import psycopg
from trainer.container import agent_run_deps
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import ProgramDeps, request_plan
from trainer.settings import Settings
from trainer.store.db import Database
from trainer_dev.cli import build_parser, cmd_schedule
from trainer_dev.local.bus import BusEndpoint, InProcessBus, RunningBus, running_bus
from trainer_dev.local.postgres import attached_postgres, start_postgres
from trainer_dev.local.seed import seed_demo_user

OFFLINE = Settings(TRAINER_AGENT_PROVIDER="offline")


def schedule(settings: Settings, *argv: str) -> tuple[int, str]:
    args = build_parser(settings).parse_args(["schedule", *argv])
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        code = cmd_schedule(settings, args)
    return code, out.getvalue()


async def test_run_hourly_publishes_and_delivers_week_due_in_process(db: Database, pg_url: str) -> None:
    user = str(uuid.uuid4())
    await seed_demo_user(db, user, now=datetime(2026, 3, 2, 7, tzinfo=UTC))
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE user_settings SET timezone = 'Pacific/Auckland' WHERE user_id = %s", (user,)
        )
    deps = ProgramDeps(
        db=db, agents=agent_run_deps(OFFLINE, db), now=lambda: datetime(2026, 3, 2, 7, tzinfo=UTC)
    )
    plan = await request_plan(
        deps, user, PlanRequest(weeks=8, training_days=["Monday"], start_date=date(2026, 3, 2))
    )
    assert plan["status"] == "ready"
    settings = OFFLINE.model_copy(update={"database_url": pg_url})

    # Week 2 starts at midnight on Monday 9 March in Auckland (NZDT, +13): 11:00Z on the 8th.
    code, out = await asyncio.to_thread(
        schedule, settings, "run-hourly", "--at", "2026-03-08T11:00:00Z", "--deliveries", "2", "--json"
    )

    assert code == 0, out
    report: dict[str, Any] = json.loads(out)
    assert report["run"] == "hourly" and report["at"] == "2026-03-08T11:00:00+00:00"
    due = {"user_id": user, "plan_id": str(plan["id"]), "week_number": 2}
    assert {"detail-type": "WeekDue", "detail": due} in report["published"]
    results = [d["result"] for d in report["delivered"] if d["result"]["user_id"] == user]
    assert len(results) == 2 and sorted(r["built"] for r in results) == [False, True]
    with psycopg.connect(pg_url) as conn:
        built = conn.execute(
            "SELECT count(*) FROM plan_workouts WHERE plan_id = %s AND week_number = 2", (plan["id"],)
        ).fetchone()
    assert built == (7,)

    code, out = await asyncio.to_thread(schedule, settings, "run-hourly", "--at", "2026-03-08T10:00:00Z")
    assert code == 0 and user not in out, "before the local week start nothing is due"
    assert out.startswith("hourly run at 2026-03-08T10:00:00+00:00: week_due=")


def test_the_running_cluster_of_a_data_directory_is_found_and_left_running(tmp_path: Path) -> None:
    running = start_postgres(tmp_path / "pgdata", durable=False)
    try:
        with attached_postgres(tmp_path / "pgdata") as url:
            assert f":{running.port}/" in url
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
        with psycopg.connect(running.url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,), "someone else's server stays up"
    finally:
        running.stop()


async def test_run_daily_hands_workout_ready_to_the_running_stacks_bus(
    db: Database, pg_url: str, tmp_path: Path
) -> None:
    """With a local stack running on the data directory (its bus endpoint and `bus.json`), each
    WorkoutReady goes there through the production publisher, as the scheduler's goes to EventBridge;
    without one, the report says that no Notifier took it."""
    user = str(uuid.uuid4())
    monday = datetime(2026, 3, 2, 5, tzinfo=UTC)
    await seed_demo_user(db, user, now=monday)
    deps = ProgramDeps(db=db, agents=agent_run_deps(OFFLINE, db), now=lambda: monday)
    plan = await request_plan(
        deps, user, PlanRequest(weeks=4, training_days=["Monday"], start_date=monday.date())
    )
    assert plan["status"] == "ready"
    settings = OFFLINE.model_copy(update={"database_url": pg_url})

    code, out = await asyncio.to_thread(
        schedule, settings, "run-daily", "--at", "2026-03-02T06:00:00Z", "--data-dir", str(tmp_path), "--json"
    )
    assert code == 0, out
    (alone,) = [d["result"] for d in json.loads(out)["delivered"] if d["result"]["user_id"] == user]
    assert alone["handed_to"] is None and "no Notifier took it" in alone["note"]

    stack_bus = InProcessBus()
    received: list[dict[str, Any]] = []
    stack_bus.subscribe("WorkoutReady", lambda event, context: received.append(event))
    endpoint = BusEndpoint(stack_bus, OFFLINE.event_bus_name).start(tmp_path)
    try:
        assert running_bus(tmp_path) == RunningBus(endpoint.endpoint_url, OFFLINE.event_bus_name, os.getpid())
        async with db.connection() as conn:  # the morning's workout published again
            await conn.execute("UPDATE plan_workouts SET published_at = NULL WHERE user_id = %s", (user,))
        code, out = await asyncio.to_thread(
            schedule,
            settings,
            "run-daily",
            "--at",
            "2026-03-02T06:00:00Z",
            "--data-dir",
            str(tmp_path),
            "--json",
        )
        await stack_bus.drain()
    finally:
        endpoint.stop()
        stack_bus.close()
    assert code == 0, out
    report = json.loads(out)
    (published,) = [p["detail"] for p in report["published"] if p["detail"]["user_id"] == user]
    (handed,) = [d["result"] for d in report["delivered"] if d["result"]["user_id"] == user]
    assert endpoint.endpoint_url in handed["handed_to"]
    (event,) = [e for e in received if e["detail"]["user_id"] == user]
    assert (event["source"], event["detail-type"], event["detail"]) == (
        "trainer.agent",
        "WorkoutReady",
        published,
    )
    assert published["date"] == "2026-03-02"
    assert running_bus(tmp_path) is None, "a stopped stack's bus is not found"


def test_the_stacks_bus_endpoint_refuses_what_eventbridge_would() -> None:
    """Another bus, another source, a detail that is not a JSON object: refused in the answer (nothing
    published), the rest of the batch published."""
    bus = InProcessBus()
    received: list[str] = []
    bus.subscribe("WorkoutReady", lambda event, context: received.append(event["detail"]["n"]))
    endpoint = BusEndpoint(bus, "trainer-bus")
    good = {"Source": "trainer.agent", "DetailType": "WorkoutReady", "EventBusName": "trainer-bus"}
    try:
        answer = endpoint.put_events(
            [
                {**good, "Detail": '{"n": 1}'},
                {**good, "EventBusName": "default", "Detail": '{"n": 2}'},
                {**good, "Source": "someone.else", "Detail": '{"n": 3}'},
                {**good, "Detail": "[4]"},
                {**good, "Detail": "not json"},
            ]
        )
        asyncio.run(bus.drain())
    finally:
        endpoint.stop()
        bus.close()
    assert answer["FailedEntryCount"] == 4
    assert ["EventId" in entry for entry in answer["Entries"]] == [True, False, False, False, False]
    assert received == [1]
