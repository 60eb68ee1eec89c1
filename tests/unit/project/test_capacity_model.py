"""The capacity model's arithmetic on fixed per-turn figures (the measurement itself runs in
`make capacity`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def capacity() -> ModuleType:
    spec = importlib.util.spec_from_file_location("capacity_model", ROOT / "scripts" / "capacity_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["capacity_model"] = module
    spec.loader.exec_module(module)
    return module


def turn(capacity: ModuleType, **overrides: float) -> object:
    figures = {
        "iterations": 2,
        "input_tokens": 100,
        "cache_write_tokens": 500,
        "cache_read_tokens": 30_000,
        "output_tokens": 300,
        "initializer_prompt_tokens": 1_200,
        "initializer_cached_tokens": 1_024,
        "initializer_completion_tokens": 60,
        "dynamodb_requests": 10,
        "dynamodb_write_units": 40,
        "dynamodb_read_units": 8,
        "dynamodb_bytes_written": 10_000,
        "sql_statements": 6,
        "events_published": 1,
        "backend_ms": 100,
        "model_calls": 2,
    }
    figures.update(overrides)
    return capacity.TurnFigures(**figures)


def test_a_turn_lasts_the_initializer_the_model_calls_and_the_backend(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity)])
    speed = capacity.MODELS["claude-haiku-5-5"]
    expected = capacity.INITIALIZER_LATENCY_S + 2 * speed.ttft_s + 300 / speed.output_tokens_per_s + 0.1
    assert capacity.turn_seconds(measured, "claude-haiku-5-5") == pytest.approx(expected)


def test_the_priced_models_are_the_configured_defaults(capacity: ModuleType) -> None:
    from trainer.providers.models import DEFAULT_MODEL, DEFAULT_OPENAI_MODEL
    from trainer.settings import Settings

    settings = Settings()
    assert next(iter(capacity.MODELS)) == DEFAULT_MODEL == settings.model == settings.light_model
    assert "claude-sonnet-5-5" in capacity.MODELS
    assert capacity.INITIALIZER_MODEL == DEFAULT_OPENAI_MODEL == settings.initializer_model


@pytest.mark.parametrize("model_id", ["claude-haiku-5-5", "claude-sonnet-5-5"])
def test_model_dollars_use_the_catalogue_prices(capacity: ModuleType, model_id: str) -> None:
    from trainer.providers.models import get_model

    measured = capacity.Measured(turns=[turn(capacity)])
    agent, initializer = get_model(model_id), get_model(capacity.INITIALIZER_MODEL)
    expected = (
        100 * agent.input_per_mtok
        + 500 * agent.cache_write_5m_per_mtok
        + 30_000 * agent.cache_read_per_mtok
        + 300 * agent.output_per_mtok
        + 176 * initializer.input_per_mtok
        + 1_024 * initializer.cache_read_per_mtok
        + 60 * initializer.output_per_mtok
    ) / 1e6
    assert capacity.model_dollars_per_turn(measured, model_id) == pytest.approx(expected)


def test_the_higher_band_applies_per_call_not_per_turn(capacity: ModuleType) -> None:
    """Haiku 5.5 bills a request whose prompt exceeds 100k tokens at 5x: two 60k-token calls in a turn
    stay at the lowest band, two 150k-token calls do not."""
    from trainer.providers.models import get_model

    haiku = get_model("claude-haiku-5-5")

    def dollars(reads_per_call: int) -> tuple[float, float]:
        figures = turn(
            capacity,
            input_tokens=0,
            cache_write_tokens=0,
            cache_read_tokens=2 * reads_per_call,
            model_calls=2,
        )
        flat = 2 * (reads_per_call * haiku.cache_read_per_mtok + 150 * haiku.output_per_mtok) / 1e6
        return capacity.agent_dollars_per_turn(capacity.Measured(turns=[figures]), haiku.id), flat

    priced, flat = dollars(60_000)
    assert priced == pytest.approx(flat)
    priced, flat = dollars(150_000)
    assert capacity.band_multiplier(haiku.id) == pytest.approx(5)
    assert priced == pytest.approx(5 * flat)


def test_monthly_costs_scale_with_daily_users(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity)])
    small = capacity.monthly_costs(measured, "claude-haiku-5-5", capacity.Scale(1_000))
    large = capacity.monthly_costs(measured, "claude-haiku-5-5", capacity.Scale(10_000))
    for service, dollars in small.items():
        assert large[service] == pytest.approx(dollars * 10)
    turns = 1_000 * capacity.TURNS_PER_USER_PER_DAY * capacity.DAYS_PER_MONTH
    assert small["EventBridge"] == pytest.approx(turns * capacity.PRICES["eventbridge_event"])


def test_the_first_limit_to_break_is_the_one_most_used(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity, dynamodb_write_units=1_000)])
    needs = capacity.peak_needs(measured, "claude-haiku-5-5", capacity.Scale(1_000_000))
    first, share = capacity.breaking_order(needs)[0]
    assert first == "dynamodb_table_wru_s" and share > 1


def test_item_sizes_count_names_and_values(capacity: ModuleType) -> None:
    item = {"PK": {"S": "SESSION#1"}, "n": {"N": "1234"}, "m": {"M": {"k": {"S": "ab"}}}}
    assert capacity.item_size(item) == (2 + 9) + (1 + 3) + (1 + 3 + 1 + 2)


def test_the_document_names_every_service_and_both_models(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity)], cold_first_turn=turn(capacity), when="2026-11-22")
    text = capacity.render(measured)
    for retired in ("Haiku 4.5", "Sonnet 4.6", "gpt-4o-mini", "GPT-4o mini"):
        assert retired not in text
    for needle in (
        "Claude Haiku 5.5",
        "Claude Sonnet 5.5",
        "GPT-6 Luna",
        "Lambda (turns)",
        "DynamoDB storage",
        "EventBridge",
        "First to break",
    ):
        assert needle in text


def test_prices_are_read_from_the_catalogue_not_typed(
    capacity: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A price typed into the script would not follow the catalogue when it changes."""
    from trainer.providers import models

    monkeypatch.setattr(models, "cost_cents", lambda model_id, usage, **_: 7.0)
    monkeypatch.setattr(models, "openai_cost_cents", lambda *_: 3.0)
    monkeypatch.setattr(models.ModelInfo, "input_per_mtok", property(lambda self: 0.123))
    measured = capacity.Measured(turns=[turn(capacity)], cold_first_turn=turn(capacity), when="2026-11-22")
    assert capacity.model_dollars_per_turn(measured, "claude-haiku-5-5") == pytest.approx(
        (2 * 7.0 + 3.0) / 100
    )
    assert "Claude Haiku 5.5 $0.123 in" in capacity.render(measured)
