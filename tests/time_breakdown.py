"""Where a test run's time goes: at the end of the run, the seconds spent in each part of the suite
(tests/unit, tests/integration, tests/e2e, tests/scenarios, and the scenario classes of each model),
summed over the tests' setup, call and teardown. Under xdist the sums are worker-seconds, so with two
workers they add up to about twice the wall time; the ratios between the parts are what a profile
needs. A stack or database that a fixture starts is counted in the setup of the first test that asks
for it. `pytest --durations=50` names the slowest tests themselves."""

from __future__ import annotations

import time
from collections import defaultdict

import pytest

_SECONDS: defaultdict[str, float] = defaultdict(float)
_COUNTS: defaultdict[str, int] = defaultdict(int)
_STARTED = time.monotonic()


def part_of(nodeid: str) -> str:
    """The part of the suite a test belongs to: its directory under tests/, and for the scenarios the
    class that plays them in one mode ('scenarios TestOffline')."""
    path, _, rest = nodeid.partition("::")
    parts = path.split("/")
    part = parts[1] if len(parts) > 2 and parts[0] == "tests" else path
    if part == "scenarios" and rest.startswith("Test"):
        part = f"scenarios {rest.split('::')[0]}"
    return part


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _SECONDS[part_of(report.nodeid)] += report.duration
    if report.when == "call":
        _COUNTS[part_of(report.nodeid)] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _SECONDS:
        return
    terminalreporter.section("time per part of the suite (seconds of the tests' own time)")
    for part in sorted(_SECONDS, key=lambda p: -_SECONDS[p]):
        terminalreporter.write_line(f"{part:<36} {_SECONDS[part]:8.1f} s  {_COUNTS[part]:5d} tests")
    total = sum(_SECONDS.values())
    terminalreporter.write_line(f"{'all':<36} {total:8.1f} s; wall {time.monotonic() - _STARTED:.1f} s")
