"""Counting workouts the way the user lived them: a logged workout, else one local calendar day.

The fixture is a user in New York (UTC-5 in winter, UTC-4 from 8 March 2026), worked out by hand:

| # | local time (New York)   | UTC              | ids                   | workout (local)           |
|---|-------------------------|------------------|-----------------------|---------------------------|
| 1 | Mon 5 Jan 18:00         | 5 Jan 23:00      | session s1            | A: day 5 Jan              |
| 2 | Mon 5 Jan 23:30         | 6 Jan 04:30      | session s1            | A (the next UTC day)      |
| 3 | Wed 7 Jan 07:00         | 7 Jan 12:00      | session s1            | B: day 7 Jan (same chat)  |
| 4 | Wed 7 Jan 18:00         | 7 Jan 23:00      | s2 / workout_1        | C                         |
| 5 | Wed 7 Jan 18:20         | 7 Jan 23:20      | s2 / workout_1        | C                         |
| 6 | Wed 7 Jan 20:00         | 8 Jan 01:00      | s2 / workout_2        | D (second that day)       |
| 7 | Sat 31 Jan 23:30        | 1 Feb 04:30      | session s4            | E: day 31 Jan             |
| 8 | Tue 10 Feb 00:30        | 10 Feb 05:30     | s3 / workout_1        | F (another chat's)        |
| 9 | Tue 10 Feb 23:59        | 11 Feb 04:59     | session s3            | G: day 10 Feb             |
| 10| Sun 8 Mar 23:30 (EDT)   | 9 Mar 03:30      | none                  | H: day 8 Mar              |
| 11| Mon 9 Mar 06:00 (EDT)   | 9 Mar 10:00      | none                  | I: day 9 Mar              |

9 workouts in all (grouping by workout id, else session, as before, made 6 of them);
January 5, February 2, March 2.
Weeks (Monday starts, local): 5 Jan: A B C D = 4; 26 Jan: E = 1; 9 Feb: F G = 2; 2 Mar: H = 1; 9 Mar: I = 1.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from trainer.domain.statistics import (
    period_range,
    progress_trends,
    stats_summary,
    weekly_hard_sets,
    workout_statistics,
)
from trainer.domain.workout_grouping import count_workouts, local_day, week_label, workout_key

NEW_YORK = ZoneInfo("America/New_York")


def row(utc: str, session: str | None = None, workout: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "performed_at": utc,
        "exercise_name": extra.pop("name", "Goblet Squat"),
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 10, 10],
        "load_each": [20, 20, 20],
        "load_unit": "kg",
        "muscles": [{"muscle": "Quadriceps", "share": 1.0}],
        "session_id": session,
        "workout_id": workout,
        **extra,
    }


ROWS = [
    row("2026-01-05T23:00:00Z", "s1"),
    row("2026-01-06T04:30:00Z", "s1"),
    row("2026-01-07T12:00:00Z", "s1"),
    row("2026-01-07T23:00:00Z", "s2", "workout_1"),
    row("2026-01-07T23:20:00Z", "s2", "workout_1"),
    row("2026-01-08T01:00:00Z", "s2", "workout_2"),
    row("2026-02-01T04:30:00Z", "s4"),
    row("2026-02-10T05:30:00Z", "s3", "workout_1"),
    row("2026-02-11T04:59:00Z", "s3"),
    row("2026-03-09T03:30:00Z"),
    row("2026-03-09T10:00:00Z"),
]


def test_local_days_cross_utc_midnight() -> None:
    assert local_day("2026-01-06T04:30:00Z", NEW_YORK) == date(2026, 1, 5)
    assert local_day("2026-03-09T03:30:00Z", NEW_YORK) == date(2026, 3, 8)
    assert local_day("2026-03-09T03:30:00Z", UTC) == date(2026, 3, 9)


def test_a_workout_is_a_logged_workout_else_a_local_day() -> None:
    assert count_workouts(ROWS, NEW_YORK) == 9
    assert workout_key(ROWS[0], NEW_YORK) == workout_key(ROWS[1], NEW_YORK)
    assert workout_key(ROWS[1], NEW_YORK) != workout_key(ROWS[2], NEW_YORK)  # one chat, two days
    assert workout_key(ROWS[3], NEW_YORK) == workout_key(ROWS[4], NEW_YORK)
    assert workout_key(ROWS[4], NEW_YORK) != workout_key(ROWS[5], NEW_YORK)  # two workouts, one day
    assert workout_key(ROWS[3], NEW_YORK) != workout_key(ROWS[7], NEW_YORK)  # workout_1 of two chats
    # in UTC, #1 and #2 fall on different days and #10 and #11 on one
    assert count_workouts(ROWS, UTC) == 9
    assert workout_key(ROWS[9], UTC) == workout_key(ROWS[10], UTC)


def test_statistics_count_workouts_per_local_month() -> None:
    total = workout_statistics(ROWS, None, None, "kg", NEW_YORK)
    assert total["total_workouts"] == 9 and total["total_exercises"] == 11
    january = workout_statistics(ROWS, date(2026, 1, 1), date(2026, 1, 31), "kg", NEW_YORK)
    assert (january["total_workouts"], january["total_exercises"]) == (5, 7)
    # 31 local days = 4.43 weeks: 5 / 4.43
    assert january["workouts_per_week"] == pytest.approx(1.13, abs=0.005)
    assert january["start"] == "2026-01-01T00:00:00-05:00"
    february = workout_statistics(ROWS, date(2026, 2, 1), date(2026, 2, 28), "kg", NEW_YORK)
    assert (february["total_workouts"], february["total_exercises"]) == (2, 2)
    march = workout_statistics(ROWS, date(2026, 3, 1), date(2026, 3, 31), "kg", NEW_YORK)
    assert march["total_workouts"] == 2
    in_utc = workout_statistics(ROWS, date(2026, 1, 1), date(2026, 1, 31), "kg", UTC)
    assert (in_utc["total_workouts"], in_utc["total_exercises"]) == (5, 6)  # #7 is 1 Feb in UTC


def test_periods_start_at_local_midnight() -> None:
    now = datetime(2026, 3, 9, 12, 0, tzinfo=UTC)  # 08:00 in New York
    start, end = period_range("week", now, NEW_YORK)
    assert start == datetime(2026, 3, 3, 0, 0, tzinfo=NEW_YORK) and end == now
    assert start is not None and start.astimezone(UTC) == datetime(2026, 3, 3, 5, 0, tzinfo=UTC)
    month, _ = period_range("month", now, UTC)
    assert month == datetime(2026, 2, 8, 0, 0, tzinfo=UTC)
    assert period_range("all_time", now, NEW_YORK) == (None, now)


def test_weeks_are_local_mondays() -> None:
    weeks = weekly_hard_sets(ROWS, NEW_YORK)
    assert {w: s["Quadriceps"] for w, s in weeks.items()} == {
        date(2026, 1, 5): 18,
        date(2026, 1, 26): 3,
        date(2026, 2, 9): 6,
        date(2026, 3, 2): 3,
        date(2026, 3, 9): 3,
    }
    frequency = progress_trends(ROWS, "frequency", period="year", now=datetime(2026, 3, 9, 12, tzinfo=UTC),
                                tz=NEW_YORK)  # fmt: skip
    assert [(s["week_start"], s["value"]) for s in frequency["series"]] == [
        ("2026-01-05", 4), ("2026-01-26", 1), ("2026-02-09", 2), ("2026-03-02", 1), ("2026-03-09", 1),
    ]  # fmt: skip


def test_summary_counts_local_workouts() -> None:
    text = stats_summary(ROWS, date(2026, 1, 1), date(2026, 1, 31), "kg", ["overview"], tz=NEW_YORK)
    assert text.startswith("Overview: 5 workouts (1.13/week), 7 exercises")


def test_weeks_read_as_dates() -> None:
    assert week_label(date(2026, 11, 16)) == "week of 16 Nov"
    assert week_label(date(2025, 12, 29), with_year=True) == "week of 29 Dec 2025"


def test_only_iana_place_names_are_time_zones() -> None:
    from trainer.domain.workout_grouping import is_iana_zone

    for name in ("Europe/Berlin", "UTC", "Asia/Kathmandu", "Pacific/Chatham", "America/Argentina/Cordoba"):
        assert is_iana_zone(name), name
    for name in (
        "localtime",
        "posixrules",
        "Factory",
        "posix/UTC",
        "right/UTC",
        "",
        "../etc/passwd",
        "Mars/Olympus",
    ):
        assert not is_iana_zone(name), name
