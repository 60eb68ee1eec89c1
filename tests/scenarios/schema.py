"""The scenario file format (tests/scenarios/data/*.yaml), validated with pydantic.

A scenario is a user's starting state, the turns they play, and what must be true after each turn
(and at the end). Times are relative to the moment the scenario runs, in the user's timezone.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

DATA_DIR = Path(__file__).resolve().parent / "data"
QUICK_MINUTES = 20
"""What "quick" means when a user asks for a quick workout: 20 minutes (so 16-24 with the tolerance)."""
DURATION_TOLERANCE = 0.2

Domain = Literal[
    "history", "preferences", "goals", "locations", "schedule", "plans", "milestones", "settings",
    "current_workout", "programs", "readiness", "profile",
]  # fmt: skip
DOMAINS: tuple[Domain, ...] = (
    "history", "preferences", "goals", "locations", "schedule", "plans", "milestones", "settings",
    "current_workout", "programs", "readiness", "profile",
)  # fmt: skip
"""`plans` are the calendar's label-only plans (create_workout_plan); `programs` the generated training
plans with their planned days (request_training_plan)."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExerciseSpec(Strict):
    """An exercise in short form, for logged history and for a current workout."""

    name: str
    type: Literal["reps", "hold", "duration", "intervals"] | None = None
    sets: int | None = None
    reps: list[int] | int | None = None
    load: list[float] | float | None = None
    unit: Literal["kg", "lbs"] | None = None
    hold: list[int] | int | None = None
    minutes: float | None = None
    distance: float | None = None
    distance_unit: Literal["km", "mi"] | None = None
    rounds: int | None = None
    work: int | None = None
    rest: int | None = None
    rpe: float | None = None
    muscles: dict[str, float] | None = None
    """Default: the exercise catalog's shares for the name."""
    goals: dict[str, float] | None = None
    equipment: list[str] | None = None
    """Default: the catalog's equipment for the name."""

    @property
    def kind(self) -> str:
        if self.type:
            return self.type
        if self.hold is not None:
            return "hold"
        if self.rounds is not None:
            return "intervals"
        if self.minutes is not None or self.distance is not None:
            return "duration"
        return "reps"


