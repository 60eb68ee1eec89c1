"""The reply that ends a turn whose last call the model marked final (`Tool.can_finish`): its port, and
what it reads and writes. The chat turn asks for it; the composition root provides the writer
(trainer.offline.closing.ResultReplies)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from trainer.tools.base import ToolResult


@dataclass(frozen=True)
class FinishedCall:
    """A successful tool call of the turn, as a closing reply reads it."""

    tool: str
    arguments: dict[str, Any]
    result: ToolResult


@dataclass(frozen=True)
class ClosingReply:
    message: str
    artifact_id: str | None = None
    """The workout or timers the calls made, delivered with the message."""


class ClosingReplies(Protocol):
    """Writes the reply that ends a turn whose last call was marked final (`Tool.can_finish`): what the
    calls did, from their typed results, in words a user reads (no ids or field names), and the
    artifact to deliver. Code, not a model call: the numbers are the results' own."""

    async def write(self, user_id: str, user_message: str, calls: Sequence[FinishedCall]) -> ClosingReply: ...
