"""The vocabulary of the phone's health data (docs/health-data.md): the kinds of sample the app sends
from Apple HealthKit or Android Health Connect, the unit each is kept in, the type of data a user
consents to per kind, the sleep stages and workout activities, and the bounds a sample must keep.

Heart-rate variability stays as measured: HealthKit measures SDNN, Health Connect RMSSD; the two are
different statistics of the beat-to-beat intervals (SDNN over the whole recording, RMSSD of successive
differences), so each kind is kept, baselined and shown under its own name and never converted.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

SampleKind = Literal["hrv_sdnn", "hrv_rmssd", "resting_heart_rate", "sleep_session", "steps", "workout"]
SAMPLE_KINDS: tuple[SampleKind, ...] = (
    "hrv_sdnn", "hrv_rmssd", "resting_heart_rate", "sleep_session", "steps", "workout",
)  # fmt: skip
DataType = Literal["heart_rate_variability", "resting_heart_rate", "sleep", "steps", "workouts"]
DATA_TYPES: tuple[DataType, ...] = (
    "heart_rate_variability",
    "resting_heart_rate",
    "sleep",
    "steps",
    "workouts",
)
Platform = Literal["healthkit", "health_connect"]
Unit = Literal["ms", "bpm", "min", "count"]

DATA_TYPE_OF: dict[SampleKind, DataType] = {
    "hrv_sdnn": "heart_rate_variability",
    "hrv_rmssd": "heart_rate_variability",
    "resting_heart_rate": "resting_heart_rate",
    "sleep_session": "sleep",
    "steps": "steps",
    "workout": "workouts",
}
"""The consent each kind of sample needs."""
KINDS_OF: dict[DataType, tuple[SampleKind, ...]] = {
    data_type: tuple(k for k in SAMPLE_KINDS if DATA_TYPE_OF[k] == data_type) for data_type in DATA_TYPES
}
UNIT_OF: dict[SampleKind, Unit] = {
    "hrv_sdnn": "ms",
    "hrv_rmssd": "ms",
    "resting_heart_rate": "bpm",
    "sleep_session": "min",
    "steps": "count",
    "workout": "min",
}
"""The one unit each kind is sent and kept in: a sleep session's value is its minutes asleep, a
workout's its duration in minutes."""
PLATFORMS_OF: dict[SampleKind, tuple[Platform, ...]] = {
    "hrv_sdnn": ("healthkit",),
    "hrv_rmssd": ("health_connect",),
    "resting_heart_rate": ("healthkit", "health_connect"),
    "sleep_session": ("healthkit", "health_connect"),
    "steps": ("healthkit", "health_connect"),
    "workout": ("healthkit", "health_connect"),
}
"""HealthKit has no RMSSD type and Health Connect no SDNN record: each HRV kind comes from one platform."""
VALUE_RANGE: dict[SampleKind, tuple[float, float]] = {
    "hrv_sdnn": (1.0, 500.0),
    "hrv_rmssd": (1.0, 500.0),
    "resting_heart_rate": (20.0, 250.0),
    "sleep_session": (0.0, 1440.0),
    "steps": (0.0, 100_000.0),
    "workout": (0.0, 1440.0),
}
"""What a sample's value may be (inclusive): far wider than any person, narrow enough to refuse a
value in the wrong unit (seconds for milliseconds) or a broken sensor."""
MAX_SPAN = timedelta(hours=24)
"""The longest a sample may last (a sleep session, a workout, one day's steps)."""
RETENTION_DAYS = 400
"""Samples are kept this many days after they end, then deleted (the hourly schedule)."""
FUTURE_SLACK = timedelta(hours=24)
"""How far past the server's clock a sample may end (a phone's clock that runs ahead)."""

SleepStage = Literal["awake", "asleep", "light", "deep", "rem", "in_bed", "out_of_bed"]
"""Health Connect's stages as they are (`asleep` for SLEEPING and unknown sleep; `light` is its
LIGHT, HealthKit's asleepCore); HealthKit's sleep analysis values map onto them (docs/health-data.md)."""
ASLEEP_STAGES: frozenset[str] = frozenset({"asleep", "light", "deep", "rem"})
MAX_STAGES = 300

Activity = Literal[
    "running", "walking", "hiking", "cycling", "swimming", "rowing", "elliptical", "stair_climbing",
    "skiing", "strength_training", "hiit", "yoga", "pilates", "dance", "team_sport", "racket_sport",
    "martial_arts", "other",
]  # fmt: skip
CARDIO_ACTIVITIES: frozenset[str] = frozenset(
    {
        "running", "walking", "hiking", "cycling", "swimming", "rowing", "elliptical", "stair_climbing",
        "skiing", "hiit", "dance", "team_sport", "racket_sport",
    }
)  # fmt: skip
"""Activities whose minutes count toward a cardio (endurance) goal."""
LONG_LEG_MINUTES: dict[str, float] = {
    "running": 45.0,
    "hiking": 90.0,
    "cycling": 90.0,
    "stair_climbing": 30.0,
    "skiing": 120.0,
    "team_sport": 60.0,
}
"""Activities that load the legs, and the minutes from which one session is long enough to lower the
next day's leg volume (about the leg work of a 45-minute run)."""

ACTIVITY_WORDS: dict[str, str] = {
    "running": "run",
    "walking": "walk",
    "hiking": "hike",
    "cycling": "ride",
    "swimming": "swim",
    "rowing": "row",
    "skiing": "ski session",
    "stair_climbing": "stair climb",
    "strength_training": "strength training",
    "hiit": "HIIT",
    "team_sport": "team sport",
    "racket_sport": "racket sport",
    "martial_arts": "martial arts",
    "other": "workout",
}


def activity_words(activity: str) -> str:
    """An activity as a user reads it, a noun (`running` -> `run`, `stair_climbing` -> `stair climb`)."""
    return ACTIVITY_WORDS.get(activity, activity.replace("_", " "))
