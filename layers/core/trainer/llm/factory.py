"""Choosing the model adapters from settings: Anthropic or the offline policy for the agent,
OpenAI with a deterministic fallback for the initializer (ARCHITECTURE §4)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx2

from trainer.llm.anthropic_model import AnthropicAgentModel
from trainer.llm.deterministic_selector import DeterministicKnowledgeSelector
from trainer.llm.offline import OfflineAgentModel, OfflinePlanner
from trainer.llm.openai_initializer import OpenAIKnowledgeSelector
from trainer.llm.ports import AgentModel, InitializerResult, KnowledgeSelector
from trainer.settings import Settings

log = logging.getLogger(__name__)

INITIALIZER_TIMEOUT_S = 15.0


def build_agent_model(
    settings: Settings, planner: OfflinePlanner | None, http_client: httpx2.AsyncClient | None = None
) -> AgentModel:
    if settings.anthropic_api_key is not None:
        log.info("main agent model: Anthropic (%s)", settings.model)
        return AnthropicAgentModel(settings, http_client=http_client)
    if planner is None:
        raise ValueError("the offline model needs a planner (the domain database)")
    log.warning("main agent model: OFFLINE rule-based policy (no ANTHROPIC_API_KEY set)")
    return OfflineAgentModel(planner)


class FallbackKnowledgeSelector:
    """Tries the primary selector; on any failure or timeout the deterministic rules decide, so
    the turn goes on."""

    def __init__(
        self,
        primary: KnowledgeSelector,
        fallback: KnowledgeSelector | None = None,
        *,
        timeout_s: float = INITIALIZER_TIMEOUT_S,
    ) -> None:
        self.primary = primary
        self.fallback = fallback or DeterministicKnowledgeSelector()
        self.timeout_s = timeout_s

    async def select(self, message: str, existing: list[dict[str, Any]]) -> InitializerResult:
        try:
            async with asyncio.timeout(self.timeout_s):
                return await self.primary.select(message, existing)
        except Exception as exc:
            reason = "timed out" if isinstance(exc, TimeoutError) else str(exc)
            log.warning("initializer failed (%s); falling back to the deterministic selector", reason)
            return await self.fallback.select(message, existing)


def build_selector(settings: Settings, http_client: httpx2.AsyncClient | None = None) -> KnowledgeSelector:
    if settings.openai_api_key is None:
        log.info("initializer: deterministic rules (no OPENAI_API_KEY set)")
        return DeterministicKnowledgeSelector()
    log.info("initializer: OpenAI (%s) with deterministic fallback", settings.initializer_model)
    return FallbackKnowledgeSelector(OpenAIKnowledgeSelector(settings, http_client=http_client))
