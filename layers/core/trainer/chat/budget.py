"""A per-user daily budget: turns and estimated cost per UTC day, from the daily metrics the cost job
keeps. A user over it gets no turn (the API answers 429 with Retry-After) before any model call.

The cost job runs after each turn, so the figures lag by the turn in flight: a budget can be
overshot by at most one turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from trainer.chat.ports import DailyUsage


class BudgetExceeded(Exception):
    """The user has used today's turns or cost; `retry_after_seconds` is the time to the next day."""

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class DailyBudget:
    usage: DailyUsage
    max_turns: int
    max_cost_cents: float
    clock: Callable[[], datetime] = _utcnow

    async def check(self, user_id: str) -> None:
        now = self.clock().astimezone(UTC)
        day: date = now.date()
        used = await self.usage.usage(user_id, day)
        tomorrow = datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
        wait = max(1, int((tomorrow - now).total_seconds()))
        if used.get("turns", 0) >= self.max_turns:
            raise BudgetExceeded(
                f"You have used today's {self.max_turns} messages; the limit resets at midnight UTC.",
                retry_after_seconds=wait,
            )
        if used.get("cost_cents", 0) >= self.max_cost_cents:
            raise BudgetExceeded(
                "You have used today's allowance; it resets at midnight UTC.", retry_after_seconds=wait
            )
