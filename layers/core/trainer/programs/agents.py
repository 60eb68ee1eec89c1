"""The program agents (docs/programs.md) as definitions pointing at their code: offline implementations,
finalizers, validators, model views, transforms, callbacks, a tool and the context providers.

Every backend answers with a draft (`PlanDraft`, `WeekDraft`, message text, `WorkoutDraft`): structure,
exercise choice and words. Each definition's `finalize` turns the draft into the output in code
(`PlanResult`, `PlanWeek`, `StructuredWorkout`) and says what is wrong with it, so a model's draft and the
offline drafter's go through the same path and a rejected draft goes back to the model with the reasons;
the factory hands the finalized output to the validators, the sub-agents' transforms and the callbacks
(the week's messages attached, the text cut to 1,600 characters).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, date, datetime
from functools import cache
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from trainer.agents.definitions import (
    AgentDefinition,
    Callback,
    CallbackEvent,
    ContextProvider,
    ContextRequest,
    OfflineContext,
    OutputSpec,
    Rejected,
    RetryPolicy,
    SubAgent,
)
from trainer.agents.wire import INPUT_CLOSE, INPUT_OPEN, render_input
from trainer.domain.movements import PATTERNS
from trainer.domain.muscles import Muscle
from trainer.domain.text import escape_text
from trainer.programs.messages import (
    day_message,
    enforce_length,
    message_day,
    render_workout_markdown,
    workout_message,
)
from trainer.programs.microcycle.checks import WEEK_VALIDATORS
from trainer.programs.microcycle.week import build_week, draft_week, finalize_week
from trainer.programs.models import (
    SMS_LIMIT,
    MessageInput,
    PlanDay,
    PlanDraft,
    PlanInputs,
    PlanResult,
    PlanWeek,
    SlotRole,
    StructuredWorkout,
    StructureInput,
    WeekDraft,
    WeekInput,
    WeekMessagesDraft,
    WeekMessagesInput,
    WorkoutDraft,
)
from trainer.programs.plan.checks import PLAN_VALIDATORS
from trainer.programs.plan.draft import PlanError, draft_plan
from trainer.programs.plan.finalize import build_plan, finalize_plan
from trainer.programs.plan.render import render_plan_markdown
from trainer.programs.selection import constraints_for, ranked_candidates
from trainer.programs.structure import StructureError, finalize_structure, parse_workout_text
from trainer.tools.base import Tool, ToolContext, ToolResult

OPTIONS_LISTED = 8


# --- finalizing a draft (draft, input) -> output, or Rejected -------------------------------------


def finalize_plan_draft(draft: PlanDraft, inputs: PlanInputs) -> PlanResult:
    try:
        plan = finalize_plan(draft, inputs)
    except (PlanError, ValueError) as exc:
        raise Rejected([str(exc)]) from exc
    return PlanResult(plan=plan, markdown=render_plan_markdown(plan))


def finalize_week_draft(draft: WeekDraft, given: WeekInput) -> PlanWeek:
    """The week in code, rejected with every reason at once: the wrong week number, a draft that cannot
    be finalized, or a finalized week that breaks the week checks (WEEK_VALIDATORS)."""
    errors = [] if draft.week_number == given.week_number else [f"this is week {given.week_number}"]
    try:
        week = finalize_week(draft, given.plan, given.week_number, given.inputs, plan_id=given.plan_id)
    except (PlanError, ValueError) as exc:
        raise Rejected([*errors, str(exc)]) from exc
    for check in WEEK_VALIDATORS.values():
        errors.extend(check(week, given.plan, given.inputs))
    if errors:
        raise Rejected(errors)
    return week


def finalize_structure_draft(draft: WorkoutDraft, given: StructureInput) -> StructuredWorkout:
    try:
        workout = finalize_structure(
            draft,
            weight_unit=given.weight_unit,
            distance_unit=given.distance_unit,
            category_goals=given.category_goals,
        )
    except (StructureError, ValueError) as exc:
        raise Rejected([str(exc)]) from exc
    return StructuredWorkout(workout=workout, unrecognised=list(draft.unrecognised))


def finalize_week_messages(draft: WeekMessagesDraft, given: WeekMessagesInput) -> list[str]:
    """The messages, one per day; a draft with another count is rejected (which day is which would be
    a guess)."""
    if len(draft.messages) != len(given.days):
        raise Rejected([f"{len(draft.messages)} messages for {len(given.days)} days; one per day, in order"])
    return list(draft.messages)


# --- validators (output, input) -> errors -----------------------------------------------------------


def plan_checks(result: PlanResult, inputs: PlanInputs) -> list[str]:
    """The plan's rules (PLAN_VALIDATORS), on the finalized plan."""
    return [error for check in PLAN_VALIDATORS.values() for error in check(result.plan, inputs)]


