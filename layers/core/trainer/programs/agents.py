"""The four program agents (seed 003) as registry definitions, with their offline implementations,
validators, transforms, callbacks, a tool and two context providers.

Every backend answers with a draft (`PlanDraft`, `WeekDraft`, message text, `WorkoutDraft`): structure,
exercise choice and words. Validators finalize the draft in code (`finalize_plan`, `finalize_week`,
`finalize_structure`) and check the result, so a model's draft and the offline drafter's go through the
same path and a rejected draft goes back to the model with the reasons. On success a callback replaces
the draft with the finalized output: `PlanResult`, `PlanWeek` (each day's message attached),
the text cut to 1,600 characters, `StructuredWorkout`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from functools import cache
from typing import Any

from pydantic import BaseModel, Field

from trainer.agents.definitions import AgentDefinition, CallbackSpec, OutputSpec, RetryPolicy, SubAgentSpec
from trainer.agents.registry import (
    AgentTool,
    CallbackEvent,
    ContextRequest,
    OfflineContext,
    Registries,
    ToolCallContext,
)
from trainer.domain.movements import PATTERNS
from trainer.domain.muscles import Muscle
from trainer.domain.text import escape_text
from trainer.programs.messages import enforce_length, render_workout_markdown, workout_message
from trainer.programs.microcycle import WEEK_VALIDATORS, build_week, draft_week, finalize_week
from trainer.programs.models import (
    SMS_LIMIT,
    MessageInput,
    PlanDraft,
    PlanInputs,
    PlanResult,
    PlanWeek,
    SlotRole,
    StructuredWorkout,
    StructureInput,
    WeekDraft,
    WeekInput,
    WorkoutDraft,
)
from trainer.programs.plan import (
    PLAN_VALIDATORS,
    PlanError,
    build_plan,
    draft_plan,
    finalize_plan,
    render_plan_markdown,
)
from trainer.programs.selection import constraints_for, ranked_candidates
from trainer.programs.structure import StructureError, finalize_structure, parse_workout_text

FITNESS_PLAN = "fitness_plan"
MICROCYCLE = "microcycle"
WORKOUT_MESSAGE = "workout_message"
WORKOUT_STRUCTURE = "workout_structure"
EXERCISE_OPTIONS = "exercise_options"
OPTIONS_LISTED = 8

SCHEMAS: dict[str, type[BaseModel]] = {
    "plan_inputs": PlanInputs,
    "plan_draft": PlanDraft,
    "week_input": WeekInput,
    "week_draft": WeekDraft,
    "message_input": MessageInput,
    "structure_input": StructureInput,
    "workout_draft": WorkoutDraft,
}

PROGRAM_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        name=FITNESS_PLAN,
        description="Generates a 4-16-week training plan from the user's profile, goals, equipment, history",
        model_role="main",
        input_schema="plan_inputs",
        tools=(EXERCISE_OPTIONS,),
        context_types=("example_plan",),
        output=OutputSpec.json_of("plan_draft"),
        validators=("plan_finalizes", *PLAN_VALIDATORS),
        callbacks=(CallbackSpec(name="finalize_plan", when="on_success"),),
        retry=RetryPolicy(max_retries=2, retry_on=("validation_error",), backoff_ms=1000),
        timeout_seconds=60,
        cost_category="high",
        max_tokens=8192,
    ),
    AgentDefinition(
        name=MICROCYCLE,
        description="Generates the 7 days of a plan's week: structured workouts with loads from history",
        model_role="main",
        input_schema="week_input",
        tools=(EXERCISE_OPTIONS,),
        context_types=("example_workout",),
        output=OutputSpec.json_of("week_draft"),
        validators=("week_finalizes", *WEEK_VALIDATORS),
        sub_agents=(
            SubAgentSpec(
                agent=WORKOUT_MESSAGE,
                transform="week_day_messages",
                fan_out=True,
                cache_output=True,
                optional=True,
            ),
            SubAgentSpec(
                agent=WORKOUT_STRUCTURE,
                transform="week_day_markdown",
                trigger="on_demand",
                fan_out=True,
                cache_output=True,
                optional=True,
            ),
        ),
        callbacks=(CallbackSpec(name="finalize_week", when="on_success"),),
        retry=RetryPolicy(max_retries=2, retry_on=("validation_error",), backoff_ms=2000),
        timeout_seconds=90,
        cost_category="high",
        max_tokens=12288,
    ),
    AgentDefinition(
        name=WORKOUT_MESSAGE,
        description="Turns a day's workout into a push/SMS text of at most 1,600 characters",
        model_role="light",
        input_schema="message_input",
        output=OutputSpec(kind="text"),
        validators=("message_length",),
        callbacks=(CallbackSpec(name="enforce_length", when="on_success"),),
        retry=RetryPolicy(max_retries=1, retry_on=("validation_error",), backoff_ms=0),
        timeout_seconds=20,
        cost_category="low",
        max_tokens=1024,
    ),
    AgentDefinition(
        name=WORKOUT_STRUCTURE,
        description="Turns a pasted workout (free text or markdown) into the app's structured workout",
        model_role="light",
        input_schema="structure_input",
        output=OutputSpec.json_of("workout_draft"),
        validators=("structure_valid",),
        callbacks=(CallbackSpec(name="finalize_structure", when="on_success"),),
        retry=RetryPolicy(max_retries=1, retry_on=("validation_error",), backoff_ms=500),
        timeout_seconds=15,
        cost_category="low",
        max_tokens=2048,
    ),
)


# --- finalizing once per (draft, input) -----------------------------------------------------------


class _Memo:
    """The last finalized value per kind, for the draft and input objects it was made from (validators,
    transforms and callbacks of one run see the same objects)."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[Any, Any, Any]] = {}

    def get(self, kind: str, draft: Any, given: Any, make: Callable[[], Any]) -> Any:
        last = self._last.get(kind)
        if last is not None and last[0] is draft and last[1] is given:
            return last[2]
        try:
            value: Any = make()
        except (PlanError, StructureError, ValueError) as exc:
            value = exc
        self._last[kind] = (draft, given, value)
        return value


