"""What the agent needs from the outside, as Protocols (adapters in jobs/, llm/, sources/), and the
lifecycle hooks observers attach to a turn (openai-agents' RunHooks)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from trainer.agent.tool_registry import ToolOutcome
    from trainer.providers.ports import AgentModel, ModelRequest, ModelResponse
    from trainer.store.models import Session


class EventPublisher(Protocol):
    """Publishes a domain event (TurnCompleted) to the bus."""

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None: ...


class ModelProvider(Protocol):
    """The agent model for a model id (a request may name another model than the default)."""

    def model_for(self, model_id: str) -> AgentModel: ...


class SourceResultLike(Protocol):
    source: str
    params: dict[str, Any]
    formatted: str
    error: str | None


SourceFetcher = Callable[[list[tuple[str, dict[str, Any]]]], Awaitable[Sequence[SourceResultLike]]]
"""The data layer's fetch_sources bound to a database and a user."""

UserDataLoader = Callable[[str], Awaitable[str]]


class DailyUsage(Protocol):
    """A user's usage counters for a UTC day (turns, cost_cents, tokens...), kept by the cost job."""

    async def usage(self, user_id: str, day: date) -> dict[str, float]: ...


"""The `<user_data>` block for a user id."""


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
    def model_ms(self) -> int:
        """Time spent waiting for models; the rest of `duration_ms` is the backend's."""
        ...

    @property
    def dynamodb_requests(self) -> int: ...

    @property
    def sql_queries(self) -> int: ...
