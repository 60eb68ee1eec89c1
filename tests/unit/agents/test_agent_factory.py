"""run_agent on in-memory backends: retry with the negative example, timeouts and model errors by the
retry policy, callbacks by timing, the tool loop in priority order, sub-agent batches (parallel within a
batch, timed), conditions, transforms, on-demand, fan-out, caching, prompts and invocation records."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from trainer.agents import (
    AgentDefinition,
    AgentError,
    AgentFailed,
    AgentRegistry,
    AgentRunDeps,
    Backends,
    Callback,
    CallbackEvent,
    ContextProvider,
    ContextRequest,
    MemoryInvocations,
    OfflineContext,
    OutputSpec,
    PromptStore,
    Rejected,
    RetryPolicy,
    SubAgent,
    ToolRequest,
    run_agent,
)
from trainer.offline.structured import OfflineStructured
from trainer.providers.ports import (
    AgentReply,
    AgentRequest,
    AssistantTurn,
    ModelError,
    RetryTurn,
    ToolCall,
    ToolResultsTurn,
    Usage,
)
from trainer.sources.registry import SOURCES
from trainer.tools.base import Tool, ToolContext, ToolResult
from trainer_dev.testing.echo_agents import Echo, EchoInput, Lookup, LookupArgs, LookupResult

Step = AgentReply | Exception | Callable[[AgentRequest], Awaitable[AgentReply]]


class ScriptedModel:
    """Answers each call with the next scripted step and keeps every request."""

    provider = "anthropic"

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[AgentRequest] = []

    async def generate(self, request: AgentRequest) -> AgentReply:
        self.requests.append(request)
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        if isinstance(step, AgentReply):
            return step
        return await step(request)


def json_reply(data: dict[str, Any], call_id: str = "toolu_1") -> AgentReply:
    return AgentReply(
        None,
        data,
        [],
        Usage(input_tokens=1000, output_tokens=100),
        "m",
        str(data),
        ToolCall(call_id, "emit_echo", data),
    )


def text_reply(text: str) -> AgentReply:
    return AgentReply(text, None, [], Usage(input_tokens=10, output_tokens=5), "m", text)


async def echo_offline(value: EchoInput, ctx: OfflineContext) -> Echo:
    return Echo(text=value.text, count=len(value.text))


def echo_json(**overrides: Any) -> AgentDefinition:
    values: dict[str, Any] = {
        "name": "echo_json",
        "description": "echoes its input as JSON",
        "input_schema": EchoInput,
        "output": OutputSpec.json_of(Echo),
        "retry": RetryPolicy(max_retries=1, retry_on=("validation_error",)),
        "offline": echo_offline,
        **overrides,
    }
    return AgentDefinition(**values)


def text_agent(name: str, **overrides: Any) -> AgentDefinition:
    return AgentDefinition(**{"name": name, "description": name, "offline": echo_offline, **overrides})


def make_deps(
    model: Any, tmp_path: Path, *agents: AgentDefinition, model_id: str = "claude-haiku-4-5"
) -> AgentRunDeps:
    """Deps on `model` (OfflineStructured over `agents` when it is "offline"), a prompt file per agent."""
    prompts = tmp_path / "prompts"
    prompts.mkdir(exist_ok=True)
    for definition in agents:
        (prompts / f"{definition.prompt_id}.md").write_text(f"You are {definition.name}.\n")

    async def no_sleep(_: float) -> None:
        return None

    if model == "offline":
        model, model_id = OfflineStructured(AgentRegistry(agents)), "offline"
    return AgentRunDeps(
        backends=Backends.single(model, model_id),
        prompts=PromptStore(None, defaults=prompts),
        invocations=MemoryInvocations(),
        sleep=no_sleep,
    )


def records(deps: AgentRunDeps) -> list[Any]:
    assert isinstance(deps.invocations, MemoryInvocations)
    return list(deps.invocations.records)


async def test_an_invalid_answer_is_retried_with_the_negative_example(tmp_path: Path) -> None:
    model = ScriptedModel(json_reply({"text": "hi"}, "toolu_bad"), json_reply({"text": "hi", "count": 2}))
    agent = echo_json()
    deps = make_deps(model, tmp_path, agent)
    run = await run_agent(agent, {"text": "hi"}, deps)
    assert run.output == Echo(text="hi", count=2)
    assert run.attempts == 2
    first, second = model.requests
    assert first.messages == [] and first.system == "You are echo_json.\n"
    assert first.input_text == '<agent_input>\n{"text":"hi"}\n</agent_input>'
    bad, retry = second.messages
    assert bad == AssistantTurn(None, (ToolCall("toolu_bad", "emit_echo", {"text": "hi"}),))
    assert isinstance(retry, RetryTurn) and retry.output_call_id == "toolu_bad"
    assert "count: Field required" in retry.text
    (record,) = records(deps)
    assert record.status == "success" and record.attempts == 2 and record.model_calls == 2
    assert record.errors == [{"attempt": 1, "kind": "validation_error", "errors": ["count: Field required"]}]
    assert record.usage.input_tokens == 2000 and record.cost_cents > 0


THINKING = (
    {"type": "thinking", "thinking": "", "signature": "sig-a"},
    {"type": "redacted_thinking", "data": "x"},
)


async def test_a_rejected_output_call_goes_back_with_the_thinking_blocks_before_it(tmp_path: Path) -> None:
    """The retry answers the rejected output call with a tool_result: the thinking blocks the call came
    with go back before it, unchanged (a thinking model's API refuses the follow-up otherwise)."""
    rejected = json_reply({"text": "hi"}, "toolu_bad")
    rejected.thinking = THINKING
    model = ScriptedModel(rejected, json_reply({"text": "hi", "count": 2}))
    agent = echo_json()
    run = await run_agent(agent, {"text": "hi"}, make_deps(model, tmp_path, agent))
    assert run.attempts == 2
    bad, retry = model.requests[1].messages
    assert bad == AssistantTurn(None, (ToolCall("toolu_bad", "emit_echo", {"text": "hi"}),), THINKING)
    assert isinstance(retry, RetryTurn) and retry.output_call_id == "toolu_bad"


async def test_a_rejected_written_answer_goes_back_with_its_thinking_blocks(tmp_path: Path) -> None:
    agent = echo_json()
    rejected = text_reply('{"text": "hi"}')
    rejected.thinking = THINKING[:1]
    model = ScriptedModel(rejected, json_reply({"text": "hi", "count": 2}))
    run = await run_agent(agent, {"text": "hi"}, make_deps(model, tmp_path, agent))
    assert run.attempts == 2
    bad, _ = model.requests[1].messages
    assert bad == AssistantTurn('{"text": "hi"}', thinking=THINKING[:1])


async def test_a_text_answer_is_fed_back_as_written(tmp_path: Path) -> None:
    def has_title(output: str, _: Any) -> list[str]:
        return [] if output.startswith("# ") else ["the answer needs a '# ' title"]

    agent = text_agent("writer", output=OutputSpec(kind="markdown"), validators=(has_title,))
    model = ScriptedModel(text_reply("no title"), text_reply("# Title\nbody"))
    run = await run_agent(agent, "write", make_deps(model, tmp_path, agent))
    assert run.output == "# Title\nbody"
    bad, retry = model.requests[1].messages
    assert bad == AssistantTurn("no title")
    assert retry == RetryTurn(
        "Your previous output was rejected:\n- the answer needs a '# ' title\n"
        "Answer again with a complete corrected output that fixes every error above."
    )


async def test_finalize_turns_the_draft_into_the_output_and_its_rejection_is_fed_back(tmp_path: Path) -> None:
    """The finalized value is what the validators, the transforms, the callbacks and the caller see:
    nothing is passed from one to the other outside the run."""
    seen: list[Any] = []

    def shout(draft: Echo, given: EchoInput) -> str:
        if draft.count != len(given.text):
            raise Rejected([f"count must be {len(given.text)}"])
        return draft.text.upper()

    def checked(output: str, given: EchoInput) -> list[str]:
        seen.append(("validator", output))
        return []

    async def after(event: CallbackEvent) -> None:
        seen.append(("callback", event.output))

    agent = echo_json(finalize=shout, validators=(checked,), callbacks=(Callback(after),))
    model = ScriptedModel(json_reply({"text": "hi", "count": 5}), json_reply({"text": "hi", "count": 2}))
    run = await run_agent(agent, {"text": "hi"}, make_deps(model, tmp_path, agent))
    assert run.output == "HI" and run.attempts == 2
    assert "count must be 2" in model.requests[1].messages[-1].text  # type: ignore[union-attr]
    assert seen == [("validator", "HI"), ("callback", "HI")]


async def test_exhausted_retries_fail_cleanly_and_are_recorded(tmp_path: Path) -> None:
    model = ScriptedModel(*(json_reply({"text": "x"}) for _ in range(3)))
    agent = echo_json(retry=RetryPolicy(max_retries=2))
    deps = make_deps(model, tmp_path, agent)
    with pytest.raises(AgentFailed) as failed:
        await run_agent(agent, {"text": "x"}, deps)
    assert failed.value.kind == "validation_error"
    assert failed.value.errors == ["count: Field required"]
    (record,) = records(deps)
    assert record.id == failed.value.invocation_id
    assert record.status == "failed" and record.attempts == 3 and len(record.errors) == 3
    assert record.error == "validation_error: count: Field required"


async def test_timeouts_and_model_errors_follow_the_retry_policy(tmp_path: Path) -> None:
    async def slow(request: AgentRequest) -> AgentReply:
        await asyncio.sleep(1)
        raise AssertionError("not reached")

    retrying = echo_json(timeout_seconds=0.05, retry=RetryPolicy(max_retries=1, retry_on=("timeout",)))
    model = ScriptedModel(slow, json_reply({"text": "a", "count": 1}))
    deps = make_deps(model, tmp_path, retrying)
    run = await run_agent(retrying, {"text": "a"}, deps)
    assert run.attempts == 2 and model.requests[1].messages == []
    assert records(deps)[0].errors[0]["kind"] == "timeout"

    model = ScriptedModel(ModelError("HTTP 529: overloaded"))
    agent = echo_json()
    deps = make_deps(model, tmp_path, agent)
    with pytest.raises(AgentFailed) as failed:
        await run_agent(agent, {"text": "a"}, deps)
    assert failed.value.kind == "model_error" and records(deps)[0].attempts == 1


async def test_an_invalid_input_fails_before_any_model_call(tmp_path: Path) -> None:
    model = ScriptedModel()
    agent = echo_json()
    with pytest.raises(AgentFailed) as failed:
        await run_agent(agent, {"wrong": 1}, make_deps(model, tmp_path, agent))
    assert failed.value.kind == "input" and model.requests == []


async def test_callbacks_run_by_timing_in_definition_order(tmp_path: Path) -> None:
    seen: list[tuple[str, bool]] = []

    def callback(name: str, replace: Any = None) -> Callable[[CallbackEvent], Awaitable[Any]]:
        async def run(event: CallbackEvent) -> Any:
            seen.append((name, event.success))
            if name == "broken":
                raise RuntimeError("boom")
            return replace

        run.__name__ = name
        return run

    agent = echo_json(
        callbacks=(
            Callback(callback("succeeded", Echo(text="replaced", count=0)), when="on_success"),
            Callback(callback("failed"), when="on_failure"),
            Callback(callback("broken"), when="always"),
            Callback(callback("finally"), when="always"),
        ),
        retry=RetryPolicy(max_retries=0),
    )

    deps = make_deps(ScriptedModel(json_reply({"text": "a", "count": 1})), tmp_path, agent)
    run = await run_agent(agent, {"text": "a"}, deps)
    assert seen == [("succeeded", True), ("broken", True), ("finally", True)]
    assert run.output == Echo(text="replaced", count=0)
    assert records(deps)[0].errors == [
        {"kind": "callback", "name": "broken", "errors": ["RuntimeError('boom')"]}
    ]

    seen.clear()
    deps = make_deps(ScriptedModel(json_reply({"text": "a"})), tmp_path, agent)
    with pytest.raises(AgentFailed):
        await run_agent(agent, {"text": "a"}, deps)
    assert seen == [("failed", False), ("broken", False), ("finally", False)]


class _Recorded(ToolResult):
    text: str


def _tool(tool_name: str, tool_priority: int, executed: list[str]) -> Tool[LookupArgs, _Recorded]:
    class Named(Tool[LookupArgs, _Recorded]):
        name: ClassVar[str] = tool_name
        description: ClassVar[str] = tool_name
        Args = LookupArgs
        Result = _Recorded
        priority: ClassVar[int] = tool_priority

        async def execute(self, args: LookupArgs, ctx: ToolContext) -> _Recorded:
            executed.append(tool_name)
            return _Recorded(text=f"{tool_name}: {args.query} <b>")

        def format(self, result: _Recorded) -> str:
            return result.text

    return Named()


async def test_the_tool_steps_run_calls_in_priority_order_through_the_one_executor(tmp_path: Path) -> None:
    executed: list[str] = []
    agent = echo_json(tools=(_tool("lookup", 2, executed), _tool("save", 1, executed)))
    calls = [ToolCall("c1", "lookup", {"query": "q"}), ToolCall("c2", "save", {"query": "s"})]
    model = ScriptedModel(
        AgentReply(None, None, calls, Usage(), "m", ""),
        AgentReply(None, None, [ToolCall("c3", "lookup", {})], Usage(), "m", ""),
        json_reply({"text": "t", "count": 1}),
    )
    deps = make_deps(model, tmp_path, agent)
    run = await run_agent(agent, {"text": "t"}, deps)
    assert run.output.count == 1
    assert executed == ["save", "lookup"]
    assert [t.name for t in model.requests[0].tools] == ["lookup", "save"]
    turns = model.requests[1].messages
    assert isinstance(turns[1], ToolResultsTurn)
    assert [(c.name, text, err) for c, text, err in turns[1].results] == [
        ("save", "save: s &lt;b&gt;", False),
        ("lookup", "lookup: q &lt;b&gt;", False),
    ]
    failed = model.requests[2].messages[3]
    assert isinstance(failed, ToolResultsTurn) and failed.results[0][2] is True
    assert "query: Field required" in failed.results[0][1]
    assert records(deps)[0].tool_calls == 3


async def test_a_tool_gets_the_runs_typed_input(tmp_path: Path) -> None:
    seen: list[object] = []

    class Inspect(Lookup):
        async def execute(self, args: LookupArgs, ctx: ToolContext) -> LookupResult:
            seen.append(ctx.agent_input)
            return LookupResult(found="seen")

    agent = echo_json(tools=(Inspect(),))
    calls = [ToolCall("c1", "lookup", {"query": "q"})]
    model = ScriptedModel(
        AgentReply(None, None, calls, Usage(), "m", ""), json_reply({"text": "t", "count": 1})
    )
    await run_agent(agent, {"text": "t"}, make_deps(model, tmp_path, agent))
    assert seen == [EchoInput(text="t")]


async def test_too_many_tool_steps_are_a_model_error(tmp_path: Path) -> None:
    agent = echo_json(tools=(Lookup(),), max_steps=2, retry=RetryPolicy(max_retries=0))
    asks = [
        AgentReply(None, None, [ToolCall(f"c{i}", "lookup", {"query": "q"})], Usage(), "m", "")
        for i in (1, 2)
    ]
    with pytest.raises(AgentFailed) as failed:
        await run_agent(agent, {"text": "t"}, make_deps(ScriptedModel(*asks), tmp_path, agent))
    assert failed.value.kind == "model_error"
    assert failed.value.errors == ["still calling tools after 2 rounds"]


async def test_offline_implementations_can_ask_for_tools(tmp_path: Path) -> None:
    async def wants_lookup(value: EchoInput, ctx: OfflineContext) -> Echo | ToolRequest:
        if not ctx.tool_results:
            return ToolRequest((("lookup", {"query": value.text}),))
        return Echo(text=ctx.tool_results[0].content, count=len(ctx.tool_results))

    agent = echo_json(tools=(Lookup(),), offline=wants_lookup)
    deps = make_deps("offline", tmp_path, agent)
    run = await run_agent(agent, {"text": "x"}, deps)
    assert run.output == Echo(text="found x", count=1)
    assert records(deps)[0].provider == "offline" and run.cost_cents == 0


def _timed_offline(log: list[tuple[str, float, float]], delay: float) -> Any:
    async def impl(value: Any, ctx: OfflineContext) -> str:
        start = time.monotonic()
        await asyncio.sleep(delay)
        log.append((ctx.agent, start, time.monotonic()))
        return f"{ctx.agent}:{value}"

    return impl


async def test_sub_agents_of_a_batch_run_in_parallel_and_batches_in_order(tmp_path: Path) -> None:
    log: list[tuple[str, float, float]] = []
    slow_a = text_agent("slow_a", offline=_timed_offline(log, 0.3))
    slow_b = text_agent("slow_b", offline=_timed_offline(log, 0.3))
    after = text_agent("after", offline=_timed_offline(log, 0))
    parent = text_agent(
        "parent",
        offline=_timed_offline(log, 0),
        sub_agents=(SubAgent(slow_a, batch=0), SubAgent(slow_b, batch=0), SubAgent(after, batch=1)),
    )
    deps = make_deps("offline", tmp_path, parent, slow_a, slow_b, after)

    started = time.monotonic()
    run = await run_agent(parent, "go", deps)
    elapsed = time.monotonic() - started

    assert elapsed < 0.5, f"two 0.3 s sub-agents in one batch took {elapsed:.2f} s"
    assert run.sub_outputs == {
        "slow_a": "slow_a:parent:go",
        "slow_b": "slow_b:parent:go",
        "after": "after:parent:go",
    }
    ends = {name: end for name, _, end in log}
    after_start = next(start for name, start, _ in log if name == "after")
    assert after_start >= max(ends["slow_a"], ends["slow_b"])
    sub_records = [r for r in records(deps) if r.parent_id == run.invocation_id]
    assert sorted(r.agent for r in sub_records) == ["after", "slow_a", "slow_b"]


async def test_conditions_transforms_on_demand_fan_out_and_cache(tmp_path: Path) -> None:
    calls: list[Any] = []

    async def upper(value: Any, ctx: OfflineContext) -> str:
        calls.append(value)
        return str(value).upper()

    upper_agent = text_agent("upper", offline=upper)
    parent = text_agent(
        "parent",
        offline=_timed_offline([], 0),
        sub_agents=(
            SubAgent(upper_agent, transform=lambda output, _: ["a", "b", "a"], fan_out=True,
                     cache_output=True, key="words"),
            SubAgent(upper_agent, condition=lambda output, _: False, key="skipped"),
            SubAgent(upper_agent, trigger="on_demand", key="extra", batch=1),
        ),
    )  # fmt: skip
    deps = make_deps("offline", tmp_path, parent, upper_agent)

    run = await run_agent(parent, "x", deps)
    assert run.sub_outputs == {"words": ["A", "B", "A"]}
    assert sorted(calls) == ["a", "b"]
    assert [r.cached for r in run.sub_runs] == [False, False, True]

    calls.clear()
    again = await run_agent(parent, "x", deps, on_demand={"extra"})
    assert again.sub_outputs == {"words": ["A", "B", "A"], "extra": "PARENT:X"}
    assert calls == ["parent:x"], "the words were cached by this deps' earlier run"
    with pytest.raises(AgentError, match="no sub-agent nope"):
        await run_agent(parent, "x", deps, on_demand={"nope"})


async def test_a_failing_sub_agent_fails_its_parent_unless_optional(tmp_path: Path) -> None:
    async def empty(value: Any, ctx: OfflineContext) -> str:
        return ""

    broken = text_agent("broken", offline=empty)
    parent = text_agent("parent", offline=_timed_offline([], 0), sub_agents=(SubAgent(broken),))
    deps = make_deps("offline", tmp_path, parent, broken)
    with pytest.raises(AgentFailed) as failed:
        await run_agent(parent, "x", deps)
    assert failed.value.kind == "sub_agent"
    assert failed.value.errors == ["sub-agent broken failed: the answer is empty"]

    tolerant = text_agent(
        "parent", offline=_timed_offline([], 0), sub_agents=(SubAgent(broken, optional=True),)
    )
    run = await run_agent(tolerant, "x", deps)
    assert run.sub_outputs == {}


async def test_prompts_come_from_the_store_and_a_missing_one_fails_the_run(tmp_path: Path) -> None:
    model = ScriptedModel(json_reply({"text": "a", "count": 1}))
    agent = echo_json()
    deps = make_deps(model, tmp_path, agent)
    run = await run_agent(agent, {"text": "a"}, deps)
    assert run.prompt_version == 0 and records(deps)[0].prompt_version == 0
    (tmp_path / "prompts" / "echo_json.md").unlink()
    deps.prompts = PromptStore(None, defaults=tmp_path / "prompts")
    with pytest.raises(AgentFailed) as failed:
        await run_agent(agent, {"text": "a"}, deps)
    assert failed.value.kind == "prompt"


async def test_agents_run_by_their_own_code_are_refused(tmp_path: Path) -> None:
    async def own_code() -> None:
        return None

    agent = echo_json(implemented_by=own_code)
    with pytest.raises(AgentError, match="runs in its own code"):
        await run_agent(agent, {"text": "a"}, make_deps(ScriptedModel(), tmp_path, agent))


async def test_context_blocks_come_first_in_definition_order(tmp_path: Path) -> None:
    async def plan(request: ContextRequest) -> str:
        return f"plan for {request.input.text} &lt;week&gt;"

    agent = echo_json(context=(ContextProvider("training_plan", plan), SOURCES["user_profile"]))
    model = ScriptedModel(json_reply({"text": "a", "count": 1}))
    await run_agent(agent, {"text": "a"}, make_deps(model, tmp_path, agent))
    context = model.requests[0].context
    assert context[0] == '<context type="training_plan">\nplan for a &lt;week&gt;\n</context>'
    assert context[1] == '<context type="user_profile" status="unavailable">no user data here</context>'


async def test_usage_and_cost_include_the_sub_agents(tmp_path: Path) -> None:
    child = text_agent("child")
    parent = text_agent("parent", sub_agents=(SubAgent(child),))
    model = ScriptedModel(text_reply("parent text"), text_reply("child text"))
    deps = make_deps(model, tmp_path, parent, child)
    run = await run_agent(parent, "x", deps)
    own = {r.agent: r for r in records(deps)}
    assert run.usage.input_tokens == 20 and own["parent"].usage.input_tokens == 10
    assert run.cost_cents == pytest.approx(own["parent"].cost_cents + own["child"].cost_cents)
    assert model.requests[1].input_text == '<agent_input>\n"parent text"\n</agent_input>'
