"""ContextService (seed 004): pre-computed context for an agent, one block per context type, from the
data sources of `trainer.sources` (read on one connection) or a registered context provider. A source
that fails gives a block saying it is unavailable; the agent runs on. Providers return text escaped for
the context (`trainer.domain.text.escape_text`), as the sources' formatters do."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from trainer.agents.registry import ContextRegistry, ContextRequest
from trainer.agents.wire import render_context
from trainer.sources.registry import SOURCE_NAMES, fetch_sources
from trainer.store.db import Database

if TYPE_CHECKING:
    from trainer.agents.factory import AgentRunDeps

log = logging.getLogger(__name__)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ContextService:
    def __init__(
        self,
        db: Database | None,
        providers: ContextRegistry,
        *,
        now: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._db = db
        self._providers = providers
        self._now = now

    async def build(self, types: Sequence[str], *, input: Any, deps: AgentRunDeps) -> list[str]:
        """The context blocks in the order of `types`."""
        now = self._now()
        sources = [name for name in types if name not in self._providers and name in SOURCE_NAMES]
        blocks: dict[str, str] = {}
        if sources:
            if self._db is None or deps.user_id is None:
                for name in sources:
                    blocks[name] = render_context(name, "", error="no user data here")
            else:
                results = await fetch_sources(self._db, deps.user_id, [(n, None) for n in sources], now=now)
                for result in results:
                    blocks[result.source] = (
                        render_context(result.source, "", error=result.error)
                        if result.error
                        else render_context(result.source, result.formatted)
                    )
        request = ContextRequest(user_id=deps.user_id, input=input, now=now, deps=deps)
        for name in types:
            if name in blocks:
                continue
            if name not in self._providers:
                blocks[name] = render_context(name, "", error="unknown context type")
                continue
            try:
                text = await self._providers.get(name)(request)
            except Exception:
                log.exception("context provider %s failed", name)
                blocks[name] = render_context(name, "", error="could not be loaded")
                continue
            blocks[name] = render_context(name, text)
        return [blocks[name] for name in types]
