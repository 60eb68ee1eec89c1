"""The prompt-cache prefix every session shares: tools and system prompt, through the second cache
breakpoint, byte-identical for every user. Requests are made by the real agent loop, context builder
and Anthropic adapter (the SDK over httpx2.MockTransport, no I/O) and read back as sent."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from samtranslator.yaml_helper import yaml_parse
from trainer.chat.agent import CHAT
from trainer.providers.anthropic import AnthropicAgentModel, request_params
from trainer.providers.ports import ModelRequest
from trainer.settings import Settings
from trainer.store.prompt_files import read_prompt_files
from trainer_dev.testing.agent_harness import chest_workout
from trainer_dev.testing.trainees import Trainee, ana, ben, trainee_loop

MODEL = "claude-haiku-4-5"


def _sse(name: str, arguments: dict[str, Any], number: int) -> bytes:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": f"msg_{number}", "type": "message", "role": "assistant", "model": MODEL,
                        "content": [], "stop_reason": None, "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 1}},
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": {}},
        },
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": json.dumps(arguments)}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]  # fmt: skip
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


class ScriptedAPI:
    """The Messages endpoint: answers each request with the next scripted tool call and keeps the
    request bodies exactly as sent."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = list(calls)
        self.bodies: list[bytes] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(request.content)
        name, arguments = self.calls.pop(0) if self.calls else ("idle", {"reason": "done"})
        payload = _sse(name, arguments, len(self.bodies))
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=payload)


def cache_order(body: bytes) -> list[tuple[str, str]]:
    """The blocks of a sent request in the order the cache reads them (tools, system, messages),
    each serialised with the keys in the order they were sent."""
    sent = json.loads(body)
    blocks = [("tools", b) for b in sent.get("tools", [])] + [("system", b) for b in sent.get("system", [])]
    for message in sent["messages"]:
        blocks += [(message["role"], b) for b in message["content"]]
    return [(where, json.dumps(b, ensure_ascii=False, separators=(",", ":"))) for where, b in blocks]


def breakpoints(blocks: list[tuple[str, str]]) -> list[int]:
    return [i for i, (_, text) in enumerate(blocks) if "cache_control" in json.loads(text)]


def shared_prefix(body: bytes) -> str:
    """The model and every block through the second cache breakpoint."""
    blocks = cache_order(body)
    return json.loads(body)["model"] + "".join(text for _, text in blocks[: breakpoints(blocks)[1] + 1])


async def _sessions(settings: Settings, trainees: list[Trainee]) -> list[tuple[Trainee, bytes]]:
    """Two turns per user, in a session of their own, through one loop as one container runs it."""
    api = ScriptedAPI(
        [
            ("generate_workout", {"workout": chest_workout()}),
            ("message_notify_user", {"message": "Here is your workout."}),
            ("idle", {"reason": "delivered"}),
            ("message_ask_user", {"question": "Heavier next time?"}),
        ]
        * len(trainees)
    )
    model = AnthropicAgentModel(settings, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api)))
    current: list[Trainee] = []
    loop = trainee_loop(
        model,
        trainees,
        settings,
        clock=lambda: datetime.combine(current[-1].today, time(9, 30), tzinfo=UTC),
    )
    sent: list[tuple[Trainee, bytes]] = []
    for trainee in trainees:
        current.append(trainee)
        first = await loop.run_turn(trainee.user_id, "Give me a chest workout for today", model=MODEL)
        await loop.run_turn(trainee.user_id, "Make the bench press heavier", session_id=first.session_id)
        sent += [(trainee, body) for body in api.bodies[len(sent) :]]
    return sent


def _settings(ttl: str = "5m") -> Settings:
    """A loopback base URL, which the mock transport answers for: model requests are off in tests."""
    return Settings.model_validate(
        {
            "ANTHROPIC_API_KEY": "sk-test",
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
            "TRAINER_MODEL": MODEL,
            "TRAINER_PROMPT_CACHE_TTL": ttl,
        }
    )


@pytest.mark.parametrize("ttl", ["5m", "1h"])
async def test_tools_and_system_prompt_are_byte_identical_for_every_user(ttl: str) -> None:
    sent = await _sessions(_settings(ttl), [ana(), ben()])

    prefixes = {shared_prefix(body) for _, body in sent}
    assert len(sent) >= 8 and {t.user_id for t, _ in sent} == {ana().user_id, ben().user_id}
    assert len(prefixes) == 1
    blocks = cache_order(sent[0][1])
    end = breakpoints(blocks)[1]
    assert [where for where, _ in blocks[: end + 1]] == ["tools"] * end + ["system"]
    assert json.loads(blocks[end][1])["text"] == read_prompt_files()["chat"]
    assert end == len(CHAT.tools)
    for trainee, body in sent:
        assert all(text.encode() in body for _, text in cache_order(body)[: end + 1])
        user_part = "".join(text for _, text in cache_order(body)[end + 1 :])
        assert trainee.profile["display_name"] in user_part
        assert trainee.today.isoformat() in user_part


@pytest.mark.parametrize("ttl", ["5m", "1h"])
async def test_the_static_breakpoints_carry_the_configured_ttl_and_the_per_user_ones_the_default(
    ttl: str,
) -> None:
    sent = await _sessions(_settings(ttl), [ana()])

    for _, body in sent:
        blocks = cache_order(body)
        controls = [json.loads(blocks[i][1])["cache_control"] for i in breakpoints(blocks)]
        static = {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}
        assert controls == [static, static, {"type": "ephemeral"}, {"type": "ephemeral"}]


def test_request_params_leave_the_request_untouched() -> None:
    tools = [{"name": "idle", "input_schema": {}, "cache_control": {"type": "ephemeral"}}]
    system = [
        {"type": "text", "text": "prompt", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "<user_data/>", "cache_control": {"type": "ephemeral"}},
    ]
    request = ModelRequest(model=MODEL, system=system, tools=tools, messages=[])
    params = request_params(request, static_ttl="1h")

    assert params["tools"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert [b["cache_control"] for b in params["system"]] == [
        {"type": "ephemeral", "ttl": "1h"},
        {"type": "ephemeral"},
    ]
    assert tools[0]["cache_control"] == system[0]["cache_control"] == {"type": "ephemeral"}
    assert request_params(request)["tools"] is tools


def test_prompt_cache_ttl_setting_accepts_5m_and_1h_only() -> None:
    assert Settings().prompt_cache_ttl == "5m"
    assert _settings("1h").prompt_cache_ttl == "1h"
    with pytest.raises(ValueError, match="TRAINER_PROMPT_CACHE_TTL"):
        _settings("2h")


def test_the_template_gives_every_function_the_prompt_cache_ttl_parameter() -> None:
    template = yaml_parse((Path(__file__).resolve().parents[3] / "template.yaml").read_text())
    parameter = template["Parameters"]["PromptCacheTtl"]
    assert parameter["AllowedValues"] == ["5m", "1h"] and parameter["Default"] == "5m"
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["TRAINER_PROMPT_CACHE_TTL"] == {"Ref": "PromptCacheTtl"}
