"""The SSE frames of a turn (docs/api.md#server-sent-events) as pydantic models: the loop and the
tools emit them, the API encodes them, and the OpenAPI document publishes them.

Every frame has a fixed `type`; `Frame` is the union discriminated on it. Tool frames name the tool in
`tool` (`tool_start`, `tool_result`). Here a tool frame's `args` and `data` are plain JSON objects:
this module knows no tool. The published contract (trainer.api.contract) types them per tool, keyed by
`tool`, and the API streams only the tool frames that contract describes.

`turn_end` closes every turn's frames (with how the turn ended); `done` is always the last frame.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

StatusPhase = Literal["start", "done", "error"]
TurnOutcome = Literal["replied", "asked", "failed", "limit", "refused"]
"""How a turn ended: the agent replied and went idle, asked the user and waits for the answer, failed,
hit its iteration limit, or the model declined the request (the turn then replies with a message saying
so: a refusal is an answer, not a failure)."""


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


class MessageResetFrame(_Frame):
    """Drop the preview: the `message_delta` text sent since the last `tool_result` belonged to an
    answer that was cut off or withdrawn (the model call is made again, or the model declined); the
    message that follows replaces it. Like `message_delta`, it carries no frame id and is never
    replayed."""

    type: Literal["message_reset"] = "message_reset"


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


class TurnEndFrame(_Frame):
    """The turn is over: how it ended. Every turn's frames end with it, right before `done`."""

    type: Literal["turn_end"] = "turn_end"
    outcome: TurnOutcome
    session_id: str | None = Field(alias="sessionId")


class ToolStartFrame(_Frame):
    """A tool call begins. `args` are the call's arguments (left out when they do not fit the tool)."""

    type: Literal["tool_start"] = "tool_start"
    tool: str
    args: dict[str, Any] | None = None


class ToolResultFrame(_Frame):
    """A tool call finished: `data` is its result (`success: true`) or its failure (`success: false`)."""

    type: Literal["tool_result"] = "tool_result"
    tool: str
    data: dict[str, Any]
    formatted: str
    status: Literal["done", "failed"]
    artifact: dict[str, Any] | None = None
    artifact_id: str | None = None


FrameModel = (
    SessionFrame
    | StatusFrame
    | KnowledgeFrame
    | MessageDeltaFrame
    | MessageResetFrame
    | ToolStartFrame
    | ToolResultFrame
    | ErrorFrame
    | TurnEndFrame
    | DoneFrame
)
Frame = Annotated[FrameModel, Field(discriminator="type")]
FRAME_MODELS: tuple[type[BaseModel], ...] = get_args(FrameModel)
TOOL_FRAME_TYPES = ("tool_start", "tool_result")
"""The frame types whose payload the published contract types per tool."""

FrameSink = Callable[[Frame, int], Awaitable[None]]
"""Receives each frame with the sequence number of the last event persisted when it was sent."""

FRAME_DESCRIPTION = (
    "One SSE frame of a turn, told apart by `type` (a fixed value). Tool frames (`tool_start`, "
    "`tool_result`) name the tool in `tool`, which types their `args` and `data`. `message_delta` "
    "previews the message being written; `message_reset` tells the client to drop that preview (the "
    "answer was cut off and is written again, or withdrawn). `turn_end` closes every turn (with its "
    "outcome) and `done` is always the last frame."
)
PREVIEW_FRAMES: tuple[type[BaseModel], ...] = (MessageDeltaFrame, MessageResetFrame)
"""Frames about the message being written: no frame id, never recorded nor replayed (the `tool_result`
that follows carries the message whole)."""


def frame_type(model: type[BaseModel]) -> str:
    """The fixed `type` of a frame model."""
    return str(model.model_fields["type"].default)


def frame_json_schemas(ref_template: str) -> dict[str, dict[str, Any]]:
    """The JSON schemas of the frame models that are not tool frames (and of their parts), keyed by
    name, with references written by `ref_template` (e.g. `#/components/schemas/{model}`)."""
    fixed = [model for model in FRAME_MODELS if frame_type(model) not in TOOL_FRAME_TYPES]
    schema = TypeAdapter(Union[tuple(fixed)]).json_schema(mode="serialization", ref_template=ref_template)  # noqa: UP007
    definitions: dict[str, dict[str, Any]] = schema.pop("$defs")
    return definitions


def frame_json(frame: BaseModel) -> dict[str, Any]:
    """The frame as sent on the wire (aliases, no unset optional fields)."""
    return frame.model_dump(mode="json", by_alias=True, exclude_none=True)


def status_frame(tool: str, message: str, phase: StatusPhase) -> StatusFrame:
    return StatusFrame(data=StatusData(message=message, tool=tool, phase=phase))


def tool_start_frame(tool: str, args: dict[str, Any]) -> ToolStartFrame:
    return ToolStartFrame(tool=tool, args=args)


def knowledge_frame(source: str, display_name: str) -> KnowledgeFrame:
    return KnowledgeFrame(data=KnowledgeData(source=source, display_name=display_name))


def message_delta_frame(tool: str, text: str) -> MessageDeltaFrame:
    return MessageDeltaFrame(data=MessageDeltaData(tool=tool, text=text))


def message_reset_frame() -> MessageResetFrame:
    return MessageResetFrame()


def session_frame(session_id: str) -> SessionFrame:
    return SessionFrame(session_id=session_id)


def done_frame(session_id: str | None) -> DoneFrame:
    return DoneFrame(session_id=session_id)


def error_frame(message: str, code: str | None = None) -> ErrorFrame:
    return ErrorFrame(message=message, code=code)


def turn_end_frame(outcome: TurnOutcome, session_id: str | None) -> TurnEndFrame:
    return TurnEndFrame(outcome=outcome, session_id=session_id)
