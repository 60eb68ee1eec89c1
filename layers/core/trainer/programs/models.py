"""The program pipeline's data: what a plan is built from, the plan, a week of days, and the drafts a
model (or the offline drafter) answers with before code computes loads, reps and volume.

Drafts are what a model may decide: the structure (methodology, phases, weekly pattern, exercise per
slot) and the words. Everything numeric a lifter depends on (sets, reps, loads, rest, deload volume) is
filled in by code (`trainer.programs.plan.finalize.finalize_plan`,
`trainer.programs.microcycle.week.finalize_week`).
Draft fields are all required (nullable where optional), so a strict JSON schema accepts them.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trainer.domain.muscles import Muscle
from trainer.domain.weekdays import WEEKDAYS, Weekday
from trainer.domain.workout import STRICT_NUMBERS, Workout

Experience = Literal["beginner", "intermediate", "advanced"]
Methodology = Literal[
    "full_body", "upper_lower", "push_pull_legs", "upper_lower_ppl", "powerlifting", "bodybuilding"
]
SlotRole = Literal["main", "secondary", "accessory", "core", "conditioning", "mobility"]
SlotKind = Literal["reps", "hold", "duration"]
DayKind = Literal["training", "rest"]
PlanStatus = Literal["pending", "ready", "failed"]

MIN_WEEKS = 4
MAX_WEEKS = 16
SMS_LIMIT = 1600

METHODOLOGY_LABELS: dict[str, str] = {
    "full_body": "Full body",
    "upper_lower": "Upper/lower split",
    "push_pull_legs": "Push/pull/legs",
    "upper_lower_ppl": "Upper/lower + push/pull/legs",
    "powerlifting": "Powerlifting-style (squat, bench, deadlift days)",
    "bodybuilding": "Bodybuilding split",
}


Day = date
"""`date` under another name, for fields that are themselves called `date`."""


def weekday_of(day: date) -> Weekday:
    return WEEKDAYS[day.weekday()]


# --- what a plan is built from --------------------------------------------------------------------


class PlanRequest(BaseModel):
    """What the user asked for; anything left out comes from their settings, preferences and history."""

    model_config = STRICT_NUMBERS
    weeks: int = Field(default=12, ge=MIN_WEEKS, le=MAX_WEEKS)

    days_per_week: int | None = Field(default=None, ge=1, le=7)
    training_days: list[Weekday] | None = Field(default=None, max_length=7)
    session_minutes: int | None = Field(default=None, ge=15, le=180)
    goal: str | None = Field(default=None, max_length=500, description="What the user wants, in their words")
    experience: Experience | None = None
    start_date: date | None = Field(default=None, description="First day of week 1; default today")


class PlanInputs(BaseModel):
    """Everything the plan and week builders read, resolved (trainer.programs.inputs)."""

    model_config = ConfigDict(extra="forbid")
    now: datetime
    start_date: date
    weeks: int = Field(ge=MIN_WEEKS, le=MAX_WEEKS)
    training_days: list[Weekday] = Field(min_length=1, max_length=7)
    session_minutes: int = Field(ge=15, le=180)
    experience: Experience
    goal_text: str = ""
    category_goals: dict[str, float] = Field(default_factory=dict)
    muscle_goals: dict[str, float] = Field(default_factory=dict)
    preferences: list[dict[str, Any]] = Field(default_factory=list)
    equipment: list[str] = Field(default_factory=lambda: ["bodyweight"])
    """Canonical names available at the current location (bodyweight always)."""
    location_items: list[dict[str, Any]] = Field(default_factory=list)
    """The location's equipment rows with the weights they list (load rounding)."""
    location_name: str | None = None
    weight_unit: Literal["kg", "lbs"] = "kg"
    distance_unit: Literal["km", "mi"] = "km"
    timezone: str = "UTC"
    history: list[dict[str, Any]] = Field(default_factory=list)
    """Recent logged exercises (recovery, familiarity, experience)."""
    progression_history: list[dict[str, Any]] = Field(default_factory=list)
    """The newest loaded sessions of each exercise (what progression reads)."""
    readiness: list[dict[str, Any]] = Field(default_factory=list)
    """The user's readiness check-ins of the last week (a fatigue deload reads them)."""
    deloads_taken: list[int] = Field(default_factory=list)
    """Earlier weeks of the plan built as deloads, planned or brought forward by fatigue."""

    @property
    def days_per_week(self) -> int:
        return len(self.training_days)


