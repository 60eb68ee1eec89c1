"""What the model is sent of a tool's argument schema (trainer.agents.tools.model_facing_schema): the
pydantic schema without what tells the model nothing (generated titles, the `anyOf: [X, null]` and
`default: null` of an optional field), with the same fields, required fields, types, enums, bounds,
`additionalProperties` and descriptions, for every tool of the chat agent."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from trainer.agents.tools import ToolSet, model_facing_schema
from trainer.chat.agent import CHAT_TOOLS
from trainer.tools.base import FINAL_ARGUMENT


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(default=None, max_length=40, description="a field named title")


class Args(BaseModel):
    count: int | None = Field(default=None, ge=1, le=9, description="how many")
    flag: bool = False
    items: list[Inner] = Field(min_length=1)


def test_an_optional_field_is_sent_as_its_type_with_its_bounds_and_description() -> None:
    schema = model_facing_schema(Args.model_json_schema())
    assert schema["properties"]["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
        "description": "how many",
    }
    assert schema["properties"]["flag"] == {"type": "boolean", "default": False}
    assert schema["required"] == ["items"]
    assert schema["properties"]["items"]["minItems"] == 1


def test_generated_titles_go_but_a_property_named_title_stays() -> None:
    schema = model_facing_schema(Args.model_json_schema())
    inner = schema["$defs"]["Inner"]
    assert "title" not in schema and "title" not in inner
    assert inner["properties"]["title"] == {
        "type": "string",
        "maxLength": 40,
        "description": "a field named title",
    }
    assert inner["additionalProperties"] is False


def test_a_nullable_field_with_a_real_default_or_a_union_keeps_its_anyof() -> None:
    class Union(BaseModel):
        either: int | str | None = None
        labelled: str | None = "x"

    props = model_facing_schema(Union.model_json_schema())["properties"]
    assert len(props["either"]["anyOf"]) == 3
    assert {"type": "null"} in props["labelled"]["anyOf"]


def _shape(node: Any) -> Any:
    """Fields and required fields of every object in a schema, by path."""
    found: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            if "properties" in value:
                found[path] = (sorted(value["properties"]), sorted(value.get("required", [])))
            for key, child in value.items():
                if key != "anyOf":
                    walk(child, f"{path}/{key}")
                else:
                    for option in child:
                        if option != {"type": "null"}:
                            walk(option, path)
        elif isinstance(value, list):
            for n, child in enumerate(value):
                walk(child, f"{path}/{n}")

    walk(node, "")
    return found


@pytest.mark.parametrize("tool", CHAT_TOOLS, ids=lambda t: t.name)
def test_every_chat_tool_is_sent_with_the_fields_and_required_fields_it_validates(tool: Any) -> None:
    sent = next(d for d in ToolSet([tool]).definitions() if d["name"] == tool.name)["input_schema"]
    validated = _shape(tool.input_schema())
    if tool.can_finish:  # the one argument the executor takes itself
        fields, required = validated[""]
        validated[""] = (sorted([*fields, FINAL_ARGUMENT]), required)
    assert _shape(sent) == validated
    assert not _null_defaults(sent)


def _null_defaults(node: Any) -> list[Any]:
    """Nodes still wrapping an optional field as `anyOf: [X, null]` with `default: null`."""
    if isinstance(node, list):
        return [n for child in node for n in _null_defaults(child)]
    if not isinstance(node, dict):
        return []
    own = [node] if node.get("default", 0) is None and {"type": "null"} in node.get("anyOf", []) else []
    return own + [n for child in node.values() for n in _null_defaults(child)]


def test_the_null_default_check_finds_pydantics_shape() -> None:
    assert _null_defaults(Args.model_json_schema())
    assert not _null_defaults(model_facing_schema(Args.model_json_schema()))
