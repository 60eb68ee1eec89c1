"""Registry agents on Anthropic's Messages API (SDK 2.x, streamed). A json output is a forced tool
`emit_<schema>` whose input schema is the output model's; the agent's own tools come before it. No
temperature: API version 2026-10-21 rejects it (ARCHITECTURE §4)."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message

from trainer.agents.backends import (
    AgentReply,
    AgentRequest,
    AssistantTurn,
    Provider,
    ToolResultsTurn,
    Turn,
)
from trainer.agents.wire import AGENT_HEADER, output_tool_name
from trainer.llm.anthropic_model import anthropic_client, usage_from_sdk
from trainer.llm.ports import ModelError, ToolCall
from trainer.settings import ModelSettings

EPHEMERAL = {"type": "ephemeral"}
OUTPUT_TOOL_DESCRIPTION = "Return your final answer by calling this tool with the complete output."


class AnthropicStructured:
    provider: Provider = "anthropic"

    def __init__(
        self,
        settings: ModelSettings,
        http_client: httpx2.AsyncClient | None = None,
        *,
        max_retries: int = anthropic.DEFAULT_MAX_RETRIES,
    ) -> None:
        self._client = anthropic_client(
            settings, http_client, max_retries, fallback="the offline implementations"
        )

    async def generate(self, request: AgentRequest) -> AgentReply:
        params = request_params(request)
        try:
            async with self._client.messages.stream(
                **params, extra_headers={AGENT_HEADER: request.agent}
            ) as stream:
                final = await stream.get_final_message()
        except anthropic.APIStatusError as exc:
            raise ModelError(f"the model call failed: HTTP {exc.status_code}: {exc.message}") from exc
        except (anthropic.AnthropicError, httpx2.HTTPError, ValueError) as exc:
            raise ModelError(f"the model call failed: {type(exc).__name__}: {exc}") from exc
        return reply_from_message(final, request)


def request_params(request: AgentRequest) -> dict[str, Any]:
    """Cache breakpoints on the last tool, the system prompt and the last context block: the prefix
    an agent's calls share (the same prompt for every user, then the same context across a batch)."""
    tools: list[dict[str, Any]] = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools
    ]
    output_tool = output_tool_name(request.output.schema_name) if request.output.schema_name else None
    if request.schema is not None and output_tool is not None:
        schema = request.schema.model_json_schema()
        tools.append({"name": output_tool, "description": OUTPUT_TOOL_DESCRIPTION, "input_schema": schema})
    if tools:
        tools[-1] = {**tools[-1], "cache_control": dict(EPHEMERAL)}
    first: list[dict[str, Any]] = [{"type": "text", "text": block} for block in request.context]
    if first:
        first[-1]["cache_control"] = dict(EPHEMERAL)
    first.append({"type": "text", "text": request.input_text})
    params: dict[str, Any] = {
        "model": request.model_id,
        "max_tokens": request.max_tokens,
        "system": [{"type": "text", "text": request.system, "cache_control": dict(EPHEMERAL)}],
        "messages": [{"role": "user", "content": first}, *_messages(request.messages)],
    }
    if tools:
        params["tools"] = tools
        if output_tool is not None and not request.tools:
            params["tool_choice"] = {"type": "tool", "name": output_tool}
        else:
            params["tool_choice"] = {"type": "any" if output_tool else "auto"}
    return params


def _messages(turns: list[Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in turns:
        if isinstance(turn, AssistantTurn):
            content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
            content += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                for c in turn.tool_calls
            ]
            out.append({"role": "assistant", "content": content})
        elif isinstance(turn, ToolResultsTurn):
            results = [
                {"type": "tool_result", "tool_use_id": call.id, "content": text, "is_error": is_error}
                for call, text, is_error in turn.results
            ]
            out.append({"role": "user", "content": results})
        elif turn.output_call_id is not None:
            result = {"type": "tool_result", "tool_use_id": turn.output_call_id, "is_error": True}
            out.append({"role": "user", "content": [{**result, "content": turn.text}]})
        else:
            out.append({"role": "user", "content": [{"type": "text", "text": turn.text}]})
    return out


def reply_from_message(message: Message, request: AgentRequest) -> AgentReply:
    output_tool = output_tool_name(request.output.schema_name) if request.output.schema_name else None
    texts: list[str] = []
    calls: list[ToolCall] = []
    data: dict[str, Any] | None = None
    output_call_id: str | None = None
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            arguments = dict(block.input) if isinstance(block.input, dict) else {}
            if block.name == output_tool and output_call_id is None:
                data, output_call_id = arguments, block.id
            else:
                calls.append(ToolCall(block.id, block.name, arguments))
    text = "".join(texts) or None
    raw = json.dumps(data, ensure_ascii=False) if data is not None else (text or "")
    return AgentReply(
        text=text,
        data=data,
        tool_calls=calls,
        usage=usage_from_sdk(message.usage),
        model=message.model,
        raw_output=raw,
        output_call_id=output_call_id,
    )
