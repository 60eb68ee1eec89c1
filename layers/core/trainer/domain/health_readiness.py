"""Readiness from the phone's health data, in code: heart-rate variability and resting heart rate against
the person's own baseline, and last night's sleep against the person's need (docs/health-data.md#readiness).

Heart-rate variability, the way HRV-guided training reads it:
- each day's value is the mean of ln(ms) of that day's samples (ln rMSSD, or ln SDNN when the user's
  phone measures SDNN: the same method on its own series, never converted);
- the baseline is the mean and SD of the daily values of the BASELINE_DAYS (60) days before the last
  week; it needs MIN_BASELINE_DAYS (21) measured days: an SD from fewer points is too unsteady to set
  a threshold on (its relative standard error, 1/sqrt(2(n-1)), is about 16% at 21);
- the smallest worthwhile change (SWC) is half that SD; the normal range is the baseline mean +- SWC
  (Plews et al. 2012, Eur J Appl Physiol 112:3729; Plews et al. 2013, Sports Med 43:773);
- the week's signal is the 7-day rolling mean, from at least MIN_WEEK_DAYS (3) measured days of the
  last seven (Plews et al. 2014, Int J Sports Physiol Perform 9:783: three valid days a week);
- HRV is low when the 7-day mean is below the normal range and the three latest measured days are each
  below it too: a drop that has held three days and pulled the week down (Kiviniemi et al. 2007, Eur J
  Appl Physiol 101:743, lowered the day's training on HRV below the athlete's own reference). One night
  alone never lowers a day, however deep (a single reading is noisy, which is why the method averages),
  nor does a week still low from a dip the latest days have recovered from. On stable series with
  day-to-day noise alone, about one day in 500 comes out low (tests/unit/domain/test_health_readiness.py).

Resting heart rate: the same baseline of daily means; raised when the three latest measured days are
each above the baseline mean by at least the larger of one SD and RESTING_HR_MIN_RISE (3 beats a
minute), which stays above a wrist sensor's day-to-day noise (a resting or morning heart rate raised
for days above its usual, as a sign of incomplete recovery: Buchheit 2014, Front Physiol 5:73).

Sleep: last night's minutes asleep (the sessions ending today) against the person's need: their mean
over the nights of the 60 days before (at least MIN_SLEEP_NIGHTS, 14), kept within 7-9 hours, else
7 hours (adults need at least 7: Watson et al. 2015, Sleep 38:843). 1.5 hours short is one point, 3
hours short (or under 5 hours) two, on the check-in's scale (trainer.domain.readiness: under 6.5 hours
one point, under 5 two, against the usual 8).

Points: HRV low 2, resting heart rate raised 1, sleep 0-2; the level follows the check-in's mapping:
0-1 ready, 2 reduce (a lighter day), 3-5 recover. A signal without enough data says nothing; with no
signal at all the readiness is unknown (`level` None) and the check-in decides, as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal

from trainer.domain.readiness import Assessment, Level

BASELINE_DAYS = 60
WEEK_DAYS = 7
READINESS_WINDOW_DAYS = BASELINE_DAYS + WEEK_DAYS
"""The local days readiness reads: the baseline's and the last week's."""
MIN_BASELINE_DAYS = 21
MIN_WEEK_DAYS = 3
SUSTAINED_DAYS = 3
SWC_SD = 0.5
"""The smallest worthwhile change, in baseline SDs."""
RESTING_HR_MIN_RISE = 3.0
MIN_SLEEP_NIGHTS = 14
SLEEP_NEED_RANGE = (420.0, 540.0)
DEFAULT_SLEEP_NEED = 420.0
SLEEP_SHORT_MINUTES = 90.0
SLEEP_VERY_SHORT_MINUTES = 180.0
SLEEP_FLOOR_MINUTES = 300.0
HRV_POINTS = 2
RESTING_HR_POINTS = 1

HrvMeasure = Literal["rmssd", "sdnn"]
Series = Mapping[date, float]
"""One value per local day."""


@dataclass(frozen=True)
class Baseline:
    mean: float
    sd: float
    days: int

    @property
    def swc(self) -> float:
        return SWC_SD * self.sd


def baseline(values: Sequence[float], minimum: int = MIN_BASELINE_DAYS) -> Baseline | None:
    """Mean and sample SD of the values; None with fewer than `minimum` or no spread at all."""
    if len(values) < max(minimum, 2):
        return None
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return Baseline(mean, sd, len(values)) if sd > 0 else None


def baseline_window(today: date) -> tuple[date, date]:
    """The baseline's first and last day: the BASELINE_DAYS before the last week."""
    last = today - timedelta(days=WEEK_DAYS)
    return last - timedelta(days=BASELINE_DAYS - 1), last


def _between(series: Series, first: date, last: date) -> list[tuple[date, float]]:
    return sorted((d, v) for d, v in series.items() if first <= d <= last)


