"""The typed contract of what a turn sends the app: tool frames, actions, artifacts and session events,
typed per tool and per event type, as the OpenAPI document publishes them.

At run time frames, actions and events are plain JSON built by the loop and the tools (which know no
HTTP contract). Here each tool's argument and result models become components
(`<Tool>Args`, `<Tool>Result`), and the unions keyed by a fixed value (`type`, `tool`, `event_type`)
are written with an OpenAPI `discriminator` and its `mapping`, so generated clients narrow them:

- `Frame` on `type`; its `tool_start` and `tool_result` members are unions on `tool`
  (`<Tool>ToolStart` with the call's `args`, `<Tool>ToolResult` with the result or the failure);
- `Action` (a tool call of a buffered turn) on `tool`;
- `Event` (a stored session event) on `event_type`, with its `data` per type;
- `Artifact` (what a reply delivers) on `type`.

`public_frame` and `public_action` keep the run time inside the contract: a call of a tool the
contract does not know is not sent, and arguments that do not fit the tool's model are left out.
A JSON object of no fixed shape (a model's raw call arguments, a provider's raw response) is a
`JsonObject`: any JSON object, typed as JSON.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.json_schema import models_json_schema

from trainer.frames import (
    FRAME_DESCRIPTION,
    FRAME_MODELS,
    TOOL_FRAME_TYPES,
    Frame,
    ToolResultFrame,
    ToolStartFrame,
    TurnOutcome,
    frame_type,
)
from trainer.store.models import EventType
from trainer.tools.artifacts import PUBLISHED_AS, Artifact
from trainer.tools.base import ToolFailure

if TYPE_CHECKING:
    from trainer.tools.base import AnyTool

JSON_OBJECT = "JsonObject"
JsonObject = dict[str, Any]
"""A JSON object of no fixed shape: published as a `JsonObject`."""
_SCALARS: list[dict[str, Any]] = [
    {"type": "null"},
    {"type": "boolean"},
    {"type": "number"},
    {"type": "string"},
]
ARRAY_DEPTH = 3
"""How deep arrays may nest inside a `JsonObject` (objects nest without limit): generators that
cannot write a recursive union (openapi-python-client) can still type it."""


def json_object_schema(ref_template: str) -> dict[str, Any]:
    obj = {"$ref": ref_template.format(model=JSON_OBJECT)}
    value: dict[str, Any] = {"anyOf": [*_SCALARS, obj]}
    for _ in range(ARRAY_DEPTH):
        value = {"anyOf": [*_SCALARS, obj, {"type": "array", "items": value}]}
    return {
        "type": "object",
        "description": "Any JSON object (arrays nest at most 3 deep).",
        "additionalProperties": value,
    }


# --- session events ---------------------------------------------------------------------------------


class _EventData(BaseModel):
    model_config = ConfigDict(extra="ignore")


class UserMessageData(_EventData):
    message: str


class LlmRequestData(_EventData):
    model: str
    prompt: str
    estimated_tokens: int
    iteration: int


class TokenCounts(_EventData):
    """Prompt tokens exclude cache reads and writes (the Anthropic convention)."""

    prompt: int
    completion: int
    cached: int
    cache_write: int
    total: int


class ProviderUsage(_EventData):
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int


class LlmResponseData(_EventData):
    provider: str
    model: str
    stop_reason: str | None = None
    raw_response: JsonObject
    """The provider's response, without tool inputs and with long text cut."""
    tokens: TokenCounts
    usage: ProviderUsage
    cost_cents: float


class ToolCallData(_EventData):
    tool_name: str
    arguments: JsonObject
    """The model's arguments as it sent them (the result says whether they fitted the tool)."""
    call_id: str


class ToolResultData(_EventData):
    tool_name: str
    result: JsonObject
    """The tool's result (`success: true`) or its failure (`success: false`, `error`)."""
    success: bool
    call_id: str
    formatted: str


class KnowledgeBudget(_EventData):
    """How a source fitted the turn's prompt budget (docs/architecture.md#the-prompt-budget); sizes in
    estimated tokens (characters / 4)."""

    tokens: int = Field(description="What the model was given.")
    limit: int = Field(description="The source's share of the turn's budget.")
    full_tokens: int = Field(description="The source in full.")
    left_out: int = Field(description="Entries left out to fit (0: it fitted whole).")


class KnowledgeEventData(_EventData):
    source: str
    params: JsonObject
    data: str
    budget: KnowledgeBudget | None = Field(
        default=None, description="How it fitted the prompt budget (absent on events stored before it)."
    )


class ErrorEventData(_EventData):
    code: str
    message: str
    context: str


