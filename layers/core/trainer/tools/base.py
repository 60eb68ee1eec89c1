"""What every tool is: a pydantic argument model, a status message, an execute function and a
formatter for the event stream (seed 002 §6.1, seed 000 §4.11)."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel

from trainer.store.models import Event, EventType

if TYPE_CHECKING:
    from trainer.store.db import Database
    from trainer.store.ports import SessionStore

ResultCategory = Literal["confirmation", "summary", "full"]
Emit = Callable[[dict[str, Any]], Awaitable[None]]


class ToolError(Exception):
    """An expected failure (not found, bad state, bad input): becomes an error observation."""


class StatusMessage(BaseModel):
    start: str
    done: str


async def _no_emit(_: dict[str, Any]) -> None:
    return None


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class ToolContext:
    """Everything a tool may touch during one call. Domain data goes through `db` scoped by
    `user_id`; per-session state goes through the session store."""

    user_id: str
    session_id: str
    store: SessionStore
    db: Database | None = None
    emit: Emit = _no_emit
    now: Callable[[], datetime] = _utcnow
    extras: dict[str, Any] = field(default_factory=dict)

    async def get_state(self, key: str) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.store.get_state, self.session_id, key)

    async def put_state(self, key: str, value: dict[str, Any]) -> None:
        await asyncio.to_thread(self.store.put_state, self.session_id, key, value)

    async def delete_state(self, key: str) -> None:
        await asyncio.to_thread(self.store.delete_state, self.session_id, key)

    async def append_event(self, event_type: EventType, data: dict[str, Any]) -> Event:
        return await asyncio.to_thread(self.store.append_event, self.session_id, event_type, data)

    def require_db(self) -> Database:
        if self.db is None:
            raise ToolError("the domain database is not available")
        return self.db


class Tool(ABC):
    """A tool the model can call. Subclasses set the class attributes and implement `execute`."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]
    status: ClassVar[StatusMessage | None] = None
    category: ClassVar[ResultCategory] = "summary"
    terminal: ClassVar[bool] = False
    """Ends the loop after it runs (idle, message_ask_user)."""

    @abstractmethod
    async def execute(self, args: Any, ctx: ToolContext) -> dict[str, Any]:
        """Returns a JSON-serialisable result with a boolean `success`. Raise ToolError for
        expected failures."""

    @abstractmethod
    def format(self, result: dict[str, Any]) -> str:
        """The observation body the model sees (without the outer result tag)."""

    def input_schema(self) -> dict[str, Any]:
        return self.Args.model_json_schema()
