"""A deterministic rule-based agent behind the AgentModel port: the local default and the CI model
when no ANTHROPIC_API_KEY is set (ARCHITECTURE §4).

It reads the request the context builder made (Anthropic native shape, with the typed result of
every call), finds the latest user text and the tool calls made since, and picks the next single
tool call, built from the tool's own argument model: the action(s) the user asked for, then one
message_notify_user with the outcome, then idle."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from pydantic import ValidationError

from trainer.domain.workout import Exercise, Workout
from trainer.llm.offline.conversation import Conversation, read_conversation
from trainer.llm.offline.intents import Intent, classify, requested_sources
from trainer.llm.offline.parsing import (
    adjustments_for,
    duration_minutes,
    identify_exercise,
    parse_goals,
    parse_location,
    parse_logged_exercise,
    parse_milestone,
    parse_plan,
    parse_preference,
    resolve_date,
    stats_period,
    swap_target_text,
    timer_exercise,
    workout_type,
)
from trainer.llm.offline.replies import (
    ACTION_LABELS,
    CLARIFY_OPTIONS,
    OFFLINE_HELP,
    answer_question,
    summarize,
)
from trainer.llm.ports import ModelRequest, ModelResponse, TextDeltaCallback, ToolCall, Usage
from trainer.tools.analytics import (
    BreakdownArgs,
    GenerateStatsSummary,
    GetExerciseBreakdown,
    GetProgressTrends,
    GetWorkoutStatistics,
    StatisticsArgs,
    SummaryArgs,
    TrendsArgs,
)
from trainer.tools.base import ToolInvocation, validation_summary
from trainer.tools.calendar import CreateWorkoutPlan, ManageMilestone, ScheduleWorkout, ScheduleWorkoutArgs
from trainer.tools.communication import AskArgs, Idle, IdleArgs, MessageAskUser, MessageNotifyUser, NotifyArgs
from trainer.tools.data import FetchData, FetchDataArgs
from trainer.tools.goals import SetGoals
from trainer.tools.location import SetCurrentLocation, SetCurrentLocationArgs
from trainer.tools.logging import (
    CompletedExerciseIn,
    LogCompletedExercise,
    LogCompletedExerciseResult,
    LogWorkout,
    LogWorkoutArgs,
    LogWorkoutResult,
    MarkExerciseCompleteResult,
    UndoLoggedExercise,
    UndoLoggedExerciseArgs,
    UndoLoggedExerciseResult,
)
from trainer.tools.preferences import SetPreference
from trainer.tools.timers import (
    ExerciseTimerArgs,
    GenerateExerciseTimer,
    GenerateWorkoutTimers,
    WorkoutTimersArgs,
)
from trainer.tools.workout import (
    AdjustArgs,
    AdjustExercise,
    AdjustResult,
    GenerateArgs,
    GenerateResult,
    GenerateWorkout,
    RemoveArgs,
    RemoveExercise,
    RemoveResult,
    ReplacementExercise,
    SwapArgs,
    SwapExercise,
    SwapResult,
)

MAX_ACTIONS_PER_TURN = 6
REPLY_TOOLS = (MessageNotifyUser.name, MessageAskUser.name, Idle.name)


class OfflinePlanner(Protocol):
    """Domain services the offline policy needs to produce real tool arguments."""

    async def compose_workout(self, user_id: str, request_text: str) -> Workout: ...

    async def current_workout(self, session_id: str) -> dict[str, Any] | None: ...

    async def compose_replacement(
        self, user_id: str, session_id: str, exercise: dict[str, Any], request_text: str
    ) -> Exercise: ...


def idle(reason: str) -> ToolInvocation:
    return Idle().call(IdleArgs(reason=reason))


def notify(message: str, artifact_id: str | None = None) -> ToolInvocation:
    return MessageNotifyUser().call(NotifyArgs(message=message, artifact_id=artifact_id))


def ask(question: str, options: list[str] | None = None) -> ToolInvocation:
    return MessageAskUser().call(AskArgs(question=question, options=options or None))


def workout_from_conversation(convo: Conversation) -> dict[str, Any] | None:
    """The current workout as the conversation's typed results show it, for when the planner cannot
    see the session (a policy behind the fake HTTP server): the last generated workout with the ids
    it was given, then every swap, adjustment and removal since, in order."""
    exercises: list[dict[str, Any]] = []
    for call in convo.history:
        match call.result:
            case GenerateResult(exercises=briefs):
                sent = (call.arguments.get("workout") or {}).get("exercises") or []
                full = {str(e.get("exercise_name", "")).lower(): e for e in sent if isinstance(e, dict)}
                exercises = [
                    {**full.get(b.exercise_name.lower(), {}), **b.model_dump(exclude={"detail"})}
                    for b in briefs
                ]
            case SwapResult(old_id=old_id, new_exercise=new):
                exercises = [dict(new) if e.get("id") == old_id else e for e in exercises]
            case AdjustResult(exercise=updated):
                others = [e for e in exercises if e.get("id") != updated.get("id")]
                others.insert(int(updated.get("order") or 1) - 1, dict(updated))
                exercises = [{**e, "order": n} for n, e in enumerate(others, start=1)]
            case RemoveResult(remaining=remaining):
                orders = {r.id: r.order for r in remaining}
                exercises = [{**e, "order": orders[e["id"]]} for e in exercises if e.get("id") in orders]
            case LogWorkoutResult():
                exercises = []
    exercises.sort(key=lambda e: int(e.get("order") or 0))
    return {"exercises": exercises} if exercises else None


def last_logged_id(convo: Conversation) -> str | None:
    """The history id of the most recent logged exercise of the conversation not undone since."""
    undone = {r.removed.id for r in convo.results_of(UndoLoggedExerciseResult)}
    for call in reversed(convo.history):
        match call.result:
            case LogCompletedExerciseResult(logged=row) | MarkExerciseCompleteResult(logged=row):
                if row.id not in undone:
                    return row.id
            case LogWorkoutResult(logged=rows):
                for row in reversed(rows):
                    if row.id not in undone:
                        return row.id
    return None


class OfflineAgentModel:
    provider: Literal["anthropic", "offline"] = "offline"

    def __init__(
        self,
        planner: OfflinePlanner,
        *,
        clock: Callable[[], datetime] | None = None,
        delta_chunk_chars: int = 24,
    ) -> None:
        self.planner = planner
        self._clock = clock or (lambda: datetime.now(UTC))
        self._chunk = max(1, delta_chunk_chars)

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        convo = read_conversation(request.messages, request.results)
        action = await self.decide(request, convo)
        if on_text_delta is not None:
            text = (
                action.args.message
                if isinstance(action.args, NotifyArgs)
                else action.args.question
                if isinstance(action.args, AskArgs)
                else ""
            )
            for start in range(0, len(text), self._chunk):
                await on_text_delta(action.name, text[start : start + self._chunk])
        return self._response(request, action)

    async def decide(self, request: ModelRequest, convo: Conversation) -> ToolInvocation:
        calls = convo.calls
        if calls:
            last = calls[-1]
            if last.name in REPLY_TOOLS:
                return idle("replied to the user")
            if last.failed:
                label = ACTION_LABELS.get(last.name, f"finish {last.name}")
                error = getattr(last.result, "error", "")
                return notify(f"Sorry - I couldn't {label}: {error or 'it failed'}"[:4000])
            if len(calls) >= MAX_ACTIONS_PER_TURN:
                return self._report(convo)
        if not convo.user_text:
            return idle("no user message")
        steps = classify(convo.user_text)
        if len(calls) < len(steps):
            intent = steps[len(calls)]
            try:
                return await self._step(intent, request, convo)
            except ValidationError as exc:
                label = ACTION_LABELS.get(intent, "do that")
                return notify(f"Sorry - I couldn't {label}: {validation_summary(exc)}"[:4000])
        return self._report(convo)

    def _report(self, convo: Conversation) -> ToolInvocation:
        lines = [summarize(call) for call in convo.calls]
        artifact_id = next(
            (c.result.artifact_id for c in reversed(convo.calls) if isinstance(c.result, GenerateResult)),
            None,
        )
        return notify("\n".join(lines)[:4000] or "Done.", artifact_id)

    async def _step(self, intent: Intent, request: ModelRequest, convo: Conversation) -> ToolInvocation:
        text = convo.user_text
        user_id = request.user_id or ""
        session_id = request.session_id or ""
        now = self._clock()
        today = now.date()
        match intent:
            case "workout":
                workout = await self.planner.compose_workout(user_id, text)
                return GenerateWorkout().call(GenerateArgs(workout=workout))
            case "swap" | "adjust" | "remove":
                return await self._change_workout(intent, text, user_id, session_id, convo)
            case "goals":
                goals = parse_goals(text)
                if goals is None:
                    return ask(
                        "Which goals should I set? For example 'strength 60%, cardio 40%'.",
                        ["Strength", "Hypertrophy", "Endurance", "Mobility"],
                    )
                return SetGoals().call(goals)
            case "preference":
                return SetPreference().call(parse_preference(text, now))
            case "log":
                return await self._log(text, session_id, convo)
            case "undo":
                logged_id = last_logged_id(convo)
                if logged_id is None:
                    return notify("I couldn't find a logged exercise in this conversation to undo.")
                return UndoLoggedExercise().call(UndoLoggedExerciseArgs(exercise_id=logged_id))
            case "stats":
                return self._stats(text)
            case "schedule":
                return ScheduleWorkout().call(
                    ScheduleWorkoutArgs(
                        scheduled_date=resolve_date(text, today).isoformat(),
                        workout_type=workout_type(text),
                        notes=text.strip()[:200],
                        duration_minutes=duration_minutes(text),
                    )
                )
            case "data":
                sources = requested_sources(text)
                if not sources:
                    return ask(f"What would you like to see? {OFFLINE_HELP}", CLARIFY_OPTIONS)
                return FetchData().call(FetchDataArgs(sources=sources))
            case "plan":
                return CreateWorkoutPlan().call(parse_plan(text, today))
            case "milestone":
                return ManageMilestone().call(parse_milestone(text, today))
            case "timer":
                current = await self._current(session_id, convo)
                if current and current.get("exercises"):
                    exercise = identify_exercise(text, current["exercises"])
                    if exercise and exercise.get("id"):
                        return GenerateExerciseTimer().call(ExerciseTimerArgs(exercise_id=exercise["id"]))
                    return GenerateWorkoutTimers().call(WorkoutTimersArgs())
                return GenerateExerciseTimer().call(ExerciseTimerArgs(exercise=timer_exercise(text)))
            case "location":
                name = parse_location(text)
                if not name:
                    return ask("Which location are you at?")
                return SetCurrentLocation().call(SetCurrentLocationArgs(location_name=name))
            case "answer":
                return notify(answer_question(text))
            case "clarify":
                return ask(f"What would you like to do? {OFFLINE_HELP}", CLARIFY_OPTIONS)
        return idle("nothing to do")

    async def _current(self, session_id: str, convo: Conversation) -> dict[str, Any] | None:
        current = await self.planner.current_workout(session_id) if session_id else None
        return current or workout_from_conversation(convo)

    async def _change_workout(
        self, intent: Intent, text: str, user_id: str, session_id: str, convo: Conversation
    ) -> ToolInvocation:
        current = await self._current(session_id, convo)
        exercises = list((current or {}).get("exercises") or [])
        if not exercises:
            return notify("There's no active workout to change yet - ask me for a workout first.")
        target_text = swap_target_text(text) if intent == "swap" else text
        exercise = identify_exercise(target_text, exercises) or (
            identify_exercise(text, exercises) if intent != "swap" else None
        )
        names = [
            str(e.get("exercise_name")) for e in sorted(exercises, key=lambda e: int(e.get("order") or 0))
        ]
        if exercise is None:
            verb = {"swap": "swap", "adjust": "change", "remove": "remove"}[intent]
            return ask(f"Which exercise should I {verb}?", names[:8])
        exercise_id = str(exercise.get("id") or exercise.get("order"))
        if intent == "swap":
            new = await self.planner.compose_replacement(user_id, session_id, exercise, text)
            replacement = ReplacementExercise.model_validate(new.model_dump(exclude={"id", "completed"}))
            return SwapExercise().call(
                SwapArgs(exercise_id=exercise_id, new_exercise=replacement, reason=text[:200])
            )
        if intent == "remove":
            return RemoveExercise().call(RemoveArgs(exercise_id=exercise_id, reason=text[:200]))
        changes = adjustments_for(text, exercise)
        if not changes:
            return ask(
                f"How should I change {exercise.get('exercise_name')}?",
                ["Heavier", "Lighter", "More reps", "Fewer reps"],
            )
        return AdjustExercise().call(AdjustArgs(exercise_id=exercise_id, adjustments=changes))

    async def _log(self, text: str, session_id: str, convo: Conversation) -> ToolInvocation:
        parsed = parse_logged_exercise(text)
        if parsed is not None:
            return LogCompletedExercise().call(parsed)
        current = await self._current(session_id, convo)
        if current and current.get("exercises"):
            completed = [
                CompletedExerciseIn(
                    exercise_id=ex.get("id"),
                    exercise_name=ex.get("exercise_name"),
                    sets=ex.get("sets"),
                    reps=ex.get("reps"),
                    duration_min=ex.get("duration_min"),
                    distance=ex.get("distance"),
                    distance_unit=ex.get("distance_unit"),
                    load=max(ex["load_each"]) if ex.get("load_each") else None,
                    load_unit=ex.get("load_unit") if ex.get("load_each") else None,
                )
                for ex in sorted(current["exercises"], key=lambda e: int(e.get("order") or 0))
            ]
            return LogWorkout().call(LogWorkoutArgs(completed_exercises=completed))
        return ask("What did you do? For example '3x10 bench press at 60kg' or 'ran 5 km in 28 minutes'.")

    def _stats(self, text: str) -> ToolInvocation:
        lowered = text.lower()
        period = stats_period(text)
        if re.search(r"breakdown|distribution|by muscle|by category|split", lowered):
            kind = (
                "muscle" if "muscle" in lowered else "exercise_name" if "exercise" in lowered else "category"
            )
            return GetExerciseBreakdown().call(BreakdownArgs(breakdown_type=kind, time_period=period))
        if re.search(r"\btrends?\b|improv|getting stronger", lowered):
            metric = "volume" if "volume" in lowered else "frequency" if "often" in lowered else "weight"
            return GetProgressTrends().call(TrendsArgs(metric=metric, time_period=period))
        if re.search(r"summary|overview|recap|report", lowered):
            return GenerateStatsSummary().call(SummaryArgs(time_period=period))
        return GetWorkoutStatistics().call(StatisticsArgs(time_period=period))

    def _response(self, request: ModelRequest, action: ToolInvocation) -> ModelResponse:
        prompt = json.dumps(
            {"system": request.system, "tools": request.tools, "messages": request.messages},
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        )
        arguments = action.arguments()
        serialised = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(f"{len(request.messages)}:{action.name}:{serialised}".encode()).hexdigest()
        call = ToolCall(id=f"toolu_offline_{digest[:20]}", name=action.name, arguments=arguments)
        usage = Usage(
            input_tokens=max(1, len(prompt) // 4), output_tokens=max(1, (len(serialised) + 40) // 4)
        )
        raw = {
            "id": f"msg_offline_{digest[20:40]}",
            "type": "message",
            "role": "assistant",
            "model": request.model,
            "content": [{"type": "tool_use", "id": call.id, "name": call.name, "input": arguments}],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
        return ModelResponse(
            tool_call=call, usage=usage, model=request.model, stop_reason="tool_use", raw=raw
        )
