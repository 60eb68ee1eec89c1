"""The HTTP contract of the phone's health data (docs/health-data.md): a batch of samples from HealthKit or
Health Connect (`POST /health/samples`), the consent per type (`GET`/`PUT /health/consent`) and what is
stored (`GET /health/status`). Conventions as everywhere in the API: response models list every field;
request bodies are trainer.api.inputs.RequestBody (unknown fields and values of another JSON type than
the schema's refused; control, bidirectional and zero-width characters dropped from every text before
its own limits apply).

A sample the contract refuses makes the whole batch `422 invalid_request`, with the failing field's path
(`samples.12.value`) in `details`: a batch is stored whole or not at all.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Self

from pydantic import Field, StrictBool, StrictFloat, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from trainer.api.inputs import VISIBLE_PATTERN, IsoDatetime, RequestBody
from trainer.api.schemas import ResponseModel
from trainer.domain.health_data import (
    FUTURE_SLACK,
    MAX_SPAN,
    MAX_STAGES,
    PLATFORMS_OF,
    RETENTION_DAYS,
    UNIT_OF,
    VALUE_RANGE,
    Activity,
    DataType,
    Platform,
    SampleKind,
    SleepStage,
    Unit,
)

MAX_BATCH = 1000
"""Samples in one request: a 90-day first sync (about 20,000 samples) is about 20 requests."""
SAMPLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:\-]*$"
SOURCE_PATTERN = VISIBLE_PATTERN
"""Some visible character (the invisible ones are dropped before the pattern applies)."""
SPAN_TOLERANCE_MINUTES = 1.0


class SleepStageInterval(RequestBody):
    stage: SleepStage
    start: IsoDatetime
    end: IsoDatetime


def _not_null(value: Any) -> Any:
    """A field is given with a value or left out: null is not a value here."""
    if value is None:
        raise ValueError("leave the field out rather than send null")
    return value


Figure = Annotated[float, Field(strict=True)]
Omitted = SkipJsonSchema[None]
"""A field the body may leave out (null is not a value here)."""


class WorkoutDetails(RequestBody):
    activity: Activity
    distance_m: Annotated[Figure, Field(ge=0, le=1_000_000)] | Omitted = None
    average_heart_rate: Annotated[Figure, Field(ge=20, le=250, description="bpm")] | Omitted = None
    energy_kcal: Annotated[Figure, Field(ge=0, le=20_000, description="Active kcal.")] | Omitted = None

    _given = field_validator("*", mode="before")(_not_null)


class HealthSample(RequestBody):
    """One sample, as the platform recorded it. `value` in the type's one `unit`: `ms` for heart-rate
    variability (`hrv_sdnn` from HealthKit, `hrv_rmssd` from Health Connect, each kept as measured),
    `bpm` for resting heart rate, `min` asleep for a sleep session (with its `stages`), `count` for steps,
    `min` of duration for a workout from another app (with `workout`). It starts at most 400 days back
    and ends at most a day ahead, lasts at most 24 hours, and `start` <= `end`."""

    type: SampleKind
    sample_id: str = Field(
        min_length=1,
        max_length=128,
        pattern=SAMPLE_ID_PATTERN,
        description="The platform's own id (HealthKit's UUID, Health Connect's metadata id): a sample "
        "sent again under the same id is stored once.",
    )
    start: IsoDatetime
    end: IsoDatetime
    value: StrictFloat = Field(ge=0)
    unit: Unit
    source: str = Field(
        min_length=1,
        max_length=200,
        pattern=SOURCE_PATTERN,
        description="The app or device that recorded it (HealthKit's source name, Health Connect's data "
        "origin package).",
    )
    stages: Annotated[list[SleepStageInterval], Field(max_length=MAX_STAGES)] | SkipJsonSchema[None] = Field(
        default=None, description="`sleep_session` only: the session's stages, in order."
    )
    workout: WorkoutDetails | SkipJsonSchema[None] = Field(
        default=None, description="`workout` only (and required there)."
    )

    _given = field_validator("stages", "workout", mode="before")(_not_null)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        kind = self.type
        if self.unit != UNIT_OF[kind]:
            raise ValueError(f"a {kind} sample is in {UNIT_OF[kind]}, not {self.unit}")
        low, high = VALUE_RANGE[kind]
        if not low <= self.value <= high:
            raise ValueError(f"a {kind} value must be between {low:g} and {high:g} {UNIT_OF[kind]}")
        if self.end < self.start:
            raise ValueError("end is before start")
        if self.end - self.start > MAX_SPAN:
            raise ValueError("a sample lasts at most 24 hours")
        now = datetime.now(UTC)
        if self.start < now - timedelta(days=RETENTION_DAYS):
            raise ValueError(
                f"start is more than {RETENTION_DAYS} days ago (samples are kept {RETENTION_DAYS} days)"
            )
        if self.end > now + FUTURE_SLACK:
            raise ValueError("end is more than a day ahead")
        minutes = (self.end - self.start).total_seconds() / 60
        if kind in ("sleep_session", "workout") and self.value > minutes + SPAN_TOLERANCE_MINUTES:
            raise ValueError(f"{self.value:g} minutes do not fit between start and end")
        if self.stages is not None:
            if kind != "sleep_session":
                raise ValueError("stages belong to a sleep_session")
            for stage in self.stages:
                if stage.end < stage.start or stage.start < self.start or stage.end > self.end:
                    raise ValueError("each stage lies within its session, start before end")
        if (self.workout is not None) != (kind == "workout"):
            raise ValueError("a workout sample needs `workout`; no other sample takes it")
        return self

    def details(self) -> dict[str, Any] | None:
        """What the sample keeps beside its value: the stages, or the workout's activity and figures."""
        if self.stages is not None:
            return {"stages": [s.model_dump(mode="json") for s in self.stages]}
        if self.workout is not None:
            return self.workout.model_dump(mode="json", exclude_none=True)
        return None


