"""What the tools create and the app renders, as models: the artifacts a reply delivers (a workout, a
set of timers) and the displayables a message can attach (a workout, one exercise).

Tools build artifacts as JSON and keep them in session state and in `artifact` events;
`message_notify_user` reads them back through `Artifact` when it delivers one, so what reaches the app
is what these models say (and what the OpenAPI document publishes).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, WithJsonSchema

from trainer.domain.timers import PhaseType
from trainer.domain.workout import Exercise

PUBLISHED_AS = "x-published-as"


def published_as(component: str) -> WithJsonSchema:
    """A JSON field published as the named component of the OpenAPI document (which resolves the
    marker into a reference): for results that hold the JSON dump of a model (an `Exercise`, a
    `Workout`) and stay plain JSON at run time."""
    return WithJsonSchema({PUBLISHED_AS: component}, mode="serialization")


ExerciseJson = Annotated[dict[str, Any], published_as("Exercise")]
"""An exercise as the workout tools store it: the JSON of a validated `Exercise`."""
WorkoutJson = Annotated[dict[str, Any], published_as("Workout")]
"""A workout as the plan stores it: the JSON of a validated `Workout`."""

WORKOUT_ARTIFACT_TYPE = "exercise_list"
TIMER_ARTIFACT_TYPE = "timer"
"""An artifact holding timers: its payload's `timers` go to the reply when it is delivered."""


class TimerPhaseData(BaseModel):
    """One phase of a timer: what to do and for how long."""

    phase_type: PhaseType
    duration_sec: int
    cue: str
    detail: str
    countdown: bool
    set_number: int | None = None


class TimerData(BaseModel):
    """The timer of one exercise, or of one group (circuit, superset...) with its rounds."""

    exercise_name: str
    exercise_type: str
    """The exercise type, or the group type for a group's timer."""
    total_duration_sec: int
    phases: list[TimerPhaseData]


class WorkoutOverview(BaseModel):
    """A workout's size and focus."""

    exercise_count: int
    estimated_duration_min: float
    muscles_targeted: list[str]


class WorkoutSummaryData(WorkoutOverview):
    primary_goals: list[str] = []


class WorkoutPayload(BaseModel):
    workout_id: str
    title: str | None = None
    exercises: list[Exercise]
    summary: WorkoutSummaryData


class WorkoutArtifact(BaseModel):
    """A workout to show as a card (`generate_workout`; kept in step by the edits that follow)."""

    artifact_id: str
    type: Literal["exercise_list"]
    schema_version: str
    title: str | None = None
    summary: WorkoutOverview
    auto_start: bool = False
    payload: WorkoutPayload


class TimerSummary(BaseModel):
    timer_count: int
    total_duration_sec: int
    timers: list[str] = Field(description="The timers' exercise (or group) names, in order.")


class TimerPayload(BaseModel):
    timers: list[TimerData]
    total_duration_sec: int


class TimerArtifact(BaseModel):
    """Timers to run, one per exercise or group (`generate_exercise_timer`, `generate_workout_timers`)."""

    artifact_id: str
    type: Literal["timer"]
    schema_version: str
    title: str | None = None
    summary: TimerSummary
    auto_start: bool = False
    payload: TimerPayload


Artifact = Annotated[WorkoutArtifact | TimerArtifact, Field(discriminator="type")]
ARTIFACT: TypeAdapter[WorkoutArtifact | TimerArtifact] = TypeAdapter(Artifact)


class DisplayedWorkout(BaseModel):
    """A workout's overview (its title and summary) with its exercises."""

    metadata: WorkoutMetadata
    exercises: list[Exercise]


class WorkoutMetadata(WorkoutSummaryData):
    title: str | None = None


class WorkoutAttachment(BaseModel):
    """A workout shown with a message."""

    type: Literal["workout"]
    id: str
    data: DisplayedWorkout


class ExerciseAttachment(BaseModel):
    """One exercise shown with a message."""

    type: Literal["exercise"]
    id: str
    data: Exercise


Attachment = Annotated[WorkoutAttachment | ExerciseAttachment, Field(discriminator="type")]
ATTACHMENT: TypeAdapter[WorkoutAttachment | ExerciseAttachment] = TypeAdapter(Attachment)

DisplayedWorkout.model_rebuild()
