"""What the Anthropic adapter sends each model (trainer.providers.anthropic, no I/O): tool choice,
thinking, effort, display and block binding with their beta headers, structured output; and what it
reads back (thinking blocks before a call, a structured answer's JSON)."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Message
from pydantic import BaseModel
from trainer.providers.anthropic import (
    BLOCK_BINDING_BETA,
    UPDATES_DISPLAY_BETA,
    beta_headers,
    output_tool_name,
    reply_from_message,
    request_params,
    structured_request,
    to_model_response,
    tool_choice_for,
    uses_output_format,
)
from trainer.providers.models import get_model
from trainer.providers.ports import (
    AgentRequest,
    AssistantTurn,
    ModelRequest,
    OutputSpec,
    RetryTurn,
    ToolSpec,
)

FORCED = {"type": "any", "disable_parallel_tool_use": True}
AUTO_ONE = {"type": "auto", "disable_parallel_tool_use": True}
TOOL = {"name": "idle", "description": "d", "input_schema": {"type": "object", "properties": {}}}


def _request(model: str, **overrides: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": model,
        "system": [{"type": "text", "text": "s"}],
        "tools": [TOOL],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "effort": "low",
    }
    return ModelRequest(**{**values, **overrides})


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-haiku-5-5", FORCED),
        ("claude-sonnet-5-5", AUTO_ONE),
        ("claude-opus-5-5", AUTO_ONE),
        ("claude-haiku-4-5", FORCED),
    ],
)
def test_forced_tool_choice_becomes_auto_where_the_model_rejects_it(
    model: str, expected: dict[str, Any]
) -> None:
    assert request_params(_request(model))["tool_choice"] == expected


def test_a_named_tool_choice_is_not_forced_on_sonnet_and_auto_stays_auto() -> None:
    sonnet = get_model("claude-sonnet-5-5")
    assert tool_choice_for(sonnet, {"type": "tool", "name": "emit_x"}) == AUTO_ONE
    assert tool_choice_for(sonnet, {"type": "auto"}) == {"type": "auto"}


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"])
def test_models_that_think_get_adaptive_thinking_and_the_roles_effort(model: str) -> None:
    params = request_params(_request(model))
    assert params["thinking"] == {"type": "adaptive"}
    assert params["output_config"] == {"effort": "low"}
    assert beta_headers(params) is None
    assert not {"temperature", "top_p", "top_k"} & set(params)


def test_without_an_effort_the_model_default_applies() -> None:
    params = request_params(_request("claude-haiku-5-5", effort=None))
    assert "output_config" not in params and params["thinking"] == {"type": "adaptive"}


def test_older_models_get_no_thinking_and_no_effort() -> None:
    params = request_params(_request("claude-haiku-4-5"))
    assert "thinking" not in params and "output_config" not in params


@pytest.mark.parametrize(
    ("model", "display"),
    [("claude-haiku-5-5", None), ("claude-sonnet-5-5", "updates"), ("claude-opus-5-5", "updates")],
)
def test_the_chat_asks_for_progress_updates_where_they_hide_in_thinking_blocks(
    model: str, display: str | None
) -> None:
    params = request_params(_request(model), progress_updates=True, drop_stale_thinking=True)
    assert params["thinking"].get("display") == display
    assert params["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"}
    headers = beta_headers(params)
    assert headers is not None
    betas = headers["anthropic-beta"].split(",")
    assert BLOCK_BINDING_BETA in betas
    assert (UPDATES_DISPLAY_BETA in betas) is (display == "updates")


def _message(content: list[dict[str, Any]], stop: str = "tool_use") -> Message:
    return Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-5-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )


def test_the_blocks_before_a_call_are_kept_exactly_as_received() -> None:
    thinking = {"type": "thinking", "thinking": "", "signature": "abc"}
    redacted = {"type": "redacted_thinking", "data": "opaque"}
    use = {"type": "tool_use", "id": "t1", "name": "idle", "input": {"reason": "x"}}
    response = to_model_response(_message([thinking, redacted, {"type": "text", "text": "Checking."}, use]))
    assert response.tool_call is not None and response.tool_call.id == "t1"
    assert response.preamble == [thinking, redacted, {"type": "text", "text": "Checking."}]
    assert response.text == "Checking."


def test_a_text_answer_has_no_preamble() -> None:
    thinking = {"type": "thinking", "thinking": "", "signature": "abc"}
    response = to_model_response(_message([thinking, {"type": "text", "text": "Hi"}], "end_turn"))
    assert response.tool_call is None and response.preamble == [] and response.text == "Hi"


class Sets(BaseModel):
    sets: int
    note: str


def _agent_request(model: str, **overrides: Any) -> AgentRequest:
    values: dict[str, Any] = {
        "agent": "a",
        "system": "s",
        "context": [],
        "input": {},
        "input_text": "<input/>",
        "output": OutputSpec.json_of(Sets),
        "model_id": model,
        "max_tokens": 100,
        "effort": "medium",
    }
    return AgentRequest(**{**values, **overrides})


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"])
def test_structured_output_instead_of_a_forced_tool(model: str) -> None:
    request = _agent_request(model)
    assert uses_output_format(request) and output_tool_name(request) is None
    params = request_params(structured_request(request))
    assert "tools" not in params and "tool_choice" not in params
    assert params["output_config"] == {"effort": "medium"}


def test_a_model_without_structured_output_keeps_the_emit_tool() -> None:
    request = _agent_request("claude-unknown-1")
    assert not uses_output_format(request)
    params = request_params(structured_request(request))
    assert params["tool_choice"] == {"type": "tool", "name": "emit_sets"}


def test_a_structured_answer_is_read_from_its_json_text() -> None:
    request = _agent_request("claude-haiku-5-5")
    thinking = {"type": "thinking", "thinking": "", "signature": "abc"}
    text = {"type": "text", "text": '{"sets": 3, "note": "ok"}'}
    reply = reply_from_message(_message([thinking, text], "end_turn"), request)
    assert reply.data == {"sets": 3, "note": "ok"} and reply.output_call is None
    assert reply.raw_output == text["text"]
    cut = reply_from_message(_message([{"type": "text", "text": '{"sets": 3, "no'}], "max_tokens"), request)
    assert cut.data is None and cut.raw_output == '{"sets": 3, "no'


# --- cache breakpoints of a registry agent's request ----------------------------------------------


def _marked(params: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(where, cache_control) of every breakpoint, in the API's cache order."""
    found = [
        ("tool:" + t["name"], t["cache_control"]) for t in params.get("tools", []) if "cache_control" in t
    ]
    found += [("system", b["cache_control"]) for b in params["system"] if "cache_control" in b]
    for message in params["messages"]:
        for block in message["content"]:
            if "cache_control" in block:
                found.append((block.get("text", block.get("type", "")), block["cache_control"]))
    return found


