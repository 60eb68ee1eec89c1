"""Scenario fixtures: one set of stores for the whole session (DynamoDB tables on the moto server,
the embedded Postgres), one runner per mode built on first use; and the pass rates per mode, printed
at the end of the run (from the reports, so it works under xdist too)."""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.moto_server import create_resources

from tests.fixtures_moto import store_template_path
from tests.scenarios.runner import RESULT_KEY, FreshTables, Runners


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "scenarios: conversation scenarios played through the production container"
    )


@pytest.fixture(scope="session")
async def scenario_runners(
    pg_url: str, moto_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Runners]:
    suffix = uuid.uuid4().hex[:10]
    settings = Settings(
        AWS_ENDPOINT_URL=moto_endpoint,
        AWS_REGION="us-east-1",
        DATABASE_URL=None,
        TRAINER_TABLE_NAME=f"scenarios-{suffix}",
        TRAINER_IDEMPOTENCY_TABLE_NAME=f"scenarios-idem-{suffix}",
        TRAINER_EVENT_BUS_NAME=f"scenarios-{suffix}",
    )
    template = store_template_path(Path(tmp_path_factory.mktemp("scenarios")))
    create_resources(settings, template)
    db = Database(pg_url, min_size=1, max_size=4)
    await db.open()
    runners = Runners(settings, db, DynamoSessionStore(settings), reset=FreshTables.of(settings, template))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        try:
            yield runners
        finally:
            await runners.stack.aclose()
            await db.close()


_RESULTS: list[dict[str, Any]] = []


class ScenarioPassRates(UserWarning):
    """The summary, as a warning: how an xdist worker gets it into the controller's report."""


def summary_lines(results: list[dict[str, Any]]) -> list[str]:
    lines = []
    for mode in sorted({r["mode"] for r in results}):
        rows = [r for r in results if r["mode"] == mode]
        passed = sum(r["passed"] for r in rows)
        lines.append(f"{mode}: {passed}/{len(rows)} scenarios passed ({100 * passed / len(rows):.0f}%)")
    failing = sorted((r for r in results if not r["passed"]), key=lambda r: (r["scenario"], r["mode"]))
    if failing:
        lines.append("failing (first failed assertion):")
        lines.extend(f"  {r['scenario']} [{r['mode']}]: {r['first_failure'][:220]}" for r in failing)
    return lines


@pytest.fixture(scope="session")
def scenario_summary() -> Iterator[None]:
    """Under xdist the controller never loads this conftest: the worker warns the summary instead."""
    yield
    if _RESULTS and os.environ.get("PYTEST_XDIST_WORKER"):
        warnings.warn(
            ScenarioPassRates("scenario pass rates\n" + "\n".join(summary_lines(_RESULTS))), stacklevel=1
        )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for key, value in report.user_properties:
        if key == RESULT_KEY and isinstance(value, dict):
            _RESULTS.append(value)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _RESULTS or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    terminalreporter.section("scenario pass rates")
    for line in summary_lines(_RESULTS):
        terminalreporter.write_line(line)
