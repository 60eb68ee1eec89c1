"""Text that enters the store or the model's context.

`clean_text` is what every string of a request body goes through before it is checked and stored
(docs/api.md#what-a-request-may-hold): control characters, bidirectional controls and zero-width
characters are dropped; they are invisible to the user who reads the text back and they would reach
the model raw. Tabs and line breaks stay (free text has lines); ZWJ and ZWNJ stay too (emoji sequences
and several scripts need them).

Everything from a client, the database or a tool passes through `escape_text` on its way into the
model's context, so no value can open or close a tag of the context's structure (<knowledge>,
<tool_result>, <user_data>...) nor hide text from the reader of the prompt: it drops what `clean_text`
drops (rows stored before the edge cleaned them included) and Unicode tag characters outside a flag
emoji (invisible text a model reads as ASCII)."""

from __future__ import annotations

import re
from html import unescape
from xml.sax.saxutils import escape

ATTRIBUTE_ENTITIES = {'"': "&quot;"}

WHITESPACE_CONTROLS = "\x0b\x0c\x1c\x1d\x1e\x1f\x85"
"""Control characters `str.isspace` counts as whitespace: each becomes a space."""
KEPT_CONTROLS = "\t\n\r"
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Marks, embeddings, overrides and isolates: they reorder what a reader sees ('\\u202eevil')."""
ZERO_WIDTH = (
    "\u180e\u200b\u2060\u2061\u2062\u2063\u2064\u2065\u206a\u206b\u206c\u206d\u206e\u206f"
    "\ufeff\ufff9\ufffa\ufffb"
)
"""Invisible characters that join nothing: zero-width space, word joiner, invisible operators, the
byte-order mark, deprecated format controls, interlinear annotation marks."""

_CONTROLS = [chr(c) for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if chr(c) not in KEPT_CONTROLS]
_CLEAN_TABLE: dict[int, str | None] = {
    **{ord(c): None for c in (*_CONTROLS, *BIDI_CONTROLS, *ZERO_WIDTH)},
    **{ord(c): " " for c in WHITESPACE_CONTROLS},
}
DROPPED = frozenset(
    c for c, replacement in ((chr(k), v) for k, v in _CLEAN_TABLE.items()) if replacement is None
)
"""Every character `clean_text` removes."""

_TAGS = re.compile("[\U000e0000-\U000e007f]")
_FLAG_OR_TAG = re.compile("(\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f)|[\U000e0000-\U000e007f]")
"""A subdivision flag (black flag, tag letters, cancel tag: England, Scotland, Wales), or a tag
character anywhere else."""


def clean_text(value: str) -> str:
    """`value` without control (but tab and line breaks), bidirectional and zero-width characters;
    whitespace controls become spaces."""
    return value.translate(_CLEAN_TABLE)


def prompt_text(value: str) -> str:
    """`clean_text`, and tag characters dropped unless they spell a flag emoji."""
    cleaned = value.translate(_CLEAN_TABLE)
    if _TAGS.search(cleaned) is None:
        return cleaned
    return _FLAG_OR_TAG.sub(lambda match: match.group(1) or "", cleaned)


def escape_text(value: object, *, attribute: bool = False) -> str:
    """`value` as text for the model (`prompt_text`) with &, < and > escaped (and double quotes too
    for an attribute value)."""
    return escape(prompt_text(str(value)), ATTRIBUTE_ENTITIES if attribute else {})


def one_line(value: object) -> str:
    """`value` escaped and flattened to one line."""
    return escape_text(" ".join(str(value).split()))


def unescape_text(text: str) -> str:
    """The original text of an escaped value (for a reader of the context that is not a model)."""
    return unescape(text)
