"""The agent factory: `run_agent(definition, input, deps)` runs an agent.

One run: the latest prompt version, the context blocks, then attempts. An attempt is one model exchange
under the agent's timeout: the step engine (trainer.agents.steps) with an in-memory conversation, its
tool calls executed in priority order by the one executor, until the model answers with its output. The
output is parsed (the schema for json), finalized in code by the definition's `finalize` (whose Rejected
errors, like the validators', go back to the model) and checked by its validators. A rejected output is
retried as pydantic-ai does: the model's own answer goes back as an assistant turn (with the thinking
blocks it came with, unchanged) and the errors as the next user turn, so the model sees the negative
example it wrote. Timeouts and model errors retry from the turns before the attempt, when the retry
policy names them. The validated output then feeds the sub-agents: batches in ascending order, the
sub-agents of a batch concurrently. Callbacks run last, by timing, in definition order. Each
invocation is recorded (sub-agents record their own rows, linked to the parent's).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from trainer.agents.backends import Backends, ModelChoice
from trainer.agents.context import ContextService
from trainer.agents.definitions import AgentDefinition, CallbackEvent, Rejected, RetryReason, SubAgent
from trainer.agents.invocations import InvocationRecord, InvocationRecorder, MemoryInvocations
from trainer.agents.prompts import PromptMissing, PromptStore, PromptVersion
from trainer.agents.steps import Conversation, EndTurn, FinalOutput, ModelTurn, run_steps
from trainer.agents.tools import ToolOutcome
from trainer.agents.wire import canonical, feedback, render_input_parts
from trainer.domain.text import escape_text
from trainer.providers.models import UnknownModelError, cost_cents
from trainer.providers.ports import (
    AgentReply,
    AgentRequest,
    AssistantTurn,
    ModelError,
    RetryTurn,
    ToolCall,
    ToolResultsTurn,
    Turn,
    Usage,
)
from trainer.store.db import Database
from trainer.tools.base import ToolContext

log = logging.getLogger(__name__)

MAX_LISTED_ERRORS = 20


def _utcnow() -> datetime:
    return datetime.now(UTC)


class AgentError(ValueError):
    """A call `run_agent` cannot make (an agent run by its own code, an unknown on-demand name)."""


class AgentFailed(Exception):
    """The agent produced no acceptable output (retries exhausted, or a failure no retry covers)."""

    def __init__(
        self, name: str, errors: list[str], invocation_id: str, kind: str = "validation_error"
    ) -> None:
        super().__init__(f"agent {name} failed ({kind}): {'; '.join(errors)}")
        self.name = name
        self.errors = errors
        self.invocation_id = invocation_id
        self.kind = kind


@dataclass
class AgentRunDeps:
    """What runs need: the backend per model role, prompts, context, the recorder, and the user a run
    is for (`for_user`)."""

    backends: Backends
    prompts: PromptStore
    context: ContextService | None = None
    invocations: InvocationRecorder = field(default_factory=MemoryInvocations)
    user_id: str | None = None
    db: Database | None = None
    cache: dict[str, asyncio.Future[AgentRun]] = field(default_factory=dict)
    """Runs of sub-agents with `cache_output`, by agent and input (shared while in flight too); one
    cache per `for_user` copy."""
    now: Callable[[], datetime] = _utcnow
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def for_user(self, user_id: str | None) -> AgentRunDeps:
        return replace(self, user_id=user_id, cache={})


@dataclass
class AgentRun:
    """`usage` and `cost_cents` include the sub-agents' (cached outputs cost nothing); the invocation's
    row holds its own model calls only."""

    agent: str
    output: Any
    attempts: int
    invocation_id: str
    prompt_version: int
    model: str
    usage: Usage
    cost_cents: float
    duration_ms: int
    sub_outputs: dict[str, Any] = field(default_factory=dict)
    sub_runs: list[AgentRun] = field(default_factory=list)
    cached: bool = False

    def output_as[T](self, cls: type[T]) -> T:
        if not isinstance(self.output, cls):
            raise TypeError(f"{self.agent} returned {type(self.output).__name__}, not {cls.__name__}")
        return self.output


async def run_agent(
    agent: AgentDefinition,
    input: Any,
    deps: AgentRunDeps,
    *,
    on_demand: Collection[str] = (),
    parent_id: str | None = None,
) -> AgentRun:
    """Runs `agent` on `input` (validated against its input schema when it has one). Sub-agents whose
    trigger is `on_demand` run when `on_demand` names them (their agent's name or output key). Raises
    AgentFailed."""
    if not agent.runs_in_factory:
        raise AgentError(f"agent {agent.name!r} runs in its own code, not through run_agent")
    known = {s.agent.name for s in agent.sub_agents} | {s.output_key for s in agent.sub_agents}
    unknown = sorted(set(on_demand) - known)
    if unknown:
        raise AgentError(f"agent {agent.name!r} has no sub-agent {', '.join(unknown)}")
    return await _Run(agent, deps, set(on_demand), parent_id).execute(input)


def add_usage(a: Usage, b: Usage) -> Usage:
    return Usage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cache_creation_input_tokens=a.cache_creation_input_tokens + b.cache_creation_input_tokens,
        cache_read_input_tokens=a.cache_read_input_tokens + b.cache_read_input_tokens,
        cache_creation_1h_input_tokens=a.cache_creation_1h_input_tokens + b.cache_creation_1h_input_tokens,
    )


def price_cents(model_id: str, usage: Usage) -> float:
    try:
        return cost_cents(model_id, usage)
    except UnknownModelError:
        return 0.0


def validation_messages(error: ValidationError) -> list[str]:
    messages: list[str] = []
    for item in error.errors(include_url=False)[:MAX_LISTED_ERRORS]:
        loc = ".".join(str(p) for p in item.get("loc", ()))
        msg = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        messages.append(f"{loc}: {msg}" if loc else msg)
    if error.error_count() > MAX_LISTED_ERRORS:
        messages.append(f"(+{error.error_count() - MAX_LISTED_ERRORS} more)")
    return messages


class _Failure(Exception):
    def __init__(self, kind: str, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.kind = kind
        self.errors = errors


class _Skipped:
    """A sub-agent whose condition was false."""


SKIPPED = _Skipped()


class _Run:
    def __init__(
        self, definition: AgentDefinition, deps: AgentRunDeps, on_demand: set[str], parent_id: str | None
    ) -> None:
        self.d = definition
        self.deps = deps
        self.on_demand = on_demand
        self.parent_id = parent_id
        self.id = str(uuid.uuid4())
        self.choice: ModelChoice = deps.backends.for_role(definition.model_role)
        self.usage = Usage()
        self.attempts = 0
        self.model_calls = 0
        self.tool_calls = 0
        self.errors: list[dict[str, Any]] = []

    async def execute(self, raw_input: Any) -> AgentRun:
        started_at = self.deps.now()
        started = time.monotonic()
        prompt_version = 0
        output: Any = None
        sub_outputs: dict[str, Any] = {}
        sub_runs: list[AgentRun] = []
        failure: _Failure | None = None
        typed_input = raw_input
        try:
            typed_input = self._typed_input(raw_input)
            prompt = await self.deps.prompts.get(self.d.prompt_id)
            prompt_version = prompt.version
            context = await self._context(typed_input)
            output = await self._attempts(prompt, context, typed_input)
            sub_outputs, sub_runs = await self._sub_agents(output, typed_input)
        except _Failure as exc:
            failure = exc
        except PromptMissing as exc:
            failure = _Failure("prompt", [str(exc)])
        except Exception as exc:
            log.exception("agent %s failed unexpectedly", self.d.name)
            failure = _Failure("internal", [f"internal error: {type(exc).__name__}: {exc}"])
        output = await self._callbacks(typed_input, output, failure, sub_outputs)
        duration_ms = int((time.monotonic() - started) * 1000)
        own_cost = price_cents(self.choice.model_id, self.usage)
        await self.deps.invocations.record(
            InvocationRecord(
                id=self.id,
                agent=self.d.name,
                prompt_id=self.d.prompt_id,
                prompt_version=prompt_version,
                provider=self.choice.model.provider,
                model=self.choice.model_id,
                status="failed" if failure else "success",
                attempts=self.attempts,
                model_calls=self.model_calls,
                tool_calls=self.tool_calls,
                usage=self.usage,
                cost_cents=own_cost,
                duration_ms=duration_ms,
                started_at=started_at,
                errors=self.errors,
                error=f"{failure.kind}: {'; '.join(failure.errors)}" if failure else None,
                user_id=self.deps.user_id,
                parent_id=self.parent_id,
            )
        )
        if failure is not None:
            raise AgentFailed(self.d.name, failure.errors, self.id, failure.kind)
        usage, cost = self.usage, own_cost
        for sub in sub_runs:
            if not sub.cached:
                usage, cost = add_usage(usage, sub.usage), cost + sub.cost_cents
        return AgentRun(
            agent=self.d.name,
            output=output,
            attempts=self.attempts,
            invocation_id=self.id,
            prompt_version=prompt_version,
            model=self.choice.model_id,
            usage=usage,
            cost_cents=cost,
            duration_ms=duration_ms,
            sub_outputs=sub_outputs,
            sub_runs=sub_runs,
        )

    def _typed_input(self, raw: Any) -> Any:
        schema = self.d.input_schema
        if schema is None or isinstance(raw, schema):
            return raw
        try:
            return schema.model_validate(raw.model_dump() if isinstance(raw, BaseModel) else raw)
        except ValidationError as exc:
            raise _Failure("input", validation_messages(exc)) from exc

    async def _context(self, typed_input: Any) -> list[str]:
        if not self.d.context:
            return []
        service = self.deps.context or ContextService(self.deps.db)
        return await service.build(self.d.context, input=typed_input, user_id=self.deps.user_id)

    async def _attempts(self, prompt: PromptVersion, context: list[str], typed_input: Any) -> Any:
        policy = self.d.retry
        turns: list[Turn] = []
        for attempt in range(1, policy.max_retries + 2):
            self.attempts = attempt
            kind: RetryReason
            try:
                async with asyncio.timeout(self.d.timeout_seconds):
                    reply, after = await self._exchange(prompt, context, typed_input, turns, attempt)
            except TimeoutError:
                kind, errors = "timeout", [f"no answer within {self.d.timeout_seconds:g} s"]
            except ModelError as exc:
                kind, errors = "model_error", [str(exc)]
            else:
                output, errors = self._parse(reply, typed_input)
                if not errors:
                    return output
                kind = "validation_error"
                turns = [*after, *self._negative_example(reply, errors)]
            self.errors.append({"attempt": attempt, "kind": kind, "errors": errors})
            if kind not in policy.retry_on or attempt > policy.max_retries:
                raise _Failure(kind, errors)
            if policy.backoff_ms:
                await self.deps.sleep(policy.backoff_ms / 1000 * 2 ** (attempt - 1))
        raise AssertionError("unreachable")

    async def _exchange(
        self, prompt: PromptVersion, context: list[str], typed_input: Any, turns: list[Turn], attempt: int
    ) -> tuple[AgentReply, list[Turn]]:
        """One model exchange on the step engine: tool steps until the model answers with its output."""
        conversation = _StructuredConversation(self, prompt, context, typed_input, turns, attempt)
        result = await run_steps(conversation, self.d.toolset, max_steps=self.d.max_steps)
        if not isinstance(result.next_step, FinalOutput):
            raise ModelError(f"still calling tools after {self.d.max_steps} rounds")
        reply: AgentReply = result.next_step.output
        return reply, conversation.turns

    def _parse(self, reply: AgentReply, typed_input: Any) -> tuple[Any, list[str]]:
        """The output: the draft parsed (the schema's model, or text), finalized in code, checked."""
        output: Any
        schema = self.d.output.schema
        if schema is not None:
            data = reply.data
            if data is None and reply.text:
                try:
                    data = json.loads(reply.text)
                except ValueError:
                    data = None
            if not isinstance(data, dict):
                return None, ["the answer holds no JSON object of the output schema"]
            try:
                output = schema.model_validate(data)
            except ValidationError as exc:
                return None, validation_messages(exc)
        else:
            output = (reply.text or "").strip()
            if not output:
                return None, ["the answer is empty"]
        if self.d.finalize is not None:
            try:
                output = self.d.finalize(output, typed_input)
            except Rejected as exc:
                return None, exc.errors
        errors: list[str] = []
        for validator in self.d.validators:
            errors.extend(str(e) for e in validator(output, typed_input))
        return output, errors

    def _negative_example(self, reply: AgentReply, errors: list[str]) -> list[Turn]:
        """The rejected answer as the model wrote it — its thinking blocks first, unchanged (the API
        refuses a follow-up to an output call whose thinking is missing or altered) — then the errors."""
        call = reply.output_call
        if call is not None and reply.data is not None:
            return [AssistantTurn(None, (call,), reply.thinking), RetryTurn(feedback(errors), call.id)]
        written = reply.raw_output or reply.text or "(no output)"
        return [AssistantTurn(written, thinking=reply.thinking), RetryTurn(feedback(errors))]

    async def _sub_agents(self, output: Any, typed_input: Any) -> tuple[dict[str, Any], list[AgentRun]]:
        chosen = [
            s
            for s in self.d.sub_agents
            if s.trigger == "always" or s.agent.name in self.on_demand or s.output_key in self.on_demand
        ]
        outputs: dict[str, Any] = {}
        runs: list[AgentRun] = []
        for batch in sorted({s.batch for s in chosen}):
            group = [s for s in chosen if s.batch == batch]
            results = await asyncio.gather(
                *(self._sub_agent(s, output, typed_input) for s in group), return_exceptions=True
            )
            failures: list[str] = []
            for spec, result in zip(group, results, strict=True):
                if isinstance(result, BaseException):
                    if not isinstance(result, Exception):
                        raise result
                    errors = result.errors if isinstance(result, AgentFailed) else [repr(result)]
                    self.errors.append({"kind": "sub_agent", "agent": spec.agent.name, "errors": errors})
                    if not spec.optional:
                        failures.append(f"sub-agent {spec.agent.name} failed: {'; '.join(errors)}")
                    continue
                if isinstance(result, _Skipped):
                    continue
                value, sub = result
                outputs[spec.output_key] = value
                runs.extend(sub)
            if failures:
                raise _Failure("sub_agent", failures)
        return outputs, runs

    async def _sub_agent(
        self, spec: SubAgent, output: Any, typed_input: Any
    ) -> tuple[Any, list[AgentRun]] | _Skipped:
        if spec.condition is not None and not spec.condition(output, typed_input):
            return SKIPPED
        sub_input = spec.transform(output, typed_input) if spec.transform is not None else output
        if not spec.fan_out:
            run = await self._child(spec, sub_input)
            return run.output, [run]
        results = await asyncio.gather(
            *(self._child(spec, item) for item in sub_input), return_exceptions=True
        )
        for result in results:
            if isinstance(result, BaseException):
                raise result
        runs = [r for r in results if isinstance(r, AgentRun)]
        return [r.output for r in runs], runs

    async def _child(self, spec: SubAgent, sub_input: Any) -> AgentRun:
        if not spec.cache_output:
            return await run_agent(spec.agent, sub_input, self.deps, parent_id=self.id)
        key = f"{spec.agent.name}:{canonical(sub_input)}"
        shared = self.deps.cache.get(key)
        if shared is not None:
            return replace(await asyncio.shield(shared), cached=True)
        task = asyncio.ensure_future(run_agent(spec.agent, sub_input, self.deps, parent_id=self.id))
        self.deps.cache[key] = task
        try:
            return await asyncio.shield(task)
        except AgentFailed:
            self.deps.cache.pop(key, None)
            raise

    async def _callbacks(
        self, typed_input: Any, output: Any, failure: _Failure | None, sub_outputs: dict[str, Any]
    ) -> Any:
        success = failure is None
        for callback in self.d.callbacks:
            when = callback.when
            if (when == "on_success" and not success) or (when == "on_failure" and success):
                continue
            event = CallbackEvent(
                agent=self.d.name,
                input=typed_input,
                output=output,
                success=success,
                errors=tuple(failure.errors) if failure else (),
                invocation_id=self.id,
                sub_outputs=sub_outputs,
            )
            try:
                replacement = await callback.run(event)
            except Exception as exc:
                log.exception("callback %s of agent %s failed", callback.name, self.d.name)
                self.errors.append({"kind": "callback", "name": callback.name, "errors": [repr(exc)]})
                continue
            if success and replacement is not None:
                output = replacement
        return output


class _StructuredConversation(Conversation[AgentReply]):
    """A registry agent's conversation for one attempt, in memory: the turns after the first user
    message (earlier attempts' rejected outputs with their feedback, this attempt's tool steps)."""

    def __init__(
        self,
        run: _Run,
        prompt: PromptVersion,
        context: list[str],
        typed_input: Any,
        turns: list[Turn],
        attempt: int,
    ) -> None:
        self.run = run
        self.prompt = prompt
        self.context = context
        self.typed_input = typed_input
        self.turns = list(turns)
        self.attempt = attempt
        view = run.d.model_view
        stable, rest = render_input_parts(view(typed_input) if view else typed_input, run.d.stable_input)
        self.input_text, self.stable_input_chars = stable + rest, len(stable) if rest else 0

    async def ask(self, step: int) -> ModelTurn[AgentReply]:
        run = self.run
        request = AgentRequest(
            agent=run.d.name,
            system=self.prompt.body,
            context=self.context,
            input=self.typed_input,
            input_text=self.input_text,
            stable_input_chars=self.stable_input_chars,
            output=run.d.output,
            model_id=run.choice.model_id,
            max_tokens=run.d.max_tokens,
            messages=list(self.turns),
            tools=run.d.toolset.specs(),
            attempt=self.attempt,
            effort=run.choice.effort,
        )
        reply = await run.choice.model.generate(request)
        run.model_calls += 1
        run.usage = add_usage(run.usage, reply.usage)
        answered = reply.output_call is not None or reply.data is not None or not reply.tool_calls
        return ModelTurn(reply, () if answered else tuple(reply.tool_calls))

    async def answered(self, turn: ModelTurn[AgentReply]) -> EndTurn | FinalOutput[AgentReply]:
        return FinalOutput(turn.reply)

    def tool_context(self) -> ToolContext:
        deps = self.run.deps
        return ToolContext(user_id=deps.user_id or "", db=deps.db, now=deps.now, agent_input=self.typed_input)

    async def tools_ran(
        self, turn: ModelTurn[AgentReply], results: Sequence[tuple[ToolCall, ToolOutcome]]
    ) -> None:
        self.run.tool_calls += len(results)
        executed = tuple((call, escape_text(outcome.body), not outcome.success) for call, outcome in results)
        self.turns += [
            AssistantTurn(turn.reply.text, tuple(turn.reply.tool_calls), turn.reply.thinking),
            ToolResultsTurn(executed),
        ]
