"""A deterministic rule-based agent behind the AgentModel port: the local default and the CI model
when no ANTHROPIC_API_KEY is set (ARCHITECTURE §4).

It reads the request the context builder made (Anthropic native shape, with the typed result of
every call), finds the latest user text and the tool calls made since, and picks the next single
tool call, built from the tool's own argument model: the action(s) the user asked for, then one
message_notify_user saying what the results show actually happened, then idle. What it needs to know
about the user beyond the conversation (units, time zone, recent logs, preferences, schedule, goals,
progression targets) the planner reads for it, typed (trainer.offline.records)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from trainer.domain.composer import ComposerError
from trainer.domain.progression import ProgressionTarget
from trainer.domain.units import convert_weight
from trainer.domain.workout import Exercise, Workout
from trainer.offline.conversation import Conversation, PastCall, read_conversation
from trainer.offline.intents import (
    INJURY,
    Intent,
    asked_exercise,
    classify,
    requested_sources,
)
from trainer.offline.parsing import (
    BODY_PARTS,
    REFERENCE,
    add_request,
    adjustments_for,
    best_name,
    done_as_planned,
    duration_minutes,
    equipment_statement,
    exercise_phrase,
    identify_exercise,
    insert_position,
    name_words,
    named_location,
    ordinal_position,
    parse_conversion,
    parse_correction,
    parse_day_change,
    parse_goal_shift,
    parse_goals,
    parse_location,
    parse_logged_exercise,
    parse_milestone,
    parse_plan,
    parse_preferences,
    parse_training_plan,
    parse_week_change,
    pick_scheduled,
    planned_day,
    reschedule_date,
    resolve_date,
    stats_window,
    swap_target_text,
    time_of_day,
    timer_exercise,
    workout_type,
)
from trainer.offline.records import UserRecords
from trainer.offline.replies import (
    CAN_DO,
    CLARIFY_OPTIONS,
    ReplyContext,
    answer_question,
    failure_message,
    joined,
    logged_text,
    stats_kind,
    summarize,
    unit_answer,
    upcoming_text,
)
from trainer.providers.ports import ModelRequest, ModelResponse, TextDeltaCallback, ToolCall, Usage
from trainer.tools.analytics import (
    BreakdownArgs,
    GetExerciseBreakdown,
    GetProgressTrends,
    GetWorkoutStatistics,
    ProgressTrendsResult,
    StatisticsArgs,
    StatsSummaryResult,
    TrendsArgs,
    WorkoutStatisticsResult,
)
from trainer.tools.base import ToolInvocation
from trainer.tools.calendar import (
    CreateWorkoutPlan,
    DeleteScheduledWorkout,
    DeleteScheduledWorkoutArgs,
    ManageMilestone,
    ScheduleWorkout,
    ScheduleWorkoutArgs,
    ScheduleWorkoutResult,
    UpdateScheduledWorkout,
    UpdateScheduledWorkoutArgs,
    UpdateScheduledWorkoutResult,
)
from trainer.tools.communication import AskArgs, Idle, IdleArgs, MessageAskUser, MessageNotifyUser, NotifyArgs
from trainer.tools.data import FetchData, FetchDataArgs
from trainer.tools.exercises import SearchExercises, SearchExercisesArgs, SearchExercisesResult
from trainer.tools.goals import SetGoals
from trainer.tools.location import SetCurrentLocation, SetCurrentLocationArgs, SetCurrentLocationResult
from trainer.tools.logging import (
    AdjustLoggedExercise,
    AdjustLoggedExerciseResult,
    CompletedExerciseIn,
    LogCompletedExercise,
    LogCompletedExerciseResult,
    LoggedExercise,
    LogWorkout,
    LogWorkoutArgs,
    LogWorkoutResult,
    MarkExerciseComplete,
    MarkExerciseCompleteArgs,
    MarkExerciseCompleteResult,
    UndoLoggedExercise,
    UndoLoggedExerciseArgs,
    UndoLoggedExerciseResult,
)
from trainer.tools.preferences import (
    DeletePreference,
    DeletePreferenceArgs,
    Preference,
    SetPreference,
    SetPreferenceArgs,
    SetPreferenceResult,
)
from trainer.tools.programs import (
    ChangeTrainingDay,
    ChangeTrainingWeek,
    GetPlannedWorkout,
    GetPlannedWorkoutArgs,
    GetPlannedWorkoutResult,
    RequestTrainingPlan,
    ShowTrainingPlan,
    ShowTrainingPlanArgs,
    ShowTrainingPlanResult,
)
from trainer.tools.timers import (
    ExerciseTimerArgs,
    GenerateExerciseTimer,
    GenerateWorkoutTimers,
    TimersResult,
    WorkoutTimersArgs,
)
from trainer.tools.workout import (
    AddArgs,
    AddExerciseToWorkout,
    AddResult,
    AdjustArgs,
    AdjustExercise,
    AdjustResult,
    GenerateArgs,
    GenerateResult,
    GenerateWorkout,
    NewExercise,
    RemoveArgs,
    RemoveExercise,
    RemoveResult,
    ReplacementExercise,
    SwapArgs,
    SwapExercise,
    SwapResult,
    WorkoutChange,
)

MAX_ACTIONS_PER_TURN = 6
REPLY_TOOLS = (MessageNotifyUser.name, MessageAskUser.name, Idle.name)
DATED_RESULTS = (
    ScheduleWorkoutResult, UpdateScheduledWorkoutResult, UndoLoggedExerciseResult,
    AdjustLoggedExerciseResult, SetPreferenceResult, WorkoutStatisticsResult, ProgressTrendsResult,
    StatsSummaryResult, SearchExercisesResult, GetPlannedWorkoutResult, ShowTrainingPlanResult,
)  # fmt: skip
"""Results whose reply needs the user's records (today in their time zone, their location)."""
INTENT_LABELS: dict[str, str] = {
    "workout": "build that workout", "swap": "swap that exercise", "adjust": "change that exercise",
    "add": "add that exercise", "remove": "remove that exercise", "goals": "save your goals",
    "preference": "save that preference", "log": "log that", "correct": "correct that entry",
    "schedule": "schedule that workout", "reschedule": "move that workout", "plan": "create that plan",
    "milestone": "save that milestone", "timer": "build that timer", "stats": "work out your stats",
    "unschedule": "cancel that workout", "program": "start that training plan",
    "change_week": "change that week of your plan", "change_day": "change that day of your plan",
}  # fmt: skip
WHOLE_WORKOUT = re.compile(r"\b(workout|session|everything|all of it|whole|the lot|all exercises)\b", re.I)


