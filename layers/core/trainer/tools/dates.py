"""Dates as the calendar tools (tools/calendar.py) and the training-plan tools (programs/tools.py) read
and answer them: in the user's time zone (UTC when theirs is unknown), ISO dates and datetimes in,
the user's own today for 'today'."""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainer.services.models import UserSettings
from trainer.tools.base import ToolContext, ToolError

Day = date
"""`date` under another name, for fields that are themselves called `date`."""


def user_zone(settings: UserSettings) -> ZoneInfo:
    try:
        return ZoneInfo(settings.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


async def zone_of(ctx: ToolContext) -> ZoneInfo:
    """The user's time zone, from their settings."""
    return user_zone(await ctx.user_data.settings.get())


async def local_today(ctx: ToolContext) -> date:
    """Today in the user's time zone."""
    zone = await zone_of(ctx)
    return ctx.now().astimezone(zone).date()


def parse_when(value: str, what: str, zone: ZoneInfo) -> tuple[datetime, bool]:
    """(moment, is_date_only): an ISO date means midnight in the user's zone; a naive datetime is read
    in the user's zone."""
    text = value.strip()
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), time(0), tzinfo=zone), True
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ToolError(f"{what} {text[:40]!r} is not an ISO date or datetime") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=zone)), False


def parse_day(value: str, what: str) -> date:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        raise ToolError(f"{what} {value[:40]!r} is not an ISO date") from None


def check_not_past(moment: datetime, date_only: bool, now: datetime, zone: ZoneInfo, what: str) -> None:
    """ToolError when `moment` (a day, when `date_only`) is before now in the user's zone."""
    today = now.astimezone(zone).date()
    if (date_only and moment.date() < today) or (not date_only and moment < now):
        raise ToolError(f"{what} {moment.date().isoformat()} is in the past (today is {today.isoformat()})")
