"""What the coach says about the phone's health data, computed in code (the model only relays it): the
nights of a period with their stages, the trend of HRV and resting heart rate against the person's
baseline, and other apps' workouts (docs/health-data.md#the-coach).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from trainer.domain.health_data import ASLEEP_STAGES, activity_words
from trainer.domain.health_readiness import (
    RESTING_HR_MIN_RISE,
    SWC_SD,
    WEEK_DAYS,
    Baseline,
    HealthSeries,
    Series,
    baseline,
    baseline_window,
    hours,
    need_words,
    sleep_need,
)
from trainer.domain.outside_workouts import OutsideWorkout, cardio_minutes


@dataclass(frozen=True)
class Night:
    """The sleep sessions that ended on one local day."""

    day: date
    asleep: float
    """Minutes asleep."""
    in_bed: float
    """Minutes from the first session's start to the last one's end."""
    stages: dict[str, float] = field(default_factory=dict)
    """Minutes per stage, when the sessions had stages."""


def nights_from_sessions(rows: Iterable[Mapping[str, Any]], tz: tzinfo) -> list[Night]:
    """Sleep-session rows ({start_at, end_at, value, details}) grouped by the local day they ended."""
    grouped: dict[date, list[Mapping[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["end_at"].astimezone(tz).date(), []).append(row)
    nights = []
    for day, sessions in sorted(grouped.items()):
        stages: dict[str, float] = {}
        for session in sessions:
            for stage in (session.get("details") or {}).get("stages") or []:
                minutes = (_moment(stage["end"]) - _moment(stage["start"])).total_seconds() / 60
                stages[stage["stage"]] = stages.get(stage["stage"], 0.0) + max(0.0, minutes)
        start = min(s["start_at"] for s in sessions)
        end = max(s["end_at"] for s in sessions)
        nights.append(
            Night(
                day=day,
                asleep=sum(float(s["value"]) for s in sessions),
                in_bed=(end - start).total_seconds() / 60,
                stages=stages,
            )
        )
    return nights


def _moment(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


STAGE_WORDS = {"deep": "deep", "rem": "REM"}


@dataclass(frozen=True)
class SleepSummary:
    days: int
    nights: list[Night]
    need: float
    need_is_usual: bool

    @property
    def average(self) -> float | None:
        return sum(n.asleep for n in self.nights) / len(self.nights) if self.nights else None

    def stage_share(self, stage: str) -> float | None:
        """The share of asleep time in a stage, over the nights that recorded stages."""
        staged = [n for n in self.nights if n.stages]
        asleep = sum(sum(v for k, v in n.stages.items() if k in ASLEEP_STAGES) for n in staged)
        if not staged or asleep <= 0:
            return None
        return sum(n.stages.get(stage, 0.0) for n in staged) / asleep

    def words(self) -> str:
        if not self.nights:
            return f"No sleep recorded in the last {self.days} days."
        average = self.average or 0.0
        need = need_words(self.need, self.need_is_usual)
        short = [n for n in self.nights if n.asleep < self.need - 60]
        shortest = min(self.nights, key=lambda n: n.asleep)
        longest = max(self.nights, key=lambda n: n.asleep)
        text = (
            f"{len(self.nights)} nights recorded in the last {self.days} days: {hours(average)} asleep on "
            f"average, against {need}; shortest {hours(shortest.asleep)} ({shortest.day:%A}), longest "
            f"{hours(longest.asleep)} ({longest.day:%A})"
        )
        if short:
            text += f"; {len(short)} night{'s' if len(short) != 1 else ''} more than an hour short"
        shares = [(s, self.stage_share(s)) for s in ("deep", "rem")]
        staged = [f"{share:.0%} {STAGE_WORDS[s]}" for s, share in shares if share is not None]
        if staged:
            text += f"; stages: {', '.join(staged)} sleep"
        return text + "."


def sleep_summary(nights: Sequence[Night], all_nights: Series, today: date, days: int) -> SleepSummary:
    """The nights of the last `days` days (today's included); `all_nights` minutes asleep per day over the
    need's window."""
    first = today - timedelta(days=days - 1)
    need, usual = sleep_need(all_nights, today)
    return SleepSummary(days, [n for n in nights if first <= n.day <= today], need, usual)


@dataclass(frozen=True)
class Trend:
    """A series' last week against its baseline, and the weeks of the period."""

    name: str
    unit: str
    baseline: Baseline | None
    weeks: list[tuple[date, float | None]]
    """Each 7-day window's mean ending on that day, oldest first (None: no data that week)."""
    logged: bool
    """The series is ln(value) (HRV): shown back in its unit, the range multiplicative."""

    def _shown(self, value: float) -> float:
        return math.exp(value) if self.logged else value

    def normal_range(self) -> tuple[float, float]:
        """HRV: the usual +- the smallest worthwhile change; resting heart rate: the usual +- the rise
        readiness counts (the larger of one SD and RESTING_HR_MIN_RISE)."""
        assert self.baseline is not None
        mean, sd = self.baseline.mean, self.baseline.sd
        if self.logged:
            return math.exp(mean - SWC_SD * sd), math.exp(mean + SWC_SD * sd)
        rise = max(sd, RESTING_HR_MIN_RISE)
        return mean - rise, mean + rise

    def words(self) -> str:
        known = [(d, v) for d, v in self.weeks if v is not None]
        if not known:
            return f"{self.name}: no data in this period."
        last = self._shown(known[-1][1])
        text = f"{self.name}: {last:.0f} {self.unit} on average over the last week"
        if self.baseline is None:
            return text + " (not enough earlier days for a baseline yet: 21 are needed)."
        low, high = self.normal_range()
        where = "below" if last < low else "above" if last > high else "within"
        text += (
            f", {where} your normal range of {low:.0f}-{high:.0f} {self.unit} "
            f"(your usual {self._shown(self.baseline.mean):.0f} over {self.baseline.days} days)"
        )
        if len(known) > 1:
            steps = ", ".join(f"{self._shown(v):.0f}" for _, v in known)
            text += f"; week by week: {steps}"
        return text + "."


def trend(series: Series, today: date, days: int, *, name: str, unit: str, logged: bool) -> Trend:
    """Weekly means over the last `days` days (one per 7-day window, ending today) against the baseline."""
    first, last = baseline_window(today)
    base = baseline([v for d, v in series.items() if first <= d <= last])
    weeks: list[tuple[date, float | None]] = []
    end = today
    while end > today - timedelta(days=max(days, WEEK_DAYS)):
        values = [v for d, v in series.items() if end - timedelta(days=WEEK_DAYS - 1) <= d <= end]
        weeks.append((end, sum(values) / len(values) if values else None))
        end -= timedelta(days=WEEK_DAYS)
    return Trend(name, unit, base, list(reversed(weeks)), logged)


def trends(series: HealthSeries, today: date, days: int) -> list[Trend]:
    """HRV (the measure the phone records; RMSSD first) and resting heart rate."""
    found = []
    if series.hrv_rmssd:
        found.append(trend(series.hrv_rmssd, today, days, name="HRV (RMSSD)", unit="ms", logged=True))
    if series.hrv_sdnn:
        found.append(trend(series.hrv_sdnn, today, days, name="HRV (SDNN)", unit="ms", logged=True))
    if series.resting_hr:
        found.append(
            trend(series.resting_hr, today, days, name="Resting heart rate", unit="bpm", logged=False)
        )
    return found


def workouts_words(workouts: Sequence[OutsideWorkout], today: date, tz: tzinfo, days: int) -> str:
    """Other apps' workouts of the period, newest first, with the cardio minutes they add up to."""
    if not workouts:
        return f"No workouts from other apps in the last {days} days."
    count = f"{len(workouts)} workout{'s' if len(workouts) != 1 else ''}"
    lines = [
        f"{count} from other apps in the last {days} days, {cardio_minutes(workouts):.0f} cardio minutes "
        "(they count toward a cardio goal):"
    ]
    for w in sorted(workouts, key=lambda w: w.end, reverse=True):
        extra = []
        if w.distance_m:
            extra.append(f"{w.distance_m / 1000:.1f} km")
        if w.average_heart_rate:
            extra.append(f"average heart rate {w.average_heart_rate:.0f} bpm")
        if w.energy_kcal:
            extra.append(f"{w.energy_kcal:.0f} kcal")
        day = w.end.astimezone(tz).date()
        lines.append(
            f"- {day:%a %d %b}: {activity_words(w.activity)}, {w.minutes:.0f} minutes"
            + (f" ({', '.join(extra)})" if extra else "")
            + f", from {w.source}"
        )
    return "\n".join(lines)
