"""The plan-day and schedule logic on any date, in any zone: the wall clock is set by
time-machine to every kind of instant — any weekday, month and year ends, a leap day, the instants
around every DST change of the zones below — and the zones are far apart (UTC-11 to UTC+14, half- and
quarter-hour offsets, a half-hour DST). Every expectation is computed from the same controlled clock,
so the suite passes whatever the real date and the machine's zone are.

What must hold at any such instant, for a plan made then in the user's zone:
- the plan starts on the user's local today and records that day as its creation;
- each built week is seven consecutive dates from the plan's start, each named by its own weekday, the
  training days exactly the user's;
- week N is due at the local midnight of its first day, and the scheduler finds it due exactly when the
  user's local date has reached that day; each week is due 7 days after the one before (± the DST shift);
- the morning window files the zone under its local date exactly when its local hour is the morning hour;
- today's delivery is skipped only once the user's local day is over."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo

import time_machine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trainer.domain.delivery_window import delivery_time
from trainer.programs.inputs import resolve_inputs
from trainer.programs.microcycle.dates import week_dates, week_due_at
from trainer.programs.microcycle.week import build_week
from trainer.programs.models import PlanInputs, PlanRequest
from trainer.programs.plan.finalize import build_plan
from trainer.programs.schedule import morning_window, next_week_after, today_in, week_of

from tests.unit.programs.programs_fixtures import GYM

ZONES = (
    "Pacific/Kiritimati",  # UTC+14
    "Pacific/Pago_Pago",  # UTC-11: 25 hours from Kiritimati
    "Pacific/Chatham",  # +12:45 / +13:45
    "Asia/Kathmandu",  # +5:45
    "America/St_Johns",  # -3:30 with DST
    "Australia/Lord_Howe",  # a half-hour DST
    "Australia/Sydney",  # southern-hemisphere DST
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "Asia/Tokyo",
    "UTC",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
FIRST_YEAR, LAST_YEAR = 2026, 2028


@cache
def dst_changes() -> tuple[datetime, ...]:
    """Every instant (to the hour) at which one of the zones changes its UTC offset, 2026-2028."""
    found: list[datetime] = []
    for name in ZONES:
        tz = ZoneInfo(name)
        moment = datetime(FIRST_YEAR, 1, 1, tzinfo=UTC)
        offset = moment.astimezone(tz).utcoffset()
        while moment.year <= LAST_YEAR:
            moment += timedelta(hours=1)
            changed = moment.astimezone(tz).utcoffset()
            if changed != offset:
                found.append(moment)
                offset = changed
    return tuple(found)


def month_ends() -> Iterator[datetime]:
    """The last hour of every month and the first of the next, in UTC (far zones are on other dates)."""
    for year in range(FIRST_YEAR, LAST_YEAR + 1):
        for month in range(1, 13):
            first_of_next = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
            yield first_of_next - timedelta(minutes=30)
            yield first_of_next + timedelta(minutes=30)


special = st.sampled_from(
    [
        *dst_changes(),
        *(c - timedelta(minutes=30) for c in dst_changes()),
        *month_ends(),
        datetime(2028, 2, 29, 12, tzinfo=UTC),  # a leap day
        datetime(2026, 12, 31, 23, 59, tzinfo=UTC),  # a year end
    ]
)
anywhen = st.datetimes(
    min_value=datetime(FIRST_YEAR, 1, 1), max_value=datetime(LAST_YEAR, 12, 31), timezones=st.just(UTC)
)
instants = st.one_of(special, anywhen)
zones = st.sampled_from(ZONES)
day_sets = st.lists(st.sampled_from(WEEKDAYS), min_size=2, max_size=5, unique=True)
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def plan_inputs_now(zone_name: str, days: list[str], weeks: int = 4) -> tuple[datetime, PlanInputs]:
    """The plan inputs a request gets at the controlled clock's now, in the user's zone."""
    now = datetime.now(UTC)
    request = PlanRequest(weeks=weeks, days_per_week=len(days), training_days=days, experience="intermediate")
    inputs = resolve_inputs(
        request,
        now=now,
        user_settings={"timezone": zone_name},
        location={"name": "Gym", "equipment": [{"name": item} for item in GYM]},
        category_goals={"Strength": 60.0, "Hypertrophy": 40.0},
        muscle_goals={},
        active_preferences=[],
        recent=[],
        sessions=[],
    )
    return now, inputs


@PROPERTY
@given(moment=instants, zone_name=zones, days=day_sets)
def test_a_plan_made_at_any_instant_starts_on_the_users_local_today_and_its_weeks_keep_the_calendar(
    moment: datetime, zone_name: str, days: list[str]
) -> None:
    with time_machine.travel(moment, tick=False):
        now, inputs = plan_inputs_now(zone_name, days)
        local_today = now.astimezone(ZoneInfo(zone_name)).date()
        plan = build_plan(inputs)

        assert now == moment, "the code reads the controlled clock"
        assert plan.start_date == local_today == today_in(now, zone_name)
        assert plan.modification_history[0].day == local_today
        for number in (1, 2):
            week = build_week(plan, number, inputs)
            dates = [day.date for day in week.days]
            assert dates == week_dates(plan, number)
            assert dates == [local_today + timedelta(days=7 * (number - 1) + i) for i in range(7)]
            assert all(WEEKDAYS[day.date.weekday()] == day.weekday for day in week.days)
            assert {day.weekday for day in week.days if day.kind == "training"} == set(days)
            assert all(week_of(plan.start_date, d) == number for d in dates)


@PROPERTY
@given(start=instants, later=st.integers(min_value=0, max_value=60 * 24 * 40), zone_name=zones)
def test_the_scheduler_finds_a_week_due_exactly_when_its_first_local_day_has_come(
    start: datetime, later: int, zone_name: str
) -> None:
    tz = ZoneInfo(zone_name)
    start_date = today_in(start, zone_name)
    weeks = 6
    with time_machine.travel(start + timedelta(minutes=later), tick=False):
        now = datetime.now(UTC)
        local = now.astimezone(tz).date()
        previous: datetime | None = None
        for number in range(1, weeks + 1):
            due = week_due_at(start_date, number, zone_name)
            first_day = start_date + timedelta(days=7 * (number - 1))
            assert due.astimezone(tz).date() == first_day and due.astimezone(tz).time() == time(0)
            assert (due <= now) == (local >= first_day), (number, due, now)
            if previous is not None:
                gap = due - previous
                assert timedelta(days=7, hours=-1) <= gap <= timedelta(days=7, hours=1), gap
            previous = due
            following = next_week_after(number, weeks, start_date, zone_name)
            if number < weeks:
                assert following.week_number == number + 1
                assert following.due_at == week_due_at(start_date, number + 1, zone_name)
            else:
                assert following.due_at is None


@PROPERTY
@given(moment=instants, zone_name=zones, hour=st.integers(min_value=0, max_value=23))
def test_the_morning_window_and_todays_delivery_follow_the_users_local_clock(
    moment: datetime, zone_name: str, hour: int
) -> None:
    tz = ZoneInfo(zone_name)
    with time_machine.travel(moment, tick=False):
        now = datetime.now(UTC)
        local = now.astimezone(tz)
        window = morning_window(now, hour, frozenset(ZONES))
        filed = [day for day, names in window.days.items() if zone_name in names]
        assert filed == ([local.date()] if local.hour == hour else [])
        for day, names in window.days.items():
            assert all(now.astimezone(ZoneInfo(n)).date() == day for n in names)

        yesterday, today = local.date() - timedelta(days=1), local.date()
        assert delivery_time(now, tz, yesterday, hour).action == "skip"
        assert delivery_time(now, tz, today, hour).action != "skip"


def test_the_special_instants_cover_every_zones_dst_changes() -> None:
    """The sampled instants include both DST changes of each DST zone in each year."""
    changes = dst_changes()
    for name in ("Europe/London", "America/New_York", "Australia/Lord_Howe", "Pacific/Chatham"):
        tz = ZoneInfo(name)
        for year in range(FIRST_YEAR, LAST_YEAR + 1):
            in_year = [
                c
                for c in changes
                if c.year == year
                and c.astimezone(tz).utcoffset() != (c - timedelta(hours=1)).astimezone(tz).utcoffset()
            ]
            assert len(in_year) >= 2, (name, year)
