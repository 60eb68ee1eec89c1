"""`make eval`: the scenarios against the live model APIs, k runs each, with pass^k, pass@1, cost per
scenario and cache hit rate, overall and per category (a scenario's areas: safety for the red flags,
onboarding, injury, generation...).

    python -m tests.scenarios.eval --k 3            # live when ANTHROPIC_API_KEY is set
    python -m tests.scenarios.eval --dry-run        # the loopback fake server (the default without a key)
    python -m tests.scenarios.eval --only a,b --show
    python -m tests.scenarios.eval --areas safety,onboarding   # the scenarios of these categories
    python -m tests.scenarios.eval --effort low,medium  # the suite once per main-agent thinking effort

With `--effort`, the report compares the efforts side by side (pass^k, cost, output tokens per turn:
thinking is billed as output) and names the cheapest effort whose pass^k is the best one measured: the
evidence for TRAINER_MAIN_EFFORT. On the fake server the pass rates cannot differ (its policy does not
think): only a live run chooses.

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
from typing import get_args

from tests.scenarios.runner import Mode, ScenarioResult, open_runner
from tests.scenarios.schema import Scenario, load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def _efforts() -> tuple[str, ...]:
    from trainer.settings import Settings

    return tuple(get_args(Settings.model_fields["main_effort"].annotation))


EFFORTS = _efforts()
"""The efforts TRAINER_MAIN_EFFORT accepts (the settings' own Literal)."""


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


def area_report(tallies: list[Tally], k: int) -> str:
    """pass^k and pass@1 per category (a scenario counts in each of its areas), weakest first."""
    areas = sorted({area for tally in tallies for area in tally.scenario.areas})
    rows: list[tuple[float, str]] = []
    for area in areas:
        mine = [t for t in tallies if area in t.scenario.areas]
        all_k = sum(t.passes == k for t in mine)
        at_1 = sum(t.passes for t in mine) / (len(mine) * k)
        rows.append(
            (
                all_k / len(mine),
                f"{area:<16} {all_k:>4}/{len(mine):<4} {all_k / len(mine):>7.1%} {at_1:>8.1%}",
            )
        )
    header = f"{'category':<16} {'pass^' + str(k):>9} {'':>7} {'pass@1':>8}"
    return "\n".join([header, *(line for _, line in sorted(rows, key=lambda r: r[0]))])


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
        area_report(tallies, k) if tallies else "",
        "",
        f"{'scenario':<48} {'passed':>7} {'cents/run':>10}  first failure (last failed run)",
    ]
    for tally in tallies:
        failed = [r for r in tally.runs if not r.passed]
        cents = sum(r.cost_cents for r in tally.runs) / len(tally.runs)
        why = failed[-1].first_failure[:150] if failed else ""
        lines.append(f"{tally.scenario.id:<48} {tally.passes:>3}/{k:<3} {cents:>10.3f}  {why}")
    return "\n".join(lines)


@dataclass(frozen=True)
class EffortRun:
    effort: str
    all_k: int
    scenarios: int
    cents_per_scenario: float
    output_tokens_per_turn: float


def effort_run(effort: str, tallies: list[Tally], k: int) -> EffortRun:
    results = [r for t in tallies for r in t.runs]
    turns = sum(len(r.turns) for r in results)
    return EffortRun(
        effort=effort,
        all_k=sum(t.passes == k for t in tallies),
        scenarios=len(tallies),
        cents_per_scenario=sum(r.cost_cents for r in results) / len(results) if results else 0.0,
        output_tokens_per_turn=sum(r.tokens("output_tokens") for r in results) / turns if turns else 0.0,
    )


def choose_effort(runs: list[EffortRun]) -> EffortRun | None:
    """The cheapest effort among those with the best pass^k."""
    if not runs:
        return None
    best = max(run.all_k for run in runs)
    return min((run for run in runs if run.all_k == best), key=lambda run: run.cents_per_scenario)


def effort_report(runs: list[EffortRun], k: int) -> str:
    lines = [f"{'effort':<8} {'pass^' + str(k):>9} {'cents/scenario':>15} {'output tokens/turn':>19}"]
    for run in runs:
        lines.append(
            f"{run.effort:<8} {run.all_k:>4}/{run.scenarios:<4} {run.cents_per_scenario:>15.3f}"
            f" {run.output_tokens_per_turn:>19.1f}"
        )
    chosen = choose_effort(runs)
    if chosen is not None:
        lines.append(f"chosen: {chosen.effort} (the cheapest with the best pass^{k})")
    return "\n".join(lines)


async def evaluate(
    scenarios: list[Scenario], k: int, mode: Mode, show: bool, effort: str | None = None
) -> tuple[list[Tally], str]:
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
                **({"TRAINER_MAIN_EFFORT": effort} if effort else {}),
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
    parser.add_argument("--areas", default="", help="comma-separated categories (e.g. safety,onboarding)")
    parser.add_argument("--show", action="store_true", help="print every conversation, passed or not")
    parser.add_argument(
        "--effort", default="", help="comma-separated main-agent efforts to compare (e.g. low,medium)"
    )
    args = parser.parse_args(argv)
    efforts = [e.strip() for e in args.effort.split(",") if e.strip()]
    unknown = sorted(set(efforts) - set(EFFORTS))
    if unknown:
        parser.error(f"unknown effort {', '.join(unknown)}: one of {', '.join(EFFORTS)}")
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
    if args.areas:
        areas = {a.strip() for a in args.areas.split(",") if a.strip()}
        scenarios = [s for s in scenarios if areas & set(s.areas)]
    label = "live APIs" if live else "dry run (fake server, offline policy)"
    k = max(1, args.k)
    runs: list[EffortRun] = []
    for effort in efforts or [None]:
        started = time.perf_counter()
        tallies, model = asyncio.run(evaluate(scenarios, k, mode, args.show, effort))
        print()
        print(f"-- main-agent effort: {effort}" if effort else "-- main-agent effort: as configured")
        print(report(tallies, k, label, model, time.perf_counter() - started))
        if effort:
            runs.append(effort_run(effort, tallies, k))
    if len(runs) > 1:
        print()
        print(effort_report(runs, k))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