def message_length(text: str, message: MessageInput) -> list[str]:
    length = len(str(text))
    return [f"the message has {length} characters; at most {SMS_LIMIT}"] if length > SMS_LIMIT else []


def week_message_lengths(texts: list[str], given: WeekMessagesInput) -> list[str]:
    return [
        f"the message for {day.weekday} has {len(text)} characters; at most {SMS_LIMIT}"
        for day, text in zip(given.days, texts, strict=True)
        if len(text) > SMS_LIMIT
    ]


# --- model views (typed input) -> what the model is sent ------------------------------------------

HISTORY_VIEW_FIELDS = ("performed_at", "exercise_name", "muscles")
"""What the week's model reads of a logged exercise: when, what and the muscles it worked (recovery);
sets, reps and loads feed the loads code computes, not the model's choice."""


def week_input_view(given: WeekInput) -> WeekInput:
    """The `microcycle` model's input: the plan with only the phase this week is in (the other phases'
    patterns do not apply to it), and of the user's situation what choosing exercises depends on. The
    numbers' sources (the progression history, the location's listed weights, the check-ins and deloads
    a fatigue deload reads) and the muscle goals the plan was built from stay with code: the agent's
    finalizer and its tool still get the whole input."""
    cycle = given.plan.microcycle_for(given.week_number)
    inputs = given.inputs
    history = [{k: row[k] for k in HISTORY_VIEW_FIELDS if k in row} for row in inputs.history]
    slim = inputs.model_copy(
        update={
            "progression_history": [],
            "location_items": [],
            "muscle_goals": {},
            "history": history,
            "readiness": [],
            "deloads_taken": [],
        }
    )
    return given.model_copy(
        update={"plan": given.plan.model_copy(update={"microcycles": [cycle]}), "inputs": slim}
    )


# --- transforms (parent output, parent input) -> sub-agent input ----------------------------------


def week_messages_input(week: PlanWeek, given: WeekInput) -> WeekMessagesInput:
    """The week's days as their messages are written from: names, minutes and lines with their
    numbers, not the workouts in the app's schema (muscles, goals, groups), which the texts do not use."""
    return WeekMessagesInput(
        days=[message_day(day.workout, day) for day in week.days],
        week_number=week.week_number,
        plan_title=given.plan.title,
    )


def week_day_markdown(week: PlanWeek, given: WeekInput) -> list[StructureInput]:
    return [
        StructureInput(
            text=render_workout_markdown(day.workout, day),
            weight_unit=given.inputs.weight_unit,
            distance_unit=given.inputs.distance_unit,
        )
        for day in week.days
        if day.workout is not None
    ]


# --- callbacks ------------------------------------------------------------------------------------


async def attach_day_messages(event: CallbackEvent) -> PlanWeek | None:
    """The finalized week with each day's message: the sub-agent's, else the offline text."""
    if not isinstance(event.output, PlanWeek):
        return None
    return attach_messages(event.output, event.sub_outputs.get(WEEK_MESSAGES.name), event.input.plan.title)


def attach_messages(
    week: PlanWeek, messages: Sequence[Any] | None, plan_title: str | None = None
) -> PlanWeek:
    given = list(messages or [])
    days = []
    for i, day in enumerate(week.days):
        text = given[i] if i < len(given) and isinstance(given[i], str) and given[i].strip() else None
        if text is None:
            text = workout_message(MessageInput(day=day, week_number=week.week_number, plan_title=plan_title))
        days.append(day.model_copy(update={"message": enforce_length(text)}))
    return week.model_copy(update={"days": days})


async def enforce_length_callback(event: CallbackEvent) -> str | None:
    return enforce_length(event.output) if isinstance(event.output, str) else None


# --- offline implementations ----------------------------------------------------------------------


async def offline_fitness_plan(inputs: PlanInputs, context: OfflineContext) -> PlanDraft:
    return draft_plan(inputs)


async def offline_microcycle(given: WeekInput, context: OfflineContext) -> WeekDraft:
    return draft_week(given.plan, given.week_number, given.inputs)


async def offline_workout_message(message: MessageInput, context: OfflineContext) -> str:
    return workout_message(message)


async def offline_week_messages(given: WeekMessagesInput, context: OfflineContext) -> WeekMessagesDraft:
    return WeekMessagesDraft(messages=[day_message(day, given.week_number) for day in given.days])


async def offline_workout_structure(given: StructureInput, context: OfflineContext) -> WorkoutDraft:
    """Parsed in a worker thread: the parse is bounded per line (trainer.programs.structure) but a long
    paste still takes a second or two, which must not hold the event loop (other requests, /health)."""
    return await asyncio.to_thread(parse_workout_text, given.text)


# --- the tool: exercises a slot can take ----------------------------------------------------------


