"""One decision of the offline coach: the request's conversation, the user's records (read once, when
a handler needs them), the current workout, and what the conversation's typed results show (the
workout as changed so far, the entries logged, the exercise last talked about)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Literal, Protocol

from trainer.agents.closing import FinishedCall, closing_text, delivered_artifact_id, needs_user_records
from trainer.domain.composer import ComposedWorkout
from trainer.domain.message_words import best_name, name_words
from trainer.domain.workout import Exercise
from trainer.offline.conversation import Conversation, PastCall
from trainer.offline.records import UserRecords
from trainer.offline.references import REFERENCE, identify_exercise, named_location, ordinal_position
from trainer.offline.set_parsing import exercise_phrase
from trainer.providers.ports import ModelRequest
from trainer.tools.add_exercise import AddResult
from trainer.tools.base import ToolInvocation, ToolResult
from trainer.tools.communication import AskArgs, Idle, IdleArgs, MessageAskUser, MessageNotifyUser, NotifyArgs
from trainer.tools.exercises import SearchExercisesResult
from trainer.tools.generate_workout import GenerateResult
from trainer.tools.location import SetCurrentLocationResult
from trainer.tools.log_corrections import AdjustLoggedExerciseResult, UndoLoggedExerciseResult
from trainer.tools.logged_entries import LoggedExercise
from trainer.tools.logging import LogCompletedExerciseResult, LogWorkoutResult, MarkExerciseCompleteResult
from trainer.tools.wording import ReplyContext
from trainer.tools.workout_edits import AdjustResult, RemoveResult, SwapResult

IntentName = Literal[
    "undo", "correct", "log", "exercise_info", "progression", "convert", "swap", "adjust", "add", "remove",
    "timer", "upcoming", "reschedule", "unschedule", "data", "plan", "milestone", "schedule", "unprefer",
    "stats", "location", "preference", "goals", "workout", "answer", "clarify",
    "program", "show_plan", "planned_workout", "change_week", "change_day", "milestone_progress",
    "readiness", "new_location", "onboarding", "profile", "profile_next", "edit_location",
    "training_days", "missed", "skip_session", "swap_sessions",
    "units", "pain_alternatives", "show_exercise", "scheme", "intensity", "never", "red_flag", "injury",
    "health",
]  # fmt: skip
REPLY_TOOLS = (MessageNotifyUser.name, MessageAskUser.name, Idle.name)
WHOLE_WORKOUT = re.compile(r"\b(workout|session|everything|all of it|whole|the lot|all exercises)\b", re.I)


class OfflinePlanner(Protocol):
    """Domain services the offline coach needs to produce real tool arguments."""

    async def compose_workout(self, user_id: str, request_text: str) -> ComposedWorkout:
        """A workout for the request, and what it relaxed to exist (ComposerError: none fits)."""
        ...

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

    intent: IntentName
    payload: Any = None


def idle(reason: str) -> ToolInvocation:
    return Idle().call(IdleArgs(reason=reason))


def notify(message: str, artifact_id: str | None = None) -> ToolInvocation:
    """The coach's message, always its last of the turn: marked final, so the turn ends with it."""
    return MessageNotifyUser().call(NotifyArgs(message=message[:4000], artifact_id=artifact_id, final=True))


def ask(question: str, options: list[str] | None = None) -> ToolInvocation:
    return MessageAskUser().call(AskArgs(question=question, options=options or None))


def _renumbered(exercises: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "order": n} for n, e in enumerate(exercises, start=1)]


def _by_name(exercises: list[Any]) -> dict[str, dict[str, Any]]:
    return {str(e.get("exercise_name", "")).lower(): e for e in exercises if isinstance(e, dict)}


def workout_from_conversation(convo: Conversation) -> dict[str, Any] | None:
    """The current workout as the conversation's typed results show it, for when the planner cannot
    see the session (a policy behind the fake HTTP server): the last generated workout with the ids
    it was given, then every swap, adjustment, addition, removal and completion since, in order."""
    exercises: list[dict[str, Any]] = []
    for call in convo.history:
        match call.result:
            case GenerateResult(exercises=briefs, prescribed=stored):
                sent = (call.arguments.get("workout") or {}).get("exercises") or []
                full = _by_name(sent)
                kept = _by_name(stored)  # with the muscles and goals the tool filled where none were sent
                exercises = [
                    {
                        **kept.get(b.exercise_name.lower(), {}),
                        **full.get(b.exercise_name.lower(), {}),
                        **b.model_dump(exclude={"detail"}),
                    }
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


def logged_in_conversation(convo: Conversation, *, before_this_turn: bool = False) -> list[LoggedExercise]:
    """Entries logged in the conversation and not undone since, as last corrected, newest first
    (`before_this_turn`: as they stood when the latest message came)."""
    history = convo.history[: len(convo.history) - len(convo.calls)] if before_this_turn else convo.history
    undone = {c.result.removed.id for c in history if isinstance(c.result, UndoLoggedExerciseResult)}
    latest: dict[str, LoggedExercise] = {}
    order: list[str] = []
    for call in history:
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


def finished(calls: list[PastCall]) -> list[FinishedCall]:
    """The calls as the closing reply reads them; one whose result is unknown or failed says 'Done.'."""
    return [
        FinishedCall(c.name, c.arguments, c.result if isinstance(c.result, ToolResult) else ToolResult())
        for c in calls
    ]


class Turn:
    """One decision: the request, the conversation, and the user's records, read once when needed."""

    def __init__(
        self, planner: OfflinePlanner, request: ModelRequest, convo: Conversation, now: datetime
    ) -> None:
        self.planner = planner
        self.request = request
        self.convo = convo
        self.text = convo.user_text
        self.user_id = request.user_id or ""
        self.session_id = request.session_id or ""
        self.now = now
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

    async def reply_context(self) -> ReplyContext:
        records = await self.records()
        return ReplyContext.for_user(self.text, self.now, records.zone, records.current_location)

    async def switch_needed(self, name: str | None) -> bool:
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

    async def report(self) -> ToolInvocation:
        """One message saying what the turn's calls did, delivering the last artifact they made: the
        reply the code writes when a live model's call is marked final (trainer.agents.closing)."""
        calls = finished([c for c in self.convo.calls if c.name not in REPLY_TOOLS])
        ctx = await self.reply_context() if needs_user_records(calls) else ReplyContext(text=self.text)
        return notify(closing_text(calls, ctx), delivered_artifact_id(calls))

    def named_in_workout(self, exercises: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The exercise of the workout a logging message names: by position, as 'this one', or by every
        word of the name it gives."""
        exercise = identify_exercise(self.text, exercises, referent_name(self.convo))
        if exercise is None or not exercise.get("id"):
            return None
        if ordinal_position(self.text, len(exercises)) is not None or REFERENCE.search(self.text):
            return exercise
        said = name_words(exercise_phrase(self.text))
        return exercise if said and said <= name_words(str(exercise.get("exercise_name"))) else None
