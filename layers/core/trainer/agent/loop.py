"""One agent turn (seed 002 §3, ARCHITECTURE §1, §5, §6).

get/create session -> lease -> (synchronous checkpoint if over the hard limit) -> user message ->
client workout as knowledge -> initializer -> read events ONCE -> loop { build context, call model
with forced single tool use, execute the tool, append tool_call + tool_result } -> completed ->
TurnCompleted -> done. Events of the turn are kept in memory; writes go through.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Literal

from trainer.agent.context import ContextBuilder
from trainer.agent.events import (
    done_event,
    error_event,
    message_delta_event,
    status_event,
    tool_result_event,
    tool_start_event,
)
from trainer.agent.initializer import (
    CURRENT_WORKOUT_SOURCE,
    SourceFetcher,
    format_current_workout,
    initialize_context,
    log_error,
)
from trainer.agent.tool_registry import ToolRegistry
from trainer.jobs import checkpoint as checkpoints
from trainer.jobs.bus import EventPublisher
from trainer.llm.ports import AgentModel, KnowledgeSelector, ModelError, ModelRequest, ModelResponse, Usage
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.models import (
    CONTEXT_EVENT_TYPES,
    CURRENT_WORKOUT_KEY,
    Event,
    EventType,
    KnowledgeRef,
    Session,
)
from trainer.store.ports import SessionStore
from trainer.tools.base import ToolContext

logger = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], Awaitable[None]]
StopReason = Literal["idle", "ask_user", "max_iterations", "no_tool_call", "error"]
WORKOUT_TOOLS = frozenset({"generate_workout", "swap_exercise", "adjust_exercise", "remove_exercise"})
ESTIMATE_KEY = "context_tokens_estimate"
ESTIMATE_START_KEY = "context_estimate_start"
READ_PAGE_SIZE = 500
RAW_TEXT_LIMIT = 500
USER_DATA_FALLBACK = "<user_data>\n(unavailable)\n</user_data>"


class TurnFailed(RuntimeError):
    """The model failed (after the one retry); the turn was logged, the session marked `error`."""

    def __init__(self, message: str, *, session_id: str) -> None:
        super().__init__(message)
        self.session_id = session_id


@dataclass
class TurnResult:
    session_id: str
    actions: list[dict[str, Any]]
    iterations: int
    status: Literal["completed", "error"]
    response: dict[str, Any]
    stop_reason: StopReason
    turn_id: str = ""
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    cost_cents: float = 0.0


@dataclass
class TurnToolContext(ToolContext):
    """Tool context that also records events tools append (artifacts) into the turn's memory."""

    sink: list[Event] = field(default_factory=list)

    async def append_event(self, event_type: EventType, data: dict[str, Any]) -> Event:
        event = await super().append_event(event_type, data)
        self.sink.append(event)
        return event


def safe_emitter(emit: Emit | None) -> Emit:
    """An emit that never raises: a dead client must not break the turn."""

    async def _emit(event: dict[str, Any]) -> None:
        if emit is None:
            return
        try:
            await emit(event)
        except Exception:
            logger.debug("SSE event not delivered", exc_info=True)

    return _emit


