"""How far from today a date the user or the model gives may lie before it is stored.

Postgres keeps timestamps to the year 294276, but Python's datetime stops at 9999: a workout on
9999-12-31 in `Etc/GMT+12` is stored as 10000-01-01 UTC and can never be read back. Nothing a trainer
plans is that far: an expiry, a calendar session or a milestone lies at most `YEARS_AHEAD` years after
today, and nothing is dated before `EARLIEST` (a birth date included)."""

from __future__ import annotations

from datetime import UTC, date, datetime

YEARS_AHEAD = 5
EARLIEST = date(1900, 1, 1)


def latest_day(today: date) -> date:
    """`YEARS_AHEAD` years after `today` (28 February for a 29 February)."""
    try:
        return today.replace(year=today.year + YEARS_AHEAD)
    except ValueError:
        return today.replace(year=today.year + YEARS_AHEAD, day=28)


def out_of_reach(moment: date | datetime, now: datetime | None = None) -> str | None:
    """Why `moment` cannot be stored (a sentence fit for the user), or None when it can. A date is
    taken as the day it names; a time is compared as it is (a naive one as UTC)."""
    today = (now or datetime.now(UTC)).astimezone(UTC).date()
    latest = latest_day(today)
    if isinstance(moment, datetime):
        aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
        early = aware < datetime(EARLIEST.year, EARLIEST.month, EARLIEST.day, tzinfo=UTC)
        late = aware > datetime(latest.year, latest.month, latest.day, 23, 59, 59, tzinfo=UTC)
    else:
        early, late = moment < EARLIEST, moment > latest
    shown = (moment.date() if isinstance(moment, datetime) else moment).isoformat()
    if early:
        return f"{shown} is before {EARLIEST.isoformat()}"
    if late:
        return f"{shown} is more than {YEARS_AHEAD} years ahead (at most {latest.isoformat()})"
    return None
