"""Registry agents on OpenAI's chat completions (SDK 3.x). A json output uses `response_format`
(json_schema, strict: the output model's schema made strict as the SDK's own `parse` does); the agent's
tools are functions. The output is validated by the factory, not by the SDK, so a rejected answer can
be fed back as it was written."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import httpx2
import openai
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletion
from pydantic import BaseModel

from trainer.agents.backends import AgentReply, AgentRequest, AssistantTurn, Provider, ToolResultsTurn, Turn
from trainer.agents.wire import AGENT_HEADER
from trainer.llm.openai_initializer import openai_client
from trainer.llm.ports import ModelError, ToolCall, Usage
from trainer.settings import ModelSettings


class OpenAIStructured:
    provider: Provider = "openai"

    def __init__(
        self, settings: ModelSettings, http_client: httpx2.AsyncClient | None = None, *, max_retries: int = 2
    ) -> None:
        self._client = openai_client(
            settings, http_client, max_retries, fallback="the offline implementations"
        )

    async def generate(self, request: AgentRequest) -> AgentReply:
        try:
            completion = await self._client.chat.completions.create(
                **request_params(request), extra_headers={AGENT_HEADER: request.agent}
            )
        except openai.APIStatusError as exc:
            raise ModelError(f"the model call failed: HTTP {exc.status_code}: {exc.message}") from exc
        except (openai.OpenAIError, httpx2.HTTPError, ValueError) as exc:
            raise ModelError(f"the model call failed: {type(exc).__name__}: {exc}") from exc
        return reply_from_completion(completion, request)


def request_params(request: AgentRequest) -> dict[str, Any]:
    first = "\n\n".join([*request.context, request.input_text])
    params: dict[str, Any] = {
        "model": request.model_id,
        "max_completion_tokens": request.max_tokens,
        "messages": [
            {"role": "system", "content": request.system},
            {"role": "user", "content": first},
            *_messages(request.messages),
        ],
    }
    if request.schema is not None and request.output.schema_name:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.output.schema_name,
                "schema": strict_schema(request.schema),
                "strict": True,
            },
        }
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
    return params


@lru_cache(maxsize=64)
def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in OpenAI's strict form (shared: callers must not mutate it)."""
    return to_strict_json_schema(model)


def _messages(turns: list[Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in turns:
        if isinstance(turn, AssistantTurn):
            message: dict[str, Any] = {"role": "assistant", "content": turn.text}
            if turn.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            "arguments": json.dumps(c.arguments, ensure_ascii=False),
                        },
                    }
                    for c in turn.tool_calls
                ]
            out.append(message)
        elif isinstance(turn, ToolResultsTurn):
            out.extend(
                {"role": "tool", "tool_call_id": call.id, "content": text} for call, text, _ in turn.results
            )
        else:
            out.append({"role": "user", "content": turn.text})
    return out


def reply_from_completion(completion: ChatCompletion, request: AgentRequest) -> AgentReply:
    if not completion.choices:
        raise ModelError("the model returned no choice")
    message = completion.choices[0].message
    calls: list[ToolCall] = []
    for call in message.tool_calls or []:
        if call.type != "function":
            continue
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except ValueError:
            arguments = {}
        calls.append(ToolCall(call.id, call.function.name, arguments if isinstance(arguments, dict) else {}))
    text = message.content
    if text is None and message.refusal:
        raise ModelError(f"the model refused: {message.refusal}")
    data: dict[str, Any] | None = None
    if request.output.kind == "json" and text and not calls:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        data = parsed if isinstance(parsed, dict) else None
    usage = completion.usage
    details = usage.prompt_tokens_details if usage else None
    cached = (details.cached_tokens or 0) if details else 0
    prompt = usage.prompt_tokens if usage else 0
    return AgentReply(
        text=text,
        data=data,
        tool_calls=calls,
        usage=Usage(
            input_tokens=max(0, prompt - cached),
            output_tokens=usage.completion_tokens if usage else 0,
            cache_read_input_tokens=cached,
        ),
        model=completion.model or request.model_id,
        raw_output=text or "",
    )