class CheckpointData(_EventData):
    events_summarized: str
    events: str
    current_state: dict[str, str]
    created_at: str


class TurnEndData(_EventData):
    outcome: TurnOutcome
    """How the turn ended (the `turn_end` frame's outcome)."""


EVENT_DATA: dict[EventType, Any] = {
    EventType.USER_MESSAGE: UserMessageData,
    EventType.LLM_REQUEST: LlmRequestData,
    EventType.LLM_RESPONSE: LlmResponseData,
    EventType.TOOL_CALL: ToolCallData,
    EventType.TOOL_RESULT: ToolResultData,
    EventType.KNOWLEDGE: KnowledgeEventData,
    EventType.ERROR: ErrorEventData,
    EventType.ARTIFACT: Artifact,
    EventType.CHECKPOINT: CheckpointData,
    EventType.TURN_END: TurnEndData,
}
"""The `data` of each event type."""


# --- the tools ----------------------------------------------------------------------------------------


@functools.cache
def tool_catalog() -> dict[str, AnyTool]:
    """Every tool the chat agent streams frames of, by name (trainer.chat.agent.CHAT_TOOLS)."""
    from trainer.chat.agent import CHAT_TOOLS

    return {tool.name: tool for tool in CHAT_TOOLS}


def pascal(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_\W]+", name) if part)


def public_args(tool: AnyTool, args: dict[str, Any] | None) -> dict[str, Any] | None:
    """The call's arguments as the tool's model reads them; None when they do not fit it."""
    try:
        parsed = tool.Args.model_validate(args if args is not None else {})
    except ValidationError:
        return None
    return parsed.model_dump(mode="json", exclude_unset=True, exclude_none=True)


def public_frame(frame: Frame) -> Frame | None:
    """The frame as the contract describes it, or None for a tool frame of a tool it does not know."""
    if isinstance(frame, ToolStartFrame):
        tool = tool_catalog().get(frame.tool)
        if tool is None:
            return None
        return frame.model_copy(update={"args": public_args(tool, frame.args)})
    if isinstance(frame, ToolResultFrame):
        return frame if frame.tool in tool_catalog() else None
    return frame


def public_action(action: dict[str, Any]) -> dict[str, Any] | None:
    """A buffered turn's action (`{tool, args, result}`) as the contract describes it."""
    tool = tool_catalog().get(action["tool"])
    if tool is None:
        return None
    args = public_args(tool, action.get("args"))
    return {
        "tool": action["tool"],
        **({"args": args} if args is not None else {}),
        "result": action["result"],
    }


def _tool_models() -> Iterator[tuple[str, type[BaseModel], type[BaseModel]]]:
    """Per tool: its name, its argument model and its result model under the names they are
    published by (`<Tool>Args`, `<Tool>Result`)."""
    for name, tool in sorted(tool_catalog().items()):
        stem = pascal(name)
        args = create_model(f"{stem}Args", __base__=tool.Args, __module__=__name__)
        args.__doc__ = f"The arguments of `{name}`."
        result = create_model(f"{stem}Result", __base__=tool.Result, __module__=__name__)
        result.__doc__ = tool.Result.__doc__ or f"The result of `{name}`."
        yield name, args, result


def _ref(ref_template: str, name: str) -> dict[str, str]:
    return {"$ref": ref_template.format(model=name)}


def _union(ref_template: str, description: str, prop: str, members: dict[str, str]) -> dict[str, Any]:
    return {
        "description": description,
        "oneOf": [_ref(ref_template, name) for name in members.values()],
        "discriminator": {
            "propertyName": prop,
            "mapping": {value: ref_template.format(model=name) for value, name in members.items()},
        },
    }


