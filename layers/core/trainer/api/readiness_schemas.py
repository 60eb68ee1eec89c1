"""The HTTP contract of readiness check-ins (issue 18 item 3): POST /readiness stores one, GET /readiness
lists the recent ones with today's computed readiness."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from trainer.api.schemas import ResponseModel

Scale = Annotated[int, Field(ge=1, le=5)]


class ReadinessCheckIn(BaseModel):
    """Every field optional, at least one given. Scales: sleep quality and energy 1 (worst) - 5 (best),
    stress 1 (calm) - 5 (very stressed), soreness 0 (none) - 5 (very sore) per canonical muscle."""

    model_config = ConfigDict(extra="forbid")

    sleep_hours: float | None = Field(default=None, ge=0, le=24)
    sleep_quality: Scale | None = None
    energy: Scale | None = None
    stress: Scale | None = None
    soreness: dict[str, Annotated[int, Field(ge=0, le=5)]] = Field(default_factory=dict, max_length=16)
    last_session_rpe: float | None = Field(default=None, ge=1, le=10)
    notes: str | None = Field(default=None, max_length=500)


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
        description="From today's newest check-in; null when there is none."
    )
    reasons: list[str]
    sore_muscles: list[str]
    advice: str


class ReadinessResponse(ResponseModel):
    today: ReadinessToday
    entries: list[ReadinessEntry] = Field(description="Newest first.")
