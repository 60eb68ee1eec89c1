"""When the pipeline acts, in the user's local time: the week a day falls in, when the next week is due
(its local midnight, across time zones and DST), the failed-build back-off, and the zones whose local
time is the morning hour (DST, half-hour offsets, the date line). Also a change's effect on what a week
is built from, and the function events' parsing."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from trainer.domain.equipment import missing_equipment
from trainer.jobs.programs import (
    InvalidProgramEvent,
    PlanRequestedDetail,
    WeekDueDetail,
    parse_detail,
    parse_schedule,
)
from trainer.programs.changes import ChangeError, WeekChange, apply_change, find_location, plan_on_days
from trainer.programs.microcycle.week import build_week
from trainer.programs.plan.finalize import build_plan
from trainer.programs.schedule import (
    RETRY_MAX,
    known_zones,
    morning_window,
    next_week_after,
    retry_at,
    today_in,
    week_of,
)

from tests.unit.programs.programs_fixtures import inputs

MONDAY = date(2026, 3, 2)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def test_week_of_counts_from_the_plan_start() -> None:
    assert week_of(MONDAY, MONDAY - timedelta(days=1)) == 0
    assert week_of(MONDAY, MONDAY) == 1
    assert week_of(MONDAY, MONDAY + timedelta(days=6)) == 1
    assert week_of(MONDAY, MONDAY + timedelta(days=7)) == 2
    assert week_of(date(2026, 3, 4), date(2026, 3, 10)) == 1, "weeks run from the start's weekday"


def test_today_is_the_users_local_day() -> None:
    assert today_in(utc(2026, 3, 1, 23, 30), "Europe/Berlin") == date(2026, 3, 2)
    assert today_in(utc(2026, 3, 2, 3, 0), "America/Los_Angeles") == date(2026, 3, 1)


@pytest.mark.parametrize(
    ("timezone", "start", "week", "due"),
    [
        # Berlin goes to summer time on Sunday 29 March 2026: midnight is 23:00Z before it, 22:00Z after.
        ("Europe/Berlin", date(2026, 3, 16), 2, utc(2026, 3, 22, 23, 0)),
        ("Europe/Berlin", date(2026, 3, 16), 3, utc(2026, 3, 29, 22, 0)),
        # New York goes to summer time on Sunday 8 March 2026.
        ("America/New_York", MONDAY, 2, utc(2026, 3, 9, 4, 0)),
        ("America/New_York", date(2026, 2, 23), 2, utc(2026, 3, 2, 5, 0)),
        # Auckland leaves summer time on Sunday 5 April 2026 (+13 -> +12).
        ("Pacific/Auckland", date(2026, 3, 30), 2, utc(2026, 4, 5, 12, 0)),
        ("Asia/Kolkata", MONDAY, 2, utc(2026, 3, 8, 18, 30)),
        ("UTC", MONDAY, 4, utc(2026, 3, 23, 0, 0)),
    ],
)
def test_the_next_week_is_due_at_the_local_midnight_that_starts_it(
    timezone: str, start: date, week: int, due: datetime
) -> None:
    following = next_week_after(week - 1, 12, start, timezone)
    assert following.week_number == week
    assert following.due_at == due


def test_after_the_last_week_nothing_is_due() -> None:
    last = next_week_after(12, 12, MONDAY, "UTC")
    assert (last.week_number, last.due_at) == (13, None)


def test_a_failed_week_is_retried_later_and_later_up_to_a_cap() -> None:
    now = utc(2026, 3, 9, 4, 0)
    delays = [retry_at(now, attempts) - now for attempts in range(1, 8)]
    assert delays[:4] == [timedelta(hours=h) for h in (1, 2, 4, 8)]
    assert delays[-1] == RETRY_MAX and sorted(delays) == delays


@pytest.mark.parametrize(
    ("now", "zone", "included", "day"),
    [
        (utc(2026, 3, 7, 11, 0), "America/New_York", True, date(2026, 3, 7)),  # EST: 06:00
        (utc(2026, 3, 8, 11, 0), "America/New_York", False, None),  # EDT: 07:00
        (utc(2026, 3, 8, 10, 0), "America/New_York", True, date(2026, 3, 8)),  # EDT: 06:00
        (utc(2026, 3, 2, 1, 0), "Asia/Kolkata", True, date(2026, 3, 2)),  # 06:30
        (utc(2026, 3, 2, 0, 0), "Asia/Kolkata", False, None),  # 05:30
        (utc(2026, 3, 1, 16, 0), "Pacific/Kiritimati", True, date(2026, 3, 2)),  # +14: tomorrow already
        (
            utc(2026, 3, 1, 16, 0),
            "Pacific/Honolulu",
            True,
            date(2026, 3, 1),
        ),  # -10: the same hour, a day earlier
        (utc(2026, 3, 2, 17, 0), "Pacific/Pago_Pago", True, date(2026, 3, 2)),  # -11
        (utc(2026, 3, 2, 6, 59), "UTC", True, date(2026, 3, 2)),
        (utc(2026, 3, 2, 7, 0), "UTC", False, None),
    ],
)
def test_the_morning_is_the_morning_hour_in_each_zone(
    now: datetime, zone: str, included: bool, day: date | None
) -> None:
    window = morning_window(now, 6)
    assert (zone in window.zones) is included
    if included:
        assert day is not None and zone in window.days[day]


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC)))
def test_every_zone_in_its_morning_is_filed_under_its_local_date(now: datetime) -> None:
    window = morning_window(now, 6)
    assert len(window.days) <= 2, "zones in the same hour are at most a day apart"
    for day, zones in window.days.items():
        for zone in zones:
            local = now.astimezone(ZoneInfo(zone))
            assert (local.hour, local.date()) == (6, day)


def test_each_zone_gets_exactly_one_morning_in_a_day_of_hourly_runs() -> None:
    runs = [utc(2026, 3, 8, 0, 0) + timedelta(hours=h) for h in range(-14, 36)]
    hits: dict[str, list[date]] = {}
    for run in runs:
        for day, zones in morning_window(run, 6).days.items():
            for zone in zones:
                hits.setdefault(zone, []).append(day)
    for zone in (
        "America/New_York",
        "Europe/London",
        "Asia/Kolkata",
        "Pacific/Kiritimati",
        "Pacific/Honolulu",
    ):
        assert hits[zone].count(date(2026, 3, 8)) == 1, zone
    assert "UTC" in known_zones()


def test_a_morning_needs_an_aware_time_and_a_real_hour() -> None:
    with pytest.raises(ValueError):
        morning_window(datetime(2026, 3, 2, 6, 0), 6)
    with pytest.raises(ValueError):
        morning_window(utc(2026, 3, 2, 6, 0), 24)


# --- changes --------------------------------------------------------------------------------------


def test_a_week_change_is_validated_and_cleaned() -> None:
    change = WeekChange(reason="  travelling  ", equipment=[" dumbbells ", "", "dumbbells"], avoid=["lunges"])
    assert change.reason == "travelling" and change.equipment == ["dumbbells"]
    for bad in (
        {"reason": ""},
        {"reason": "x" * 301},
        {"reason": "x", "session_minutes": 5},
        {"reason": "x", "extra": 1},
    ):
        with pytest.raises(ValidationError):
            WeekChange.model_validate(bad)


def test_equipment_session_length_and_avoidances_change_the_inputs() -> None:
    base = inputs()
    changed = apply_change(
        base,
        WeekChange(
            reason="hotel", equipment=["dumbbells", "treadmill"], session_minutes=30, avoid=["lunges"]
        ),
    )
    assert changed.equipment == ["bodyweight", "dumbbell", "treadmill"]
    assert changed.session_minutes == 30 and changed.location_items == []
    assert {"type": "workout", "description": "Avoid lunges", "temporary": True} in changed.preferences
    assert {"type": "time", "description": "30 minutes per session", "temporary": True} in changed.preferences
    assert base.equipment != changed.equipment, "the original inputs are untouched"


def test_a_saved_location_brings_its_equipment() -> None:
    saved = [
        {"name": "Home Gym", "equipment": [{"name": "Dumbbells", "weights": [5, 10]}, {"name": "Bench"}]},
        {"name": "Office", "equipment": []},
    ]
    location = find_location(saved, "home gym")
    changed = apply_change(inputs(), WeekChange(reason="at home", location="home gym"), location)
    assert changed.equipment == ["bench", "bodyweight", "dumbbell"]
    assert changed.location_name == "Home Gym" and changed.location_items[0]["weights"] == [5, 10]
    with pytest.raises(ChangeError, match="Home Gym, Office"):
        find_location(saved, "Hotel")


def test_a_week_built_under_hotel_equipment_uses_nothing_else() -> None:
    base = inputs()
    plan = build_plan(base)
    hotel = ["dumbbells", "bench"]
    week = build_week(plan, 2, apply_change(base, WeekChange(reason="hotel", equipment=hotel)))
    usual = build_week(plan, 2, base)
    used = [e.equipment for d in week.days if d.workout for e in d.workout.exercises]
    assert used and all(not missing_equipment(items, hotel) for items in used)
    assert any(
        missing_equipment(e.equipment, hotel) for d in usual.days if d.workout for e in d.workout.exercises
    )


def test_moving_a_week_to_other_days_moves_the_day_patterns_in_order() -> None:
    plan = build_plan(inputs())
    moved = plan_on_days(plan, ["Saturday", "Wednesday", "Sunday"])
    assert moved.training_days == ["Wednesday", "Saturday", "Sunday"]
    for before, after in zip(plan.microcycles, moved.microcycles, strict=True):
        assert [p.weekday for p in after.weekly_pattern] == ["Wednesday", "Saturday", "Sunday"]
        assert [p.focus for p in after.weekly_pattern] == [p.focus for p in before.weekly_pattern][:3]
    assert plan_on_days(plan, plan.training_days) is plan
    week = build_week(moved, 1, inputs(training_days=["Wednesday", "Saturday", "Sunday"]))
    assert [d.weekday for d in week.days if d.kind == "training"] == ["Wednesday", "Saturday", "Sunday"]


# --- the functions' events ------------------------------------------------------------------------


def test_events_parse_from_an_envelope_or_a_bare_detail() -> None:
    detail = {
        "user_id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        "plan_id": "5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
    }
    assert parse_detail(
        {"detail-type": "PlanRequested", "detail": detail}, "PlanRequested", PlanRequestedDetail
    )
    due = parse_detail({**detail, "week_number": 3}, "WeekDue", WeekDueDetail)
    assert due.week_number == 3
    run = parse_schedule({"run": "daily", "at": "2026-03-02T05:00:00"})
    assert run.moment() == utc(2026, 3, 2, 5, 0), "no offset: UTC"


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ("not an object", "expected an EventBridge event object"),
        ({"detail-type": "TurnCompleted", "detail": {}}, "unexpected detail-type"),
        ({"detail-type": "WeekDue", "detail": {"user_id": "x", "plan_id": "y", "week_number": 2}}, "user_id"),
        ({"detail": {"user_id": str(uuid.uuid4()), "plan_id": str(uuid.uuid4())}}, "week_number"),
    ],
)
def test_a_malformed_event_is_refused_for_good(event: object, problem: str) -> None:
    with pytest.raises(InvalidProgramEvent, match=problem):
        parse_detail(event, "WeekDue", WeekDueDetail)


def test_a_schedule_input_names_its_run() -> None:
    for bad in ({"run": "weekly"}, {}, [], {"run": "hourly", "at": "yesterday"}):
        with pytest.raises(InvalidProgramEvent):
            parse_schedule(bad)