class OfflinePlanner(Protocol):
    """Domain services the offline policy needs to produce real tool arguments."""

    async def compose_workout(self, user_id: str, request_text: str) -> Workout: ...

    async def current_workout(self, session_id: str) -> dict[str, Any] | None: ...

    async def compose_replacement(
        self, user_id: str, session_id: str, exercise: dict[str, Any], request_text: str
    ) -> Exercise: ...

    async def compose_exercise(self, user_id: str, name: str) -> Exercise:
        """The catalog exercise a name means, prescribed for this user (ComposerError: none fits)."""
        ...

    async def user_records(self, user_id: str) -> UserRecords: ...


@dataclass(frozen=True)
class Step:
    """One action of a turn: an intent, and what it acts on when the message holds several."""

    intent: Intent
    payload: Any = None


def idle(reason: str) -> ToolInvocation:
    return Idle().call(IdleArgs(reason=reason))


def notify(message: str, artifact_id: str | None = None) -> ToolInvocation:
    return MessageNotifyUser().call(NotifyArgs(message=message[:4000], artifact_id=artifact_id))


def ask(question: str, options: list[str] | None = None) -> ToolInvocation:
    return MessageAskUser().call(AskArgs(question=question, options=options or None))


def _renumbered(exercises: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "order": n} for n, e in enumerate(exercises, start=1)]


