"""The capacity model's arithmetic on fixed per-turn figures (the measurement itself runs in
`make capacity`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
        "initializer_prompt_tokens": 1_000,
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
    speed = capacity.MODELS["claude-haiku-4-5"]
    expected = capacity.INITIALIZER_LATENCY_S + 2 * speed.ttft_s + 300 / speed.output_tokens_per_s + 0.1
    assert capacity.turn_seconds(measured, "claude-haiku-4-5") == pytest.approx(expected)


def test_model_dollars_use_the_registry_prices(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity)])
    haiku = (100 * 1.0 + 500 * 1.25 + 30_000 * 0.1 + 300 * 5.0 + 1_000 * 0.15 + 60 * 0.6) / 1e6
    assert capacity.model_dollars_per_turn(measured, "claude-haiku-4-5") == pytest.approx(haiku)


def test_monthly_costs_scale_with_daily_users(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity)])
    small = capacity.monthly_costs(measured, "claude-haiku-4-5", capacity.Scale(1_000))
    large = capacity.monthly_costs(measured, "claude-haiku-4-5", capacity.Scale(10_000))
    for service, dollars in small.items():
        assert large[service] == pytest.approx(dollars * 10)
    turns = 1_000 * capacity.TURNS_PER_USER_PER_DAY * capacity.DAYS_PER_MONTH
    assert small["EventBridge"] == pytest.approx(turns * capacity.PRICES["eventbridge_event"])


def test_the_first_limit_to_break_is_the_one_most_used(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity, dynamodb_write_units=1_000)])
    needs = capacity.peak_needs(measured, "claude-haiku-4-5", capacity.Scale(1_000_000))
    first, share = capacity.breaking_order(needs)[0]
    assert first == "dynamodb_table_wru_s" and share > 1


def test_item_sizes_count_names_and_values(capacity: ModuleType) -> None:
    item = {"PK": {"S": "SESSION#1"}, "n": {"N": "1234"}, "m": {"M": {"k": {"S": "ab"}}}}
    assert capacity.item_size(item) == (2 + 9) + (1 + 3) + (1 + 3 + 1 + 2)


def test_the_document_names_every_service_and_both_models(capacity: ModuleType) -> None:
    measured = capacity.Measured(turns=[turn(capacity)], cold_first_turn=turn(capacity), when="2026-11-22")
    text = capacity.render(measured)
    for needle in (
        "Haiku 4.5",
        "Sonnet 4.6",
        "Lambda (turns)",
        "DynamoDB storage",
        "EventBridge",
        "First to break",
    ):
        assert needle in text
