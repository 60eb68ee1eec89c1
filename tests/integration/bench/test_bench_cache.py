"""The prompt-cache figures `make bench` reports, kept: three users' sessions through the real loop
and SDK against one loopback fake, whose cache every session shares (bench/bench_cache.py)."""

from __future__ import annotations

import pytest

from bench.bench_cache import LATER_READ_TARGET, WARM_TARGET, Figures, measure


@pytest.fixture(scope="module")
async def five_minutes() -> Figures:
    return await measure("5m")


@pytest.fixture(scope="module")
async def one_hour() -> Figures:
    return await measure("1h")


async def test_a_first_turn_after_another_session_reads_the_shared_prefix(five_minutes: Figures) -> None:
    assert five_minutes.warm_first <= WARM_TARGET
    assert five_minutes.cold_first > 2 * five_minutes.warm_first


async def test_later_turns_read_their_prompt_from_the_cache(five_minutes: Figures, one_hour: Figures) -> None:
    """All but what the turn before added and this turn's message. (The turn-cost ratio is reported, not
    held: LATER_TARGET was set for two-call turns, bench/bench_cache.py says why.)"""
    assert min(five_minutes.later_read) >= LATER_READ_TARGET
    assert min(one_hour.later_read) >= LATER_READ_TARGET


async def test_the_one_hour_ttl_keeps_the_prefix_over_a_quiet_half_hour_for_a_dearer_cold_start(
    five_minutes: Figures, one_hour: Figures
) -> None:
    assert five_minutes.after_quiet == pytest.approx(five_minutes.cold_first)
    assert one_hour.after_quiet <= WARM_TARGET
    assert one_hour.cold_first > five_minutes.cold_first
