"""When the day's workout may reach the user (pure): at or after their morning hour, outside their quiet
hours, on the local day it is for.

`delivery_time(now, zone, day, morning_hour, quiet)` answers `send` (now), `defer` (at `not_before`, the
first instant that qualifies) or `skip` (the day is over, or quiet hours fill what is left of it). Local
wall times are read in the user's zone; a wall time a DST change skips (02:30 on a spring-forward night)
is the instant after the gap, one it repeats is its first occurrence.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Literal

Action = Literal["send", "defer", "skip"]
DeferReason = Literal["before_morning", "quiet_hours"]
SkipReason = Literal["day_over", "quiet_hours"]


@dataclass(frozen=True)
class QuietHours:
    """No notification from `start` (included) until `end` (excluded), local time; the period spans
    midnight when `end` is earlier than `start` (22:00-07:00)."""

    start: time
    end: time

    def __post_init__(self) -> None:
        if self.start == self.end:
            raise ValueError("quiet hours must start and end at different times")

    @property
    def wraps(self) -> bool:
        return self.end < self.start

    def contains(self, moment: time) -> bool:
        moment = moment.replace(tzinfo=None, fold=0)
        if self.wraps:
            return moment >= self.start or moment < self.end
        return self.start <= moment < self.end

    def ends_after(self, local: datetime) -> tuple[date, time]:
        """The local date and time the quiet period holding `local` ends."""
        if self.wraps and local.time().replace(tzinfo=None, fold=0) >= self.start:
            return local.date() + timedelta(days=1), self.end
        return local.date(), self.end


@dataclass(frozen=True)
class DeliveryTime:
    action: Action
    not_before: datetime | None = None
    """`defer`: the instant (UTC) the delivery may go."""
    reason: DeferReason | SkipReason | None = None


def instant(day: date, wall: time, zone: tzinfo) -> datetime:
    """The UTC instant of a local wall time on `day` (see the module's note on DST)."""
    return datetime.combine(day, wall.replace(tzinfo=None), tzinfo=zone).astimezone(UTC)


def delivery_time(
    now: datetime, zone: tzinfo, day: date, morning_hour: int, quiet: QuietHours | None = None
) -> DeliveryTime:
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    if not 0 <= morning_hour <= 23:
        raise ValueError("the morning hour is 0-23")
    if now.astimezone(zone).date() > day:
        return DeliveryTime("skip", reason="day_over")
    now = now.astimezone(UTC)
    earliest = instant(day, time(morning_hour), zone)
    candidate = max(now, earliest)
    reason: DeferReason | None = "before_morning" if candidate > now else None
    local = candidate.astimezone(zone)
    if quiet is not None and quiet.contains(local.time()):
        end_day, end = quiet.ends_after(local)
        candidate, reason = instant(end_day, end, zone), "quiet_hours"
    if candidate.astimezone(zone).date() != day:
        return DeliveryTime("skip", reason="quiet_hours")
    if candidate <= now:
        return DeliveryTime("send")
    return DeliveryTime("defer", not_before=candidate, reason=reason)
