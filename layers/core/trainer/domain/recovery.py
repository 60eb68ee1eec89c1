"""Which muscles are still recovering: 48 h after hard work for large muscles, 24 h for small ones.

A logged exercise counts as work for a muscle when that muscle's share is at least
WORKED_SHARE_THRESHOLD (0.2): a bench press (Chest 0.6, Triceps 0.25, Shoulders 0.15) loads the
chest and triceps, not the shoulders.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from trainer.domain.distribution import shares_of
from trainer.domain.muscles import canonical_muscle, recovery_hours

WORKED_SHARE_THRESHOLD = 0.2


def as_utc(value: datetime | date | str) -> datetime:
    """An aware UTC datetime from a datetime (naive = UTC), a date (midnight) or an ISO string."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def worked_muscles(row: Mapping[str, Any], threshold: float = WORKED_SHARE_THRESHOLD) -> set[str]:
    muscles = shares_of(row.get("muscles_utilized") or row.get("muscles") or [], "muscle")
    return {m for name, share in muscles.items() if share >= threshold and (m := canonical_muscle(name))}


def recovering_muscles(history: Iterable[Mapping[str, Any]], now: datetime) -> dict[str, datetime]:
    """muscle -> ready-at time (UTC) for every muscle still recovering at `now`."""
    current = as_utc(now)
    ready: dict[str, datetime] = {}
    for row in history:
        performed = row.get("performed_at")
        if performed is None:
            continue
        at = as_utc(performed)
        for muscle in worked_muscles(row):
            ready_at = at + timedelta(hours=recovery_hours(muscle))
            if ready_at > current and ready_at > ready.get(muscle, current):
                ready[muscle] = ready_at
    return dict(sorted(ready.items()))


def hours_left(ready_at: datetime, now: datetime) -> float:
    return max(0.0, (as_utc(ready_at) - as_utc(now)).total_seconds() / 3600)
