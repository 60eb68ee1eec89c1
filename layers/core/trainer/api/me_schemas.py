"""The bodies of the `/me` routes: the settings screens (profile, goals, preferences, locations
with their equipment), account deletion, and the data export's documented envelope. Conventions as in
trainer.api.schemas: response models list every field; request models are `RequestBody`s
(trainer.api.inputs): unknown fields refused, values only of the JSON type the schema names (no `0` for
`false`, no `"3"` for 3, no number for a date), every string cleaned.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import Field, StrictBool, StrictFloat, StrictInt

from trainer.api.inputs import IsoDate, IsoDatetime, RequestBody
from trainer.api.schemas import NON_BLANK_PATTERN, WEEKDAY_PATTERN, Event, ResponseModel, Session
from trainer.domain.muscles import Muscle
from trainer.domain.weekdays import Weekday

ExperienceLevel = Literal["beginner", "intermediate", "advanced"]
Sex = Literal["male", "female", "other"]
PreferenceType = Literal[
    "workout", "injury", "time", "equipment", "intensity", "muscle_group", "exercise", "goal", "recovery",
    "other",
]  # fmt: skip
WeightUnit = Literal["kg", "lbs"]


def _text(max_length: int, description: str | None = None, *, optional: bool = False) -> Any:
    """A text field that is not blank (whitespace only); `optional`: it may be left out (None)."""
    if optional:
        return Field(
            default=None,
            min_length=1,
            max_length=max_length,
            pattern=NON_BLANK_PATTERN,
            description=description,
        )
    return Field(min_length=1, max_length=max_length, pattern=NON_BLANK_PATTERN, description=description)


# --- preferences ----------------------------------------------------------------------------------


class UserPreference(ResponseModel):
    """A preference the workouts honour: permanent, until `expires_at`, or for the next workout only."""

    id: UUID
    type: PreferenceType
    description: str
    guidance: str = Field(description="How it changes the workouts (may be empty).")
    expires_at: datetime | None = Field(description="Null: permanent (or next workout only).")
    delete_after_use: bool = Field(description="Removed once the next workout is generated.")
    created_at: datetime


class PreferenceList(ResponseModel):
    preferences: list[UserPreference] = Field(description="The active ones (not expired), oldest first.")


class PreferenceResponse(ResponseModel):
    preference: UserPreference


class PreferenceCreate(RequestBody):
    """What the chat's `set_preference` saves. An `expires_at` not in the future, or more than 5 years
    ahead, is `422 invalid_preference`, as is a 51st active preference (50 is the most a user keeps:
    remove one first)."""

    type: PreferenceType
    description: str = _text(1000, "What the user wants or does not want ('bad left knee').")
    guidance: str = Field(default="", max_length=2000, description="How it should change the workouts.")
    expires_at: IsoDatetime | None = Field(default=None, description="Until when; omit for permanent.")
    delete_after_use: StrictBool = Field(default=False, description="For the next workout only.")


# --- profile --------------------------------------------------------------------------------------


class Profile(ResponseModel):
    """What the profile screen shows. Body stats are canonical (kg, cm): the app converts them to the
    user's units (`GET /user-settings`)."""

    display_name: str | None
    sex: Sex | None
    birth_date: date | None
    age: int | None = Field(
        description="Whole years today (the user's time zone), from `birth_date`, else from the age the user "
        "gave (in the chat or as `age`) and the years since."
    )
    height_cm: float | None
    weight_kg: float | None = Field(description="Body weight in kg.")
    body_fat_pct: float | None
    experience: ExperienceLevel | None = Field(
        description="Null: inferred from the logged history when a plan is built."
    )
    session_minutes: int | None = Field(
        description="Usual session length, for plans: a permanent time preference (said in the chat) "
        "comes first; null: 60 minutes."
    )
    available_days: list[Weekday] = Field(
        description="The days the user can train, Monday first (the settings' `preferred_days`)."
    )
    injuries: list[UserPreference] = Field(
        description="The active `injury` preferences: added and removed through `/me/preferences`."
    )
    goal_statement: str | None = Field(description="The user's goals in their own words.")
    no_limitations: bool = Field(description="The user said they have no injuries or limitations.")


class ProfileResponse(ResponseModel):
    profile: Profile


class ProfileUpdate(RequestBody):
    """Only the fields given change; `null` clears one (`available_days: null` clears the days). A
    birth date before 1900 or in the future is `422 invalid_profile`, as is a value the column's one
    decimal rounds out of range."""

    display_name: str | None = _text(120, optional=True)
    sex: Sex | None = None
    birth_date: IsoDate | None = None
    height_cm: StrictFloat | None = Field(default=None, gt=0, lt=300)
    weight_kg: StrictFloat | None = Field(default=None, gt=0, lt=700, description="Body weight in kg.")
    body_fat_pct: StrictFloat | None = Field(default=None, ge=0, lt=100)
    experience: ExperienceLevel | None = None
    session_minutes: StrictInt | None = Field(default=None, ge=15, le=180)
    age: StrictInt | None = Field(
        default=None, ge=13, le=110, description="Age in whole years today (when no birth date is given)."
    )
    goal_statement: str | None = _text(500, optional=True)
    no_limitations: StrictBool | None = Field(
        default=None, description="True: the user has no injuries or limitations (`null` resets to false)."
    )
    available_days: list[Annotated[str, Field(pattern=WEEKDAY_PATTERN)]] | None = Field(
        default=None,
        max_length=14,
        description="Weekday names or their first three letters, any case; stored as canonical names.",
    )


