"""Event stream -> Anthropic Messages request (docs/architecture.md#context-and-the-prompt-cache).

Rules: every tool_use is followed by its tool_result in the next user message; knowledge, artifact
and user text arriving while a result is pending are buffered and appended after it; consecutive
user content is merged; everything is serialised deterministically so earlier bytes never change
between iterations (prompt caching); four cache breakpoints. The blocks the model wrote before a tool
call (its thinking blocks, with their signatures) go back unchanged before the call: the API requires
it while a tool loop continues, and keeping those of earlier turns keeps the conversation append-only,
so the cached prefix survives the turn boundary. A thinking block is bound to the prefix it was
written after; where that changed since (the user data block of a later turn), the chat adapter asks
the API to drop the stale block rather than refuse the request (trainer.providers.anthropic).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import BaseModel

from trainer.agents.tools import EPHEMERAL, ToolSet, canonical_json, wrap_observation
from trainer.chat.checkpoint import render_checkpoint
from trainer.domain.text import escape_text, one_line
from trainer.providers.ports import ModelRequest
from trainer.store.models import CONTEXT_EVENT_TYPES, Event, EventType, Session

INTERRUPTED_RESULT = "no result was recorded for this call (interrupted); check the state before retrying"
SESSION_RESUMED = "<session_resumed/>"
MEMO_SIZE = 4096
DEFAULT_MAX_TOKENS = 8192


def render_knowledge(data: dict[str, Any]) -> str:
    """Knowledge as the model sees it. The data is the source formatter's text, whose values it
    escaped itself (its own tags stay); data of another shape is escaped whole."""
    body = data.get("data")
    text = body if isinstance(body, str) else escape_text(canonical_json(body))
    source = escape_text(data.get("source", "unknown"), attribute=True)
    return f'<knowledge source="{source}">\n{text}\n</knowledge>'


def render_artifact(data: dict[str, Any]) -> str:
    summary = data.get("summary") or {}
    lines = []
    if data.get("title"):
        lines.append(f"title: {one_line(data['title'])}")
    payload = data.get("payload") or {}
    if payload.get("workout_id"):
        lines.append(f"workout_id: {one_line(payload['workout_id'])}")
    for key in sorted(summary):
        value = summary[key]
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else value
        lines.append(f"{one_line(key)}: {one_line(shown)}")
    body = "\n".join(lines)
    kind = escape_text(data.get("type", "unknown"), attribute=True)
    art_id = escape_text(data.get("artifact_id", ""), attribute=True)
    return f'<artifact type="{kind}" id="{art_id}">\n{body}\n</artifact>'


def current_date_line(today: date) -> str:
    return f"<current_date>{today.isoformat()} ({today.strftime('%A')})</current_date>"


def estimate_tokens(request: ModelRequest) -> int:
    """chars/4 over everything sent: what decides a checkpoint, never what is billed."""
    chars = sum(len(b.get("text", "")) for b in request.system)
    chars += len(canonical_json(request.tools)) + len(canonical_json(request.messages))
    return chars // 4


@dataclass(frozen=True)
class _Converted:
    """One event as content: a tool_use, a tool_result or user blocks; `chars` for the estimate;
    for a tool_result, its typed result. Blocks are shared between builds and never mutated."""

    kind: str
    block: dict[str, Any] | None = None
    call_id: str = ""
    name: str = ""
    chars: int = 0
    result: BaseModel | None = None
    preamble: tuple[dict[str, Any], ...] = ()
    """A tool_use's blocks before it, as the model wrote them (thinking, signature)."""


_SKIP = _Converted("skip")


def convert_event(event: Event, tools: ToolSet | None = None) -> _Converted:
    data = event.data
    match event.event_type:
        case EventType.USER_MESSAGE:
            text = str(data.get("message") or "")
            return _text(escape_text(text)) if text.strip() else _SKIP
        case EventType.TOOL_CALL:
            arguments = data.get("arguments")
            serialised = canonical_json(arguments if isinstance(arguments, dict) else {})
            call_id, name = str(data.get("call_id")), str(data.get("tool_name"))
            block = {"type": "tool_use", "id": call_id, "name": name, "input": json.loads(serialised)}
            preamble = data.get("preamble")
            return _Converted(
                "tool_use",
                block,
                call_id,
                name,
                len(serialised) + len(name) + len(call_id),
                preamble=tuple(preamble) if isinstance(preamble, list) else (),
            )
        case EventType.TOOL_RESULT:
            content = data.get("formatted")
            if not isinstance(content, str):
                content = canonical_json(data.get("result"))
            call_id, name = str(data.get("call_id")), str(data.get("tool_name"))
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
            if not data.get("success", True):
                result["is_error"] = True
            typed = tools.parse_result(name, data.get("result")) if tools is not None else None
            return _Converted("tool_result", result, call_id, name, len(content), typed)
        case EventType.KNOWLEDGE:
            return _text(render_knowledge(data))
        case EventType.ARTIFACT:
            return _text(render_artifact(data))
        case EventType.CHECKPOINT:
            return _text(render_checkpoint(data))
    return _SKIP


def _text(text: str) -> _Converted:
    return _Converted("user", {"type": "text", "text": text}, chars=len(text))


