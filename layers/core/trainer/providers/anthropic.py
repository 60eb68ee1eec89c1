"""Anthropic's Messages API (SDK 2.x, streamed) behind both model ports: the chat agent's
(`AnthropicAgentModel`, one tool call per answer, the user-visible message forwarded while the model
writes it) and the registry agents' (`AnthropicStructured`: a json output through the API's structured
output, `output_config.format`, on models that have it, else as a forced tool `emit_<schema>`).

What a request may carry depends on the model (trainer.providers.models): forced tool choice becomes
`auto` with parallel tool use disabled where the model rejects forcing (Sonnet/Opus 5.5); models that
think adaptively get `thinking: adaptive` and the role's `output_config.effort`, and their thinking
blocks come back in the answer to be sent back unchanged while the tool loop continues. Where the
text written between tool calls comes back inside thinking blocks (Sonnet/Opus 5.5) the chat agent
asks for the `updates` display (beta), which returns only those progress updates, and forwards them
like text. No temperature/top_p/top_k and no assistant prefill: the 5.x API rejects them.

One client builder, one error mapping, one usage conversion and one request-parameter builder serve
both."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Literal

import anthropic
import httpx2
import jiter
from anthropic import AsyncAnthropic
from anthropic.types import Message

from trainer import model_guard
from trainer.providers.deadline import MODEL_TIMEOUT, call_timeout, deadline_budget, timed_out
from trainer.providers.models import MODELS, CacheTTL, ModelInfo
from trainer.providers.ports import (
    AGENT_HEADER,
    AgentReply,
    AgentRequest,
    AssistantTurn,
    ModelError,
    ModelRequest,
    ModelResponse,
    Provider,
    TextDeltaCallback,
    ToolCall,
    ToolResultsTurn,
    Turn,
    Usage,
)
from trainer.settings import ModelSettings

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"
EPHEMERAL = {"type": "ephemeral"}
OUTPUT_TOOL_PREFIX = "emit_"
OUTPUT_TOOL_DESCRIPTION = "Return your final answer by calling this tool with the complete output."

STREAMED_TEXT_ARGS: dict[str, str] = {"message_notify_user": "message", "message_ask_user": "question"}
"""Tools whose user-visible argument is forwarded while the model is still writing it."""
REPLY_TOOL = "message_notify_user"
"""What text the model writes outside a tool call is forwarded as (a text-only answer is the reply)."""
THINKING_BLOCK_TYPES = ("thinking", "redacted_thinking")
UPDATES_DISPLAY_BETA = "thinking-display-updates-2026-08-18"
"""The beta that lets `thinking.display` be `updates`: only the progress updates written between tool
calls come back as text, the reasoning stays hidden."""
BLOCK_BINDING_BETA = "thinking-binding-controls-2026-08-01"
"""The beta that lets `thinking.block_binding.prefix_mismatch_behavior` be `drop_block`: a replayed
thinking block whose prefix changed since it was written is dropped (listed in the response's
`input_transformations`) instead of failing the request with a 400."""


def anthropic_client(
    settings: ModelSettings, http_client: httpx2.AsyncClient | None, max_retries: int, *, fallback: str
) -> AsyncAnthropic:
    """The SDK client on the settings' key and base URL; without a key, a ValueError naming `fallback`.
    The one place an Anthropic client is built."""
    if settings.anthropic_api_key is None:
        raise ValueError(f"ANTHROPIC_API_KEY is not set; use {fallback} instead")
    return AsyncAnthropic(
        api_key=settings.anthropic_api_key.get_secret_value(),
        base_url=model_guard.checked_base_url(settings.anthropic_base_url or DEFAULT_BASE_URL),
        http_client=http_client,
        max_retries=max_retries,
        timeout=float(settings.function_timeout_seconds),
    )


class AnthropicAgentModel:
    """The chat agent's model (`AgentModel`)."""

    provider: Literal["anthropic", "offline"] = "anthropic"

    def __init__(
        self,
        settings: ModelSettings,
        http_client: httpx2.AsyncClient | None = None,
        *,
        max_retries: int = anthropic.DEFAULT_MAX_RETRIES,
    ) -> None:
        self._static_ttl: CacheTTL = settings.prompt_cache_ttl
        self._client = anthropic_client(settings, http_client, max_retries, fallback="the offline model")
        self._deadline = deadline_budget(settings)

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        params = request_params(
            request, static_ttl=self._static_ttl, progress_updates=True, drop_stale_thinking=True
        )
        headers = beta_headers(params)
        timeout = call_timeout(*self._deadline)
        final = await _streamed(
            self._client, params, on_text_delta, headers=headers, forward_text=True, seconds=timeout
        )
        return to_model_response(final)


