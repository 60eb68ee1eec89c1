"""Readiness from the phone's health data (trainer.domain.health_readiness), on example series built
after the published HRV-guided-training studies, in memory:

- Plews DJ, Laursen PB, Kilding AE, Buchheit M (2012). Heart rate variability in elite triathletes, is
  variation in variability the key to effective training? A case comparison. Eur J Appl Physiol
  112:3729-3741. 77 days of daily ln rMSSD of two athletes: the 7-day rolling mean of the control athlete
  stayed flat (slope +0.01 a week), that of the athlete who became non-functionally overreached slid
  (slope -0.17 a week) toward the race.
- Plews DJ, Laursen PB, Stanley J, Kilding AE, Buchheit M (2013). Training adaptation and heart rate
  variability in elite endurance athletes: opening the door to effective monitoring. Sports Med
  43:773-781. The 7-day rolling mean of ln rMSSD read against the athlete's own baseline, with a
  smallest worthwhile change (SWC) of 0.5 x its SD.
- Plews DJ, Laursen PB, Le Meur Y, et al. (2014). Monitoring training with heart-rate variability: how
  much compliance is needed for valid assessment? Int J Sports Physiol Perform 9:783-790. At least three
  valid measurements a week.
- Kiviniemi AM, Hautala AJ, Kinnunen H, Tulppo MP (2007). Endurance training guided individually by daily
  heart rate variability measurements. Eur J Appl Physiol 101:743-751. Training lowered when HRV fell
  below the athlete's own reference.

The series use the studies' shapes and slopes; their level (ln rMSSD 4.3, about 74 ms) and day-to-day
SD (0.12 ln units) are illustrative, drawn from a seeded generator so every run sees the same days.
"""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

import pytest
from trainer.domain.catalog import load_catalog
from trainer.domain.health_readiness import (
    MIN_BASELINE_DAYS,
    HealthSeries,
    assess_health,
    baseline_window,
    hrv_signal,
    resting_hr_signal,
    sleep_signal,
    todays_assessment,
)
from trainer.domain.readiness import CheckIn, adjust_workout, assess, workout_volume

from tests.unit.domain.health_fixtures import WORKOUT

TODAY = date(2026, 3, 2)
DAYS = 77
"""Plews et al. 2012 followed the athletes for 77 days."""
LEVEL = 4.3
DAY_SD = 0.12
CONTROL_SLOPE = 0.01 / 7
"""Per day: the control athlete's +0.01 a week (Plews et al. 2012)."""
NFOR_SLOPE = -0.17 / 7
"""Per day: the overreached athlete's -0.17 a week (Plews et al. 2012)."""


def days_back(n: int) -> date:
    return TODAY - timedelta(days=n)


def series(values: dict[int, float]) -> dict[date, float]:
    """{days back: value} as {day: value}."""
    return {days_back(n): v for n, v in values.items()}


def control_athlete(seed: int = 2012) -> dict[int, float]:
    """77 days of ln rMSSD, flat (+0.01 a week) with day-to-day noise: days back -> value."""
    rng = random.Random(seed)
    return {n: LEVEL + CONTROL_SLOPE * (DAYS - n) + rng.gauss(0, DAY_SD) for n in range(DAYS)}


def base_sd(values: dict[int, float]) -> float:
    first, last = baseline_window(TODAY)
    window = [v for n, v in values.items() if first <= days_back(n) <= last]
    mean = sum(window) / len(window)
    return math.sqrt(sum((v - mean) ** 2 for v in window) / (len(window) - 1))


def base_mean(values: dict[int, float]) -> float:
    first, last = baseline_window(TODAY)
    window = [v for n, v in values.items() if first <= days_back(n) <= last]
    return sum(window) / len(window)


def with_last_days(values: dict[int, float], shifts: dict[int, float]) -> dict[int, float]:
    """The series with the days `shifts` names (days back) set to the baseline mean plus a shift in SDs."""
    mean, sd = base_mean(values), base_sd(values)
    changed = dict(values)
    for n, shift in shifts.items():
        changed[n] = mean + shift * sd
    return changed


