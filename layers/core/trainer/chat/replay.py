"""A session's events as a console timeline, one line each:
`TIMESTAMP [SESSION8] ICON Event ← details`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from trainer.store.models import Event, EventType

ARGS_PREVIEW = 40
TEXT_PREVIEW = 60


def _tokens(n: int | float) -> str:
    return f"{n / 1000:.1f}K" if n >= 1000 else str(int(n))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _duration(ms: int | None) -> str:
    if ms is None:
        return ""
    return f"{ms / 1000:.1f}s" if ms >= 1000 else f"{ms}ms"


def _response_text(raw: dict[str, Any]) -> str:
    texts = [
        b.get("text", "") for b in raw.get("content") or [] if isinstance(b, dict) and b.get("type") == "text"
    ]
    text = " ".join(t for t in texts if t).strip()
    return f'"{_clip(text, TEXT_PREVIEW)}"' if text else "(empty)"


def describe(event: Event) -> str:
    d = event.data
    match event.event_type:
        case EventType.USER_MESSAGE:
            return f'👤 User: "{_clip(str(d.get("message", "")), TEXT_PREVIEW)}"'
        case EventType.LLM_REQUEST:
            return (
                f"📤 LLM Request → {d.get('model', '?')}  est. {_tokens(d.get('estimated_tokens', 0))} tokens"
            )
        case EventType.LLM_RESPONSE:
            tokens = d.get("tokens") or {}
            cached = tokens.get("cached", 0)
            cached_part = f" ({_tokens(cached)} cached)" if cached else ""
            parts = [
                f"📥 LLM Response ← {_response_text(d.get('raw_response') or {})}  "
                f"{_tokens(tokens.get('total', 0))} tokens{cached_part}",
                f"${float(d.get('cost_cents', 0)) / 100:.4f}",
            ]
            if event.duration_ms is not None:
                parts.append(_duration(event.duration_ms))
            return " | ".join(parts)
        case EventType.TOOL_CALL:
            args = json.dumps(d.get("arguments", {}), ensure_ascii=False, separators=(",", ":"))
            return f"🔧 Tool Call → {d.get('tool_name', '?')}  {_clip(args, ARGS_PREVIEW)}"
        case EventType.TOOL_RESULT:
            mark = "✓" if d.get("success") else "✗"
            timing = f"  {_duration(event.duration_ms)}" if event.duration_ms is not None else ""
            return f"🔧 Tool Result ← {d.get('tool_name', '?')}: {mark}{timing}"
        case EventType.ARTIFACT:
            return f'📦 Artifact ← {d.get("type", "?")}  "{d.get("title", "")}"'
        case EventType.KNOWLEDGE:
            params = d.get("params") or {}
            shown = f"  {json.dumps(params, sort_keys=True, separators=(',', ':'))}" if params else ""
            return f"📚 Knowledge ← {d.get('source', '?')}{shown}"
        case EventType.ERROR:
            where = f" ({d['context']})" if d.get("context") else ""
            return f"❌ Error{where}: {_clip(str(d.get('message', '')), 120)}"
        case EventType.CHECKPOINT:
            return f"🧭 Checkpoint ← events {d.get('events_summarized', '?')}"
        case EventType.TURN_END:
            return f"🏁 Turn end: {d.get('outcome', '?')}"
    return f"• {event.event_type}"


def format_timeline(events: Iterable[Event], session_id: str) -> list[str]:
    short = session_id.replace("-", "")[:8]
    lines = []
    for event in events:
        stamp = event.timestamp.strftime("%H:%M:%S.") + f"{event.timestamp.microsecond // 1000:03d}"
        lines.append(f"{stamp} [{short}] {describe(event)}")
    return lines