# --- goals ----------------------------------------------------------------------------------------


class CategoryGoal(ResponseModel):
    category: str
    description: str | None
    percentage: float = Field(description="Its share of the category goals, 0-100 (they sum to 100).")


class MuscleGoal(ResponseModel):
    muscle: Muscle
    percentage: float = Field(description="Its share of the muscle goals, 0-100 (they sum to 100).")


class Goals(ResponseModel):
    categories: list[CategoryGoal] = Field(description="The heaviest first.")
    muscles: list[MuscleGoal] = Field(description="The heaviest first.")


class GoalsResponse(ResponseModel):
    goals: Goals


class CategoryGoalUpdate(RequestBody):
    category: str = _text(80, "Any name: 'Strength', 'Zone 2 Cardio'.")
    description: str | None = Field(default=None, max_length=500)
    percentage: StrictFloat = Field(ge=0, le=100, description="Its weight; the set is normalised to 100%.")


class GoalsUpdate(RequestBody):
    """What the chat's `set_goals` does: each list given replaces that set, normalised to 100%. A name
    listed twice (any case) or percentages that are all zero are `422 invalid_goals`."""

    categories: list[CategoryGoalUpdate] | None = Field(default=None, min_length=1, max_length=20)
    muscles: dict[Muscle, Annotated[StrictFloat, Field(ge=0, le=100)]] | None = Field(
        default=None, min_length=1, description="{muscle: percentage} over the 16 canonical muscles."
    )


# --- locations ------------------------------------------------------------------------------------


class Equipment(ResponseModel):
    """One piece of equipment; `weights` (with their `unit`) for loadable kit."""

    name: str
    type: str | None = Field(default=None, description="A kind: `free_weights`, `machine`, `cardio`...")
    weights: list[float] | None = Field(default=None, description="The loads available (a dumbbell rack).")
    unit: WeightUnit | None = Field(default=None, description="The unit of `weights`.")


class EquipmentIn(RequestBody):
    name: str = _text(100)
    type: str | None = Field(default=None, max_length=50)
    weights: list[Annotated[StrictFloat, Field(ge=0, le=10_000)]] | None = Field(default=None, max_length=200)
    unit: WeightUnit | None = None


class Location(ResponseModel):
    id: UUID
    name: str
    description: str | None
    equipment: list[Equipment]
    is_current: bool = Field(description="The location workouts are built for (at most one is).")
    created_at: datetime


class LocationList(ResponseModel):
    locations: list[Location] = Field(description="The current one first, then by name.")


class LocationResponse(ResponseModel):
    location: Location


class LocationCreate(RequestBody):
    """A name another of the user's locations has (any case) is `409 location_exists`."""

    name: str = _text(100)
    description: str | None = Field(default=None, max_length=1000)
    equipment: list[EquipmentIn] = Field(default_factory=list, max_length=200)
    current: StrictBool = Field(default=False, description="Make it the current location.")


class LocationUpdate(RequestBody):
    """Only the fields given change (`description: null` clears it; `equipment` replaces the list)."""

    name: str | None = _text(100, optional=True)
    description: str | None = Field(default=None, max_length=1000)
    equipment: list[EquipmentIn] | None = Field(default=None, max_length=200)


# --- account deletion and export ------------------------------------------------------------------

DELETE_CONFIRMATION = "delete my account"


class AccountDeletion(RequestBody):
    confirm: Literal["delete my account"] = Field(
        description="Exactly `delete my account`: the deletion is irreversible."
    )


class DeletionStatus(ResponseModel):
    status: Literal["in_progress"]
    deleted_at: datetime = Field(alias="deletedAt", description="When the deletion started.")


class DeletionResponse(ResponseModel):
    deletion: DeletionStatus


class ExportedSession(ResponseModel):
    session: Session
    state: dict[str, Any] = Field(description="The session's saved state (the current workout...) by key.")
    events: list[Event] = Field(description="Every event of the session, oldest first.")


class ExportedUserItem(ResponseModel):
    key: str = Field(description="`DAY#<date>`: a day's usage counters; `RATE#<bucket>`: a request rate.")
    attributes: dict[str, Any]


class AccountExport(ResponseModel):
    """Everything the system holds about the user, as one JSON document (`GET /me/export`)."""

    format: Literal["trainer.account-export"]
    version: Literal[1]
    exported_at: datetime = Field(alias="exportedAt")
    user_id: str = Field(alias="userId")
    tables: dict[str, list[dict[str, Any]]] = Field(
        description="Every database table that holds the user's rows, by table name (`users`, "
        "`user_settings`, `user_locations`, `category_goals`, `muscle_goals`, `preferences`, "
        "`workout_history`, `scheduled_workouts`, `workout_plans`, `milestone_goals`, `training_plans`, "
        "`plan_weeks`, `plan_workouts`, `agent_invocations`... any table added later too): each row as "
        "an object of its columns (ids and times as strings, numbers as numbers, JSON columns as JSON)."
    )
    sessions: list[ExportedSession] = Field(description="The chat sessions, newest first.")
    user_items: list[ExportedUserItem] = Field(alias="userItems")
    complete: Literal[True] = Field(
        description="Always the last key: a download that lacks it was cut short."
    )
