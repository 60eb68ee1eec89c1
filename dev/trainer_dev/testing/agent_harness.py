"""Wiring for chat-turn unit tests: fake data sources, selector, publisher and a ready ChatRunner."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from trainer.agents.closing import ResultReplies
from trainer.agents.prompts import PromptStore
from trainer.agents.tools import ToolSet
from trainer.chat.agent import CHAT
from trainer.chat.hooks import TurnHooks
from trainer.chat.turn import ChatDeps, ChatRunner
from trainer.container import FixedModel
from trainer.frames import Frame, frame_json
from trainer.providers.ports import InitializerResponse, InitializerResult, KnowledgeSelection
from trainer.settings import Settings
from trainer.tools.base import AnyTool, WorkoutCoach
from trainer.tools.communication import communication_tools
from trainer.tools.workout import workout_tools

from trainer_dev.testing.memory_store import InMemorySessionStore
from trainer_dev.testing.scripted_model import ScriptedModel

USER = "user-1"
USER_DATA = "<user_data>\n<unit_preferences>\nWeight: kg\nDistance: km\n</unit_preferences>\n</user_data>"
FIXED_NOW = datetime(2025, 1, 11, 14, 32, 1, 123000, tzinfo=UTC)


@dataclass
class FakeSourceResult:
    source: str
    params: dict[str, Any]
    data: Any
    formatted: str
    error: str | None = None


@dataclass
class FakeFetcher:
    """Returns `<SOURCE>data</SOURCE>`; sources in `failing` come back with an error."""

    failing: set[str] = field(default_factory=set)
    delay: float = 0.0
    calls: list[list[tuple[str, dict[str, Any]]]] = field(default_factory=list)
    raise_error: Exception | None = None

    async def __call__(self, requests: list[tuple[str, dict[str, Any]]]) -> list[FakeSourceResult]:
        self.calls.append(list(requests))
        if self.raise_error is not None:
            raise self.raise_error

        async def one(source: str, params: dict[str, Any]) -> FakeSourceResult:
            await asyncio.sleep(self.delay)
            if source in self.failing:
                return FakeSourceResult(source, params, None, "", error=f"{source} unavailable")
            return FakeSourceResult(source, params, {"ok": True}, f"<{source}>data</{source}>")

        return list(await asyncio.gather(*(one(s, p) for s, p in requests)))


def selection(source: str, reason: str = "not_in_context", **params: Any) -> KnowledgeSelection:
    return KnowledgeSelection(
        source=source,
        reason=reason,
        days_back=params.get("days_back"),
        days_ahead=params.get("days_ahead"),
        status=params.get("status"),
    )


@dataclass
class FakeSelector:
    selections: list[KnowledgeSelection] = field(default_factory=list)
    error: Exception | None = None
    provider: str = "deterministic"
    usage: dict[str, int] | None = None
    seen: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)

    async def select(self, message: str, existing: list[dict[str, Any]]) -> InitializerResult:
        self.seen.append((message, existing))
        if self.error is not None:
            raise self.error
        response = InitializerResponse(
            reasoning="test", append_knowledge=list(self.selections), use_existing=[]
        )
        return InitializerResult(
            selection=response,
            usage=self.usage,
            model="gpt-4o-mini",
            provider=self.provider,  # type: ignore[arg-type]
        )


@dataclass
class RecordingPublisher:
    published: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    error: Exception | None = None

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        if self.error is not None:
            raise self.error
        self.published.append((detail_type, detail))


@dataclass
class Harness:
    loop: ChatRunner
    store: InMemorySessionStore
    model: ScriptedModel
    selector: FakeSelector
    fetcher: FakeFetcher
    publisher: RecordingPublisher
    registry: ToolSet
    emitted: list[dict[str, Any]]
    user_data_calls: list[str]

    async def emit(self, frame: Frame, seq: int) -> None:
        """Records each frame as its wire JSON plus the sequence number it was sent with."""
        self.emitted.append({**frame_json(frame), "seq": seq})


def make_settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {"model": "claude-haiku-4-5", **overrides}
    return Settings(**values)


def make_harness(
    steps: list[Any] | None = None,
    *,
    model: ScriptedModel | None = None,
    store: InMemorySessionStore | None = None,
    selector: FakeSelector | None = None,
    fetcher: FakeFetcher | None = None,
    publisher: RecordingPublisher | None = None,
    settings: Settings | None = None,
    coach: WorkoutCoach | None = None,
    user_data: str = USER_DATA,
    hooks: TurnHooks | None = None,
    models: Any = None,
    extra_tools: list[AnyTool] | None = None,
    prompts: PromptStore | None = None,
    fallback: ScriptedModel | None = None,
    **agent_overrides: Any,
) -> Harness:
    """A chat turn on the communication and workout tools; `agent_overrides` replace fields of the chat
    agent's definition (retry, max_steps...); `fallback`: the model of degraded mode."""
    store = store or InMemorySessionStore(clock=lambda: FIXED_NOW)
    model = model or ScriptedModel(steps or [])
    selector = selector or FakeSelector()
    fetcher = fetcher or FakeFetcher()
    publisher = publisher or RecordingPublisher()
    settings = settings or make_settings()
    agent = replace(
        CHAT,
        tools=(*communication_tools(), *workout_tools(), *(extra_tools or [])),
        max_steps=settings.max_iterations,
    )
    agent = replace(agent, **agent_overrides)
    registry = agent.toolset
    user_data_calls: list[str] = []

    async def load_user_data(user_id: str) -> str:
        user_data_calls.append(user_id)
        return user_data

    loop = ChatRunner(
        ChatDeps(
            agent=agent,
            prompts=prompts or PromptStore(None),
            store=store,
            models=models or FixedModel(model),
            selector=selector,
            user_data=load_user_data,
            sources=lambda _user_id: fetcher,
            publisher=publisher,
            settings=settings,
            closing_replies=ResultReplies(None, clock=lambda: FIXED_NOW),
            coach=coach,
            hooks=hooks or TurnHooks(),
            fallback=fallback,
            clock=lambda: FIXED_NOW,
        )
    )
    return Harness(loop, store, model, selector, fetcher, publisher, registry, [], user_data_calls)


def exercise(name: str = "Push-ups", order: int = 1, **overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "exercise_name": name,
        "exercise_type": "reps",
        "order": order,
        "sets": 3,
        "reps": [10, 10, 10],
        "rest_sec": 60,
        "muscles_utilized": [{"muscle": "Chest", "share": 0.7}, {"muscle": "Triceps", "share": 0.3}],
        "goals_addressed": [{"goal": "Strength", "share": 1.0}],
        "reasoning": "Compound push.",
    }
    base.update(overrides)
    return base


def plank(order: int) -> dict[str, Any]:
    return {
        "exercise_name": "Plank",
        "exercise_type": "hold",
        "order": order,
        "sets": 3,
        "hold_sec": [45, 45, 60],
        "rest_sec": 30,
        "muscles_utilized": [{"muscle": "Abs", "share": 0.7}, {"muscle": "Lower Back", "share": 0.3}],
        "goals_addressed": [{"goal": "Core Stability", "share": 1.0}],
        "reasoning": "Core finisher.",
    }


def chest_workout() -> dict[str, Any]:
    return {
        "title": "Chest & Core",
        "exercises": [
            exercise("Bench Press", 1, load_each=[60, 60, 60], load_unit="kg", rest_sec=120),
            exercise("Push-ups", 2),
            plank(3),
        ],
    }
