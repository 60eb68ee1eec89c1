"""Other apps' workouts as training load (trainer.domain.outside_workouts), in memory: a long run yesterday
lowers today's leg volume and nothing else; cardio minutes count toward the cardio goals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from trainer.domain.distribution import distribution_report
from trainer.domain.outside_workouts import (
    OutsideWorkout,
    cardio_minutes,
    lighten_legs,
    long_leg_sessions,
    with_outside_cardio,
)
from trainer.domain.readiness import workout_volume

from tests.unit.domain.health_fixtures import WORKOUT

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 7, 30, tzinfo=BERLIN)
TODAY = NOW.date()


def run(minutes: float, ended: datetime, activity: str = "running") -> OutsideWorkout:
    return OutsideWorkout(
        activity=activity,
        start=ended - timedelta(minutes=minutes),
        end=ended,
        minutes=minutes,
        source="Strava",
        distance_m=minutes * 200,
    )


YESTERDAY_EVENING = datetime(2026, 3, 1, 19, 0, tzinfo=BERLIN)


def test_yesterdays_long_run_lowers_todays_leg_volume_only() -> None:
    sessions = long_leg_sessions([run(62, YESTERDAY_EVENING)], TODAY, BERLIN, NOW)
    adjusted = lighten_legs(WORKOUT, sessions, TODAY, BERLIN)
    squat, bench = adjusted.workout.exercises
    assert squat.sets == 3 and squat.reps == [6, 6, 6] and squat.load_each == [100, 100, 100]
    assert bench == WORKOUT.exercises[1]
    assert workout_volume(adjusted.workout).at_most(workout_volume(WORKOUT))
    assert adjusted.changes == [
        "cut a third of the sets of Barbell Back Squat after yesterday's 62-minute run (12.4 km, Strava), so "
        "your legs get some rest"
    ]


@pytest.mark.parametrize(
    "workout",
    [
        run(30, YESTERDAY_EVENING),  # too short to count
        run(62, YESTERDAY_EVENING - timedelta(days=2)),  # three days ago
        run(62, YESTERDAY_EVENING, activity="swimming"),  # not a leg session
        run(62, NOW + timedelta(hours=3)),  # not ended yet
    ],
)
def test_short_old_upper_body_or_future_sessions_change_nothing(workout: OutsideWorkout) -> None:
    sessions = long_leg_sessions([workout], TODAY, BERLIN, NOW)
    assert sessions == []
    assert lighten_legs(WORKOUT, sessions, TODAY, BERLIN).workout == WORKOUT


def test_a_long_ride_counts_from_90_minutes() -> None:
    assert long_leg_sessions([run(89, YESTERDAY_EVENING, "cycling")], TODAY, BERLIN, NOW) == []
    assert long_leg_sessions([run(95, YESTERDAY_EVENING, "cycling")], TODAY, BERLIN, NOW)


def test_yesterday_is_the_users_local_yesterday() -> None:
    """23:30 UTC on 28 February is already 1 March in Berlin: yesterday there, on 2 March."""
    late = datetime(2026, 2, 28, 23, 30, tzinfo=UTC)
    assert long_leg_sessions([run(60, late)], TODAY, BERLIN, NOW)
    assert not long_leg_sessions([run(60, late)], TODAY, ZoneInfo("America/New_York"), NOW)


def test_cardio_minutes_count_toward_the_cardio_goal() -> None:
    """60 minutes of running elsewhere are three exercises' worth of cardio: the debt the composer
    balances shrinks, and a strength-only goal gets nothing."""
    goals = {"Strength": 60.0, "Cardio": 40.0}
    totals = {"Strength": 12.0, "Cardio": 2.0}
    workouts = [run(60, YESTERDAY_EVENING), run(45, YESTERDAY_EVENING, "yoga")]
    minutes = cardio_minutes(workouts)
    assert minutes == 60
    counted = with_outside_cardio(totals, goals, minutes)
    assert counted == {"Strength": 12.0, "Cardio": 5.0}
    before = {r.name: r.debt for r in distribution_report(goals, totals)}
    after = {r.name: r.debt for r in distribution_report(goals, counted)}
    assert after["Cardio"] < before["Cardio"]
    assert with_outside_cardio(totals, {"Strength": 100.0}, minutes) == totals
