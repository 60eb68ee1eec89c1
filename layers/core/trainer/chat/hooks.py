"""The lifecycle hooks observers attach to a chat turn (openai-agents' RunHooks): metrics, the local
fake model's result journal. `CompositeHooks` runs several in the order given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from trainer.agents.tools import ToolOutcome
    from trainer.providers.ports import ModelRequest, ModelResponse
    from trainer.store.models import Session


class TurnHooks:
    """Lifecycle callbacks of a turn; every method is a no-op here. Observers (metrics, the local fake
    model's result journal) subclass it. A hook that raises is logged and does not break the turn."""

    async def on_turn_start(self, session: Session, message: str) -> None:
        """The turn holds the session lease and is about to record the user's message."""

    async def on_llm_start(self, session: Session, request: ModelRequest) -> None:
        """A model call is about to be made."""

    async def on_llm_end(self, session: Session, response: ModelResponse, cost_cents: float) -> None:
        """A model call answered."""

    async def on_tool_start(
        self, session: Session, call_id: str, name: str, arguments: dict[str, Any]
    ) -> None:
        """A tool call is about to run."""

    async def on_tool_end(self, session: Session, call_id: str, outcome: ToolOutcome) -> None:
        """A tool call finished (successfully or not)."""

    async def on_turn_end(self, session: Session, summary: TurnSummary) -> None:
        """The turn is over (completed or failed)."""


class TurnSummary(Protocol):
    """What observers learn about a finished turn."""

    @property
    def status(self) -> str: ...

    @property
    def iterations(self) -> int: ...

    @property
    def model(self) -> str: ...

    @property
    def usage(self) -> dict[str, int]: ...

    @property
    def cost_cents(self) -> float: ...

    @property
    def duration_ms(self) -> int: ...

    @property
    def tool_calls(self) -> Sequence[tuple[str, bool]]:
        """(tool name, success) per call, in order."""
        ...

    @property
    def model_errors(self) -> int: ...

    @property
    def degraded(self) -> bool:
        """The turn's model was unavailable and the fallback model answered it."""
        ...

    @property
    def model_ms(self) -> int:
        """Time spent waiting for models; the rest of `duration_ms` is the backend's."""
        ...

    @property
    def dynamodb_requests(self) -> int: ...

    @property
    def sql_queries(self) -> int: ...


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
