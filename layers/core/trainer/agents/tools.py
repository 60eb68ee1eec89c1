"""The one tool executor (docs/architecture.md#tools), for the chat agent and the registry agents alike: a set
of tools (`trainer.tools.base.Tool`) with their Anthropic definitions, argument validation, execution that
never raises into the step engine, and XML-wrapped observations."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from trainer.domain.text import escape_text
from trainer.providers.ports import ToolCall, ToolSpec
from trainer.tools.base import (
    DEFAULT_PRIORITY,
    FINAL_ARGUMENT,
    NOTE_ARGUMENT,
    AnyTool,
    DeliveredArtifact,
    EndsTurn,
    StatusMessage,
    ToolContext,
    ToolError,
    ToolFailure,
    ToolResult,
    validation_summary,
)

logger = logging.getLogger(__name__)

EPHEMERAL = {"type": "ephemeral"}
FINAL_PROPERTY = {"type": "boolean", "description": "Ends the turn"}
NOTE_PROPERTY = {"type": "string", "description": "Your words after the result"}
"""The two arguments every tool that can finish the turn takes (`Tool.can_finish`); what they do is the
system prompt's <turn_end>, stated there once."""


def canonical_json(value: Any) -> str:
    """The one serialisation used wherever the agent stringifies data: stable bytes for the cache."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class ToolOutcome:
    """One executed call. `body` is the observation as the tool wrote it, `formatted` the same wrapped
    in its `<tool_result>` tag (escaped); `ends_turn` is set when a successful call ends the turn."""

    tool: str
    result: ToolResult | ToolFailure
    body: str
    formatted: str
    ends_turn: EndsTurn | None = None
    duration_ms: int = 0
    finishes: bool = False
    """The call was marked final and succeeded: the turn ends with a reply written from its results."""
    note: str | None = None
    """The model's note sent with a call that finishes (NOTE_ARGUMENT), as sent."""

    @property
    def success(self) -> bool:
        return isinstance(self.result, ToolResult)

    def result_json(self) -> dict[str, Any]:
        return self.result.model_dump(mode="json", exclude_none=True)

    def delivered_artifact(self) -> DeliveredArtifact | None:
        return self.result.delivered_artifact() if isinstance(self.result, ToolResult) else None


def wrap_observation(tool: str, body: str, *, success: bool) -> str:
    """The observation the model reads: `<tool_result tool=".." status="ok|error">`. The body is escaped: it
    may quote the user, the database or the model's own arguments."""
    status = "ok" if success else "error"
    name = escape_text(tool, attribute=True)
    return f'<tool_result tool="{name}" status="{status}">{escape_text(body)}</tool_result>'


NULL = {"type": "null"}


