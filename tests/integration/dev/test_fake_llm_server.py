"""The loopback fake LLM server: wire shapes, auth, strictness, cache simulation, failures."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from trainer_dev.local.fake_llm import FakeLLMServer, PromptCache, prompt_segments

EPHEMERAL = {"type": "ephemeral"}


def _body(messages: list[dict[str, Any]], *, system_text: str = "S" * 20_000, **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-haiku-4-5",
        "max_tokens": 8192,
        "tools": [
            {"name": "idle", "input_schema": {"type": "object"}},
            {"name": "message_notify_user", "input_schema": {"type": "object"}, "cache_control": EPHEMERAL},
        ],
        "system": [
            {"type": "text", "text": system_text, "cache_control": EPHEMERAL},
            {"type": "text", "text": "<user_data>U</user_data>", "cache_control": EPHEMERAL},
        ],
        "messages": messages,
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        **extra,
    }


def _with_breakpoint_on_last(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = json.loads(json.dumps(messages))
    last = out[-1]
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    last["content"][-1]["cache_control"] = EPHEMERAL
    return out


def _events(payload: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in payload.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


@pytest.fixture
def server():
    with FakeLLMServer(chunk_chars=5) as running:
        yield running


HEADERS = {"x-api-key": "k", "anthropic-version": "2026-10-21"}


def test_streaming_response_has_the_sdk_event_sequence(server: FakeLLMServer) -> None:
    body = _body([{"role": "user", "content": "Give me a workout"}], stream=True)
    response = httpx2.post(f"{server.base_url}/v1/messages", json=body, headers=HEADERS)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.text)
    names = [name for name, _ in events]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    deltas = [data["delta"]["partial_json"] for name, data in events if name == "content_block_delta"]
    assert len(deltas) > 5
    block = events[1][1]["content_block"]
    assert block["type"] == "tool_use" and block["name"] == "generate_workout"
    assert json.loads("".join(deltas))["workout"]["exercises"]
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert events[0][1]["message"]["usage"]["cache_creation_input_tokens"] > 0


def test_json_response_and_bearer_auth(server: FakeLLMServer) -> None:
    body = _body([{"role": "user", "content": "Give me a workout"}])
    response = httpx2.post(f"{server.base_url}/v1/messages", json=body, headers={"authorization": "Bearer k"})

    message = response.json()
    assert message["type"] == "message"
    assert message["content"][0]["type"] == "tool_use"
    assert message["stop_reason"] == "tool_use"
    assert server.requests[-1].headers["authorization"] == "Bearer k"


def test_missing_credentials_and_sampling_params_are_rejected(server: FakeLLMServer) -> None:
    body = _body([{"role": "user", "content": "hi"}])
    assert httpx2.post(f"{server.base_url}/v1/messages", json=body).status_code == 401
    for param in ("temperature", "top_p", "top_k"):
        response = httpx2.post(f"{server.base_url}/v1/messages", json={**body, param: 0.5}, headers=HEADERS)
        assert response.status_code == 400
        assert response.json()["error"]["type"] == "invalid_request_error"


def test_injected_status_failure_then_success(server: FakeLLMServer) -> None:
    server.fail_next_with_status = [529]
    body = _body([{"role": "user", "content": "hi"}])
    first = httpx2.post(f"{server.base_url}/v1/messages", json=body, headers=HEADERS)
    second = httpx2.post(f"{server.base_url}/v1/messages", json=body, headers=HEADERS)
    assert first.status_code == 529 and first.json()["error"]["type"] == "overloaded_error"
    assert second.status_code == 200


def test_injected_stream_error_event(server: FakeLLMServer) -> None:
    server.fail_next_stream_with_error = True
    body = _body([{"role": "user", "content": "Give me a workout"}], stream=True)
    events = _events(httpx2.post(f"{server.base_url}/v1/messages", json=body, headers=HEADERS).text)
    assert events[-1][0] == "error"
    assert "message_stop" not in [name for name, _ in events]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_cache_reads_grow_with_the_conversation_and_writes_only_the_new_part() -> None:
    clock = Clock()
    cache = PromptCache(clock)
    turn1 = [{"role": "user", "content": "Give me a workout " + "x" * 400}]
    first = cache.account(_body(_with_breakpoint_on_last(turn1)), 4096)
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation_input_tokens > 5000
    assert first.input_tokens == 0

    turn2 = [
        *turn1,
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "idle", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "y" * 800}]},
    ]
    clock.now = 10
    second = cache.account(_body(_with_breakpoint_on_last(turn2)), 4096)
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert 200 < second.cache_creation_input_tokens < 300

    clock.now = 10 + 301
    expired = cache.account(_body(_with_breakpoint_on_last(turn2)), 4096)
    assert expired.cache_read_input_tokens == 0


def test_prefixes_below_the_minimum_are_not_cached() -> None:
    cache = PromptCache(Clock())
    body = _body(_with_breakpoint_on_last([{"role": "user", "content": "hi"}]), system_text="short")
    first = cache.account(body, 4096)
    second = cache.account(body, 4096)
    assert first.cache_creation_input_tokens == 0 and second.cache_read_input_tokens == 0
    assert second.input_tokens == first.input_tokens > 0


ONE_HOUR = {"type": "ephemeral", "ttl": "1h"}


def _session_body(
    user: str, blocks: int = 1, *, static: dict[str, Any] = EPHEMERAL, model: str = "claude-haiku-4-5"
) -> dict[str, Any]:
    """A request as the context builder makes it: breakpoints on the last tool, the system prompt,
    the user's data and the last block; `static` is the cache_control of the first two."""
    content: list[dict[str, Any]] = [{"type": "text", "text": f"{user} says {n} " * 8} for n in range(blocks)]
    body = _body(_with_breakpoint_on_last([{"role": "user", "content": content}]), model=model)
    body["tools"][-1]["cache_control"] = static
    body["system"][0]["cache_control"] = static
    body["system"][1]["text"] = f"<user_data>{user}</user_data>"
    return body