@dataclass
class _Conversation:
    messages: list[dict[str, Any]] = field(default_factory=list)
    pending: tuple[str, str] | None = None
    """(call_id, tool_name) of a tool_use still waiting for its result."""
    buffered: list[dict[str, Any]] = field(default_factory=list)

    def add_user_block(self, block: dict[str, Any]) -> None:
        if self.pending is not None:
            self.buffered.append(block)
        elif self.messages and self.messages[-1]["role"] == "user":
            self.messages[-1]["content"].append(block)
        else:
            self.messages.append({"role": "user", "content": [block]})

    def add_tool_use(self, item: _Converted, *, with_preamble: bool = False) -> None:
        if self.pending is not None:
            self.close_pending(INTERRUPTED_RESULT)
        assert item.block is not None
        before = list(item.preamble) if with_preamble else []
        self.messages.append({"role": "assistant", "content": [*before, item.block]})
        self.pending = (item.call_id, item.name)
        self.buffered = []

    def add_tool_result(self, call_id: str, block: dict[str, Any]) -> bool:
        if self.pending is None or self.pending[0] != call_id:
            return False
        self.messages.append({"role": "user", "content": [block, *self.buffered]})
        self.pending = None
        self.buffered = []
        return True

    def close_pending(self, message: str) -> None:
        if self.pending is None:
            return
        call_id, name = self.pending
        content = wrap_observation(name, message, success=False)
        self.add_tool_result(
            call_id, {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": True}
        )


@dataclass
class Assembled:
    messages: list[dict[str, Any]]
    chars: int
    results: dict[str, BaseModel]


def assemble(items: Iterable[_Converted], *, preambles: bool = True) -> Assembled:
    """The events converted to messages by the rules above, plus crash repair; the messages,
    their approximate size in characters and the typed results of the calls they hold. Tool calls
    carry their preamble (unless `preambles` is False)."""
    conv = _Conversation()
    chars = 0
    results: dict[str, BaseModel] = {}
    for item in items:
        if item.kind == "user" and item.block is not None:
            conv.add_user_block(item.block)
        elif item.kind == "tool_use":
            conv.add_tool_use(item, with_preamble=preambles)
        elif item.kind == "tool_result" and item.block is not None:
            if not conv.add_tool_result(item.call_id, item.block):
                continue
            if item.result is not None:
                results[item.call_id] = item.result
        else:
            continue
        chars += item.chars
    conv.close_pending(INTERRUPTED_RESULT)
    if conv.messages and conv.messages[0]["role"] != "user":
        conv.messages.insert(0, {"role": "user", "content": [{"type": "text", "text": SESSION_RESUMED}]})
    return Assembled(conv.messages, chars, results)


def events_to_messages(events: Iterable[Event]) -> list[dict[str, Any]]:
    return assemble(convert_event(e) for e in events).messages


class ContextBuilder:
    """Builds the chat agent's requests from its tools, its prompt and the session's events; remembers
    each event's conversion (events are immutable), so a turn's iterations only convert what is new."""

    def __init__(self, tools: ToolSet, *, memo_size: int = MEMO_SIZE) -> None:
        self.tools = tools
        self._memo: OrderedDict[tuple[str, int], _Converted] = OrderedDict()
        self._memo_size = memo_size
        self._tools_chars: int | None = None

    def _convert(self, event: Event) -> _Converted:
        key = (event.session_id, event.sequence_number)
        item = self._memo.get(key)
        if item is None:
            item = convert_event(event, self.tools)
            self._memo[key] = item
            if len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
        else:
            self._memo.move_to_end(key)
        return item

    def build(
        self,
        session: Session,
        events: Sequence[Event],
        user_data_xml: str,
        model: str,
        *,
        system_prompt: str,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        today: date | None = None,
    ) -> ModelRequest:
        return self.build_with_estimate(
            session,
            events,
            user_data_xml,
            model,
            system_prompt=system_prompt,
            max_tokens=max_tokens,
            today=today,
        )[0]

    def build_with_estimate(
        self,
        session: Session,
        events: Sequence[Event],
        user_data_xml: str,
        model: str,
        *,
        system_prompt: str,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        today: date | None = None,
    ) -> tuple[ModelRequest, int]:
        """The request and its estimated size in tokens (chars/4). `events` are the session's
        events from `context_start_sequence` on (the caller reads them once per turn); other
        event types are skipped."""
        in_context = [
            self._convert(e)
            for e in events
            if e.event_type in CONTEXT_EVENT_TYPES and e.sequence_number >= session.context_start_sequence
        ]
        assembled = assemble(in_context)
        messages, chars = assembled.messages, assembled.chars
        if not messages:
            raise ValueError("Cannot build context: no events in session")
        last = messages[-1]["content"]
        last[-1] = {**last[-1], "cache_control": dict(EPHEMERAL)}
        user_block = user_data_xml if today is None else f"{current_date_line(today)}\n{user_data_xml}"
        system = [
            {"type": "text", "text": system_prompt, "cache_control": dict(EPHEMERAL)},
            {"type": "text", "text": user_block, "cache_control": dict(EPHEMERAL)},
        ]
        tools = self.tools.definitions()
        if self._tools_chars is None:
            self._tools_chars = len(canonical_json(tools))
        chars += self._tools_chars + len(system_prompt) + len(user_block)
        request = ModelRequest(
            model=model,
            system=system,
            tools=tools,
            messages=messages,
            max_tokens=max_tokens,
            user_id=session.user_id,
            session_id=session.id,
            shared_system_blocks=1,
            results=assembled.results,
        )
        return request, chars // 4