def _week(series: Series, today: date) -> list[tuple[date, float]]:
    return _between(series, today - timedelta(days=WEEK_DAYS - 1), today)


def _baseline_of(series: Series, today: date) -> Baseline | None:
    first, last = baseline_window(today)
    return baseline([v for _, v in _between(series, first, last)])


@dataclass(frozen=True)
class HrvSignal:
    measure: HrvMeasure
    baseline: Baseline
    """Of the daily ln values."""
    week_mean: float
    week_days: int
    days_below: int
    """Days of the week below the normal range."""
    latest_below: int
    """Of the latest SUSTAINED_DAYS measured days, how many in a row (newest first) are below it."""
    low: bool

    @property
    def name(self) -> str:
        return "HRV (RMSSD)" if self.measure == "rmssd" else "HRV (SDNN)"

    @property
    def week_ms(self) -> float:
        return math.exp(self.week_mean)

    @property
    def usual_ms(self) -> float:
        return math.exp(self.baseline.mean)

    @property
    def normal_range_ms(self) -> tuple[float, float]:
        return (
            math.exp(self.baseline.mean - self.baseline.swc),
            math.exp(self.baseline.mean + self.baseline.swc),
        )

    @property
    def reason(self) -> str:
        low, high = self.normal_range_ms
        where = (
            "below" if self.week_mean < self.baseline.mean - self.baseline.swc
            else "above" if self.week_mean > self.baseline.mean + self.baseline.swc
            else "within"
        )  # fmt: skip
        held = (
            f", below it {self.latest_below} days running"
            if self.latest_below >= SUSTAINED_DAYS
            else f", below it on {self.days_below} days this week"
            if self.days_below
            else ""
        )
        return (
            f"{self.name} averaging {self.week_ms:.0f} ms over the last week, {where} your normal range "
            f"of {low:.0f}-{high:.0f} ms{held}"
        )


def hrv_signal(series: Series, today: date, measure: HrvMeasure = "rmssd") -> HrvSignal | None:
    """`series`: the daily mean ln(ms); None without the baseline's or the week's minimum of days."""
    base = _baseline_of(series, today)
    week = _week(series, today)
    if base is None or len(week) < MIN_WEEK_DAYS:
        return None
    floor = base.mean - base.swc
    values = [v for _, v in week]
    week_mean = sum(values) / len(values)
    below = sum(v < floor for v in values)
    latest_below = 0
    for value in reversed(values[-SUSTAINED_DAYS:]):
        if value >= floor:
            break
        latest_below += 1
    low = week_mean < floor and latest_below >= SUSTAINED_DAYS
    return HrvSignal(measure, base, week_mean, len(values), below, latest_below, low)


@dataclass(frozen=True)
class RestingHrSignal:
    baseline: Baseline
    latest: tuple[float, ...]
    """The latest measured days of the week, oldest first (at most SUSTAINED_DAYS)."""
    raised: bool

    @property
    def threshold(self) -> float:
        return max(self.baseline.sd, RESTING_HR_MIN_RISE)

    @property
    def rise(self) -> float:
        return sum(self.latest) / len(self.latest) - self.baseline.mean

    @property
    def reason(self) -> str:
        usual = f"your usual {self.baseline.mean:.0f} bpm"
        if self.raised:
            return f"resting heart rate {self.rise:.0f} bpm above {usual} for {len(self.latest)} days"
        return f"resting heart rate {sum(self.latest) / len(self.latest):.0f} bpm lately, against {usual}"


def resting_hr_signal(series: Series, today: date) -> RestingHrSignal | None:
    """`series`: the daily mean bpm; None without the baseline's or the week's minimum of days."""
    base = _baseline_of(series, today)
    week = _week(series, today)
    if base is None or len(week) < MIN_WEEK_DAYS:
        return None
    latest = tuple(v for _, v in week[-SUSTAINED_DAYS:])
    threshold = max(base.sd, RESTING_HR_MIN_RISE)
    raised = len(latest) == SUSTAINED_DAYS and all(v >= base.mean + threshold for v in latest)
    return RestingHrSignal(base, latest, raised)


@dataclass(frozen=True)
class SleepSignal:
    last_night: float
    """Minutes asleep in the sessions that ended today."""
    need: float
    need_is_usual: bool
    """The need is the person's own usual sleep (else the adult minimum of 7 hours)."""

    @property
    def short_by(self) -> float:
        return max(0.0, self.need - self.last_night)

    @property
    def points(self) -> int:
        if self.short_by >= SLEEP_VERY_SHORT_MINUTES or self.last_night < SLEEP_FLOOR_MINUTES:
            return 2
        return 1 if self.short_by >= SLEEP_SHORT_MINUTES else 0

    @property
    def reason(self) -> str:
        need = need_words(self.need, self.need_is_usual)
        if self.short_by <= 0:
            return f"{hours(self.last_night)} of sleep last night, enough against {need}"
        return f"{hours(self.last_night)} of sleep last night, {hours(self.short_by)} short of {need}"