class ExerciseOptionsArgs(BaseModel):
    muscle: Muscle = Field(description="The slot's primary muscle")
    pattern: str | None = Field(
        default=None,
        max_length=40,
        description="Movement pattern: " + ", ".join(p for p, _ in PATTERNS) + "; null for any",
    )
    role: SlotRole = "main"


class ExerciseOptionsResult(ToolResult):
    muscle: str
    pattern: str | None = None
    role: str
    exercises: list[str] = Field(default_factory=list)
    """Best first."""
    note: str | None = None
    """Why there is nothing to choose from."""


class ExerciseOptions(Tool[ExerciseOptionsArgs, ExerciseOptionsResult]):
    """The exercises the user can do for a slot (their equipment, level, injuries and preferences),
    from the plan inputs of the agent run that calls it."""

    name: ClassVar[str] = "exercise_options"
    description: ClassVar[str] = (
        "List the exercises this user can do for a slot (primary muscle, movement pattern, role), best "
        "first: only their equipment and level, nothing their injuries or preferences rule out."
    )
    Args = ExerciseOptionsArgs
    Result = ExerciseOptionsResult
    priority: ClassVar[int] = 10

    async def execute(self, args: ExerciseOptionsArgs, ctx: ToolContext) -> ExerciseOptionsResult:
        given = ctx.agent_input
        inputs = given.inputs if isinstance(given, WeekInput) else given
        result = ExerciseOptionsResult(muscle=args.muscle, pattern=args.pattern, role=args.role)
        if not isinstance(inputs, PlanInputs):
            return result.model_copy(update={"note": "No user data to choose from."})
        rules = constraints_for(inputs.equipment, inputs.preferences, inputs.experience, inputs.history)
        ranked = ranked_candidates(rules, pattern=args.pattern, muscle=args.muscle, role=args.role)
        if not ranked:
            note = f"No exercise for {args.muscle} fits this user's equipment and constraints."
            return result.model_copy(update={"note": note})
        return result.model_copy(update={"exercises": [e.name for e in ranked[:OPTIONS_LISTED]]})

    def format(self, result: ExerciseOptionsResult) -> str:
        if result.note is not None:
            return result.note
        names = "; ".join(result.exercises)
        return f"Best first, for {result.muscle} ({result.pattern or 'any pattern'}, {result.role}): {names}"


# --- context providers ----------------------------------------------------------------------------

EXAMPLE_NOW = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


def example_inputs() -> PlanInputs:
    return PlanInputs(
        now=EXAMPLE_NOW,
        start_date=date(2026, 3, 2),
        weeks=12,
        training_days=["Monday", "Tuesday", "Thursday", "Friday"],
        session_minutes=60,
        experience="intermediate",
        category_goals={"Strength": 60.0, "Hypertrophy": 40.0},
        equipment=["barbell", "bench", "cable", "dumbbell", "machine", "pull-up bar", "rack", "treadmill"],
    )


@cache
def example_plan_markdown() -> str:
    return render_plan_markdown(build_plan(example_inputs()))


@cache
def example_workout_markdown() -> str:
    inputs = example_inputs()
    plan = build_plan(inputs)
    week = build_week(plan, 1, inputs)
    day = next(d for d in week.days if d.workout is not None)
    assert day.workout is not None
    return render_workout_markdown(day.workout, day)


@cache
def example_day_message() -> str:
    """The example training day (`example_workout_markdown`) as the offline writer words its message."""
    inputs = example_inputs()
    plan = build_plan(inputs)
    week = build_week(plan, 1, inputs)
    day = next(d for d in week.days if d.workout is not None)
    return workout_message(MessageInput(day=day, week_number=1, plan_title=plan.title))


@cache
def example_week_days() -> tuple[PlanDay, PlanDay]:
    """The example week's first training day and first rest day."""
    inputs = example_inputs()
    week = build_week(build_plan(inputs), 1, inputs)
    training = next(d for d in week.days if d.workout is not None)
    rest = next(d for d in week.days if d.kind == "rest")
    return training, rest


async def example_plan_context(request: ContextRequest) -> str:
    return "An example plan (structure only; the user's own plan follows their data):\n" + escape_text(
        example_plan_markdown()
    )


async def example_workout_context(request: ContextRequest) -> str:
    return "An example training day (numbers are computed in code):\n" + escape_text(
        example_workout_markdown()
    )


async def example_message_context(request: ContextRequest) -> str:
    """The same for every user and every day: with the system prompt, the prefix the seven calls of a
    week (and every user's) share, above the light model's minimum cacheable length."""
    return (
        "An example training day (markdown) and a message written from it:\n"
        + escape_text(example_workout_markdown())
        + "\n\nMessage:\n"
        + escape_text(example_day_message())
    )


