"""The program pipeline (docs/programs.md): what a plan and its weeks cost, and the hourly runs at scale.

1. Plan + first week on the offline agents: wall time and SQL statements (a user seeded like the demo
   user; median of several users).
2. The same through the real Anthropic and OpenAI SDKs against the loopback fake server (its prompt cache
   simulated from the requests' breakpoints): model calls, tokens and cost per plan and per week (week 1
   with the plan, week 2 right after it, so the user's plan is still cached; week 3 on a clock moved a
   week on, after another user's plan and week, as the weekly build meets the cache), and the cache hit
   rate (cache reads / all input tokens). Costs at the configured models' list prices.
3. The hourly runs over many users: 10,000 (and 1,000) users with active plans, N of them due. The week
   run (`run_hourly`: WeekDue per due plan) and the morning run (`run_daily`: WorkoutReady per training
   day in the morning zones) into an in-memory publisher: SQL statements, rows the due read touches
   (EXPLAIN ANALYZE) and wall time (best of RUNS), side by side, so the ratios show the runs follow the
   users due, not the users; a sequential scan of the same read is timed for contrast.

`python -m bench programs`
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from trainer.agents.wire import INPUT_OPEN
from trainer.container import agent_run_deps, build_agent_registry
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import ProgramDeps, build_week, request_plan, run_daily, run_hourly
from trainer.programs.schedule import morning_window
from trainer.providers.models import MODELS
from trainer.providers.ports import AGENT_HEADER
from trainer.settings import Settings
from trainer.store.db import Database
from trainer_dev.local.fake_llm import FakeLLMServer, prompt_segments
from trainer_dev.local.seed import seed_demo_user

from bench.postgres import on_fresh_postgres

NOW = datetime.now(UTC).replace(microsecond=0)
DAYS = ["Monday", "Tuesday", "Thursday", "Friday"]
OFFLINE_USERS = 5
RUNS = 7
FAST_RUNS = 41
KEY = "sk-bench-programs"


class Recorder:
    def __init__(self) -> None:
        self.count = 0

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        self.count += 1


def _request() -> PlanRequest:
    return PlanRequest(weeks=12, training_days=DAYS)


# --- 1. offline -----------------------------------------------------------------------------------


async def _offline(db: Database) -> list[str]:
    agents = agent_run_deps(Settings(TRAINER_AGENT_PROVIDER="offline"), db, build_agent_registry())
    deps = ProgramDeps(db=db, agents=agents, now=lambda: NOW)
    times, statements = [], []
    for _ in range(OFFLINE_USERS):
        user = str(uuid.uuid4())
        await seed_demo_user(db, user, now=NOW)
        before = db.stats.queries
        started = time.perf_counter()
        row = await request_plan(deps, user, _request())
        times.append((time.perf_counter() - started) * 1000)
        statements.append(db.stats.queries - before)
        assert row["status"] == "ready", row["error"]
    return [
        f"plan + first week, offline agents: {statistics.median(times):.0f} ms median "
        f"(min {min(times):.0f}, max {max(times):.0f}; {OFFLINE_USERS} users), "
        f"{statistics.median(statements):.0f} SQL statements"
    ]


# --- 2. through the SDKs against the fake server --------------------------------------------------


async def _usage(db: Database, user: str, since: datetime) -> dict[str, dict[str, float]]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT agent, count(*) AS runs, sum(model_calls) AS calls, sum(input_tokens) AS input,"
            " sum(output_tokens) AS output, sum(cache_read_tokens) AS cache_read,"
            " sum(cache_write_tokens) AS cache_write, sum(cost_cents) AS cost"
            " FROM agent_invocations WHERE user_id = %s AND started_at >= %s GROUP BY agent",
            (user, since),
        )
        return {
            r["agent"]: {k: float(v or 0) for k, v in r.items() if k != "agent"} for r in await cur.fetchall()
        }


def _row(label: str, parts: list[dict[str, float]]) -> str:
    total = {
        k: sum(p.get(k, 0.0) for p in parts)
        for k in ("calls", "input", "output", "cache_read", "cache_write", "cost")
    }
    seen = total["input"] + total["cache_read"] + total["cache_write"]
    rate = total["cache_read"] / seen * 100 if seen else 0.0
    return (
        f"{label:<30}{total['calls']:>6.0f}{total['input']:>9.0f}{total['cache_write']:>9.0f}"
        f"{total['cache_read']:>9.0f}{total['output']:>8.0f}{total['cost']:>9.3f}{rate:>7.1f}%"
    )


WEEK_S = 7 * 24 * 3600


async def _through_sdks(db: Database, provider: str) -> list[str]:
    later = [0.0]
    with FakeLLMServer(api_key=KEY, clock=lambda: time.monotonic() + later[0]) as server:
        if provider == "anthropic":
            settings = Settings(
                ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=server.base_url, TRAINER_AGENT_PROVIDER=provider
            )
        else:
            settings = Settings(
                OPENAI_API_KEY=KEY, OPENAI_BASE_URL=server.openai_base_url, TRAINER_AGENT_PROVIDER=provider
            )
        deps = ProgramDeps(
            db=db, agents=agent_run_deps(settings, db, build_agent_registry()), now=lambda: NOW
        )
        user = str(uuid.uuid4())
        await seed_demo_user(db, user, now=NOW)
        started = datetime.now(UTC)
        clock = time.perf_counter()
        row = await request_plan(deps, user, _request())
        plan_ms = (time.perf_counter() - clock) * 1000
        assert row["status"] == "ready", row["error"]
        first = await _usage(db, user, started)
        week_started = datetime.now(UTC)
        clock = time.perf_counter()
        second = await build_week(deps, user, row["id"], 2)
        week_ms = (time.perf_counter() - clock) * 1000
        assert second.built
        again = await _usage(db, user, week_started)
        later[0] = WEEK_S
        other = str(uuid.uuid4())
        await seed_demo_user(db, other, now=NOW)
        another = PlanRequest(weeks=8, training_days=["Monday", "Wednesday", "Friday"])
        assert (await request_plan(deps, other, another))["status"] == "ready"
        week_started = datetime.now(UTC)
        third = await build_week(deps, user, row["id"], 3)
        assert third.built
        weekly = await _usage(db, user, week_started)
        prefixes = _cached_prefixes(server) if provider == "anthropic" else {}
    empty: dict[str, float] = {}
    lines = [
        f"{provider} SDK -> fake server (plan + week 1 {plan_ms:.0f} ms, week 2 {week_ms:.0f} ms wall):",
        f"{'':<30}{'calls':>6}{'input':>9}{'c.write':>9}{'c.read':>9}{'output':>8}{'cents':>9}{'hit':>8}",
        _row("plan (fitness_plan)", [first.get("fitness_plan", empty)]),
        _row("week 1 (microcycle)", [first.get("microcycle", empty)]),
        _row("week 1 day messages", [first.get("week_messages", empty)]),
        _row("week 1 total", [first.get("microcycle", empty), first.get("week_messages", empty)]),
        _row("week 2 (microcycle)", [again.get("microcycle", empty)]),
        _row("week 2 day messages", [again.get("week_messages", empty)]),
        _row("week 2 total", [again.get("microcycle", empty), again.get("week_messages", empty)]),
        _row(
            "week 3 a week later (*)", [weekly.get("microcycle", empty), weekly.get("week_messages", empty)]
        ),
        _row("plan + week 1", list(first.values())),
    ]
    lines.append(
        "  (*) the weekly build as it runs: a week after this user's last, their cache entries long "
        "expired, the shared prefixes warm from another user's (another plan's) week"
    )
    if prefixes:
        minimum = MODELS[settings.light_model].min_cacheable_tokens
        shared = ", ".join(f"{agent} ~{tokens:,}" for agent, tokens in sorted(prefixes.items()))
        lines.append(
            f"  cacheable prefix (tools + system + context, before the input) in tokens: {shared}; "
            f"{settings.model} caches nothing below {minimum:,}"
        )
    return lines


def _cached_prefixes(server: FakeLLMServer) -> dict[str, int]:
    """Per agent, the largest static prefix: up to its requests' last cache breakpoint before the input
    block (chars / 4; the breakpoint on the input itself, in a run that loops, is per user)."""
    found: dict[str, int] = {}
    for request in server.anthropic_requests():
        agent = request.headers.get(AGENT_HEADER) or request.headers.get(AGENT_HEADER.lower())
        segments = prompt_segments(request.body)
        start = next((i for i, s in enumerate(segments) if INPUT_OPEN in s.text), len(segments))
        marked = [i for i, segment in enumerate(segments[:start]) if segment.cache_control]
        if agent and marked:
            tokens = sum(len(segment.text) for segment in segments[: marked[-1] + 1]) // 4
            found[agent] = max(found.get(agent, 0), tokens)
    return found


# --- 3. the hourly runs at scale ------------------------------------------------------------------

MORNING_ZONE = "Asia/Tokyo"
OTHER_ZONES = ("America/New_York", "Europe/Berlin", "America/Los_Angeles", "Australia/Sydney", "UTC")


def _morning(now: datetime) -> datetime:
    """The next instant at 06:10 in MORNING_ZONE."""
    local = now.astimezone(ZoneInfo(MORNING_ZONE)).replace(hour=6, minute=10, second=0, microsecond=0)
    return (local + timedelta(days=1)).astimezone(UTC)


async def _seed_users(db: Database, first: int, count: int, today: date) -> None:
    """`count` users with an active plan whose next week is not due and a training day on `today`
    (its message written), none in the morning zone; numbered from `first` so sets can grow."""
    async with db.transaction() as conn:
        await conn.execute(
            "CREATE TEMP TABLE seeded ON COMMIT DROP AS SELECT gen_random_uuid() AS user_id,"
            " gen_random_uuid() AS plan_id, n FROM generate_series(%s::int, %s::int) AS n",
            (first, first + count - 1),
        )
        await conn.execute("INSERT INTO users (id, display_name) SELECT user_id, 'bench ' || n FROM seeded")
        await conn.execute(
            "INSERT INTO training_plans (id, user_id, status, title, weeks, days_per_week, session_minutes,"
            " training_days, start_date, timezone, markdown, plan, active, next_week, next_week_due_at)"
            " SELECT plan_id, user_id, 'ready', 'Bench plan', 12, 7, 60,"
            " ARRAY['Monday','Tuesday','Wednesday','Thursday','Friday','Saturday','Sunday'], %(today)s,"
            " (%(zones)s::text[])[1 + n %% %(nzones)s], '# Bench plan', '{}', true, 2,"
            " %(now)s + make_interval(hours => 1 + n %% 160) FROM seeded",
            {"today": today, "zones": list(OTHER_ZONES), "nzones": len(OTHER_ZONES), "now": NOW},
        )
        await conn.execute(
            "INSERT INTO plan_weeks (plan_id, user_id, week_number, status, start_date, built_at)"
            " SELECT plan_id, user_id, 1, 'ready', %s, now() FROM seeded",
            (today,),
        )
        await conn.execute(
            "INSERT INTO plan_workouts (user_id, plan_id, week_number, date, weekday, kind, workout, message)"
            " SELECT user_id, plan_id, 1, %s, trim(to_char(%s::date, 'Day')), 'training',"
            ' \'{"title": "Bench day", "exercises": []}\', \'Today: bench day.\' FROM seeded',
            (today, today),
        )
        await conn.execute("ANALYZE")


async def _set_due(db: Database, due: int, morning: int) -> None:
    """The first `due` bench users have their next week due now, the first `morning` live in the morning
    zone; everyone's morning message is unpublished."""
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE training_plans p SET next_week_due_at ="
            " CASE WHEN u.n <= %(due)s THEN %(now)s - interval '1 minute'"
            " ELSE %(now)s + make_interval(hours => 1 + u.n %% 160) END,"
            " timezone = CASE WHEN u.n <= %(morning)s THEN %(zone)s"
            " ELSE (%(zones)s::text[])[1 + u.n %% %(nzones)s] END"
            " FROM (SELECT id, (regexp_replace(display_name, '\\D', '', 'g'))::int AS n FROM users"
            " WHERE display_name LIKE 'bench %%') u WHERE p.user_id = u.id",
            {
                "due": due,
                "morning": morning,
                "now": NOW,
                "zone": MORNING_ZONE,
                "zones": list(OTHER_ZONES),
                "nzones": len(OTHER_ZONES),
            },
        )
        await conn.execute("UPDATE plan_workouts SET published_at = NULL WHERE published_at IS NOT NULL")
        await conn.execute("ANALYZE training_plans")