_memo = _Memo()


def final_plan(draft: PlanDraft, inputs: PlanInputs) -> PlanResult | Exception:
    def make() -> PlanResult:
        plan = finalize_plan(draft, inputs)
        return PlanResult(plan=plan, markdown=render_plan_markdown(plan))

    result: PlanResult | Exception = _memo.get("plan", draft, inputs, make)
    return result


def final_week(draft: WeekDraft, given: WeekInput) -> PlanWeek | Exception:
    def make() -> PlanWeek:
        return finalize_week(draft, given.plan, given.week_number, given.inputs, plan_id=given.plan_id)

    result: PlanWeek | Exception = _memo.get("week", draft, given, make)
    return result


def final_structure(draft: WorkoutDraft, given: StructureInput) -> StructuredWorkout | Exception:
    def make() -> StructuredWorkout:
        workout = finalize_structure(
            draft,
            weight_unit=given.weight_unit,
            distance_unit=given.distance_unit,
            category_goals=given.category_goals,
        )
        return StructuredWorkout(workout=workout, unrecognised=list(draft.unrecognised))

    result: StructuredWorkout | Exception = _memo.get("structure", draft, given, make)
    return result


# --- validators (output, input) -> errors -----------------------------------------------------------


def _plan_check(name: str) -> Callable[[Any, Any], list[str]]:
    check = PLAN_VALIDATORS[name]

    def validate(draft: Any, inputs: Any) -> list[str]:
        result = final_plan(draft, inputs)
        return [] if isinstance(result, Exception) else check(result.plan, inputs)

    return validate


def _week_check(name: str) -> Callable[[Any, Any], list[str]]:
    check = WEEK_VALIDATORS[name]

    def validate(draft: Any, given: Any) -> list[str]:
        week = final_week(draft, given)
        return [] if isinstance(week, Exception) else check(week, given.plan, given.inputs)

    return validate


def plan_finalizes(draft: Any, inputs: Any) -> list[str]:
    result = final_plan(draft, inputs)
    return [str(result)] if isinstance(result, Exception) else []


def week_finalizes(draft: Any, given: Any) -> list[str]:
    errors = [] if draft.week_number == given.week_number else [f"this is week {given.week_number}"]
    week = final_week(draft, given)
    return [*errors, str(week)] if isinstance(week, Exception) else errors


def message_length(text: Any, message: Any) -> list[str]:
    length = len(str(text))
    return [f"the message has {length} characters; at most {SMS_LIMIT}"] if length > SMS_LIMIT else []


def structure_valid(draft: Any, given: Any) -> list[str]:
    result = final_structure(draft, given)
    return [str(result)] if isinstance(result, Exception) else []


# --- transforms (parent output, parent input) -> sub-agent input ----------------------------------


def week_day_messages(draft: Any, given: Any) -> list[MessageInput]:
    week = final_week(draft, given)
    if isinstance(week, Exception):
        return []
    return [
        MessageInput(day=day, week_number=week.week_number, plan_title=given.plan.title) for day in week.days
    ]