def the_days_in_the_middle(values: dict[int, float]) -> dict[int, float]:
    """Days 1-3 back and today set at the baseline mean: a quiet week but for what a test shifts."""
    return with_last_days(values, {n: 0.0 for n in range(7)})


# --- heart-rate variability ----------------------------------------------------------------------------


def test_a_stable_baseline_gives_neutral_readiness() -> None:
    """Plews et al. 2012's control athlete: a flat 7-day mean stays within the normal range."""
    readiness = assess_health(HealthSeries(hrv_rmssd=series(control_athlete())), TODAY)
    assert readiness.hrv is not None and not readiness.hrv.low
    assert readiness.level == "ready" and readiness.reasons == ()
    assert "below your normal range" not in readiness.hrv.reason


def test_a_stable_baseline_rarely_lowers_a_day_whatever_the_days_noise() -> None:
    """Day-to-day noise alone lowers about one day in 500 (three days in a row below -0.5 SD, about 3%
    of days, and the week's mean below with them); over 60 stable series of 14 days each, at most 1%."""
    lowered = total = 0
    for seed in range(60):
        values = control_athlete(seed)
        for back in range(14):
            shifted = {n - back: v for n, v in values.items() if n >= back}
            lowered += assess_health(HealthSeries(hrv_rmssd=series(shifted)), TODAY).level != "ready"
            total += 1
    assert lowered / total <= 0.01, f"{lowered} of {total} stable days lowered"


def test_a_drop_beyond_the_smallest_worthwhile_change_for_three_days_gives_a_lighter_day() -> None:
    """Three days each 1.5 SD under the baseline (three times the SWC of 0.5 SD, Plews et al. 2013) pull
    the 7-day mean below the normal range: the day is lighter, and the check-in's adjustment makes the
    workout so (Kiviniemi et al. 2007 lowered training on HRV below the reference)."""
    values = with_last_days(the_days_in_the_middle(control_athlete()), {2: -1.5, 1: -1.5, 0: -1.5})
    readiness = assess_health(HealthSeries(hrv_rmssd=series(values)), TODAY)
    assert readiness.hrv is not None and readiness.hrv.low and readiness.hrv.latest_below == 3
    assert readiness.level == "reduce"
    assert "below it 3 days running" in readiness.reasons[0]
    assessment = readiness.assessment()
    assert assessment is not None
    adjusted = adjust_workout(WORKOUT, assessment, catalog=load_catalog(), available=None)
    before, after = workout_volume(WORKOUT), workout_volume(adjusted.workout)
    assert after.sets < before.sets and after.tonnage < before.tonnage
    assert adjusted.changes and "HRV (RMSSD)" in adjusted.changes[0]


def test_a_drop_just_inside_the_smallest_worthwhile_change_changes_nothing() -> None:
    values = with_last_days(the_days_in_the_middle(control_athlete()), {2: -0.4, 1: -0.4, 0: -0.4})
    readiness = assess_health(HealthSeries(hrv_rmssd=series(values)), TODAY)
    assert readiness.hrv is not None and not readiness.hrv.low and readiness.level == "ready"


def test_a_drop_of_one_sd_lowers_the_day_once_the_week_is_below_the_range() -> None:
    """The 7-day mean's inertia (Plews et al. 2013): 1 SD under for three days is 3/7 SD on the week,
    still within the SWC; the fourth day takes the week below it."""
    quiet = the_days_in_the_middle(control_athlete())
    three = assess_health(HealthSeries(hrv_rmssd=series(with_last_days(quiet, {2: -1, 1: -1, 0: -1}))), TODAY)
    four = with_last_days(quiet, {3: -1.0, 2: -1.0, 1: -1.0, 0: -1.0})
    assert three.level == "ready"
    assert assess_health(HealthSeries(hrv_rmssd=series(four)), TODAY).level == "reduce"


@pytest.mark.parametrize("depth", [-1.0, -2.0, -4.0, -6.0])
def test_an_outlier_night_does_not_lower_the_day(depth: float) -> None:
    """One night far below the range (a late night, a drink) moves the 7-day mean (by a seventh of
    its depth) but is one day: the day stays as planned."""
    values = with_last_days(the_days_in_the_middle(control_athlete()), {0: depth})
    readiness = assess_health(HealthSeries(hrv_rmssd=series(values)), TODAY)
    assert readiness.hrv is not None and not readiness.hrv.low
    assert readiness.level == "ready"


