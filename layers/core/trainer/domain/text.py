"""Text that enters the model's context. Everything from a client, the database or a tool passes
through `escape_text`, so no value can open or close a tag of the context's structure (<knowledge>,
<tool_result>, <user_data>...)."""

from __future__ import annotations

from html import unescape
from xml.sax.saxutils import escape

ATTRIBUTE_ENTITIES = {'"': "&quot;"}


def escape_text(value: object, *, attribute: bool = False) -> str:
    """`value` as text with &, < and > escaped (and double quotes too for an attribute value)."""
    return escape(str(value), ATTRIBUTE_ENTITIES if attribute else {})


def one_line(value: object) -> str:
    """`value` escaped and flattened to one line."""
    return escape_text(" ".join(str(value).split()))


def unescape_text(text: str) -> str:
    """The original text of an escaped value (for a reader of the context that is not a model)."""
    return unescape(text)
