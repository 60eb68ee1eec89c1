"""Per-user usage limits: a daily budget for every piece of work that calls a model (a turn, a plan, a
pasted-workout import), reserved before the first model call, and request rates on every route.

A reservation is one conditional write (trainer.store.usage), so concurrent requests cannot all pass a
check that none of them has yet counted against: at a limit of three, twelve simultaneous turns are three
turns and nine 429s. The cost half of the budget reads the cost job's running total for the day, which
lags by the work in flight; the counts do not lag.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Literal, Protocol

Work = Literal["turns", "plans", "imports"]
Refusal = Literal["count", "cost"]

COUNTERS: dict[Work, str] = {"turns": "turns_started", "plans": "plans_started", "imports": "imports_started"}
"""The day item's counter of each kind of work (`turns` itself is the cost job's count of finished turns)."""
WHAT: dict[Work, str] = {"turns": "messages", "plans": "plan requests", "imports": "workout imports"}


class BudgetExceeded(Exception):
    """The user has used today's allowance; `retry_after_seconds` is the time to the next UTC day."""

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


class RateLimited(Exception):
    """Too many requests of one kind in a short time; `retry_after_seconds` until the next one passes."""

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


class UsageLedger(Protocol):
    """Where reservations and request rates are counted (trainer.store.usage.DynamoUsageLedger)."""

    async def reserve(
        self, user_id: str, day: date, counter: str, limit: int, cost_limit_cents: float
    ) -> Refusal | None: ...

    async def release(self, user_id: str, day: date, counter: str) -> None: ...

    async def take(self, user_id: str, bucket: str, now: float, interval: float, burst: int) -> float: ...


@dataclass(frozen=True)
class Rate:
    """`per_minute` requests on average, up to `burst` at once."""

    per_minute: float
    burst: int

    @property
    def interval(self) -> float:
        return 60.0 / self.per_minute


DEFAULT_RATES: dict[str, Rate] = {
    "model": Rate(per_minute=20, burst=10),
    "write": Rate(per_minute=60, burst=30),
    "read": Rate(per_minute=240, burst=120),
}
"""`model`: routes that start model work (a turn, a plan, an import); `write`: other changes; `read`."""


@dataclass(frozen=True)
class Reservation:
    user_id: str
    day: date
    work: Work


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class UsageLimits:
    ledger: UsageLedger
    daily: dict[Work, int]
    """The most of each kind of work a user may start per UTC day."""
    cost_limit_cents: float
    rates: dict[str, Rate] = field(default_factory=lambda: dict(DEFAULT_RATES))
    clock: Callable[[], datetime] = _utcnow
    epoch_clock: Callable[[], float] = time.time
    """Seconds since the epoch: rate items are shared by every instance, so no process-local clock."""

    async def reserve(self, user_id: str, work: Work) -> Reservation:
        """Counts one `work` against today's budget, or raises BudgetExceeded without counting it."""
        now = self.clock().astimezone(UTC)
        day = now.date()
        refusal = await self.ledger.reserve(
            user_id, day, COUNTERS[work], self.daily[work], self.cost_limit_cents
        )
        if refusal is None:
            return Reservation(user_id, day, work)
        tomorrow = datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
        wait = max(1, int((tomorrow - now).total_seconds()))
        if refusal == "count":
            message = (
                f"You have used today's {self.daily[work]} {WHAT[work]}; the limit resets at midnight UTC."
            )
        else:
            message = "You have used today's allowance; it resets at midnight UTC."
        raise BudgetExceeded(message, retry_after_seconds=wait)

    async def release(self, reservation: Reservation) -> None:
        """Gives back a reservation whose work never reached a model (a 409, a 404)."""
        await self.ledger.release(reservation.user_id, reservation.day, COUNTERS[reservation.work])

    async def check_rate(self, user_id: str, bucket: str) -> None:
        """Raises RateLimited when the user's requests of this kind come faster than its rate."""
        rate = self.rates.get(bucket)
        if rate is None:
            return
        wait = await self.ledger.take(user_id, bucket, self.epoch_clock(), rate.interval, rate.burst)
        if wait > 0:
            raise RateLimited(
                "Too many requests; please slow down.", retry_after_seconds=max(1, math.ceil(wait))
            )