def test_an_outlier_night_earlier_in_the_week_does_not_either() -> None:
    values = with_last_days(the_days_in_the_middle(control_athlete()), {3: -6.0})
    assert assess_health(HealthSeries(hrv_rmssd=series(values)), TODAY).level == "ready"


def test_a_week_still_low_from_a_dip_the_latest_day_recovered_from_is_not_lowered() -> None:
    values = with_last_days(the_days_in_the_middle(control_athlete()), {3: -2.0, 2: -2.0, 1: -2.0, 0: 0.0})
    readiness = assess_health(HealthSeries(hrv_rmssd=series(values)), TODAY)
    assert readiness.hrv is not None and readiness.hrv.week_mean < readiness.hrv.baseline.mean - 0.5 * (
        readiness.hrv.baseline.sd
    )
    assert readiness.hrv.latest_below == 0 and not readiness.hrv.low


def test_the_overreached_athletes_slide_lowers_the_day() -> None:
    """Plews et al. 2012's overreached athlete: after six stable weeks the 7-day mean slides at -0.17 a
    week; three weeks into the slide the week is below the range on most days."""
    rng = random.Random(2012)
    values = {
        n: LEVEL + (NFOR_SLOPE * (21 - n) if n < 21 else 0.0) + rng.gauss(0, DAY_SD) for n in range(DAYS)
    }
    readiness = assess_health(HealthSeries(hrv_rmssd=series(values)), TODAY)
    assert readiness.hrv is not None and readiness.hrv.low and readiness.level == "reduce"
    assert readiness.hrv.week_mean < readiness.hrv.baseline.mean - readiness.hrv.baseline.swc


def test_the_control_athlete_over_the_same_three_weeks_is_never_lowered() -> None:
    values = control_athlete(2012)
    for back in range(0, 3 * 7):
        shifted = {n - back: v for n, v in values.items() if n >= back}
        assert assess_health(HealthSeries(hrv_rmssd=series(shifted)), TODAY).level == "ready", back


def test_three_measured_days_a_week_are_enough_two_are_not() -> None:
    """Plews et al. 2014: three valid days a week."""
    full = with_last_days(the_days_in_the_middle(control_athlete()), {4: -1.5, 2: -1.5, 0: -1.5})
    three = {n: v for n, v in full.items() if n >= 7 or n in (4, 2, 0)}
    signal = hrv_signal(series(three), TODAY)
    assert signal is not None and signal.week_days == 3 and signal.low
    two = {n: v for n, v in three.items() if n != 4}
    assert hrv_signal(series(two), TODAY) is None
    assert assess_health(HealthSeries(hrv_rmssd=series(two)), TODAY).level is None


def test_a_baseline_needs_21_measured_days() -> None:
    first, last = baseline_window(TODAY)
    values = control_athlete()
    in_window = sorted(n for n in values if first <= days_back(n) <= last)
    recent = {n: v for n, v in values.items() if n < 7}
    enough = {**recent, **{n: values[n] for n in in_window[:MIN_BASELINE_DAYS]}}
    short = {**recent, **{n: values[n] for n in in_window[: MIN_BASELINE_DAYS - 1]}}
    assert hrv_signal(series(enough), TODAY) is not None
    assert hrv_signal(series(short), TODAY) is None


def test_sdnn_is_read_on_its_own_series_and_rmssd_first() -> None:
    """HealthKit's SDNN and Health Connect's RMSSD are never converted: each is baselined on its own,
    named as measured; RMSSD, the measure of the studies, is read when it has enough data."""
    sdnn_values = {n: v - 0.5 for n, v in control_athlete(7).items()}  # about 45 ms
    sdnn_only = assess_health(HealthSeries(hrv_sdnn=series(sdnn_values)), TODAY)
    assert sdnn_only.hrv is not None and sdnn_only.hrv.measure == "sdnn"
    assert "HRV (SDNN)" in sdnn_only.hrv.reason and 40 <= sdnn_only.hrv.usual_ms <= 50
    both = assess_health(
        HealthSeries(hrv_rmssd=series(control_athlete()), hrv_sdnn=series(sdnn_values)), TODAY
    )
    assert both.hrv is not None and both.hrv.measure == "rmssd" and 65 <= both.hrv.usual_ms <= 85


