"""The HTTP contract: the request and response bodies of every route as pydantic models. FastAPI
validates requests and serialises responses with them, and the OpenAPI document is generated from
them (api/openapi.py), so what is documented is what is enforced and sent.

Response models describe the wire exactly: every field of a response model is always present
(null where its type allows it), except where a model says otherwise (`Error.details`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal
from uuid import UUID

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    Strict,
    WithJsonSchema,
    create_model,
    field_validator,
    model_serializer,
)

from trainer.api.contract import public_action
from trainer.api.inputs import VISIBLE_PATTERN, IsoDate, RequestBody
from trainer.domain.weekdays import Weekday
from trainer.domain.workout import ClientWorkout, ExerciseFields, Workout
from trainer.programs.models import FitnessPlan, PlanRequest
from trainer.store import models as store

if TYPE_CHECKING:
    from trainer.chat.turn import TurnResult


class ResponseModel(BaseModel):
    """Every field is required in the response schema: it is always in the JSON."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True, populate_by_name=True)


# --- errors -------------------------------------------------------------------------------------


class ErrorDetail(ResponseModel):
    field: str | None = Field(description="Dotted path of the invalid field; null for the body itself.")
    message: str


class ErrorInfo(BaseModel):
    code: str = Field(description="Stable machine-readable code; each response lists its codes.")
    message: str = Field(description="Human-readable, safe to show.")
    details: list[ErrorDetail] = Field(
        default_factory=list, description="Validation errors only (absent otherwise)."
    )


class Error(BaseModel):
    """Every error answer: `{"error": {"code", "message", "details"?}}`."""

    error: ErrorInfo

    def wire(self) -> dict[str, Any]:
        """The JSON body: `details` is left out when there are none."""
        return self.model_dump(mode="json", exclude_defaults=True)


# --- GET /health --------------------------------------------------------------------------------


class ModelStatus(ResponseModel):
    mode: Literal["offline", "anthropic"]
    id: str


class InitializerStatus(ResponseModel):
    mode: Literal["deterministic", "openai"]
    id: str


class StoresStatus(ResponseModel):
    sessions: bool = Field(description="The session store (DynamoDB) answered.")
    database: bool | None = Field(description="Postgres answered; null when no database is configured.")


class Health(ResponseModel):
    status: Literal["ok", "degraded"]
    version: str
    model: ModelStatus
    initializer: InitializerStatus
    stores: StoresStatus


# --- POST /agent/chat, POST /agent/stream -------------------------------------------------------

NON_BLANK_PATTERN = VISIBLE_PATTERN
"""A message, a name, a pasted workout must hold a visible character (trainer.api.inputs)."""


class ChatRequest(RequestBody):
    """The body of both agent routes. `create_app` builds the served model with `chat_request_model`,
    which sets the limits from the settings. Unknown fields are ignored (older and newer apps send
    some)."""

    model_config = ConfigDict(extra="ignore")

    message: str
    session_id: str | None = Field(
        default=None,
        alias="sessionId",
        description="Continue this session; default: the most recent active one.",
    )
    current_workout: ClientWorkout | None = Field(
        default=None,
        alias="currentWorkout",
        description="The workout the app is showing, if any: the exercises a reply gave it.",
    )
    model: str | None = Field(default=None, description="Agent model; default: the server's.")

    @field_validator("current_workout", mode="before")
    @classmethod
    def _workout_as_its_schema_says(cls, value: Any) -> Any:
        """Types as the schema states them, all the way down: no `true` for a count, no `0` for a
        flag, no numeric strings (pydantic's lax mode would take them); `3.0` is an integer, as in
        JSON Schema."""
        if value is None or isinstance(value, ClientWorkout):
            return value
        return ClientWorkout.model_validate(_integral_floats_as_ints(value), strict=True)


def _integral_floats_as_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral_floats_as_ints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral_floats_as_ints(item) for item in value]
    return value


