"""The HTTP contract of readiness check-ins (docs/api.md#readiness): POST /readiness stores one, GET
/readiness lists the recent ones with today's computed readiness."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from trainer.api.inputs import RequestBody
from trainer.api.schemas import NON_BLANK_PATTERN, ResponseModel
from trainer.domain.workout import Muscle

Scale = Annotated[int, Field(ge=1, le=5)]
Notes = Annotated[str, Field(min_length=1, max_length=500, pattern=NON_BLANK_PATTERN)]
Soreness = Annotated[
    dict[Muscle, Annotated[int, Field(ge=0, le=5)]],
    Field(min_length=1, description='0 (none) - 5 (very sore) per canonical muscle, e.g. {"Quadriceps": 4}'),
]


class ReadinessCheckIn(RequestBody):
    """Every field optional, at least one given. Scales: sleep quality and energy 1 (worst) - 5 (best),
    stress 1 (calm) - 5 (very stressed), soreness 0 (none) - 5 (very sore) per canonical muscle."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    sleep_hours: Annotated[float, Field(ge=0, le=24)] | SkipJsonSchema[None] = None
    sleep_quality: Scale | SkipJsonSchema[None] = None
    energy: Scale | SkipJsonSchema[None] = None
    stress: Scale | SkipJsonSchema[None] = None
    soreness: Soreness | SkipJsonSchema[None] = None
    last_session_rpe: Annotated[float, Field(ge=1, le=10)] | SkipJsonSchema[None] = None
    notes: Notes | SkipJsonSchema[None] = None

    @field_validator("*", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        """A field is given with a value or left out: null is not a value here."""
        if value is None:
            raise ValueError("leave the field out rather than send null")
        values = value.values() if isinstance(value, dict) else (value,)
        if any(isinstance(v, bool) for v in values):
            raise ValueError("a number, not true/false")
        return value


class ReadinessEntry(ResponseModel):
    id: str
    recorded_at: datetime
    sleep_hours: float | None
    sleep_quality: int | None
    energy: int | None
    stress: int | None
    soreness: dict[str, int]
    last_session_rpe: float | None
    notes: str | None


class ReadinessToday(ResponseModel):
    level: Literal["ready", "reduce", "recover", "rest"] | None = Field(
        description="From today's newest check-in, else from the phone's health data when it has enough "
        "for a signal (docs/health-data.md#readiness); null when neither has anything to say."
    )
    source: Literal["check_in", "health_data"] | None = Field(
        description="Where `level` comes from: a check-in typed today wins over the sensors."
    )
    reasons: list[str]
    sore_muscles: list[str]
    advice: str
    health_readings: list[str] = Field(
        description="What the health data says today, in words: HRV and resting heart rate against the "
        "person's baseline, last night's sleep against their need (empty without enough data)."
    )


class ReadinessResponse(ResponseModel):
    today: ReadinessToday
    entries: list[ReadinessEntry] = Field(description="Newest first.")