class AnthropicStructured:
    """The registry agents' model (`StructuredModel`)."""

    provider: Provider = "anthropic"

    def __init__(
        self,
        settings: ModelSettings,
        http_client: httpx2.AsyncClient | None = None,
        *,
        max_retries: int = anthropic.DEFAULT_MAX_RETRIES,
    ) -> None:
        self._static_ttl: CacheTTL = settings.prompt_cache_ttl
        self._client = anthropic_client(
            settings, http_client, max_retries, fallback="the offline implementations"
        )
        self._deadline = deadline_budget(settings)

    async def generate(self, request: AgentRequest) -> AgentReply:
        params = request_params(structured_request(request, self._static_ttl), static_ttl=self._static_ttl)
        if uses_output_format(request):
            params.setdefault("output_config", {})["format"] = output_format(request)
        timeout = call_timeout(*self._deadline)
        final = await _streamed(self._client, params, headers={AGENT_HEADER: request.agent}, seconds=timeout)
        return reply_from_message(final, request)


async def _streamed(
    client: AsyncAnthropic,
    params: dict[str, Any],
    on_text_delta: TextDeltaCallback | None = None,
    *,
    headers: dict[str, str] | None = None,
    forward_text: bool = False,
    seconds: float,
) -> Message:
    """One streamed call, bounded by `seconds` as a whole (the SDK's retries included): the final
    message, the user-visible text forwarded on the way (with `forward_text`, also text written outside
    tool calls and, where it is the text between tool calls, the thinking display's progress updates).
    An answer that ends without `message_stop` and a stop reason (a cut stream) is a retryable
    `model_incomplete` error, never a finished answer."""
    try:
        async with asyncio.timeout(seconds):
            return await _stream_once(
                client, params, on_text_delta, headers, seconds, forward_text=forward_text
            )
    except TimeoutError as exc:
        raise timed_out(seconds) from exc


async def _stream_once(
    client: AsyncAnthropic,
    params: dict[str, Any],
    on_text_delta: TextDeltaCallback | None,
    headers: dict[str, str] | None,
    seconds: float,
    *,
    forward_text: bool,
) -> Message:
    opened = stopped = False
    forward_thinking = forward_text and _updates_display(params)
    try:
        async with client.messages.stream(**params, extra_headers=headers, timeout=seconds) as stream:
            opened = True
            forwarder = _TextForwarder(on_text_delta)
            async for event in stream:
                if event.type == "content_block_start" and event.content_block.type == "tool_use":
                    forwarder.start(event.index, event.content_block.name)
                elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    await forwarder.feed(event.index, event.delta.partial_json)
                elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                    if forward_text:
                        await forwarder.text(event.delta.text)
                elif event.type == "content_block_delta" and event.delta.type == "thinking_delta":
                    if forward_thinking:
                        await forwarder.text(event.delta.thinking)
                elif event.type == "message_stop":
                    stopped = True
            final = await stream.get_final_message()
    except Exception as exc:
        error = model_error(exc, opened=opened)
        if error is None:
            raise
        raise error from exc
    if not stopped or final.stop_reason is None:
        raise ModelError(
            "the model's answer ended without a stop (the stream was cut)", retryable=True, code=INCOMPLETE
        )
    return final


INCOMPLETE = "model_incomplete"


def model_error(exc: Exception, *, opened: bool) -> ModelError | None:
    """The SDK's failure as a ModelError (`retryable` and `model_incomplete` once the stream had
    opened); None for anything that is not the SDK's."""
    if isinstance(exc, anthropic.APIStatusError):
        if opened:
            return ModelError(
                f"the model stream broke off: {_describe(exc)}", retryable=True, code=INCOMPLETE
            )
        return ModelError(f"the model call failed: {_describe(exc)}")
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelError("the model did not answer in time", code=MODEL_TIMEOUT)
    if isinstance(exc, anthropic.APIConnectionError):
        if opened:
            return ModelError("the model stream broke off: connection lost", retryable=True, code=INCOMPLETE)
        return ModelError("could not reach the Anthropic API")
    if isinstance(exc, httpx2.HTTPError):
        code = INCOMPLETE if opened else "model_unavailable"
        return ModelError(f"the model stream broke off: {type(exc).__name__}", retryable=opened, code=code)
    if isinstance(exc, anthropic.AnthropicError):
        return ModelError(f"the model call failed: {type(exc).__name__}: {exc}", retryable=opened)
    if isinstance(exc, ValueError):
        return ModelError(f"the model wrote unreadable tool input: {exc}", retryable=True)
    return None


