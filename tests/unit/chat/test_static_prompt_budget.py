"""The chat agent's static prompt (its tool definitions and system prompt, the prefix every call of
every user reads from the cache) has a budget: each token of it is read on every model call, so at
Claude Haiku 5.5's cache-read price 1,000 more tokens cost about $0.0018 per daily user per month
(1.2 calls a turn, 150 turns a month: docs/capacity.md). A new tool or prompt section that does not
fit makes this test fail: trim (agents/tools.py `model_facing_schema`, the description rule in
tools/base.py) or raise the budget knowingly, with `make capacity` and `python -m bench cache` rerun.

A smaller prefix also makes the prompt cache's share of a turn's cost smaller (a turn's output and
new tokens cost the same cached or not): bench/bench_cache.py reports the later-turn ratio and holds
the share of each later turn's prompt read from the cache."""

from __future__ import annotations

from trainer.agents.tools import canonical_json
from trainer.chat.agent import CHAT
from trainer.providers.models import DEFAULT_MODEL
from trainer.store.prompt_files import read_prompt_files
from trainer_dev.local.fake_llm import static_prefix_tokens

STATIC_PROMPT_BUDGET = 14_100
"""Tokens of the tools and the system prompt on the default model, as the fake counts them. Lowered from
23,000 (22,763 used) when the prompt and the tools were put on a diet: the exercise schema and the muscle
list sent once (generate_workout) and named elsewhere, the sanity bounds the validator keeps left out of
the schemas, the turn-end protocol stated once, the framework prose and the tool catalogue out of the
prompt (13,874 with the `note` every tool that can finish now takes). A new tool comes with a trim
(tools/base.py: the rule for descriptions). Raised from 14,000 for health_summary (the phone's health
data, about 140 tokens after its own trim; 14,050 used): the other tools were already at their diet's
words, and the tool on every call costs about $0.0003 per daily user per month (docs/capacity.md,
regenerated with it: models $68.83 -> $69.15 per 1,000 daily users)."""


def static_prompt_tokens(model: str = DEFAULT_MODEL) -> int:
    body = {
        "model": model,
        "tools": CHAT.toolset.definitions(),
        "system": [{"type": "text", "text": read_prompt_files()["chat"]}],
        "messages": [],
    }
    return static_prefix_tokens(body)


def test_the_static_prompt_stays_within_its_budget() -> None:
    tokens = static_prompt_tokens()
    largest = sorted(CHAT.toolset.definitions(), key=lambda d: -len(canonical_json(d)))[:5]
    assert tokens <= STATIC_PROMPT_BUDGET, (
        f"tools + system prompt = {tokens:,} tokens > budget {STATIC_PROMPT_BUDGET:,}; "
        f"largest tools: {', '.join(d['name'] for d in largest)}"
    )


def test_the_count_is_the_fakes_usage_count_with_the_models_tokenizer() -> None:
    """The same text counts about 30% more on Haiku 5.5's tokenizer than on Haiku 4.5's."""
    newer, older = static_prompt_tokens(DEFAULT_MODEL), static_prompt_tokens("claude-haiku-4-5")
    assert 1.25 < newer / older < 1.35
    assert older > 10_000
