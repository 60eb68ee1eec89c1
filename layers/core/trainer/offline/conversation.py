"""What the offline policy reads from a request: the latest user text, and the tool calls made since
it with their typed results (a `ToolResult` model, or `ToolFailure`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from trainer.domain.text import unescape_text
from trainer.tools.base import ToolFailure

CONTEXT_TAGS = ("<knowledge", "<artifact", "<checkpoint", "<user_data", "<system", "<current_workout")


@dataclass(frozen=True)
class PastCall:
    call_id: str
    name: str
    arguments: dict[str, Any]
    result: BaseModel | None
    """The call's typed result; None when it is unknown (interrupted, or not journalled)."""
    failed: bool
    knowledge: tuple[str, ...] = ()
    """Knowledge blocks the call appended (fetch_data), which follow its result."""


@dataclass
class Conversation:
    user_text: str = ""
    calls: list[PastCall] = field(default_factory=list)
    """Tool calls since the latest user text, in order."""
    history: list[PastCall] = field(default_factory=list)
    """Every tool call in the request."""

    def results_of[R: BaseModel](self, kind: type[R]) -> list[R]:
        """The successful results of one type in the whole request, oldest first."""
        return [c.result for c in self.history if isinstance(c.result, kind)]


def _is_user_text(text: str) -> bool:
    stripped = text.lstrip()
    return bool(stripped) and not stripped.startswith(CONTEXT_TAGS)


def _clean_user_text(text: str) -> str:
    """The user's words as typed (the context builder escaped them)."""
    return unescape_text(re.sub(r"</?user_message>", "", text)).strip()


def read_conversation(messages: list[dict[str, Any]], results: Mapping[str, BaseModel]) -> Conversation:
    """Latest real user text (not knowledge, artifacts or tool results) and the calls since it; a
    call failed when its tool_result block is marked `is_error` or its result is a ToolFailure."""
    errors: set[str] = set()
    knowledge: dict[str, list[str]] = {}
    timeline: list[tuple[str, Any]] = []
    for message in messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        result_id: str | None = None
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            text = str(block.get("text", ""))
            if message.get("role") == "assistant" and kind == "tool_use":
                timeline.append(("call", block))
            elif kind == "tool_result":
                result_id = str(block.get("tool_use_id"))
                if block.get("is_error"):
                    errors.add(result_id)
            elif kind == "text" and message.get("role") == "user" and _is_user_text(text):
                timeline.append(("user", _clean_user_text(text)))
            elif kind == "text" and result_id is not None and text.lstrip().startswith("<knowledge"):
                knowledge.setdefault(result_id, []).append(text)
    convo = Conversation()
    for kind, item in timeline:
        if kind == "user":
            convo.user_text = item
            convo.calls = []
            continue
        call_id = str(item.get("id"))
        result = results.get(call_id)
        call = PastCall(
            call_id,
            str(item.get("name")),
            dict(item.get("input") or {}),
            result,
            call_id in errors or isinstance(result, ToolFailure),
            tuple(knowledge.get(call_id, ())),
        )
        convo.calls.append(call)
        convo.history.append(call)
    return convo
