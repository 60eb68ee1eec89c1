"""Prompt-cache effectiveness across sessions that share one organisation's cache.

The real chat turn (the chat agent's tools, the context builder with its four cache
breakpoints, an in-memory session store) calls the real AnthropicAgentModel (the anthropic SDK over
HTTP) against one FakeLLMServer. Its prompt cache is shared by every request, as Anthropic's is by an
organisation: keyed by the prefix up to each breakpoint, refreshed on read, 5 minutes or 1 hour as
the breakpoint says, nothing below the model's minimum cacheable length, a 20-block lookback. The
offline policy decides the tool calls. Users differ as in production (user data and knowledge
through the real formatters). A manual clock stands in for time: nothing sleeps.

For each TRAINER_PROMPT_CACHE_TTL (5m, 1h), one server and three sessions of different users:
session 1 on an empty cache (its first turn is the cold first turn), session 2 two minutes after it
(the warm first turn), session 3 after 30 quiet minutes. A turn's ratio is its cost over the cost of
the same turn with every prompt token at the input price. The 5-minute run is repeated on the older
Claude Haiku 4.5 for the cost of a turn in cents on each (the fake counts tokens with each model's
tokenizer and caches from each model's minimum)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from trainer.providers.anthropic import AnthropicAgentModel
from trainer.providers.models import DEFAULT_MODEL, cost_cents, uncached_cost_cents
from trainer.providers.ports import ModelRequest, ModelResponse, TextDeltaCallback, Usage
from trainer.settings import Settings
from trainer_dev.local.fake_llm import FakeLLMServer, ResultJournal, prompt_segments

MODEL = DEFAULT_MODEL
COMPARED_MODEL = "claude-haiku-4-5"
WARM_TARGET = 0.30
LATER_TARGET = 0.13
"""Set for turns of two calls (an action, then the model's reply). A turn a final call ends is one call
(trainer.agents.closing): cheaper in cents, but the call it saves was its best-cached one, so its ratio
is higher; what shows the cache working on such a turn is LATER_READ_TARGET."""
LATER_READ_TARGET = 0.95
"""Every later turn reads at least this share of its prompt from the cache: all but what the turn
before it added (its answer and results) and this turn's message."""
BETWEEN_TURNS_S = 40.0
WARM_GAP_S = 120.0
QUIET_GAP_S = 1800.0
SESSIONS = (
    (
        "Give me a chest workout for today",
        "Swap the push-up for something else",
        "Make the air squat more reps",
        "How long should I rest between sets?",
        "Remove the second exercise",
    ),
    (
        "Plan a quick workout for my hotel room",
        "Swap the air squat for something else",
        "Give the push-up more reps",
        "Should I stretch before training?",
        "Remove the first exercise",
    ),
    ("Give me a leg workout for today", "How long should I rest between sets?"),
)


class ManualClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class RecordingModel:
    """Delegates to the real adapter and keeps every response's usage, by (session, turn)."""

    inner: AnthropicAgentModel
    model_id: str = MODEL
    turn: tuple[int, int] = (0, 0)
    calls: list[tuple[tuple[int, int], Usage]] = field(default_factory=list)
    provider: Any = "anthropic"

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        response = await self.inner.complete(request, on_text_delta)
        self.calls.append((self.turn, response.usage))
        return response

    def ratio(self, *turns: tuple[int, int]) -> float:
        usages = [u for t, u in self.calls if t in turns]
        uncached = sum(uncached_cost_cents(self.model_id, u) for u in usages)
        return sum(cost_cents(self.model_id, u) for u in usages) / uncached if uncached else 0.0

    def read_share(self, *turns: tuple[int, int]) -> float:
        usages = [u for t, u in self.calls if t in turns]
        prompt = sum(u.prompt_tokens for u in usages)
        return sum(u.cache_read_input_tokens for u in usages) / prompt if prompt else 0.0

    def cents_per_turn(self) -> float:
        turns = {t for t, _ in self.calls}
        return sum(cost_cents(self.model_id, u) for _, u in self.calls) / len(turns) if turns else 0.0


@dataclass
class Figures:
    ttl: str
    shared_tokens: int
    cold_first: float
    warm_first: float
    later: list[float]
    later_read: list[float]
    """Per later turn, the share of its prompt read from the cache."""
    after_quiet: float
    read_share: float
    calls: int
    model: str = MODEL
    cents_per_turn: float = 0.0


async def measure(ttl: Literal["5m", "1h"], model_id: str = MODEL) -> Figures:
    """Three sessions of three users against one fake server, with TRAINER_PROMPT_CACHE_TTL=ttl."""
    from trainer_dev.testing.memory_store import InMemorySessionStore
    from trainer_dev.testing.trainees import ana, another, ben, trainee_loop

    clock = ManualClock()
    journal = ResultJournal()
    trainees = [ana(), ben(), another(ana(), 3)]
    with FakeLLMServer(api_key="bench-key", clock=clock, journal=journal) as server:
        settings = Settings.model_validate(
            {
                "ANTHROPIC_API_KEY": "bench-key",
                "ANTHROPIC_BASE_URL": server.base_url,
                "TRAINER_MODEL": model_id,
                "TRAINER_PROMPT_CACHE_TTL": ttl,
            }
        )
        model = RecordingModel(AnthropicAgentModel(settings), model_id)
        store = InMemorySessionStore()
        loop = trainee_loop(model, trainees, settings, store=store, hooks=journal)
        for number, (trainee, messages) in enumerate(zip(trainees, SESSIONS, strict=True)):
            clock.now += (0.0, WARM_GAP_S, QUIET_GAP_S)[number]
            session_id: str | None = None
            for turn, message in enumerate(messages):
                if session_id is not None:
                    trainee.current_workout = await store.get_state(session_id, "current_workout")
                model.turn = (number, turn)
                result = await loop.run_turn(trainee.user_id, message, session_id=session_id, model=model_id)
                session_id = result.session_id
                clock.now += BETWEEN_TURNS_S
        first_body = server.anthropic_requests()[0].body
    segments = prompt_segments(first_body)
    second_breakpoint = [i for i, s in enumerate(segments) if s.cache_control][1]
    shared = (
        int(sum(len(s.text) for s in segments[: second_breakpoint + 1]) * tokenizer_factor(model_id)) // 4
    )
    later_turns = [(s, t) for s in (0, 1) for t in range(1, len(SESSIONS[s]))]
    later = [model.ratio(turn) for turn in later_turns]
    after_first = [u for _, u in model.calls[1:]]
    prompt = sum(u.prompt_tokens for u in after_first)
    read = sum(u.cache_read_input_tokens for u in after_first)
    return Figures(
        ttl=ttl,
        shared_tokens=shared,
        cold_first=model.ratio((0, 0)),
        warm_first=model.ratio((1, 0)),
        later=later,
        later_read=[model.read_share(turn) for turn in later_turns],
        after_quiet=model.ratio((2, 0)),
        read_share=read / prompt if prompt else 0.0,
        calls=len(model.calls),
        model=model_id,
        cents_per_turn=model.cents_per_turn(),
    )


def tokenizer_factor(model_id: str) -> float:
    from trainer.providers.models import get_model

    return get_model(model_id).tokenizer_factor


def _verdict(value: float, target: float) -> str:
    return f"(meets <= {target:.2f})" if value <= target else f"(MISSES <= {target:.2f})"


def report(figures: Figures) -> list[str]:
    later = f"{min(figures.later):.2f}-{max(figures.later):.2f}"
    rows = [
        ("cold first turn (empty cache)", f"ratio {figures.cold_first:.2f}", ""),
        (
            "warm first turn (another user's session 2 min before)",
            f"ratio {figures.warm_first:.2f}",
            _verdict(figures.warm_first, WARM_TARGET),
        ),
        ("later turns (sessions 1 and 2)", f"ratio {later}", _verdict(max(figures.later), LATER_TARGET)),
        (
            "later turns: share of the prompt read from cache",
            f"{min(figures.later_read):.1%} at least",
            f"(meets >= {LATER_READ_TARGET:.0%})"
            if min(figures.later_read) >= LATER_READ_TARGET
            else f"(MISSES >= {LATER_READ_TARGET:.0%})",
        ),
        ("first turn after 30 quiet minutes", f"ratio {figures.after_quiet:.2f}", ""),
    ]
    return [
        f"{figures.model}, TRAINER_PROMPT_CACHE_TTL={figures.ttl}: {figures.calls} model calls over 3 "
        f"sessions of 3 users; cache-read share of input after the first call {figures.read_share:.1%}; "
        f"{figures.cents_per_turn:.4f} cents per turn",
        *(f"  {label:<54} {value:<15} {verdict}".rstrip() for label, value, verdict in rows),
    ]


async def _main() -> list[str]:
    five, hour = await measure("5m"), await measure("1h")
    older = await measure("5m", COMPARED_MODEL)
    lines = [
        f"model {MODEL}; shared prefix (tools + system prompt) ~{five.shared_tokens} tokens; "
        "ratio = turn cost / same turn uncached",
    ]
    return lines + report(five) + report(hour) + report(older)


def run() -> list[str]:
    return asyncio.run(_main())


if __name__ == "__main__":
    for line in run():
        print(line)