def week_day_markdown(draft: Any, given: Any) -> list[StructureInput]:
    week = final_week(draft, given)
    if isinstance(week, Exception):
        return []
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


async def finalize_plan_callback(event: CallbackEvent) -> PlanResult | None:
    result = final_plan(event.output, event.input)
    return None if isinstance(result, Exception) else result


async def finalize_week_callback(event: CallbackEvent) -> PlanWeek | None:
    """The finalized week with each day's message: the sub-agent's, else the offline text."""
    week = final_week(event.output, event.input)
    if isinstance(week, Exception):
        return None
    return attach_messages(week, event.sub_outputs.get(WORKOUT_MESSAGE), event.input.plan.title)


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


async def finalize_structure_callback(event: CallbackEvent) -> StructuredWorkout | None:
    result = final_structure(event.output, event.input)
    return None if isinstance(result, Exception) else result


# --- offline implementations ----------------------------------------------------------------------


async def offline_fitness_plan(inputs: PlanInputs, context: OfflineContext) -> PlanDraft:
    return draft_plan(inputs)


async def offline_microcycle(given: WeekInput, context: OfflineContext) -> WeekDraft:
    return draft_week(given.plan, given.week_number, given.inputs)


async def offline_workout_message(message: MessageInput, context: OfflineContext) -> str:
    return workout_message(message)


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


async def exercise_options(args: BaseModel, ctx: ToolCallContext) -> str:
    """The exercises the user can do for a slot (their equipment, level, injuries and preferences)."""
    assert isinstance(args, ExerciseOptionsArgs)
    inputs = ctx.input.inputs if isinstance(ctx.input, WeekInput) else ctx.input
    if not isinstance(inputs, PlanInputs):
        return "No user data to choose from."
    rules = constraints_for(inputs.equipment, inputs.preferences, inputs.experience, inputs.history)
    ranked = ranked_candidates(rules, pattern=args.pattern, muscle=args.muscle, role=args.role)
    if not ranked:
        return f"No exercise for {args.muscle} fits this user's equipment and constraints."
    names = "; ".join(e.name for e in ranked[:OPTIONS_LISTED])
    return f"Best first, for {args.muscle} ({args.pattern or 'any pattern'}, {args.role}): {names}"


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


async def example_plan_context(request: ContextRequest) -> str:
    return "An example plan (structure only; the user's own plan follows their data):\n" + escape_text(
        example_plan_markdown()
    )


async def example_workout_context(request: ContextRequest) -> str:
    return "An example training day (numbers are computed in code):\n" + escape_text(
        example_workout_markdown()
    )


# --- registration ---------------------------------------------------------------------------------


def register_program_agents(registries: Registries) -> None:
    """Registers the four program agents and everything they name."""
    agents = registries.agents
    for name, model in SCHEMAS.items():
        agents.register_schema(name, model)
    agents.register_validator("plan_finalizes", plan_finalizes)
    for name in PLAN_VALIDATORS:
        agents.register_validator(name, _plan_check(name))
    agents.register_validator("week_finalizes", week_finalizes)
    for name in WEEK_VALIDATORS:
        agents.register_validator(name, _week_check(name))
    agents.register_validator("message_length", message_length)
    agents.register_validator("structure_valid", structure_valid)
    agents.register_transform("week_day_messages", week_day_messages)
    agents.register_transform("week_day_markdown", week_day_markdown)
    registries.callbacks.register("finalize_plan", finalize_plan_callback, "the plan from its draft, in code")
    registries.callbacks.register("finalize_week", finalize_week_callback, "the week from its draft, in code")
    registries.callbacks.register("enforce_length", enforce_length_callback, "cut a text to 1,600 characters")
    registries.callbacks.register(
        "finalize_structure", finalize_structure_callback, "the workout from its draft, in code"
    )
    registries.offline.register(FITNESS_PLAN, offline_fitness_plan)
    registries.offline.register(MICROCYCLE, offline_microcycle)
    registries.offline.register(WORKOUT_MESSAGE, offline_workout_message)
    registries.offline.register(WORKOUT_STRUCTURE, offline_workout_structure)
    registries.contexts.register("example_plan", example_plan_context)
    registries.contexts.register("example_workout", example_workout_context)
    registries.tools.register(
        AgentTool(
            name=EXERCISE_OPTIONS,
            description="List the exercises this user can do for a slot (primary muscle, movement pattern, "
            "role), best first: only their equipment and level, nothing their injuries or preferences rule "
            "out.",
            args=ExerciseOptionsArgs,
            execute=exercise_options,
            priority=10,
            kind="query",
        )
    )
    for definition in PROGRAM_AGENTS:
        agents.register(definition)
