"""One chat turn (seed 002 §3, ARCHITECTURE §1, §5, §6): the chat agent's definition
(trainer.chat.agent.CHAT) run on the step engine (trainer.agents.steps) with an event-backed
conversation.

get/create session -> lease -> (synchronous checkpoint if over the hard limit) -> user message ->
client workout as knowledge -> { initializer | read events ONCE | user data | the agent's prompt } ->
steps { build context from the events, call the model (one tool per step), execute the tool through
the one executor, append tool_call + tool_result, stream frames, take the explicit next step } ->
completed -> TurnCompleted -> done.

Events of the turn are kept in memory. Writes go through the turn's `TurnStore`: committed in one
atomic batch per step (the user message; the knowledge; each iteration; the end, which releases the
lease), each commit extending the lease, and overlapped with the work that follows where nothing
waits for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Literal

from trainer.agents.closing import ClosingReplies, FinishedCall
from trainer.agents.definitions import AgentDefinition
from trainer.agents.prompts import PromptStore
from trainer.agents.steps import EndTurn, FinalOutput, ModelTurn, run_steps
from trainer.agents.tools import ToolOutcome
from trainer.chat import checkpoint as checkpoints
from trainer.chat import session_state
from trainer.chat.budget import UsageLimits
from trainer.chat.context import ContextBuilder
from trainer.chat.errors import log_error
from trainer.chat.hooks import TurnHooks
from trainer.chat.initializer import CURRENT_WORKOUT_SOURCE, format_current_workout, initialize_context
from trainer.chat.lease import LeaseKeeper
from trainer.chat.ports import EventPublisher, ModelProvider, SourceFetcher, UserDataLoader
from trainer.chat.results import (
    MAX_TOKENS_CODE,
    MODEL_REFUSED,
    MODEL_REFUSED_CODE,
    STOP_OUTCOMES,
    TURN_BROKE,
    Action,
    ClientResponse,
    StopReason,
    TurnFailed,
    TurnResult,
    error_code_for,
    request_summary,
    token_usage,
    tool_result_frame,
    trim_raw,
    user_message_for,
)
from trainer.chat.turn_completed import TurnCompleted, TurnUsage
from trainer.chat.turn_store import LeaseLost, TurnStore
from trainer.frames import (
    Frame,
    FrameSink,
    TurnOutcome,
    done_frame,
    error_frame,
    message_delta_frame,
    session_frame,
    status_frame,
    tool_start_frame,
    turn_end_frame,
)
from trainer.providers.deadline import current_deadline, deadline_in
from trainer.providers.ports import (
    AgentModel,
    KnowledgeSelector,
    ModelError,
    ModelResponse,
    ToolCall,
    Usage,
)
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
from trainer.store.ports import DatabaseUnavailable, LeaseHeld, SessionStore, StoreUnavailable
from trainer.store.request_counts import RequestCounts, counting
from trainer.tools.base import Reply, ToolContext, ToolResult, WorkoutCoach

if TYPE_CHECKING:
    from trainer.programs.pipeline import ProgramDeps

logger = logging.getLogger(__name__)

__all__ = ["ChatDeps", "ChatRunner", "StopReason", "TurnFailed", "TurnResult"]

ESTIMATE_KEY = "context_tokens_estimate"
ESTIMATE_START_KEY = "context_estimate_start"
READ_PAGE_SIZE = 500
MAX_TOKENS_GROWTH = 2
"""A model call stopped by max_tokens is made once more with this many times the room."""
TURN_HOLDER_PREFIX = "turn-"
USER_DATA_FALLBACK = "<user_data>\n(unavailable)\n</user_data>"


def _utcnow() -> datetime:
    return datetime.now(UTC)


def model_cost_cents(model_id: str, usage: Usage) -> float:
    """The catalogue's price for a call; 0 for a model without a price (logged)."""
    from trainer.providers.models import cost_cents

    try:
        return float(cost_cents(model_id, usage))
    except (LookupError, ValueError):
        logger.debug("no price for model %s", model_id)
        return 0.0