# --- resting heart rate and sleep -------------------------------------------------------------------------


def resting(seed: int = 5) -> dict[int, float]:
    rng = random.Random(seed)
    return {n: 52 + rng.gauss(0, 1.5) for n in range(DAYS)}


def test_a_resting_heart_rate_raised_three_days_adds_a_point() -> None:
    values = {**resting(), 2: 59.0, 1: 60.0, 0: 58.0}
    signal = resting_hr_signal(series(values), TODAY)
    assert signal is not None and signal.raised and 5 <= signal.rise <= 8
    readiness = assess_health(HealthSeries(resting_hr=series(values)), TODAY)
    assert readiness.score == 1 and readiness.level == "ready"
    assert "above your usual 52 bpm for 3 days" in readiness.resting_hr.reason  # type: ignore[union-attr]


def test_a_resting_heart_rate_raised_within_the_noise_is_not_raised() -> None:
    values = {**resting(), 2: 54.0, 1: 54.5, 0: 54.0}
    signal = resting_hr_signal(series(values), TODAY)
    assert signal is not None and not signal.raised


def test_hrv_low_and_resting_heart_rate_raised_make_a_recovery_day() -> None:
    hrv = with_last_days(the_days_in_the_middle(control_athlete()), {2: -1.5, 1: -1.5, 0: -1.5})
    rhr = {**resting(), 2: 59.0, 1: 60.0, 0: 58.0}
    readiness = assess_health(HealthSeries(hrv_rmssd=series(hrv), resting_hr=series(rhr)), TODAY)
    assert readiness.score == 3 and readiness.level == "recover" and len(readiness.reasons) == 2


def usual_sleep(minutes: float = 480.0) -> dict[int, float]:
    rng = random.Random(11)
    return {n: minutes + rng.gauss(0, 20) for n in range(1, 40)}


@pytest.mark.parametrize(
    ("last_night", "points"), [(470.0, 0), (380.0, 1), (290.0, 2), (330.0, 1), (270.0, 2)]
)
def test_sleep_counts_against_the_persons_usual_need(last_night: float, points: int) -> None:
    signal = sleep_signal(series({**usual_sleep(), 0: last_night}), TODAY)
    assert signal is not None and signal.need_is_usual and 460 <= signal.need <= 500
    assert signal.points == points


def test_the_sleep_need_stays_within_seven_to_nine_hours_and_defaults_to_seven() -> None:
    long_sleeper = sleep_signal(series({**usual_sleep(620.0), 0: 600.0}), TODAY)
    assert long_sleeper is not None and long_sleeper.need == 540.0
    newcomer = sleep_signal(series({0: 400.0, 1: 420.0}), TODAY)
    assert newcomer is not None and not newcomer.need_is_usual and newcomer.need == 420.0
    assert newcomer.points == 0


def test_no_data_at_all_is_no_readiness() -> None:
    readiness = assess_health(HealthSeries(), TODAY)
    assert not readiness.has_data and readiness.level is None and readiness.assessment() is None


# --- the check-in wins ------------------------------------------------------------------------------------


def test_a_check_in_wins_over_the_sensors_for_the_day() -> None:
    hrv = with_last_days(the_days_in_the_middle(control_athlete()), {2: -1.5, 1: -1.5, 0: -1.5})
    sensed = assess_health(HealthSeries(hrv_rmssd=series(hrv)), TODAY)
    typed = assess(CheckIn(sleep_hours=8, energy=5))
    assert todays_assessment(typed, sensed) == ("check_in", typed)
    source, assessment = todays_assessment(None, sensed)
    assert source == "health_data" and assessment is not None and assessment.level == "reduce"
    assert todays_assessment(None, assess_health(HealthSeries(), TODAY)) == (None, None)