def contract_schemas(ref_template: str, event_schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The components of the typed contract, keyed by name. `event_schema` is the generic `Event`
    schema of the API (its fields), which `Event` becomes the typed union of."""
    tools = list(_tool_models())
    event_models = {kind: model for kind, model in EVENT_DATA.items() if isinstance(model, type)}
    extra: list[tuple[type[BaseModel], Any]] = [(ToolFailure, "serialization")]
    extra += [(model, "serialization") for model in event_models.values()]
    extra += [(model, "serialization") for model in FRAME_MODELS if frame_type(model) not in TOOL_FRAME_TYPES]
    pairs = [(model, "serialization") for _, args, result in tools for model in (args, result)] + extra
    _, top = models_json_schema(pairs, ref_template=ref_template)
    schemas: dict[str, dict[str, Any]] = top.get("$defs", {})
    artifact = TypeAdapter(Artifact).json_schema(mode="serialization", ref_template=ref_template)
    schemas.update(artifact.pop("$defs", {}))
    schemas["Artifact"] = {"description": "What a reply delivers, told apart by `type`.", **artifact}
    schemas[JSON_OBJECT] = json_object_schema(ref_template)
    for name, schema in list(schemas.items()):
        schemas[name] = untyped_objects_as_json(schema, ref_template)
    for outcome_name in [result.__name__ for _, _, result in tools] + ["ToolFailure"]:
        required = schemas[outcome_name].setdefault("required", [])
        if "success" not in required:
            required.insert(0, "success")  # always sent: it tells a result from a failure

    failure = _ref(ref_template, "ToolFailure")
    starts: dict[str, str] = {}
    results: dict[str, str] = {}
    actions: dict[str, str] = {}
    for name, args, result in tools:
        stem = pascal(name)
        tool = {"type": "string", "const": name}
        outcome = {"oneOf": [_ref(ref_template, result.__name__), failure]}
        starts[name] = f"{stem}ToolStart"
        schemas[starts[name]] = {
            "type": "object",
            "description": f"`{name}` begins. `args` is left out when the model's arguments do not fit it.",
            "properties": {
                "type": {"type": "string", "const": "tool_start"},
                "tool": tool,
                "args": _ref(ref_template, args.__name__),
            },
            "required": ["type", "tool"],
            "additionalProperties": False,
        }
        results[name] = f"{stem}ToolResult"
        schemas[results[name]] = {
            "type": "object",
            "description": f"`{name}` finished: its result, or its failure (`status: failed`).",
            "properties": {
                "type": {"type": "string", "const": "tool_result"},
                "tool": tool,
                "data": outcome,
                "formatted": {"type": "string", "description": "What the model read of it."},
                "status": {"type": "string", "enum": ["done", "failed"]},
                "artifact": {
                    **_ref(ref_template, "Artifact"),
                    "description": "The artifact the call delivered (message_notify_user).",
                },
                "artifact_id": {
                    "type": "string",
                    "description": "The artifact the call created, changed or delivered.",
                },
            },
            "required": ["type", "tool", "data", "formatted", "status"],
            "additionalProperties": False,
        }
        actions[name] = f"{stem}Action"
        schemas[actions[name]] = {
            "type": "object",
            "description": f"A call of `{name}`. `args` is left out when they did not fit the tool.",
            "properties": {"tool": tool, "args": _ref(ref_template, args.__name__), "result": outcome},
            "required": ["tool", "result"],
        }
    schemas["ToolStartFrame"] = _union(
        ref_template, "A tool call begins; `tool` names the tool (and types `args`).", "tool", starts
    )
    schemas["ToolResultFrame"] = _union(
        ref_template, "A tool call finished; `tool` names the tool (and types `data`).", "tool", results
    )
    schemas["Action"] = _union(ref_template, "One tool call of the turn with its result.", "tool", actions)
    members = {frame_type(model): model.__name__ for model in FRAME_MODELS}
    schemas["Frame"] = _union(ref_template, FRAME_DESCRIPTION, "type", members)

    kinds: dict[str, str] = {}
    for kind, model in EVENT_DATA.items():
        data_name = model.__name__ if isinstance(model, type) else "Artifact"
        kinds[kind.value] = f"{pascal(kind.value)}Event"
        properties = dict(event_schema["properties"])
        properties["event_type"] = {"type": "string", "const": kind.value}
        properties["data"] = _ref(ref_template, data_name)
        schemas[kinds[kind.value]] = {**event_schema, "properties": properties, "title": kinds[kind.value]}
    schemas["Event"] = _union(
        ref_template, "A stored session event; `event_type` types its `data`.", "event_type", kinds
    )
    return schemas


def untyped_objects_as_json(schema: Any, ref_template: str) -> Any:
    """An object of no declared shape (`dict[str, Any]`) in the tools' and events' models, published
    as a `JsonObject`; a `published_as` marker as a reference to its component."""
    if isinstance(schema, list):
        return [untyped_objects_as_json(item, ref_template) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if PUBLISHED_AS in schema:
        kept = {k: v for k, v in schema.items() if k in ("description",)}
        return {**_ref(ref_template, schema[PUBLISHED_AS]), **kept}
    if schema.get("type") == "object" and "properties" not in schema:
        extra = schema.get("additionalProperties", True)
        if extra is True or extra == {}:
            kept = {k: v for k, v in schema.items() if k in ("description", "maxProperties", "minProperties")}
            return {**_ref(ref_template, JSON_OBJECT), **kept}
    return {key: untyped_objects_as_json(value, ref_template) for key, value in schema.items()}
