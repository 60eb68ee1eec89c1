"""What the chat turn needs from the outside, as Protocols (adapters in jobs/, store/, sources/, and the
model ports of trainer.providers), wired by the composition root (trainer.container)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from trainer.providers.ports import AgentModel


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
"""The `<user_data>` block for a user id."""
