"""Generates docs/capacity.md: what 1,000 daily users cost and need, from per-turn figures measured
here, and where a million daily users break the deployment first.

Measured by running real turns (`measure()`): the production container (agent loop, all tools, user
data and knowledge from Postgres) on embedded Postgres and DynamoDB (moto), the real anthropic and
openai SDKs against the loopback fake model with its organisation-wide prompt cache. Per turn:
iterations, tokens by kind (input, cache writes, cache reads, output; the initializer's prompt, its
cached part and completion, as the fake's chat completion reports them), DynamoDB requests with the
request units they cost and the bytes they store, SQL statements, EventBridge events, backend time.
Model prices are not typed here: they come from the model catalogue (`trainer.providers.models`,
whose prices are genai-prices'), through its
`cost_cents` / `openai_cost_cents`, so a request whose prompt exceeds 100k tokens is billed at the
model's higher band as it would be. Everything else is a constant below: AWS list prices, model
latency and the traffic shape, each named in the document.

`python scripts/capacity_model.py` (or `make capacity`) rewrites docs/capacity.md.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "capacity.md"

TURNS_PER_USER_PER_DAY = 5
DAYS_PER_MONTH = 30
PEAK_HOUR_SHARE = 0.15
"""Share of a day's turns in its busiest hour (a fitness app: mornings and evenings)."""
LAMBDA_MEMORY_GB = 1.0
"""MemorySize of every function (template.yaml Globals)."""
SESSION_TTL_DAYS = 30


@dataclass(frozen=True)
class ModelSpeed:
    ttft_s: float
    output_tokens_per_s: float


MODELS = {
    "claude-haiku-5-5": ModelSpeed(ttft_s=0.6, output_tokens_per_s=150.0),
    "claude-sonnet-5-5": ModelSpeed(ttft_s=1.2, output_tokens_per_s=60.0),
}
"""The models the document prices, the default (main and light agents, TRAINER_MODEL and
TRAINER_LIGHT_MODEL) first, with their time to first token and output speed per call: assumptions,
the one place latency is guessed (not measured; the fake answers at once)."""
INITIALIZER_MODEL = "gpt-6-luna"
"""TRAINER_INITIALIZER_MODEL's default."""
INITIALIZER_LATENCY_S = 0.6

PRICES = {
    "lambda_gb_second": 0.0000166667,
    "lambda_request": 0.20 / 1e6,
    "api_gateway_request": 3.50 / 1e6,
    "dynamodb_write_unit": 0.625 / 1e6,
    "dynamodb_read_unit": 0.125 / 1e6,
    "dynamodb_gb_month": 0.25,
    "eventbridge_event": 1.00 / 1e6,
}
"""us-east-1 list prices (on-demand DynamoDB, x86 Lambda, REST API Gateway, custom events)."""

LIMITS = {
    "lambda_concurrency": (1_000, "Lambda concurrent executions per region (default quota)"),
    "postgres_connections": (
        1_600,
        "Postgres max_connections of an 8 GiB RDS instance (LEAST(memory/9531392, 5000))",
    ),
    "api_gateway_rps": (10_000, "API Gateway requests per second per region (default account throttle)"),
    "dynamodb_table_wru_s": (40_000, "DynamoDB on-demand write units per second per table (default quota)"),
    "dynamodb_table_rru_s": (40_000, "DynamoDB on-demand read units per second per table (default quota)"),
    "eventbridge_events_s": (10_000, "EventBridge PutEvents entries per second (us-east-1 default quota)"),
}


# ------------------------------------------------------------------ measurement


def item_size(attributes: dict[str, Any]) -> int:
    """DynamoDB's size of an item in bytes: attribute names plus values (numbers approximated)."""
    return sum(len(name.encode()) + _value_size(value) for name, value in attributes.items())


def _value_size(value: dict[str, Any]) -> int:
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "B":
        return len(inner) if isinstance(inner, bytes | bytearray) else len(str(inner))
    if kind == "N":
        return len(str(inner)) // 2 + 1
    if kind == "M":
        return 3 + item_size(inner)
    if kind == "L":
        return 3 + sum(1 + _value_size(v) for v in inner)
    return 1


