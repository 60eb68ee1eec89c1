"""The replies that close a turn whose last call the model marked final
(trainer.agents.closing.ClosingReplies): the same words the offline coach ends its own turns with
(trainer.offline.replies.closing_text), written from the calls' typed results, so a live model's turn
is one model call shorter and its numbers are the code's. Today, dates and the current location come
from the user's settings, read only when a result needs them (a date to name, an exercise's
equipment)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from trainer.agents.closing import ClosingReply, FinishedCall
from trainer.domain.workout_grouping import zone
from trainer.offline.conversation import PastCall
from trainer.offline.replies import ReplyContext, closing_text, delivered_artifact_id, needs_user_records
from trainer.services.user_data import UserDataService
from trainer.store.db import Database
from trainer.store.ports import DatabaseUnavailable

logger = logging.getLogger(__name__)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ResultReplies:
    """`ClosingReplies` on the domain database (None: dates are named in UTC)."""

    def __init__(self, db: Database | None, clock: Callable[[], datetime] = _utcnow) -> None:
        self._db = db
        self._now = clock

    async def write(self, user_id: str, user_message: str, calls: Sequence[FinishedCall]) -> ClosingReply:
        past = [
            PastCall(call_id="", name=c.tool, arguments=c.arguments, result=c.result, failed=False)
            for c in calls
        ]
        ctx = await self._context(user_id, user_message) if needs_user_records(past) else None
        return ClosingReply(
            closing_text(past, ctx or ReplyContext(text=user_message)), delivered_artifact_id(past)
        )

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
