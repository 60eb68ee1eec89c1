"""Ids from a path or a model's call are UUIDs in ASCII hex before a query sees them
(trainer.store.repositories.as_uuid); no database."""

from __future__ import annotations

import uuid

import pytest
from trainer.store.repositories import MalformedId, as_uuid

ID = uuid.UUID("6f1c4d0e-1b2c-4d3e-8f9a-0b1c2d3e4f5a")


@pytest.mark.parametrize("text", [str(ID), str(ID).upper(), ID.hex, f" {ID} "])
def test_a_uuid_in_ascii_hex_is_read(text: str) -> None:
    assert as_uuid(text) == ID


@pytest.mark.parametrize(
    "text",
    ["٠" * 32, "０" * 32, "²" * 32, f"{{{ID}}}", f"urn:uuid:{ID}", str(ID)[:-1], "9" * 5000, "not-a-uuid"],
    ids=["arabic-indic-zeros", "fullwidth-zeros", "superscripts", "braces", "urn", "short", "huge", "words"],
)
def test_anything_else_names_no_row(text: str) -> None:
    with pytest.raises(MalformedId):
        as_uuid(text)
