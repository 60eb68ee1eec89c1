"""`make eval`: the scenarios against the live model APIs, k runs each, with pass^k, pass@1, cost per
scenario and cache hit rate.

    python -m tests.scenarios.eval --k 3            # live when ANTHROPIC_API_KEY is set
    python -m tests.scenarios.eval --dry-run        # the loopback fake server (the default without a key)
    python -m tests.scenarios.eval --only a,b --show

Starts its own embedded Postgres and moto (nothing outside this process is touched). Live runs use
the keys and models of the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, TRAINER_MODEL); without
OPENAI_API_KEY the initializer runs on its deterministic rules.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.scenarios.runner import Mode, ScenarioResult, open_runner
from tests.scenarios.schema import Scenario, load_scenarios

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Tally:
    scenario: Scenario
    runs: list[ScenarioResult] = field(default_factory=list)

    @property
    def passes(self) -> int:
        return sum(r.passed for r in self.runs)


def cache_hit_rate(results: list[ScenarioResult]) -> float | None:
    """Cached input over all input (fresh + cache writes + cache reads), as the turn metrics count it."""
    cached = sum(r.tokens("cache_read_input_tokens") for r in results)
    total = cached + sum(r.tokens("input_tokens") + r.tokens("cache_creation_input_tokens") for r in results)
    return 100 * cached / total if total else None


def report(tallies: list[Tally], k: int, mode: str, model: str, seconds: float) -> str:
    results = [r for t in tallies for r in t.runs]
    n = len(tallies)
    all_k = sum(t.passes == k for t in tallies)
    pass_at_1 = sum(t.passes for t in tallies) / (n * k) if n else 0.0
    rate = cache_hit_rate(results)
    total_cents = sum(r.cost_cents for r in results)
    cost = total_cents / (n * k) if n else 0.0
    lines = [
        f"scenarios: {n}, runs each: {k}, mode: {mode}, model: {model}, {seconds:.0f} s",
        f"pass^{k}: {all_k}/{n} = {all_k / n:.1%}" if n else f"pass^{k}: -",
        f"pass@1: {pass_at_1:.1%}",
        f"cost per scenario: {cost:.3f} cents (${cost / 100:.5f}); all runs: ${total_cents / 100:.4f}",
        f"cache hit rate: {rate:.1f}%" if rate is not None else "cache hit rate: -",
        "",
        f"{'scenario':<48} {'passed':>7} {'cents/run':>10}  first failure (last failed run)",
    ]
    for tally in tallies:
        failed = [r for r in tally.runs if not r.passed]
        cents = sum(r.cost_cents for r in tally.runs) / len(tally.runs)
        why = failed[-1].first_failure[:150] if failed else ""
        lines.append(f"{tally.scenario.id:<48} {tally.passes:>3}/{k:<3} {cents:>10.3f}  {why}")
    return "\n".join(lines)


async def evaluate(scenarios: list[Scenario], k: int, mode: Mode, show: bool) -> tuple[list[Tally], str]:
    from trainer.settings import Settings
    from trainer.store.db import Database
    from trainer.store.migrate import apply_migrations
    from trainer.store.sessions import DynamoSessionStore
    from trainer_dev.local.moto_server import create_resources, start_moto
    from trainer_dev.local.postgres import start_postgres

    tallies = [Tally(s) for s in scenarios]
    with tempfile.TemporaryDirectory(prefix="scenario-eval-") as tmp:
        pg = start_postgres(Path(tmp) / "pgdata", durable=False)
        moto = start_moto(0)
        try:
            apply_migrations(pg.url)
            suffix = uuid.uuid4().hex[:8]
            settings = Settings(
                AWS_ENDPOINT_URL=moto.endpoint_url,
                AWS_REGION="us-east-1",
                DATABASE_URL=None,
                TRAINER_TABLE_NAME=f"eval-{suffix}",
                TRAINER_IDEMPOTENCY_TABLE_NAME=f"eval-idem-{suffix}",
                TRAINER_EVENT_BUS_NAME=f"eval-{suffix}",
            )
            create_resources(settings, ROOT / "template.yaml")
            db = Database(pg.url, max_size=4)
            await db.open()
            try:
                store = DynamoSessionStore(settings)
                async with open_runner(mode, settings, db, store) as runner:
                    for run in range(k):
                        for tally in tallies:
                            result = await runner.run(tally.scenario)
                            tally.runs.append(result)
                            mark = "pass" if result.passed else "FAIL"
                            print(
                                f"[{run + 1}/{k}] {mark} {tally.scenario.id} ({result.seconds:.1f} s)",
                                flush=True,
                            )
                            if show or not result.passed:
                                print(
                                    result.explain() if not result.passed else _conversation(result),
                                    flush=True,
                                )
                    model = runner.container.settings.model
            finally:
                await db.close()
        finally:
            moto.stop()
            pg.stop()
    return tallies, model


def _conversation(result: ScenarioResult) -> str:
    return "\n".join(
        f"  user: {t.say}\n  tools: {', '.join(n for n, _ in t.tools)}\n  reply: {t.reply[:400]}"
        for t in result.turns
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scenario evaluation: pass^k, pass@1, cost, cache hit rate")
    parser.add_argument("--k", type=int, default=3, help="runs per scenario (default 3)")
    parser.add_argument(
        "--dry-run", action="store_true", help="the loopback fake server instead of the live APIs"
    )
    parser.add_argument("--only", default="", help="comma-separated scenario ids")
    parser.add_argument("--show", action="store_true", help="print every conversation, passed or not")
    args = parser.parse_args(argv)
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    logging.getLogger("trainer").setLevel(logging.ERROR)
    live = bool(os.environ.get("ANTHROPIC_API_KEY")) and not args.dry_run
    mode: Mode = "live" if live else "sdk"
    if not live and not args.dry_run:
        print("ANTHROPIC_API_KEY is not set: dry run against the loopback fake server", flush=True)
    scenarios = load_scenarios()
    if args.only:
        wanted = {s.strip() for s in args.only.split(",") if s.strip()}
        scenarios = [s for s in scenarios if s.id in wanted]
    started = time.perf_counter()
    tallies, model = asyncio.run(evaluate(scenarios, max(1, args.k), mode, args.show))
    label = "live APIs" if live else "dry run (fake server, offline policy)"
    print()
    print(report(tallies, max(1, args.k), label, model, time.perf_counter() - started))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