async def example_week_messages_context(request: ContextRequest) -> str:
    """A training day and a rest day as the `week_messages` input gives them, each with the message the
    offline writer words from it: the same for every user and week, cached with the system prompt."""
    parts = ["An example training day and rest day as the input gives them, each with its message:"]
    for day in example_week_days():
        shown = message_day(day.workout, day)
        parts += [
            "Day: " + render_input(shown).removeprefix(INPUT_OPEN).removesuffix(INPUT_CLOSE).strip(),
            "Message:\n" + day_message(shown, 1),
        ]
    return escape_text("\n\n".join(parts))


EXAMPLE_PLAN = ContextProvider("example_plan", example_plan_context)
EXAMPLE_WORKOUT = ContextProvider("example_workout", example_workout_context)
EXAMPLE_MESSAGE = ContextProvider("example_message", example_message_context)
EXAMPLE_WEEK_MESSAGES = ContextProvider("example_week_messages", example_week_messages_context)


# --- the definitions ------------------------------------------------------------------------------

WORKOUT_MESSAGE = AgentDefinition(
    name="workout_message",
    description="Turns a day's workout into a push/SMS text of at most 1,600 characters",
    model_role="light",
    input_schema=MessageInput,
    context=(EXAMPLE_MESSAGE,),
    output=OutputSpec(kind="text"),
    validators=(message_length,),
    callbacks=(Callback(enforce_length_callback, when="on_success"),),
    offline=offline_workout_message,
    retry=RetryPolicy(max_retries=1, retry_on=("validation_error",), backoff_ms=0),
    timeout_seconds=20,
    cost_category="low",
    max_tokens=1024,
)
WEEK_MESSAGES = AgentDefinition(
    name="week_messages",
    description="Turns a week's seven days into their push/SMS texts, at most 1,600 characters each",
    model_role="light",
    input_schema=WeekMessagesInput,
    context=(EXAMPLE_WEEK_MESSAGES,),
    output=OutputSpec.json_of(WeekMessagesDraft),
    finalize=finalize_week_messages,
    validators=(week_message_lengths,),
    offline=offline_week_messages,
    retry=RetryPolicy(max_retries=1, retry_on=("validation_error",), backoff_ms=0),
    timeout_seconds=40,
    cost_category="low",
    max_tokens=6144,
)
WORKOUT_STRUCTURE = AgentDefinition(
    name="workout_structure",
    description="Turns a pasted workout (free text or markdown) into the app's structured workout",
    model_role="light",
    input_schema=StructureInput,
    output=OutputSpec.json_of(WorkoutDraft),
    finalize=finalize_structure_draft,
    offline=offline_workout_structure,
    retry=RetryPolicy(max_retries=1, retry_on=("validation_error",), backoff_ms=500),
    timeout_seconds=15,
    cost_category="low",
    max_tokens=2048,
)
FITNESS_PLAN = AgentDefinition(
    name="fitness_plan",
    description="Generates a 4-16-week training plan from the user's profile, goals, equipment, history",
    model_role="main",
    input_schema=PlanInputs,
    tools=(ExerciseOptions(),),
    context=(EXAMPLE_PLAN,),
    output=OutputSpec.json_of(PlanDraft),
    finalize=finalize_plan_draft,
    validators=(plan_checks,),
    offline=offline_fitness_plan,
    retry=RetryPolicy(max_retries=2, retry_on=("validation_error",), backoff_ms=1000),
    timeout_seconds=60,
    cost_category="high",
    max_tokens=8192,
)
MICROCYCLE = AgentDefinition(
    name="microcycle",
    description="Generates the 7 days of a plan's week: structured workouts with loads from history",
    model_role="main",
    input_schema=WeekInput,
    model_view=week_input_view,
    stable_input=("plan",),
    tools=(ExerciseOptions(),),
    context=(EXAMPLE_WORKOUT,),
    output=OutputSpec.json_of(WeekDraft),
    finalize=finalize_week_draft,
    sub_agents=(
        SubAgent(WEEK_MESSAGES, transform=week_messages_input, cache_output=True, optional=True),
        SubAgent(
            WORKOUT_STRUCTURE,
            transform=week_day_markdown,
            trigger="on_demand",
            fan_out=True,
            cache_output=True,
            optional=True,
        ),
    ),
    callbacks=(Callback(attach_day_messages, when="on_success"),),
    offline=offline_microcycle,
    retry=RetryPolicy(max_retries=2, retry_on=("validation_error",), backoff_ms=2000),
    timeout_seconds=90,
    cost_category="high",
    max_tokens=12288,
)
PROGRAM_AGENTS: tuple[AgentDefinition, ...] = (
    FITNESS_PLAN,
    MICROCYCLE,
    WEEK_MESSAGES,
    WORKOUT_MESSAGE,
    WORKOUT_STRUCTURE,
)
