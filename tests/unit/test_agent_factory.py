"""run_agent on in-memory backends: retry with the negative example, timeouts and model errors by the
retry policy, callbacks by timing, the tool loop in priority order, sub-agent batches (parallel within a
batch, timed), conditions, transforms, on-demand, fan-out, caching, prompts and invocation records."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from trainer.agents import (
    AgentDefinition,
    AgentError,
    AgentFailed,
    AgentRunDeps,
    AgentTool,
    Backends,
    CallbackEvent,
    CallbackSpec,
    MemoryInvocations,
    OfflineContext,
    OutputSpec,
    PromptStore,
    Registries,
    RetryPolicy,
    SubAgentSpec,
    ToolRequest,
    run_agent,
)
from trainer.agents.registry import ToolCallContext
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

from tests.fakes.echo_agents import Echo, EchoInput, LookupArgs

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


def echo_json(**overrides: Any) -> AgentDefinition:
    values: dict[str, Any] = {
        "name": "echo_json",
        "description": "echoes its input as JSON",
        "input_schema": "echo_input",
        "output": OutputSpec.json_of("echo"),
        "retry": RetryPolicy(max_retries=1, retry_on=("validation_error",)),
        **overrides,
    }
    return AgentDefinition(**values)


async def echo_offline(value: EchoInput, ctx: OfflineContext) -> Echo:
    return Echo(text=value.text, count=len(value.text))


def make_registries(*definitions: AgentDefinition) -> Registries:
    r = Registries()
    r.agents.register_schema("echo", Echo)
    r.agents.register_schema("echo_input", EchoInput)
    for definition in definitions or (echo_json(),):
        r.agents.register(definition)
        r.offline.register(definition.name, echo_offline)
    return r


def make_deps(
    registries: Registries, model: Any, tmp_path: Path, *, model_id: str = "claude-haiku-4-5"
) -> AgentRunDeps:
    prompts = tmp_path / "prompts"
    prompts.mkdir(exist_ok=True)
    for name in registries.agents.names:
        (prompts / f"{registries.agents.get(name).prompt_id}.md").write_text(f"You are {name}.\n")

    async def no_sleep(_: float) -> None:
        return None

    return AgentRunDeps(
        registries=registries,
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
    deps = make_deps(make_registries(), model, tmp_path)
    run = await run_agent("echo_json", {"text": "hi"}, deps)
    assert run.output == Echo(text="hi", count=2)
    assert run.attempts == 2
    first, second = model.requests
    assert first.messages == [] and first.system == "You are echo_json.\n"
    assert '"text": "hi"' in first.input_text
    bad, retry = second.messages
    assert bad == AssistantTurn(None, (ToolCall("toolu_bad", "emit_echo", {"text": "hi"}),))
    assert isinstance(retry, RetryTurn) and retry.output_call_id == "toolu_bad"
    assert "count: Field required" in retry.text
    (record,) = records(deps)
    assert record.status == "success" and record.attempts == 2 and record.model_calls == 2
    assert record.errors == [{"attempt": 1, "kind": "validation_error", "errors": ["count: Field required"]}]
    assert record.usage.input_tokens == 2000 and record.cost_cents > 0


async def test_a_text_answer_is_fed_back_as_written(tmp_path: Path) -> None:
    definition = AgentDefinition(
        name="writer", description="writes", output=OutputSpec(kind="markdown"), validators=("has_title",)
    )
    registries = make_registries(definition)
    registries.agents.register_validator(
        "has_title", lambda output, _: [] if output.startswith("# ") else ["the answer needs a '# ' title"]
    )
    model = ScriptedModel(text_reply("no title"), text_reply("# Title\nbody"))
    deps = make_deps(registries, model, tmp_path)
    run = await run_agent("writer", "write", deps)
    assert run.output == "# Title\nbody"
    bad, retry = model.requests[1].messages
    assert bad == AssistantTurn("no title")
    assert retry == RetryTurn(
        "Your previous output was rejected:\n- the answer needs a '# ' title\n"
        "Answer again with a complete corrected output that fixes every error above."
    )


async def test_exhausted_retries_fail_cleanly_and_are_recorded(tmp_path: Path) -> None:
    model = ScriptedModel(*(json_reply({"text": "x"}) for _ in range(3)))
    deps = make_deps(make_registries(echo_json(retry=RetryPolicy(max_retries=2))), model, tmp_path)
    with pytest.raises(AgentFailed) as failed:
        await run_agent("echo_json", {"text": "x"}, deps)
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
    deps = make_deps(make_registries(retrying), model, tmp_path)
    run = await run_agent("echo_json", {"text": "a"}, deps)
    assert run.attempts == 2 and model.requests[1].messages == []
    assert records(deps)[0].errors[0]["kind"] == "timeout"

    model = ScriptedModel(ModelError("HTTP 529: overloaded"))
    deps = make_deps(make_registries(echo_json()), model, tmp_path)
    with pytest.raises(AgentFailed) as failed:
        await run_agent("echo_json", {"text": "a"}, deps)
    assert failed.value.kind == "model_error" and records(deps)[0].attempts == 1


async def test_an_invalid_input_fails_before_any_model_call(tmp_path: Path) -> None:
    model = ScriptedModel()
    deps = make_deps(make_registries(), model, tmp_path)
    with pytest.raises(AgentFailed) as failed:
        await run_agent("echo_json", {"wrong": 1}, deps)
    assert failed.value.kind == "input" and model.requests == []


async def test_callbacks_run_by_timing_in_definition_order(tmp_path: Path) -> None:
    seen: list[tuple[str, bool]] = []

    def callback(name: str, replace: Any = None) -> Callable[[CallbackEvent], Awaitable[Any]]:
        async def run(event: CallbackEvent) -> Any:
            seen.append((name, event.success))
            if name == "broken":
                raise RuntimeError("boom")
            return replace

        return run

    definition = echo_json(
        callbacks=(
            CallbackSpec(name="succeeded", when="on_success"),
            CallbackSpec(name="failed", when="on_failure"),
            CallbackSpec(name="broken", when="always"),
            CallbackSpec(name="finally", when="always"),
        ),
        retry=RetryPolicy(max_retries=0),
    )
    registries = make_registries(definition)
    registries.callbacks.register("succeeded", callback("succeeded", Echo(text="replaced", count=0)))
    registries.callbacks.register("failed", callback("failed"))
    registries.callbacks.register("broken", callback("broken"))
    registries.callbacks.register("finally", callback("finally"))

    deps = make_deps(registries, ScriptedModel(json_reply({"text": "a", "count": 1})), tmp_path)
    run = await run_agent("echo_json", {"text": "a"}, deps)
    assert seen == [("succeeded", True), ("broken", True), ("finally", True)]
    assert run.output == Echo(text="replaced", count=0)
    assert records(deps)[0].errors == [
        {"kind": "callback", "name": "broken", "errors": ["RuntimeError('boom')"]}
    ]

    seen.clear()
    deps = make_deps(registries, ScriptedModel(json_reply({"text": "a"})), tmp_path)
    with pytest.raises(AgentFailed):
        await run_agent("echo_json", {"text": "a"}, deps)
    assert seen == [("failed", False), ("broken", False), ("finally", False)]


async def test_the_tool_loop_runs_calls_in_priority_order(tmp_path: Path) -> None:
    executed: list[str] = []

    def tool(name: str, priority: int) -> AgentTool:
        async def execute(args: LookupArgs, ctx: ToolCallContext) -> str:
            executed.append(name)
            return f"{name}: {args.query} <b>"

        return AgentTool(name, name, LookupArgs, execute, priority=priority)

    definition = echo_json(tools=("lookup", "save"))
    registries = make_registries(definition)
    registries.tools.register(tool("lookup", 2))
    registries.tools.register(tool("save", 1))
    calls = [ToolCall("c1", "lookup", {"query": "q"}), ToolCall("c2", "save", {"query": "s"})]
    model = ScriptedModel(
        AgentReply(None, None, calls, Usage(), "m", ""),
        AgentReply(None, None, [ToolCall("c3", "lookup", {})], Usage(), "m", ""),
        json_reply({"text": "t", "count": 1}),
    )
    deps = make_deps(registries, model, tmp_path)
    run = await run_agent("echo_json", {"text": "t"}, deps)
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


async def test_offline_implementations_can_ask_for_tools(tmp_path: Path) -> None:
    async def wants_lookup(value: EchoInput, ctx: OfflineContext) -> Echo | ToolRequest:
        if not ctx.tool_results:
            return ToolRequest((("lookup", {"query": value.text}),))
        return Echo(text=ctx.tool_results[0].content, count=len(ctx.tool_results))

    async def lookup(args: LookupArgs, ctx: ToolCallContext) -> str:
        return f"found {args.query}"

    registries = make_registries(echo_json(tools=("lookup",)))
    registries.offline.replace("echo_json", wants_lookup)
    registries.tools.register(AgentTool("lookup", "look up", LookupArgs, lookup))
    deps = make_deps(registries, OfflineStructured(registries), tmp_path, model_id="offline")
    run = await run_agent("echo_json", {"text": "x"}, deps)
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
    parent = AgentDefinition(
        name="parent",
        description="fans out",
        sub_agents=(
            SubAgentSpec(agent="slow_a", batch=0),
            SubAgentSpec(agent="slow_b", batch=0),
            SubAgentSpec(agent="after", batch=1),
        ),
    )
    children = [AgentDefinition(name=n, description=n) for n in ("slow_a", "slow_b", "after")]
    registries = make_registries(parent, *children)
    log: list[tuple[str, float, float]] = []
    registries.offline.replace("parent", _timed_offline(log, 0))
    registries.offline.replace("slow_a", _timed_offline(log, 0.3))
    registries.offline.replace("slow_b", _timed_offline(log, 0.3))
    registries.offline.replace("after", _timed_offline(log, 0))
    deps = make_deps(registries, OfflineStructured(registries), tmp_path, model_id="offline")

    started = time.monotonic()
    run = await run_agent("parent", "go", deps)
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

    parent = AgentDefinition(
        name="parent",
        description="p",
        sub_agents=(
            SubAgentSpec(agent="upper", transform="words", fan_out=True, cache_output=True, key="words"),
            SubAgentSpec(agent="upper", condition="never", key="skipped"),
            SubAgentSpec(agent="upper", trigger="on_demand", key="extra", batch=1),
        ),
    )
    registries = make_registries(parent, AgentDefinition(name="upper", description="u"))
    registries.offline.replace("parent", _timed_offline([], 0))
    registries.offline.replace("upper", upper)
    registries.agents.register_transform("words", lambda output, _: ["a", "b", "a"])
    registries.agents.register_condition("never", lambda output, _: False)
    deps = make_deps(registries, OfflineStructured(registries), tmp_path, model_id="offline")

    run = await run_agent("parent", "x", deps)
    assert run.sub_outputs == {"words": ["A", "B", "A"]}
    assert sorted(calls) == ["a", "b"]
    assert [r.cached for r in run.sub_runs] == [False, False, True]

    calls.clear()
    again = await run_agent("parent", "x", deps, on_demand={"extra"})
    assert again.sub_outputs == {"words": ["A", "B", "A"], "extra": "PARENT:X"}
    assert calls == ["parent:x"], "the words were cached by this deps' earlier run"
    with pytest.raises(AgentError, match="no sub-agent nope"):
        await run_agent("parent", "x", deps, on_demand={"nope"})


async def test_a_failing_sub_agent_fails_its_parent_unless_optional(tmp_path: Path) -> None:
    async def broken(value: Any, ctx: OfflineContext) -> str:
        return ""

    parent = AgentDefinition(name="parent", description="p", sub_agents=(SubAgentSpec(agent="broken"),))
    registries = make_registries(parent, AgentDefinition(name="broken", description="b"))
    registries.offline.replace("parent", _timed_offline([], 0))
    registries.offline.replace("broken", broken)
    deps = make_deps(registries, OfflineStructured(registries), tmp_path, model_id="offline")
    with pytest.raises(AgentFailed) as failed:
        await run_agent("parent", "x", deps)
    assert failed.value.kind == "sub_agent"
    assert failed.value.errors == ["sub-agent broken failed: the answer is empty"]

    registries.agents.replace(
        parent.model_copy(update={"sub_agents": (SubAgentSpec(agent="broken", optional=True),)})
    )
    run = await run_agent("parent", "x", deps)
    assert run.sub_outputs == {}


async def test_prompts_come_from_the_store_and_a_missing_one_fails_the_run(tmp_path: Path) -> None:
    model = ScriptedModel(json_reply({"text": "a", "count": 1}))
    deps = make_deps(make_registries(), model, tmp_path)
    run = await run_agent("echo_json", {"text": "a"}, deps)
    assert run.prompt_version == 0 and records(deps)[0].prompt_version == 0
    (tmp_path / "prompts" / "echo_json.md").unlink()
    deps.prompts = PromptStore(None, defaults=tmp_path / "prompts")
    with pytest.raises(AgentFailed) as failed:
        await run_agent("echo_json", {"text": "a"}, deps)
    assert failed.value.kind == "prompt"


async def test_agents_run_by_their_own_code_are_refused(tmp_path: Path) -> None:
    registries = make_registries(echo_json(implemented_by="trainer.chat.turn"))
    with pytest.raises(AgentError, match=r"runs in trainer\.chat\.turn"):
        await run_agent("echo_json", {"text": "a"}, make_deps(registries, ScriptedModel(), tmp_path))


async def test_context_blocks_come_first_in_definition_order(tmp_path: Path) -> None:
    async def plan(request: Any) -> str:
        return f"plan for {request.input.text} &lt;week&gt;"

    registries = make_registries(echo_json(context_types=("training_plan", "user_profile")))
    registries.contexts.register("training_plan", plan)
    model = ScriptedModel(json_reply({"text": "a", "count": 1}))
    await run_agent("echo_json", {"text": "a"}, make_deps(registries, model, tmp_path))
    context = model.requests[0].context
    assert context[0] == '<context type="training_plan">\nplan for a &lt;week&gt;\n</context>'
    assert context[1] == '<context type="user_profile" status="unavailable">no user data here</context>'


async def test_usage_and_cost_include_the_sub_agents(tmp_path: Path) -> None:
    parent = AgentDefinition(name="parent", description="p", sub_agents=(SubAgentSpec(agent="child"),))
    registries = make_registries(parent, AgentDefinition(name="child", description="c"))
    model = ScriptedModel(text_reply("parent text"), text_reply("child text"))
    deps = make_deps(registries, model, tmp_path)
    run = await run_agent("parent", "x", deps)
    own = {r.agent: r for r in records(deps)}
    assert run.usage.input_tokens == 20 and own["parent"].usage.input_tokens == 10
    assert run.cost_cents == pytest.approx(own["parent"].cost_cents + own["child"].cost_cents)
    assert model.requests[1].input_text == '<agent_input>\n"parent text"\n</agent_input>'
