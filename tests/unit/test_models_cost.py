"""Model registry and cost arithmetic, checked by hand."""

from __future__ import annotations

import pytest
from trainer.providers.models import (
    MODELS,
    UnknownModelError,
    agent_models,
    cost_cents,
    get_model,
    openai_cost_cents,
    uncached_cost_cents,
)
from trainer.providers.ports import Usage


def test_registry_prices_and_cache_multipliers() -> None:
    haiku = get_model("claude-haiku-4-5")
    assert (haiku.input_per_mtok, haiku.output_per_mtok) == (1.0, 5.0)
    assert haiku.cache_write_5m_per_mtok == pytest.approx(1.25)
    assert haiku.cache_write_1h_per_mtok == pytest.approx(2.0)
    assert haiku.cache_read_per_mtok == pytest.approx(0.1)
    assert get_model("claude-sonnet-4-6").input_per_mtok == 3.0
    assert get_model("claude-opus-4-5").output_per_mtok == 25.0
    assert haiku.min_cacheable_tokens == 4096
    assert get_model("claude-opus-4-5").min_cacheable_tokens == 4096
    assert get_model("claude-sonnet-4-6").min_cacheable_tokens == 2048
    assert get_model("claude-sonnet-4-5").deprecated
    assert not haiku.deprecated
    assert get_model("gpt-4o-mini").cache_read_per_mtok == 0.075


def test_agent_models_lists_claude_with_the_default_first() -> None:
    ids = [m.id for m in agent_models()]
    assert ids[0] == "claude-haiku-4-5"
    assert "gpt-4o-mini" not in ids
    assert set(ids) == {m.id for m in MODELS.values() if m.provider == "anthropic"}


def test_unknown_model_is_a_clear_error() -> None:
    with pytest.raises(UnknownModelError, match=r"unknown model 'gpt-9'.*claude-haiku-4-5"):
        cost_cents("gpt-9", Usage(input_tokens=1))


def test_anthropic_cost_counts_each_token_kind_once() -> None:
    usage = Usage(
        input_tokens=1_000,
        output_tokens=500,
        cache_creation_input_tokens=10_000,
        cache_read_input_tokens=100_000,
    )
    # sonnet 4.6: 1k*$3 + 10k*$3.75 + 100k*$0.30 + 500*$15 per MTok
    expected_dollars = 0.003 + 0.0375 + 0.03 + 0.0075
    assert cost_cents("claude-sonnet-4-6", usage) == pytest.approx(expected_dollars * 100)


def test_one_hour_cache_writes_cost_twice_the_input_price() -> None:
    usage = Usage(cache_creation_input_tokens=1_000_000, cache_creation_1h_input_tokens=400_000)
    # haiku: 600k at $1.25 + 400k at $2.00
    assert cost_cents("claude-haiku-4-5", usage) == pytest.approx((0.75 + 0.8) * 100)
    all_1h = Usage(cache_creation_input_tokens=1_000_000)
    assert cost_cents("claude-haiku-4-5", all_1h, cache_ttl="1h") == pytest.approx(200.0)


def test_uncached_cost_prices_every_prompt_token_as_input() -> None:
    usage = Usage(
        input_tokens=100, cache_creation_input_tokens=900, cache_read_input_tokens=9_000, output_tokens=10
    )
    assert uncached_cost_cents("claude-haiku-4-5", usage) == pytest.approx((10_000 * 1 + 10 * 5) / 1e6 * 100)
    assert cost_cents("claude-haiku-4-5", usage) < uncached_cost_cents("claude-haiku-4-5", usage)


def test_openai_cost_treats_cached_tokens_as_part_of_prompt_tokens() -> None:
    # 10k prompt of which 4k cached: 6k*$0.15 + 4k*$0.075 + 1k*$0.60 per MTok
    expected = (6_000 * 0.15 + 4_000 * 0.075 + 1_000 * 0.60) / 1e6 * 100
    assert openai_cost_cents("gpt-4o-mini", 10_000, 4_000, 1_000) == pytest.approx(expected)