def workout_from_conversation(convo: Conversation) -> dict[str, Any] | None:
    """The current workout as the conversation's typed results show it, for when the planner cannot
    see the session (a policy behind the fake HTTP server): the last generated workout with the ids
    it was given, then every swap, adjustment, addition, removal and completion since, in order."""
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
                exercises = _renumbered(others)
            case AddResult(exercise=added, order=order):
                others = [e for e in exercises if e.get("id") != added.get("id")]
                others.insert(order - 1, dict(added))
                exercises = _renumbered(others)
            case RemoveResult(remaining=remaining):
                orders = {r.id: r.order for r in remaining}
                exercises = [{**e, "order": orders[e["id"]]} for e in exercises if e.get("id") in orders]
            case MarkExerciseCompleteResult(exercise_id=done) if done:
                exercises = [{**e, "completed": True} if e.get("id") == done else e for e in exercises]
            case UndoLoggedExerciseResult(removed=row):
                name = row.exercise_name.lower()
                exercises = [
                    {**e, "completed": False} if str(e.get("exercise_name", "")).lower() == name else e
                    for e in exercises
                ]
            case LogWorkoutResult():
                exercises = []
    exercises.sort(key=lambda e: int(e.get("order") or 0))
    return {"exercises": exercises} if exercises else None


def logged_in_conversation(convo: Conversation) -> list[LoggedExercise]:
    """Entries logged in the conversation and not undone since, as last corrected, newest first."""
    undone = {r.removed.id for r in convo.results_of(UndoLoggedExerciseResult)}
    latest: dict[str, LoggedExercise] = {}
    order: list[str] = []
    for call in convo.history:
        rows: list[LoggedExercise] = []
        match call.result:
            case LogCompletedExerciseResult(logged=row) | MarkExerciseCompleteResult(logged=row):
                rows = [row]
            case LogWorkoutResult(logged=logged):
                rows = list(logged)
            case AdjustLoggedExerciseResult(after=row):
                rows = [row]
        for row in rows:
            latest[row.id] = row
            if row.id in order:
                order.remove(row.id)
            order.append(row.id)
    return [latest[i] for i in reversed(order) if i not in undone]


def last_logged_id(convo: Conversation) -> str | None:
    """The history id of the most recent logged exercise of the conversation not undone since."""
    rows = logged_in_conversation(convo)
    return rows[0].id if rows else None


def referent_name(convo: Conversation) -> str | None:
    """The exercise the conversation was last about before this message: the one the user asked about,
    or the one the last change named ('swap this one')."""
    earlier = convo.history[: len(convo.history) - len(convo.calls)]
    for call in reversed(earlier):
        match call.result:
            case SearchExercisesResult(reference=reference, exercises=found):
                if reference is not None:
                    return reference.name
                return found[0].name if found else None
            case SwapResult(new_exercise=new):
                return str(new.get("exercise_name"))
            case AdjustResult(exercise=ex) | AddResult(exercise=ex):
                return str(ex.get("exercise_name"))
            case MarkExerciseCompleteResult(logged=row):
                return row.exercise_name
            case GenerateResult():
                return None
    return None


def _on_day(row: LoggedExercise, text: str, records: UserRecords, now: datetime) -> bool:
    lowered = text.lower()
    today = records.today(now)
    day = row.performed_at.astimezone(records.zone).date()
    if re.search(r"\b(today|this morning|tonight|this evening|this afternoon)\b", lowered):
        return day == today
    if re.search(r"\byesterday\b", lowered):
        return day == today - timedelta(days=1)
    return True


def logged_target(
    text: str, convo: Conversation, records: UserRecords, now: datetime
) -> LoggedExercise | None:
    """The logged entry a correction or undo means: the one named (by exercise and day), else the latest;
    this conversation's entries first, then the user's history."""
    seen = logged_in_conversation(convo)
    ids = {r.id for r in seen}
    fresh = {r.id: r for r in records.logged}
    candidates = [fresh.get(r.id, r) for r in seen] + [r for r in records.logged if r.id not in ids]
    candidates = [r for r in candidates if _on_day(r, text, records, now)]
    named = best_name(text, [r.exercise_name for r in candidates])
    if named is not None:
        candidates = [r for r in candidates if r.exercise_name == named]
    return candidates[0] if candidates else None


def find_target(text: str, targets: list[ProgressionTarget]) -> ProgressionTarget | None:
    name = best_name(text, [t.exercise_name for t in targets])
    return next((t for t in targets if t.exercise_name == name), None) if name else None