async def _explain(db: Database, sql: str, params: tuple[Any, ...]) -> tuple[str, int, int]:
    """The plan's first scan node (with its index), rows it returned, shared buffers touched."""
    async with db.connection() as conn:
        cur = await conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
        plan = (await cur.fetchone())["QUERY PLAN"][0]["Plan"]

    def scans(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
        if "Scan" in node["Node Type"]:
            yield node
        for child in node.get("Plans", []):
            yield from scans(child)

    found = list(scans(plan))
    name = " <- ".join(
        n["Node Type"] + (f" on {n['Index Name']}" if "Index Name" in n else f" on {n.get('Relation Name')}")
        for n in found
    )
    rows = sum(
        int(n["Actual Rows"]) * int(n.get("Actual Loops", 1))
        for n in found
        if n.get("Relation Name") == "training_plans"
    )
    return name, rows, int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))


async def _best(
    call: Callable[[], Awaitable[Any]], before: Callable[[], Awaitable[Any]] | None = None, runs: int = RUNS
) -> float:
    samples = []
    for _ in range(runs):
        if before is not None:
            await before()
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return min(samples)


MORNING_SQL = (
    "SELECT w.id FROM training_plans p"
    " JOIN plan_workouts w ON w.plan_id = p.id AND w.user_id = p.user_id AND w.date = %s"
    " WHERE p.active AND p.timezone = ANY(%s) AND w.kind = 'training' AND w.status = 'scheduled'"
    " AND w.published_at IS NULL ORDER BY w.id LIMIT 500"
)
"""`program_schedule.morning_workouts`' read, for its plan."""
DUE_SQL = (
    "SELECT id, user_id, next_week, next_week_due_at, weeks, start_date, timezone FROM training_plans"
    " WHERE active AND next_week_due_at IS NOT NULL AND next_week_due_at <= %s"
    " ORDER BY next_week_due_at, id LIMIT %s"
)