@dataclass
class ChatDeps:
    """Everything a turn works with, built once by the container (trainer.container)."""

    agent: AgentDefinition
    """The chat agent: prompt, tools, model role, iteration cap, retry policy (trainer.chat.agent.CHAT)."""
    prompts: PromptStore
    store: SessionStore
    models: ModelProvider
    selector: KnowledgeSelector
    user_data: UserDataLoader
    sources: Callable[[str], SourceFetcher]
    """The source fetcher for a user id."""
    settings: Settings
    closing_replies: ClosingReplies
    """Writes the reply of a turn whose last call was marked final (`Tool.can_finish`)."""
    context_builder: ContextBuilder | None = None
    publisher: EventPublisher | None = None
    budget: UsageLimits | None = None
    db: Database | None = None
    coach: WorkoutCoach | None = None
    programs: ProgramDeps | None = None
    hooks: TurnHooks = field(default_factory=TurnHooks)
    clock: Callable[[], datetime] = _utcnow
    cost: Callable[[str, Usage], float] = model_cost_cents


class ChatRunner:
    """Runs chat turns; what the HTTP layer calls (trainer.container.TurnRunner)."""

    def __init__(self, deps: ChatDeps) -> None:
        self.deps = deps
        self.context_builder = deps.context_builder or ContextBuilder(deps.agent.toolset)

    async def run_turn(
        self,
        user_id: str,
        message: str,
        *,
        session_id: str | None = None,
        current_workout: dict[str, Any] | None = None,
        model: str | None = None,
        emit: FrameSink | None = None,
    ) -> TurnResult:
        with counting() as counts, deadline_in(self.deps.settings.function_timeout_seconds):
            return await self._run_turn(user_id, message, session_id, current_workout, model, emit, counts)

    async def _run_turn(
        self,
        user_id: str,
        message: str,
        session_id: str | None,
        current_workout: dict[str, Any] | None,
        model: str | None,
        emit: FrameSink | None,
        counts: RequestCounts,
    ) -> TurnResult:
        deps = self.deps
        reservation = await deps.budget.reserve(user_id, "turns") if deps.budget is not None else None
        holder = f"{TURN_HOLDER_PREFIX}{uuid.uuid4().hex}"
        try:
            session, interrupted = await self._lease_session(user_id, session_id, holder)
        except BaseException:
            if deps.budget is not None and reservation is not None:
                with contextlib.suppress(Exception):
                    await deps.budget.release(reservation)
            raise
        deadline = current_deadline() or time.monotonic() + deps.settings.function_timeout_seconds
        keeper = LeaseKeeper(
            TurnStore(deps.store, session, holder, lambda: keeper.ttl_now()),
            deps.settings.turn_lease_seconds,
            deadline,
        )
        store = keeper.store
        turn = _Turn(self, store, model or deps.settings.model, emit, counts)
        keeper.start()
        await turn.emit(session_frame(session.id))
        try:
            await turn.hook("on_turn_start", session, message)
            if interrupted is not None and interrupted.startswith(TURN_HOLDER_PREFIX):
                await turn.mark_interrupted(interrupted)
            await turn.checkpoint_if_over_hard_limit()
            return await turn.run(message, current_workout)
        except TurnFailed:
            raise
        except LeaseLost as exc:
            logger.error("turn in session %s stopped: %s", session.id, exc)
            await turn.emit(error_frame(TURN_BROKE, error_code_for(exc)))
            raise TurnFailed(TURN_BROKE, session_id=session.id) from exc
        except (StoreUnavailable, DatabaseUnavailable) as exc:
            logger.exception("a store failed during the turn in session %s", session.id)
            await turn.fail(exc, "agent_loop")
            raise
        except Exception as exc:
            logger.exception("turn failed in session %s", session.id)
            await turn.fail(exc, "agent_loop")
            raise TurnFailed(user_message_for(exc), session_id=session.id) from exc
        finally:
            await keeper.stop()
            await asyncio.gather(store.settle(), return_exceptions=True)
            if not store.released and not store.lost:
                try:
                    await store.release_lease(store.session_id, holder)
                except Exception:
                    logger.exception("could not release the lease of session %s", store.session_id)

    async def _lease_session(
        self, user_id: str, session_id: str | None, holder: str
    ) -> tuple[Session, str | None]:
        """The session with this turn's lease, and the holder of a dead turn it took over (if any).
        Without a session id the most recent active session is used unless another turn is running
        in it: then the turn starts a new session rather than wait for one the user did not name."""
        store, ttl = self.deps.store, self.deps.settings.turn_lease_seconds
        session = await store.get_or_create_session(user_id, session_id)
        try:
            return session, await store.acquire_lease(session.id, holder, ttl)
        except LeaseHeld:
            if session_id is not None:
                raise
        session = await store.create_session(user_id)
        return session, await store.acquire_lease(session.id, holder, ttl)


