"""Combining turn hooks: observers attached to every turn run in the order given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trainer.agent.ports import TurnHooks, TurnSummary

if TYPE_CHECKING:
    from trainer.agent.tool_registry import ToolOutcome
    from trainer.providers.ports import ModelRequest, ModelResponse
    from trainer.store.models import Session


class CompositeHooks(TurnHooks):
    def __init__(self, hooks: Sequence[TurnHooks] = ()) -> None:
        self.hooks = list(hooks)

    async def on_turn_start(self, session: Session, message: str) -> None:
        for hook in self.hooks:
            await hook.on_turn_start(session, message)

    async def on_llm_start(self, session: Session, request: ModelRequest) -> None:
        for hook in self.hooks:
            await hook.on_llm_start(session, request)

    async def on_llm_end(self, session: Session, response: ModelResponse, cost_cents: float) -> None:
        for hook in self.hooks:
            await hook.on_llm_end(session, response, cost_cents)

    async def on_tool_start(
        self, session: Session, call_id: str, name: str, arguments: dict[str, Any]
    ) -> None:
        for hook in self.hooks:
            await hook.on_tool_start(session, call_id, name, arguments)

    async def on_tool_end(self, session: Session, call_id: str, outcome: ToolOutcome) -> None:
        for hook in self.hooks:
            await hook.on_tool_end(session, call_id, outcome)

    async def on_turn_end(self, session: Session, summary: TurnSummary) -> None:
        for hook in self.hooks:
            await hook.on_turn_end(session, summary)
