"""The reply that ends a turn whose last call the model marked final (`Tool.can_finish`): its port
(`ClosingReplies`), the reply written from the calls' results (`closing_text`: what each result says
of itself, `ToolResult.say`) with the model's coaching note after it (`coaching_note`), and its
writer on the domain database (`ResultReplies`), which the composition root wires into the chat turn.
The offline coach ends its own turns with the same `closing_text`, so a live model's final call and
the offline coach's last message read alike.

The facts come first and are the code's: every number the user reads in them is a result's own. The
note is the model's voice (encouragement, a cue, the answer to the rest of the message), so a sentence
of it that holds a digit is left out: a number the model wrote could contradict the facts above it."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from trainer.domain.workout_grouping import zone
from trainer.services.user_data import UserDataService
from trainer.store.db import Database
from trainer.store.ports import DatabaseUnavailable
from trainer.tools.base import MAX_NOTE_CHARS, ToolResult
from trainer.tools.wording import DONE, ReplyContext

logger = logging.getLogger(__name__)

MAX_REPLY_CHARS = 4000
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


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

    async def write(
        self, user_id: str, user_message: str, calls: Sequence[FinishedCall], note: str | None = None
    ) -> ClosingReply: ...


def coaching_note(note: str | None) -> str:
    """The model's note as the user reads it: its sentences without a digit, whitespace collapsed, as
    many as fit in MAX_NOTE_CHARS (a note is a sentence or two, never a second reply)."""
    kept: list[str] = []
    for sentence in SENTENCE_END.split(" ".join((note or "").split())):
        if not sentence or any(c.isdigit() for c in sentence):
            continue
        if len(" ".join([*kept, sentence])) > MAX_NOTE_CHARS:
            break
        kept.append(sentence)
    return " ".join(kept)


def closing_text(calls: Sequence[FinishedCall], ctx: ReplyContext, note: str | None = None) -> str:
    """What each successful call did, in order, one result's words a line; then the model's note."""
    lines = [call.result.say(ctx, call.arguments) for call in calls]
    facts = "\n".join(line for line in lines if line) or DONE
    words = coaching_note(note)
    return (f"{facts}\n\n{words}" if words else facts)[:MAX_REPLY_CHARS]


def delivered_artifact_id(calls: Sequence[FinishedCall]) -> str | None:
    """The artifact the turn's last workout change, timers or check-in refit made (delivered with the
    reply)."""
    for call in reversed(calls):
        delivered = call.result.delivered_artifact()
        if delivered is not None:
            return delivered.artifact_id
    return None


def needs_user_records(calls: Sequence[FinishedCall]) -> bool:
    """Whether a result's words read today, the user's time zone or their location."""
    return any(call.result.needs_user_context for call in calls)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ResultReplies:
    """`ClosingReplies` on the domain database: today, dates and the current location come from the
    user's settings, read only when a result needs them (None: dates are named in UTC)."""

    def __init__(self, db: Database | None, clock: Callable[[], datetime] = _utcnow) -> None:
        self._db = db
        self._now = clock

    async def write(
        self, user_id: str, user_message: str, calls: Sequence[FinishedCall], note: str | None = None
    ) -> ClosingReply:
        if needs_user_records(calls):
            ctx = await self._context(user_id, user_message)
        else:
            ctx = ReplyContext(text=user_message)
        return ClosingReply(closing_text(calls, ctx, note), delivered_artifact_id(calls))

    async def _context(self, user_id: str, user_message: str) -> ReplyContext:
        """Today in the user's time zone and their current location; UTC and none when the database
        cannot say (the reply still goes out: the calls already happened)."""
        now = self._now()
        timezone, location = "UTC", None
        if self._db is not None:
            try:
                async with UserDataService(self._db).for_user(user_id).reading() as data:
                    settings = await data.settings.get()
                    places = await data.locations.all()
                timezone = settings.timezone or "UTC"
                location = next((str(p["name"]) for p in places if p["is_current"]), None)
            except DatabaseUnavailable:
                logger.warning(
                    "closing reply for %s names dates in UTC: the database is unavailable", user_id
                )
        return ReplyContext.for_user(user_message, now, zone(timezone), location)