def _describe(exc: anthropic.APIStatusError) -> str:
    kind = exc.type or type(exc).__name__
    detail = exc.api_message or "no details"
    status = f"HTTP {exc.status_code}, " if exc.status_code != 200 else ""
    return f"{status}{kind}: {detail}"


def usage_from_sdk(usage: anthropic.types.Usage) -> Usage:
    one_hour = usage.cache_creation.ephemeral_1h_input_tokens if usage.cache_creation else 0
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
        cache_read_input_tokens=usage.cache_read_input_tokens or 0,
        cache_creation_1h_input_tokens=one_hour or 0,
    )


# --- requests -------------------------------------------------------------------------------------


def request_params(
    request: ModelRequest,
    *,
    static_ttl: CacheTTL = "5m",
    progress_updates: bool = False,
    drop_stale_thinking: bool = False,
) -> dict[str, Any]:
    """The Messages API parameters for the request's model. The cache breakpoints of the prefix every
    session shares (the tools and the first `shared_system_blocks` system blocks) get `static_ttl`; the
    per-user ones keep the 5-minute default, so no 1-hour breakpoint follows a 5-minute one. With
    `progress_updates`, a model that returns the text between tool calls inside thinking blocks is
    asked for the `updates` display; with `drop_stale_thinking` (a conversation that replays earlier
    turns' thinking blocks) a block whose prefix changed is dropped by the API (see `beta_headers`)."""
    tools, system = request.tools, request.system
    if static_ttl != "5m":
        shared = request.shared_system_blocks
        tools = _with_ttl(tools, static_ttl)
        system = [*_with_ttl(system[:shared], static_ttl), *system[shared:]]
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "system": system,
        "messages": request.messages,
    }
    model = MODELS.get(request.model)
    if tools:
        params["tools"] = tools
        params["tool_choice"] = tool_choice_for(model, request.tool_choice)
    if model is not None and model.thinks:
        thinking: dict[str, Any] = {"type": "adaptive"}
        if progress_updates and model.thinking_text_between_tools:
            thinking["display"] = "updates"
        if drop_stale_thinking:
            thinking["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
        params["thinking"] = thinking
        if request.effort:
            params["output_config"] = {"effort": request.effort}
    if request.user_id:
        params["metadata"] = {"user_id": request.user_id}
    return params


def tool_choice_for(model: ModelInfo | None, choice: dict[str, Any]) -> dict[str, Any]:
    """The request's tool choice, or `auto` with parallel tool use disabled where the model rejects a
    forced one (`any` or `tool`): the prompt asks for one tool per iteration instead."""
    if model is None or model.forced_tool_choice or choice.get("type") not in ("any", "tool"):
        return choice
    return {"type": "auto", "disable_parallel_tool_use": True}


def _updates_display(params: dict[str, Any]) -> bool:
    return (params.get("thinking") or {}).get("display") == "updates"


def beta_headers(params: dict[str, Any]) -> dict[str, str] | None:
    """The `anthropic-beta` header the parameters need (the `updates` thinking display, block binding
    controls), if any."""
    betas = [UPDATES_DISPLAY_BETA] if _updates_display(params) else []
    if (params.get("thinking") or {}).get("block_binding"):
        betas.append(BLOCK_BINDING_BETA)
    return {"anthropic-beta": ",".join(betas)} if betas else None


def _with_ttl(blocks: list[dict[str, Any]], ttl: CacheTTL) -> list[dict[str, Any]]:
    """Copies of the blocks, with `ttl` on those that carry a cache breakpoint."""
    return [
        {**block, "cache_control": {**block["cache_control"], "ttl": ttl}}
        if "cache_control" in block
        else block
        for block in blocks
    ]


def uses_output_format(request: AgentRequest) -> bool:
    """Whether a json output comes through `output_config.format` (models with structured output)
    rather than a forced `emit_<schema>` tool."""
    model = MODELS.get(request.model_id)
    return request.output.schema is not None and model is not None and model.structured_output


def output_format(request: AgentRequest) -> dict[str, Any]:
    """`output_config.format`: the output model's schema as the API's strict json_schema takes it."""
    from anthropic.lib._parse._transform import transform_schema

    assert request.output.schema is not None
    return {"type": "json_schema", "schema": transform_schema(request.output.schema.model_json_schema())}


def output_tool_name(request: AgentRequest) -> str | None:
    """`emit_<schema>` for a json output on a model without structured output; None otherwise."""
    if uses_output_format(request):
        return None
    return OUTPUT_TOOL_PREFIX + request.output.name if request.output.name else None


def structured_request(request: AgentRequest, static_ttl: CacheTTL = "5m") -> ModelRequest:
    """A registry agent's request in the Messages API's shape, with up to four cache breakpoints. The
    system prompt (after the tools, so covering them) and the last context block close the static
    prefix, the same for every user: `request_params` gives the system prompt `static_ttl` as on the
    chat path, and the context's breakpoint gets it here, being in the first message. The input's
    stable part (`stable_input_chars`: the plan a week is built from) closes a 5-minute one, for the
    user's next run while it lives. In a run that is likely to call the model again (an agent with
    tools of its own, whose model calls them before answering, or a run already past its first call)
    the last block closes the run's prompt so far, so the next call reads the input and the earlier
    turns from the cache instead of paying for them again; a run that answers in one call gets no such
    breakpoint, as writing its input would cost a quarter more and never be read. The output tool is
    forced when the agent has no tools of its own."""
    tools: list[dict[str, Any]] = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools
    ]
    output_tool = output_tool_name(request)
    if request.output.schema is not None and output_tool is not None:
        schema = request.output.schema.model_json_schema()
        tools.append({"name": output_tool, "description": OUTPUT_TOOL_DESCRIPTION, "input_schema": schema})
    first: list[dict[str, Any]] = [{"type": "text", "text": block} for block in request.context]
    if first:
        first[-1]["cache_control"] = (
            dict(EPHEMERAL) if static_ttl == "5m" else {**EPHEMERAL, "ttl": static_ttl}
        )
    cut = request.stable_input_chars
    if 0 < cut < len(request.input_text):
        first.append({"type": "text", "text": request.input_text[:cut], "cache_control": dict(EPHEMERAL)})
        first.append({"type": "text", "text": request.input_text[cut:]})
    else:
        first.append({"type": "text", "text": request.input_text})
    if output_tool is not None and not request.tools:
        tool_choice: dict[str, Any] = {"type": "tool", "name": output_tool}
    else:
        tool_choice = {"type": "any" if output_tool else "auto"}
    messages = [{"role": "user", "content": first}, *_messages(request.messages)]
    if request.tools or request.messages:
        _mark_last_block(messages)
    return ModelRequest(
        model=request.model_id,
        system=[{"type": "text", "text": request.system, "cache_control": dict(EPHEMERAL)}],
        tools=tools,
        messages=messages,
        max_tokens=request.max_tokens,
        tool_choice=tool_choice,
        effort=request.effort,
        shared_system_blocks=1,
    )


