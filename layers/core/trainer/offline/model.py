"""The offline coach behind the chat agent's model port (`AgentModel`): a deterministic rule-based
agent, the local default and the CI model when no ANTHROPIC_API_KEY is set.

It reads the request the context builder made (Anthropic's native shape, with the typed result of
every call), finds the latest user text and the tool calls made since, and picks the next single tool
call: the steps the intent table (trainer.offline.intents) plans for the message, one per call, then
one message_notify_user saying what the results show actually happened, marked final (it ends the
turn; idle only when a message did not). What it needs to know about the user beyond the
conversation (units, time zone, recent logs, preferences, schedule, goals, progression targets) the
planner reads for it, typed (trainer.offline.records)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Literal

from pydantic import ValidationError

from trainer.domain.composer import ComposerError
from trainer.offline.conversation import Conversation, PastCall, read_conversation
from trainer.offline.intents import BY_NAME, plan
from trainer.offline.replies import COACHING_NOTES, failure_message
from trainer.offline.turn import REPLY_TOOLS, OfflinePlanner, Turn, idle, notify
from trainer.providers.ports import ModelRequest, ModelResponse, TextDeltaCallback, ToolCall, Usage
from trainer.tools.base import FINAL_ARGUMENT, NOTE_ARGUMENT, ToolInvocation
from trainer.tools.communication import AskArgs, NotifyArgs

MAX_ACTIONS_PER_TURN = 6
DEGRADED_INTENTS: frozenset[str] = frozenset(
    {
        # safety first, whatever answers
        "red_flag",
        "injury",
        # the workout in progress
        "log",
        "correct",
        "undo",
        "swap",
        "adjust",
        "remove",
        "timer",
        # today's workout, and what is coming
        "workout",
        "planned_workout",
        "upcoming",
        # the numbers
        "stats",
        # what a workout request states beside it (read by the same slot parsers)
        "location",
        "preference",
        "readiness",
    }
)
"""What the offline coach does when it stands in for an unavailable live model (degraded mode)."""
DEGRADED_LIMITS = (
    "The full coach is unavailable right now and will be back soon. Until then I can log your sets, "
    "give you today's workout, swap an exercise or show your stats."
)


def finishable_tools(request: ModelRequest, argument: str = FINAL_ARGUMENT) -> set[str]:
    """The tools whose schema, as the request sends it, takes `final` (or `argument`; reply tools
    aside)."""
    names: set[str] = set()
    for tool in request.tools:
        properties = (tool.get("input_schema") or {}).get("properties") or {}
        if argument in properties and tool.get("name") not in REPLY_TOOLS:
            names.add(str(tool.get("name")))
    return names


def finishing(action: ToolInvocation, request: ModelRequest, calls: list[PastCall]) -> ToolInvocation:
    """The turn's last planned call, marked final when it and every call before it in the turn can
    finish: the code's closing reply then says what the offline coach's own last message would have
    (trainer.agents.closing.closing_text over the same results), one model call sooner, with the
    coach's note on the tools it has one for (COACHING_NOTES), after the step's own (what a composed
    workout relaxed: the closing reply keeps the note's first sentences when it runs long)."""
    finishable = finishable_tools(request)
    if action.name in finishable and all(call.name in finishable for call in calls):
        takes_note = action.name in finishable_tools(request, NOTE_ARGUMENT)
        said = " ".join(filter(None, (action.note, COACHING_NOTES.get(action.name))))
        return replace(action, final=True, note=said if takes_note and said else None)
    return action


class OfflineAgentModel:
    """The chat agent's model played by the offline coach: the local and CI model, and the stand-in
    for an unavailable live model (degraded mode, `degraded_coach`)."""

    provider: Literal["anthropic", "offline"] = "offline"

    def __init__(
        self,
        planner: OfflinePlanner,
        *,
        clock: Callable[[], datetime] | None = None,
        delta_chunk_chars: int = 24,
        only: frozenset[str] | None = None,
    ) -> None:
        """`only`: the intents it acts on (degraded mode: `DEGRADED_INTENTS`); a message asking for
        anything else gets `DEGRADED_LIMITS`. None: every intent."""
        self.planner = planner
        self.only = only
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
        turn = Turn(self.planner, request, convo, self.now())
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
        steps = await plan(turn)
        if self.only is not None and not calls and any(step.intent not in self.only for step in steps):
            return notify(DEGRADED_LIMITS)
        if len(calls) < len(steps):
            step = steps[len(calls)]
            intent = BY_NAME[step.intent]
            try:
                action = await intent.act(turn, step)
                is_last_step = len(calls) == len(steps) - 1
                return finishing(action, request, calls) if is_last_step else action
            except ValidationError:
                unfit = "some of the numbers didn't fit. Could you rephrase it?"
                return notify(f"Sorry - I couldn't {intent.label}: {unfit}")
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


def degraded_coach(planner: OfflinePlanner) -> OfflineAgentModel:
    """The offline coach as the stand-in for an unavailable live model: only what it does well
    (`DEGRADED_INTENTS`), anything else answered with `DEGRADED_LIMITS`."""
    return OfflineAgentModel(planner, only=DEGRADED_INTENTS)