def model_facing_schema(node: Any, *, in_properties: bool = False) -> Any:
    """A tool's argument schema as the model is sent it: the pydantic schema without what tells the
    model nothing, the rule every tool's definition follows (so a definition costs only what it says):

    - pydantic's generated `title`s go (a property named `title` stays);
    - an optional field's `anyOf: [X, null]` with `default: null` is sent as X: it is optional
      because `required` does not list it, and leaving it out is what the model should do;
    - what only says a value is sane goes: `additionalProperties: false`, `maxLength` and `maxItems`,
      a `minLength` or `minItems` of 1, a `minimum` of 0 or 1, a `maximum` of SANITY_CEILING or more.
      The validator still refuses unknown fields, empty or overlong strings and lists, negative counts
      and absurd numbers with a message naming the field, and the system prompt says once that
      arguments take only the fields their schema lists (the same bounds repeated on every field of
      every tool were about a tenth of the tools' tokens).

    Fields, required fields, types, enums, the bounds that shape an answer (RPE up to 10, a 1-5 scale,
    15-180 minutes, 4-16 weeks) and descriptions stay: each tells the model what the validator will
    accept, which saves a failed call and another round trip. (Measured on the chat agent's 39 tools:
    18.8k -> 15.9k tokens for the first two rules; the sanity bounds, on its 45 tools, about 1.9k.)"""
    if isinstance(node, list):
        return [model_facing_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    if in_properties:
        return {name: model_facing_schema(v) for name, v in node.items()}
    any_of = node.get("anyOf")
    if isinstance(any_of, list) and NULL in any_of and "default" in node and node["default"] is None:
        others = [v for v in any_of if v != NULL]
        if len(others) == 1 and isinstance(others[0], dict):
            node = {**others[0], **{k: v for k, v in node.items() if k not in ("anyOf", "default")}}
    return {
        key: model_facing_schema(value, in_properties=key in ("properties", "$defs"))
        for key, value in node.items()
        if not _says_nothing(key, value)
    }


SANITY_CEILING = 500
"""A `maximum` this high is a sanity bound no real value meets (reps, loads, seconds, distances)."""


def _says_nothing(key: str, value: Any) -> bool:
    return (
        (key == "title" and isinstance(value, str))
        or (key == "additionalProperties" and value is False)
        or key in ("maxLength", "maxItems")
        or (key in ("minLength", "minItems") and value == 1)
        or (key in ("minimum", "exclusiveMinimum") and value in (0, 1) and not isinstance(value, bool))
        or (key in ("maximum", "exclusiveMaximum") and _number(value) >= SANITY_CEILING)
    )


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def shared_definitions(
    schema: dict[str, Any], shared: Mapping[str, str], fields_of: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The schema with each shared argument (`Tool.shared_arguments`: argument -> the tool whose
    schema defines it in full) sent as its bare type and its description, which names that tool: the
    exercise schema once, in generate_workout, instead of in every tool that takes an exercise; and
    without the optional arguments another tool's schema (`fields_of`, `Tool.fields_as_in`) sends as
    well, which the tool's description names instead. The validator still checks every field;
    definitions nothing refers to any more go."""
    if not shared and not fields_of:
        return schema
    properties = dict(schema.get("properties", {}))
    if fields_of:
        required = set(schema.get("required", []))
        properties = {k: v for k, v in properties.items() if k in required or k not in fields_of}
    for argument, owner in shared.items():
        sent = properties[argument]
        loose: dict[str, Any] = {"type": sent.get("type", "object")}
        if loose["type"] == "array":
            loose["items"] = {"type": "object"}
        said = str(sent.get("description", "")).rstrip(".")
        loose["description"] = f"{said} (as in {owner})" if said else f"As in {owner}"
        properties[argument] = loose
    schema = {**schema, "properties": properties}
    defs = schema.pop("$defs", None)
    if defs:
        used = _referenced(schema, defs)
        if used:
            schema["$defs"] = {name: body for name, body in defs.items() if name in used}
    return schema


def _referenced(schema: Any, defs: Mapping[str, Any]) -> set[str]:
    """The definitions the schema refers to, directly or through other definitions."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name not in found and name in defs:
                    found.add(name)
                    pending.append(defs[name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return found


class ToolSet:
    """The tools an agent may call, by name, and their executor."""

    def __init__(self, tools: Iterable[AnyTool] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        self._definitions: list[dict[str, Any]] | None = None
        for tool in tools:
            self.register(tool)

    def register(self, tool: AnyTool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool
        self._definitions = None

    def get(self, name: str) -> AnyTool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def definitions(self) -> list[dict[str, Any]]:
        """Anthropic tool definitions in registration order; cache breakpoint 1 on the last one.
        Built once and shared (byte-identical in every request): callers must not mutate them."""
        if self._definitions is None:
            defs: list[dict[str, Any]] = []
            for tool in self._tools.values():
                schema = shared_definitions(
                    model_facing_schema(tool.input_schema()), tool.shared_arguments, self._fields_of(tool)
                )
                schema.setdefault("type", "object")
                if tool.can_finish:
                    schema["properties"] = {
                        **schema.get("properties", {}),
                        FINAL_ARGUMENT: FINAL_PROPERTY,
                        NOTE_ARGUMENT: NOTE_PROPERTY,
                    }
                defs.append({"name": tool.name, "description": tool.description, "input_schema": schema})
            if defs:
                defs[-1]["cache_control"] = dict(EPHEMERAL)
            self._definitions = json.loads(canonical_json(defs))
        return list(self._definitions)

    def _fields_of(self, tool: AnyTool) -> Mapping[str, Any] | None:
        """The arguments of the tool whose fields `tool` also takes (`Tool.fields_as_in`)."""
        owner = self._tools.get(tool.fields_as_in) if tool.fields_as_in else None
        return owner.input_schema().get("properties", {}) if owner is not None else None

    def specs(self) -> list[ToolSpec]:
        """The tools as a registry agent's request lists them (the adapter writes the provider's shape)."""
        specs: list[ToolSpec] = []
        for tool in self._tools.values():
            schema = tool.input_schema()
            schema.setdefault("type", "object")
            specs.append(ToolSpec(tool.name, tool.description, schema))
        return specs

    def text_reply(
        self, text: str, *, artifact_id: str | None = None, final: bool = False
    ) -> tuple[str, dict[str, Any]] | None:
        """The call (tool name, arguments) a reply written outside the model's tool calls runs as (a
        text-only answer; a closing reply with the artifact to deliver, marked final); None when no
        tool takes one."""
        for tool in self._tools.values():
            if tool.text_reply_argument is not None:
                arguments: dict[str, Any] = {tool.text_reply_argument: text}
                if artifact_id is not None and tool.artifact_argument is not None:
                    arguments[tool.artifact_argument] = artifact_id
                if final and FINAL_ARGUMENT in tool.Args.model_fields:
                    arguments[FINAL_ARGUMENT] = True
                return tool.name, arguments
        return None

    def status_for(self, name: str) -> StatusMessage | None:
        tool = self._tools.get(name)
        return tool.status if tool else None

    def parse_result(self, name: str, data: Any) -> ToolResult | ToolFailure | None:
        """A stored result read back as its tool's models; None when it no longer fits them."""
        tool = self._tools.get(name)
        if tool is None:
            return None
        try:
            return tool.parse_result(data)
        except ValidationError:
            logger.debug("stored result of %s does not fit its model", name)
            return None

    def order(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """The calls in execution order: by the tools' priority, then in the order the model wrote them."""

        def priority(call: ToolCall) -> int:
            tool = self._tools.get(call.name)
            return tool.priority if tool is not None else DEFAULT_PRIORITY

        return sorted(calls, key=priority)

    async def execute(self, name: str, raw_args: Any, ctx: ToolContext) -> ToolOutcome:
        """Runs one call; every failure (unknown tool, invalid arguments, ToolError, a crash) becomes a
        failed outcome the model reads, never an exception."""
        started = time.perf_counter()
        outcome = await self._execute(name, raw_args, ctx)
        return replace(outcome, duration_ms=int((time.perf_counter() - started) * 1000))

    async def _execute(self, name: str, raw_args: Any, ctx: ToolContext) -> ToolOutcome:
        tool = self._tools.get(name)
        if tool is None:
            return self._failure(name, f"Unknown tool: {name}")
        final, note = False, None
        if (
            tool.can_finish
            and isinstance(raw_args, dict)
            and ({FINAL_ARGUMENT, NOTE_ARGUMENT} & set(raw_args))
        ):
            raw_args = dict(raw_args)
            final = raw_args.pop(FINAL_ARGUMENT, False) is True
            note = raw_args.pop(NOTE_ARGUMENT, None)
            if note is not None and not isinstance(note, str):
                return self._failure(name, f"Invalid arguments for {name}: {NOTE_ARGUMENT}: must be a string")
        try:
            args = tool.Args.model_validate(raw_args if raw_args is not None else {})
        except ValidationError as exc:
            return self._failure(name, f"Invalid arguments for {name}: {validation_summary(exc)}")
        try:
            result = await tool.execute(args, ctx)
            body = tool.format(result)
        except ToolError as exc:
            return self._failure(name, str(exc) or type(exc).__name__)
        except Exception as exc:
            logger.exception("tool %s failed", name)
            return self._failure(name, f"internal error in {name}: {type(exc).__name__}")
        if final and (unfinished := result.unfinished()) is not None:
            final = False
            body = f"{body}\nNot final: {unfinished}; the turn goes on."
        if not final and (note := result.delivery_note()) is not None:
            body = f"{body}\n{note}"
        ends = tool.turn_ends_after(result) or ("done" if final else None)
        return ToolOutcome(
            name,
            result,
            body,
            wrap_observation(name, body, success=True),
            ends,
            finishes=final,
            note=note if final else None,
        )

    @staticmethod
    def _failure(name: str, message: str) -> ToolOutcome:
        return ToolOutcome(
            name, ToolFailure(error=message), message, wrap_observation(name, message, success=False)
        )