# --- the plan -------------------------------------------------------------------------------------


class ExerciseSlot(BaseModel):
    """One exercise of a day's pattern: what it trains, its exercise, and its prescription range."""

    model_config = STRICT_NUMBERS
    exercise: str = Field(min_length=1, max_length=120)
    pattern: str | None = Field(default=None, max_length=40, description="Movement pattern, e.g. 'squat'")
    muscle: Muscle
    role: SlotRole
    kind: SlotKind = "reps"
    sets: int = Field(ge=1, le=10)
    rep_low: int | None = Field(default=None, ge=1, le=30)
    rep_high: int | None = Field(default=None, ge=1, le=30)
    hold_sec: int | None = Field(default=None, ge=5, le=300)
    minutes: int | None = Field(default=None, ge=1, le=90)
    rest_sec: int = Field(ge=0, le=600)
    equipment: list[str] = Field(default_factory=list)


class DayPattern(BaseModel):
    model_config = STRICT_NUMBERS
    weekday: Weekday
    focus: str = Field(min_length=1, max_length=60)
    slots: list[ExerciseSlot] = Field(min_length=1, max_length=12)


class Microcycle(BaseModel):
    """A phase of the plan: its weeks, aim, deload weeks and weekly pattern."""

    model_config = STRICT_NUMBERS
    number: int = Field(ge=1, le=8)
    name: str = Field(min_length=1, max_length=60)
    goal: str = Field(min_length=1, max_length=300)
    start_week: int = Field(ge=1, le=MAX_WEEKS)
    end_week: int = Field(ge=1, le=MAX_WEEKS)
    deload_weeks: list[int] = Field(default_factory=list)
    intensity: str = Field(default="", max_length=120)
    weekly_pattern: list[DayPattern] = Field(min_length=1, max_length=7)

    def weeks(self) -> range:
        return range(self.start_week, self.end_week + 1)


class ModificationEntry(BaseModel):
    model_config = STRICT_NUMBERS
    day: date
    change: str = Field(min_length=1, max_length=300)


class FitnessPlan(BaseModel):
    model_config = STRICT_NUMBERS
    title: str = Field(min_length=1, max_length=120)
    weeks: int = Field(ge=1, le=MAX_WEEKS)
    start_date: date
    training_days: list[Weekday] = Field(min_length=1, max_length=7)
    session_minutes: int = Field(ge=10, le=240)
    experience: Experience
    methodology: Methodology
    philosophy: str = Field(min_length=1, max_length=2000)
    goals: list[str] = Field(default_factory=list)
    equipment: list[str] = Field(default_factory=list)
    """What the plan was built for (the location's equipment)."""
    weight_unit: Literal["kg", "lbs"] = "kg"
    microcycles: list[Microcycle] = Field(min_length=1, max_length=8)
    progression_strategy: list[str] = Field(min_length=1, max_length=12)
    modification_history: list[ModificationEntry] = Field(default_factory=list)

    @property
    def days_per_week(self) -> int:
        return len(self.training_days)

    @property
    def deload_weeks(self) -> list[int]:
        return sorted({w for m in self.microcycles for w in m.deload_weeks})

    def microcycle_for(self, week: int) -> Microcycle:
        for cycle in self.microcycles:
            if cycle.start_week <= week <= cycle.end_week:
                return cycle
        raise ValueError(f"week {week} is outside the plan (1-{self.weeks})")