def chat_request_model(max_message_chars: int, model_ids: Sequence[str]) -> type[ChatRequest]:
    """The chat body with the message limit and the selectable models of one deployment."""
    message = Annotated[
        str,
        Field(
            min_length=1,
            max_length=max_message_chars,
            pattern=NON_BLANK_PATTERN,
            description="The user's message: not blank; over `maxLength` is `422 message_too_long`.",
        ),
    ]
    model_id: Any = Literal[tuple(model_ids)]
    return create_model(
        "ChatRequest",
        __base__=ChatRequest,
        __module__=__name__,
        message=(message, ...),
        model=(model_id | None, Field(default=None, description="Agent model; default: the server's.")),
    )


class TimerPhase(ResponseModel):
    """One phase of a timer: what to do and for how long."""

    phase_type: Literal["work", "rest", "hold", "transition"]
    duration_sec: int
    cue: str = Field(description="What to show, e.g. 'Bench Press - Set 1'.")
    detail: str = Field(description="e.g. '8 reps at 60kg'.")
    countdown: bool = Field(description="Whether to show a countdown.")
    set_number: int | None = Field(default=None, description="The set or round (1-indexed), if any.")


class Timer(ResponseModel):
    """The timer of one exercise, or of one group (circuit, superset...) with its rounds."""

    exercise_name: str
    exercise_type: str = Field(description="The exercise type, or the group type for a group's timer.")
    total_duration_sec: int = Field(description="The sum of the phases' durations.")
    phases: list[TimerPhase]


class Question(ResponseModel):
    """A question the agent asked; the turn waits for the answer (an option, or free text)."""

    text: str
    options: list[str] = Field(description="Suggested answers, in order; [] when none.")


class ClientResponse(ResponseModel):
    """What the app shows after a buffered turn."""

    messages: list[str]
    exercises: list[ExerciseFields] | None = Field(
        default=None,
        description="The current workout's exercises when the turn created or changed it; null otherwise. "
        "Send them back as `currentWorkout.exercises`.",
    )
    question: Question | None = Field(default=None, description="The agent's question; null when none.")
    timers: list[Timer] | None = Field(
        default=None, description="Timers the turn built or delivered, in order; null when none."
    )


