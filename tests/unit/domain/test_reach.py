"""How far from today a stored date may lie (trainer.domain.reach)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from trainer.domain.reach import EARLIEST, latest_day, out_of_reach

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def test_five_years_ahead_is_the_latest_day() -> None:
    assert latest_day(date(2026, 12, 7)) == date(2031, 12, 7)
    assert latest_day(date(2028, 2, 29)) == date(2033, 2, 28)
    assert out_of_reach(date(2031, 12, 7), NOW) is None
    too_far = out_of_reach(date(2031, 12, 8), NOW)
    assert too_far == "2031-12-08 is more than 5 years ahead (at most 2031-12-07)"


def test_a_time_past_year_9999_in_utc_is_refused_without_overflowing() -> None:
    far = datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-12)))
    assert out_of_reach(far, NOW) == "9999-12-31 is more than 5 years ahead (at most 2031-12-07)"
    assert out_of_reach(datetime(2031, 12, 7, 23, 59, tzinfo=UTC), NOW) is None


def test_nothing_is_dated_before_1900() -> None:
    assert out_of_reach(EARLIEST, NOW) is None
    assert out_of_reach(date(1899, 12, 31), NOW) == "1899-12-31 is before 1900-01-01"
    early = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14)))
    assert out_of_reach(early, NOW) == "0001-01-01 is before 1900-01-01"
    assert out_of_reach(datetime(1950, 1, 1), NOW) is None
