"""A turn's lease on its session, kept while the turn runs
(docs/architecture.md#sessions-events-and-the-lease)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from trainer.chat.turn_store import TurnStore
from trainer.store.ports import LeaseHeld

logger = logging.getLogger(__name__)


class LeaseKeeper:
    """Keeps a turn's lease while it runs. Every commit of the turn extends the lease; when none has
    for a third of its length (a long model call), the keeper renews it, never past the function's
    deadline (so no lease outlives the function). If another holder took the session over (this
    turn's process was presumed dead), the turn store is marked lost and the turn writes nothing more."""

    def __init__(self, store: TurnStore, ttl: int, deadline: float) -> None:
        self.store = store
        self.ttl = ttl
        self.deadline = deadline
        self.renewals = 0
        self._task: asyncio.Task[None] | None = None

    def ttl_now(self) -> int:
        """The lease length to ask for now: the setting, cut at the function's deadline."""
        return max(1, min(self.ttl, int(self.deadline - time.monotonic())))

    def start(self) -> None:
        self._task = asyncio.create_task(self._renew_until_stopped(), name=f"lease-{self.store.session_id}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _renew_until_stopped(self) -> None:
        store = self.store
        while True:
            wait = self.ttl / 3 - (time.monotonic() - store.extended_at)
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if self.deadline - time.monotonic() <= 1:
                return
            try:
                await store.renew_lease(store.session_id, store.holder, self.ttl_now())
                self.renewals += 1
            except LeaseHeld:
                logger.error("lease on session %s was taken over; the turn stops", store.session_id)
                store.mark_lost()
                return
            except Exception:
                logger.warning("lease renewal failed for session %s", store.session_id, exc_info=True)
                await asyncio.sleep(1)
