"""generate_exercise_timer / generate_workout_timers: timer phases computed by
trainer.domain.timers from the current workout or an inline exercise.

Each call stores its timers as a `timer` artifact (payload: the timers in the timer format of
docs/architecture.md#tools) that the agent delivers with message_notify_user, as it delivers workouts;
the turn's reply carries the timers it built or delivered.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import BaseModel, Field, ValidationError, model_validator

from trainer.domain.timers import Timer, exercise_timer, workout_timers
from trainer.domain.workout import STRICT_NUMBERS, Exercise
from trainer.store.models import EventType
from trainer.tools.artifacts import TIMER_ARTIFACT_TYPE, TimerData
from trainer.tools.base import (
    AnyTool,
    DeliveredArtifact,
    Reply,
    StatusMessage,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    not_shown,
)
from trainer.tools.communication import ARTIFACTS_KEY
from trainer.tools.logging import current_workout, find_exercise
from trainer.tools.wording import ReplyContext, count_words, seconds_text

SCHEMA_VERSION = "1"


def duration_text(seconds: int) -> str:
    minutes, secs = divmod(int(seconds), 60)
    if not minutes:
        return f"{secs}s"
    return f"{minutes}m {secs:02d}s" if secs else f"{minutes}m"


def timer_text(timer: TimerData) -> str:
    """'Tabata intervals: 8 rounds of 20 s work and 10 s rest, 4 min in all'."""
    work = [p for p in timer.phases if p.phase_type in ("work", "hold")]
    rest = [p for p in timer.phases if p.phase_type == "rest"]
    total = seconds_text(timer.total_duration_sec)
    if timer.exercise_type == "intervals" and work:
        rest_part = f" and {seconds_text(rest[0].duration_sec)} rest" if rest else ""
        return (
            f"{timer.exercise_name}: {count_words(len(work), 'round', 'rounds')} of "
            f"{seconds_text(work[0].duration_sec)} work{rest_part}, "
            f"{total} in all"
        )
    sets = f"{len(work)} {'set' if len(work) == 1 else 'sets'}" if work else "one block"
    return f"{timer.exercise_name}: {sets}, {total}"


class TimersResult(ToolResult):
    timers: list[TimerData]
    total_duration_sec: int
    artifact_id: str | None = None
    """The timer artifact to deliver with message_notify_user (None in results stored before timers
    were artifacts)."""
    title: str | None = None

    def timer_dicts(self) -> list[dict[str, Any]]:
        return [t.model_dump(mode="json", exclude_none=True) for t in self.timers]

    def add_to_reply(self, reply: Reply) -> None:
        if self.artifact_id:
            reply.add_timers(self.artifact_id, self.timer_dicts())

    def delivered_artifact(self) -> DeliveredArtifact | None:
        return DeliveredArtifact(self.artifact_id, None) if self.artifact_id else None

    def delivery_note(self) -> str | None:
        if not self.artifact_id:
            return None
        return not_shown(self.artifact_id)

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        if len(self.timers) == 1:
            return f"Here's your timer - {timer_text(self.timers[0])}. Tap start when you're ready."
        lines = [
            f"Here are your timers: {len(self.timers)} timers, {seconds_text(self.total_duration_sec)} in "
            "all."
        ]
        lines.extend(f"- {timer_text(t)}" for t in self.timers)
        return "\n".join(lines)


async def _timer_result(timers: list[Timer], title: str, ctx: ToolContext) -> TimersResult:
    """The result, with its timers stored as a new `timer` artifact of the session."""
    data = [TimerData.model_validate(t.to_dict()) for t in timers]
    result = TimersResult(
        timers=data, total_duration_sec=sum(t.total_duration_sec for t in data), title=title
    )
    artifacts = await ctx.get_state(ARTIFACTS_KEY) or {}
    artifact_id = f"art_{secrets.token_hex(6)}"
    while artifact_id in artifacts:
        artifact_id = f"art_{secrets.token_hex(6)}"
    artifact = {
        "artifact_id": artifact_id,
        "type": TIMER_ARTIFACT_TYPE,
        "schema_version": SCHEMA_VERSION,
        "title": title,
        "summary": {
            "timer_count": len(data),
            "total_duration_sec": result.total_duration_sec,
            "timers": [t.exercise_name for t in data],
        },
        "auto_start": False,
        "payload": {"timers": result.timer_dicts(), "total_duration_sec": result.total_duration_sec},
    }
    artifacts[artifact_id] = artifact
    await ctx.put_state(ARTIFACTS_KEY, artifacts)
    await ctx.append_event(EventType.ARTIFACT, artifact)
    result.artifact_id = artifact_id
    return result


def _timer_line(timer: TimerData) -> str:
    phases = timer.phases
    counts: dict[str, int] = {}
    for phase in phases:
        counts[phase.phase_type] = counts.get(phase.phase_type, 0) + 1
    shape = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    total = timer.total_duration_sec
    return f"{timer.exercise_name}: {duration_text(total)} ({total}s; {len(phases)} phases: {shape})"


class ExerciseTimerArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_id: str | None = Field(
        default=None, max_length=64, description="Its id (ex_...) or order in the current workout"
    )
    exercise: dict[str, Any] | None = Field(
        default=None,
        description="An exercise not in the workout, with the fields of generate_workout's",
    )

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if (self.exercise_id is None) == (self.exercise is None):
            raise ValueError("give exactly one of exercise_id or exercise")
        return self


class GenerateExerciseTimer(Tool[ExerciseTimerArgs, TimersResult]):
    name = "generate_exercise_timer"
    can_finish = True
    description = "Build the timer of one exercise: of the current workout, or given inline."
    Args = ExerciseTimerArgs
    Result = TimersResult
    status: ClassVar[StatusMessage | None] = StatusMessage(start="Building your timer...", done="Timer ready")
    category = "full"

    async def execute(self, args: ExerciseTimerArgs, ctx: ToolContext) -> TimersResult:
        if args.exercise_id is not None:
            source: dict[str, Any] = find_exercise(await current_workout(ctx), args.exercise_id)
        else:
            source = args.exercise or {}
        try:
            timer = exercise_timer(source)
        except ValueError as exc:
            raise ToolError(f"cannot build a timer: {exc}") from None
        return await _timer_result([timer], f"{timer.exercise_name} timer", ctx)

    def format(self, result: TimersResult) -> str:
        timer = result.timers[0]
        phases = "\n".join(
            f"  {p.phase_type} {p.duration_sec}s: {p.cue}" + (f" ({p.detail})" if p.detail else "")
            for p in timer.phases
        )
        return f"{_timer_line(timer)}\n{phases}"


class WorkoutTimersArgs(BaseModel):
    model_config = STRICT_NUMBERS
    exercise_ids: list[str] | None = Field(
        default=None,
        max_length=30,
        description="Its exercises' ids or orders; default: all",
    )


class GenerateWorkoutTimers(Tool[WorkoutTimersArgs, TimersResult]):
    name = "generate_workout_timers"
    can_finish = True
    description = "Build timers for the current workout or some of its exercises (one per exercise or group)."
    Args = WorkoutTimersArgs
    Result = TimersResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Building your timers...", done="Timers ready"
    )
    category = "full"

    async def execute(self, args: WorkoutTimersArgs, ctx: ToolContext) -> TimersResult:
        workout = await current_workout(ctx)
        if args.exercise_ids:
            chosen = [find_exercise(workout, ref) for ref in args.exercise_ids]
            selected = list({id(ex): ex for ex in chosen}.values())
        else:
            selected = list(workout["exercises"])
        try:
            exercises = [Exercise.model_validate(ex) for ex in selected]
            timers = workout_timers(exercises)
        except (ValidationError, ValueError) as exc:
            raise ToolError(f"cannot build timers: {exc}") from None
        title = f"{workout.get('title') or 'Workout'} timers"
        return await _timer_result(timers, title, ctx)

    def format(self, result: TimersResult) -> str:
        lines = [f"  {_timer_line(t)}" for t in result.timers]
        total = f"Total: {duration_text(result.total_duration_sec)}"
        return "\n".join([*lines, total])


TOOLS: list[AnyTool] = [GenerateExerciseTimer(), GenerateWorkoutTimers()]
