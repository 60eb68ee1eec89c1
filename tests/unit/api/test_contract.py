"""The typed contract (trainer.api.contract) and the document built with it: frames, actions and events
as unions discriminated on a fixed value with a `mapping` for every value; tool frames of a tool the
contract does not know are not sent, arguments that do not fit the tool are left out; operation ids
are method names; every status an operation can answer is documented."""

from __future__ import annotations

import re
from typing import Any

import pytest
from trainer.api.app import create_app
from trainer.api.contract import public_action, public_frame, tool_catalog
from trainer.chat.results import STOP_OUTCOMES
from trainer.frames import FRAME_MODELS, frame_type, status_frame, tool_start_frame
from trainer.settings import Settings
from trainer.store.models import EventType

VERBS = ("get", "list", "create", "update", "delete", "send", "stream", "import", "register", "export", "set")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app(settings=Settings.model_construct()).openapi()


def mapping(document: dict[str, Any], name: str) -> dict[str, str]:
    schema = document["components"]["schemas"][name]
    refs = [member["$ref"] for member in schema["oneOf"]]
    assert sorted(schema["discriminator"]["mapping"].values()) == sorted(refs)
    return {value: ref.rsplit("/", 1)[-1] for value, ref in schema["discriminator"]["mapping"].items()}


def test_frame_is_discriminated_on_type_with_a_mapping_for_every_frame_type(document: dict[str, Any]) -> None:
    frames = mapping(document, "Frame")
    assert set(frames) == {frame_type(model) for model in FRAME_MODELS}
    assert frames["tool_start"] == "ToolStartFrame" and frames["turn_end"] == "TurnEndFrame"
    schemas = document["components"]["schemas"]
    for value, name in frames.items():
        if value not in ("tool_start", "tool_result"):
            assert schemas[name]["properties"]["type"]["const"] == value


@pytest.mark.parametrize(
    ("union", "suffix"), [("ToolStartFrame", "ToolStart"), ("ToolResultFrame", "ToolResult")]
)
def test_tool_frames_are_discriminated_on_the_tool(document: dict[str, Any], union: str, suffix: str) -> None:
    members = mapping(document, union)
    assert set(members) == set(tool_catalog())
    schemas = document["components"]["schemas"]
    start = schemas["GenerateWorkoutToolStart"]["properties"]
    assert start["tool"]["const"] == "generate_workout"
    assert start["args"] == {"$ref": "#/components/schemas/GenerateWorkoutArgs"}
    assert all(name.endswith(suffix) for name in members.values())


def test_actions_and_events_are_discriminated_unions(document: dict[str, Any]) -> None:
    assert set(mapping(document, "Action")) == set(tool_catalog())
    events = mapping(document, "Event")
    assert set(events) == {kind.value for kind in EventType}
    schemas = document["components"]["schemas"]
    assert schemas["ArtifactEvent"]["properties"]["data"] == {"$ref": "#/components/schemas/Artifact"}
    assert set(mapping(document, "Artifact")) == {"exercise_list", "timer"}


def test_the_stream_200_is_one_parsed_event_whose_data_is_a_frame(document: dict[str, Any]) -> None:
    media = document["paths"]["/agent/stream"]["post"]["responses"]["200"]["content"]["text/event-stream"]
    assert "itemSchema" not in media
    assert media["schema"]["properties"]["data"]["contentSchema"] == {"$ref": "#/components/schemas/Frame"}
    assert media["x-sse-data"] == {"$ref": "#/components/schemas/Frame"}


def test_every_operation_documents_405_with_allow_and_500(document: dict[str, Any]) -> None:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert responses["405"]["x-error-codes"] == ["method_not_allowed"], (method, path)
            assert responses["405"]["headers"]["Allow"]["required"] is True
            assert responses["500"]["x-error-codes"] == ["internal"], (method, path)


def test_operation_ids_are_verb_first_camel_case_and_links_name_them(document: dict[str, Any]) -> None:
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))
    for operation_id in ids:
        assert re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", operation_id), operation_id
        assert operation_id.startswith(VERBS), operation_id
    linked = {
        link["operationId"]
        for item in document["paths"].values()
        for op in item.values()
        for response in op["responses"].values()
        for link in response.get("links", {}).values()
    }
    assert linked and linked <= set(ids)


def test_a_message_over_max_length_is_documented_as_the_422_it_is(document: dict[str, Any]) -> None:
    chat = document["paths"]["/agent/chat"]["post"]["responses"]
    assert "message_too_long" in chat["422"]["x-error-codes"]
    assert chat["413"]["x-error-codes"] == ["body_too_large"]


def test_tool_frames_of_unknown_tools_are_not_sent_and_unfit_args_are_left_out() -> None:
    assert public_frame(tool_start_frame("teleport", {})) is None
    unfit = public_frame(tool_start_frame("idle", {"reason": 7}))
    assert unfit is not None and getattr(unfit, "args", "?") is None
    fit = public_frame(tool_start_frame("idle", {"reason": "done"}))
    assert fit is not None and getattr(fit, "args", None) == {"reason": "done"}
    status = status_frame("idle", "Wrapping up", "start")
    assert public_frame(status) is status


def test_actions_of_unknown_tools_are_left_out_and_unfit_args_dropped() -> None:
    failure = {"success": False, "error": "Unknown tool: teleport"}
    assert public_action({"tool": "teleport", "args": {}, "result": failure}) is None
    unfit = public_action({"tool": "idle", "args": {"reason": 7}, "result": failure})
    assert unfit == {"tool": "idle", "result": failure}


def test_every_stop_reason_has_a_turn_end_outcome() -> None:
    assert STOP_OUTCOMES == {
        "done": "replied",
        "awaiting_user": "asked",
        "max_iterations": "limit",
        "no_tool_call": "failed",
        "max_tokens": "limit",
        "refused": "refused",
        "error": "failed",
    }