class HealthSampleBatch(RequestBody):
    """At most 1,000 samples of one platform (and at most 2,000,000 bytes: `413 body_too_large`)."""

    platform: Platform
    samples: list[HealthSample] = Field(min_length=1, max_length=MAX_BATCH)

    @model_validator(mode="after")
    def _of_the_platform(self) -> Self:
        for index, sample in enumerate(self.samples):
            if self.platform not in PLATFORMS_OF[sample.type]:
                raise ValueError(f"samples.{index}: {self.platform} does not record {sample.type}")
        return self


class HealthSamplesStored(ResponseModel):
    received: int
    stored: int = Field(description="New samples.")
    duplicates: int = Field(description="Samples already stored under their id (or sent twice): unchanged.")


class HealthConsent(ResponseModel):
    data_type: DataType
    granted: bool
    changed_at: datetime | None = Field(description="When the answer last changed; null: never asked.")


class HealthConsentResponse(ResponseModel):
    consents: list[HealthConsent] = Field(description="Every type of health data.")
    deleted_samples: int = Field(description="Samples this request deleted (consents withdrawn).")


class HealthConsentUpdate(RequestBody):
    """The types to grant (`true`) or withdraw (`false`); at least one. Withdrawing deletes every stored
    sample of the type at once; the others stay as they are."""

    model_config = RequestBody.model_config | {"json_schema_extra": {"minProperties": 1}}

    heart_rate_variability: StrictBool | SkipJsonSchema[None] = None
    resting_heart_rate: StrictBool | SkipJsonSchema[None] = None
    sleep: StrictBool | SkipJsonSchema[None] = None
    steps: StrictBool | SkipJsonSchema[None] = None
    workouts: StrictBool | SkipJsonSchema[None] = None

    _given = field_validator("*", mode="before")(_not_null)

    @model_validator(mode="after")
    def _something(self) -> Self:
        if not self.grants():
            raise ValueError("give at least one type")
        return self

    def grants(self) -> dict[DataType, bool]:
        return {k: v for k, v in self.model_dump().items() if v is not None}  # type: ignore[misc]


class StoredKind(ResponseModel):
    type: SampleKind
    samples: int
    newest_end: datetime = Field(description="Where the phone's next sync may start.")


class HealthStatus(ResponseModel):
    consents: list[HealthConsent]
    stored: list[StoredKind] = Field(description="Per type with samples stored.")
    retention_days: int = Field(description="Samples are deleted this many days after they end.")
