"""What the model is sent of a tool's argument schema (trainer.agents.tools.model_facing_schema and
shared_definitions): the pydantic schema without what tells the model nothing (generated titles, the
`anyOf: [X, null]` and `default: null` of an optional field, the sanity bounds the validator keeps),
with the same fields, required fields, types, enums, the bounds that shape an answer and descriptions,
for every tool of the chat agent; an argument another tool's schema sends in full (the exercise, sent
once in generate_workout) is sent as its type and a description naming that tool."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from trainer.agents.tools import canonical_json, model_facing_schema
from trainer.chat.agent import CHAT, CHAT_TOOLS
from trainer.tools.base import FINAL_ARGUMENT, NOTE_ARGUMENT


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(default=None, max_length=40, description="a field named title")


class Args(BaseModel):
    count: int | None = Field(default=None, ge=2, le=9, description="how many")
    flag: bool = False
    items: list[Inner] = Field(min_length=1)
    reps: list[int] | None = Field(default=None, max_length=20, description="per set")
    load: float | None = Field(default=None, ge=0, le=2000, description="a load")


def test_an_optional_field_is_sent_as_its_type_with_its_bounds_and_description() -> None:
    schema = model_facing_schema(Args.model_json_schema())
    assert schema["properties"]["count"] == {
        "type": "integer",
        "minimum": 2,
        "maximum": 9,
        "description": "how many",
    }
    assert schema["properties"]["flag"] == {"type": "boolean", "default": False}
    assert schema["required"] == ["items"]


def test_the_sanity_bounds_the_validator_keeps_are_not_sent() -> None:
    """A minimum of 0 or 1, a ceiling no real value meets, one item at least, a length limit and
    `additionalProperties: false` say nothing the model needs: the validator still refuses them."""
    props = model_facing_schema(Args.model_json_schema())["properties"]
    assert props["load"] == {"type": "number", "description": "a load"}
    assert props["reps"] == {"type": "array", "items": {"type": "integer"}, "description": "per set"}
    assert "minItems" not in props["items"]
    with pytest.raises(ValidationError):
        Args.model_validate({"items": [], "load": 2500})


def test_generated_titles_go_but_a_property_named_title_stays() -> None:
    schema = model_facing_schema(Args.model_json_schema())
    inner = schema["$defs"]["Inner"]
    assert "title" not in schema and "title" not in inner
    assert inner["properties"]["title"] == {"type": "string", "description": "a field named title"}
    assert "additionalProperties" not in inner


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
    definitions = {d["name"]: d for d in CHAT.toolset.definitions()}
    sent = definitions[tool.name]["input_schema"]
    validated = _shape(tool.input_schema())
    fields, required = validated[""]
    if tool.fields_as_in:  # the optional fields another tool sends in full, which the description names
        owner = CHAT.toolset.get(tool.fields_as_in)
        assert owner is not None and tool.fields_as_in in definitions[tool.name]["description"]
        theirs = owner.input_schema()["properties"]
        mine = tool.input_schema()["properties"]
        taken = [f for f in fields if f in theirs and f not in required]
        assert all(mine[f].get("type") == theirs[f].get("type") for f in taken if "type" in mine[f])
        fields = [f for f in fields if f not in taken]
    if tool.can_finish:  # the arguments the executor takes itself
        fields = [*fields, FINAL_ARGUMENT, NOTE_ARGUMENT]
    validated[""] = (sorted(fields), required)
    shared = {f"/properties/{arg}" for arg in tool.shared_arguments}
    sent_shape = _shape(sent)
    for path in list(validated):
        # an argument another tool sends in full is sent as its type; a definition only it used goes
        if any(path == p or path.startswith(p + "/") for p in shared) or (
            path.startswith("/$defs") and path not in sent_shape
        ):
            validated.pop(path)
    for argument, owner_name in tool.shared_arguments.items():
        assert CHAT.toolset.get(owner_name) is not None
        assert owner_name in sent["properties"][argument]["description"]
    assert sent_shape == validated
    assert not _null_defaults(sent)


def test_the_exercise_and_the_muscle_names_are_sent_once() -> None:
    """The exercise schema and the muscle list were copied into several tools; they are sent in
    generate_workout and named elsewhere."""
    text = canonical_json(CHAT.toolset.definitions())
    assert text.count('"Lower Back"') == 1
    assert text.count("rest_between_rounds_sec") == 1


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


def test_every_argument_the_model_is_sent_has_a_description() -> None:
    """A bare `final: boolean` on 35 tools, and 60 more arguments, told the model nothing."""
    bare = [
        f"{d['name']}.{name}"
        for d in CHAT.toolset.definitions()
        for name, prop in d["input_schema"].get("properties", {}).items()
        if not prop.get("description")
    ]
    assert not bare
