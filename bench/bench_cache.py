"""Prompt-cache effectiveness over a 5-turn session.

The real AgentLoop (context builder with its four cache breakpoints, communication and workout
tools, in-memory session store) calls the real AnthropicAgentModel (anthropic SDK over HTTP)
against FakeLLMServer, which simulates prompt caching from the request's breakpoints (5-minute
TTL, 20-block lookback, the model's minimum cacheable length) and decides tool calls with the
offline policy. Figures: the share of input tokens read from cache after the first call
(seed 002 asks > 50%), and each turn's cost as a ratio of the same turn uncached.
If the agent loop cannot be built, synthetic requests of the same shape are used instead and
the output says so."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from trainer.llm.anthropic_model import AnthropicAgentModel
from trainer.llm.deterministic_selector import DeterministicKnowledgeSelector
from trainer.llm.models import cost_cents, uncached_cost_cents
from trainer.llm.offline import OfflineAgentModel
from trainer.llm.ports import ModelRequest, ModelResponse, TextDeltaCallback, Usage
from trainer.local.fake_llm import DemoPlanner, FakeLLMServer
from trainer.settings import Settings

MODEL = "claude-haiku-4-5"
TURNS = (
    "Give me a chest workout for today",
    "Swap the push-up for something else",
    "Make the air squat more reps",
    "How long should I rest between sets?",
    "Remove the second exercise",
)


@dataclass
class RecordingModel:
    """Delegates to the real adapter and keeps every response's usage, tagged by turn."""

    inner: AnthropicAgentModel
    turn: int = 0
    calls: list[tuple[int, Usage]] = field(default_factory=list)
    provider: Any = "anthropic"

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        response = await self.inner.complete(request, on_text_delta)
        self.calls.append((self.turn, response.usage))
        return response


class StorePlanner(DemoPlanner):
    """The demo composer, with the current workout read from the session store."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def current_workout(self, session_id: str) -> dict[str, Any] | None:
        state: dict[str, Any] | None = await self.store.get_state(session_id, "current_workout")
        return state


async def _run_real_loop(server: FakeLLMServer, settings: Settings) -> RecordingModel:
    from trainer.agent.context import ContextBuilder
    from trainer.agent.loop import AgentDeps, AgentLoop
    from trainer.agent.tool_registry import ToolRegistry
    from trainer.container import FixedModel
    from trainer.tools.communication import communication_tools
    from trainer.tools.workout import workout_tools

    from tests.fakes.agent_harness import USER_DATA, FakeFetcher
    from tests.fakes.memory_store import InMemorySessionStore

    store = InMemorySessionStore()
    server.policy = OfflineAgentModel(StorePlanner(store))
    model = RecordingModel(AnthropicAgentModel(settings))
    registry = ToolRegistry([*communication_tools(), *workout_tools()])

    async def user_data(_user_id: str) -> str:
        return USER_DATA

    fetcher = FakeFetcher()
    loop = AgentLoop(
        AgentDeps(
            store=store,
            models=FixedModel(model),
            selector=DeterministicKnowledgeSelector(),
            registry=registry,
            context_builder=ContextBuilder(registry),
            user_data=user_data,
            sources=lambda _user_id: fetcher,
            settings=settings,
        )
    )
    session_id: str | None = None
    for number, message in enumerate(TURNS):
        model.turn = number
        result = await loop.run_turn("bench-user", message, session_id=session_id, model=MODEL)
        session_id = result.session_id
    return model


def _synthetic_requests() -> list[list[ModelRequest]]:
    """Same shape as the context builder's: ~6k-token system prompt, 20 tools, user data, and a
    message list that grows by a tool_use/tool_result pair per call, 4 breakpoints."""
    tools = [
        {
            "name": f"tool_{i}",
            "description": "Does one thing for the trainer. " * 12,
            "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}},
        }
        for i in range(20)
    ]
    tools[-1]["cache_control"] = {"type": "ephemeral"}
    system = [
        {
            "type": "text",
            "text": "You are a personal trainer. " * 850,
            "cache_control": {"type": "ephemeral"},
        },
        {
            "type": "text",
            "text": "<user_data>kg, km, home gym</user_data>",
            "cache_control": {"type": "ephemeral"},
        },
    ]
    history: list[dict[str, Any]] = []
    turns: list[list[ModelRequest]] = []
    for number, text in enumerate(TURNS):
        history.append({"role": "user", "content": [{"type": "text", "text": text}]})
        calls: list[ModelRequest] = []
        for step in range(3):
            messages = json.loads(json.dumps(history))
            messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
            calls.append(ModelRequest(model=MODEL, system=system, tools=tools, messages=messages))
            call_id = f"toolu_{number}_{step}"
            history.append(
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": call_id, "name": "idle", "input": {}}],
                }
            )
            history.append(
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "ok " * 60}],
                }
            )
        turns.append(calls)
    return turns


async def _run_synthetic(settings: Settings) -> RecordingModel:
    model = RecordingModel(AnthropicAgentModel(settings))
    for number, calls in enumerate(_synthetic_requests()):
        model.turn = number
        for request in calls:
            await model.complete(request)
    return model


def _report(model: RecordingModel, mode: str) -> list[str]:
    lines = [f"mode: {mode}; model {MODEL}; {len(model.calls)} model calls over {len(TURNS)} turns"]
    after_first = [u for _, u in model.calls[1:]]
    prompt = sum(u.prompt_tokens for u in after_first)
    read = sum(u.cache_read_input_tokens for u in after_first)
    share = read / prompt if prompt else 0.0
    first = model.calls[0][1]
    lines.append(
        f"first call: {first.prompt_tokens} prompt tokens, "
        f"{first.cache_creation_input_tokens} written to cache"
    )
    verdict = "meets seed 002's > 50%" if share > 0.5 else "BELOW seed 002's > 50%"
    lines.append(
        f"cache-read share of input tokens after the first call: {share:.1%} ({verdict}; aim >= 80%)"
    )
    for turn in range(len(TURNS)):
        usages = [u for t, u in model.calls if t == turn]
        cached = sum(cost_cents(MODEL, u) for u in usages)
        uncached = sum(uncached_cost_cents(MODEL, u) for u in usages)
        ratio = cached / uncached if uncached else 0.0
        lines.append(
            f"turn {turn + 1}: {len(usages)} calls, cost {cached:.4f}c vs {uncached:.4f}c uncached "
            f"-> ratio {ratio:.2f}"
        )
    return lines


async def _main() -> list[str]:
    with FakeLLMServer(api_key="bench-key") as server:
        settings = Settings.model_validate(
            {"ANTHROPIC_API_KEY": "bench-key", "ANTHROPIC_BASE_URL": server.base_url, "TRAINER_MODEL": MODEL}
        )
        try:
            model = await _run_real_loop(server, settings)
            mode = "real AgentLoop + ContextBuilder + AnthropicAgentModel -> FakeLLMServer"
        except Exception as exc:
            server.cache.clear()
            model = await _run_synthetic(settings)
            mode = f"synthetic requests (agent loop unavailable: {type(exc).__name__}: {exc})"
        return _report(model, mode)


def run() -> list[str]:
    return asyncio.run(_main())


if __name__ == "__main__":
    for line in run():
        print(line)
