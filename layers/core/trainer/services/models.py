"""The typed models the services return where their callers (tools, routes, the offline coach) need
more than a row."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from trainer.services.rows import plain

WeightUnit = Literal["kg", "lbs"]
DistanceUnit = Literal["km", "mi"]
PreferenceType = Literal[
    "workout", "injury", "time", "equipment", "intensity", "muscle_group", "exercise", "goal", "recovery",
    "other",
]  # fmt: skip


class UserSettings(BaseModel):
    """The user's display units, time zone and preferred training days (the defaults until set)."""

    weight_unit: WeightUnit = "kg"
    distance_unit: DistanceUnit = "km"
    timezone: str = "UTC"
    """An IANA time zone name."""
    preferred_days: list[str] = Field(default_factory=list)
    """Canonical weekday names, Monday first."""


class Preference(BaseModel):
    """One preferences row."""

    id: str
    type: PreferenceType
    description: str
    guidance: str
    expires_at: datetime | None = None
    delete_after_use: bool
    created_at: datetime

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Preference:
        return cls.model_validate(plain(row))
