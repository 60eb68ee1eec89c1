"""When the program pipeline acts, in the user's local time (pure: the pipeline and the scheduler ask).

A plan's week N runs from `start_date + 7 (N - 1)` for seven days. Week N is due to be built at the local
midnight that starts it (`trainer.programs.microcycle.dates.week_due_at`), so it is built from
everything logged up to then (last week's sessions count) and before that day's morning message. Each
built week names the next one and when it is due: the hourly scheduler reads only the plans due by now.

The morning message goes out in the hour whose local time is the morning hour (06:00-06:59 by default):
`morning_window` names the zones in that hour at an instant, by local date (zones 24 hours apart, such as
Kiritimati and Honolulu, share the hour on different dates).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from trainer.domain.workout_grouping import local_day, zone
from trainer.programs.microcycle.dates import week_due_at

RETRY_BASE = timedelta(hours=1)
RETRY_MAX = timedelta(hours=12)
"""A week whose build failed is due again after 1, 2, 4 ... hours, at most 12."""


def week_of(start_date: date, day: date) -> int:
    """The plan week `day` falls in (1 = the first week); 0 before the plan starts."""
    if day < start_date:
        return 0
    return (day - start_date).days // 7 + 1


def today_in(now: datetime, timezone: str) -> date:
    return local_day(now, zone(timezone))


@dataclass(frozen=True)
class NextWeek:
    """What a plan's schedule says after a week is built: the week to build next and when (None: the
    plan has no later week)."""

    week_number: int
    due_at: datetime | None


def next_week_after(built: int, weeks: int, start_date: date, timezone: str) -> NextWeek:
    following = built + 1
    if following > weeks:
        return NextWeek(following, None)
    return NextWeek(following, week_due_at(start_date, following, timezone))


def retry_at(now: datetime, attempts: int) -> datetime:
    """When a failed week build is due again (exponential, capped)."""
    delay: timedelta = min(RETRY_BASE * 2 ** max(0, attempts - 1), RETRY_MAX)
    return now + delay


@cache
def known_zones() -> frozenset[str]:
    """Every IANA zone name this runtime can load (the names user settings accept), plus UTC."""
    return frozenset(available_timezones()) | {"UTC"}


@dataclass(frozen=True)
class MorningWindow:
    """The zones whose local time at an instant is in the morning hour, by their local date."""

    days: dict[date, tuple[str, ...]]

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(sorted(z for zones in self.days.values() for z in zones))


def morning_window(now: datetime, hour: int, zones: frozenset[str] | None = None) -> MorningWindow:
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    if not 0 <= hour <= 23:
        raise ValueError("the morning hour is 0-23")
    days: dict[date, list[str]] = {}
    for name in sorted(zones if zones is not None else known_zones()):
        try:
            local = now.astimezone(ZoneInfo(name))
        except (KeyError, ValueError, OSError):
            continue
        if local.hour == hour:
            days.setdefault(local.date(), []).append(name)
    return MorningWindow({day: tuple(names) for day, names in sorted(days.items())})