def _mark_last_block(messages: list[dict[str, Any]]) -> None:
    """A 5-minute breakpoint on the last content block that can carry one (not a thinking block)."""
    for message in reversed(messages):
        for i in range(len(message["content"]) - 1, -1, -1):
            block = message["content"][i]
            if block.get("type") not in THINKING_BLOCK_TYPES:
                message["content"][i] = {**block, "cache_control": dict(EPHEMERAL)}
                return


def _messages(turns: list[Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in turns:
        if isinstance(turn, AssistantTurn):
            # the thinking blocks the answer came with, unchanged: required before its tool calls
            # while the loop goes on, and kept before a written answer fed back as rejected
            content: list[dict[str, Any]] = list(turn.thinking)
            content += [{"type": "text", "text": turn.text}] if turn.text else []
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


# --- answers --------------------------------------------------------------------------------------


def thinking_blocks(message: Message) -> list[dict[str, Any]]:
    """The message's thinking and redacted_thinking blocks as the API sent them (text, signature,
    data unchanged), in order."""
    return [
        block.model_dump(mode="json", exclude_none=True)
        for block in message.content
        if block.type in THINKING_BLOCK_TYPES
    ]


def to_model_response(message: Message) -> ModelResponse:
    """The chat agent's answer: its first tool call (one per iteration), its text, and the blocks
    before the call as received (selected by type: every answer may start with thinking blocks)."""
    tool_call: ToolCall | None = None
    texts: list[str] = []
    preamble: list[dict[str, Any]] = []
    for block in message.content:
        if block.type == "tool_use" and tool_call is None:
            arguments = block.input if isinstance(block.input, dict) else {}
            tool_call = ToolCall(id=block.id, name=block.name, arguments=dict(arguments))
        elif block.type == "text":
            texts.append(block.text)
        if tool_call is None and block.type in (*THINKING_BLOCK_TYPES, "text"):
            preamble.append(block.model_dump(mode="json", exclude_none=True))
    return ModelResponse(
        tool_call=tool_call,
        usage=usage_from_sdk(message.usage),
        model=message.model,
        stop_reason=message.stop_reason,
        raw=message.model_dump(mode="json"),
        text="".join(texts),
        preamble=preamble if tool_call is not None else [],
    )


def reply_from_message(message: Message, request: AgentRequest) -> AgentReply:
    """A registry agent's answer: the output tool's input as `data`, its other tool calls, its text."""
    output_tool = output_tool_name(request)
    texts: list[str] = []
    calls: list[ToolCall] = []
    output_call: ToolCall | None = None
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            call = ToolCall(block.id, block.name, dict(block.input) if isinstance(block.input, dict) else {})
            if block.name == output_tool and output_call is None:
                output_call = call
            else:
                calls.append(call)
    text = "".join(texts) or None
    data = output_call.arguments if output_call is not None else None
    if data is None and not calls and text and uses_output_format(request):
        data = _json_object(text)
    raw = json.dumps(data, ensure_ascii=False) if output_call is not None else (text or "")
    return AgentReply(
        text=text,
        data=data,
        tool_calls=calls,
        usage=usage_from_sdk(message.usage),
        model=message.model,
        raw_output=raw,
        output_call=output_call,
        thinking=tuple(thinking_blocks(message)),
    )


def _json_object(text: str) -> dict[str, Any] | None:
    """A structured answer's object; None when the text is not one (a refusal or a cut-off answer:
    the factory feeds it back as rejected)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# --- the user-visible message while it is written -------------------------------------------------


def parse_partial_object(buffer: str) -> dict[str, Any]:
    """The object written so far, unfinished strings included; {} when nothing readable yet."""
    if not buffer.strip():
        return {}
    try:
        value = jiter.from_json(buffer.encode("utf-8"), partial_mode="trailing-strings")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class StreamedStringField:
    """Follows one top-level string field of a streamed JSON object and hands out only the
    characters written since the last call."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.emitted = ""
        self._buffer = ""

    def feed(self, fragment: str) -> str:
        self._buffer += fragment
        value = parse_partial_object(self._buffer).get(self.key)
        if not isinstance(value, str) or len(value) <= len(self.emitted):
            return ""
        if not value.startswith(self.emitted):
            return ""
        new_text = value[len(self.emitted) :]
        self.emitted = value
        return new_text


class _TextForwarder:
    """Forwards newly written characters of a user-visible tool argument. A failing callback
    (a client that went away) never breaks the model call."""

    def __init__(self, callback: TextDeltaCallback | None) -> None:
        self._callback = callback
        self._fields: dict[int, tuple[str, StreamedStringField]] = {}

    async def text(self, fragment: str) -> None:
        """Text written outside a tool call: forwarded as the reply's."""
        if fragment and self._callback is not None:
            await self._send(REPLY_TOOL, fragment)

    async def _send(self, tool_name: str, new_text: str) -> None:
        if self._callback is None:
            return
        try:
            await self._callback(tool_name, new_text)
        except Exception:
            log.warning("text delta callback failed; no more deltas for this call", exc_info=True)
            self._callback = None

    def start(self, index: int, tool_name: str) -> None:
        key = STREAMED_TEXT_ARGS.get(tool_name)
        if key is not None and self._callback is not None:
            self._fields[index] = (tool_name, StreamedStringField(key))

    async def feed(self, index: int, fragment: str) -> None:
        entry = self._fields.get(index)
        if entry is None or self._callback is None:
            return
        tool_name, streamed = entry
        new_text = streamed.feed(fragment)
        if new_text:
            await self._send(tool_name, new_text)
