"""Model registry with prices and caching limits, and cost arithmetic per provider convention
(ARCHITECTURE §4, seed 002 §3.4 and §11.1)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from trainer.providers.ports import Usage

CacheTTL = Literal["5m", "1h"]

CACHE_WRITE_5M_MULTIPLIER = 1.25
CACHE_WRITE_1H_MULTIPLIER = 2.0
CACHE_READ_MULTIPLIER = 0.1

DEFAULT_MODEL = "claude-haiku-4-5"


class UnknownModelError(ValueError):
    """A model id that is not in the registry."""


@dataclass(frozen=True)
class ModelInfo:
    """Prices are US dollars per million tokens."""

    id: str
    display_name: str
    provider: Literal["anthropic", "openai"]
    input_per_mtok: float
    output_per_mtok: float
    cache_write_5m_per_mtok: float
    cache_write_1h_per_mtok: float
    cache_read_per_mtok: float
    min_cacheable_tokens: int
    context_window: int
    end_of_life: date | None = None

    @property
    def deprecated(self) -> bool:
        return self.end_of_life is not None


def _claude(
    model_id: str,
    name: str,
    input_price: float,
    output_price: float,
    *,
    min_cacheable: int,
    end_of_life: date | None = None,
) -> ModelInfo:
    return ModelInfo(
        id=model_id,
        display_name=name,
        provider="anthropic",
        input_per_mtok=input_price,
        output_per_mtok=output_price,
        cache_write_5m_per_mtok=input_price * CACHE_WRITE_5M_MULTIPLIER,
        cache_write_1h_per_mtok=input_price * CACHE_WRITE_1H_MULTIPLIER,
        cache_read_per_mtok=input_price * CACHE_READ_MULTIPLIER,
        min_cacheable_tokens=min_cacheable,
        context_window=200_000,
        end_of_life=end_of_life,
    )


MODELS: dict[str, ModelInfo] = {
    m.id: m
    for m in (
        _claude("claude-haiku-4-5", "Claude Haiku 4.5", 1.00, 5.00, min_cacheable=4096),
        _claude("claude-sonnet-4-6", "Claude Sonnet 4.6", 3.00, 15.00, min_cacheable=2048),
        _claude("claude-opus-4-5", "Claude Opus 4.5", 5.00, 25.00, min_cacheable=4096),
        _claude(
            "claude-sonnet-4-5",
            "Claude Sonnet 4.5",
            3.00,
            15.00,
            min_cacheable=1024,
            end_of_life=date(2026, 11, 30),
        ),
        ModelInfo(
            id="gpt-4o-mini",
            display_name="GPT-4o mini",
            provider="openai",
            input_per_mtok=0.15,
            output_per_mtok=0.60,
            cache_write_5m_per_mtok=0.15,
            cache_write_1h_per_mtok=0.15,
            cache_read_per_mtok=0.075,
            min_cacheable_tokens=1024,
            context_window=128_000,
            end_of_life=date(2027, 1, 14),
        ),
    )
}


def get_model(model_id: str) -> ModelInfo:
    try:
        return MODELS[model_id]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise UnknownModelError(f"unknown model '{model_id}'; known models: {known}") from None


def agent_models() -> list[ModelInfo]:
    """Models the main agent may run on (Anthropic), default first."""
    found = [m for m in MODELS.values() if m.provider == "anthropic"]
    return sorted(found, key=lambda m: (m.id != DEFAULT_MODEL, m.deprecated, m.id))


def _dollars(tokens: int, price_per_mtok: float) -> float:
    return tokens / 1_000_000 * price_per_mtok


def cost_cents(model_id: str, usage: Usage, *, cache_ttl: CacheTTL = "5m") -> float:
    """Anthropic convention: `input_tokens` excludes cache reads and writes.
    `cache_creation_input_tokens` is the total written, of which `cache_creation_1h_input_tokens`
    were written with a 1-hour TTL (2x input); the rest is priced at `cache_ttl`."""
    model = get_model(model_id)
    written_1h = min(usage.cache_creation_1h_input_tokens, usage.cache_creation_input_tokens)
    written_rest = usage.cache_creation_input_tokens - written_1h
    rest_price = model.cache_write_1h_per_mtok if cache_ttl == "1h" else model.cache_write_5m_per_mtok
    dollars = (
        _dollars(usage.input_tokens, model.input_per_mtok)
        + _dollars(written_rest, rest_price)
        + _dollars(written_1h, model.cache_write_1h_per_mtok)
        + _dollars(usage.cache_read_input_tokens, model.cache_read_per_mtok)
        + _dollars(usage.output_tokens, model.output_per_mtok)
    )
    return dollars * 100


def uncached_cost_cents(model_id: str, usage: Usage) -> float:
    """What the same call would cost with every prompt token at the plain input price."""
    model = get_model(model_id)
    dollars = _dollars(usage.prompt_tokens, model.input_per_mtok) + _dollars(
        usage.output_tokens, model.output_per_mtok
    )
    return dollars * 100


def openai_cost_cents(model_id: str, prompt_tokens: int, cached_tokens: int, completion_tokens: int) -> float:
    """OpenAI convention: `prompt_tokens` includes `cached_tokens`."""
    model = get_model(model_id)
    cached = min(cached_tokens, prompt_tokens)
    dollars = (
        _dollars(prompt_tokens - cached, model.input_per_mtok)
        + _dollars(cached, model.cache_read_per_mtok)
        + _dollars(completion_tokens, model.output_per_mtok)
    )
    return dollars * 100