def _prefix_tokens(body: dict[str, Any], blocks: int) -> int:
    return sum(len(s.text) for s in prompt_segments(body)[:blocks]) // 4


def _shared_tokens(body: dict[str, Any]) -> int:
    """Tokens of the tools and the system prompt: the prefix every session shares."""
    return _prefix_tokens(body, 3)


def test_one_hour_breakpoints_are_billed_as_one_hour_writes_and_the_rest_as_five_minute_ones() -> None:
    body = _session_body("ana", static=ONE_HOUR)
    usage = PromptCache(Clock()).account(body, 1024)
    assert usage.cache_creation_1h_input_tokens == _shared_tokens(body)
    assert usage.cache_creation_input_tokens > usage.cache_creation_1h_input_tokens
    assert usage.cache_read_input_tokens == 0


def test_a_new_session_reads_the_prefix_another_session_wrote() -> None:
    clock = Clock()
    cache = PromptCache(clock)
    first = cache.account(_session_body("ana", blocks=3), 4096)
    clock.now = 120
    other = _session_body("ben", blocks=2)
    second = cache.account(other, 4096)

    assert first.cache_read_input_tokens == 0
    assert second.cache_read_input_tokens == _shared_tokens(other)
    assert second.cache_creation_input_tokens > 0 and second.input_tokens == 0


def test_entries_belong_to_one_model() -> None:
    cache = PromptCache(Clock())
    cache.account(_session_body("ana"), 1024)
    usage = cache.account(_session_body("ana", model="claude-sonnet-4-6"), 1024)
    assert usage.cache_read_input_tokens == 0


def test_a_read_refreshes_the_entry_it_hits() -> None:
    clock = Clock()
    cache = PromptCache(clock)
    body = _session_body("ana")
    cache.account(body, 4096)
    for now in (240, 480, 720):
        clock.now = now
        assert cache.account(body, 4096).cache_read_input_tokens > 0
    clock.now = 720 + 300
    assert cache.account(body, 4096).cache_read_input_tokens == 0


def test_one_hour_entries_outlive_five_minute_ones() -> None:
    clock = Clock()
    five_minutes, one_hour = PromptCache(clock), PromptCache(clock)
    five_minutes.account(_session_body("ana"), 4096)
    one_hour.account(_session_body("ana", static=ONE_HOUR), 4096)
    clock.now = 1800

    assert five_minutes.account(_session_body("ben"), 4096).cache_read_input_tokens == 0
    again = _session_body("ana", static=ONE_HOUR)
    assert one_hour.account(again, 4096).cache_read_input_tokens == _shared_tokens(again)
    clock.now = 1800 + 3600
    assert one_hour.account(_session_body("ben", static=ONE_HOUR), 4096).cache_read_input_tokens == 0


def test_a_read_looks_back_twenty_blocks_from_a_breakpoint() -> None:
    cache = PromptCache(Clock())
    written = cache.account(_session_body("ana", blocks=5), 4096).cache_creation_input_tokens
    within = cache.account(_session_body("ana", blocks=5 + 19), 4096)
    beyond = cache.account(_session_body("ana", blocks=5 + 19 + 20), 4096)

    assert within.cache_read_input_tokens == written
    assert beyond.cache_read_input_tokens == _prefix_tokens(_session_body("ana"), 4)


def test_a_changed_tool_choice_invalidates_the_messages_only() -> None:
    cache = PromptCache(Clock())
    body = _session_body("ana")
    cache.account(body, 4096)
    usage = cache.account({**body, "tool_choice": {"type": "auto"}}, 4096)
    assert usage.cache_read_input_tokens == _prefix_tokens(body, 4)
    assert usage.cache_creation_input_tokens > 0


@pytest.mark.parametrize(
    ("controls", "message"),
    [
        ([EPHEMERAL] * 5, "A maximum of 4 blocks with cache_control may be provided. Found 5."),
        ([EPHEMERAL, ONE_HOUR], "must not come after a ttl='5m'"),
        ([{"type": "ephemeral", "ttl": "2h"}], "Input should be '5m' or '1h'"),
        ([{"type": "persistent"}], "Input should be 'ephemeral'"),
    ],
)
def test_breakpoints_the_api_refuses_are_a_400(
    server: FakeLLMServer, controls: list[dict[str, Any]], message: str
) -> None:
    body = _body([{"role": "user", "content": "hi"}])
    body["tools"][-1].pop("cache_control")
    body["system"][0].pop("cache_control")
    body["system"][1].pop("cache_control")
    body["messages"] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"b{n}", "cache_control": c} for n, c in enumerate(controls)
            ],
        }
    ]
    response = httpx2.post(f"{server.base_url}/v1/messages", json=body, headers=HEADERS)
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]
