"""One chat turn: the chat agent's definition (trainer.chat.agent.CHAT) run on the step engine
(trainer.agents.steps) with an event-backed conversation.

get/create session -> lease -> (synchronous checkpoint if over the hard limit) -> user message ->
client workout as knowledge -> { initializer | read events ONCE | user data | the agent's prompt } ->
steps { build context from the events, call the model (one tool per step), execute the tool through
the one executor, append tool_call + tool_result, stream frames, take the explicit next step } ->
completed -> TurnCompleted -> done.

`ChatRunner` takes the lease and handles what breaks a turn; `_Turn` is the conversation the step engine
runs (it decides: the context, the model calls, the replies); its `TurnRecorder`
(trainer.chat.turn_recorder) records what happened: the events, the frames, the usage totals and the
end of the turn. Events of the turn are kept in memory. Writes go through the turn's `TurnStore`:
committed in one atomic batch per step (the user message; the knowledge; each iteration; the end,
which releases the lease), each commit extending the lease, and overlapped with the work that follows
where nothing waits for them.
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
from typing import TYPE_CHECKING, Any

from trainer.agents.closing import ClosingReplies, FinishedCall
from trainer.agents.definitions import AgentDefinition
from trainer.agents.prompts import PromptStore
from trainer.agents.steps import EndTurn, FinalOutput, ModelTurn, run_steps
from trainer.agents.tools import ToolOutcome
from trainer.chat import checkpoint as checkpoints
from trainer.chat import session_state
from trainer.chat.budget import BudgetExceeded, Reservation, UsageLimits
from trainer.chat.context import ContextBuilder
from trainer.chat.errors import log_error
from trainer.chat.hooks import TurnHooks
from trainer.chat.initializer import CURRENT_WORKOUT_SOURCE, format_current_workout, initialize_context
from trainer.chat.lease import LeaseKeeper
from trainer.chat.ports import EventPublisher, ModelProvider, SourceFetcher, UserDataLoader
from trainer.chat.results import (
    DEGRADED_NOTICE,
    MAX_TOKENS_CODE,
    MODEL_REFUSED,
    TURN_BROKE,
    ClientResponse,
    StopReason,
    TurnFailed,
    TurnResult,
    error_code_for,
    user_message_for,
)
from trainer.chat.turn_recorder import ESTIMATE_KEY, ESTIMATE_START_KEY, TurnRecorder
from trainer.chat.turn_store import LeaseLost, TurnStore
from trainer.frames import (
    FrameSink,
    error_frame,
    message_delta_frame,
    session_frame,
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

READ_PAGE_SIZE = 500
MAX_TOKENS_GROWTH = 2
"""A model call stopped by max_tokens is made once more with this many times the room."""
TURN_HOLDER_PREFIX = "turn-"
USER_DATA_FALLBACK = "<user_data>\n(unavailable)\n</user_data>"
DEGRADING_CODES = frozenset({"model_unavailable", "model_timeout"})


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
    fallback: AgentModel | None = None
    """The model a turn falls back to when its own is unavailable (degraded mode: the offline coach,
    for what it does well); None: such a turn fails."""
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
        holder = f"{TURN_HOLDER_PREFIX}{uuid.uuid4().hex}"
        named = None
        if session_id is not None:
            # The named session is only read, so its read waits alongside the budget's reservation
            # (one round trip before the first frame instead of two); a turn without a session id may
            # create one, which only a reserved turn may do.
            reserving = self._reserve_or_degrade(user_id)
            reserved, found = await asyncio.gather(
                reserving, deps.store.get_session(user_id, session_id), return_exceptions=True
            )
            if isinstance(reserved, BaseException):
                raise reserved
            reservation, over_budget = reserved
            if isinstance(found, BaseException):
                await self._release(reservation)
                raise found
            named = found
        else:
            reservation, over_budget = await self._reserve_or_degrade(user_id)
        try:
            session, interrupted = await self._lease_session(user_id, session_id, holder, named)
        except BaseException:
            await self._release(reservation)
            raise
        deadline = current_deadline() or time.monotonic() + deps.settings.function_timeout_seconds
        keeper = LeaseKeeper(
            TurnStore(deps.store, session, holder, lambda: keeper.ttl_now()),
            deps.settings.turn_lease_seconds,
            deadline,
        )
        store = keeper.store
        recorder = TurnRecorder(
            store,
            model_id=model or deps.settings.model,
            sink=emit,
            counts=counts,
            hooks=deps.hooks,
            publisher=deps.publisher,
            cost=deps.cost,
            status_for=deps.agent.toolset.status_for,
        )
        keeper.start()
        await recorder.emit(session_frame(session.id))
        try:
            await recorder.hook("on_turn_start", session, message)
            if interrupted is not None and interrupted.startswith(TURN_HOLDER_PREFIX):
                await recorder.mark_interrupted(interrupted)
            await checkpoint_if_over_hard_limit(deps, recorder)
            return await _Turn(self, recorder).run(message, current_workout, over_budget=over_budget)
        except TurnFailed:
            raise
        except LeaseLost as exc:
            logger.error("turn in session %s stopped: %s", session.id, exc)
            if isinstance(exc.__cause__, StoreUnavailable):
                # the lease ran out because the session store stopped answering: the store's outage
                await recorder.fail(exc.__cause__, "agent_loop")
                raise exc.__cause__ from exc
            await recorder.emit(error_frame(TURN_BROKE, error_code_for(exc)))
            raise TurnFailed(TURN_BROKE, session_id=session.id) from exc
        except (StoreUnavailable, DatabaseUnavailable) as exc:
            logger.exception("a store failed during the turn in session %s", session.id)
            await recorder.fail(exc, "agent_loop")
            raise
        except Exception as exc:
            logger.exception("turn failed in session %s", session.id)
            await recorder.fail(exc, "agent_loop")
            raise TurnFailed(user_message_for(exc), session_id=session.id) from exc
        finally:
            await keeper.stop()
            await asyncio.gather(store.settle(), return_exceptions=True)
            if not store.released and not store.lost:
                try:
                    await store.release_lease(store.session_id, holder)
                except Exception:
                    logger.exception("could not release the lease of session %s", store.session_id)

    async def _reserve(self, user_id: str) -> Reservation | None:
        budget = self.deps.budget
        return await budget.reserve(user_id, "turns") if budget is not None else None

    async def _reserve_or_degrade(self, user_id: str) -> tuple[Reservation | None, bool]:
        """The turn's reservation; with the user's model budget used up and a fallback model, no
        reservation and True: the turn runs on the fallback (degraded mode), which costs no model
        tokens. Without a fallback, BudgetExceeded as before."""
        try:
            return await self._reserve(user_id), False
        except BudgetExceeded:
            if self.deps.fallback is None:
                raise
            logger.info("user %s is over the daily model budget: degraded mode", user_id)
            return None, True

    async def _release(self, reservation: Reservation | None) -> None:
        if self.deps.budget is not None and reservation is not None:
            with contextlib.suppress(Exception):
                await self.deps.budget.release(reservation)

    async def _lease_session(
        self, user_id: str, session_id: str | None, holder: str, named: Session | None = None
    ) -> tuple[Session, str | None]:
        """The session with this turn's lease, and the holder of a dead turn it took over (if any).
        Without a session id the most recent active session is used unless another turn is running
        in it: then the turn starts a new session rather than wait for one the user did not name.
        `named`: the session `session_id` names, already read."""
        store, ttl = self.deps.store, self.deps.settings.turn_lease_seconds
        session = named or await store.get_or_create_session(user_id, session_id)
        try:
            return session, await store.acquire_lease(session.id, holder, ttl)
        except LeaseHeld:
            if session_id is not None:
                raise
        session = await store.create_session(user_id)
        return session, await store.acquire_lease(session.id, holder, ttl)


class _Turn:
    """One turn's conversation with the model, as the step engine runs it
    (trainer.agents.steps.Conversation): the context built from the session's events, one model call
    per step, a text answer or a call marked final turned into the reply tool's call. What it does is
    recorded (events, frames, totals, the end of the turn) by its `TurnRecorder`."""

    def __init__(self, runner: ChatRunner, recorder: TurnRecorder) -> None:
        self.runner = runner
        self.deps = runner.deps
        self.agent = runner.deps.agent
        self.recorder = recorder
        self.store = recorder.store
        self.message = ""
        self.user_data_xml = USER_DATA_FALLBACK
        self.system_prompt = ""
        self.today: date | None = None
        self.model: AgentModel | None = None
        self.max_tokens = self.agent.max_tokens

    @property
    def session(self) -> Session:
        return self.store.session

    async def run(
        self, message: str, current_workout: dict[str, Any] | None, *, over_budget: bool = False
    ) -> TurnResult:
        deps, recorder = self.deps, self.recorder
        self.message = message
        await recorder.append(EventType.USER_MESSAGE, {"message": message})
        if current_workout:
            await recorder.append(
                EventType.KNOWLEDGE,
                {
                    "source": CURRENT_WORKOUT_SOURCE,
                    "params": {},
                    "data": format_current_workout(current_workout),
                },
            )
            await self.store.add_knowledge(self.session.id, [KnowledgeRef(source=CURRENT_WORKOUT_SOURCE)])
        self.store.flush_soon()
        history = await self._prepare(message)
        recorder.events = [*history, *recorder.events]
        self.store.flush_soon()
        self.today = deps.clock().date()
        self.model = deps.models.model_for(recorder.model_id)
        if over_budget and deps.fallback is not None:
            await recorder.degraded_to(deps.fallback.provider, "the user's daily model budget is used up")
            self.model = deps.fallback

        result = await run_steps(self, self.agent.toolset, max_steps=self.agent.max_steps, hooks=recorder)
        stop: StopReason
        match result.next_step:
            case EndTurn(reason=reason):
                stop = reason
            case _:
                stop = "max_iterations"
                await recorder.log_error(f"max iterations reached ({self.agent.max_steps})", "agent_loop")
        return await recorder.completed(result.steps, await self._client_response(), stop)

    # --- the conversation the step engine runs (trainer.agents.steps.Conversation) ---

    async def ask(self, step: int) -> ModelTurn[ModelResponse]:
        self.store.raise_if_failed()
        response = await self._complete(step)
        if response.stop_reason == "max_tokens" and self.max_tokens == self.agent.max_tokens:
            logger.warning("model answer cut at %d tokens; asking again with more room", self.max_tokens)
            self.max_tokens = more_room(self.recorder.model_id, self.agent.max_tokens)
            await self.recorder.discard_preview()
            response = await self._complete(step)
        if response.stop_reason in ("max_tokens", "refusal"):
            return ModelTurn(response)
        self.recorder.preamble = response.preamble
        return ModelTurn(response, (response.tool_call,) if response.tool_call is not None else ())

    async def answered(self, turn: ModelTurn[ModelResponse]) -> EndTurn | FinalOutput[Any]:
        """No tool call: a refusal is answered with a message saying the trainer can't help (the turn
        ends `refused`); an answer cut off twice by max_tokens ends the turn (logged); a text answer
        is the reply to the user, recorded and run as the reply tool's call; nothing at all is an
        error."""
        response = turn.reply
        if response.stop_reason == "refusal":
            await self.recorder.refused(response)
            reply = self.agent.toolset.text_reply(MODEL_REFUSED)
            if reply is not None:
                await self.recorder.emit(message_delta_frame(reply[0], MODEL_REFUSED))
                await self._reply_with_text(*reply)
            return EndTurn("refused")
        if response.stop_reason == "max_tokens":
            message = f"the model's answer was cut off at {self.max_tokens} tokens twice"
            await self.recorder.log_error(message, "agent_loop", code=MAX_TOKENS_CODE)
            return EndTurn("max_tokens")
        reply = self.agent.toolset.text_reply(response.text.strip()) if response.text.strip() else None
        if reply is not None:
            await self._reply_with_text(*reply)
            return EndTurn("done")
        await self.recorder.log_error("No tool call in response", "agent_loop")
        return EndTurn("no_tool_call")

    def tool_context(self) -> ToolContext:
        deps = self.deps
        return ToolContext(
            user_id=self.session.user_id,
            session_id=self.session.id,
            store=self.store,
            db=deps.db,
            emit=self.recorder.emit,
            now=deps.clock,
            user_message=self.message,
            coach=deps.coach,
            programs=deps.programs,
        )

    async def tools_ran(
        self, turn: ModelTurn[ModelResponse], results: Sequence[tuple[ToolCall, ToolOutcome]]
    ) -> None:
        """Each call was recorded as it ran (the recorder's on_tool_end); a call marked final that
        succeeded closes the turn (its outcome ends it) with a reply written from the turn's results."""
        finishing = next((outcome for _, outcome in results if outcome.finishes), None)
        if finishing is not None:
            await self._close_with_reply(finishing.note)

    # ---

    async def _close_with_reply(self, note: str | None) -> None:
        """The reply the code writes from the turn's successful calls of tools that can finish, with
        the model's note after it, sent as the reply tool's call (marked final, delivering the artifact
        they made): recorded and streamed as if the model made it, one model call fewer than a
        model-written reply."""
        toolset = self.agent.toolset
        finished = [
            FinishedCall(action.tool, action.args, action.outcome.result)
            for action in self.recorder.actions
            if isinstance(action.outcome.result, ToolResult)
            and (tool := toolset.get(action.tool)) is not None
            and tool.can_finish
        ]
        closing = await self.deps.closing_replies.write(self.session.user_id, self.message, finished, note)
        reply = toolset.text_reply(closing.message, artifact_id=closing.artifact_id, final=True)
        if reply is None:
            return
        await self.recorder.emit(message_delta_frame(reply[0], closing.message))
        await self._reply_with_text(*reply)

    async def _reply_with_text(self, tool: str, arguments: dict[str, Any]) -> None:
        """A reply as the reply tool's call, recorded and streamed as if the model made it (its
        message was already streamed as message_delta frames)."""
        self.recorder.preamble = []
        call = ToolCall(id=f"toolu_reply_{uuid.uuid4().hex[:20]}", name=tool, arguments=arguments)
        ctx = self.tool_context()
        await self.recorder.on_tool_start(ctx, call)
        outcome = await self.agent.toolset.execute(call.name, call.arguments, ctx)
        await self.recorder.on_tool_end(ctx, call, outcome)

    async def _prepare(self, message: str) -> list[Event]:
        """The initializer, the history read, the user data and the agent's prompt at once (none needs
        another): the context events before this turn."""
        deps, recorder = self.deps, self.recorder
        async with asyncio.TaskGroup() as group:
            history = group.create_task(read_history(self.store, self.session.last_seq))
            user_data = group.create_task(_user_data(deps, recorder))
            prompt = group.create_task(deps.prompts.get(self.agent.prompt_id))
            group.create_task(_initialize(deps, recorder, message))
        self.user_data_xml = user_data.result()
        self.system_prompt = prompt.result().body
        return history.result()

    async def _complete(self, iteration: int) -> ModelResponse:
        model, recorder = self.model, self.recorder
        assert model is not None, "run() picks the model before the first step"
        request, recorder.context_estimate = self.runner.context_builder.build_with_estimate(
            self.session,
            recorder.events,
            self.user_data_xml,
            recorder.model_id,
            system_prompt=self.system_prompt,
            max_tokens=self.max_tokens,
            today=self.today,
        )
        settings = self.deps.settings
        request.effort = settings.main_effort if self.agent.model_role == "main" else settings.light_effort
        await recorder.model_called(request, iteration)

        async def on_delta(tool: str, text: str) -> None:
            await recorder.emit(message_delta_frame(tool, text))

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
                    recorder.model_errors += 1
                    logger.warning("model stream broke off, retrying: %s", exc)
                    # the cut answer is thrown away: the client drops what it previewed of it
                    await recorder.discard_preview()
        except Exception as exc:
            recorder.model_errors += 1
            fallback = self.deps.fallback
            if fallback is None or not degrades(exc) or fallback is model:
                await recorder.fail(exc)
                raise TurnFailed(user_message_for(exc), session_id=self.session.id) from exc
            await recorder.degraded_to(fallback.provider, exc)
            self.model = model = fallback
            started = time.perf_counter()
            response = await model.complete(request, on_delta)
        await recorder.model_answered(response, model.provider, int((time.perf_counter() - started) * 1000))
        return response

    async def _client_response(self) -> ClientResponse:
        """What the user sees of the turn: what the successful results put in the reply, with the
        current workout's exercises when a result changed it and the timers built or delivered."""
        reply = Reply()
        for action in self.recorder.actions:
            if isinstance(action.outcome.result, ToolResult):
                action.outcome.result.add_to_reply(reply)
        exercises = None
        if reply.workout_changed:
            current = await self.store.get_state(self.session.id, CURRENT_WORKOUT_KEY)
            exercises = list((current or {}).get("exercises") or []) or None
        question = reply.question.model_dump(mode="json") if reply.question else None
        messages = [DEGRADED_NOTICE, *reply.messages] if self.recorder.degraded else reply.messages
        return ClientResponse(
            messages=messages, exercises=exercises, question=question, timers=reply.timers or None
        )


async def checkpoint_if_over_hard_limit(deps: ChatDeps, recorder: TurnRecorder) -> None:
    """If the last turn left the context over the hard limit and no checkpoint has landed since,
    checkpoint synchronously (under this turn's lease) before the turn starts (see
    trainer.chat.checkpoint for the limits)."""
    store, session = recorder.store, recorder.session
    meta = session.metadata
    estimate = int(meta.get(ESTIMATE_KEY) or 0)
    if meta.get(ESTIMATE_START_KEY) != session.context_start_sequence or not estimate:
        return
    if not checkpoints.needs_checkpoint(estimate, deps.settings, hard=True):
        return
    try:
        provider = session_state.from_database(deps.db) if deps.db is not None else None
        await checkpoints.create_checkpoint(store, session, state_provider=provider)
    except Exception as exc:
        logger.exception("synchronous checkpoint failed")
        await log_error(store, session.id, exc, "checkpoint")
    await store.load_session(session.id)
    recorder.last_seq = recorder.session.last_seq


def degrades(exc: BaseException) -> bool:
    """A model failure the turn survives on the fallback model: the model unavailable (5xx, 529, a
    connection that failed after the SDK's retries) or not answering before the deadline. A broken or
    cut answer is retried instead, and a refusal is the model's answer."""
    return isinstance(exc, ModelError) and exc.code in DEGRADING_CODES


def more_room(model_id: str, max_tokens: int) -> int:
    """The room for a model call asked again after an answer cut off at `max_tokens`: MAX_TOKENS_GROWTH
    times as much, within what the model can write."""
    from trainer.providers.models import MODELS

    model = MODELS.get(model_id)
    limit = model.max_output_tokens if model is not None else max_tokens * MAX_TOKENS_GROWTH
    return min(max_tokens * MAX_TOKENS_GROWTH, limit)


async def read_history(store: TurnStore, through: int) -> list[Event]:
    """The one read of the turn: the context events from context_start_sequence through the turn's
    start (the turn's own events are in memory; it may not have committed them yet)."""
    session = store.session
    collected: list[Event] = []
    after = max(session.context_start_sequence - 1, 0)
    while after < through:
        page = await store.inner.read_events(session.id, after, READ_PAGE_SIZE, CONTEXT_EVENT_TYPES)
        collected.extend(e for e in page.events if e.sequence_number <= through)
        if page.next_after is None or not page.events:
            break
        after = page.next_after
    return collected


async def _user_data(deps: ChatDeps, recorder: TurnRecorder) -> str:
    try:
        return await deps.user_data(recorder.session.user_id)
    except Exception as exc:
        logger.exception("user data unavailable")
        await recorder.log_error(exc, "user_data")
        return USER_DATA_FALLBACK


async def _initialize(deps: ChatDeps, recorder: TurnRecorder, message: str) -> None:
    """The initializer's pick of data sources for this message, appended as knowledge."""
    session = recorder.session
    try:
        fetch = deps.sources(session.user_id)
        outcome = await initialize_context(
            recorder.store, session, message, deps.selector, fetch, recorder.emit
        )
    except Exception as exc:
        logger.exception("context initialisation failed")
        await recorder.log_error(exc, "context_init")
        return
    recorder.model_ms += outcome.select_ms
    for event in outcome.events:
        recorder.remember(event)
