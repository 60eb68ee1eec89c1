"""Reading a streamed tool input before it is complete."""

from __future__ import annotations

import json

from trainer.providers.anthropic import StreamedStringField, parse_partial_object


def test_unfinished_strings_are_included() -> None:
    assert parse_partial_object('{"message": "Hel') == {"message": "Hel"}
    assert parse_partial_object('{"a": 1, "message": "x\\n') == {"a": 1, "message": "x\n"}


def test_nothing_readable_gives_an_empty_object() -> None:
    assert parse_partial_object("") == {}
    assert parse_partial_object('{"mess') == {}
    assert parse_partial_object("[1, 2") == {}
    assert parse_partial_object("}{") == {}


def test_streamed_field_hands_out_only_new_characters_across_split_escapes() -> None:
    text = 'Line one "quoted"\nLine two \u00e9 \\ done'
    encoded = json.dumps({"artifact_id": "art_1", "message": text})
    field = StreamedStringField("message")
    pieces = [field.feed(encoded[i : i + 3]) for i in range(0, len(encoded), 3)]
    assert "".join(pieces) == text
    assert sum(1 for p in pieces if p) > 5
    assert field.emitted == text


def test_streamed_field_ignores_other_keys_and_non_strings() -> None:
    field = StreamedStringField("message")
    assert field.feed('{"question": "Which one?"') == ""
    field2 = StreamedStringField("message")
    assert field2.feed('{"message": 12') == ""
