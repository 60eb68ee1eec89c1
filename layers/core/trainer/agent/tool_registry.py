"""The tool registry (seed 002 §6.1-§6.2): Anthropic tool definitions, argument validation,
execution that never raises into the loop, and XML-wrapped observations."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from trainer.tools.base import StatusMessage, Tool, ToolContext, ToolError

logger = logging.getLogger(__name__)

EPHEMERAL = {"type": "ephemeral"}
MAX_LISTED_ERRORS = 8


def canonical_json(value: Any) -> str:
    """The one serialisation used wherever the agent stringifies data: stable bytes for the cache."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class ToolExecution:
    tool: str
    result: dict[str, Any]
    formatted: str
    success: bool


def wrap_observation(tool: str, body: str, *, success: bool) -> str:
    """Seed 002 §6.2 wrapInXml."""
    status = "ok" if success else "error"
    return f'<tool_result tool="{tool}" status="{status}">{body}</tool_result>'


def validation_summary(error: ValidationError, *, prefix: str = "") -> str:
    """'loc: msg; loc: msg' — compact enough for the model to fix its call."""
    parts: list[str] = []
    for item in error.errors(include_url=False)[:MAX_LISTED_ERRORS]:
        loc = ".".join(str(p) for p in item.get("loc", ()))
        msg = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        where = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
        parts.append(f"{where}: {msg}" if where else msg)
    extra = error.error_count() - MAX_LISTED_ERRORS
    if extra > 0:
        parts.append(f"(+{extra} more)")
    return "; ".join(parts)


def _strip_titles(node: Any, *, in_properties: bool = False) -> Any:
    """Drops pydantic's auto-generated `title` keywords (tokens the model does not need) but
    keeps properties that happen to be named `title`."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if not in_properties and key == "title" and isinstance(value, str):
                continue
            out[key] = _strip_titles(value, in_properties=(key == "properties" and not in_properties))
        return out
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._definitions: list[dict[str, Any]] | None = None
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool
        self._definitions = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def definitions(self) -> list[dict[str, Any]]:
        """Anthropic tool definitions in registration order; cache breakpoint 1 on the last one.
        Built once and shared (byte-identical in every request): callers must not mutate them."""
        if self._definitions is None:
            defs: list[dict[str, Any]] = []
            for tool in self._tools.values():
                schema = _strip_titles(tool.input_schema())
                schema.setdefault("type", "object")
                defs.append({"name": tool.name, "description": tool.description, "input_schema": schema})
            if defs:
                defs[-1]["cache_control"] = dict(EPHEMERAL)
            self._definitions = json.loads(canonical_json(defs))
        return list(self._definitions)

    def status_for(self, name: str) -> StatusMessage | None:
        tool = self._tools.get(name)
        return tool.status if tool else None

    def is_terminal(self, name: str) -> bool:
        tool = self._tools.get(name)
        return bool(tool and tool.terminal)

    async def execute(self, name: str, raw_args: Any, ctx: ToolContext) -> ToolExecution:
        tool = self._tools.get(name)
        if tool is None:
            return self._failure(name, f"Unknown tool: {name}")
        try:
            args = tool.Args.model_validate(raw_args if raw_args is not None else {})
        except ValidationError as exc:
            return self._failure(name, f"Invalid arguments for {name}: {validation_summary(exc)}")
        try:
            result = await tool.execute(args, ctx)
            result.setdefault("success", True)
            body = tool.format(result)
        except ToolError as exc:
            return self._failure(name, str(exc) or type(exc).__name__)
        except Exception as exc:
            logger.exception("tool %s failed", name)
            return self._failure(name, f"internal error in {name}: {type(exc).__name__}")
        success = bool(result.get("success"))
        return ToolExecution(name, result, wrap_observation(name, body, success=success), success)

    @staticmethod
    def _failure(name: str, message: str) -> ToolExecution:
        result = {"success": False, "error": message}
        return ToolExecution(name, result, wrap_observation(name, message, success=False), False)