def progression_answer(text: str, records: UserRecords) -> str:
    """The next load for an exercise, from the progression rule (trainer.domain.progression)."""
    target = find_target(text, records.targets)
    if target is None:
        phrase = " ".join(sorted(name_words(text))) or "that exercise"
        return (
            f"I don't have recent loaded sets of {phrase} to go on. Log your next session (sets, reps and "
            "load) and I'll work out the next step from it."
        )
    load = f"{target.load:g} {target.unit}"
    scheme = f"{target.sets} x {target.reps}"
    heavier = bool(re.search(r"\b(heavier|go up|increase|add weight|more weight)\b", text, re.I))
    match target.rule:
        case "more_load":
            lead = "Yes - " if heavier else ""
            return (
                f"{lead}Go to {load} for {scheme} on {target.exercise_name} next time: you made every "
                "rep last session, so it's time for the next step."
            )
        case "more_reps":
            lead = "Not yet - " if heavier else ""
            return (
                f"{lead}Stay at {load} on {target.exercise_name} and aim for {scheme} next time: add reps "
                "until you reach the top of the range, then add weight."
            )
        case "retry":
            lead = "Not yet - " if heavier else ""
            return (
                f"{lead}Stay at {load} and repeat {scheme} on {target.exercise_name}: you missed reps "
                "last time, so keep the same weight until every set is complete."
            )
        case "deload":
            return (
                f"Not yet - you missed reps on {target.exercise_name} two sessions in a row, so drop "
                f"to {load} (a deload) for {scheme} and build back up from there."
            )
    return f"Try {load} for {scheme} on {target.exercise_name}, based on your {target.based_on}."


def matching_preference(text: str, preferences: list[Preference]) -> Preference | None:
    """The restriction 'my shoulder is fine again' or 'I like lunges again' lifts."""
    lowered = text.lower()
    part = next((p for p in BODY_PARTS if re.search(rf"\b{p}s?\b", lowered)), None)
    words = name_words(text)

    def mentions(pref: Preference) -> bool:
        body = f"{pref.description} {pref.guidance}".lower()
        if part:
            return bool(re.search(rf"\b{part}s?\b", body))
        return bool(words & name_words(body))

    found = [p for p in preferences if mentions(p)]
    found.sort(key=lambda p: (p.type != "injury", p.created_at), reverse=False)
    return found[0] if found else None


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

    def now(self) -> datetime:
        return self._clock()

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
        turn = Turn(self, request, convo)
        calls = convo.calls
        if calls:
            last = calls[-1]
            if last.name in REPLY_TOOLS:
                return idle("replied to the user")
            if last.failed:
                return notify(failure_message(last))
            if len(calls) >= MAX_ACTIONS_PER_TURN:
                return await turn.report()
        if not convo.user_text:
            return idle("no user message")
        steps = await turn.plan()
        if len(calls) < len(steps):
            step = steps[len(calls)]
            try:
                return await turn.act(step)
            except ValidationError:
                label = INTENT_LABELS.get(step.intent, "do that")
                return notify(
                    f"Sorry - I couldn't {label}: some of the numbers didn't fit. Could you rephrase it?"
                )
            except ComposerError as exc:
                reason = str(exc)
                return notify(f"Sorry - {reason[:1].lower()}{reason[1:]}")
        return await turn.report()

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


