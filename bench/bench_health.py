"""A phone's first sync of 90 days of health data (docs/health-data.md#scale-and-cost): the API in-process on
embedded Postgres and moto, every request through the whole app (token, tombstone check, request rate,
body guard, validation, consent check, one INSERT per batch). For two phones: one that sends HealthKit's
raw step samples (five-minute buckets, about 20,000 samples in all) and one that sends hourly step sums.

Figures per sync: wall time, requests, the slowest request, Postgres statements and WAL bytes, DynamoDB
requests (the request-rate item each request writes), peak traced memory over the whole sync and over its
largest single request (bounded: the same), the table's bytes per sample stored; then a later day's sync,
`GET /today` with the data, and the cost per user per month the data adds, with its assumptions.

`python -m bench health`
"""

from __future__ import annotations

import asyncio
import statistics
import time
import tracemalloc
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import build_container
from trainer.domain.health_data import RETENTION_DAYS
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.request_counts import counting
from trainer_dev.testing.agent_harness import RecordingPublisher
from trainer_dev.testing.health_series import PhoneHealthData

from bench.moto import moto_in_a_process
from bench.postgres import on_fresh_postgres

TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"
ZONE = ZoneInfo("Europe/Berlin")
PHONES = {
    "raw steps (5-minute samples)": PhoneHealthData(days=90, hrv_drop_days=3),
    "hourly step sums": PhoneHealthData(days=90, hrv_drop_days=3, step_minutes=60),
}
SYNCS_PER_DAY = 4
"""Assumed: the app syncs what is new when it opens and in the background, about four times a day."""
PRICES = {
    "rds_gp3_gb_month": 0.115,
    "api_gateway_request": 3.50 / 1e6,
    "lambda_gb_second": 0.0000166667,
    "lambda_request": 0.20 / 1e6,
    "dynamodb_write_unit": 0.625 / 1e6,
}
"""us-east-1 list prices: RDS for PostgreSQL gp3 storage (single-AZ), REST API Gateway, x86 Lambda, on-demand
DynamoDB writes (the figures scripts/capacity_model.py prices the rest with)."""
LAMBDA_MEMORY_GB = 1.0
DAYS_PER_MONTH = 30


async def _wal(db: Database) -> int:
    async with db.connection() as conn:
        cur = await conn.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS at")
        row = await cur.fetchone()
    return int(row["at"]) if row else 0


async def _table_bytes(db: Database) -> tuple[int, int]:
    async with db.connection() as conn:
        await conn.execute("VACUUM ANALYZE health_samples")
        cur = await conn.execute(
            "SELECT pg_total_relation_size('health_samples') AS size,"
            " (SELECT count(*) FROM health_samples) AS n"
        )
        row = await cur.fetchone()
    assert row is not None
    return int(row["size"]), int(row["n"])


class Phone:
    def __init__(self, http: httpx.AsyncClient, settings: Settings) -> None:
        self.user = str(uuid.uuid4())
        token = mint_dev_token(settings.jwt_secret.get_secret_value(), self.user, ttl_seconds=3600)
        self.http = http
        self.headers = {"Authorization": f"Bearer {token}"}

    async def request(
        self, method: str, path: str, **kwargs: Any
    ) -> tuple[httpx.Response, dict[str, int], float]:
        with counting() as counts:
            started = time.perf_counter()
            response = await self.http.request(method, path, headers=self.headers, **kwargs)
            seconds = time.perf_counter() - started
        assert response.status_code < 300, response.text[:300]
        return response, counts.snapshot(), seconds

    async def consent(self) -> None:
        await self.http.put("/user-settings", json={"timezone": ZONE.key}, headers=self.headers)
        every = dict.fromkeys(
            ("heart_rate_variability", "resting_heart_rate", "sleep", "steps", "workouts"), True
        )
        await self.request("PUT", "/health/consent", json=every)


async def _sync(phone: Phone, series: PhoneHealthData, now: datetime, *, traced: bool) -> dict[str, Any]:
    batches = list(series.batches(now, ZONE))
    totals = {"dynamodb": 0, "sql": 0}
    times: list[float] = []
    stored = 0
    largest_batch_peak = 0
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    for body in batches:
        if traced:
            tracemalloc.reset_peak()
        response, counts, seconds = await phone.request("POST", "/health/samples", json=body)
        if traced:
            largest_batch_peak = max(largest_batch_peak, tracemalloc.get_traced_memory()[1])
        stored += response.json()["stored"]
        times.append(seconds)
        for key in totals:
            totals[key] += counts[key]
    wall = time.perf_counter() - started
    peak = 0
    if traced:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return {
        "samples": sum(len(b["samples"]) for b in batches),
        "stored": stored,
        "requests": len(batches),
        "seconds": wall,
        "slowest": max(times),
        "median": statistics.median(times),
        "peak": max(peak, largest_batch_peak),
        "batch_peak": largest_batch_peak,
        **totals,
    }


