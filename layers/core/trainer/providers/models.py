"""The model catalogue (docs/architecture.md#models): per model id what its API accepts
(thinking modes and the default, forced tool choice, structured output, sampling parameters), its
caching and size limits and its tokenizer, and its price.

Prices are not typed here: they come from `genai-prices` (pydantic's maintained table; its data is bundled in
the package, so pricing never touches the network: `UpdatePrices` is never started), including Haiku 5.5's two
bands (a request whose prompt, cache reads and writes included, exceeds 100,000 tokens is billed at 5x, output
included). What `genai-prices` does not know (limits, thinking, tool choice) comes from the providers' model
pages (the commit that set them says which; CATALOGUE_CHECKED_ON when).

An id that is not in the catalogue is an `UnknownModelError`, as before: a typo in TRAINER_MODEL fails
at start rather than pricing turns at zero."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from trainer.providers.ports import Usage

if TYPE_CHECKING:
    from genai_prices.types import ModelPrice, TieredPrices

CacheTTL = Literal["5m", "1h"]
ThinkingMode = Literal["adaptive", "disabled", "between_tools", "enabled"]
Effort = Literal["low", "medium", "high", "xhigh", "max"]
ProviderId = Literal["anthropic", "openai"]

DEFAULT_MODEL = "claude-haiku-5-5"
DEFAULT_OPENAI_MODEL = "gpt-6-luna"
"""OpenAI's named replacement for gpt-4o-mini (shutdown 2027-01-14), with no announced shutdown."""
SHUTDOWN_WARNING_DAYS = 90
"""A default model whose end of life is this close is refused by the checks (`retiring`)."""
CATALOGUE_CHECKED_ON = date(2026, 12, 7)
"""When the end-of-life dates below were last compared with the providers' deprecation pages and the
locked SDKs' tables (`make upgrade` runs scripts/model_deprecations.py, which compares them again)."""


class UnknownModelError(ValueError):
    """A model id that is not in the catalogue."""


@dataclass(frozen=True)
class ModelInfo:
    """One model as its API behaves. `thinking_modes` are the `thinking.type` values the API accepts
    (empty: the model takes no `thinking` field we send); `default_thinking` what the adapters send
    (None: no `thinking` field). `tokenizer_factor` is the model's token count for a text relative to
    Claude Haiku 4.5's (the newer Claude tokenizer counts about 30% more)."""

    id: str
    display_name: str
    provider: ProviderId
    min_cacheable_tokens: int
    context_window: int
    max_output_tokens: int
    tokenizer_factor: float = 1.0
    thinking_modes: frozenset[ThinkingMode] = frozenset()
    default_thinking: ThinkingMode | None = None
    default_effort: Effort | None = None
    """The API's effort when `output_config.effort` is not sent; None: the model has no effort setting."""
    forced_tool_choice: bool = True
    """Whether `tool_choice` `any`/`tool` is accepted (Sonnet 5.5 and Opus 5.5 answer 400)."""
    structured_output: bool = False
    """`output_config.format` json_schema (Anthropic) / strict `response_format` (OpenAI)."""
    thinking_text_between_tools: bool = False
    """The text the model writes between tool calls comes back inside thinking blocks (Sonnet/Opus
    5.5), empty unless a `display` that returns it is requested."""
    sampling_params: bool = True
    """Whether temperature/top_p/top_k are accepted (every Claude 5.x model answers 400)."""
    assistant_prefill: bool = True
    """Whether a trailing assistant message (prefill) is accepted (every Claude 5.x model answers 400)."""
    tools_need_effort_none: bool = False
    """OpenAI chat completions: function tools only with `reasoning_effort: "none"` (GPT-6 Sol/Luna)."""
    reasoning_effort_default: str | None = None
    """OpenAI: the model's `reasoning_effort` when none is sent (GPT-6: medium, none accepted); None for
    models without reasoning."""
    end_of_life: date | None = None
    aliases: tuple[str, ...] = field(default=())

    @property
    def deprecated(self) -> bool:
        return self.end_of_life is not None

    @property
    def thinks(self) -> bool:
        """Whether the adapters send adaptive thinking and an effort for this model."""
        return self.default_thinking == "adaptive"

    # prices per million tokens at the lowest band, from genai-prices (reports and estimates)

    @property
    def input_per_mtok(self) -> float:
        return _base(_model_price(self.id, self.provider).input_mtok)

    @property
    def output_per_mtok(self) -> float:
        return _base(_model_price(self.id, self.provider).output_mtok)

    @property
    def cache_read_per_mtok(self) -> float:
        price = _model_price(self.id, self.provider)
        return _base(price.cache_read_mtok) if price.cache_read_mtok is not None else self.input_per_mtok

    @property
    def cache_write_5m_per_mtok(self) -> float:
        price = _model_price(self.id, self.provider)
        return _base(price.cache_write_mtok) if price.cache_write_mtok is not None else self.input_per_mtok

    @property
    def cache_write_1h_per_mtok(self) -> float:
        price = _model_price(self.id, self.provider)
        one_hour = getattr(price, "cache_write_1h_mtok", None)
        return _base(one_hour) if one_hour is not None else self.cache_write_5m_per_mtok