async def _scale(db: Database) -> list[str]:
    today = _morning(NOW).astimezone(ZoneInfo(MORNING_ZONE)).date()
    morning_at = _morning(NOW)
    agents = agent_run_deps(Settings(TRAINER_AGENT_PROVIDER="offline"), db, build_agent_registry())
    recorder = Recorder()
    deps = ProgramDeps(db=db, agents=agents, publisher=recorder, now=lambda: NOW)
    results: list[tuple[str, dict[str, Any]]] = []

    async def measure(label: str, due: int) -> None:
        await _set_due(db, due, due)
        recorder.count = 0
        before = db.stats.queries
        published = await run_hourly(deps, now=NOW)
        hourly_statements = db.stats.queries - before
        assert len(published) == due, (label, len(published))
        hourly_ms = await _best(lambda: run_hourly(deps, now=NOW), runs=FAST_RUNS)
        scan, rows, buffers = await _explain(db, DUE_SQL, (NOW, 1000))
        window = morning_window(morning_at, deps.morning_hour)
        ((day, zones),) = window.days.items()
        morning_scan, morning_rows, _ = await _explain(db, MORNING_SQL, (day, list(zones)))
        reset = _reset_published(db)
        await reset()
        before = db.stats.queries
        ready = await run_daily(deps, now=morning_at)
        daily_statements = db.stats.queries - before
        assert len(ready) == due, (label, len(ready))
        daily_ms = await _best(lambda: run_daily(deps, now=morning_at), before=reset)
        results.append(
            (
                label,
                {
                    "hourly_ms": hourly_ms,
                    "hourly_sql": hourly_statements,
                    "rows": rows,
                    "buffers": buffers,
                    "scan": scan,
                    "daily_ms": daily_ms,
                    "morning_scan": morning_scan,
                    "morning_rows": morning_rows,
                    "daily_sql": daily_statements,
                },
            )
        )

    await _seed_users(db, 1, 1000, today)
    await measure("10 due of 1,000", 10)
    await _seed_users(db, 1001, 9000, today)
    await measure("10 due of 10,000", 10)
    await measure("100 due of 10,000", 100)
    async with db.connection() as conn:
        await conn.execute("SET enable_indexscan = off")
        await conn.execute("SET enable_bitmapscan = off")
        started = time.perf_counter()
        for _ in range(RUNS):
            await conn.execute(DUE_SQL, (NOW, 1000))
        scan_ms = (time.perf_counter() - started) * 1000 / RUNS
        cur = await conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + DUE_SQL, (NOW, 1000))
        scanned = (await cur.fetchone())["QUERY PLAN"][0]["Plan"]
        await conn.execute("RESET enable_indexscan")
        await conn.execute("RESET enable_bitmapscan")

    def rows_of(node: dict[str, Any]) -> int:
        own = (
            int(node.get("Actual Rows", 0)) + int(node.get("Rows Removed by Filter", 0))
            if "Scan" in node["Node Type"]
            else 0
        )
        return own + sum(rows_of(c) for c in node.get("Plans", []))

    lines = [
        f"hourly runs into an in-memory publisher (week best of {FAST_RUNS}, morning of {RUNS}); "
        "week run: WeekDue per due plan; morning run: WorkoutReady per training day in the morning zone",
        f"{'':<20}{'week ms':>9}{'SQL':>5}{'rows read':>11}{'buffers':>9}{'morning ms':>12}{'SQL':>5}"
        f"{'rows read':>11}",
    ]
    for label, r in results:
        lines.append(
            f"{label:<20}{r['hourly_ms']:>9.2f}{r['hourly_sql']:>5}{r['rows']:>11}{r['buffers']:>9}"
            f"{r['daily_ms']:>12.2f}{r['daily_sql']:>5}{r['morning_rows']:>11}"
        )
    by = dict(results)
    small, large, many = by["10 due of 1,000"], by["10 due of 10,000"], by["100 due of 10,000"]
    lines.append(f"week due read: {large['scan']}")
    lines.append(f"morning read: {large['morning_scan']}")
    lines.append(
        f"ratios  10k/1k users, same 10 due: week {large['hourly_ms'] / small['hourly_ms']:.2f}x, "
        f"morning {large['daily_ms'] / small['daily_ms']:.2f}x, "
        f"rows read {large['rows'] / small['rows']:.1f}x"
    )
    lines.append(
        f"        100/10 due, 10k users: week {many['hourly_ms'] / large['hourly_ms']:.2f}x, "
        f"morning {many['daily_ms'] / large['daily_ms']:.2f}x, "
        f"rows read {many['rows'] / large['rows']:.1f}x, "
        f"morning SQL {many['daily_sql'] / large['daily_sql']:.1f}x"
    )
    lines.append(
        f"contrast: the due read as a sequential scan of 10,000 plans: {scan_ms:.2f} ms, "
        f"{rows_of(scanned)} rows read (vs {large['rows']} through the index)"
    )
    return lines


def _reset_published(db: Database) -> Callable[[], Awaitable[None]]:
    async def reset() -> None:
        async with db.connection() as conn:
            await conn.execute("UPDATE plan_workouts SET published_at = NULL WHERE published_at IS NOT NULL")

    return reset


async def _measure(url: str) -> list[str]:
    db = Database(url, min_size=1, max_size=1)
    await db.open()
    try:
        lines = await _offline(db)
        for provider in ("anthropic", "openai"):
            lines += await _through_sdks(db, provider)
        lines += await _scale(db)
    finally:
        await db.close()
    return lines


def run() -> list[str]:
    return on_fresh_postgres(_measure)