def trim_raw(raw: dict[str, Any]) -> dict[str, Any]:
    """The provider response without tool inputs (they are in the tool_call event) and long text."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "content" and isinstance(value, list):
            blocks = []
            for block in value:
                if not isinstance(block, dict):
                    continue
                kept = {k: block[k] for k in ("type", "id", "name") if k in block}
                if isinstance(block.get("text"), str):
                    kept["text"] = block["text"][:RAW_TEXT_LIMIT]
                blocks.append(kept)
            out[key] = blocks
        elif isinstance(value, str):
            out[key] = value[:RAW_TEXT_LIMIT]
        elif _is_small(value):
            out[key] = value
    return out


def _is_small(value: Any) -> bool:
    if isinstance(value, (int, float, bool)) or value is None:
        return True
    return isinstance(value, dict) and len(str(value)) <= 2000


def token_usage(usage: Usage) -> dict[str, int]:
    """Seed 002 §7.3 TokenUsage: prompt excludes cache reads and writes (Anthropic convention)."""
    return {
        "prompt": usage.input_tokens,
        "completion": usage.output_tokens,
        "cached": usage.cache_read_input_tokens,
        "cache_write": usage.cache_creation_input_tokens,
        "total": usage.total_tokens,
    }


def request_summary(request: ModelRequest) -> str:
    """A short description of the prompt for the llm_request event (not the prompt itself)."""
    last = request.messages[-1]["content"][-1] if request.messages else {}
    kind = last.get("type", "?")
    counts = (
        f"{len(request.system)} system blocks, {len(request.tools)} tools, {len(request.messages)} messages"
    )
    return f"{counts}; last: {kind}"


class AgentLoop:
    def __init__(
        self,
        store: SessionStore,
        model_factory: Callable[[str], AgentModel] | AgentModel,
        selector: KnowledgeSelector,
        registry: ToolRegistry,
        context_builder: ContextBuilder | None,
        user_data: Callable[[str], Awaitable[str]],
        fetch_sources_factory: Callable[[str], SourceFetcher],
        publisher: EventPublisher | None,
        settings: Settings,
        db: Database | None = None,
        cost_fn: Callable[[str, Usage], float] | None = None,
        *,
        tool_extras: Mapping[str, Any] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store
        self.model_factory = model_factory
        self.selector = selector
        self.registry = registry
        self.context_builder = context_builder or ContextBuilder(registry)
        self.user_data = user_data
        self.fetch_sources_factory = fetch_sources_factory
        self.publisher = publisher
        self.settings = settings
        self.db = db
        self.cost_fn = cost_fn
        self.tool_extras = dict(tool_extras or {})
        self.clock = clock or (lambda: datetime.now(UTC))

    def _model(self, model_id: str) -> AgentModel:
        factory = self.model_factory
        if callable(factory) and not hasattr(factory, "complete"):
            return factory(model_id)
        return factory  # type: ignore[return-value]

    def _cost(self, model_id: str, usage: Usage) -> float:
        if self.cost_fn is not None:
            return float(self.cost_fn(model_id, usage))
        try:
            from trainer.llm.models import cost_cents

            return float(cost_cents(model_id, usage))
        except Exception:
            logger.debug("no price for model %s", model_id)
            return 0.0

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def run_turn(
        self,
        user_id: str,
        message: str,
        *,
        session_id: str | None = None,
        current_workout: dict[str, Any] | None = None,
        model: str | None = None,
        emit: Emit | None = None,
    ) -> TurnResult:
        send = safe_emitter(emit)
        model_id = model or self.settings.model
        session = await self._call(self.store.get_or_create_session, user_id, session_id)
        turn = _Turn(loop=self, session=session, model_id=model_id, send=send)
        await self._call(self.store.acquire_lease, session.id, turn.holder, self.settings.lease_seconds)
        try:
            await turn.checkpoint_if_over_hard_limit()
            return await turn.run(message, current_workout)
        except TurnFailed:
            raise
        except Exception as exc:
            logger.exception("turn failed in session %s", session.id)
            await turn.fail(exc, "agent_loop")
            raise TurnFailed(_user_message_for(exc), session_id=session.id) from exc
        finally:
            try:
                await self._call(self.store.release_lease, turn.session.id, turn.holder)
            except Exception:
                logger.exception("could not release the lease of session %s", turn.session.id)


class _Turn:
    """State of one turn: the in-memory event list, usage totals and the client response."""

    def __init__(self, *, loop: AgentLoop, session: Session, model_id: str, send: Emit) -> None:
        self.loop = loop
        self.store = loop.store
        self.session = session
        self.model_id = model_id
        self.send = send
        self.holder = f"turn-{uuid.uuid4().hex}"
        self.events: list[Event] = []
        self.first_seq: int | None = None
        self.last_seq = session.last_seq
        self.actions: list[dict[str, Any]] = []
        self.usage = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        self.cost_cents = 0.0
        self.context_estimate = 0
        self.message = ""

    async def _append(
        self, event_type: EventType, data: dict[str, Any], duration_ms: int | None = None
    ) -> Event:
        event: Event = await asyncio.to_thread(
            self.store.append_event, self.session.id, event_type, data, duration_ms
        )
        self._remember(event)
        return event

    def _remember(self, event: Event) -> None:
        if self.first_seq is None:
            self.first_seq = event.sequence_number
        self.last_seq = max(self.last_seq, event.sequence_number)
        if event.event_type in CONTEXT_EVENT_TYPES:
            self.events.append(event)

    async def _emit(self, event: dict[str, Any]) -> None:
        await self.send({**event, "seq": self.last_seq})

    async def checkpoint_if_over_hard_limit(self) -> None:
        """ARCHITECTURE §6: if the last turn left the context over the hard limit and no
        checkpoint has landed since, checkpoint synchronously (under this turn's lease) first."""
        meta = self.session.metadata
        estimate = int(meta.get(ESTIMATE_KEY) or 0)
        if meta.get(ESTIMATE_START_KEY) != self.session.context_start_sequence or not estimate:
            return
        if not checkpoints.needs_checkpoint(estimate, self.loop.settings, hard=True):
            return
        try:
            await checkpoints.create_checkpoint(self.store, self.session)
        except Exception as exc:
            logger.exception("synchronous checkpoint failed")
            await log_error(self.store, self.session.id, exc, "checkpoint")
        self.session = await asyncio.to_thread(self.store.load_session, self.session.id)
        self.last_seq = self.session.last_seq

    async def run(self, message: str, current_workout: dict[str, Any] | None) -> TurnResult:
        loop = self.loop
        self.message = message
        await self._append(EventType.USER_MESSAGE, {"message": message})
        if current_workout:
            await self._inject_current_workout(current_workout)
        await self._initialize(message)
        await self._read_context_events()
        user_data_xml = await self._user_data()
        today = loop.clock().date()

        iterations = 0
        stop: StopReason = "max_iterations"
        model = loop._model(self.model_id)
        while iterations < loop.settings.max_iterations:
            iterations += 1
            response = await self._complete(model, user_data_xml, today, iterations)
            call = response.tool_call
            if call is None:
                await self._log_error("No tool call in response", "agent_loop")
                stop = "no_tool_call"
                break
            await self._run_tool(call.id, call.name, call.arguments)
            if call.name == "message_ask_user":
                stop = "ask_user"
                break
            if call.name == "idle" or loop.registry.is_terminal(call.name):
                stop = "idle"
                break
        else:
            await self._log_error(f"max iterations reached ({loop.settings.max_iterations})", "agent_loop")

        response_body = await self._client_response()
        await self._finish("completed")
        await self._emit(done_event(self.session.id))
        return TurnResult(
            session_id=self.session.id,
            actions=self.actions,
            iterations=iterations,
            status="completed",
            response=response_body,
            stop_reason=stop,
            turn_id=self.holder,
            model=self.model_id,
            usage=dict(self.usage),
            cost_cents=self.cost_cents,
        )

    async def _inject_current_workout(self, workout: dict[str, Any]) -> None:
        await self._append(
            EventType.KNOWLEDGE,
            {"source": CURRENT_WORKOUT_SOURCE, "params": {}, "data": format_current_workout(workout)},
        )
        ref = KnowledgeRef(source=CURRENT_WORKOUT_SOURCE, params={})
        await asyncio.to_thread(self.store.add_knowledge, self.session.id, [ref])

    async def _initialize(self, message: str) -> None:
        loop = self.loop
        try:
            fetch = loop.fetch_sources_factory(self.session.user_id)
            outcome = await initialize_context(
                self.store, self.session, message, loop.selector, fetch, self._emit
            )
        except Exception as exc:
            logger.exception("context initialisation failed")
            event = await log_error(self.store, self.session.id, exc, "context_init")
            if event is not None:
                self._remember(event)
            return
        for event in outcome.events:
            self._remember(event)

    async def _read_context_events(self) -> None:
        """The one read of the turn: every context event from context_start_sequence on."""
        after = max(self.session.context_start_sequence - 1, 0)
        collected: list[Event] = []
        while True:
            page = await asyncio.to_thread(
                self.store.read_events, self.session.id, after, READ_PAGE_SIZE, CONTEXT_EVENT_TYPES
            )
            collected.extend(page.events)
            if page.next_after is None or not page.events:
                break
            after = page.next_after
        self.events = collected
        if collected:
            self.last_seq = max(self.last_seq, collected[-1].sequence_number)

    async def _user_data(self) -> str:
        try:
            return await self.loop.user_data(self.session.user_id)
        except Exception as exc:
            logger.exception("user data unavailable")
            await self._log_error(exc, "user_data")
            return USER_DATA_FALLBACK

    async def _complete(
        self, model: AgentModel, user_data_xml: str, today: date, iteration: int
    ) -> ModelResponse:
        request, self.context_estimate = self.loop.context_builder.build_with_estimate(
            self.session, self.events, user_data_xml, self.model_id, today=today
        )
        logged_request = asyncio.create_task(
            self._append(
                EventType.LLM_REQUEST,
                {
                    "model": self.model_id,
                    "prompt": request_summary(request),
                    "estimated_tokens": self.context_estimate,
                    "iteration": iteration,
                },
            )
        )

        async def on_delta(tool: str, text: str) -> None:
            await self._emit(message_delta_event(tool, text))

        started = time.perf_counter()
        try:
            try:
                response = await model.complete(request, on_delta)
            except ModelError as exc:
                if not exc.retryable:
                    raise
                logger.warning("model stream broke off, retrying once: %s", exc)
                response = await model.complete(request, on_delta)
        except Exception as exc:
            await asyncio.gather(logged_request, return_exceptions=True)
            await self.fail(exc)
            raise TurnFailed(_user_message_for(exc), session_id=self.session.id) from exc
        duration_ms = int((time.perf_counter() - started) * 1000)
        await logged_request

        cost = self.loop._cost(response.model or self.model_id, response.usage)
        self.cost_cents += cost
        for key in self.usage:
            self.usage[key] += int(getattr(response.usage, key))
        if response.usage.prompt_tokens:
            self.context_estimate = response.usage.prompt_tokens + response.usage.output_tokens
        await self._append(
            EventType.LLM_RESPONSE,
            {
                "provider": getattr(model, "provider", "unknown"),
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
        return response

    async def _run_tool(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        loop = self.loop
        await self._append(
            EventType.TOOL_CALL, {"tool_name": name, "arguments": arguments, "call_id": call_id}
        )
        status = loop.registry.status_for(name)
        if status is not None:
            await self._emit(status_event(name, status.start, "start"))
        await self._emit(tool_start_event(name, arguments))

        ctx = TurnToolContext(
            user_id=self.session.user_id,
            session_id=self.session.id,
            store=self.store,
            db=loop.db,
            emit=self._emit,
            now=loop.clock,
            extras={**loop.tool_extras, "user_message": self.message},
        )
        started = time.perf_counter()
        execution = await loop.registry.execute(name, arguments, ctx)
        duration_ms = int((time.perf_counter() - started) * 1000)
        for event in ctx.sink:
            self._remember(event)
        await self._append(
            EventType.TOOL_RESULT,
            {
                "tool_name": name,
                "result": execution.result,
                "success": execution.success,
                "call_id": call_id,
                "formatted": execution.formatted,
            },
            duration_ms=duration_ms,
        )
        await self._emit(tool_result_event(name, execution.result, execution.formatted, execution.success))
        if status is not None:
            if execution.success:
                await self._emit(status_event(name, status.done, "done"))
            else:
                await self._emit(status_event(name, "Something went wrong", "error"))
        self.actions.append({"tool": name, "args": arguments, "result": execution.result})

    async def _client_response(self) -> dict[str, Any]:
        """Seed 002 §10.2 ClientResponse: messages, exercises (the current workout if this turn
        touched it), the pending question."""
        messages: list[str] = []
        question: dict[str, Any] | None = None
        touched_workout = False
        for action in self.actions:
            result = action["result"]
            if not result.get("success"):
                continue
            if action["tool"] == "message_notify_user":
                messages.append(str(result.get("message", "")))
            elif action["tool"] == "message_ask_user":
                question = {"text": result.get("question", ""), "options": list(result.get("options") or [])}
            elif action["tool"] in WORKOUT_TOOLS:
                touched_workout = True
        exercises = None
        if touched_workout:
            current = await asyncio.to_thread(self.store.get_state, self.session.id, CURRENT_WORKOUT_KEY)
            exercises = list((current or {}).get("exercises") or []) or None
        return {"messages": messages, "exercises": exercises, "question": question}

    async def _log_error(self, exc: BaseException | str, context: str) -> None:
        event = await log_error(self.store, self.session.id, exc, context)
        if event is not None:
            self._remember(event)

    async def fail(self, exc: BaseException, context: str = "llm") -> None:
        logger.error("turn failed in session %s: %s", self.session.id, exc)
        await self._log_error(exc, context)
        await self._finish("error")
        await self._emit(error_event(_user_message_for(exc)))

    async def _finish(self, status: Literal["completed", "error"]) -> None:
        metadata = {
            **self.session.metadata,
            ESTIMATE_KEY: self.context_estimate,
            ESTIMATE_START_KEY: self.session.context_start_sequence,
        }
        try:
            self.session = await asyncio.to_thread(
                self.store.update_session, self.session.id, status=status, metadata=metadata
            )
        except Exception:
            logger.exception("could not set session %s to %s", self.session.id, status)
        await self._publish(status)

    async def _publish(self, status: Literal["completed", "error"]) -> None:
        publisher = self.loop.publisher
        if publisher is None:
            return
        detail = {
            "turn_id": self.holder,
            "session_id": self.session.id,
            "user_id": self.session.user_id,
            "first_seq": self.first_seq or self.last_seq,
            "last_seq": self.last_seq,
            "context_tokens_estimate": self.context_estimate,
            "model": self.model_id,
            "status": status,
            "usage": dict(self.usage),
            "cost_cents": round(self.cost_cents, 6),
        }
        try:
            await publisher.publish("TurnCompleted", detail)
        except Exception:
            logger.exception("could not publish TurnCompleted for session %s", self.session.id)


def _user_message_for(exc: BaseException) -> str:
    if isinstance(exc, ModelError):
        return "The trainer is unavailable right now. Please try again in a moment."
    return "Something went wrong while preparing a reply. Please try again."
