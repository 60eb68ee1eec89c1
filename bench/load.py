"""A local load test: N simulated phones against the local stack (`make load`).

The stack is `trainer local --fake-llm MS` exactly as `make run` starts it (moto, the API on uvicorn,
the real SDKs against the loopback fake model), on an embedded Postgres this script starts, so it can
watch the connections the stack holds. Each phone is its own user and plays one conversation:
a streamed workout request, a chat asking to swap an exercise, a chat asking for a training plan,
then a catch-up read of the session's events. Levels of 1, 20 and 50 concurrent phones run one
after the other on the same stack.

Per level: turns, errors, turn time as the phone sees it, backend time per turn (the turn minus
its model waits), DynamoDB requests and SQL statements per turn, and the most Postgres connections
held at once. The per-turn figures come from the turn metrics the stack writes (EMF lines on its
stdout: BackendTime, ModelWait, DynamoDBRequests, SqlQueries), the connections from sampling
`pg_stat_activity`.

`python -m bench.load [--phones 1,20,50] [--latency-ms 600]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
CONVERSATION = (
    ("stream", "Give me a chest workout for today"),
    ("chat", "Swap the first exercise for something else"),
    ("chat", "Make me a 4 week training plan for strength"),
)


@dataclass
class Level:
    phones: int
    turns: int = 0
    errors: list[str] = field(default_factory=list)
    turn_seconds: list[float] = field(default_factory=list)
    peak_connections: int = 0
    wall_seconds: float = 0.0
    metrics: list[dict[str, Any]] = field(default_factory=list)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


async def _stream_turn(client: httpx.AsyncClient, body: dict[str, Any]) -> tuple[str | None, str | None]:
    """(session id, error) of one streamed turn."""
    session_id, error = None, None
    async with client.stream("POST", "/agent/stream", json=body) as response:
        if response.status_code != 200:
            await response.aread()
            return None, f"stream {response.status_code}: {response.text[:120]}"
        session_id = response.headers.get("x-session-id")
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                frame = json.loads(line[5:].strip())
                if frame.get("type") == "error":
                    error = f"error frame: {frame.get('message') or frame}"
    return session_id, error


async def _phone(base_url: str, token: str, level: Level) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=600) as client:
        session_id: str | None = None
        for kind, message in CONVERSATION:
            body: dict[str, Any] = {"message": message}
            if session_id:
                body["sessionId"] = session_id
            started = time.monotonic()
            try:
                if kind == "stream":
                    session_id, error = await _stream_turn(client, body)
                else:
                    response = await client.post("/agent/chat", json=body)
                    error = None if response.status_code == 200 else f"chat {response.status_code}"
                    session_id = response.json().get("sessionId", session_id) if error is None else session_id
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            level.turns += 1
            level.turn_seconds.append(time.monotonic() - started)
            if error:
                level.errors.append(error)
        if session_id:
            response = await client.get(f"/agent/sessions/{session_id}/events")
            if response.status_code != 200:
                level.errors.append(f"events {response.status_code}")


class ConnectionSampler:
    """The most connections the stack held at once (everything in pg_stat_activity but this one)."""

    def __init__(self, database_url: str) -> None:
        self.url = database_url
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ConnectionSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self._stop.is_set():
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ).fetchone()
                self.peak = max(self.peak, int(row[0]) if row else 0)
                self._stop.wait(0.05)


def _turn_records(log_text: str) -> list[dict[str, Any]]:
    records = []
    for line in log_text.splitlines():
        if line.startswith('{"_aws"') and '"Turns"' in line:
            record = json.loads(line)
            records.append({name: record[name][0] for name in record if isinstance(record[name], list)})
    return records


def _report(level: Level) -> list[str]:
    backend = [m["BackendTime"] for m in level.metrics]
    dynamodb = [m["DynamoDBRequests"] for m in level.metrics]
    sql = [m["SqlQueries"] for m in level.metrics]
    iterations = [m["Iterations"] for m in level.metrics]
    failed = sum(int(m.get("FailedTurns", 0)) for m in level.metrics)
    lines = [
        f"{level.phones} phones: {level.turns} turns in {level.wall_seconds:.1f} s, "
        f"{len(level.errors)} errors, {failed} failed turns; turn as the phone sees it "
        f"p50 {statistics.median(level.turn_seconds):.2f} s, p95 {_pct(level.turn_seconds, 0.95):.2f} s",
    ]
    if level.metrics:
        lines.append(
            f"  backend time per turn (turn minus model waits) p50 {statistics.median(backend):.0f} ms, "
            f"p95 {_pct(backend, 0.95):.0f} ms; per turn: DynamoDB requests {statistics.mean(dynamodb):.1f} "
            f"({sum(dynamodb) / max(1, sum(iterations)):.2f} per iteration), "
            f"SQL statements {statistics.mean(sql):.1f}; Postgres connections held at most "
            f"{level.peak_connections}"
        )
    lines += [f"  error: {error}" for error in sorted(set(level.errors))[:5]]
    return lines


async def _run_level(base_url: str, phones: int, sampler: ConnectionSampler) -> Level:
    from trainer.api.auth import mint_dev_token
    from trainer.settings import LOCAL_JWT_SECRET

    level = Level(phones)
    tokens = [mint_dev_token(LOCAL_JWT_SECRET, str(uuid.uuid4())) for _ in range(phones)]
    sampler.peak = 0
    started = time.monotonic()
    await asyncio.gather(*(_phone(base_url, token, level) for token in tokens))
    level.wall_seconds = time.monotonic() - started
    level.peak_connections = sampler.peak
    return level


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phones", default="1,20,50", help="comma-separated concurrency levels")
    parser.add_argument("--latency-ms", type=int, default=600, help="the fake model's latency per call")
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.phones.split(",")]

    from trainer_dev.local.postgres import start_postgres
    from trainer_dev.testing.local_stack import start_stack, stop_stack

    with tempfile.TemporaryDirectory() as tmp:
        pg = start_postgres(Path(tmp) / "pgdata")
        try:
            stack = start_stack(
                Path(tmp),
                {"DATABASE_URL": pg.url, "POWERTOOLS_METRICS_DISABLED": "false"},
                ("--fake-llm", str(args.latency_ms)),
            )
            print(f"local stack on {stack.base_url}, fake model {args.latency_ms} ms per call", flush=True)
            try:
                with ConnectionSampler(pg.url) as sampler:
                    for phones in levels:
                        before = len(stack.log())
                        level = asyncio.run(_run_level(stack.base_url, phones, sampler))
                        time.sleep(0.5)
                        level.metrics = _turn_records(stack.log()[before:])
                        for line in _report(level):
                            print(line, flush=True)
            finally:
                stop_stack(stack.process)
        finally:
            pg.stop()
    return 0


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT / "layers" / "core"), str(ROOT / "dev")]
    raise SystemExit(main())
