"""When the day's workout may reach the user: at or after their morning hour, outside their quiet hours,
on the local day it is for — in every time zone, across DST changes (a property test), and in the cases
a person would check by hand."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trainer.domain.delivery_window import DeliveryTime, QuietHours, delivery_time, instant

NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
ZONES = sorted(z for z in available_timezones() if not z.startswith(("posix/", "right/")))


def at(zone: ZoneInfo, *args: int) -> datetime:
    return datetime(*args, tzinfo=zone).astimezone(UTC)  # type: ignore[misc]


def test_at_the_morning_hour_it_goes_now() -> None:
    now = at(BERLIN, 2026, 3, 2, 6, 0)
    assert delivery_time(now, BERLIN, date(2026, 3, 2), 6) == DeliveryTime("send")


def test_before_the_morning_hour_it_waits_for_it_in_the_users_zone() -> None:
    now = datetime(2026, 3, 2, 5, 30, tzinfo=UTC)  # 00:30 in New York
    timing = delivery_time(now, NEW_YORK, date(2026, 3, 2), 7)
    assert timing.action == "defer" and timing.reason == "before_morning"
    assert timing.not_before == at(NEW_YORK, 2026, 3, 2, 7, 0) == datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def test_in_quiet_hours_it_waits_for_their_end() -> None:
    quiet = QuietHours(time(5, 0), time(8, 30))
    timing = delivery_time(at(BERLIN, 2026, 3, 2, 6, 0), BERLIN, date(2026, 3, 2), 6, quiet)
    assert (timing.action, timing.reason, timing.not_before) == (
        "defer",
        "quiet_hours",
        at(BERLIN, 2026, 3, 2, 8, 30),
    )


def test_quiet_hours_over_midnight_hold_the_early_morning() -> None:
    quiet = QuietHours(time(22, 0), time(7, 0))
    assert quiet.wraps and quiet.contains(time(23, 0)) and quiet.contains(time(6, 59))
    assert not quiet.contains(time(7, 0)) and not quiet.contains(time(21, 59))
    timing = delivery_time(at(BERLIN, 2026, 3, 2, 6, 0), BERLIN, date(2026, 3, 2), 6, quiet)
    assert timing.not_before == at(BERLIN, 2026, 3, 2, 7, 0)


def test_a_late_event_in_evening_quiet_hours_is_skipped_for_the_day() -> None:
    quiet = QuietHours(time(21, 0), time(7, 0))
    timing = delivery_time(at(BERLIN, 2026, 3, 2, 22, 0), BERLIN, date(2026, 3, 2), 6, quiet)
    assert timing == DeliveryTime("skip", reason="quiet_hours")


def test_a_day_that_is_over_is_skipped_and_one_that_has_not_begun_waits() -> None:
    now = at(BERLIN, 2026, 3, 3, 0, 30)
    assert delivery_time(now, BERLIN, date(2026, 3, 2), 6) == DeliveryTime("skip", reason="day_over")
    early = delivery_time(now, BERLIN, date(2026, 3, 4), 6)
    assert early.action == "defer" and early.not_before == at(BERLIN, 2026, 3, 4, 6, 0)


def test_a_morning_hour_a_dst_change_skips_is_the_instant_after_the_gap() -> None:
    # 2026-03-08: New York springs forward at 02:00 to 03:00.
    timing = delivery_time(datetime(2026, 3, 8, 5, 0, tzinfo=UTC), NEW_YORK, date(2026, 3, 8), 2)
    assert timing.not_before == datetime(2026, 3, 8, 7, 0, tzinfo=UTC)
    assert timing.not_before.astimezone(NEW_YORK).time() == time(3, 0)


def test_quiet_hours_must_have_a_length() -> None:
    with pytest.raises(ValueError):
        QuietHours(time(7, 0), time(7, 0))
    with pytest.raises(ValueError):
        delivery_time(datetime(2026, 3, 2, 5, 0), BERLIN, date(2026, 3, 2), 6)


def quiet_at(moment: datetime, zone: ZoneInfo, quiet: QuietHours | None) -> bool:
    return quiet is not None and quiet.contains(moment.astimezone(zone).time())


minutes = st.integers(min_value=0, max_value=24 * 60 - 1)


@st.composite
def quiet_hours(draw: st.DrawFn) -> QuietHours | None:
    if draw(st.booleans()):
        return None
    start, end = draw(minutes), draw(minutes)
    if start == end:
        return None
    return QuietHours(time(start // 60, start % 60), time(end // 60, end % 60))


@settings(max_examples=400, deadline=None)
@given(
    zone_name=st.sampled_from(ZONES),
    now=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2037, 12, 31), timezones=st.just(UTC)
    ),
    morning=st.integers(min_value=0, max_value=23),
    quiet=quiet_hours(),
    offset=st.sampled_from([-1, 0, 0, 0, 1]),
)
def test_every_delivery_lands_on_its_day_after_the_morning_outside_quiet_hours_as_early_as_it_can(
    zone_name: str, now: datetime, morning: int, quiet: QuietHours | None, offset: int
) -> None:
    zone = ZoneInfo(zone_name)
    day = now.astimezone(zone).date() + timedelta(days=offset)
    earliest = instant(day, time(morning), zone)
    timing = delivery_time(now, zone, day, morning, quiet)

    if timing.action == "send":
        assert now >= earliest
        assert now.astimezone(zone).date() == day
        assert not quiet_at(now, zone, quiet)
        return
    if timing.action == "defer":
        moment = timing.not_before
        assert moment is not None and moment > now and moment >= earliest
        assert moment.astimezone(zone).date() == day, "never pushed into another day"
        assert not quiet_at(moment, zone, quiet)
        start = max(now, earliest)
        assert timing.reason == ("quiet_hours" if quiet_at(start, zone, quiet) else "before_morning")
        # Nothing earlier qualifies: every minute from the first possible moment until then is quiet.
        step = max(timedelta(minutes=1), (moment - start) / 200)
        probe = start
        while probe < moment - timedelta(seconds=1):
            assert quiet_at(probe, zone, quiet) or probe < earliest, probe
            probe += step
        return
    if timing.reason == "day_over":
        assert now.astimezone(zone).date() > day
        return
    assert timing.reason == "quiet_hours"
    end_of_day = instant(day + timedelta(days=1), time(0), zone)
    probe, step = max(now, earliest), timedelta(minutes=7)
    while probe < end_of_day:
        assert quiet_at(probe, zone, quiet), f"{probe} is outside quiet hours but the day was skipped"
        probe += step
