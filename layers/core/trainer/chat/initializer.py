"""Context initialisation before each turn
(docs/architecture.md#knowledge-the-initializer-and-the-data-sources): the selector picks data sources, they
are fetched in parallel, fitted to the turn's prompt budget (trainer.sources.budget,
docs/architecture.md#the-prompt-budget) and appended as `knowledge` events, each with what fitting it
cost. Append-only: a wider range is a new event, never a replacement. Failures never stop the main
agent."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trainer.chat.errors import log_error
from trainer.chat.ports import SourceFetcher
from trainer.frames import Frame, knowledge_frame
from trainer.providers.ports import InitializerResult, KnowledgeSelection, KnowledgeSelector
from trainer.sources.budget import fit_turn
from trainer.sources.formatters import format_current_workout
from trainer.sources.registry import DISPLAY_NAMES, SOURCES
from trainer.store.models import Event, EventType, KnowledgeRef, Session
from trainer.store.ports import SessionStore

logger = logging.getLogger(__name__)

Emit = Callable[[Frame], Awaitable[None]]
CURRENT_WORKOUT_SOURCE = "current_workout_session"
__all__ = ["format_current_workout", "initialize_context", "log_error"]
INITIALIZER_TIMEOUT_S = 15.0
SOURCE_DEFAULT_PARAMS: dict[str, dict[str, Any]] = {
    "workout_history": {"days_back": 14},
    "scheduled_workouts": {"days_ahead": 7},
}
RANGE_PARAMS = ("days_back", "days_ahead")


@dataclass
class InitOutcome:
    reasoning: str = ""
    requested: list[KnowledgeRef] = field(default_factory=list)
    appended: list[KnowledgeRef] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    """Every event the initializer appended, in order (the loop keeps them in memory)."""
    select_ms: int = 0
    """How long the selection model took to answer."""


class FallbackKnowledgeSelector:
    """Tries the primary selector (the initializer model); on any failure or timeout the fallback (the
    deterministic rules) decides, so the turn goes on."""

    def __init__(
        self,
        primary: KnowledgeSelector,
        fallback: KnowledgeSelector,
        *,
        timeout_s: float = INITIALIZER_TIMEOUT_S,
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self.timeout_s = timeout_s

    async def select(self, message: str, existing: list[dict[str, Any]]) -> InitializerResult:
        try:
            async with asyncio.timeout(self.timeout_s):
                return await self.primary.select(message, existing)
        except Exception as exc:
            reason = "timed out" if isinstance(exc, TimeoutError) else str(exc)
            logger.warning("initializer failed (%s); falling back to the deterministic selector", reason)
            return await self.fallback.select(message, existing)


def display_name(source: str) -> str:
    return str(DISPLAY_NAMES.get(source) or source.replace("_", " ").title())


def selection_params(selection: KnowledgeSelection) -> dict[str, Any] | None:
    """The parameters the selected source takes, made valid; None for an unknown source. A strict
    structured-output model sends every parameter on every selection, mostly null but not always:
    what a source does not take, an out-of-range number or an invalid choice is dropped or clamped
    (and logged) rather than losing the source."""
    source = SOURCES.get(selection.source)
    if source is None:
        logger.warning("initializer selected an unknown source %r; skipped", selection.source)
        return None
    given = {
        "days_back": selection.days_back,
        "days_ahead": selection.days_ahead,
        "status": selection.status,
        "query": selection.query,
    }
    params, notes = source.tolerated_params(given)
    if notes:
        logger.info("initializer parameters adjusted for %s: %s", selection.source, "; ".join(notes))
    return params


def is_covered(source: str, params: dict[str, Any], existing: Sequence[KnowledgeRef]) -> bool:
    """True when knowledge already in context has at least this scope."""
    wanted = {**SOURCE_DEFAULT_PARAMS.get(source, {}), **params}
    for ref in existing:
        if ref.source != source:
            continue
        have = {**SOURCE_DEFAULT_PARAMS.get(source, {}), **ref.params}
        ranges_ok = all(
            not isinstance(wanted.get(k), int) or (isinstance(have.get(k), int) and have[k] >= wanted[k])
            for k in RANGE_PARAMS
        )
        same_query = str(wanted.get("query") or "").lower() == str(have.get("query") or "").lower()
        if ranges_ok and wanted.get("status") == have.get("status") and same_query:
            return True
    return False


async def _append(store: SessionStore, session_id: str, event_type: EventType, data: dict[str, Any]) -> Event:
    return await store.append_event(session_id, event_type, data)


async def initialize_context(
    store: SessionStore,
    session: Session,
    message: str,
    selector: KnowledgeSelector,
    fetch: SourceFetcher,
    emit: Emit,
) -> InitOutcome:
    outcome = InitOutcome()
    existing = list(session.knowledge_in_context)
    started = time.perf_counter()
    try:
        result = await selector.select(message, [ref.model_dump(mode="json") for ref in existing])
    except Exception as exc:
        outcome.select_ms = int((time.perf_counter() - started) * 1000)
        logger.warning("initializer failed: %s", exc)
        if (event := await log_error(store, session.id, exc, "context_init")) is not None:
            outcome.events.append(event)
        return outcome
    outcome.select_ms = int((time.perf_counter() - started) * 1000)
    outcome.reasoning = result.selection.reasoning
    if (usage_event := await _log_initializer_usage(store, session.id, result)) is not None:
        outcome.events.append(usage_event)

    requests: list[tuple[str, dict[str, Any]]] = []
    for selection in result.selection.append_knowledge:
        params = selection_params(selection)
        if params is None:
            continue
        ref = KnowledgeRef(source=selection.source, params=params)
        if any(r.source == ref.source and r.params == ref.params for r in outcome.requested):
            continue
        if selection.reason != "refresh_state" and is_covered(selection.source, params, existing):
            continue
        outcome.requested.append(ref)
        requests.append((selection.source, params))
    if not requests:
        return outcome

    try:
        results = list(await fetch(requests))
    except Exception as exc:
        logger.warning("knowledge fetch failed: %s", exc)
        if (event := await log_error(store, session.id, exc, "context_init")) is not None:
            outcome.events.append(event)
        return outcome

    loaded = [item for item in results if not item.error]
    fitted = fit_turn([(item.source, item.formatted) for item in loaded])
    budgets = {id(item): budget for item, budget in zip(loaded, fitted, strict=True)}
    for item in results:
        if item.error:
            outcome.failed[item.source] = item.error
            if (
                event := await log_error(store, session.id, item.error, f"knowledge:{item.source}")
            ) is not None:
                outcome.events.append(event)
            continue
        budget = budgets[id(item)]
        event = await _append(
            store,
            session.id,
            EventType.KNOWLEDGE,
            {
                "source": item.source,
                "params": dict(item.params or {}),
                "data": budget.text,
                "budget": budget.as_json(),
            },
        )
        outcome.events.append(event)
        outcome.appended.append(KnowledgeRef(source=item.source, params=dict(item.params or {})))
    if outcome.appended:
        await store.add_knowledge(session.id, outcome.appended)
    for ref in outcome.appended:
        try:
            await emit(knowledge_frame(ref.source, display_name(ref.source)))
        except Exception:
            logger.debug("knowledge event not delivered", exc_info=True)
    return outcome


async def _log_initializer_usage(
    store: SessionStore, session_id: str, result: InitializerResult
) -> Event | None:
    """An `llm_response` event for the initializer's own model call (OpenAI only)."""
    if result.provider != "openai" or not result.usage:
        return None
    usage = result.usage
    prompt = int(usage.get("prompt_tokens", 0))
    cached = int(usage.get("cached_tokens", 0))
    completion = int(usage.get("completion_tokens", 0))
    cost = 0.0
    try:
        from trainer.providers.models import openai_cost_cents

        cost = openai_cost_cents(result.model, prompt, cached, completion)
    except Exception:
        logger.debug("no OpenAI price for %s", result.model)
    data = {
        "provider": "openai",
        "purpose": "initializer",
        "model": result.model,
        "raw_response": {"reasoning": result.selection.reasoning[:500]},
        "tokens": {
            "prompt": prompt - cached,
            "completion": completion,
            "cached": cached,
            "cache_write": 0,
            "total": prompt + completion,
        },
        "cost_cents": cost,
    }
    try:
        return await _append(store, session_id, EventType.LLM_RESPONSE, data)
    except Exception:
        logger.exception("could not log initializer usage")
        return None
