"""Model registry and cost arithmetic, checked by hand."""

from __future__ import annotations

from datetime import date

import pytest
from trainer.providers.models import (
    CATALOGUE_CHECKED_ON,
    MODELS,
    SHUTDOWN_WARNING_DAYS,
    UnknownModelError,
    agent_models,
    cost_cents,
    get_model,
    openai_cost_cents,
    retiring,
    uncached_cost_cents,
)
from trainer.providers.ports import Usage
from trainer.settings import Settings


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
    assert ids[0] == "claude-haiku-5-5"
    assert "gpt-4o-mini" not in ids
    assert set(ids) == {m.id for m in MODELS.values() if m.provider == "anthropic"}


def test_unknown_model_is_a_clear_error() -> None:
    with pytest.raises(UnknownModelError, match=r"unknown model 'gpt-9'.*claude-haiku-5-5"):
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


# --- the Claude 5.5 family and genai-prices' bands ---------------------------------------------------


def test_the_5_5_models_are_priced_from_genai_prices() -> None:
    haiku, sonnet, opus = (get_model(m) for m in ("claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"))
    assert (haiku.input_per_mtok, haiku.output_per_mtok) == (0.10, 0.50)
    assert (haiku.cache_read_per_mtok, haiku.cache_write_5m_per_mtok, haiku.cache_write_1h_per_mtok) == (
        0.01,
        0.125,
        0.20,
    )
    assert (sonnet.input_per_mtok, sonnet.output_per_mtok, sonnet.cache_read_per_mtok) == (2.0, 10.0, 0.10)
    assert (opus.input_per_mtok, opus.output_per_mtok, opus.cache_read_per_mtok) == (4.0, 20.0, 0.20)
    luna = get_model("gpt-6-luna")
    assert (luna.input_per_mtok, luna.output_per_mtok, luna.cache_read_per_mtok) == (0.10, 0.50, 0.01)


def test_haiku_5_5_bills_every_token_of_a_prompt_over_100k_at_the_high_band() -> None:
    # 2k uncached + 8k read + 1k written for an hour, 500 out: all at the low band
    low = Usage(
        input_tokens=2_000,
        cache_read_input_tokens=8_000,
        cache_creation_input_tokens=1_000,
        cache_creation_1h_input_tokens=1_000,
        output_tokens=500,
    )
    assert cost_cents("claude-haiku-5-5", low) == pytest.approx(
        (2_000 * 0.10 + 8_000 * 0.01 + 1_000 * 0.20 + 500 * 0.50) / 1e6 * 100
    )
    # exactly 100,000 prompt tokens: still the low band; one more: every token (output too) at 5x
    at_limit = Usage(input_tokens=4_000, cache_read_input_tokens=96_000, output_tokens=1_000)
    over = Usage(input_tokens=5_000, cache_read_input_tokens=96_000, output_tokens=1_000)
    assert cost_cents("claude-haiku-5-5", at_limit) == pytest.approx(
        (4_000 * 0.10 + 96_000 * 0.01 + 1_000 * 0.50) / 1e6 * 100
    )
    assert cost_cents("claude-haiku-5-5", over) == pytest.approx(
        (5_000 * 0.50 + 96_000 * 0.05 + 1_000 * 2.50) / 1e6 * 100
    )


def test_the_catalogue_says_what_each_5_5_model_accepts() -> None:
    haiku, sonnet, opus = (get_model(m) for m in ("claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"))
    for model in (haiku, sonnet, opus):
        assert model.min_cacheable_tokens == 512
        assert (model.context_window, model.max_output_tokens) == (1_000_000, 128_000)
        assert model.tokenizer_factor == pytest.approx(1.3)
        assert model.thinks and model.structured_output
        assert not model.sampling_params and not model.assistant_prefill
        assert "enabled" not in model.thinking_modes
    assert haiku.forced_tool_choice and not sonnet.forced_tool_choice and not opus.forced_tool_choice
    assert "disabled" in haiku.thinking_modes and "disabled" not in sonnet.thinking_modes
    assert sonnet.thinking_modes == {"adaptive", "between_tools"} and opus.thinking_modes == {"adaptive"}
    assert not haiku.thinking_text_between_tools and sonnet.thinking_text_between_tools
    assert (haiku.default_effort, sonnet.default_effort, opus.default_effort) == ("medium", "high", "medium")
    assert get_model("claude-haiku-4-5").tokenizer_factor == 1.0
    assert get_model("gpt-6-luna").tools_need_effort_none


# --- no default on a model that is going away --------------------------------------------------------
# The truth is the catalogue's own end-of-life dates, checked at fixed dates. The SDKs' deprecation tables
# (the anthropic SDK's is private, the openai SDK's is docstring text) are compared with the catalogue by
# scripts/model_deprecations.py when the locks move (`make upgrade`), never by the suite.


def _defaults(**overrides: str) -> dict[str, str]:
    settings = Settings.model_construct()
    defaults = {
        "TRAINER_MODEL": settings.model,
        "TRAINER_LIGHT_MODEL": settings.light_model,
        "TRAINER_INITIALIZER_MODEL": settings.initializer_model,
        "TRAINER_OPENAI_AGENT_MODEL": settings.openai_agent_model,
    }
    return {**defaults, **overrides}


def test_no_default_model_retires_within_90_days_of_the_catalogues_last_check() -> None:
    assert retiring(_defaults(), CATALOGUE_CHECKED_ON) == []


def test_the_check_names_a_default_within_90_days_of_its_end_of_life() -> None:
    some_day = date(2026, 11, 25)
    assert retiring(_defaults(TRAINER_INITIALIZER_MODEL="gpt-4o-mini"), some_day) == [
        "TRAINER_INITIALIZER_MODEL=gpt-4o-mini: end of life on 2027-01-14"
    ]
    assert retiring(_defaults(TRAINER_MODEL="claude-sonnet-4-5"), some_day)
    assert retiring(_defaults(TRAINER_LIGHT_MODEL="claude-opus-4-5"), some_day)
    # 90 days ahead counts, 91 does not
    assert retiring({"m": "claude-opus-4-5"}, date(2026, 10, 24))
    assert not retiring({"m": "claude-opus-4-5"}, date(2026, 10, 23))
    assert SHUTDOWN_WARNING_DAYS == 90


def test_prices_come_from_the_bundled_table_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Lambda prices offline: genai-prices' bundled data, never its updater."""
    import socket

    from trainer.providers import models

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("pricing opened a connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    models._model_price.cache_clear()
    models.warm_prices("claude-haiku-5-5", "gpt-6-luna", "not-a-model")
    assert models._model_price.cache_info().currsize == 2
    assert cost_cents("claude-opus-5-5", Usage(input_tokens=1_000_000)) == pytest.approx(400.0)
