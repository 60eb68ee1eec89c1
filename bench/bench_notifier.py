"""The Notifier at one morning's scale (docs/delivery.md): 1,000 users whose local morning it is, one device
each (half APNs, half FCM), one WorkoutReady each, on embedded Postgres and moto's SNS.

1. The first morning: every endpoint is created on the way (CreatePlatformEndpoint, GetEndpointAttributes,
   Publish per device), one invocation after another on a pool of one connection, as one warm Lambda
   instance would run them: total wall time, per delivery (median, p95), SQL statements and SNS calls.
2. The same 1,000 deliveries spread over 10 concurrent workers (10 instances, 10 connections).
3. The next morning: endpoints known, one Publish per device.
4. The same morning's events delivered again (EventBridge at-least-once): all duplicates, nothing sent.

moto serves one request at a time (trainer_dev.local.moto_server), so the SNS part is the local server's
speed, not SNS's; the SQL part is what a deployment pays.

`python -m bench notifier`
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from trainer.jobs.sns import SnsPushGateway
from trainer.services.delivery import DeliveryResult, DeliveryService, ReadyWorkout
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.dynamo_tables import aws_client
from trainer_dev.local.moto_server import create_push_applications

from bench.moto import moto_tables
from bench.postgres import on_fresh_postgres

USERS = 1000
WORKERS = 10
ZONE = "Europe/Berlin"
MESSAGE = (
    "🏋️ Monday Upper Strength - Week 2\n\nWARM-UP (6 min)\n• Band pull-apart + Arm circles\n\nMAIN WORKOUT\n"
    "1️⃣ BB Bench Press: 4×6 @ 70 kg (rest 2 min)\n2️⃣ BB Row: 4×8 @ 60 kg (rest 90s)\n"
    "3️⃣ DB Shoulder Press: 3×10 @ 16 kg (rest 90s)\n4️⃣ Pull-up: 3×8 (rest 90s)\n\n"
    "💪 Let's crush it! Reply when done."
)


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def _morning(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 6, 0, 5, tzinfo=ZoneInfo(ZONE)).astimezone(UTC)


async def _users(db: Database, count: int) -> list[str]:
    users = [str(uuid.uuid4()) for _ in range(count)]
    async with db.transaction() as conn:
        cur = conn.cursor()
        await cur.executemany("INSERT INTO users (id) VALUES (%s)", [(u,) for u in users])
        await cur.executemany(
            "INSERT INTO user_settings (user_id, timezone) VALUES (%s, %s)", [(u, ZONE) for u in users]
        )
        await cur.executemany(
            "INSERT INTO devices (user_id, platform, token, timezone) VALUES (%s, %s, %s, %s)",
            [
                (
                    u,
                    "apns" if i % 2 else "fcm",
                    secrets.token_hex(32) if i % 2 else f"fcm:{secrets.token_urlsafe(90)}",
                    ZONE,
                )
                for i, u in enumerate(users)
            ],
        )
    return users


def _events(users: Sequence[str], day: date) -> list[dict[str, Any]]:
    return [
        {
            "user_id": user,
            "plan_id": str(uuid.uuid4()),
            "workout_id": str(uuid.uuid4()),
            "date": day.isoformat(),
            "week_number": 2,
            "timezone": ZONE,
            "title": "Upper Strength",
            "message": MESSAGE,
        }
        for user in users
    ]


class SnsCalls:
    def __init__(self, client: Any) -> None:
        self.count = 0
        client.meta.events.register("before-call.sns.*", self._count)

    def _count(self, **_: Any) -> None:
        self.count += 1


async def _one_by_one(
    service: DeliveryService, events: Sequence[dict[str, Any]]
) -> tuple[float, list[float], list[DeliveryResult]]:
    durations, results = [], []
    started = time.perf_counter()
    for event in events:
        began = time.perf_counter()
        results.append(await service.deliver(ReadyWorkout.model_validate(event)))
        durations.append(time.perf_counter() - began)
    return time.perf_counter() - started, durations, results


async def _concurrently(
    service: DeliveryService, events: Sequence[dict[str, Any]]
) -> tuple[float, list[DeliveryResult]]:
    queue = list(events)
    results: list[DeliveryResult] = []

    async def worker() -> None:
        while queue:
            results.append(await service.deliver(ReadyWorkout.model_validate(queue.pop())))

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(WORKERS)))
    return time.perf_counter() - started, results


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _summary(
    label: str, total: float, durations: list[float], results: list[DeliveryResult], queries: int, calls: int
) -> str:
    outcomes = {o: sum(1 for r in results if r.outcome == o) for o in sorted({r.outcome for r in results})}
    per, p95 = statistics.median(durations), statistics.quantiles(durations, n=20)[18]
    users = len(results)
    return (
        f"{label}: {total:.1f} s for {users} users ({_ms(total / users)} each; median {_ms(per)},"
        f" p95 {_ms(p95)}); {queries / users:.1f} SQL statements and {calls / users:.1f} SNS calls"
        f" per user; outcomes {outcomes}"
    )


async def _measure(database_url: str) -> list[str]:
    lines: list[str] = []
    async with moto_tables() as base:
        apps = await asyncio.to_thread(create_push_applications, base, "bench")
        settings: Settings = base.model_copy(
            update={
                "sns_apns_application_arn": apps["apns"],
                "sns_apns_sandbox_application_arn": apps["apns_sandbox"],
                "sns_fcm_application_arn": apps["fcm"],
            }
        )
        client = aws_client("sns", settings)
        calls = SnsCalls(client)
        gateway = SnsPushGateway(settings.push_applications, client)
        setup = Database(database_url, min_size=1, max_size=2)
        await setup.open()
        try:
            users = await _users(setup, 2 * USERS)
        finally:
            await setup.close()
        today = datetime.now(UTC).astimezone(ZoneInfo(ZONE)).date()
        clock = Clock(_morning(today))

        first, second = users[:USERS], users[USERS:]
        one = Database(database_url, min_size=1, max_size=1)
        await one.open()
        try:
            service = DeliveryService(one, gateway, morning_hour=6, clock=clock)
            for label, day, group in (
                ("first morning (endpoints created), one instance", today, first),
                ("next morning (endpoints known), one instance", today + timedelta(days=1), first),
                ("the same events again (all duplicates)", today + timedelta(days=1), first),
            ):
                clock.at = _morning(day)
                one.stats.reset()
                calls.count = 0
                total, durations, results = await _one_by_one(service, _events(group, day))
                lines.append(_summary(label, total, durations, results, one.stats.queries, calls.count))
        finally:
            await one.close()

        pool = Database(database_url, min_size=WORKERS, max_size=WORKERS)
        await pool.open()
        try:
            clock.at = _morning(today)
            service = DeliveryService(pool, gateway, morning_hour=6, clock=clock)
            calls.count = 0
            wall, results = await _concurrently(service, _events(second, today))
            sent = sum(1 for r in results if r.outcome == "sent")
            lines.append(
                f"first morning (endpoints created), {WORKERS} concurrent instances: {wall:.1f} s for"
                f" {len(results)} users ({sent} sent), {calls.count / len(results):.1f} SNS calls per user"
            )
        finally:
            await pool.close()
    return lines


def run() -> list[str]:
    return on_fresh_postgres(_measure)
