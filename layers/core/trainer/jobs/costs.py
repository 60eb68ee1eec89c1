"""Cost aggregation after a turn (docs/architecture.md#tokens-and-cost).

A turn's `llm_response` events (sequence first_seq..last_seq, data `tokens` {prompt, completion,
cached, cache_write, total} and `cost_cents`) are added to the session totals and to the user's
daily metrics exactly once per `turn_id`: Powertools idempotency on the idempotency table turns a
redelivered TurnCompleted into a replay of the stored result. For a deleted account nothing is added
(the session is gone, and the daily write is conditional on the account's tombstone being absent); the
idempotency record holds no user or session id (its key is a hash of the turn id) and expires in two
days.

Token convention: an event's `tokens.prompt` is Anthropic's `input_tokens` (no cache
reads, no cache writes). A session's `prompt_tokens` sums the input the model did not read from cache
(`prompt + cache_write`), `cached_tokens` sums cache reads, and
`cache_hit_rate = cached_tokens / (prompt_tokens + cached_tokens) * 100` — the session item derives
the rate on read with the same formula, so the job writes no rate.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol

from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer

from trainer.chat.turn_completed import TurnCompleted, parse_turn_completed
from trainer.settings import CostSettings, IdempotencySettings
from trainer.store.dynamo_tables import aws_client
from trainer.store.models import Event, EventType
from trainer.store.ports import SessionNotFound, SessionStore

logger = logging.getLogger(__name__)

IDEMPOTENCY_KEY_PREFIX = "trainer.jobs.costs.aggregate_turn"
IDEMPOTENCY_TTL_SECONDS = 2 * 24 * 3600
"""Longer than EventBridge's and Lambda's retry windows, so any redelivery still finds the record."""


class DailyMetrics(Protocol):
    def add_unless_deleted(self, user_id: str, day: date, **increments: float) -> bool:
        """Adds to the user's day unless the account was deleted (False then: nothing written)."""
        ...


@dataclass(frozen=True)
class TurnCost:
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    total_tokens: int = 0
    cost_cents: float = 0.0

    def session_increments(self) -> dict[str, float]:
        return {
            "total_tokens": self.total_tokens,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "total_cost_cents": self.cost_cents,
        }

    def daily_increments(self) -> dict[str, float]:
        return {
            "turns": 1,
            "llm_calls": self.llm_calls,
            "tokens": self.total_tokens,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "cost_cents": self.cost_cents,
        }


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and value > 0 else 0


def turn_cost(events: Iterable[Event], turn: TurnCompleted) -> TurnCost:
    """Sum of the turn's llm_response events; the TurnCompleted usage when the turn left none."""
    responses = [
        e
        for e in events
        if e.event_type is EventType.LLM_RESPONSE and turn.first_seq <= e.sequence_number <= turn.last_seq
    ]
    if not responses:
        usage = turn.usage
        prompt = usage.input_tokens + usage.cache_creation_input_tokens
        return TurnCost(
            llm_calls=0,
            prompt_tokens=prompt,
            completion_tokens=usage.output_tokens,
            cached_tokens=usage.cache_read_input_tokens,
            cache_write_tokens=usage.cache_creation_input_tokens,
            total_tokens=prompt + usage.cache_read_input_tokens + usage.output_tokens,
            cost_cents=turn.cost_cents,
        )
    prompt = completion = cached = cache_write = total = 0
    cost = 0.0
    for event in responses:
        tokens = event.data.get("tokens") or {}
        p, c = _int(tokens.get("prompt")), _int(tokens.get("completion"))
        read, written = _int(tokens.get("cached")), _int(tokens.get("cache_write"))
        prompt += p + written
        completion += c
        cached += read
        cache_write += written
        total += _int(tokens.get("total")) or p + written + read + c
        raw_cost = event.data.get("cost_cents")
        cost += float(raw_cost) if isinstance(raw_cost, int | float) and raw_cost > 0 else 0.0
    return TurnCost(len(responses), prompt, completion, cached, cache_write, total, round(cost, 6))


def cache_hit_rate(cached_tokens: float, prompt_tokens: float) -> float:
    """Percentage of input tokens read from the cache (prompt excludes cached)."""
    seen = prompt_tokens + cached_tokens
    return round(cached_tokens / seen * 100, 2) if seen > 0 else 0.0


def turn_day(events: Iterable[Event], fallback: datetime) -> date:
    """The UTC day a turn is billed to: when its last model response arrived."""
    stamps = [e.timestamp for e in events if e.event_type is EventType.LLM_RESPONSE]
    moment = max(stamps) if stamps else fallback
    return (moment.astimezone(UTC) if moment.tzinfo else moment).date()