def sleep_need(nights: Series, today: date) -> tuple[float, bool]:
    """The person's need in minutes: their mean of the BASELINE_DAYS nights before today, within 7-9
    hours, from at least MIN_SLEEP_NIGHTS nights (with its source: True = their own usual)."""
    earlier = [
        v for _, v in _between(nights, today - timedelta(days=BASELINE_DAYS), today - timedelta(days=1))
    ]
    if len(earlier) < MIN_SLEEP_NIGHTS:
        return DEFAULT_SLEEP_NEED, False
    low, high = SLEEP_NEED_RANGE
    return min(high, max(low, sum(earlier) / len(earlier))), True


def sleep_signal(nights: Series, today: date) -> SleepSignal | None:
    """`nights`: minutes asleep per local day the sessions ended; None when last night is not recorded."""
    last = nights.get(today)
    if last is None:
        return None
    need, usual = sleep_need(nights, today)
    return SleepSignal(last, need, usual)


@dataclass(frozen=True)
class HealthSeries:
    """A user's daily health values around `today` (their local days)."""

    hrv_rmssd: Series = field(default_factory=dict)
    """Mean ln(ms) per day."""
    hrv_sdnn: Series = field(default_factory=dict)
    resting_hr: Series = field(default_factory=dict)
    """Mean bpm per day."""
    sleep: Series = field(default_factory=dict)
    """Minutes asleep per day the sessions ended."""


@dataclass(frozen=True)
class HealthReadiness:
    hrv: HrvSignal | None
    resting_hr: RestingHrSignal | None
    sleep: SleepSignal | None

    @property
    def has_data(self) -> bool:
        """Enough data for at least one signal."""
        return any(s is not None for s in (self.hrv, self.resting_hr, self.sleep))

    @property
    def score(self) -> int:
        return (
            (HRV_POINTS if self.hrv is not None and self.hrv.low else 0)
            + (RESTING_HR_POINTS if self.resting_hr is not None and self.resting_hr.raised else 0)
            + (self.sleep.points if self.sleep is not None else 0)
        )

    @property
    def level(self) -> Level | None:
        if not self.has_data:
            return None
        return level_of(self.score)

    @property
    def reasons(self) -> tuple[str, ...]:
        """The signs that lowered the day, in words (empty on a ready day)."""
        found: list[str] = []
        if self.hrv is not None and self.hrv.low:
            found.append(self.hrv.reason)
        if self.resting_hr is not None and self.resting_hr.raised:
            found.append(self.resting_hr.reason)
        if self.sleep is not None and self.sleep.points:
            found.append(self.sleep.reason)
        return tuple(found)

    @property
    def readings(self) -> tuple[str, ...]:
        """Every signal there is data for, in words, whatever it says."""
        return tuple(s.reason for s in (self.hrv, self.resting_hr, self.sleep) if s is not None)

    def assessment(self) -> Assessment | None:
        """As the check-in's assessment (trainer.domain.readiness), so the same adjustment applies."""
        level = self.level
        if level is None:
            return None
        return Assessment(level=level, reasons=self.reasons)


def level_of(score: int) -> Level:
    """The check-in's mapping of points to a day (trainer.domain.readiness.assess)."""
    return "ready" if score <= 1 else "reduce" if score == 2 else "recover" if score <= 5 else "rest"


def assess_health(series: HealthSeries, today: date) -> HealthReadiness:
    """Today's readiness from the series (RMSSD when it has enough data, else SDNN)."""
    hrv = hrv_signal(series.hrv_rmssd, today, "rmssd") or hrv_signal(series.hrv_sdnn, today, "sdnn")
    return HealthReadiness(
        hrv=hrv,
        resting_hr=resting_hr_signal(series.resting_hr, today),
        sleep=sleep_signal(series.sleep, today),
    )


ReadinessSource = Literal["check_in", "health_data"]


def todays_assessment(
    check_in: Assessment | None, health: HealthReadiness | None
) -> tuple[ReadinessSource | None, Assessment | None]:
    """The day's readiness: a check-in the user typed wins over the sensors for that day; the sensors
    decide when they have enough data; else there is none."""
    if check_in is not None:
        return "check_in", check_in
    assessment = health.assessment() if health is not None else None
    return ("health_data", assessment) if assessment is not None else (None, None)


def need_words(need: float, usual: bool) -> str:
    return f"your usual {hours(need)}" if usual else f"the {hours(need)} adults need"


def hours(minutes: float) -> str:
    """Minutes as hours in words: `7.5 hours`, `1 hour`, `45 minutes`."""
    if minutes < 60:
        return f"{minutes:.0f} minutes"
    value = round(minutes / 60, 1)
    return f"{value:g} hour" + ("" if value == 1 else "s")
