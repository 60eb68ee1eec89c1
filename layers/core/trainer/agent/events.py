"""SSE event payloads the loop emits (seed 002 §8.3, ARCHITECTURE §7). The API layer frames them."""

from __future__ import annotations

from typing import Any, Literal

StatusPhase = Literal["start", "done", "error"]


def status_event(tool: str, message: str, phase: StatusPhase) -> dict[str, Any]:
    return {"type": "status", "data": {"message": message, "tool": tool, "phase": phase}}


def tool_start_event(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": tool, "data": {"status": "running", "args": args}}


def tool_result_event(tool: str, result: dict[str, Any], formatted: str, success: bool) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": tool,
        "data": result,
        "formatted": formatted,
        "status": "done" if success else "failed",
    }
    if result.get("artifact") is not None:
        event["artifact"] = result["artifact"]
    if result.get("artifact_id") is not None:
        event["artifact_id"] = result["artifact_id"]
    return event


def knowledge_event(source: str, display_name: str) -> dict[str, Any]:
    return {"type": "knowledge", "data": {"source": source, "displayName": display_name, "status": "done"}}


def message_delta_event(tool: str, text: str) -> dict[str, Any]:
    return {"type": "message_delta", "data": {"tool": tool, "text": text}}


def done_event(session_id: str) -> dict[str, Any]:
    return {"type": "done", "sessionId": session_id}


def error_event(message: str) -> dict[str, Any]:
    return {"type": "error", "message": message}
