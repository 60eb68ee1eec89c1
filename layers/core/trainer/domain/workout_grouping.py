"""What counts as one workout, and which local day and week a logged exercise belongs to.

A workout is what the user did together: the exercises logged from one generated workout (its
workout_id, numbered per chat session, so taken with the session's id), else every exercise logged on
one calendar day in the user's time zone. A chat session is not a workout: one session can span days,
and a day can hold two logged workouts. Weeks start on Monday, in the user's time zone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainer.domain.recovery import as_utc

UTC_ZONE = ZoneInfo("UTC")
NOT_A_PLACE = frozenset({"localtime", "posixrules", "Factory"})
"""Files of a zoneinfo directory that load as zones but name no place: `localtime` is whatever the
host is set to (different on every machine), `posixrules` a default rule, `Factory` a placeholder."""


def is_iana_zone(name: str) -> bool:
    """A time zone name of the IANA database (`Europe/Berlin`, `UTC`, `America/Argentina/Cordoba`):
    loadable, a place or UTC, not a host-dependent alias or a `posix/` / `right/` variant."""
    if not name or name in NOT_A_PLACE or name.startswith(("posix/", "right/", "/")) or ".." in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def zone(name: str | tzinfo | None) -> tzinfo:
    """The time zone a user setting names (an unknown or empty name is UTC)."""
    if isinstance(name, tzinfo):
        return name
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return UTC_ZONE


def local_day(moment: datetime | date | str, tz: tzinfo) -> date:
    """The calendar day `moment` falls on in `tz` (a naive or string moment is read as UTC)."""
    return as_utc(moment).astimezone(tz).date()


def local_midnight(day: date, tz: tzinfo) -> datetime:
    """The start of `day` in `tz`, as an aware datetime."""
    return datetime.combine(day, time(0), tzinfo=tz)


def workout_key(row: Mapping[str, Any], tz: tzinfo) -> str:
    """The workout a logged exercise belongs to: its logged workout, else its local day."""
    if row.get("workout_id"):
        return f"workout:{row.get('session_id') or ''}:{row['workout_id']}"
    return f"day:{local_day(row['performed_at'], tz).isoformat()}"


def count_workouts(rows: Iterable[Mapping[str, Any]], tz: tzinfo) -> int:
    return len({workout_key(r, tz) for r in rows if r.get("performed_at") is not None})


def week_start(day: date) -> date:
    """The Monday of the week `day` is in."""
    return day - timedelta(days=day.weekday())


def week_label(start: date, *, with_year: bool = False) -> str:
    """'week of 16 Nov' (or 'week of 16 Nov 2025'): how a user reads a week."""
    return f"week of {start.day} {start:%b}" + (f" {start.year}" if with_year else "")
