"""A phone's health data as the app sends it (`POST /health/samples`, docs/health-data.md): days of Health
Connect (or HealthKit) samples with a known shape, for the integration and e2e tests, the scenarios and
bench/bench_health.py.

Each day has HRV samples through the night (ln rMSSD around 4.3, about 74 ms, with a day-to-day SD of
0.12), a resting heart rate (about 52 bpm), a sleep session with its stages (about 7.5 hours asleep),
steps in five-minute buckets through the waking hours, and a run every third day. `hrv_drop_days` puts
the latest days' HRV 2 SD under the usual (the rest of that week at the usual); `long_run_yesterday` adds
a 62-minute run yesterday evening. A 90-day first sync is about 20,000 samples, the figure a phone
reading HealthKit's raw step samples sends.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from typing import Any

from trainer.domain.health_data import DATA_TYPES, Platform
from trainer.services.health import SampleRow
from trainer.services.user_data import UserDataService
from trainer.store.db import Database

HRV_LEVEL = 4.3
HRV_DAY_SD = 0.12
HRV_DROP_SD = 2.0
WEEK = 7
RESTING_HR = 52.0
STEP_DAY_MINUTES = 1050
"""Steps are recorded from 06:00 to 23:30."""


@dataclass(frozen=True)
class PhoneHealthData:
    """The shape of a phone's days of health data."""

    days: int = 90
    platform: Platform = "health_connect"
    seed: int = 33
    hrv_drop_days: int = 0
    long_run_yesterday: bool = False
    steps: bool = True
    step_minutes: int = 5
    """One steps sample per this many minutes: 5 is about what a phone's raw step samples come to, 60 the
    hourly sums an app can send instead."""

    @property
    def hrv_kind(self) -> str:
        return "hrv_rmssd" if self.platform == "health_connect" else "hrv_sdnn"

    def samples(self, now: datetime, tz: tzinfo) -> list[dict[str, Any]]:
        """Every sample of the `days` local days ending with the last night before `now` (today's, from
        05:00 local), none ending after `now`, oldest first."""
        kept = [s for s in self._all(now, tz) if datetime.fromisoformat(s["end"]) <= now]
        return sorted(kept, key=lambda s: s["end"])

    def rows(self, now: datetime, tz: tzinfo) -> list[SampleRow]:
        """The samples as trainer.services.health stores them (for seeding without the API)."""
        return [
            SampleRow(
                sample_id=s["sample_id"],
                kind=s["type"],
                start_at=datetime.fromisoformat(s["start"]),
                end_at=datetime.fromisoformat(s["end"]),
                value=s["value"],
                unit=s["unit"],
                source=s["source"],
                details={"stages": s["stages"]} if "stages" in s else s.get("workout"),
            )
            for s in self.samples(now, tz)
        ]

    async def store(self, db: Database, user_id: str, now: datetime, tz: tzinfo) -> int:
        """Every type consented to and the samples stored, as a synced phone leaves them: how many."""
        health = UserDataService(db).for_user(user_id).health
        await health.set_consents(dict.fromkeys(DATA_TYPES, True))
        rows = self.rows(now, tz)
        stored = 0
        for start in range(0, len(rows), 1000):
            outcome = await health.store(self.platform, rows[start : start + 1000])
            stored += outcome.stored
        return stored

    def batches(self, now: datetime, tz: tzinfo, size: int = 1000) -> Iterator[dict[str, Any]]:
        """The samples as request bodies of at most `size`."""
        samples = self.samples(now, tz)
        for start in range(0, len(samples), size):
            yield {"platform": self.platform, "samples": samples[start : start + size]}

    def _all(self, now: datetime, tz: tzinfo) -> Iterator[dict[str, Any]]:
        rng = random.Random(self.seed)
        local = now.astimezone(tz)
        today = local.date()
        last = today if local.time() >= time(5) else today - timedelta(days=1)
        if self.long_run_yesterday:
            yield self._run(
                "long-run", datetime.combine(today - timedelta(days=1), time(19), tzinfo=tz), 62, rng
            )
        for back in range(self.days - 1, -1, -1):
            day = last - timedelta(days=back)
            midnight = datetime.combine(day, time(0), tzinfo=tz)
            level = HRV_LEVEL + rng.gauss(0, HRV_DAY_SD)
            if back < self.hrv_drop_days:
                level = HRV_LEVEL - HRV_DROP_SD * HRV_DAY_SD
            elif self.hrv_drop_days and back < WEEK:
                level = HRV_LEVEL  # the rest of the week as usual: the drop alone moves its mean
            for hour in (1, 2, 3, 4):
                at = midnight + timedelta(hours=hour, minutes=rng.randint(0, 50))
                yield self._sample(
                    self.hrv_kind, f"{day}-hrv-{hour}", at, at, math.exp(level + rng.gauss(0, 0.02)), "ms"
                )
            wake = midnight + timedelta(hours=6, minutes=rng.randint(0, 40))
            yield self._sample(
                "resting_heart_rate", f"{day}-rhr", wake, wake, RESTING_HR + rng.gauss(0, 1.2), "bpm"
            )
            yield self._sleep(day.isoformat(), wake - timedelta(minutes=500), wake, rng)
            if self.steps:
                span = timedelta(minutes=self.step_minutes)
                for bucket in range(STEP_DAY_MINUTES // self.step_minutes):
                    start = midnight + timedelta(hours=6) + bucket * span
                    if start + span > now:
                        break
                    count = float(rng.randint(0, 24 * self.step_minutes))
                    yield self._sample("steps", f"{day}-steps-{bucket}", start, start + span, count, "count")
            if back % 3 == 2:
                yield self._run(f"{day}-run", midnight + timedelta(hours=18), rng.randint(30, 40), rng)

    def _sample(
        self, kind: str, sample_id: str, start: datetime, end: datetime, value: float, unit: str
    ) -> dict[str, Any]:
        return {
            "type": kind,
            "sample_id": sample_id,
            "start": start.isoformat(),
            "end": end.isoformat(),
            "value": round(value, 2),
            "unit": unit,
            "source": "Pixel Watch" if self.platform == "health_connect" else "Apple Watch",
        }

    def _sleep(self, day: str, start: datetime, end: datetime, rng: random.Random) -> dict[str, Any]:
        stages = []
        at = start
        for stage, minutes in (("light", 95), ("deep", 70), ("rem", 40), ("awake", 10), ("light", 120),
                               ("deep", 45), ("rem", 60), ("light", 60)):  # fmt: skip
            until = min(end, at + timedelta(minutes=minutes))
            stages.append({"stage": stage, "start": at.isoformat(), "end": until.isoformat()})
            at = until
        asleep = (end - start).total_seconds() / 60 - 10 - rng.randint(0, 25)
        return {**self._sample("sleep_session", f"{day}-sleep", start, end, asleep, "min"), "stages": stages}

    def _run(self, sample_id: str, start: datetime, minutes: int, rng: random.Random) -> dict[str, Any]:
        """A run of `minutes` from `start` recorded by Strava."""
        end = start + timedelta(minutes=minutes)
        return {
            **self._sample("workout", sample_id, start, end, float(minutes), "min"),
            "source": "Strava",
            "workout": {
                "activity": "running",
                "distance_m": float(minutes * 190),
                "average_heart_rate": float(140 + rng.randint(0, 15)),
                "energy_kcal": float(minutes * 11),
            },
        }
