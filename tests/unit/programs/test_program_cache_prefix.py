"""Each program agent's static prefix (tools, system prompt, context: the same for every user and
every call) reaches the default model's minimum cacheable length, so a week's calls after the first,
and every other user's, read it from the cache. Requests are built by the Anthropic adapter from the
packaged prompts and the agents' own context, and priced by the loopback fake's prompt cache (the
model's minimum and tokenizer factor), no I/O."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from trainer.agents.definitions import AgentDefinition, ContextProvider, ContextRequest
from trainer.agents.wire import render_context
from trainer.programs.agents import FITNESS_PLAN, MICROCYCLE, WEEK_MESSAGES, WORKOUT_MESSAGE
from trainer.providers.anthropic import request_params, structured_request
from trainer.providers.models import get_model
from trainer.providers.ports import AgentRequest
from trainer.settings import Settings
from trainer.store.prompt_files import read_prompt_files
from trainer_dev.local.fake_llm import PromptCache


def _request(definition: AgentDefinition, model_id: str, input_text: str) -> AgentRequest:
    ask = ContextRequest(user_id=None, input=None, now=datetime(2026, 3, 2, tzinfo=UTC))
    context = [
        render_context(source.name, asyncio.run(source.build(ask)))
        for source in definition.context
        if isinstance(source, ContextProvider)
    ]
    return AgentRequest(
        agent=definition.name,
        system=read_prompt_files()[definition.prompt_id],
        context=context,
        input={},
        input_text=input_text,
        output=definition.output,
        model_id=model_id,
        max_tokens=definition.max_tokens,
        tools=definition.toolset.specs(),
    )


@pytest.mark.parametrize(
    "definition", [FITNESS_PLAN, MICROCYCLE, WEEK_MESSAGES, WORKOUT_MESSAGE], ids=lambda d: d.name
)
def test_a_second_users_call_reads_the_agents_static_prefix_from_the_cache(
    definition: AgentDefinition,
) -> None:
    settings = Settings()
    model_id = settings.model if definition.model_role == "main" else settings.light_model
    model = get_model(model_id)
    cache = PromptCache(clock=lambda: 0.0)
    reads = []
    for user_input in ('<agent_input>{"user": 1}</agent_input>', '<agent_input>{"user": 2}</agent_input>'):
        params = request_params(structured_request(_request(definition, model_id, user_input)))
        usage = cache.account(params, model.min_cacheable_tokens, model.tokenizer_factor)
        reads.append(usage.cache_read_input_tokens)
    assert reads[0] == 0 and reads[1] >= model.min_cacheable_tokens
