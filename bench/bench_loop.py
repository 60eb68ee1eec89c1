"""Agent loop overhead: backend time per iteration (everything but the model call) with an instant
scripted model, on the in-memory store and on DynamoDB (moto); DynamoDB requests per iteration and
per turn; and 20 concurrent sessions with a 200 ms model against one session (nothing may block the
event loop). moto's TransactWriteItems copies the table to roll back, so on moto a commit slows as
the bench's sessions grow (the p95); DynamoDB's does not.

`python -m bench loop`
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from typing import Any

from trainer.providers.ports import ModelRequest
from trainer_dev.testing.agent_harness import (
    FakeFetcher,
    FakeSelector,
    chest_workout,
    make_harness,
    selection,
)
from trainer_dev.testing.memory_store import InMemorySessionStore
from trainer_dev.testing.scripted_model import ScriptedModel, call

from bench.moto import moto_tables

TURNS = 15
CONCURRENT_SESSIONS = 20
MODEL_LATENCY = 0.2


def _notify_with_artifact(request: ModelRequest) -> Any:
    text = request.messages[-1]["content"][0]["content"]
    art = text.split("artifact_id=")[1].split(" ")[0]
    return call("message_notify_user", message="Here is your workout", artifact_id=art)


def _turn_script() -> list[Any]:
    return [
        call("generate_workout", workout=chest_workout()),
        _notify_with_artifact,
        call("idle", reason="done"),
    ]


class TimedModel(ScriptedModel):
    """Records when each model call starts and ends, so the rest of the turn can be measured."""

    def __init__(self, latency: float = 0.0) -> None:
        super().__init__([], latency=latency)
        self.spans: list[tuple[float, float]] = []

    async def complete(self, request: ModelRequest, on_text_delta: Any = None) -> Any:
        start = time.perf_counter()
        response = await super().complete(request, on_text_delta)
        self.spans.append((start, time.perf_counter()))
        return response


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _overhead(
    store: Any, counting: dict[str, bool] | None = None
) -> tuple[list[float], list[float], list[int]]:
    """Per-iteration overhead (ms) from one model call's end to the next call's start (or the
    turn's end), per-turn setup (ms) before the first model call, and the iterations per turn.
    `counting["on"]` is False between turns (the bench's own writes are not the turn's)."""
    model = TimedModel()
    selector = FakeSelector([selection("category_goals"), selection("workout_history", days_back=14)])
    h = make_harness(model=model, store=store, selector=selector, fetcher=FakeFetcher())
    per_iteration: list[float] = []
    setup: list[float] = []
    iterations: list[int] = []
    session_id: str | None = None
    for _ in range(TURNS):
        model.steps = _turn_script()
        model.spans.clear()
        started = time.perf_counter()
        result = await h.loop.run_turn("bench-user", "give me a chest workout", session_id=session_id)
        ended = time.perf_counter()
        session_id = result.session_id
        if counting is not None:
            counting["on"] = False
        await store.update_session(session_id, status="active")
        if counting is not None:
            counting["on"] = True
        setup.append((model.spans[0][0] - started) * 1000)
        ends = [span[1] for span in model.spans]
        starts = [span[0] for span in model.spans[1:]] + [ended]
        per_iteration.extend((b - a) * 1000 for a, b in zip(ends, starts, strict=True))
        iterations.append(result.iterations)
    return per_iteration, setup, iterations


def _line(label: str, per_iteration: list[float], setup: list[float]) -> str:
    return (
        f"{label}: per-iteration overhead p50 {statistics.median(per_iteration):.2f} ms, "
        f"p95 {_pct(per_iteration, 0.95):.2f} ms; turn setup p50 {statistics.median(setup):.2f} ms "
        f"({len(per_iteration)} iterations, {TURNS} turns, growing session)"
    )


async def _memory_lines() -> list[str]:
    store = InMemorySessionStore()
    per_iteration, setup, _ = await _overhead(store)
    reads_per_turn = store.calls["read_events"] / TURNS
    return [
        _line("in-memory store", per_iteration, setup),
        f"in-memory store: read_events calls per turn {reads_per_turn:.1f} (3 iterations each)",
    ]


async def _dynamo_lines() -> list[str]:
    from trainer.store.sessions import DynamoSessionStore

    async with moto_tables() as settings:
        store = DynamoSessionStore(settings)
        operations: Counter[str] = Counter()
        counting = {"on": True}

        def count(model: Any = None, **_: Any) -> None:
            if counting["on"]:
                operations[model.name if model is not None else "?"] += 1

        store.table._client.meta.events.register("before-call.dynamodb", count)
        per_iteration, setup, iterations = await _overhead(store, counting)
        total = sum(operations.values())
        breakdown = ", ".join(f"{name} {n / TURNS:.1f}" for name, n in operations.most_common())
        return [
            _line("DynamoDB (moto)", per_iteration, setup),
            f"DynamoDB (moto): {total / sum(iterations):.2f} requests per iteration (aim <= 5); "
            f"{total / TURNS:.1f} per turn of {statistics.mean(iterations):.0f} iterations: {breakdown}",
            f"DynamoDB (moto): Query calls per turn {operations['Query'] / TURNS:.1f} "
            "(the history read once per turn, after the highest sequence number)",
        ]


async def _one_session(h: Any, user: str) -> None:
    await h.loop.run_turn(user, "chest workout")


async def _concurrency_lines() -> list[str]:
    single_model = TimedModel(latency=MODEL_LATENCY)
    single_model.steps = _turn_script()
    single = make_harness(model=single_model)
    started = time.perf_counter()
    await _one_session(single, "solo")
    one = time.perf_counter() - started

    class PerUserModel(TimedModel):
        def __init__(self) -> None:
            super().__init__(latency=MODEL_LATENCY)
            self.scripts: dict[str, list[Any]] = {}

        def _next_step(self, request: ModelRequest) -> Any:
            script = self.scripts.setdefault(str(request.user_id), _turn_script())
            step = script.pop(0) if script else call("idle", reason="done")
            return step(request) if callable(step) and not isinstance(step, type(call("x"))) else step

    many_model = PerUserModel()
    many = make_harness(model=many_model)
    started = time.perf_counter()
    await asyncio.gather(*(_one_session(many, f"user-{i}") for i in range(CONCURRENT_SESSIONS)))
    twenty = time.perf_counter() - started
    return [
        f"concurrency: 1 session {one * 1000:.0f} ms, {CONCURRENT_SESSIONS} concurrent sessions "
        f"{twenty * 1000:.0f} ms (ratio {twenty / one:.2f}x, limit 2x), "
        f"model latency {MODEL_LATENCY * 1000:.0f} ms per call"
    ]


def run() -> list[str]:
    async def main() -> list[str]:
        lines = await _memory_lines()
        lines += await _dynamo_lines()
        lines += await _concurrency_lines()
        return lines

    return asyncio.run(main())
