"""The main agent on Anthropic's Messages API (SDK 2.x, streaming, forced single tool use).

No temperature/top_p/top_k: API version 2026-10-21 rejects them (ARCHITECTURE §4)."""

from __future__ import annotations

import logging
from typing import Any, Literal

import anthropic
import httpx2
from anthropic import AsyncAnthropic
from anthropic.types import Message

from trainer import model_guard
from trainer.llm.models import CacheTTL
from trainer.llm.partial_json import StreamedStringField
from trainer.llm.ports import ModelError, ModelRequest, ModelResponse, TextDeltaCallback, ToolCall, Usage
from trainer.settings import ModelSettings

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"

STREAMED_TEXT_ARGS: dict[str, str] = {"message_notify_user": "message", "message_ask_user": "question"}
"""Tools whose user-visible argument is forwarded while the model is still writing it."""


def anthropic_client(
    settings: ModelSettings, http_client: httpx2.AsyncClient | None, max_retries: int, *, fallback: str
) -> AsyncAnthropic:
    """The SDK client on the settings' key and base URL; without a key, a ValueError naming `fallback`."""
    if settings.anthropic_api_key is None:
        raise ValueError(f"ANTHROPIC_API_KEY is not set; use {fallback} instead")
    return AsyncAnthropic(
        api_key=settings.anthropic_api_key.get_secret_value(),
        base_url=model_guard.checked_base_url(settings.anthropic_base_url or DEFAULT_BASE_URL),
        http_client=http_client,
        max_retries=max_retries,
    )


class AnthropicAgentModel:
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

    async def complete(
        self, request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        params = request_params(request, static_ttl=self._static_ttl)
        opened = False
        try:
            async with self._client.messages.stream(**params) as stream:
                opened = True
                forwarder = _TextForwarder(on_text_delta)
                async for event in stream:
                    if event.type == "content_block_start" and event.content_block.type == "tool_use":
                        forwarder.start(event.index, event.content_block.name)
                    elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                        await forwarder.feed(event.index, event.delta.partial_json)
                final = await stream.get_final_message()
        except anthropic.APIStatusError as exc:
            if opened:
                raise ModelError(f"the model stream broke off: {_describe(exc)}", retryable=True) from exc
            raise ModelError(f"the model call failed: {_describe(exc)}") from exc
        except anthropic.APIConnectionError as exc:
            raise ModelError(
                "the model stream broke off: connection lost"
                if opened
                else "could not reach the Anthropic API",
                retryable=opened,
            ) from exc
        except httpx2.HTTPError as exc:
            raise ModelError(f"the model stream broke off: {type(exc).__name__}", retryable=opened) from exc
        except anthropic.AnthropicError as exc:
            raise ModelError(f"the model call failed: {type(exc).__name__}: {exc}", retryable=opened) from exc
        except ValueError as exc:
            raise ModelError(f"the model wrote unreadable tool input: {exc}", retryable=True) from exc
        return to_model_response(final)


def request_params(request: ModelRequest, *, static_ttl: CacheTTL = "5m") -> dict[str, Any]:
    """The Messages API parameters. The cache breakpoints of the prefix every session shares (the
    tools and the first `shared_system_blocks` system blocks) get `static_ttl`; the per-user ones
    keep the 5-minute default, so no 1-hour breakpoint follows a 5-minute one."""
    tools, system = request.tools, request.system
    if static_ttl != "5m":
        shared = request.shared_system_blocks
        tools = _with_ttl(tools, static_ttl)
        system = [*_with_ttl(system[:shared], static_ttl), *system[shared:]]
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "system": system,
        "tools": tools,
        "tool_choice": request.tool_choice,
        "messages": request.messages,
    }
    if request.user_id:
        params["metadata"] = {"user_id": request.user_id}
    return params


def _with_ttl(blocks: list[dict[str, Any]], ttl: CacheTTL) -> list[dict[str, Any]]:
    """Copies of the blocks, with `ttl` on those that carry a cache breakpoint."""
    return [
        {**block, "cache_control": {**block["cache_control"], "ttl": ttl}}
        if "cache_control" in block
        else block
        for block in blocks
    ]


def to_model_response(message: Message) -> ModelResponse:
    tool_call: ToolCall | None = None
    texts: list[str] = []
    for block in message.content:
        if block.type == "tool_use" and tool_call is None:
            arguments = block.input if isinstance(block.input, dict) else {}
            tool_call = ToolCall(id=block.id, name=block.name, arguments=dict(arguments))
        elif block.type == "text":
            texts.append(block.text)
    return ModelResponse(
        tool_call=tool_call,
        usage=usage_from_sdk(message.usage),
        model=message.model,
        stop_reason=message.stop_reason,
        raw=message.model_dump(mode="json"),
        text="".join(texts),
    )


def usage_from_sdk(usage: anthropic.types.Usage) -> Usage:
    one_hour = usage.cache_creation.ephemeral_1h_input_tokens if usage.cache_creation else 0
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
        cache_read_input_tokens=usage.cache_read_input_tokens or 0,
        cache_creation_1h_input_tokens=one_hour or 0,
    )


def _describe(exc: anthropic.APIStatusError) -> str:
    kind = exc.type or type(exc).__name__
    detail = exc.api_message or "no details"
    status = f"HTTP {exc.status_code}, " if exc.status_code != 200 else ""
    return f"{status}{kind}: {detail}"


class _TextForwarder:
    """Forwards newly written characters of a user-visible tool argument. A failing callback
    (a client that went away) never breaks the model call."""

    def __init__(self, callback: TextDeltaCallback | None) -> None:
        self._callback = callback
        self._fields: dict[int, tuple[str, StreamedStringField]] = {}

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
        if not new_text:
            return
        try:
            await self._callback(tool_name, new_text)
        except Exception:
            log.warning("text delta callback failed; no more deltas for this call", exc_info=True)
            self._callback = None
