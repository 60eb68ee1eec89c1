"""The SSE frames of a turn (seed 002 §8.3, ARCHITECTURE §7) as pydantic models: the loop and the
tools emit them, the API encodes them, and the OpenAPI document publishes them.

Tool frames carry the tool's name in `type` (seed 002): a tool start has `data.status == "running"`,
a tool result has a top-level `status`. The other frames have fixed `type` values. `Frame` is the
union, told apart by `frame_kind`.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, TypeAdapter

StatusPhase = Literal["start", "done", "error"]
FIXED_TYPES = ("status", "knowledge", "message_delta", "session", "error", "done")


def wire_json_schema(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Makes a model's JSON schema describe its wire JSON under `exclude_none`: a field whose type
    admits None is optional and never null (None is left out); every other field is required.
    Pydantic's property titles (`Sessionid`, `Artifact Id`) and defaults are dropped."""
    properties: dict[str, Any] = schema.get("properties", {})
    required: list[str] = []
    for name, field in model.model_fields.items():
        key = field.serialization_alias or field.alias or name
        prop = properties.get(key)
        if not isinstance(prop, dict):
            continue
        prop.pop("title", None)
        prop.pop("default", None)
        if not _admits_none(field.annotation):
            required.append(key)
            continue
        choices = [choice for choice in prop.pop("anyOf", []) if choice != {"type": "null"}]
        if len(choices) == 1:
            prop.update(choices[0])
        elif choices:
            prop["anyOf"] = choices
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)


def _admits_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None) or annotation is Any:
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_admits_none(arg) for arg in get_args(annotation))
    return False


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, json_schema_extra=wire_json_schema)


class StatusData(_Frame):
    message: str
    tool: str
    phase: StatusPhase


class StatusFrame(_Frame):
    """Progress of a tool call, for a status line in the app."""

    type: Literal["status"] = "status"
    data: StatusData


class KnowledgeData(_Frame):
    source: str
    display_name: str = Field(alias="displayName")
    status: Literal["done"] = "done"


class KnowledgeFrame(_Frame):
    """A data source was loaded into the session."""

    type: Literal["knowledge"] = "knowledge"
    data: KnowledgeData


class MessageDeltaData(_Frame):
    tool: str
    text: str


class MessageDeltaFrame(_Frame):
    """The next piece of a user-visible message while the model is still writing it."""

    type: Literal["message_delta"] = "message_delta"
    data: MessageDeltaData


class SessionFrame(_Frame):
    """The first frame of a stream: the session the turn runs in."""

    type: Literal["session"] = "session"
    session_id: str = Field(alias="sessionId")


class ErrorFrame(_Frame):
    """The turn failed; the message is safe to show to the user."""

    type: Literal["error"] = "error"
    message: str
    code: str | None = None


class DoneFrame(_Frame):
    """Always the last frame of a stream."""

    type: Literal["done"] = "done"
    session_id: str | None = Field(alias="sessionId")


class ToolStartData(_Frame):
    status: Literal["running"] = "running"
    args: dict[str, Any]


TOOL_NAME_SCHEMA: dict[str, Any] = {
    "description": "The tool's name (never one of the fixed frame types).",
    "not": {"enum": list(FIXED_TYPES)},
}


class ToolStartFrame(_Frame):
    """A tool call begins; `type` is the tool's name."""

    type: str = Field(json_schema_extra=TOOL_NAME_SCHEMA)
    data: ToolStartData


class ToolResultFrame(_Frame):
    """A tool call finished; `type` is the tool's name, `data` its result."""

    type: str = Field(json_schema_extra=TOOL_NAME_SCHEMA)
    data: dict[str, Any]
    formatted: str
    status: Literal["done", "failed"]
    artifact: dict[str, Any] | None = None
    artifact_id: str | None = None


def frame_kind(value: Any) -> str:
    """The union's discriminator: the fixed `type`, else tool start or tool result."""
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    if not isinstance(value, dict):
        return "invalid"
    kind = value.get("type")
    if kind in FIXED_TYPES:
        return str(kind)
    if "status" in value and "formatted" in value:
        return "tool_result"
    return "tool_start"


Frame = Annotated[
    Annotated[StatusFrame, Tag("status")]
    | Annotated[KnowledgeFrame, Tag("knowledge")]
    | Annotated[MessageDeltaFrame, Tag("message_delta")]
    | Annotated[SessionFrame, Tag("session")]
    | Annotated[ErrorFrame, Tag("error")]
    | Annotated[DoneFrame, Tag("done")]
    | Annotated[ToolStartFrame, Tag("tool_start")]
    | Annotated[ToolResultFrame, Tag("tool_result")],
    Discriminator(frame_kind),
]

FrameSink = Callable[[Frame, int], Awaitable[None]]
"""Receives each frame with the sequence number of the last event persisted when it was sent."""

FRAME_DESCRIPTION = (
    "One SSE frame of a turn. `type` is a fixed value (`status`, `knowledge`, `message_delta`, "
    "`session`, `error`, `done`) or, for tool frames, the tool's name: a tool start has "
    '`data.status == "running"`, a tool result has a top-level `status` and `formatted`. '
    "`done` is always the last frame."
)


def frame_json_schemas(ref_template: str) -> dict[str, dict[str, Any]]:
    """The JSON schemas of `Frame` (the union, as `oneOf`) and of every frame model, keyed by name,
    with references written by `ref_template` (e.g. `#/components/schemas/{model}`)."""
    schema = TypeAdapter(Frame).json_schema(mode="serialization", ref_template=ref_template)
    definitions: dict[str, dict[str, Any]] = schema.pop("$defs")
    return {"Frame": {"title": "Frame", "description": FRAME_DESCRIPTION, **schema}, **definitions}


def frame_json(frame: BaseModel) -> dict[str, Any]:
    """The frame as sent on the wire (aliases, no unset optional fields)."""
    return frame.model_dump(mode="json", by_alias=True, exclude_none=True)


def status_frame(tool: str, message: str, phase: StatusPhase) -> StatusFrame:
    return StatusFrame(data=StatusData(message=message, tool=tool, phase=phase))


def tool_start_frame(tool: str, args: dict[str, Any]) -> ToolStartFrame:
    return ToolStartFrame(type=tool, data=ToolStartData(args=args))


def knowledge_frame(source: str, display_name: str) -> KnowledgeFrame:
    return KnowledgeFrame(data=KnowledgeData(source=source, display_name=display_name))


def message_delta_frame(tool: str, text: str) -> MessageDeltaFrame:
    return MessageDeltaFrame(data=MessageDeltaData(tool=tool, text=text))


def session_frame(session_id: str) -> SessionFrame:
    return SessionFrame(session_id=session_id)


def done_frame(session_id: str | None) -> DoneFrame:
    return DoneFrame(session_id=session_id)


def error_frame(message: str, code: str | None = None) -> ErrorFrame:
    return ErrorFrame(message=message, code=code)