class _Turn:
    """One turn: the chat agent's event-backed conversation for the step engine (context from the
    session's events, every step recorded as events and streamed as frames) and its hooks around each
    tool call. Keeps the in-memory event list, usage totals and the actions taken."""

    def __init__(
        self,
        runner: ChatRunner,
        store: TurnStore,
        model_id: str,
        sink: FrameSink | None,
        counts: RequestCounts,
    ) -> None:
        self.runner = runner
        self.counts = counts
        self.model_ms = 0
        self.deps = runner.deps
        self.agent = runner.deps.agent
        self.store = store
        self.model_id = model_id
        self.sink = sink
        self.holder = store.holder
        self.started = time.perf_counter()
        self.events: list[Event] = []
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
        self.message = ""
        self.user_data_xml = USER_DATA_FALLBACK
        self.system_prompt = ""
        self.today: date | None = None
        self.model: AgentModel | None = None
        self.max_tokens = self.agent.max_tokens
        self.preamble: list[dict[str, Any]] = []
        """The blocks before the tool call being recorded (its thinking blocks)."""

    @property
    def session(self) -> Session:
        return self.store.session

    async def hook(self, name: str, *args: Any) -> None:
        try:
            await getattr(self.deps.hooks, name)(*args)
        except Exception:
            logger.exception("turn hook %s failed", name)

    async def _append(
        self, event_type: EventType, data: dict[str, Any], duration_ms: int | None = None
    ) -> Event:
        event = await self.store.append_event(self.session.id, event_type, data, duration_ms)
        self._remember(event)
        return event

    def _remember(self, event: Event) -> None:
        if self.first_seq is None:
            self.first_seq = event.sequence_number
        self.last_seq = max(self.last_seq, event.sequence_number)
        if event.event_type in CONTEXT_EVENT_TYPES:
            self.events.append(event)

    async def emit(self, frame: Frame) -> None:
        """Sends a frame to the client, if one listens; a dead client never breaks the turn."""
        if self.sink is None:
            return
        try:
            await self.sink(frame, self.store.durable_seq)
        except Exception:
            logger.debug("SSE frame not delivered", exc_info=True)

    async def mark_interrupted(self, previous_holder: str) -> None:
        """The turn this one took over died mid-way (timeout, crash, deploy): say so in the timeline,
        so it reads as interrupted rather than as a turn that never ended."""
        logger.warning(
            "session %s: taking over from %s, which never finished", self.session.id, previous_holder
        )
        await self._log_error(
            "The previous turn was interrupted before it finished.", "lease", code="turn_interrupted"
        )

    async def checkpoint_if_over_hard_limit(self) -> None:
        """ARCHITECTURE §6: if the last turn left the context over the hard limit and no
        checkpoint has landed since, checkpoint synchronously (under this turn's lease) first."""
        meta = self.session.metadata
        estimate = int(meta.get(ESTIMATE_KEY) or 0)
        if meta.get(ESTIMATE_START_KEY) != self.session.context_start_sequence or not estimate:
            return
        if not checkpoints.needs_checkpoint(estimate, self.deps.settings, hard=True):
            return
        try:
            provider = session_state.from_database(self.deps.db) if self.deps.db is not None else None
            await checkpoints.create_checkpoint(self.store, self.session, state_provider=provider)
        except Exception as exc:
            logger.exception("synchronous checkpoint failed")
            await log_error(self.store, self.session.id, exc, "checkpoint")
        await self.store.load_session(self.session.id)
        self.last_seq = self.session.last_seq

    async def run(self, message: str, current_workout: dict[str, Any] | None) -> TurnResult:
        deps = self.deps
        self.message = message
        await self._append(EventType.USER_MESSAGE, {"message": message})
        if current_workout:
            await self._inject_current_workout(current_workout)
        self.store.flush_soon()
        history = await self._prepare(message)
        self.events = [*history, *self.events]
        self.store.flush_soon()
        self.today = deps.clock().date()
        self.model = deps.models.model_for(self.model_id)

        result = await run_steps(self, self.agent.toolset, max_steps=self.agent.max_steps, hooks=self)
        stop: StopReason
        match result.next_step:
            case EndTurn(reason=reason):
                stop = reason
            case _:
                stop = "max_iterations"
                await self._log_error(f"max iterations reached ({self.agent.max_steps})", "agent_loop")

        response_body = await self._client_response()
        await self._end_turn(STOP_OUTCOMES.get(stop, "failed"))
        await self.store.settle()
        await self._finish("completed")
        await self.emit(done_frame(self.session.id))
        outcome = self._result("completed", result.steps, response_body, stop)
        await self.hook("on_turn_end", self.session, outcome)
        return outcome

    # --- the conversation the step engine runs (trainer.agents.steps.Conversation) ---

    async def ask(self, step: int) -> ModelTurn[ModelResponse]:
        self.store.raise_if_failed()
        response = await self._complete(step)
        if response.stop_reason == "max_tokens" and self.max_tokens == self.agent.max_tokens:
            logger.warning("model answer cut at %d tokens; asking again with more room", self.max_tokens)
            self.max_tokens = self._more_room()
            response = await self._complete(step)
        if response.stop_reason == "refusal":
            await self._refused(response)
        if response.stop_reason == "max_tokens":
            return ModelTurn(response)
        self.preamble = response.preamble
        return ModelTurn(response, (response.tool_call,) if response.tool_call is not None else ())

    async def answered(self, turn: ModelTurn[ModelResponse]) -> EndTurn | FinalOutput[Any]:
        """No tool call: an answer cut off twice by max_tokens ends the turn (logged); a text answer
        is the reply to the user, recorded and run as the reply tool's call; nothing at all is an
        error."""
        response = turn.reply
        if response.stop_reason == "max_tokens":
            message = f"the model's answer was cut off at {self.max_tokens} tokens twice"
            await self._log_error(message, "agent_loop", code=MAX_TOKENS_CODE)
            return EndTurn("max_tokens")
        reply = self.agent.toolset.text_reply(response.text.strip()) if response.text.strip() else None
        if reply is not None:
            await self._reply_with_text(*reply)
            return EndTurn("done")
        await self._log_error("No tool call in response", "agent_loop")
        return EndTurn("no_tool_call")

    def _more_room(self) -> int:
        from trainer.providers.models import MODELS

        model = MODELS.get(self.model_id)
        limit = model.max_output_tokens if model is not None else self.agent.max_tokens * MAX_TOKENS_GROWTH
        return min(self.agent.max_tokens * MAX_TOKENS_GROWTH, limit)

    async def _reply_with_text(self, tool: str, arguments: dict[str, Any]) -> None:
        """A reply as the reply tool's call, recorded and streamed as if the model made it (its
        message was already streamed as message_delta frames)."""
        self.preamble = []
        call = ToolCall(id=f"toolu_reply_{uuid.uuid4().hex[:20]}", name=tool, arguments=arguments)
        ctx = self.tool_context()
        await self.on_tool_start(ctx, call)
        outcome = await self.agent.toolset.execute(call.name, call.arguments, ctx)
        await self.on_tool_end(ctx, call, outcome)

    async def _refused(self, response: ModelResponse) -> None:
        """stop_reason `refusal` (HTTP 200): any partial output is discarded, the turn ends with an
        `error` frame whose code says so."""
        details = response.raw.get("stop_details") or {}
        category = details.get("category") if isinstance(details, dict) else None
        logger.warning("model refused in session %s (category %s)", self.session.id, category)
        await self._log_error(f"the model refused (category: {category})", "llm", code=MODEL_REFUSED_CODE)
        await self.emit(error_frame(MODEL_REFUSED, code=MODEL_REFUSED_CODE))
        await self._end_turn("refused")
        await self._finish("error")
        failed = self._result("error", len(self.actions), ClientResponse(messages=[]), "error")
        await self.hook("on_turn_end", self.session, failed)
        raise TurnFailed(MODEL_REFUSED, session_id=self.session.id, code=MODEL_REFUSED_CODE)

    def tool_context(self) -> ToolContext:
        deps = self.deps
        return ToolContext(
            user_id=self.session.user_id,
            session_id=self.session.id,
            store=self.store,
            db=deps.db,
            emit=self.emit,
            now=deps.clock,
            user_message=self.message,
            coach=deps.coach,
            programs=deps.programs,
        )

    async def tools_ran(
        self, turn: ModelTurn[ModelResponse], results: Sequence[tuple[ToolCall, ToolOutcome]]
    ) -> None:
        """Each call was recorded as it ran (on_tool_end); a call marked final that succeeded closes
        the turn (its outcome ends it) with a reply written from the turn's results."""
        if any(outcome.finishes for _, outcome in results):
            await self._close_with_reply()

    async def _close_with_reply(self) -> None:
        """The reply the code writes from the turn's successful calls of tools that can finish, sent
        as the reply tool's call (marked final, delivering the artifact they made): recorded and
        streamed as if the model made it, one model call fewer than a model-written reply."""
        toolset = self.agent.toolset
        finished = [
            FinishedCall(action.tool, action.args, action.outcome.result)
            for action in self.actions
            if isinstance(action.outcome.result, ToolResult)
            and (tool := toolset.get(action.tool)) is not None
            and tool.can_finish
        ]
        closing = await self.deps.closing_replies.write(self.session.user_id, self.message, finished)
        reply = toolset.text_reply(closing.message, artifact_id=closing.artifact_id, final=True)
        if reply is None:
            return
        await self.emit(message_delta_frame(reply[0], closing.message))
        await self._reply_with_text(*reply)

    # --- its hooks around each tool call (trainer.agents.steps.StepHooks) ---

    async def on_tool_start(self, ctx: ToolContext, call: ToolCall) -> None:
        data: dict[str, Any] = {"tool_name": call.name, "arguments": call.arguments, "call_id": call.id}
        if self.preamble:
            data["preamble"] = self.preamble
        await self._append(EventType.TOOL_CALL, data)
        await self.hook("on_tool_start", self.session, call.id, call.name, call.arguments)
        status = self.agent.toolset.status_for(call.name)
        if status is not None:
            await self.emit(status_frame(call.name, status.start, "start"))
        await self.emit(tool_start_frame(call.name, call.arguments))

    async def on_tool_end(self, ctx: ToolContext, call: ToolCall, outcome: ToolOutcome) -> None:
        for event in ctx.appended:
            self._remember(event)
        await self._append(
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
        status = self.agent.toolset.status_for(call.name)
        if status is not None:
            if outcome.success:
                await self.emit(status_frame(call.name, status.done, "done"))
            else:
                await self.emit(status_frame(call.name, "Something went wrong", "error"))
        self.actions.append(Action(call.name, call.arguments, outcome))
        await self.hook("on_tool_end", self.session, call.id, outcome)

    # ---

    def _result(
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
            model_ms=self.model_ms,
            dynamodb_requests=self.counts.dynamodb,
            sql_queries=self.counts.sql,
        )

    async def _inject_current_workout(self, workout: dict[str, Any]) -> None:
        await self._append(
            EventType.KNOWLEDGE,
            {"source": CURRENT_WORKOUT_SOURCE, "params": {}, "data": format_current_workout(workout)},
        )
        await self.store.add_knowledge(self.session.id, [KnowledgeRef(source=CURRENT_WORKOUT_SOURCE)])

    async def _initialize(self, message: str) -> None:
        deps = self.deps
        try:
            fetch = deps.sources(self.session.user_id)
            outcome = await initialize_context(
                self.store, self.session, message, deps.selector, fetch, self.emit
            )
        except Exception as exc:
            logger.exception("context initialisation failed")
            await self._log_error(exc, "context_init")
            return
        self.model_ms += outcome.select_ms
        for event in outcome.events:
            self._remember(event)

    async def _prepare(self, message: str) -> list[Event]:
        """The initializer, the history read, the user data and the agent's prompt at once (none needs
        another): the context events before this turn."""
        async with asyncio.TaskGroup() as group:
            history = group.create_task(self._read_history(self.session.last_seq))
            user_data = group.create_task(self._user_data())
            prompt = group.create_task(self.deps.prompts.get(self.agent.prompt_id))
            group.create_task(self._initialize(message))
        self.user_data_xml = user_data.result()
        self.system_prompt = prompt.result().body
        return history.result()

    async def _read_history(self, through: int) -> list[Event]:
        """The one read of the turn: the context events from context_start_sequence through the
        turn's start (the turn's own events are in memory; it may not have committed them yet)."""
        collected: list[Event] = []
        after = max(self.session.context_start_sequence - 1, 0)
        while after < through:
            page = await self.store.inner.read_events(
                self.session.id, after, READ_PAGE_SIZE, CONTEXT_EVENT_TYPES
            )
            collected.extend(e for e in page.events if e.sequence_number <= through)
            if page.next_after is None or not page.events:
                break
            after = page.next_after
        return collected

    async def _user_data(self) -> str:
        try:
            return await self.deps.user_data(self.session.user_id)
        except Exception as exc:
            logger.exception("user data unavailable")
            await self._log_error(exc, "user_data")
            return USER_DATA_FALLBACK

    async def _complete(self, iteration: int) -> ModelResponse:
        model = self.model
        assert model is not None, "run() picks the model before the first step"
        request, self.context_estimate = self.runner.context_builder.build_with_estimate(
            self.session,
            self.events,
            self.user_data_xml,
            self.model_id,
            system_prompt=self.system_prompt,
            max_tokens=self.max_tokens,
            today=self.today,
        )
        settings = self.deps.settings
        request.effort = settings.main_effort if self.agent.model_role == "main" else settings.light_effort
        await self.hook("on_llm_start", self.session, request)
        await self._append(
            EventType.LLM_REQUEST,
            {
                "model": self.model_id,
                "prompt": request_summary(request),
                "estimated_tokens": self.context_estimate,
                "iteration": iteration,
            },
        )

        async def on_delta(tool: str, text: str) -> None:
            await self.emit(message_delta_frame(tool, text))

        retry = self.agent.retry
        started = time.perf_counter()
        try:
            retries = 0
            while True:
                try:
                    response = await model.complete(request, on_delta)
                    break
                except ModelError as exc:
                    retryable = exc.retryable and "model_error" in retry.retry_on
                    if not retryable or retries >= retry.max_retries:
                        raise
                    retries += 1
                    self.model_errors += 1
                    logger.warning("model stream broke off, retrying: %s", exc)
        except Exception as exc:
            self.model_errors += 1
            await self.fail(exc)
            raise TurnFailed(user_message_for(exc), session_id=self.session.id) from exc
        duration_ms = int((time.perf_counter() - started) * 1000)
        self.model_ms += duration_ms

        cost = self.deps.cost(response.model or self.model_id, response.usage)
        self.cost_cents += cost
        for key in self.usage:
            self.usage[key] += int(getattr(response.usage, key))
        if response.usage.prompt_tokens:
            self.context_estimate = response.usage.prompt_tokens + response.usage.output_tokens
        await self._append(
            EventType.LLM_RESPONSE,
            {
                "provider": model.provider,
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
        return response

    async def _client_response(self) -> ClientResponse:
        """Seed 002 §10.2 ClientResponse: what the successful results put in the reply, with the
        current workout's exercises when a result changed it and the timers built or delivered."""
        reply = Reply()
        for action in self.actions:
            if isinstance(action.outcome.result, ToolResult):
                action.outcome.result.add_to_reply(reply)
        exercises = None
        if reply.workout_changed:
            current = await self.store.get_state(self.session.id, CURRENT_WORKOUT_KEY)
            exercises = list((current or {}).get("exercises") or []) or None
        question = reply.question.model_dump(mode="json") if reply.question else None
        return ClientResponse(
            messages=reply.messages, exercises=exercises, question=question, timers=reply.timers or None
        )

    async def _log_error(self, exc: BaseException | str, context: str, *, code: str | None = None) -> None:
        event = await log_error(self.store, self.session.id, exc, context, code=code)
        if event is not None:
            self._remember(event)

    async def fail(self, exc: BaseException, context: str = "llm") -> None:
        logger.error("turn failed in session %s: %s", self.session.id, exc)
        await self._log_error(exc, context)
        await self.emit(error_frame(user_message_for(exc), error_code_for(exc)))
        await self._end_turn("failed")
        await self._finish("error")
        failed = self._result("error", len(self.actions), ClientResponse(messages=[]), "error")
        await self.hook("on_turn_end", self.session, failed)

    async def _end_turn(self, outcome: TurnOutcome) -> None:
        """The `turn_end` event closing the turn's events (a catch-up knows the turn is over), and its
        frame."""
        try:
            await self._append(EventType.TURN_END, {"outcome": outcome})
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
        publisher = self.deps.publisher
        if publisher is None:
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
            await publisher.publish("TurnCompleted", event.model_dump(mode="json"))
        except Exception:
            logger.exception("could not publish TurnCompleted for session %s", self.session.id)
