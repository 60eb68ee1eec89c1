"""Reading tool input JSON while the model is still writing it, so a user-visible message can be
shown as it is typed."""

from __future__ import annotations

from typing import Any

import jiter


def parse_partial_object(buffer: str) -> dict[str, Any]:
    """The object written so far, unfinished strings included; {} when nothing readable yet."""
    if not buffer.strip():
        return {}
    try:
        value = jiter.from_json(buffer.encode("utf-8"), partial_mode="trailing-strings")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class StreamedStringField:
    """Follows one top-level string field of a streamed JSON object and hands out only the
    characters written since the last call."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.emitted = ""
        self._buffer = ""

    def feed(self, fragment: str) -> str:
        self._buffer += fragment
        value = parse_partial_object(self._buffer).get(self.key)
        if not isinstance(value, str) or len(value) <= len(self.emitted):
            return ""
        if not value.startswith(self.emitted):
            return ""
        new_text = value[len(self.emitted) :]
        self.emitted = value
        return new_text