def build_idempotency_layer(settings: IdempotencySettings, client: Any = None) -> DynamoDBPersistenceLayer:
    """Powertools persistence on the idempotency table, honouring AWS_ENDPOINT_URL (moto locally)."""
    client = client if client is not None else aws_client("dynamodb", settings)
    return DynamoDBPersistenceLayer(table_name=settings.idempotency_table_name, boto3_client=client)


async def _turn_response_events(store: SessionStore, turn: TurnCompleted) -> list[Event]:
    events: list[Event] = []
    after: int | None = max(turn.first_seq - 1, 0)
    while after is not None and after < turn.last_seq:
        page = await store.read_events(
            turn.session_id, after=after, types=frozenset({EventType.LLM_RESPONSE})
        )
        events.extend(e for e in page.events if e.sequence_number <= turn.last_seq)
        after = page.next_after if page.events else None
    return events


def _apply_turn_cost(*, store: SessionStore, metrics: DailyMetrics, detail: dict[str, Any]) -> dict[str, Any]:
    return asyncio.run(_apply_turn_cost_async(store, metrics, TurnCompleted.model_validate(detail)))


async def _apply_turn_cost_async(
    store: SessionStore, metrics: DailyMetrics, turn: TurnCompleted
) -> dict[str, Any]:
    try:
        events = await _turn_response_events(store, turn)
    except SessionNotFound:
        events = []
    cost = turn_cost(events, turn)
    day = turn_day(events, fallback=datetime.now(UTC))
    session_hit_rate: float | None = None
    try:
        session = await store.add_usage(turn.session_id, **cost.session_increments())
        session_hit_rate = cache_hit_rate(session.cached_tokens, session.prompt_tokens)
    except SessionNotFound:
        logger.warning(
            "session gone; turn cost goes to daily metrics only", extra={"session_id": turn.session_id}
        )
    daily_counted = metrics.add_unless_deleted(turn.user_id, day, **cost.daily_increments())
    if not daily_counted:
        logger.info("account deleted; the turn's cost is not recorded")
    return {
        "turn_id": turn.turn_id,
        "day": day.isoformat(),
        "session_counted": session_hit_rate is not None,
        "daily_counted": daily_counted,
        "session_cache_hit_rate": session_hit_rate,
        **asdict(cost),
    }


def aggregate_turn(
    store: SessionStore,
    metrics: DailyMetrics,
    detail: dict[str, Any],
    *,
    idempotency: BasePersistenceLayer,
    lambda_context: Any = None,
) -> dict[str, Any]:
    """Add one turn's usage to its session and the user's day, once per `turn_id`; a repeat
    delivery returns the first result without counting again. Raises InvalidTurnEvent for a
    malformed detail and IdempotencyAlreadyInProgressError while the first delivery still runs."""
    turn = parse_turn_completed(detail)
    config = IdempotencyConfig(
        event_key_jmespath="turn_id",
        raise_on_no_idempotency_key=True,
        expires_after_seconds=IDEMPOTENCY_TTL_SECONDS,
    )
    if lambda_context is not None and hasattr(lambda_context, "get_remaining_time_in_millis"):
        config.register_lambda_context(lambda_context)
    once_per_turn = idempotent_function(
        _apply_turn_cost,
        data_keyword_argument="detail",
        persistence_store=idempotency,
        config=config,
        key_prefix=IDEMPOTENCY_KEY_PREFIX,
    )
    result: dict[str, Any] = once_per_turn(store=store, metrics=metrics, detail=turn.model_dump(mode="json"))
    return result


@dataclass
class CostDeps:
    store: SessionStore
    metrics: DailyMetrics
    idempotency: BasePersistenceLayer

    @classmethod
    def from_settings(cls, settings: CostSettings) -> CostDeps:
        from trainer.store.metrics import DailyMetricsStore
        from trainer.store.sessions import DynamoSessionStore

        return cls(
            store=DynamoSessionStore(settings),
            metrics=DailyMetricsStore(settings),
            idempotency=build_idempotency_layer(settings),
        )


def handle_turn_completed(event: dict[str, Any], context: Any, deps: CostDeps) -> dict[str, Any]:
    """Lambda entry for TurnCompleted: the envelope's detail, aggregated once."""
    turn = parse_turn_completed(event)
    return aggregate_turn(
        deps.store,
        deps.metrics,
        turn.model_dump(mode="json"),
        idempotency=deps.idempotency,
        lambda_context=context,
    )
