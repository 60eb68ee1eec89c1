"""The scenario runner plays each scenario within one local day of its user: no I/O."""

from __future__ import annotations

import pytest


async def test_a_scenario_never_straddles_the_users_midnight(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeded 'tomorrow' before midnight is 'today' after it: a scenario starting within the margin
    waits past midnight (seen once: a New York scenario seeded at 23:59:5x local failed at 00:00)."""
    from datetime import UTC, datetime

    from tests.scenarios import runner

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(runner.asyncio, "sleep", sleep)
    near = datetime(2026, 11, 26, 4, 59, 30, tzinfo=UTC)  # 23:59:30 in New York
    assert await runner.within_one_local_day("America/New_York", near) == 31.0
    assert slept == [31.0]
    assert await runner.within_one_local_day("Asia/Tokyo", near) == 0.0, "13:59 in Tokyo: no wait"
    assert slept == [31.0]
