"""An in-memory UsageLedger for unit tests (the DynamoDB one runs in the integration tests): the same
rules, each call atomic on the event loop."""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from trainer.services.usage_limits import Refusal


class MemoryUsageLedger:
    def __init__(self, *, cost_cents: float = 0.0, **counters: int) -> None:
        self.days: dict[tuple[str, date], dict[str, float]] = defaultdict(dict)
        self.preset = {"cost_cents": cost_cents, **counters}
        self.tat: dict[tuple[str, str], float] = {}
        self.reserved: list[tuple[str, date, str]] = []

    def _day(self, user_id: str, day: date) -> dict[str, float]:
        counters = self.days[(user_id, day)]
        for name, value in self.preset.items():
            counters.setdefault(name, float(value))
        return counters

    async def reserve(
        self, user_id: str, day: date, counter: str, limit: int, cost_limit_cents: float
    ) -> Refusal | None:
        counters = self._day(user_id, day)
        if counters.get(counter, 0) >= limit:
            return "count"
        if counters.get("cost_cents", 0) >= cost_limit_cents:
            return "cost"
        counters[counter] = counters.get(counter, 0) + 1
        self.reserved.append((user_id, day, counter))
        return None

    async def release(self, user_id: str, day: date, counter: str) -> None:
        counters = self._day(user_id, day)
        if counters.get(counter, 0) > 0:
            counters[counter] -= 1

    async def take(self, user_id: str, bucket: str, now: float, interval: float, burst: int) -> float:
        latest = now + interval * max(1, burst) - interval
        tat = self.tat.get((user_id, bucket))
        if tat is None or tat < now:
            self.tat[(user_id, bucket)] = now + interval
            return 0.0
        if tat <= latest:
            self.tat[(user_id, bucket)] = tat + interval
            return 0.0
        return tat - latest