class Action(BaseModel):
    """One tool call of the turn with its result (published typed per tool: trainer.api.contract)."""

    tool: str
    args: dict[str, Any] | None = None
    result: dict[str, Any]

    @model_serializer(mode="wrap")
    def _without_unfit_args(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("args") is None:
            data.pop("args", None)
        return data


class ChatResponse(ResponseModel):
    session_id: str = Field(alias="sessionId")
    response: ClientResponse
    iterations: int
    actions: list[Action]
    status: Literal["completed", "error"]

    @classmethod
    def from_turn(cls, result: TurnResult) -> ChatResponse:
        return cls(
            session_id=result.session_id,
            response=ClientResponse.model_validate(asdict(result.response)),
            iterations=result.iterations,
            actions=[
                Action.model_validate(public)
                for action in result.actions
                if (public := public_action(action.as_json())) is not None
            ],
            status=result.status,
        )


# --- sessions -----------------------------------------------------------------------------------


class KnowledgeRef(store.KnowledgeRef):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class SessionMetadata(ResponseModel):
    """What the agent keeps about a session's context between turns."""

    model_config = ConfigDict(extra="ignore")

    context_tokens_estimate: int | None = Field(
        default=None, description="The context's size after the last turn (tokens, estimated)."
    )
    context_estimate_start: int | None = Field(
        default=None, description="The `context_start_sequence` that estimate was made for."
    )


class Session(store.Session):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    knowledge_in_context: list[KnowledgeRef] = Field(default_factory=list)  # type: ignore[assignment]
    metadata: SessionMetadata = Field(default_factory=SessionMetadata)  # type: ignore[assignment]

    @classmethod
    def of(cls, session: store.Session) -> Session:
        return cls.model_validate(session.model_dump())


PRIVATE_EVENT_KEYS = frozenset({"preamble"})
"""Event data kept for the model only: a tool call's preamble holds the model's thinking blocks,
which are never shown to users."""


class Event(store.Event):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    @classmethod
    def of(cls, event: store.Event) -> Event:
        dumped = event.model_dump()
        if isinstance(dumped.get("data"), dict) and PRIVATE_EVENT_KEYS & dumped["data"].keys():
            dumped["data"] = {k: v for k, v in dumped["data"].items() if k not in PRIVATE_EVENT_KEYS}
        return cls.model_validate(dumped)


class SessionResponse(ResponseModel):
    session: Session


class SessionList(ResponseModel):
    sessions: list[Session] = Field(description="Newest first.")


class SessionDetail(ResponseModel):
    session: Session
    recent_actions: list[Event] = Field(
        alias="recentActions",
        description="The last user messages, tool calls, tool results and artifacts, oldest first.",
    )


class EventsPage(ResponseModel):
    events: list[Event]
    next_after: int | None = Field(
        alias="nextAfter", description="Pass back as `after` for the next page; null on the last page."
    )


FrameJson = Annotated[dict[str, Any], WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/Frame"}]})]


class SentFrame(ResponseModel):
    """A frame a stream sent: its id (the `id:` it was sent with) and the frame (its `data`)."""

    id: int = Field(description="The frame's id: the `id:` the stream sent it with.")
    frame: FrameJson


class FramesPage(ResponseModel):
    frames: list[SentFrame] = Field(
        description=(
            "The frames the stream sent after `after`, in order, through the turn's `turn_end` (`done` "
            "is the stream's own last line and is not repeated here)."
        )
    )
    turn_ended: bool = Field(
        alias="turnEnded",
        description="The last frame is `turn_end`; false while the turn runs (ask again after the last id).",
    )


# --- user settings, history, distribution -------------------------------------------------------

WEEKDAY_PATTERN = (
    "^(?:[Mm][Oo][Nn](?:[Dd][Aa][Yy])?|[Tt][Uu][Ee](?:[Ss][Dd][Aa][Yy])?"
    "|[Ww][Ee][Dd](?:[Nn][Ee][Ss][Dd][Aa][Yy])?|[Tt][Hh][Uu](?:[Rr][Ss][Dd][Aa][Yy])?"
    "|[Ff][Rr][Ii](?:[Dd][Aa][Yy])?|[Ss][Aa][Tt](?:[Uu][Rr][Dd][Aa][Yy])?|[Ss][Uu][Nn](?:[Dd][Aa][Yy])?)$"
)
TIME_ZONE_FORMAT = "iana-time-zone"
TimeZone = Annotated[
    str,
    WithJsonSchema(
        {
            "type": "string",
            "format": TIME_ZONE_FORMAT,
            "description": "An IANA time zone: `Europe/Berlin`, `UTC`.",
        }
    ),
]
"""`iana-time-zone` is a custom JSON Schema format: a name of the IANA time zone database."""


class UserSettings(ResponseModel):
    weight_unit: Literal["kg", "lbs"]
    distance_unit: Literal["km", "mi"]
    timezone: TimeZone
    preferred_days: list[Weekday] = Field(description="Monday first.")


class UserSettingsResponse(ResponseModel):
    settings: UserSettings


class UserSettingsUpdate(RequestBody):
    """Only the fields given (and not null) change. A well-formed but unknown time zone is
    `422 invalid_settings`; anything else the schema does not allow is `422 invalid_request`."""

    weight_unit: Literal["kg", "lbs"] | None = None
    distance_unit: Literal["km", "mi"] | None = None
    timezone: TimeZone | None = None
    preferred_days: list[Annotated[str, Field(pattern=WEEKDAY_PATTERN)]] | None = Field(
        default=None,
        description="Weekday names or their first three letters, any case; stored and answered as "
        "canonical names, Monday first, without duplicates.",
    )


class HistoryMuscleShare(ResponseModel):
    muscle: str
    share: float


class HistoryGoalShare(ResponseModel):
    goal: str
    share: float


class HistoryEntry(ResponseModel):
    """One logged exercise, loads and distances in the unit they were logged in."""

    id: UUID
    performed_at: datetime
    exercise_name: str
    exercise_type: Literal["reps", "hold", "duration", "intervals"]
    sets: int | None
    reps: list[int] | None
    load_each: list[float] | None
    load_unit: Literal["kg", "lbs"] | None
    hold_sec: list[int] | None
    duration_min: float | None
    distance: float | None
    distance_unit: Literal["km", "mi"] | None
    rounds: int | None
    work_sec: int | None
    rest_sec: int | None
    rpe: float | None
    rpe_each: list[float] | None = Field(
        default=None, description="The effort of each set, RPE 1-10 (reps in reserve stored as 10 - RIR)."
    )
    muscles: list[HistoryMuscleShare]
    goals: list[HistoryGoalShare]
    session_id: str | None
    workout_id: str | None
    notes: str | None
    created_at: datetime
    local_date: date = Field(description="The day it was performed on, in the user's time zone.")
    workout_key: str = Field(
        description=(
            "Entries with the same key are one workout, as statistics count them: a logged workout, "
            "else every exercise of one day in the user's time zone. Opaque; group by it, do not show it."
        )
    )


class ExerciseHistory(ResponseModel):
    exercises: list[HistoryEntry] = Field(description="Newest first.")
    days_back: int = Field(alias="daysBack")
    limit: int
    workout_count: int = Field(alias="workoutCount", description="Workouts among the listed exercises.")


class DistributionRow(ResponseModel):
    name: str
    target: float = Field(description="Normalised goal weight, 0..1.")
    actual: float = Field(description="This name's fraction of all tracked work, 0..1.")
    debt: float = Field(description="target - actual: positive means under-represented.")


class Distribution(ResponseModel):
    category: list[DistributionRow] = Field(description="Largest debt first.")
    muscle: list[DistributionRow] = Field(description="Largest debt first.")
    logged_count: int = Field(alias="loggedCount")


# --- training plans and planned workouts ----------------------------------------------------------

PlanStatus = Literal["pending", "ready", "failed"]
Day = date
"""`date` under another name, for fields that are themselves called `date`."""
IMPORT_TEXT_LIMIT = 20_000
"""The longest pasted workout `POST /workouts/import` reads (characters)."""


class PlanCreate(PlanRequest, RequestBody):
    """What the user asks for; anything left out comes from their settings, goals, location and history.
    `start_date` is at most 4 weeks back and a year ahead (`422 invalid_plan_request`)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    start_date: IsoDate | None = Field(default=None, description="First day of week 1; default today")


class PlanSummary(ResponseModel):
    """A generated training plan without its documents: what the app polls while it is built."""

    id: UUID
    status: PlanStatus = Field(
        description="`pending` while it is drafted, then `ready` or `failed`. `ready` is the plan itself: its"
        " weeks follow (week 1 within the same build, seconds later), each with its own status in"
        " GET /plans/{id}."
    )
    error: str | None = Field(description="Why the plan failed (safe to show); null otherwise.")
    title: str | None = Field(description="Null until the plan is ready.")
    weeks: int = Field(description="The plan's length in weeks (4-16).")
    days_per_week: int
    session_minutes: int
    training_days: list[Weekday] = Field(description="Monday first.")
    start_date: date = Field(description="The first day of week 1.")
    timezone: TimeZone
    active: bool = Field(description="The user's current plan (at most one is).")
    next_week: int | None = Field(description="The next week to build; null when none is left.")
    next_week_due_at: datetime | None = Field(description="When the next week is built (hourly schedule).")
    created_at: datetime
    updated_at: datetime


class PlanResponse(ResponseModel):
    plan: PlanSummary


class PlanList(ResponseModel):
    plans: list[PlanSummary] = Field(description="Newest first.")


class PlanWeekInfo(ResponseModel):
    """One week of a plan that was built (or is being built)."""

    week_number: int
    status: Literal["building", "ready", "failed"]
    deload: bool = Field(
        description="A lighter week (about 40% fewer sets at about 90% of the working weights)."
    )
    start_date: date
    error: str | None
    built_at: datetime | None


class PlannedWorkout(ResponseModel):
    """One day of the user's calendar: a planned day of the active plan (`source: plan`: a structured
    workout, or recovery notes on a rest day, with the text message that announces it), or a workout
    put on the calendar (`source: calendar`: its `focus` is the workout's type, its time
    `scheduled_at`). The same ids as the chat's schedule and plan tools: `PATCH /workouts/{id}` moves,
    skips or swaps either kind."""

    id: UUID
    plan_id: UUID | None = Field(
        description="The training plan of a plan day; the label-only plan of a calendar workout, if any."
    )
    week_number: int | None = Field(description="The plan week of a plan day; null for a calendar workout.")
    date: Day
    weekday: Weekday
    kind: Literal["training", "rest"]
    focus: str | None
    workout: Workout | None = Field(description="The structured workout; null on a rest day.")
    notes: list[str] = Field(description="What changed from the plan and why.")
    recovery_notes: str | None = Field(description="Rest days: what to do to recover.")
    message: str | None = Field(
        description="The day as a push/SMS text (at most 1,600 characters); null until it is written."
    )
    status: Literal["scheduled", "completed", "skipped", "missed"] = Field(
        description="`missed`: a planned day that passed with nothing logged (the daily run)."
    )
    published_at: datetime | None = Field(description="When `WorkoutReady` was published for the day.")
    created_at: datetime
    updated_at: datetime
    source: Literal["plan", "calendar"] = Field(
        default="plan", description="A day of the active plan, or a workout put on the calendar."
    )
    scheduled_at: datetime | None = Field(
        default=None, description="A calendar workout's date and time; null for a plan day."
    )


class WorkoutChange(RequestBody):
    """Move, skip or swap one session of the calendar (a plan day or a calendar workout, by id)."""

    date: IsoDate | None = Field(
        default=None,
        description="Move it to this day (today or later, at most 5 years ahead). A plan day moves onto a "
        "rest day of its plan.",
    )
    status: Literal["scheduled", "skipped", "completed"] | None = Field(
        default=None, description="`skipped` to skip it, `scheduled` to take it back."
    )
    swap_with: Annotated[UUID, Strict(False)] | None = Field(
        default=None, description="Exchange days with this session."
    )


class WorkoutCreate(RequestBody):
    """Add a session to the calendar."""

    date: IsoDate = Field(description="Today or later (at most 5 years ahead), the user's day.")
    time: str | None = Field(
        default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="Local time, HH:MM; default: none"
    )
    workout_type: str = Field(
        min_length=1, max_length=100, pattern=NON_BLANK_PATTERN, description="e.g. Zone 2 Run"
    )
    duration_minutes: int | None = Field(default=None, ge=1, le=600)
    notes: str | None = Field(default=None, max_length=2000)


class WorkoutChanged(ResponseModel):
    workout: PlannedWorkout
    swapped_with: PlannedWorkout | None = Field(default=None, description="The other session of a swap.")
    recovery_warning: str | None = Field(
        default=None, description="Set when the change put hard sessions on consecutive days."
    )


class PlanDetail(ResponseModel):
    plan: PlanSummary
    markdown: str | None = Field(description="The plan as a document; null until the plan is ready.")
    structured: FitnessPlan | None = Field(
        description="The plan as data (phases, deload weeks, weekly pattern); null until it is ready."
    )
    weeks: list[PlanWeekInfo] = Field(description="The weeks built so far, in order.")
    days: list[PlannedWorkout] = Field(description="The planned days of those weeks, in date order.")


class WorkoutList(ResponseModel):
    workouts: list[PlannedWorkout] = Field(description="In date order.")
    date_from: date = Field(alias="from")
    date_to: date = Field(alias="to")


class WorkoutResponse(ResponseModel):
    workout: PlannedWorkout


class WorkoutImport(RequestBody):
    """A workout written as text (a coach's program, a note): one exercise a line, in the usual
    notations ('Bench press 4x8 @ 60kg', '3 sets of 10 squats', 'Plank 3 x 45s', 'A1/A2' supersets)."""

    text: str = Field(
        min_length=1,
        max_length=IMPORT_TEXT_LIMIT,
        pattern=NON_BLANK_PATTERN,
        description="Not blank; up to 20,000 characters.",
    )


class ImportedWorkout(ResponseModel):
    workout: Workout = Field(description="The text as a structured workout in the app's schema.")
    unrecognised: list[str] = Field(description="Lines that were not read as an exercise.")