class LoggedWorkout(Strict):
    """One past session: exercises logged together, on a day relative to today (user's timezone)."""

    days_ago: int | None = None
    month: int | None = None
    """With `day`: a calendar day of this month (0) or an earlier one (-1...)."""
    day: int | None = None
    """Day of that month; negative counts from its end (-1 = the last day)."""
    time: str = "18:00"
    exercises: list[ExerciseSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_date(self) -> Self:
        if (self.days_ago is None) == (self.day is None):
            raise ValueError("give days_ago, or month and day")
        if not re.fullmatch(r"\d{1,2}:\d{2}", self.time):
            raise ValueError("time is HH:MM")
        return self


class LocationSpec(Strict):
    name: str
    current: bool = False
    description: str | None = None
    equipment: list[str | dict[str, Any]] = Field(default_factory=list)


class PreferenceSpec(Strict):
    type: str
    description: str
    guidance: str = ""
    expires_in_days: float | None = None
    delete_after_use: bool = False
    avoid_muscles: list[str] = Field(default_factory=list)
    """Ground truth for the checks: muscles no workout may load while this preference holds."""
    avoid_exercises: list[str] = Field(default_factory=list)
    """Ground truth: exercise name phrases no workout may contain."""


class ScheduledSpec(Strict):
    days_ahead: int
    time: str = "07:00"
    workout_type: str
    duration_minutes: int | None = None


class MilestoneSpec(Strict):
    goal_name: str
    goal_type: str = "other"
    target_value: float | None = None
    target_unit: str | None = None
    current_value: float | None = None
    time_limit_min: float | None = None
    target_reps: int | None = None


class MilestoneMatch(Strict):
    """A stored milestone: its name holds the phrase, and every number given matches."""

    name: str
    target_value: float | None = None
    target_unit: str | None = None
    time_limit_min: float | None = None
    target_reps: int | None = None
    target_month: int | None = None


class TrainingPlanSpec(Strict):
    """A generated training plan the user already has: built (ready, week 1 with its days) before the
    first turn, starting today."""

    weeks: int = 12
    days_per_week: int | None = None
    training_days: list[str] = Field(default_factory=list)
    include_today: bool = False
    """Today (the user's) is one of the training days, whatever weekday the scenario runs on."""
    day_offsets: list[int] = Field(default_factory=list)
    """Days from today (0 = today, -2 = two days ago) whose weekdays are training days, whatever weekday
    the scenario runs on."""
    start_days_ago: int = Field(default=0, ge=0, le=6)
    """The plan started this many days ago (its first week built then): its past days are in the past."""
    session_minutes: int | None = None
    goal: str | None = None


class CurrentWorkoutSpec(Strict):
    title: str = "Today's workout"
    exercises: list[ExerciseSpec] = Field(min_length=1)


class HealthSpec(Strict):
    """The phone's health data, synced before the first turn (trainer_dev.testing.health_series): every
    type consented to."""

    days: int = Field(default=60, ge=1, le=90)
    hrv_drop_days: int = Field(default=0, ge=0, le=7)
    """The latest days' HRV 2 SD under the usual."""
    long_run_yesterday: bool = False
    platform: Literal["healthkit", "health_connect"] = "health_connect"


class UserSpec(Strict):
    display_name: str = "Scenario User"
    sex: Literal["male", "female", "other"] | None = None
    birth_date: str | None = None
    height_cm: float | None = None
    weight_kg: float | None = None
    experience: Literal["beginner", "intermediate", "advanced"] | None = None
    session_minutes: int | None = None
    goal_statement: str | None = None
    no_limitations: bool = False
    weight_unit: Literal["kg", "lbs"] = "kg"
    distance_unit: Literal["km", "mi"] = "km"
    timezone: str = "UTC"
    preferred_days: list[str] = Field(default_factory=list)
    locations: list[LocationSpec] = Field(default_factory=list)
    category_goals: dict[str, float] = Field(default_factory=dict)
    muscle_goals: dict[str, float] = Field(default_factory=dict)
    preferences: list[PreferenceSpec] = Field(default_factory=list)
    history: list[LoggedWorkout] = Field(default_factory=list)
    scheduled: list[ScheduledSpec] = Field(default_factory=list)
    milestones: list[MilestoneSpec] = Field(default_factory=list)
    current_workout: CurrentWorkoutSpec | None = None
    """A workout generated earlier in the session the scenario continues (the phone shows it)."""
    training_plan: TrainingPlanSpec | None = None
    health: HealthSpec | None = None

    @model_validator(mode="after")
    def _one_current_location(self) -> Self:
        if sum(loc.current for loc in self.locations) > 1:
            raise ValueError("at most one current location")
        return self


class Rules(Strict):
    """Hard constraints on every workout from a turn on (added to the seeded preferences' ones)."""

    avoid_muscles: list[str] = Field(default_factory=list)
    avoid_exercises: list[str] = Field(default_factory=list)


class ExerciseCheck(Strict):
    """One exercise of the current workout after the turn, by position (1-based; -1 is the last)."""

    at: int
    name_has: str | None = None
    name_not: str | None = None
    same_as_before: bool | None = None
    """True: identical to the exercise at the same position before the turn; False: another exercise."""
    heavier_than_before: bool = False
    lighter_than_before: bool = False
    harder_than_before: bool = False
    """More load, or the same load for more reps or longer holds."""
    sets: int | None = None
    reps: list[int] | None = None
    loads: list[float] | None = None
    rest: int | None = None
    completed: bool | None = None
    main_muscle: list[str] | None = None
    """Its main muscle (largest share) is one of these."""


class WorkoutExpect(Strict):
    """The workout the reply carries (its `exercises`)."""

    present: bool = True
    minutes: int | Literal["quick"] | None = None
    """Asked duration: the workout must last within ±20% of it."""
    focus: list[str] = Field(default_factory=list)
    """Most exercises (at least half) must have one of these as their main muscle."""
    min_exercises: int | None = None
    max_exercises: int | None = None
    count_change: int | None = None
    """Exercises now minus exercises before the turn."""
    includes: list[str] = Field(default_factory=list)
    excludes: list[str] = Field(default_factory=list)
    equipment_only: list[str] | None = None
    """Equipment allowed instead of the current location's ([] = bodyweight only)."""
    allow_recovering: list[str] = Field(default_factory=list)
    """Recovering muscles the user asked for by name (exempt from the recovery rule)."""
    progression: bool = True
    exercises: list[ExerciseCheck] = Field(default_factory=list)
    has_type: Literal["reps", "hold", "duration", "intervals"] | None = None
    max_sets: int | None = None
    """No exercise has more sets (or rounds) than this."""
    max_reps: int | None = None
    """No set of any exercise is prescribed more reps than this (a beginner's first bodyweight sets)."""
    title_has: str | None = None
    spares: list[str] = Field(default_factory=list)
    """Muscles no exercise works (a share of 0.2 or more): sore ones a check-in named."""
    only_muscles: list[str] = Field(default_factory=list)
    """Every exercise's main muscle is one of these (a body-part or muscle request)."""
    max_level: Literal["beginner", "intermediate", "expert"] | None = None
    """No exercise is above this catalog level (a beginner's workout)."""
    harder_overall: bool | None = None
    """True: no exercise has less work (load x reps x sets) than before and one has more; False: the
    reverse (easier)."""


class HistoryMatch(Strict):
    name: str
    """A phrase the logged name must contain (case and plural insensitive)."""
    sets: int | None = None
    reps: list[int] | None = None
    loads: list[float] | None = None
    unit: Literal["kg", "lbs"] | None = None
    loads_kg: list[float] | None = None
    """Per-set loads converted to kg (±0.6 kg), whatever unit they were stored in."""
    hold: list[int] | None = None
    minutes: float | None = None
    distance_km: float | None = None
    """Distance converted to km (±2%)."""
    today: bool = False
    name_not: str | None = None
    """A word the logged name must not contain (an effort rating read as part of the name)."""
    rpe: float | None = None
    """The entry's effort (its hardest set's RPE; reps in reserve count as 10 - RIR)."""
    rpe_each: list[float] | None = None


class PreferenceMatch(Strict):
    text: str
    """Word(s) the description or guidance must contain (case-insensitive)."""
    type: str | None = None
    permanent: bool | None = None
    one_shot: bool | None = None
    expires_in_days: tuple[float, float] | None = None


class ScheduleMatch(Strict):
    days_ahead: int | None = None
    weekday: str | None = None
    type_has: str | None = None
    hour: int | None = None


class PlanMatch(Strict):
    weeks: int | None = None
    per_week: int | None = None
    days: list[str] | None = None
    sessions: int | None = None


class ProgramMatch(Strict):
    """The user's newest training plan."""

    status: Literal["pending", "ready", "failed"] | None = None
    weeks: int | None = None
    days_per_week: int | None = None
    training_days: list[str] | None = None
    session_minutes: int | None = None
    count: int | None = None
    """How many training plans the user has."""
    weeks_changed: list[int] | None = None
    """Plan weeks whose planned days changed in the turn, exactly these."""


class ReadinessMatch(Strict):
    """The newest readiness check-in (read through GET /readiness)."""

    sleep_hours: float | None = None
    max_energy: int | None = None
    max_sleep_quality: int | None = None
    min_stress: int | None = None
    sore: list[str] = Field(default_factory=list)
    """Canonical muscles the check-in must record as sore (3/5 or more)."""


class ProfileMatch(Strict):
    """The profile as GET /me/profile shows it after the turn."""

    age: int | None = None
    sex: Literal["male", "female", "other"] | None = None
    experience: Literal["beginner", "intermediate", "advanced"] | None = None
    weight_kg: float | None = None
    """Body weight in kg (±0.6)."""
    session_minutes: int | None = None
    available_days: list[str] | None = None
    goal_has: list[str] = Field(default_factory=list)
    """Words the goals in the user's words must contain (case-insensitive)."""
    injuries_has: list[str] = Field(default_factory=list)
    """A word each: some active injury's description names it."""
    injuries_count: int | None = None
    no_limitations: bool | None = None


class LocationMatch(Strict):
    """A saved location, by name (case-insensitive)."""

    name: str
    current: bool | None = None
    equipment: list[str] = Field(default_factory=list)
    """Canonical equipment names it must offer."""
    lacks: list[str] = Field(default_factory=list)
    dumbbells_max: float | None = None
    """Its heaviest dumbbell pair, in `unit`."""
    plates: list[float] | None = None
    bar: float | None = None
    unit: Literal["kg", "lbs"] = "kg"


class CalendarEntryMatch(Strict):
    """A session as `GET /workouts` lists it (the plan's days and the calendar's workouts)."""

    days_ahead: int | None = None
    weekday: str | None = None
    source: Literal["plan", "calendar"] | None = None
    kind: Literal["training", "rest"] | None = None
    status: Literal["scheduled", "completed", "skipped", "missed"] | None = None
    focus_has: str | None = None


class CalendarExpect(Strict):
    """The calendar after the turn, read through `GET /workouts` (from two weeks back to four ahead)."""

    added: list[CalendarEntryMatch] = Field(default_factory=list)
    """Entries new in the turn that must match, each by a different entry."""
    has: list[CalendarEntryMatch] = Field(default_factory=list)
    moved: int | None = None
    """Training sessions (same id) whose day changed in the turn."""
    moved_from: int | None = None
    """The session that was this many days ahead is the one that moved (its id is on another day)."""
    skipped: int | None = None
    """Sessions that became skipped in the turn."""
    missed: int | None = None
    """Sessions marked missed (in all)."""
    adapted: bool | None = None
    """A session still to come was changed for a missed one (its notes say so)."""
    training_days: list[str] | None = None
    """Every training session still scheduled from today on is on one of these weekdays."""
    no_hard_back_to_back: bool = False
    """No two hard sessions still to come (scheduled) are on consecutive days."""


class StateExpect(Strict):
    """The stored state after the turn."""

    calendar: CalendarExpect | None = None
    history_added: int | None = None
    history_has: list[HistoryMatch] = Field(default_factory=list)
    history_added_match: list[HistoryMatch] = Field(default_factory=list)
    """Rows added by this turn (or since the start, at the end) that must match, in any order."""
    history_lacks: list[str] = Field(default_factory=list)
    preferences_has: list[PreferenceMatch] = Field(default_factory=list)
    preferences_lacks: list[str] = Field(default_factory=list)
    no_new_permanent_preferences: bool = False
    """Nothing said about today only may become a permanent preference."""
    category_goals: dict[str, float] | None = None
    muscle_goals: dict[str, float] | None = None
    current_location: str | None = None
    schedule_has: list[ScheduleMatch] = Field(default_factory=list)
    schedule_lacks: list[ScheduleMatch] = Field(default_factory=list)
    schedule_added: int | None = None
    plan_has: PlanMatch | None = None
    program_has: ProgramMatch | None = None
    history_added_from_workout: bool = False
    """The rows added are the current workout's open exercises as planned (names, reps, loads, holds)."""
    workout_open: bool | None = None
    completed_in_workout: list[str] | None = None
    """Names (phrases) of the current workout's exercises marked completed, exactly these."""
    settings: dict[str, str] | None = None
    milestones_has: list[MilestoneMatch] = Field(default_factory=list)
    readiness_added: int | None = None
    readiness_has: ReadinessMatch | None = None
    location_has: LocationMatch | None = None
    locations_count: int | None = None
    profile_has: ProfileMatch | None = None


class LoadMentions(Strict):
    """Loads quoted in the reply (numbers followed by kg/lb)."""

    unit: Literal["kg", "lbs"]
    min: float | None = None
    max: float | None = None
    required: bool = True


class Expect(Strict):
    tools: list[str] = Field(default_factory=list)
    """Each called, and succeeded, in the turn."""
    tools_any: list[str] = Field(default_factory=list)
    """At least one of these called successfully."""
    no_tools: list[str] = Field(default_factory=list)
    mentions: list[str] = Field(default_factory=list)
    """Each in the reply (case-insensitive; `/regex/` for a pattern)."""
    mentions_any: list[str] = Field(default_factory=list)
    not_mentions: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    """Named truths computed from the stored data the reply must state (tests/scenarios/facts.py)."""
    asks: bool | None = None
    """The reply asks the user something (a question) - or must not."""
    question_options: list[str] = Field(default_factory=list)
    """The reply asks ONE question (one '?') with quick options, these phrases among them."""
    changed: list[Domain] = Field(default_factory=list)
    unchanged: list[Domain] = Field(default_factory=list)
    workout: WorkoutExpect | None = None
    names_new_exercises: bool = False
    """The reply names every exercise the turn put in the workout."""
    timers: int | bool | None = None
    """The response delivers timers (True, or at least this many)."""
    state: StateExpect | None = None
    loads: LoadMentions | None = None


class Turn(Strict):
    say: str
    current_workout: Literal["shown", "none"] = "shown"
    """Send the workout the phone shows (the last one a reply gave it), or nothing."""
    new_session: bool = False
    """Start a new conversation: the turn is sent without the session id, so it opens a session whose
    history is empty and that shows no workout yet; everything stored for the user stays (a later
    conversation, recalling what an earlier one saved)."""
    adds_rules: Rules | None = None
    expect: Expect = Field(default_factory=Expect)


Area = Literal[
    "generation", "swap", "adjust", "add_remove", "logging", "correction", "undo", "statistics",
    "progression", "goals", "preferences", "location", "schedule", "timers", "questions", "injury",
    "units", "open_question", "truthfulness", "programs", "milestones", "readiness", "calendar", "onboarding",
    "safety", "health",
]  # fmt: skip


class Scenario(Strict):
    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]+$")]
    title: str
    areas: list[Area] = Field(min_length=1)
    user: UserSpec = Field(default_factory=UserSpec)
    rules: Rules = Field(default_factory=Rules)
    turns: list[Turn] = Field(min_length=1)
    final: Expect | None = None
    """Checked after the last turn against the state before the first."""
    source: str = ""

    @model_validator(mode="after")
    def _new_session_after_the_first_turn(self) -> Self:
        if self.turns[0].new_session:
            raise ValueError("the first turn opens a session of its own: new_session is for a later turn")
        return self


def load_scenarios(directory: Path = DATA_DIR) -> list[Scenario]:
    """Every scenario of every YAML file, ids unique. A file holds a list of scenarios, or a mapping
    whose `scenarios` are the list (its other keys hold YAML anchors the scenarios share)."""
    scenarios: list[Scenario] = []
    for path in sorted(directory.glob("*.yaml")):
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        items = raw["scenarios"] if isinstance(raw, dict) else raw
        for item in items:
            scenario = Scenario.model_validate({**item, "source": path.name})
            scenarios.append(scenario)
    ids = [s.id for s in scenarios]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate scenario ids: {', '.join(duplicates)}")
    return scenarios
