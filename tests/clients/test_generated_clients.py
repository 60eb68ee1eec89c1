"""The clients a phone team would generate from openapi.json type what the app renders: the TypeScript
client compiles under `tsc --strict` with a switch over `frame.type` (and `frame.tool`) reading each
variant's fields, and fails to compile without it; neither client leaves `unknown` / `Any` in the
types of what the app renders or sends back (docs/api.md#generated-clients)."""

from __future__ import annotations

import importlib
import inspect
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.clients.toolchain import BIN, OPENAPI, TypeScriptClient, run

RENDERED = {
    "ClientResponse": ("exercises", "question", "timers"),
    "ChatResponse": ("actions",),
    "Session": ("metadata",),
    "EventsPage": ("events",),
    "SessionDetail": ("recentActions",),
    "Frame": (),
    "Artifact": (),
}
"""Components (and, for models, the fields of them) the app renders or sends back: everything they
reach must be typed."""


def components() -> dict[str, Any]:
    schemas: dict[str, Any] = json.loads(OPENAPI.read_text(encoding="utf-8"))["components"]["schemas"]
    return schemas


def references(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if "$ref" in node else set()
        return found.union(*(references(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(references(item) for item in node))
    return set()


def rendered_closure() -> set[str]:
    """Every component the rendered fields reach."""
    schemas = components()
    todo: list[str] = []
    for name, fields in RENDERED.items():
        if fields:
            todo.extend(references([schemas[name]["properties"][field] for field in fields]))
        else:
            todo.append(name)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(references(schemas[name]))
    return seen


def test_the_rendered_fields_reach_the_typed_unions() -> None:
    closure = rendered_closure()
    assert {
        "Frame",
        "Action",
        "Event",
        "Artifact",
        "ExerciseFields",
        "Question",
        "SessionMetadata",
    } <= closure
    assert {"GenerateWorkoutArgs", "GenerateWorkoutResult", "MessageNotifyUserToolResult"} <= closure


def typescript_blocks(types: str) -> dict[str, str]:
    """Each component's type in the generated api.d.ts, without its doc comments."""
    section = types.split("export interface components {", 1)[1].split("\n    responses:", 1)[0]
    blocks: dict[str, str] = {}
    name = None
    for line in section.splitlines():
        if re.match(r"^ {8}[A-Za-z0-9_]+: ", line):
            name = line.strip().split(":", 1)[0]
            blocks[name] = ""
        if name is not None and not line.strip().startswith(("*", "/**")):
            blocks[name] += line + "\n"
    return blocks


def test_typescript_types_of_what_the_app_renders_hold_no_unknown(
    typescript_client: TypeScriptClient,
) -> None:
    blocks = typescript_blocks(typescript_client.types)
    closure = rendered_closure()
    assert closure <= set(blocks)
    untyped = {
        name: blocks[name]
        for name in closure
        if re.search(r"\b(unknown|any)\b", re.sub(r'"[^"]*"', '""', blocks[name]))  # not in literals
    }
    assert untyped == {}


def test_python_types_of_what_the_app_renders_hold_no_any(python_client: Path) -> None:
    models = importlib.import_module("trainer_client.models")
    closure = rendered_closure()
    classes = {
        name: getattr(models, name) for name in closure if inspect.isclass(getattr(models, name, None))
    }
    unions = closure - set(classes)
    assert unions <= {"Frame", "Action", "Event", "Artifact", "ToolStartFrame", "ToolResultFrame"}, unions
    untyped = {
        f"{name}.{field.name}": field.type
        for name, cls in classes.items()
        for field in cls.__attrs_attrs__
        if field.name != "additional_properties" and re.search(r"\bAny\b", str(field.type))
    }
    assert untyped == {}
    assert "GenerateWorkoutToolStart" in classes and "JsonObject" in classes


def test_the_typescript_client_compiles_under_strict_and_narrows_frames(
    typescript_client: TypeScriptClient,
) -> None:
    """frames.ts narrows on `type`, then on `tool`; compiled in the fixture with `tsc --strict`."""
    assert (typescript_client.directory / "out" / "frames.js").exists()
    assert "switch (frame.type)" in (typescript_client.directory / "frames.ts").read_text()


@pytest.mark.parametrize(
    "body",
    [
        "export const args = (frame: Frame) => frame.args;",
        'export const text = (frame: Frame) => frame.type === "tool_result" && frame.data.message;',
    ],
)
def test_reading_a_variants_field_without_narrowing_does_not_compile(
    typescript_client: TypeScriptClient, tmp_path: Path, body: str
) -> None:
    for name in ("api.d.ts", "tsconfig.json", "package.json"):
        shutil.copy(typescript_client.directory / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(typescript_client.directory / "node_modules")
    (tmp_path / "unnarrowed.ts").write_text(
        'import type { components } from "./api.js";\ntype Frame = components["schemas"]["Frame"];\n'
        + body
        + "\n"
    )
    with pytest.raises(AssertionError, match="TS2339"):
        run([str(BIN / "tsc"), "--project", str(tmp_path / "tsconfig.json"), "--noEmit"], tmp_path)


def test_the_python_client_reads_a_message_reset_as_its_own_frame(python_client: Path) -> None:
    """`message_reset` (drop the previewed text: the answer is written again) is a Frame member the
    generated client parses, and no other member takes it for its own."""
    models = importlib.import_module("trainer_client.models")
    members = sorted(references(components()["Frame"]["oneOf"]))
    classes = [getattr(models, name) for name in members if inspect.isclass(getattr(models, name, None))]
    assert len(classes) >= len(members) - 2, "every member but the per-tool unions is a class"
    wire = {"type": "message_reset"}
    readers = []
    for cls in classes:
        try:
            cls.from_dict(dict(wire))
        except (KeyError, TypeError, ValueError):
            continue
        readers.append(cls.__name__)
    assert readers == ["MessageResetFrame"]
    assert models.MessageResetFrame.from_dict(dict(wire)).to_dict() == wire