# --- a week ---------------------------------------------------------------------------------------


class PlanDay(BaseModel):
    model_config = STRICT_NUMBERS
    date: Day
    weekday: Weekday
    kind: DayKind
    focus: str | None = Field(default=None, max_length=60)
    workout: Workout | None = None
    notes: list[str] = Field(default_factory=list)
    """What changed from the plan and why (a slot skipped for recovery, an exercise swapped)."""
    recovery_notes: str | None = Field(default=None, max_length=2000)
    message: str | None = Field(default=None, max_length=SMS_LIMIT)


class PlanWeek(BaseModel):
    model_config = STRICT_NUMBERS
    plan_id: str | None = None
    week_number: int = Field(ge=1, le=MAX_WEEKS)
    microcycle: int = Field(ge=1)
    deload: bool = False
    start_date: date
    days: list[PlanDay]


# --- drafts: what a model answers with --------------------------------------------------------------


class SlotDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    exercise: str = Field(min_length=1, max_length=120, description="Exercise name")
    pattern: str | None = Field(
        max_length=40, description="Movement pattern (squat, hip hinge, horizontal push...) or null"
    )
    muscle: Muscle = Field(description="Primary muscle of the slot")
    role: SlotRole
    sets: int = Field(ge=1, le=10)
    rep_low: int | None = Field(ge=1, le=30)
    rep_high: int | None = Field(ge=1, le=30)


class DayDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    weekday: Weekday
    focus: str = Field(min_length=1, max_length=60)
    slots: list[SlotDraft] = Field(min_length=1, max_length=12)


class MicrocycleDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=60)
    goal: str = Field(min_length=1, max_length=300)
    start_week: int = Field(ge=1, le=MAX_WEEKS)
    end_week: int = Field(ge=1, le=MAX_WEEKS)
    deload_weeks: list[int]
    intensity: str = Field(max_length=120)
    weekly_pattern: list[DayDraft] = Field(min_length=1, max_length=7)


class PlanDraft(BaseModel):
    """The `fitness_plan` agent's answer: structure and words; code fills in the numbers."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=120)
    methodology: Methodology
    philosophy: str = Field(min_length=1, max_length=2000)
    microcycles: list[MicrocycleDraft] = Field(min_length=1, max_length=8)
    progression_strategy: list[str] = Field(min_length=1, max_length=12)


class DayPlanDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    date: Day
    kind: DayKind
    exercises: list[str] = Field(
        max_length=12, description="Training days: one exercise per slot of the day's pattern, in order"
    )
    warmup: list[str] = Field(max_length=6, description="Warm-up exercise names")
    cooldown: list[str] = Field(max_length=6, description="Cool-down stretch names")
    notes: str | None = Field(max_length=500)
    recovery_notes: str | None = Field(max_length=1000, description="Rest days: what to do to recover")


class WeekDraft(BaseModel):
    """The `microcycle` agent's answer: the week's days, exercise per slot and words; code fills in sets,
    reps, loads and deload volume from the user's history."""

    model_config = ConfigDict(extra="forbid")
    week_number: int = Field(ge=1, le=MAX_WEEKS)
    days: list[DayPlanDraft] = Field(min_length=1, max_length=7)


Section = Literal["warmup", "main", "cooldown"]


