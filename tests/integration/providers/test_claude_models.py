"""The Claude 5.5 family through the real anthropic SDK against the loopback fake, which answers per
model as the real API does (trainer.providers.models): what each model rejects with a 400 (and that
the adapter never sends it), thinking blocks and their round trip, the text between tool calls, a
refusal, caching from the model's minimum and the tokenizer factor."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from trainer.providers.anthropic import AnthropicAgentModel
from trainer.providers.ports import ModelError, ModelRequest
from trainer.settings import Settings
from trainer_dev.local.fake_llm import (
    BINDING_BETA,
    FORCED_TOOL_CHOICE_ERROR,
    PREFILL_ERROR,
    UPDATES_BETA,
    FakeLLMServer,
)

KEY = "sk-ant-models-test"
CLAUDE_5_5 = ("claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5")
NOTIFY_TOOL = {
    "name": "message_notify_user",
    "description": "Tell the user something",
    "input_schema": {"type": "object", "properties": {"message": {"type": "string"}}},
}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(api_key=KEY, chunk_chars=9) as running:
        yield running


def _model(server: FakeLLMServer) -> AnthropicAgentModel:
    return AnthropicAgentModel(Settings(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=server.base_url))


def _request(model: str, **overrides: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": model,
        "system": [{"type": "text", "text": "You are a trainer.", "cache_control": {"type": "ephemeral"}}],
        "tools": [NOTIFY_TOOL],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Give me a push workout"}]}],
        "effort": "low",
    }
    return ModelRequest(**{**values, **overrides})


def _raw(server: FakeLLMServer, body: dict[str, Any], **headers: str) -> httpx2.Response:
    """A request as a client other than ours might send it."""
    base: dict[str, Any] = {
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "hello"}],
        "tools": [NOTIFY_TOOL],
    }
    return httpx2.post(
        f"{server.base_url}/v1/messages",
        json={**base, **body},
        headers={"x-api-key": KEY, "anthropic-version": "2023-06-01", **headers},
    )


def _error(response: httpx2.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


# --- what the fake rejects, as the real API does --------------------------------------------------


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5"])
@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "message_notify_user"}])
def test_forced_tool_choice_is_a_400_on_sonnet_and_opus(
    server: FakeLLMServer, model: str, choice: dict[str, Any]
) -> None:
    assert _error(_raw(server, {"model": model, "tool_choice": choice})) == FORCED_TOOL_CHOICE_ERROR


def test_haiku_5_5_accepts_forced_tool_choice_with_adaptive_thinking(server: FakeLLMServer) -> None:
    body = {"model": "claude-haiku-5-5", "tool_choice": {"type": "any"}, "thinking": {"type": "adaptive"}}
    assert _raw(server, body).status_code == 200


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        ("claude-opus-5-5", {"type": "disabled"}),
        ("claude-sonnet-5-5", {"type": "disabled"}),
        ("claude-haiku-5-5", {"type": "between_tools"}),
        ("claude-opus-5-5", {"type": "between_tools"}),
        ("claude-haiku-5-5", {"type": "enabled", "budget_tokens": 2048}),
        ("claude-sonnet-5-5", {"type": "enabled", "budget_tokens": 2048}),
    ],
)
def test_thinking_types_a_model_rejects_are_a_400(
    server: FakeLLMServer, model: str, thinking: dict[str, Any]
) -> None:
    message = _error(_raw(server, {"model": model, "thinking": thinking}))
    assert f'"thinking.type.{thinking["type"]}" is not supported for this model' in message


def test_thinking_off_where_allowed_but_not_at_the_highest_efforts(server: FakeLLMServer) -> None:
    haiku_off = {"model": "claude-haiku-5-5", "thinking": {"type": "disabled"}}
    assert _raw(server, {**haiku_off, "output_config": {"effort": "low"}}).status_code == 200
    assert "xhigh" in _error(_raw(server, {**haiku_off, "output_config": {"effort": "xhigh"}}))
    sonnet_between = {"model": "claude-sonnet-5-5", "thinking": {"type": "between_tools"}}
    assert _raw(server, sonnet_between).status_code == 200


@pytest.mark.parametrize("model", CLAUDE_5_5)
@pytest.mark.parametrize("param", ["temperature", "top_p", "top_k"])
def test_sampling_parameters_are_a_400(server: FakeLLMServer, model: str, param: str) -> None:
    assert param in _error(_raw(server, {"model": model, param: 0.5}))


@pytest.mark.parametrize("model", CLAUDE_5_5)
def test_an_assistant_prefill_is_a_400(server: FakeLLMServer, model: str) -> None:
    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "{"}]
    assert _error(_raw(server, {"model": model, "messages": messages})) == PREFILL_ERROR


def test_the_updates_display_needs_its_beta_header(server: FakeLLMServer) -> None:
    body = {"model": "claude-sonnet-5-5", "thinking": {"type": "adaptive", "display": "updates"}}
    assert UPDATES_BETA in _error(_raw(server, body))
    assert _raw(server, body, **{"anthropic-beta": UPDATES_BETA}).status_code == 200


# --- what the adapter sends each model, and the answers ---------------------------------------------


@pytest.mark.parametrize("model", CLAUDE_5_5)
async def test_a_tool_call_on_every_5_5_model_with_its_thinking_block(
    server: FakeLLMServer, model: str
) -> None:
    since = len(server.requests)
    response = await _model(server).complete(_request(model))
    assert response.tool_call is not None
    (thinking,) = response.preamble
    assert thinking["type"] == "thinking" and thinking["signature"]
    body = server.requests[since].body
    assert body["thinking"]["type"] == "adaptive" and body["output_config"] == {"effort": "low"}
    forced = model == "claude-haiku-5-5"
    expected = {"type": "any", "disable_parallel_tool_use": True}
    assert body["tool_choice"] == (
        expected if forced else {"type": "auto", "disable_parallel_tool_use": True}
    )
    assert not {"temperature", "top_p", "top_k"} & set(body)


async def test_haiku_4_5_gets_no_thinking_and_no_effort(server: FakeLLMServer) -> None:
    since = len(server.requests)
    response = await _model(server).complete(_request("claude-haiku-4-5"))
    assert response.tool_call is not None and response.preamble == []
    body = server.requests[since].body
    assert "thinking" not in body and "output_config" not in body


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5"])
async def test_the_text_between_tool_calls_reaches_the_user_on_sonnet_and_opus(
    server: FakeLLMServer, model: str
) -> None:
    """Their inter-tool text comes inside thinking blocks: the chat asks for the `updates` display
    (beta) and forwards it like text."""
    since = len(server.requests)
    deltas: list[tuple[str, str]] = []

    async def on_delta(tool: str, text: str) -> None:
        deltas.append((tool, text))

    response = await _model(server).complete(_request(model), on_delta)
    recorded = server.requests[since]
    assert recorded.body["thinking"]["display"] == "updates"
    assert UPDATES_BETA in recorded.headers["anthropic-beta"].split(",")
    update = response.preamble[0]["thinking"]
    assert update and "".join(text for _, text in deltas).startswith(update)
    assert {tool for tool, _ in deltas} <= {"message_notify_user"}


async def test_haiku_keeps_its_thinking_hidden(server: FakeLLMServer) -> None:
    deltas: list[str] = []

    async def on_delta(tool: str, text: str) -> None:
        deltas.append(text)

    response = await _model(server).complete(_request("claude-haiku-5-5"), on_delta)
    assert response.preamble[0]["thinking"] == ""
    assert "display" not in server.requests[-1].body["thinking"]


def _follow_up(request: ModelRequest, preamble: list[dict[str, Any]], call_id: str) -> ModelRequest:
    result = {"type": "tool_result", "tool_use_id": call_id, "content": "ok"}
    use = {"type": "tool_use", "id": call_id, "name": "message_notify_user", "input": {"message": "hi"}}
    messages = [
        *request.messages,
        {"role": "assistant", "content": [*preamble, use]},
        {"role": "user", "content": [result]},
    ]
    return _request(request.model, messages=messages)


@pytest.mark.parametrize("model", CLAUDE_5_5)
async def test_thinking_blocks_round_trip_and_a_dropped_or_altered_one_is_a_400(
    server: FakeLLMServer, model: str
) -> None:
    adapter = _model(server)
    request = _request(model)
    first = await adapter.complete(request)
    assert first.tool_call is not None
    call_id = first.tool_call.id
    # the call with its thinking block sent back unchanged: accepted
    second = await adapter.complete(_follow_up(request, first.preamble, call_id))
    assert second.tool_call is not None or second.text
    # dropped
    with pytest.raises(ModelError, match=r"HTTP 400.*thinking blocks"):
        await adapter.complete(_follow_up(request, [], call_id))
    # altered
    altered = copy.deepcopy(first.preamble)
    altered[0]["thinking"] = "something else"
    with pytest.raises(ModelError, match=r"HTTP 400.*Invalid `signature` in `thinking` block"):
        await adapter.complete(_follow_up(request, altered, call_id))


async def test_a_block_whose_prefix_changed_is_a_400_unless_the_request_drops_stale_blocks(
    server: FakeLLMServer,
) -> None:
    """A later turn replays the earlier turns' blocks (append-only, so the cache holds); if the prefix
    they were written after changed (here the system prompt), the chat adapter's drop_block setting
    lets the API drop them instead of refusing the request."""
    adapter = _model(server)
    request = _request("claude-haiku-5-5")
    first = await adapter.complete(request)
    assert first.tool_call is not None
    since = len(server.requests)
    later = _follow_up(request, first.preamble, first.tool_call.id)
    later.messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    later.messages.append({"role": "user", "content": [{"type": "text", "text": "Thanks, and tomorrow?"}]})
    later.system = [{"type": "text", "text": "You are a trainer. Today is Friday."}]
    assert (await adapter.complete(later)).tool_call is not None
    sent = server.requests[since]
    assert sent.body["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"}
    assert BINDING_BETA in sent.headers["anthropic-beta"]
    adapter_body = {k: v for k, v in sent.body.items() if k != "stream"}
    adapter_body["thinking"] = {"type": "adaptive"}
    message = _error(_raw(server, adapter_body))
    assert "The block is bound to a different conversation" in message


@pytest.mark.parametrize("model", CLAUDE_5_5)
async def test_a_refusal_is_an_answer_with_stop_reason_refusal(server: FakeLLMServer, model: str) -> None:
    server.refuse_next = 1
    response = await _model(server).complete(_request(model))
    assert response.stop_reason == "refusal"
    assert response.tool_call is None and response.text == ""
    assert response.raw["stop_details"]["type"] == "refusal"


async def test_a_cut_off_answer_has_stop_reason_max_tokens(server: FakeLLMServer) -> None:
    server.cut_next_at_max_tokens = 1
    response = await _model(server).complete(_request("claude-sonnet-5-5"))
    assert response.stop_reason == "max_tokens" and response.tool_call is None


# --- caching and token counts ---------------------------------------------------------------------


def _cached_request(model: str, system_chars: int) -> ModelRequest:
    system = [{"type": "text", "text": "x" * system_chars, "cache_control": {"type": "ephemeral"}}]
    return _request(model, system=system, tools=[])


async def test_5_5_models_cache_from_512_tokens(server: FakeLLMServer) -> None:
    """A ~700-token prefix: cached on Haiku 5.5 (minimum 512), not on Haiku 4.5 (minimum 4,096)."""
    server.cache.clear()
    adapter = _model(server)
    for model, cached in (("claude-haiku-5-5", True), ("claude-haiku-4-5", False)):
        request = _cached_request(model, 2_200)
        await adapter.complete(request)
        again = await adapter.complete(request)
        assert (again.usage.cache_read_input_tokens > 0) is cached, model


async def test_usage_counts_the_same_text_with_the_models_tokenizer(server: FakeLLMServer) -> None:
    server.cache.clear()
    adapter = _model(server)
    old = await adapter.complete(_cached_request("claude-haiku-4-5", 40_000))
    new = await adapter.complete(_cached_request("claude-haiku-5-5", 40_000))
    assert new.usage.prompt_tokens == pytest.approx(old.usage.prompt_tokens * 1.3, rel=0.01)
