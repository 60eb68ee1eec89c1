"""What the offline model reads about the user besides the conversation, as the tools' own typed models:
units and time zone, recent logged exercises, active preferences, upcoming scheduled workouts, category
goals, locations and progression targets. The planner loads them (trainer.offline.planner)."""

from __future__ import annotations

from datetime import date, datetime, tzinfo
from typing import Any

from pydantic import BaseModel, Field

from trainer.domain.loading import LoadSteps
from trainer.domain.onboarding import ProfileField
from trainer.domain.progression import ProgressionTarget
from trainer.domain.workout import DistanceUnit, LoadUnit
from trainer.domain.workout_grouping import zone
from trainer.tools.calendar import ScheduledWorkout
from trainer.tools.goals import GoalEntry
from trainer.tools.logged_entries import LoggedExercise
from trainer.tools.preferences import Preference


class LocationBrief(BaseModel):
    name: str
    current: bool = False


class UserRecords(BaseModel):
    weight_unit: LoadUnit = "kg"
    distance_unit: DistanceUnit = "km"
    timezone: str = "UTC"
    logged: list[LoggedExercise] = Field(default_factory=list)
    """Recently logged exercises, the most recently logged first."""
    preferences: list[Preference] = Field(default_factory=list)
    upcoming: list[ScheduledWorkout] = Field(default_factory=list)
    """Scheduled workouts still to come, soonest first."""
    category_goals: list[GoalEntry] = Field(default_factory=list)
    locations: list[LocationBrief] = Field(default_factory=list)
    equipment: list[dict[str, Any]] = Field(default_factory=list)
    """The current location's equipment rows (with the weights they list)."""
    targets: list[ProgressionTarget] = Field(default_factory=list)
    """The next load and reps of each recently trained exercise."""
    profile_missing: list[ProfileField] = Field(default_factory=list)
    """The profile facts still unknown, in the order the coach asks for them."""

    @property
    def zone(self) -> tzinfo:
        return zone(self.timezone)

    def today(self, now: datetime) -> date:
        """Today in the user's time zone."""
        return now.astimezone(self.zone).date()

    def load_steps(self) -> LoadSteps:
        return LoadSteps.for_unit(self.weight_unit, self.equipment)

    @property
    def current_location(self) -> str | None:
        return next((loc.name for loc in self.locations if loc.current), None)