def _measure(settings: Settings) -> Any:
    async def measure(database_url: str) -> list[str]:
        from trainer_dev.local.moto_server import create_resources

        await asyncio.to_thread(create_resources, settings, TEMPLATE)
        db = Database(database_url, max_size=4)
        await db.open()
        container = await build_container(settings, db=db, publisher=RecordingPublisher())
        app = create_app(container)
        lines: list[str] = []
        now = datetime.now(UTC)
        try:
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://bench", timeout=120
            ) as http:
                for label, series in PHONES.items():
                    lines.extend(await _phone_figures(label, series, http, settings, db, now))
        finally:
            await container.aclose()
            await db.close()
        return lines

    return measure


async def _phone_figures(
    label: str,
    series: PhoneHealthData,
    http: httpx.AsyncClient,
    settings: Settings,
    db: Database,
    now: datetime,
) -> list[str]:
    size_before, rows_before = await _table_bytes(db)
    phone = Phone(http, settings)
    await phone.consent()
    wal_before = await _wal(db)
    timed = await _sync(phone, series, now, traced=False)
    wal = await _wal(db) - wal_before
    size_after, rows_after = await _table_bytes(db)
    per_sample = (size_after - size_before) / max(1, rows_after - rows_before)

    traced_phone = Phone(http, settings)
    await traced_phone.consent()
    traced = await _sync(traced_phone, series, now, traced=True)

    _, today_counts, today_seconds = await phone.request("GET", "/today")
    _, today_again_counts, today_again_seconds = await phone.request("GET", "/today")
    day_samples = round(timed["samples"] / series.days)
    per_sync = max(1, day_samples // SYNCS_PER_DAY)
    recent = series.samples(now, ZONE)[-per_sync:]
    body = {
        "platform": series.platform,
        "samples": [{**sample, "sample_id": f"later-{sample['sample_id']}"} for sample in recent],
    }
    _, later_counts, later_seconds = await phone.request("POST", "/health/samples", json=body)

    lines = [
        f"{label}: {timed['samples']:,} samples in {timed['requests']} requests of at most 1,000, "
        f"{timed['seconds']:.1f} s (median request {timed['median'] * 1000:.0f} ms, slowest "
        f"{timed['slowest'] * 1000:.0f} ms); {timed['stored']:,} stored",
        f"  Postgres: {timed['sql']} statements ({timed['sql'] / timed['requests']:.1f} a request: the "
        f"tombstone, the consent rows held, one INSERT), {wal / 1e6:.1f} MB of WAL; "
        f"{per_sample:.0f} bytes a sample stored (table and its three indexes)",
        f"  DynamoDB: {timed['dynamodb']} requests ({timed['dynamodb'] / timed['requests']:.0f} a request: "
        "its request-rate item)",
        f"  peak traced memory: {traced['peak'] / 1e6:.1f} MB over the whole sync, "
        f"{traced['batch_peak'] / 1e6:.1f} MB for its largest request alone (bounded by one batch)",
        f"  GET /today with 90 days of data: {today_seconds * 1000:.0f} ms, {today_counts['sql']} SQL "
        f"statements (first call, composes the day); again {today_again_seconds * 1000:.0f} ms, "
        f"{today_again_counts['sql']} statements",
        f"  a later sync of {len(body['samples'])} new samples: {later_seconds * 1000:.0f} ms, "
        f"{later_counts['sql']} SQL statements, {later_counts['dynamodb']} DynamoDB request(s)",
    ]
    lines.extend(_cost(label, per_sample, day_samples, later_seconds))
    return lines


def _cost(label: str, per_sample: float, day_samples: int, sync_seconds: float) -> list[str]:
    """Per user per month, in steady state: RETENTION_DAYS of samples kept, SYNCS_PER_DAY requests a day."""
    kept_gb = day_samples * RETENTION_DAYS * per_sample / 1e9
    requests = SYNCS_PER_DAY * DAYS_PER_MONTH
    storage = kept_gb * PRICES["rds_gp3_gb_month"]
    api = requests * PRICES["api_gateway_request"]
    lam = requests * (sync_seconds * LAMBDA_MEMORY_GB * PRICES["lambda_gb_second"] + PRICES["lambda_request"])
    dynamo = requests * PRICES["dynamodb_write_unit"]
    total = storage + api + lam + dynamo
    return [
        f"  cost per user per month ({label}): ${total:.4f} = storage ${storage:.4f} "
        f"({day_samples} samples a day kept {RETENTION_DAYS} days: {kept_gb * 1000:.1f} MB at "
        f"${PRICES['rds_gp3_gb_month']}/GB-month) + API Gateway ${api:.5f} + Lambda ${lam:.5f} + DynamoDB "
        f"${dynamo:.5f} ({requests} syncs a month); per 1,000 users ${total * 1000:.2f}"
    ]


def run() -> list[str]:
    with moto_in_a_process(TRAINER_AGENT_PROVIDER="offline") as settings:
        return on_fresh_postgres(_measure(settings))