TOOL_SPEC = ToolSpec(name="exercise_options", description="d", input_schema={"type": "object"})


def test_a_registry_agent_caches_its_static_prefix_with_the_configured_ttl_and_its_input_in_a_loop() -> None:
    request = _agent_request("claude-haiku-5-5", context=["<context a/>", "<context b/>"], tools=[TOOL_SPEC])
    params = request_params(structured_request(request, "1h"), static_ttl="1h")
    one_hour, five_minutes = {"type": "ephemeral", "ttl": "1h"}, {"type": "ephemeral"}
    assert _marked(params) == [
        ("system", one_hour),
        ("<context b/>", one_hour),
        ("<input/>", five_minutes),
    ]


def test_the_inputs_stable_part_closes_a_breakpoint_of_its_own_within_the_four_allowed() -> None:
    text = '<agent_input>\n{"plan":{"title":"P"},"week_number":2}\n</agent_input>'
    cut = text.index('"week_number"')
    request = _agent_request(
        "claude-haiku-5-5", context=["<example/>"], tools=[TOOL_SPEC], input_text=text, stable_input_chars=cut
    )
    params = request_params(structured_request(request, "1h"), static_ttl="1h")
    one_hour, five_minutes = {"type": "ephemeral", "ttl": "1h"}, {"type": "ephemeral"}
    assert _marked(params) == [
        ("system", one_hour),
        ("<example/>", one_hour),
        (text[:cut], five_minutes),
        (text[cut:], five_minutes),
    ]
    assert "".join(b["text"] for b in params["messages"][0]["content"][1:]) == text
    retried = _agent_request(
        "claude-haiku-5-5",
        context=["<example/>"],
        tools=[TOOL_SPEC],
        input_text=text,
        stable_input_chars=cut,
        messages=[AssistantTurn(text="{}"), RetryTurn(text="fix it")],
    )
    marked = _marked(request_params(structured_request(retried)))
    assert [where for where, _ in marked] == ["system", "<example/>", text[:cut], "fix it"]


def test_a_one_call_agent_marks_its_static_prefix_only_until_it_is_retried() -> None:
    request = _agent_request("claude-haiku-5-5", output=OutputSpec(kind="text"), context=["<example/>"])
    params = request_params(structured_request(request))
    assert [where for where, _ in _marked(params)] == ["system", "<example/>"]
    retried = _agent_request(
        "claude-haiku-5-5",
        output=OutputSpec(kind="text"),
        context=["<example/>"],
        messages=[AssistantTurn(text="too long"), RetryTurn(text="shorter, please")],
    )
    marked = _marked(request_params(structured_request(retried)))
    assert [where for where, _ in marked] == ["system", "<example/>", "shorter, please"]