class ExerciseDraft(BaseModel):
    """One exercise as written in a pasted workout."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    name: str = Field(min_length=1, max_length=120)
    section: Section
    sets: int | None = Field(ge=1, le=20)
    reps: list[int] | None = Field(description="Reps per set, or one value for every set")
    loads: list[float] | None = Field(description="Load per set, or one value for every set")
    load_unit: Literal["kg", "lbs"] | None
    hold_sec: int | None = Field(ge=1, le=3600)
    duration_min: float | None = Field(gt=0, le=600)
    distance: float | None = Field(gt=0, le=1000)
    distance_unit: Literal["km", "mi"] | None
    rounds: int | None = Field(ge=1, le=100)
    work_sec: int | None = Field(ge=1, le=3600)
    rest_sec: int | None = Field(ge=0, le=900)
    target_pace: str | None = Field(max_length=40, description="Pace such as '5:30/km'")
    superset: str | None = Field(max_length=10, description="Label shared by grouped exercises (A for A1/A2)")
    notes: str | None = Field(max_length=300)


class WorkoutDraft(BaseModel):
    """The `workout_structure` agent's answer (and the offline parser's)."""

    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(max_length=120)
    exercises: list[ExerciseDraft] = Field(max_length=30)
    unrecognised: list[str] = Field(max_length=50, description="Lines that are not an exercise")


class MessageInput(BaseModel):
    """What the `workout_message` agent turns into a text."""

    model_config = ConfigDict(extra="forbid")
    day: PlanDay
    week_number: int | None = None
    plan_title: str | None = None


class MessageLine(BaseModel):
    """One exercise of a day's main work as its message lists it, the numbers written by code."""

    model_config = ConfigDict(extra="forbid")
    exercise: str = Field(description="The name as the message shows it (Barbell as BB, Dumbbell as DB)")
    prescription: str = Field(description="Sets, reps and load, e.g. '4×8 @ 60 kg', '3×45s hold', '20 min'")
    rest: str | None = Field(default=None, description="Rest between sets, e.g. '90s', '2 min'")


class MessageDay(BaseModel):
    """A day as its message is written from (`trainer.programs.messages.message_day`): the heading, the
    warm-up and cool-down as names and minutes, the main work as lines, the notes; a rest day its
    recovery notes. A fraction of the size of the day's workout in the app's schema (muscles, goals,
    groups), which the text does not use."""

    model_config = ConfigDict(extra="forbid")
    weekday: Weekday | None = None
    kind: DayKind = "training"
    focus: str | None = None
    deload: bool | None = Field(default=None, description="true in a deload week")
    warmup_min: int | None = None
    warmup: list[str] | None = None
    main: list[MessageLine] | None = None
    cooldown_min: int | None = None
    cooldown: list[str] | None = None
    notes: list[str] | None = None
    recovery_notes: str | None = None


class WeekMessagesInput(BaseModel):
    """What the `week_messages` agent turns into one text per day, in the days' order."""

    model_config = ConfigDict(extra="forbid")
    days: list[MessageDay] = Field(min_length=1, max_length=7)
    week_number: int | None = None
    plan_title: str | None = None


class WeekMessagesDraft(BaseModel):
    """The `week_messages` agent's answer: one message per day of the input, in order."""

    model_config = ConfigDict(extra="forbid")
    messages: list[str] = Field(description="One message per day of the input, in the same order")


# --- agent inputs and final outputs ---------------------------------------------------------------


class WeekInput(BaseModel):
    """The `microcycle` agent's input: the plan, the week to build and the user's situation now."""

    model_config = ConfigDict(extra="forbid")
    plan: FitnessPlan
    week_number: int = Field(ge=1, le=MAX_WEEKS)
    inputs: PlanInputs
    plan_id: str | None = None
    instructions: str | None = Field(
        default=None, max_length=1000, description="What the user asked to change"
    )


class StructureInput(BaseModel):
    """The `workout_structure` agent's input: pasted text and the units to express it in."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=20000)
    weight_unit: Literal["kg", "lbs"] | None = None
    distance_unit: Literal["km", "mi"] | None = None
    category_goals: dict[str, float] = Field(default_factory=dict)


class PlanResult(BaseModel):
    """What the `fitness_plan` agent returns once code has finalized the draft."""

    plan: FitnessPlan
    markdown: str


class StructuredWorkout(BaseModel):
    """What the `workout_structure` agent returns: the workout and the lines that were not exercises."""

    workout: Workout
    unrecognised: list[str] = Field(default_factory=list)
