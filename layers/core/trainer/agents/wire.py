"""How an agent's request reads, shared by the factory and the loopback fake server: the input as one
JSON block, context blocks, and the feedback that turns a rejected output into a negative example."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from trainer.domain.text import escape_text

INPUT_OPEN = "<agent_input>"
INPUT_CLOSE = "</agent_input>"
CONTEXT_OPEN = "<context "
FEEDBACK_PREFIX = "Your previous output was rejected:"
_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def jsonable(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def canonical(value: Any) -> str:
    return json.dumps(jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).translate(_JSON_ESCAPES)


def render_input(value: Any) -> str:
    """The input as compact JSON between input tags: no indentation, and a model's null fields left out
    (the schema reads them back as null); `<`, `>` and `&` inside strings become `\\u` escapes, so no
    value can close the block. The input is the part of a request each user pays for in full."""
    return "".join(render_input_parts(value))


def render_input_parts(value: Any, leading: Sequence[str] = ()) -> tuple[str, str]:
    """`render_input(value)` cut in two after the object's leading fields `leading` (when it starts with
    them, in that order): the part that stays the same across a user's runs, such as the plan a week is
    built from, can end a cache breakpoint. The parts joined, with or without whitespace between them,
    read back as the same JSON."""
    data = value.model_dump(mode="json", exclude_none=True) if isinstance(value, BaseModel) else value
    if not leading or not isinstance(data, dict) or list(data)[: len(leading)] != list(leading):
        return f"{INPUT_OPEN}\n{_compact(data)}\n{INPUT_CLOSE}", ""
    fields = [f"{_compact(key)}:{_compact(item)}" for key, item in data.items()]
    head, rest = fields[: len(leading)], fields[len(leading) :]
    if not rest:
        return f"{INPUT_OPEN}\n{{{','.join(head)}}}\n{INPUT_CLOSE}", ""
    return f"{INPUT_OPEN}\n{{{','.join(head)},", f"{','.join(rest)}}}\n{INPUT_CLOSE}"


def parse_input(block: str) -> Any:
    """The JSON value of a rendered input block."""
    text = block.strip()
    if not (text.startswith(INPUT_OPEN) and text.endswith(INPUT_CLOSE)):
        raise ValueError("not an input block")
    return json.loads(text[len(INPUT_OPEN) : -len(INPUT_CLOSE)])


def render_context(name: str, text: str, *, error: str | None = None) -> str:
    """A context block; the text comes from the source formatters (already escaped)."""
    kind = escape_text(name, attribute=True)
    if error is not None:
        return f'{CONTEXT_OPEN}type="{kind}" status="unavailable">{escape_text(error)}</context>'
    return f'{CONTEXT_OPEN}type="{kind}">\n{text}\n</context>'


def feedback(errors: list[str] | tuple[str, ...]) -> str:
    """The user turn after a rejected output (pydantic-ai's RetryPromptPart)."""
    listed = "\n".join(f"- {escape_text(error)}" for error in errors)
    return (
        f"{FEEDBACK_PREFIX}\n"
        f"{listed}\n"
        "Answer again with a complete corrected output that fixes every error above."
    )
