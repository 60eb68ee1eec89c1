"""What a chat turn leaves behind, kept by its `TurnRecorder`: its events (appended through the turn's
`TurnStore` and kept in memory, the context events among them, for the next model request), its frames
(to the client, if one listens), the tool calls it made (`Action`s), its usage and cost totals, its
hooks, and its end (the `turn_end` event, the session closed, `TurnCompleted` published, the
`TurnResult`). The conversation the step engine runs (trainer.chat.turn) decides; this records."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Literal

from trainer.agents.tools import ToolOutcome
from trainer.chat.errors import log_error
from trainer.chat.hooks import TurnHooks
from trainer.chat.ports import EventPublisher
from trainer.chat.results import (
    DEGRADED_CODE,
    DEGRADED_EVENT,
    DEGRADED_NOTICE,
    STOP_OUTCOMES,
    Action,
    ClientResponse,
    StopReason,
    TurnResult,
    error_code_for,
    request_summary,
    token_usage,
    tool_result_frame,
    trim_raw,
    user_message_for,
)
from trainer.chat.turn_completed import TurnCompleted, TurnUsage
from trainer.chat.turn_store import TurnStore
from trainer.frames import (
    Frame,
    FrameSink,
    MessageDeltaFrame,
    ToolResultFrame,
    TurnOutcome,
    done_frame,
    error_frame,
    message_reset_frame,
    status_frame,
    tool_start_frame,
    turn_end_frame,
)
from trainer.providers.ports import ModelRequest, ModelResponse, ToolCall, Usage
from trainer.store.models import CONTEXT_EVENT_TYPES, Event, EventType, Session
from trainer.store.request_counts import RequestCounts
from trainer.tools.base import StatusMessage, ToolContext

logger = logging.getLogger(__name__)

ESTIMATE_KEY = "context_tokens_estimate"
ESTIMATE_START_KEY = "context_estimate_start"


class TurnRecorder:
    """One turn's record: events, frames, actions, usage totals and the end of the turn. It is also the
    step engine's hooks around each tool call (trainer.agents.steps.StepHooks)."""

    def __init__(
        self,
        store: TurnStore,
        *,
        model_id: str,
        sink: FrameSink | None,
        counts: RequestCounts,
        hooks: TurnHooks,
        publisher: EventPublisher | None,
        cost: Callable[[str, Usage], float],
        status_for: Callable[[str], StatusMessage | None],
    ) -> None:
        self.store = store
        self.model_id = model_id
        self.sink = sink
        self.counts = counts
        self.hooks = hooks
        self.publisher = publisher
        self.cost = cost
        self.status_for = status_for
        """The status messages a tool shows while it runs (the chat agent's toolset)."""
        self.holder = store.holder
        self.started = time.perf_counter()
        self.events: list[Event] = []
        """The context events of the session the turn has seen, in order (what the next request holds)."""
        self.first_seq: int | None = None
        self.last_seq = store.session.last_seq
        self.actions: list[Action] = []
        self.usage = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        self.cost_cents = 0.0
        self.context_estimate = 0
        self.model_errors = 0
        self.degraded = False
        """The fallback model answered (`degraded_to`)."""
        self.model_ms = 0
        self.preamble: list[dict[str, Any]] = []
        """The blocks before the tool call being recorded (its thinking blocks)."""
        self.previewing = False
        """Whether `message_delta` text went out since the last `tool_result` (a preview the client
        shows until the message arrives whole)."""

    @property
    def session(self) -> Session:
        return self.store.session

    async def hook(self, name: str, *args: Any) -> None:
        try:
            await getattr(self.hooks, name)(*args)
        except Exception:
            logger.exception("turn hook %s failed", name)

    async def append(
        self, event_type: EventType, data: dict[str, Any], duration_ms: int | None = None
    ) -> Event:
        event = await self.store.append_event(self.session.id, event_type, data, duration_ms)
        self.remember(event)
        return event

    def remember(self, event: Event) -> None:
        """An event of this turn, appended here or by someone else (a tool, the initializer)."""
        if self.first_seq is None:
            self.first_seq = event.sequence_number
        self.last_seq = max(self.last_seq, event.sequence_number)
        if event.event_type in CONTEXT_EVENT_TYPES:
            self.events.append(event)

    async def emit(self, frame: Frame) -> None:
        """Sends a frame to the client, if one listens; a dead client never breaks the turn."""
        if self.sink is None:
            return
        if isinstance(frame, MessageDeltaFrame):
            self.previewing = True
        elif isinstance(frame, ToolResultFrame):
            self.previewing = False
        try:
            await self.sink(frame, self.store.durable_seq)
        except Exception:
            logger.debug("SSE frame not delivered", exc_info=True)

    async def discard_preview(self) -> None:
        """The answer whose text was previewed is thrown away (its model call is made again, or the
        model declined): a `message_reset` frame tells the client to drop the preview, so the message
        it shows is the one the turn keeps, never the cut text followed by the new one."""
        if self.previewing:
            self.previewing = False
            await self.emit(message_reset_frame())

    async def log_error(self, exc: BaseException | str, context: str, *, code: str | None = None) -> None:
        event = await log_error(self.store, self.session.id, exc, context, code=code)
        if event is not None:
            self.remember(event)

    async def mark_interrupted(self, previous_holder: str) -> None:
        """The turn this one took over died mid-way (timeout, crash, deploy): say so in the timeline,
        so it reads as interrupted rather than as a turn that never ended."""
        logger.warning(
            "session %s: taking over from %s, which never finished", self.session.id, previous_holder
        )
        await self.log_error(
            "The previous turn was interrupted before it finished.", "lease", code="turn_interrupted"
        )

    # --- the model calls ---

    async def model_called(self, request: ModelRequest, iteration: int) -> None:
        await self.hook("on_llm_start", self.session, request)
        await self.append(
            EventType.LLM_REQUEST,
            {
                "model": self.model_id,
                "prompt": request_summary(request),
                "estimated_tokens": self.context_estimate,
                "iteration": iteration,
            },
        )

    async def degraded_to(self, provider: str, exc: BaseException | str) -> None:
        """The turn's model is unavailable and the fallback answers from here: an `error` event (code
        `model_degraded`, context `degraded`: the console shows it, the turn goes on), a status frame,
        and the turn counted as degraded (its `turn_end`, its result, the `DegradedTurns` metric)."""
        logger.warning("model unavailable in session %s, degraded to %s: %s", self.session.id, provider, exc)
        self.degraded = True
        await self.log_error(DEGRADED_EVENT, "degraded", code=DEGRADED_CODE)
        await self.emit(status_frame("degraded", DEGRADED_NOTICE, "start"))

    async def model_answered(self, response: ModelResponse, provider: str, duration_ms: int) -> None:
        """The answer's time, cost and tokens added to the turn's totals, and its `llm_response` event."""
        self.model_ms += duration_ms
        cost = self.cost(response.model or self.model_id, response.usage)
        self.cost_cents += cost
        for key in self.usage:
            self.usage[key] += int(getattr(response.usage, key))
        if response.usage.prompt_tokens:
            self.context_estimate = response.usage.prompt_tokens + response.usage.output_tokens
        await self.append(
            EventType.LLM_RESPONSE,
            {
                "provider": provider,
                "model": response.model or self.model_id,
                "stop_reason": response.stop_reason,
                "raw_response": trim_raw(response.raw),
                "tokens": token_usage(response.usage),
                "usage": {
                    "input_tokens": response.usage.input_tokens,
                    "output_tokens": response.usage.output_tokens,
                    "cache_creation_input_tokens": response.usage.cache_creation_input_tokens,
                    "cache_read_input_tokens": response.usage.cache_read_input_tokens,
                },
                "cost_cents": cost,
            },
            duration_ms=duration_ms,
        )
        await self.hook("on_llm_end", self.session, response, cost)

    # --- around each tool call (trainer.agents.steps.StepHooks) ---

    async def on_tool_start(self, ctx: ToolContext, call: ToolCall) -> None:
        data: dict[str, Any] = {"tool_name": call.name, "arguments": call.arguments, "call_id": call.id}
        if self.preamble:
            data["preamble"] = self.preamble
        await self.append(EventType.TOOL_CALL, data)
        await self.hook("on_tool_start", self.session, call.id, call.name, call.arguments)
        status = self.status_for(call.name)
        if status is not None:
            await self.emit(status_frame(call.name, status.start, "start"))
        await self.emit(tool_start_frame(call.name, call.arguments))

    async def on_tool_end(self, ctx: ToolContext, call: ToolCall, outcome: ToolOutcome) -> None:
        for event in ctx.appended:
            self.remember(event)
        await self.append(
            EventType.TOOL_RESULT,
            {
                "tool_name": call.name,
                "result": outcome.result_json(),
                "success": outcome.success,
                "call_id": call.id,
                "formatted": outcome.formatted,
            },
            duration_ms=outcome.duration_ms,
        )
        self.store.flush_soon()
        await self.emit(tool_result_frame(outcome))
        status = self.status_for(call.name)
        if status is not None:
            if outcome.success:
                await self.emit(status_frame(call.name, status.done, "done"))
            else:
                await self.emit(status_frame(call.name, "Something went wrong", "error"))
        self.actions.append(Action(call.name, call.arguments, outcome))
        await self.hook("on_tool_end", self.session, call.id, outcome)

    # --- the end of the turn ---

    async def completed(self, steps: int, response: ClientResponse, stop: StopReason) -> TurnResult:
        """The turn ran to its end: its `turn_end`, the session closed as completed, `TurnCompleted`
        published, the `done` frame."""
        await self._end_turn(STOP_OUTCOMES.get(stop, "failed"))
        await self.store.settle()
        await self._finish("completed")
        await self.emit(done_frame(self.session.id))
        outcome = self.result("completed", steps, response, stop)
        await self.hook("on_turn_end", self.session, outcome)
        return outcome

    async def fail(self, exc: BaseException, context: str = "llm") -> None:
        """The turn broke: the error logged and sent as an `error` frame, the session closed as `error`."""
        logger.error("turn failed in session %s: %s", self.session.id, exc)
        await self.log_error(exc, context)
        await self.emit(error_frame(user_message_for(exc), error_code_for(exc)))
        await self.failed("failed")

    async def failed(self, outcome: TurnOutcome) -> None:
        """The end of a turn that failed (its error already recorded and sent)."""
        await self._end_turn(outcome)
        await self._finish("error")
        failed = self.result("error", len(self.actions), ClientResponse(messages=[]), "error")
        await self.hook("on_turn_end", self.session, failed)

    async def refused(self, response: ModelResponse) -> None:
        """stop_reason `refusal` (HTTP 200): the model declined. Any partial output is discarded (the
        client drops its preview); the turn then replies saying so and ends `refused` (its
        `llm_response` event keeps the stop reason and the category for the timeline)."""
        details = response.raw.get("stop_details") or {}
        category = details.get("category") if isinstance(details, dict) else None
        logger.warning("model refused in session %s (category %s)", self.session.id, category)
        await self.discard_preview()

    def result(
        self,
        status: Literal["completed", "error"],
        iterations: int,
        response: ClientResponse,
        stop: StopReason,
    ) -> TurnResult:
        return TurnResult(
            session_id=self.session.id,
            actions=self.actions,
            iterations=iterations,
            status=status,
            response=response,
            stop_reason=stop,
            turn_id=self.holder,
            model=self.model_id,
            usage=dict(self.usage),
            cost_cents=self.cost_cents,
            duration_ms=int((time.perf_counter() - self.started) * 1000),
            model_errors=self.model_errors,
            degraded=self.degraded,
            model_ms=self.model_ms,
            dynamodb_requests=self.counts.dynamodb,
            sql_queries=self.counts.sql,
        )

    async def _end_turn(self, outcome: TurnOutcome) -> None:
        """The `turn_end` event closing the turn's events (a catch-up knows the turn is over), and its
        frame."""
        try:
            data: dict[str, Any] = {"outcome": outcome}
            if self.degraded:
                data["degraded"] = True
            await self.append(EventType.TURN_END, data)
        except Exception:
            logger.exception("could not record the end of the turn in session %s", self.session.id)
        await self.emit(turn_end_frame(outcome, self.session.id))

    async def _finish(self, status: Literal["completed", "error"]) -> None:
        metadata = {
            **self.session.metadata,
            ESTIMATE_KEY: self.context_estimate,
            ESTIMATE_START_KEY: self.session.context_start_sequence,
        }
        try:
            await self.store.close(status=status, metadata=metadata)
        except Exception:
            logger.exception("could not set session %s to %s", self.session.id, status)
        await self._publish(status)

    async def _publish(self, status: Literal["completed", "error"]) -> None:
        if self.publisher is None:
            return
        event = TurnCompleted(
            turn_id=self.holder,
            session_id=self.session.id,
            user_id=self.session.user_id,
            first_seq=self.first_seq or self.last_seq,
            last_seq=self.last_seq,
            context_tokens_estimate=self.context_estimate,
            model=self.model_id,
            status=status,
            usage=TurnUsage.model_validate(self.usage),
            cost_cents=round(self.cost_cents, 6),
        )
        try:
            await self.publisher.publish("TurnCompleted", event.model_dump(mode="json"))
        except Exception:
            logger.exception("could not publish TurnCompleted for session %s", self.session.id)
