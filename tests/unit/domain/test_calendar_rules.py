"""The calendar's recovery rules (trainer.domain.calendar): a change of available days and a missed
session's adaptation never put two hard sessions on consecutive days nor a session on a day the user
did not make available; examples for each way a missed session is made up."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from trainer.domain.calendar import (
    MAX_EXTRA_SETS,
    CalendarWeek,
    Slot,
    adapt_missed,
    back_to_back,
    is_hard,
    reshape_week,
    weekday_of,
    with_extra_sets,
)
from trainer.domain.weekdays import WEEKDAYS

MONDAY = date(2026, 11, 23)


def week_slots(offsets: list[int], hard: list[bool], start: date = MONDAY) -> list[Slot]:
    return [
        Slot(f"s{i}", start + timedelta(days=o), h, f"Session {i}")
        for i, (o, h) in enumerate(zip(offsets, hard, strict=False))
    ]


def test_easy_sessions_are_named_so() -> None:
    assert is_hard("training", "Upper body")
    assert not is_hard("training", "Zone 2 run")
    assert not is_hard("training", "Mobility and recovery")
    assert not is_hard("rest", "Upper body")


@settings(max_examples=200, deadline=None)
@given(
    offsets=st.lists(st.integers(0, 6), min_size=0, max_size=7, unique=True),
    hard=st.lists(st.booleans(), min_size=7, max_size=7),
    available=st.sets(st.sampled_from(WEEKDAYS), min_size=1),
)
def test_a_change_of_days_puts_sessions_only_on_available_days_never_hard_back_to_back(
    offsets: list[int], hard: list[bool], available: set[str]
) -> None:
    sessions = week_slots(sorted(offsets), hard)
    slots = [
        MONDAY + timedelta(days=n) for n in range(7) if weekday_of(MONDAY + timedelta(days=n)) in available
    ]
    result = reshape_week(sessions, slots)
    assert all(weekday_of(day) in available for day in result.placed.values())
    assert len(set(result.placed.values())) == len(result.placed)
    by_key = {s.key: s for s in sessions}
    assert not back_to_back(day for key, day in result.placed.items() if by_key[key].hard)
    assert set(result.placed) | set(result.dropped) == set(by_key)
    # easy sessions fit as long as there are days for them
    if not any(s.hard for s in sessions):
        assert len(result.dropped) == max(0, len(sessions) - len(slots))


def test_three_days_from_four_keep_the_order_and_rest_between_hard_sessions() -> None:
    sessions = week_slots([0, 1, 3, 4], [True, True, True, True])
    monday, wednesday, friday = MONDAY, MONDAY + timedelta(days=2), MONDAY + timedelta(days=4)
    result = reshape_week(sessions, [monday, wednesday, friday])
    assert result.placed == {"s0": monday, "s1": wednesday, "s2": friday}
    assert result.dropped == ["s3"]


@settings(max_examples=200, deadline=None)
@given(
    layout=st.lists(st.sampled_from(["hard", "easy", "rest"]), min_size=7, max_size=7),
    missed_hard=st.lists(st.booleans(), min_size=1, max_size=3),
    available=st.sets(st.sampled_from(WEEKDAYS), min_size=1),
)
def test_missed_sessions_never_make_hard_days_back_to_back_nor_land_on_unavailable_days(
    layout: list[str], missed_hard: list[bool], available: set[str]
) -> None:
    today = MONDAY + timedelta(days=7)
    days = [today + timedelta(days=n) for n in range(7)]
    # a valid week to start from: sessions on available days, no hard ones back to back
    upcoming = [
        Slot(f"u{n}", day, kind == "hard", kind)
        for n, (day, kind) in enumerate(zip(days, layout, strict=True))
        if kind != "rest" and weekday_of(day) in available
    ]
    hard_before = [s.day for s in upcoming if s.hard]
    if back_to_back(hard_before):
        upcoming = [s for s in upcoming if not s.hard or s.day.toordinal() % 2 == 0]
    free = [Slot(f"f{n}", day, False) for n, day in enumerate(days) if day not in {s.day for s in upcoming}]
    missed = [Slot(f"m{n}", MONDAY + timedelta(days=2 * n), h, "Missed") for n, h in enumerate(missed_hard)]
    week = CalendarWeek(upcoming=list(upcoming), free=list(free), available=available)
    changes = adapt_missed(missed, week, today)
    assert [c.missed.key for c in changes] == [m.key for m in missed]
    sessions = list(upcoming)
    for change in changes:
        if change.action == "carried":
            assert change.day is not None and weekday_of(change.day) in available
            assert change.day not in {s.day for s in sessions}
            sessions.append(Slot(change.target or "", change.day, change.missed.hard))
        if change.action == "redistributed":
            assert change.target in {s.key for s in upcoming}
    assert not back_to_back(s.day for s in sessions if s.hard)
    assert len({c.target for c in changes if c.action == "redistributed"}) == sum(
        c.action == "redistributed" for c in changes
    )


def test_a_missed_session_is_carried_to_a_free_available_day_with_rest_either_side() -> None:
    today = MONDAY + timedelta(days=7)  # Monday
    upcoming = week_slots([0, 2, 4], [True, True, True], today)  # Mon, Wed, Fri
    free = [Slot(f"f{n}", today + timedelta(days=n), False) for n in (1, 3, 5, 6)]
    week = CalendarWeek(upcoming, free, available={"Monday", "Wednesday", "Friday", "Saturday", "Sunday"})
    [change] = adapt_missed([Slot("m", MONDAY + timedelta(days=4), True, "Legs")], week, today)
    assert change.action == "carried" and change.day == today + timedelta(
        days=6
    )  # Sunday: Saturday is next to Friday


def test_with_no_free_day_the_missed_volume_goes_to_the_next_session() -> None:
    today = MONDAY + timedelta(days=7)
    upcoming = week_slots([0, 2, 4], [True, True, True], today)
    week = CalendarWeek(upcoming, [], available={"Monday", "Wednesday", "Friday"})
    changes = adapt_missed(
        [
            Slot("a", MONDAY + timedelta(days=2), True, "Upper"),
            Slot("b", MONDAY + timedelta(days=4), True, "Lower"),
        ],
        week,
        today,
    )
    assert [(c.action, c.target) for c in changes] == [("redistributed", "s0"), ("redistributed", "s1")]


def test_a_session_missed_long_ago_changes_nothing() -> None:
    today = MONDAY + timedelta(days=14)
    week = CalendarWeek(week_slots([0], [True], today), [], available=set(WEEKDAYS))
    [change] = adapt_missed([Slot("old", MONDAY, True, "Upper")], week, today)
    assert change.action == "none"


def test_extra_sets_go_on_the_main_work_only_and_stay_consistent() -> None:
    workout = {
        "title": "Upper",
        "exercises": [
            {"order": 1, "exercise_name": "Walk", "exercise_type": "duration", "group": {"type": "warmup"}},
            {"order": 2, "exercise_name": "Bench", "exercise_type": "reps", "sets": 3, "reps": [8, 8, 8],
             "load_each": [40, 40, 40]},
            {"order": 3, "exercise_name": "Plank", "exercise_type": "hold", "sets": 3,
             "hold_sec": [30, 30, 30]},
            {"order": 4, "exercise_name": "Row", "exercise_type": "reps", "sets": MAX_EXTRA_SETS,
             "reps": [10] * MAX_EXTRA_SETS},
        ],
    }  # fmt: skip
    changed, names = with_extra_sets(workout)
    assert names == ["Bench", "Plank"]
    bench, plank, row = changed["exercises"][1:]
    assert bench["sets"] == 4 and bench["reps"] == [8, 8, 8, 8] and bench["load_each"] == [40] * 4
    assert plank["hold_sec"] == [30] * 4
    assert row["sets"] == MAX_EXTRA_SETS
    assert workout["exercises"][1]["sets"] == 3