NEW_TOKENIZER = 1.3
"""Claude 4.7 and later count the same text as about 30% more tokens than Haiku 4.5 (Haiku 5.5 page)."""
CLAUDE_5_5_CONTEXT = 1_000_000
CLAUDE_5_5_OUTPUT = 128_000
CLAUDE_5_5_MIN_CACHEABLE = 512


def _claude_5_5(
    model_id: str,
    name: str,
    *,
    thinking: frozenset[ThinkingMode],
    effort: Effort,
    forced_tool_choice: bool,
    thinking_text_between_tools: bool,
) -> ModelInfo:
    return ModelInfo(
        id=model_id,
        display_name=name,
        provider="anthropic",
        min_cacheable_tokens=CLAUDE_5_5_MIN_CACHEABLE,
        context_window=CLAUDE_5_5_CONTEXT,
        max_output_tokens=CLAUDE_5_5_OUTPUT,
        tokenizer_factor=NEW_TOKENIZER,
        thinking_modes=thinking,
        default_thinking="adaptive",
        default_effort=effort,
        forced_tool_choice=forced_tool_choice,
        structured_output=True,
        thinking_text_between_tools=thinking_text_between_tools,
        sampling_params=False,
        assistant_prefill=False,
    )


def _claude_4(
    model_id: str,
    name: str,
    *,
    min_cacheable: int,
    context_window: int = 200_000,
    max_output: int = 64_000,
    end_of_life: date | None = None,
) -> ModelInfo:
    return ModelInfo(
        id=model_id,
        display_name=name,
        provider="anthropic",
        min_cacheable_tokens=min_cacheable,
        context_window=context_window,
        max_output_tokens=max_output,
        thinking_modes=frozenset({"enabled", "disabled"}),
        structured_output=True,
        end_of_life=end_of_life,
    )