@dataclass
class DynamoTally:
    """Requests, request units and bytes written, from the client's own calls."""

    requests: int = 0
    write_units: float = 0.0
    read_units: float = 0.0
    written_bytes: int = 0

    def before_call(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        self.requests += 1
        name = model.name
        if name == "PutItem":
            self._write(params["Item"], transactional=False)
        elif name in ("UpdateItem", "DeleteItem"):
            self.write_units += 1
        elif name == "BatchWriteItem":
            for requests in params["RequestItems"].values():
                for request in requests:
                    self._write(request.get("PutRequest", {}).get("Item"), transactional=False)
        elif name == "TransactWriteItems":
            for entry in params["TransactItems"]:
                ((kind, op),) = entry.items()
                self._write(op.get("Item") if kind == "Put" else None, transactional=True)

    def after_call(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "GetItem":
            size = item_size(parsed.get("Item") or {})
            self.read_units += max(1, math.ceil(size / 4096))
        elif model.name == "Query":
            size = sum(item_size(item) for item in parsed.get("Items") or [])
            self.read_units += max(1, math.ceil(size / 4096))

    def _write(self, item: dict[str, Any] | None, *, transactional: bool) -> None:
        size = item_size(item) if item else 200
        if item:
            self.written_bytes += size
        self.write_units += max(1, math.ceil(size / 1024)) * (2 if transactional else 1)


@dataclass
class TurnFigures:
    iterations: int
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    initializer_prompt_tokens: int
    initializer_cached_tokens: int
    initializer_completion_tokens: int
    dynamodb_requests: int
    dynamodb_write_units: float
    dynamodb_read_units: float
    dynamodb_bytes_written: int
    sql_statements: int
    events_published: int
    backend_ms: float
    model_calls: int


@dataclass
class Measured:
    turns: list[TurnFigures] = field(default_factory=list)
    cold_first_turn: TurnFigures | None = None
    when: str = ""

    def mean(self, name: str) -> float:
        return statistics.mean(float(getattr(t, name)) for t in self.turns)


CONVERSATION = (
    "Give me a chest workout for today",
    "Swap the first exercise for something else",
    "How long should I rest between sets?",
    "I did the workout as planned, log it",
    "How am I doing on my goals this month?",
)
USERS = 3


class CountingPublisher:
    def __init__(self) -> None:
        self.published = 0

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        self.published += 1


async def measure() -> Measured:
    """Runs the conversation for USERS users (the first one's first turn on an empty prompt cache)."""
    from pydantic import SecretStr
    from trainer.container import build_container
    from trainer.offline import OfflineAgentModel
    from trainer.offline.planner import OfflineCoach
    from trainer.settings import Settings
    from trainer.store.db import Database
    from trainer.store.migrate import apply_migrations
    from trainer.store.sessions import DynamoSessionStore
    from trainer_dev.local.fake_llm import FakeLLMServer, ResultJournal
    from trainer_dev.local.moto_server import create_resources, start_moto
    from trainer_dev.local.postgres import start_postgres
    from trainer_dev.local.seed import seed_demo_user

    measured = Measured(when=date.today().isoformat())
    with tempfile.TemporaryDirectory() as tmp:
        pg = start_postgres(Path(tmp) / "pgdata", durable=False)
        moto = start_moto(0)
        try:
            apply_migrations(pg.url)
            suffix = uuid.uuid4().hex[:8]
            settings = Settings(
                DATABASE_URL=pg.url,
                AWS_ENDPOINT_URL=moto.endpoint_url,
                AWS_REGION="us-east-1",
                AWS_ACCESS_KEY_ID="testing",
                TRAINER_TABLE_NAME=f"capacity-{suffix}",
                TRAINER_IDEMPOTENCY_TABLE_NAME=f"capacity-idem-{suffix}",
                TRAINER_EVENT_BUS_NAME=f"capacity-{suffix}",
            )
            create_resources(settings, ROOT / "template.yaml")
            db = Database(pg.url, max_size=1)
            await db.open()
            store = DynamoSessionStore(settings)
            tally = DynamoTally()
            store.table.client.meta.events.register("before-parameter-build.dynamodb", tally.before_call)
            store.table.client.meta.events.register("after-call.dynamodb", tally.after_call)
            journal = ResultJournal()
            fake = FakeLLMServer(
                OfflineAgentModel(OfflineCoach(db, store)),
                policy_loop=asyncio.get_running_loop(),
                journal=journal,
            ).start()
            publisher = CountingPublisher()
            try:
                settings = settings.model_copy(
                    update={
                        "anthropic_api_key": SecretStr("sk-ant-capacity"),
                        "anthropic_base_url": fake.base_url,
                        "openai_api_key": SecretStr("sk-capacity"),
                        "openai_base_url": fake.openai_base_url,
                    }
                )
                container = await build_container(
                    settings, store=store, db=db, publisher=publisher, hooks=[journal]
                )
                for user in range(USERS):
                    user_id = str(uuid.uuid4())
                    await seed_demo_user(db, user_id)
                    session_id: str | None = None
                    for number, message in enumerate(CONVERSATION):
                        figures = await _one_turn(
                            container, fake, tally, publisher, user_id, message, session_id
                        )
                        session_id = figures[1]
                        if user == 0 and number == 0:
                            measured.cold_first_turn = figures[0]
                        else:
                            measured.turns.append(figures[0])
                await container.aclose()
            finally:
                fake.stop()
                await db.close()
        finally:
            moto.stop()
            pg.stop()
    return measured


async def _one_turn(
    container: Any,
    fake: Any,
    tally: DynamoTally,
    publisher: CountingPublisher,
    user_id: str,
    message: str,
    session_id: str | None,
) -> tuple[TurnFigures, str]:
    before = (tally.requests, tally.write_units, tally.read_units, tally.written_bytes, publisher.published)
    seen = len(fake.requests)
    started = time.perf_counter()
    result = await container.agent.run_turn(user_id, message, session_id=session_id)
    wall_ms = (time.perf_counter() - started) * 1000
    calls = fake.requests[seen:]
    chat = [c.usage or {} for c in calls if c.path.endswith("/chat/completions")]
    prompt = sum(int(u.get("prompt_tokens", 0)) for u in chat)
    cached = sum(int((u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0) for u in chat)
    usage = result.usage
    figures = TurnFigures(
        iterations=result.iterations,
        input_tokens=usage.get("input_tokens", 0),
        cache_write_tokens=usage.get("cache_creation_input_tokens", 0),
        cache_read_tokens=usage.get("cache_read_input_tokens", 0),
        output_tokens=usage.get("output_tokens", 0),
        initializer_prompt_tokens=prompt,
        initializer_cached_tokens=cached,
        initializer_completion_tokens=sum(int(u.get("completion_tokens", 0)) for u in chat),
        dynamodb_requests=tally.requests - before[0],
        dynamodb_write_units=tally.write_units - before[1],
        dynamodb_read_units=tally.read_units - before[2],
        dynamodb_bytes_written=tally.written_bytes - before[3],
        sql_statements=result.sql_queries,
        events_published=publisher.published - before[4],
        backend_ms=max(0.0, wall_ms - result.model_ms),
        model_calls=len([c for c in calls if c.path == "/v1/messages"]),
    )
    return figures, result.session_id


# ------------------------------------------------------------------ the model


@dataclass
class Scale:
    daily_users: int

    @property
    def turns_per_day(self) -> float:
        return self.daily_users * TURNS_PER_USER_PER_DAY

    @property
    def peak_turns_per_s(self) -> float:
        return self.turns_per_day * PEAK_HOUR_SHARE / 3600


def turn_seconds(measured: Measured, model_id: str) -> float:
    """A turn's wall time in Lambda: the initializer, each model call (first token, then output at
    the model's speed) and the measured backend time."""
    speed = MODELS[model_id]
    return (
        INITIALIZER_LATENCY_S
        + measured.mean("model_calls") * speed.ttft_s
        + measured.mean("output_tokens") / speed.output_tokens_per_s
        + measured.mean("backend_ms") / 1000
    )


def model_name(model_id: str) -> str:
    from trainer.providers.models import get_model

    return get_model(model_id).display_name


def mean_call_usage(measured: Measured) -> Any:
    """The mean agent model call (a turn's mean tokens over its mean model calls): the unit the
    providers bill, so the >100k-token band applies per request, not per turn."""
    from trainer.providers.ports import Usage

    calls = max(measured.mean("model_calls"), 1.0)
    return Usage(
        input_tokens=round(measured.mean("input_tokens") / calls),
        cache_creation_input_tokens=round(measured.mean("cache_write_tokens") / calls),
        cache_read_input_tokens=round(measured.mean("cache_read_tokens") / calls),
        output_tokens=round(measured.mean("output_tokens") / calls),
    )


def agent_dollars_per_turn(measured: Measured, model_id: str) -> float:
    """The agent model's calls of a mean turn, priced by the catalogue (cache writes at the 5-minute
    rate, TRAINER_PROMPT_CACHE_TTL's default)."""
    from trainer.providers.models import cost_cents

    calls = max(measured.mean("model_calls"), 1.0)
    return cost_cents(model_id, mean_call_usage(measured)) * calls / 100


def initializer_dollars_per_turn(measured: Measured) -> float:
    """The initializer's calls of a mean turn on INITIALIZER_MODEL, its prompt's cached prefix (the
    system message, cached automatically from 1,024 tokens) at the cached rate."""
    from trainer.providers.models import openai_cost_cents

    prompt = round(measured.mean("initializer_prompt_tokens"))
    cached = round(measured.mean("initializer_cached_tokens"))
    completion = round(measured.mean("initializer_completion_tokens"))
    return openai_cost_cents(INITIALIZER_MODEL, prompt, cached, completion) / 100


def model_dollars_per_turn(measured: Measured, model_id: str) -> float:
    return agent_dollars_per_turn(measured, model_id) + initializer_dollars_per_turn(measured)


def band_multiplier(model_id: str, prompt_tokens: int = 200_000) -> float:
    """How much more an input token costs in a request of `prompt_tokens` than at the lowest band
    (1: no higher band at that size), from the catalogue's own pricing."""
    from trainer.providers.models import cost_cents, get_model
    from trainer.providers.ports import Usage

    flat = prompt_tokens * get_model(model_id).input_per_mtok / 1e6 * 100
    return cost_cents(model_id, Usage(input_tokens=prompt_tokens)) / flat


def monthly_costs(measured: Measured, model_id: str, scale: Scale) -> dict[str, float]:
    """Dollars per month by service for `scale` daily users."""
    turns = scale.turns_per_day * DAYS_PER_MONTH
    seconds = turn_seconds(measured, model_id)
    job_invocations = 2 * measured.mean("events_published")
    stored_gb = measured.mean("dynamodb_bytes_written") * scale.turns_per_day * SESSION_TTL_DAYS / 1e9
    return {
        "Lambda (turns)": turns
        * (seconds * LAMBDA_MEMORY_GB * PRICES["lambda_gb_second"] + PRICES["lambda_request"]),
        "Lambda (checkpoint and cost jobs)": turns
        * job_invocations
        * (0.15 * LAMBDA_MEMORY_GB * PRICES["lambda_gb_second"] + PRICES["lambda_request"]),
        "API Gateway": turns * PRICES["api_gateway_request"],
        "DynamoDB requests": turns
        * (
            measured.mean("dynamodb_write_units") * PRICES["dynamodb_write_unit"]
            + measured.mean("dynamodb_read_units") * PRICES["dynamodb_read_unit"]
        ),
        "DynamoDB storage": stored_gb * PRICES["dynamodb_gb_month"],
        "EventBridge": turns * measured.mean("events_published") * PRICES["eventbridge_event"],
        "Models": turns * model_dollars_per_turn(measured, model_id),
    }


def peak_needs(measured: Measured, model_id: str, scale: Scale) -> dict[str, float]:
    """What the busiest hour asks of each limit in LIMITS."""
    rate = scale.peak_turns_per_s
    concurrency = rate * turn_seconds(measured, model_id)
    return {
        "lambda_concurrency": concurrency + rate * 2 * 0.15,
        "postgres_connections": concurrency,
        "api_gateway_rps": rate,
        "dynamodb_table_wru_s": rate * measured.mean("dynamodb_write_units"),
        "dynamodb_table_rru_s": rate * measured.mean("dynamodb_read_units"),
        "eventbridge_events_s": rate * measured.mean("events_published"),
    }


def breaking_order(needs: dict[str, float]) -> list[tuple[str, float]]:
    """Limits by how much of them the peak uses, most used first."""
    return sorted(((name, needs[name] / LIMITS[name][0]) for name in needs), key=lambda x: -x[1])


REMEDIES = {
    "lambda_concurrency": "raise the regional quota (a support request) before launch; the template's "
    "ReservedConcurrency parameters keep the stream and API functions from starving the jobs",
    "postgres_connections": "RDS Proxy (template parameter DatabaseProxyTarget) multiplexes the one "
    "connection each instance holds (TRAINER_DB_POOL_MAX=1) onto a small pool; statements are "
    "pooler-safe (no server-side prepares), proven by the PgBouncer run of the tests",
    "api_gateway_rps": "raise the account throttle; the API stage's throttling settings cap abuse",
    "dynamodb_table_wru_s": "on-demand tables scale per partition (one per session); raise the table "
    "quota by support request",
    "dynamodb_table_rru_s": "as for writes",
    "eventbridge_events_s": "raise the PutEvents quota",
}


# ------------------------------------------------------------------ the document


def _money(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 else f"${value:,.4f}"


def render(measured: Measured) -> str:
    from trainer.providers.models import get_model

    thousand, million = Scale(1_000), Scale(1_000_000)
    lines = [
        "# Capacity and cost model",
        "",
        f"Generated by `scripts/capacity_model.py` on {measured.when} from {len(measured.turns)} "
        f"measured turns ({USERS} users x {len(CONVERSATION)} turns: "
        f"{', '.join(repr(m) for m in CONVERSATION)}; the first user's first turn, on an empty prompt "
        "cache, is shown apart). Do not edit by hand: `make capacity`.",
        "",
        "## Measured per turn",
        "",
        "| figure | mean per turn | cold first turn |",
        "|---|---|---|",
    ]
    cold = measured.cold_first_turn
    for label, name in (
        ("iterations", "iterations"),
        ("agent model calls", "model_calls"),
        ("input tokens (uncached)", "input_tokens"),
        ("cache-write tokens", "cache_write_tokens"),
        ("cache-read tokens", "cache_read_tokens"),
        ("output tokens", "output_tokens"),
        ("initializer prompt tokens", "initializer_prompt_tokens"),
        ("initializer cached prompt tokens", "initializer_cached_tokens"),
        ("initializer completion tokens", "initializer_completion_tokens"),
        ("DynamoDB requests", "dynamodb_requests"),
        ("DynamoDB write units", "dynamodb_write_units"),
        ("DynamoDB read units", "dynamodb_read_units"),
        ("DynamoDB bytes written", "dynamodb_bytes_written"),
        ("SQL statements", "sql_statements"),
        ("EventBridge events", "events_published"),
        ("backend time, ms (turn minus model waits)", "backend_ms"),
    ):
        cold_value = f"{getattr(cold, name):,.0f}" if cold else "-"
        lines.append(f"| {label} | {measured.mean(name):,.1f} | {cold_value} |")
    lines += [
        "",
        "## Assumptions",
        "",
        f"- {TURNS_PER_USER_PER_DAY} turns per daily user per day, {DAYS_PER_MONTH} days a month; "
        f"{PEAK_HOUR_SHARE:.0%} of a day's turns in its busiest hour.",
        f"- Lambda {LAMBDA_MEMORY_GB:.0f} GB (template Globals), billed for the whole turn including model "
        "waits; the checkpoint and cost jobs 150 ms each per turn.",
        "- Models: the main and light agents on "
        + " or ".join(f"{model_name(m)} (`{m}`)" for m in MODELS)
        + f", {model_name(next(iter(MODELS)))} being the default; the initializer on "
        f"{model_name(INITIALIZER_MODEL)} (`{INITIALIZER_MODEL}`). The turns were measured once, on the "
        "default; the other model is priced on the same tokens (the same tokenizer; its own thinking "
        "would add output tokens).",
        "- Model latency per call (assumed, not measured): "
        + "; ".join(
            f"{model_name(m)} first token {speed.ttft_s} s, {speed.output_tokens_per_s:.0f} output tokens/s"
            for m, speed in MODELS.items()
        )
        + f"; initializer ({model_name(INITIALIZER_MODEL)}) {INITIALIZER_LATENCY_S} s.",
        f"- Events and state live {SESSION_TTL_DAYS} days (TRAINER_SESSION_TTL_DAYS).",
        "- Prices: AWS at us-east-1 list prices; models from the model catalogue "
        "(`trainer/providers/models.py`, prices from genai-prices), per million tokens at the lowest "
        "band: "
        + "; ".join(
            f"{get_model(m).display_name} ${get_model(m).input_per_mtok:g} in, "
            f"${get_model(m).output_per_mtok:g} out, cache reads ${get_model(m).cache_read_per_mtok:g}, "
            f"5-minute cache writes ${get_model(m).cache_write_5m_per_mtok:g}"
            for m in (*MODELS, INITIALIZER_MODEL)
        )
        + ". Each call is priced whole, so one whose prompt exceeds 100k tokens is billed at the "
        "higher band ("
        + ", ".join(
            f"{model_name(m)} {band_multiplier(m):g}x at 200k"
            if band_multiplier(m) > 1
            else f"{model_name(m)} none at 200k"
            for m in MODELS
        )
        + f"); the mean agent call here has a {mean_call_usage(measured).prompt_tokens:,}-token prompt. "
        "Initializer calls are priced as the fake reports them: the system message (over 1,024 tokens) "
        "cached automatically after its first use, at the cached rate; the cache writes GPT-6 Luna bills "
        "(1.25x input) happen once per cache lifetime for every user together and are left out.",
        "",
        "## Per 1,000 daily users, per month",
        "",
    ]
    for model_id in MODELS:
        costs = monthly_costs(measured, model_id, thousand)
        total = sum(costs.values())
        needs = peak_needs(measured, model_id, thousand)
        seconds = turn_seconds(measured, model_id)
        turns = thousand.turns_per_day * DAYS_PER_MONTH
        stored_gb = measured.mean("dynamodb_bytes_written") * thousand.turns_per_day * SESSION_TTL_DAYS / 1e9
        lines += [
            f"### {model_name(model_id)}",
            "",
            f"A turn takes {seconds:.1f} s. {turns:,.0f} turns a month use "
            f"{turns * seconds * LAMBDA_MEMORY_GB:,.0f} Lambda GB-seconds for turns, "
            f"{turns * measured.mean('dynamodb_write_units'):,.0f} DynamoDB write units and "
            f"{turns * measured.mean('dynamodb_read_units'):,.0f} read units, keep {stored_gb:.2f} GB in "
            f"DynamoDB, send {turns * measured.mean('events_published'):,.0f} EventBridge events, and in "
            f"the busiest hour hold at most {math.ceil(needs['postgres_connections'])} Postgres "
            "connection(s), one per running turn.",
            "",
            "| service | per month | per user per month |",
            "|---|---|---|",
        ]
        for service, dollars in costs.items():
            lines.append(f"| {service} | {_money(dollars)} | {_money(dollars / thousand.daily_users)} |")
        lines += [f"| **total** | **{_money(total)}** | **{_money(total / thousand.daily_users)}** |", ""]
    input_per_turn = measured.mean("input_tokens") + measured.mean("cache_write_tokens")
    lines += ["## A million daily users: what breaks first", ""]
    for model_id in MODELS:
        needs = peak_needs(measured, model_id, million)
        lines += [
            f"### {model_name(model_id)} ({million.peak_turns_per_s:,.0f} turns/s in the busiest hour)",
            "",
            "| limit | default | peak need | share |",
            "|---|---|---|---|",
        ]
        for name, share in breaking_order(needs):
            limit, label = LIMITS[name]
            lines.append(f"| {label} | {limit:,} | {needs[name]:,.0f} | {share:.0%} |")
        first, share = breaking_order(needs)[0]
        lines += [
            "",
            f"First to break: **{LIMITS[first][1]}** at {share:.0%} of it: {REMEDIES[first]}.",
            "",
        ]
    lines += [
        "What the deployment does about each limit:",
        "",
        *(f"- {LIMITS[name][1]}: {remedy}." for name, remedy in REMEDIES.items()),
        "",
        "Model provider rate limits (input and output tokens per minute) depend on the organisation's "
        "tier; at a million daily users the busiest hour asks, per minute, for "
        + "; ".join(
            f"{model_name(model_id)} {million.peak_turns_per_s * 60 * input_per_turn:,.0f} input tokens "
            f"(uncached and cache writes) and "
            f"{million.peak_turns_per_s * 60 * measured.mean('output_tokens'):,.0f} output tokens"
            for model_id in MODELS
        )
        + " (cache reads, most of the input, do not count against Anthropic's input limit; the same "
        "conversation, so the same tokens, for either model).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import os

    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=DOC)
    args = parser.parse_args(argv)
    measured = asyncio.run(measure())
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(render(measured), encoding="utf-8")
    print(f"wrote {args.output} from {len(measured.turns)} measured turns")
    return 0


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "core"), str(ROOT / "dev")]
    raise SystemExit(main())
