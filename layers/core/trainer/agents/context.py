"""ContextService: pre-computed context for an agent, one block per entry of its definition's
`context`: a data source of trainer.sources (all read on one connection) or a context provider. A source
or provider that fails gives a block saying it is unavailable; the agent runs on. Providers return text
escaped for the context (`trainer.domain.text.escape_text`), as the sources' formatters do."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from trainer.agents.definitions import ContextProvider, ContextRequest, ContextSource
from trainer.agents.wire import render_context
from trainer.sources.registry import fetch_sources
from trainer.store.db import Database

log = logging.getLogger(__name__)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ContextService:
    def __init__(self, db: Database | None, *, now: Callable[[], datetime] = _utcnow) -> None:
        self._db = db
        self._now = now

    async def build(self, context: Sequence[ContextSource], *, input: Any, user_id: str | None) -> list[str]:
        """The context blocks in the order of `context`."""
        now = self._now()
        blocks: dict[str, str] = {}
        sources = [entry.name for entry in context if not isinstance(entry, ContextProvider)]
        if sources:
            if self._db is None or user_id is None:
                for name in sources:
                    blocks[name] = render_context(name, "", error="no user data here")
            else:
                results = await fetch_sources(self._db, user_id, [(n, None) for n in sources], now=now)
                for result in results:
                    blocks[result.source] = (
                        render_context(result.source, "", error=result.error)
                        if result.error
                        else render_context(result.source, result.formatted)
                    )
        request = ContextRequest(user_id=user_id, input=input, now=now)
        for entry in context:
            if isinstance(entry, ContextProvider):
                blocks[entry.name] = await self._provided(entry, request)
        return [blocks[entry.name] for entry in context]

    async def _provided(self, provider: ContextProvider, request: ContextRequest) -> str:
        try:
            text = await provider.build(request)
        except Exception:
            log.exception("context provider %s failed", provider.name)
            return render_context(provider.name, "", error="could not be loaded")
        return render_context(provider.name, text)