MODELS: dict[str, ModelInfo] = {
    m.id: m
    for m in (
        _claude_5_5(
            "claude-haiku-5-5",
            "Claude Haiku 5.5",
            thinking=frozenset({"adaptive", "disabled"}),
            effort="medium",
            forced_tool_choice=True,
            thinking_text_between_tools=False,
        ),
        _claude_5_5(
            "claude-sonnet-5-5",
            "Claude Sonnet 5.5",
            thinking=frozenset({"adaptive", "between_tools"}),
            effort="high",
            forced_tool_choice=False,
            thinking_text_between_tools=True,
        ),
        _claude_5_5(
            "claude-opus-5-5",
            "Claude Opus 5.5",
            thinking=frozenset({"adaptive"}),
            effort="medium",
            forced_tool_choice=False,
            thinking_text_between_tools=True,
        ),
        _claude_4("claude-haiku-4-5", "Claude Haiku 4.5", min_cacheable=4096),
        _claude_4("claude-sonnet-4-6", "Claude Sonnet 4.6", min_cacheable=2048, context_window=1_000_000),
        _claude_4("claude-opus-4-5", "Claude Opus 4.5", min_cacheable=4096, end_of_life=date(2027, 1, 22)),
        _claude_4(
            "claude-sonnet-4-5", "Claude Sonnet 4.5", min_cacheable=1024, end_of_life=date(2026, 11, 30)
        ),
        ModelInfo(
            id="gpt-6-luna",
            display_name="GPT-6 Luna",
            provider="openai",
            min_cacheable_tokens=1024,
            context_window=1_050_000,
            max_output_tokens=128_000,
            structured_output=True,
            sampling_params=False,
            tools_need_effort_none=True,
            reasoning_effort_default="medium",
        ),
        ModelInfo(
            id="gpt-4o-mini",
            display_name="GPT-4o mini",
            provider="openai",
            min_cacheable_tokens=1024,
            context_window=128_000,
            max_output_tokens=16_384,
            structured_output=True,
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


def retiring(model_ids: dict[str, str], today: date) -> list[str]:
    """The named models (setting name -> model id) whose catalogue end of life is within
    SHUTDOWN_WARNING_DAYS of `today`, or past it, each as a sentence."""
    problems = []
    for name, model_id in model_ids.items():
        end = get_model(model_id).end_of_life
        if end is not None and (end - today).days <= SHUTDOWN_WARNING_DAYS:
            problems.append(f"{name}={model_id}: end of life on {end.isoformat()}")
    return problems


# --- prices (genai-prices) ------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _model_price(model_id: str, provider: ProviderId) -> ModelPrice:
    """The model's current price entry (its first `genai-prices` lookup loads the bundled data)."""
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    return calc_price(PriceUsage(input_tokens=0, output_tokens=0), model_id, provider_id=provider).model_price


def warm_prices(*model_ids: str) -> None:
    """Loads genai-prices' bundled table and the models' prices (the first lookup costs ~0.1 s, more
    without compiled bytecode): for an init phase no request waits for. Unknown ids are skipped."""
    for model_id in model_ids:
        model = MODELS.get(model_id)
        if model is not None:
            _model_price(model.id, model.provider)


def _base(price: Decimal | TieredPrices | None) -> float:
    """A flat price, or the lowest band of a tiered one; 0 for none."""
    if price is None:
        return 0.0
    if isinstance(price, Decimal | int | float):
        return float(price)
    return float(price.base)


def _price_cents(model: ModelInfo, usage: Usage, *, all_writes_1h: bool = False) -> float:
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    written = usage.cache_creation_input_tokens
    written_1h = written if all_writes_1h else min(usage.cache_creation_1h_input_tokens, written)
    priced = PriceUsage(
        input_tokens=usage.prompt_tokens,
        cache_read_tokens=usage.cache_read_input_tokens,
        cache_write_tokens=written,
        output_tokens=usage.output_tokens,
        **({"cache_write_1h_tokens": written_1h} if written_1h else {}),
    )
    try:
        price = calc_price(priced, model.id, provider_id=model.provider)
    except LookupError as exc:
        raise UnknownModelError(f"no price for model '{model.id}': {exc}") from None
    return float(price.total_price) * 100


def cost_cents(model_id: str, usage: Usage, *, cache_ttl: CacheTTL = "5m") -> float:
    """Anthropic convention: `input_tokens` excludes cache reads and writes.
    `cache_creation_input_tokens` is the total written, of which `cache_creation_1h_input_tokens`
    were written with a 1-hour TTL; `cache_ttl="1h"` prices every write at the 1-hour rate."""
    return _price_cents(get_model(model_id), usage, all_writes_1h=cache_ttl == "1h")


def uncached_cost_cents(model_id: str, usage: Usage) -> float:
    """What the same call would cost with every prompt token at the plain input price."""
    plain = Usage(input_tokens=usage.prompt_tokens, output_tokens=usage.output_tokens)
    return _price_cents(get_model(model_id), plain)


def openai_cost_cents(model_id: str, prompt_tokens: int, cached_tokens: int, completion_tokens: int) -> float:
    """OpenAI convention: `prompt_tokens` includes `cached_tokens`."""
    cached = min(cached_tokens, prompt_tokens)
    usage = Usage(
        input_tokens=prompt_tokens - cached, cache_read_input_tokens=cached, output_tokens=completion_tokens
    )
    return _price_cents(get_model(model_id), usage)