class Turn:
    """One decision: the request, the conversation, and the user's records, read once when needed."""

    def __init__(self, model: OfflineAgentModel, request: ModelRequest, convo: Conversation) -> None:
        self.planner = model.planner
        self.request = request
        self.convo = convo
        self.text = convo.user_text
        self.user_id = request.user_id or ""
        self.session_id = request.session_id or ""
        self.now = model.now()
        self._records: UserRecords | None = None

    async def records(self) -> UserRecords:
        if self._records is None:
            self._records = await self.planner.user_records(self.user_id)
        return self._records

    async def today(self) -> date:
        return (await self.records()).today(self.now)

    async def current(self) -> dict[str, Any] | None:
        current = await self.planner.current_workout(self.session_id) if self.session_id else None
        return current or workout_from_conversation(self.convo)

    async def plan(self) -> list[Step]:
        """The turn's actions, from the message (and, for a few, the user's saved locations). A plan
        is the same on every call of the turn: what a step depends on, its own calls do not change."""
        intents = classify(self.text)
        steps: list[Step] = []
        for intent in intents:
            match intent:
                case "preference":
                    steps.extend(await self._preference_steps())
                case "location":
                    name = parse_location(self.text)
                    known = (await self.records()).locations
                    if len(intents) > 1 and known and not await self._switch_needed(name):
                        continue
                    steps.append(Step("location", name))
                case _:
                    steps.append(Step(intent))
        return steps

    async def _switch_needed(self, name: str | None) -> bool:
        """A saved location other than the current one, or the one this turn switched to."""
        records = await self.records()
        place = named_location(name or "", [loc.name for loc in records.locations])
        if place is None:
            return False
        switched = any(
            isinstance(c.result, SetCurrentLocationResult) and c.result.location.name == place
            for c in self.convo.calls
        )
        return switched or place != records.current_location

    async def _preference_steps(self) -> list[Step]:
        """Each preference the message states; a statement about the equipment of a saved place ('no
        equipment in my hotel room') switches to that place instead of becoming a preference."""
        equipment = equipment_statement(self.text)
        stated = parse_preferences(self.text, self.now)
        if equipment and not INJURY.search(self.text) and all(p.type == "equipment" for p in stated):
            records = await self.records()
            place = named_location(self.text, [loc.name for loc in records.locations])
            if place is not None:
                return [Step("location", place)] if await self._switch_needed(place) else []
        return [Step("preference", p) for p in stated]

    async def act(self, step: Step) -> ToolInvocation:
        text = self.text
        match step.intent:
            case "workout":
                workout = await self.planner.compose_workout(self.user_id, text)
                return GenerateWorkout().call(GenerateArgs(workout=workout))
            case "swap" | "adjust" | "remove":
                return await self._change_workout(step.intent)
            case "add":
                return await self._add()
            case "goals":
                goals = parse_goal_shift(text, (await self.records()).category_goals) or parse_goals(text)
                if goals is None:
                    return ask(
                        "Which goals should I set? For example 'strength 60%, cardio 40%'.",
                        ["Strength", "Hypertrophy", "Endurance", "Mobility"],
                    )
                return SetGoals().call(goals)
            case "preference":
                args: SetPreferenceArgs = step.payload
                return SetPreference().call(args)
            case "unprefer":
                return await self._unprefer()
            case "log":
                return await self._log()
            case "undo":
                return await self._undo()
            case "correct":
                return await self._correct()
            case "stats":
                return await self._stats()
            case "progression":
                return notify(progression_answer(text, await self.records()))
            case "convert":
                conversion = parse_conversion(text)
                if conversion is None:
                    return ask("What should I convert? For example '100 kg in pounds'.")
                return notify(unit_answer(*conversion))
            case "exercise_info":
                asked = asked_exercise(text)
                if asked is None:
                    return notify(answer_question(text))
                kind, phrase = asked
                if kind == "alternatives":
                    return SearchExercises().call(SearchExercisesArgs(alternatives_to=phrase))
                return SearchExercises().call(SearchExercisesArgs(query=phrase))
            case "schedule":
                return await self._schedule()
            case "reschedule":
                return await self._reschedule()
            case "unschedule":
                return await self._unschedule()
            case "upcoming":
                records = await self.records()
                return notify(upcoming_text(records.upcoming, await self._reply_context()))
            case "data":
                sources = requested_sources(text)
                if not sources:
                    return ask(f"What would you like to see? {CAN_DO}", CLARIFY_OPTIONS)
                return FetchData().call(FetchDataArgs(sources=sources))
            case "plan":
                return CreateWorkoutPlan().call(parse_plan(text, await self.today()))
            case "program":
                try:
                    request = parse_training_plan(text)
                except ValidationError:
                    return CreateWorkoutPlan().call(parse_plan(text, await self.today()))
                return RequestTrainingPlan().call(request)
            case "show_plan":
                return ShowTrainingPlan().call(ShowTrainingPlanArgs())
            case "planned_workout":
                today = await self.today()
                day = planned_day(text, today)
                return GetPlannedWorkout().call(
                    GetPlannedWorkoutArgs(day=None if day == today else day.isoformat())
                )
            case "change_week":
                places = [loc.name for loc in (await self.records()).locations]
                return ChangeTrainingWeek().call(parse_week_change(text, places))
            case "change_day":
                records = await self.records()
                places = [loc.name for loc in records.locations]
                return ChangeTrainingDay().call(parse_day_change(text, records.today(self.now), places))
            case "milestone":
                return ManageMilestone().call(parse_milestone(text, await self.today()))
            case "timer":
                return await self._timer()
            case "location":
                return await self._location(step.payload)
            case "answer":
                return notify(answer_question(text))
            case "clarify":
                return ask(f"What would you like to do? {CAN_DO}", CLARIFY_OPTIONS)
        return idle("nothing to do")

    async def _reply_context(self) -> ReplyContext:
        records = await self.records()
        return ReplyContext(
            text=self.text,
            today=records.today(self.now),
            zone=records.zone,
            window=stats_window(self.text, records.today(self.now)),
            location=records.current_location,
        )

    async def report(self) -> ToolInvocation:
        """One message saying what the turn's calls did, delivering the last artifact they made."""
        calls = [c for c in self.convo.calls if c.name not in REPLY_TOOLS]
        needs_records = any(isinstance(c.result, DATED_RESULTS) for c in calls)
        ctx = await self._reply_context() if needs_records else ReplyContext(text=self.text)
        lines = [summarize(call, ctx) for call in calls]
        return notify("\n".join(line for line in lines if line)[:4000] or "Done.", _artifact(calls))

    async def _change_workout(self, intent: Intent) -> ToolInvocation:
        text = self.text
        current = await self.current()
        exercises = list((current or {}).get("exercises") or [])
        if not exercises:
            return notify("There's no active workout to change yet - ask me for a workout first.")
        target_text = swap_target_text(text) if intent == "swap" else text
        referent = referent_name(self.convo)
        exercise = identify_exercise(target_text, exercises, referent) or (
            identify_exercise(text, exercises, referent) if intent != "swap" else None
        )
        names = [
            str(e.get("exercise_name")) for e in sorted(exercises, key=lambda e: int(e.get("order") or 0))
        ]
        if exercise is None:
            verb = {"swap": "swap", "adjust": "change", "remove": "remove"}[intent]
            if intent == "remove" and not re.search(r"\b(it|this|that|one|exercise)\b", text, re.I):
                return notify(
                    "That isn't in your current workout, so there's nothing to remove. It has "
                    f"{joined(names)}."
                )
            return ask(f"Which exercise should I {verb}?", names[:8])
        exercise_id = str(exercise.get("id") or exercise.get("order"))
        name = str(exercise.get("exercise_name"))
        if intent == "swap":
            new = await self.planner.compose_replacement(self.user_id, self.session_id, exercise, text)
            replacement = ReplacementExercise.model_validate(new.model_dump(exclude={"id", "completed"}))
            return SwapExercise().call(
                SwapArgs(exercise_id=exercise_id, new_exercise=replacement, reason=text[:200])
            )
        if intent == "remove":
            return RemoveExercise().call(RemoveArgs(exercise_id=exercise_id, reason=text[:200]))
        steps = (await self.records()).load_steps()
        changes = adjustments_for(text, exercise, steps)
        if not changes:
            loads = [float(v) for v in exercise.get("load_each") or []]
            unit = exercise.get("load_unit") or ""
            if loads and re.search(r"heavier|more weight", text, re.I):
                return notify(
                    f"{name} is already at the heaviest weight you can set up here ({max(loads):g} {unit}), "
                    "so I left it as it is. Want more reps instead?"
                )
            if loads and re.search(r"lighter|less weight", text, re.I):
                return notify(
                    f"{name} is already at the lightest weight you can set up here ({min(loads):g} {unit}), "
                    "so I left it as it is. Want fewer reps instead?"
                )
            return ask(f"How should I change {name}?", ["Heavier", "Lighter", "More reps", "Fewer reps"])
        return AdjustExercise().call(AdjustArgs(exercise_id=exercise_id, adjustments=changes))

    async def _add(self) -> ToolInvocation:
        current = await self.current()
        exercises = list((current or {}).get("exercises") or [])
        if not exercises:
            return notify("There's no active workout to add to yet - ask me for a workout first.")
        name = add_request(self.text)
        if not name:
            return ask("Which exercise should I add?")
        chosen = await self.planner.compose_exercise(self.user_id, name)
        position = insert_position(self.text, exercises)
        fields = chosen.model_dump(mode="json", exclude_none=True, exclude={"id", "completed", "order"})
        if position is not None:
            fields["order"] = position
        return AddExerciseToWorkout().call(
            AddArgs(exercise=NewExercise.model_validate(fields), reason=self.text[:200])
        )

    async def _log(self) -> ToolInvocation:
        text = self.text
        current = await self.current()
        open_exercises = [e for e in (current or {}).get("exercises") or [] if not e.get("completed")]
        whole = bool(WHOLE_WORKOUT.search(text))
        if open_exercises and not whole:
            exercise = self._named_in_workout(list((current or {}).get("exercises") or []))
            if exercise is not None:
                return await self._mark_done(exercise)
        parsed = parse_logged_exercise(text)
        if parsed is not None and not (open_exercises and whole):
            return LogCompletedExercise().call(parsed)
        if open_exercises:
            completed = [
                CompletedExerciseIn(exercise_id=ex.get("id"), exercise_name=ex.get("exercise_name"))
                for ex in sorted(open_exercises, key=lambda e: int(e.get("order") or 0))
            ]
            return LogWorkout().call(LogWorkoutArgs(completed_exercises=completed))
        return ask("What did you do? For example '3x10 bench press at 60kg' or 'ran 5 km in 28 minutes'.")

    def _named_in_workout(self, exercises: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The exercise of the workout a logging message names: by position, as 'this one', or by every
        word of the name it gives."""
        exercise = identify_exercise(self.text, exercises, referent_name(self.convo))
        if exercise is None or not exercise.get("id"):
            return None
        if ordinal_position(self.text, len(exercises)) is not None or REFERENCE.search(self.text):
            return exercise
        said = name_words(exercise_phrase(self.text))
        return exercise if said and said <= name_words(str(exercise.get("exercise_name"))) else None

    async def _mark_done(self, exercise: dict[str, Any]) -> ToolInvocation:
        sets, reps, load, unit = done_as_planned(self.text)
        planned_unit = exercise.get("load_unit") or (await self.records()).weight_unit
        if load is not None and unit is not None and unit != planned_unit:
            load = round(convert_weight(load, unit, planned_unit), 2)
        return MarkExerciseComplete().call(
            MarkExerciseCompleteArgs(
                exercise_id=str(exercise["id"]), actual_sets=sets, actual_reps=reps, actual_load=load
            )
        )

    async def _undo(self) -> ToolInvocation:
        target = logged_target(self.text, self.convo, await self.records(), self.now)
        if target is None:
            return notify("I couldn't find a logged exercise to undo - nothing has been logged recently.")
        return UndoLoggedExercise().call(UndoLoggedExerciseArgs(exercise_id=target.id))

    async def _correct(self) -> ToolInvocation:
        target = logged_target(self.text, self.convo, await self.records(), self.now)
        if target is None:
            return notify("I couldn't find a logged exercise to correct - nothing has been logged recently.")
        args = parse_correction(self.text, target)
        if args is None:
            return ask(
                f"What should I change on {target.exercise_name} ({logged_text(target)})? For example 'the "
                "last set was 3 reps' or 'it was 62.5 kg'."
            )
        return AdjustLoggedExercise().call(args)

    async def _unprefer(self) -> ToolInvocation:
        records = await self.records()
        found = matching_preference(self.text, records.preferences)
        if found is None:
            return notify(
                "I don't have a restriction like that on file, so there's nothing to lift. Your workouts "
                "already include it."
            )
        return DeletePreference().call(DeletePreferenceArgs(preference_id=found.id))

    async def _stats(self) -> ToolInvocation:
        records = await self.records()
        today = records.today(self.now)
        kind = stats_kind(self.text)
        window = stats_window(self.text, today)
        if kind == "trend":
            lowered = self.text.lower()
            metric: Literal["weight", "volume", "frequency"] = (
                "volume"
                if "volume" in lowered
                else "frequency"
                if re.search(r"often|frequen", lowered)
                else "weight"
            )
            names = list(
                dict.fromkeys(
                    [t.exercise_name for t in records.targets] + [r.exercise_name for r in records.logged]
                )
            )
            return GetProgressTrends().call(
                TrendsArgs(metric=metric, exercise_name=best_name(self.text, names), time_period="quarter")
            )
        if kind == "breakdown":
            lowered = self.text.lower()
            by: Literal["muscle", "exercise_name", "category"] = (
                "muscle" if "muscle" in lowered else "exercise_name" if "exercise" in lowered else "category"
            )
            return GetExerciseBreakdown().call(BreakdownArgs(breakdown_type=by, time_period=window.period))
        if kind == "record" and window.start is None and window.period == "month":
            return GetWorkoutStatistics().call(StatisticsArgs(time_period="all_time"))
        return GetWorkoutStatistics().call(
            StatisticsArgs(
                time_period=window.period,
                start_date=window.start.isoformat() if window.start else None,
                end_date=window.end.isoformat() if window.end else None,
            )
        )

    async def _schedule(self) -> ToolInvocation:
        today = await self.today()
        day = resolve_date(self.text, today)
        at: time | None = time_of_day(self.text)
        when = datetime.combine(day, at).isoformat() if at is not None else day.isoformat()
        return ScheduleWorkout().call(
            ScheduleWorkoutArgs(
                scheduled_date=when,
                workout_type=workout_type(self.text),
                duration_minutes=duration_minutes(self.text),
            )
        )

    async def _reschedule(self) -> ToolInvocation:
        records = await self.records()
        today = records.today(self.now)
        workout = pick_scheduled(self.text, records.upcoming, today)
        if workout is None:
            if not records.upcoming:
                return notify("You have nothing scheduled to move. Want me to schedule a workout?")
            options = [f"{w.workout_type} on {w.date:%A %d %b}" for w in records.upcoming[:6]]
            return ask("Which scheduled workout should I move?", options)
        new_day = reschedule_date(self.text, workout.date, today)
        if new_day is None:
            return ask(f"When should I move your {workout.workout_type} workout to?")
        local = workout.scheduled_date.astimezone(records.zone)
        moved = (
            new_day.isoformat()
            if (local.hour, local.minute) == (0, 0)
            else datetime.combine(new_day, local.time()).isoformat()
        )
        return UpdateScheduledWorkout().call(
            UpdateScheduledWorkoutArgs(workout_id=workout.id, scheduled_date=moved)
        )

    async def _unschedule(self) -> ToolInvocation:
        records = await self.records()
        workout = pick_scheduled(self.text, records.upcoming, records.today(self.now))
        if workout is None:
            if not records.upcoming:
                return notify("You have nothing scheduled, so there's nothing to cancel.")
            options = [f"{w.workout_type} on {w.date:%A %d %b}" for w in records.upcoming[:6]]
            return ask("Which scheduled workout should I cancel?", options)
        return DeleteScheduledWorkout().call(DeleteScheduledWorkoutArgs(workout_id=workout.id))

    async def _timer(self) -> ToolInvocation:
        current = await self.current()
        if current and current.get("exercises"):
            exercise = identify_exercise(self.text, current["exercises"], referent_name(self.convo))
            if exercise and exercise.get("id") and not WHOLE_WORKOUT.search(self.text):
                return GenerateExerciseTimer().call(ExerciseTimerArgs(exercise_id=exercise["id"]))
            return GenerateWorkoutTimers().call(WorkoutTimersArgs())
        return GenerateExerciseTimer().call(ExerciseTimerArgs(exercise=timer_exercise(self.text)))

    async def _location(self, name: str | None) -> ToolInvocation:
        if not name:
            return ask("Which location are you at?")
        records = await self.records()
        known = [loc.name for loc in records.locations]
        if known and named_location(name, known) is None:
            return notify(
                f"I don't have '{name}' saved as a location, so I kept your current one. Your saved "
                f"locations are {joined(known)}."
            )
        if known and not await self._switch_needed(name):
            return notify(f"You're already at {records.current_location} - your workouts use its equipment.")
        return SetCurrentLocation().call(
            SetCurrentLocationArgs(location_name=named_location(name, known) or name)
        )


def _artifact(calls: list[PastCall]) -> str | None:
    """The artifact the turn's last workout change or timer made (delivered with the reply)."""
    for call in reversed(calls):
        result: BaseModel | None = call.result
        if isinstance(result, TimersResult | WorkoutChange) and result.artifact_id:
            return result.artifact_id
    return None
