"""How values are written as the sessions table's attributes: numbers and instants, and payloads (record
bodies, state values).

Payloads are JSON strings: floats round-trip exactly and nested data needs no Decimal conversion. Above
`COMPRESS_ABOVE_BYTES` a payload is zlib-compressed into a binary attribute (`body_z`, `value_z`) when
that is smaller, since writes are billed per KB of item; above ~300 KB compressed it is split into BLOB
parts written before the item that references them, so a reader always sees a complete payload. Above
`MAX_PAYLOAD_BYTES` compressed it is replaced by a truncation marker.
"""

from __future__ import annotations

import json
import logging
import zlib
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID, uuid4

from pydantic import BaseModel

from trainer.store.sessions.keys import Item

logger = logging.getLogger(__name__)

INLINE_LIMIT_BYTES = 300_000
COMPRESS_ABOVE_BYTES = 512
"""A payload above this is stored zlib-compressed when that is smaller: DynamoDB bills writes per KB of
item, and a turn's JSON (workouts, tool results, knowledge) shrinks three- to fivefold."""
BLOB_PART_BYTES = 300_000
MAX_PAYLOAD_BYTES = 8_000_000
TRUNCATED_PREVIEW_CHARS = 10_000


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def number(value: float | int) -> dict[str, str]:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"expected a number, got {type(value).__name__}")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("numbers must be finite")
        return {"N": repr(value)}
    return {"N": str(value)}


def plain_number(attribute: dict[str, str]) -> int | float:
    text = attribute["N"]
    return int(text) if text.lstrip("-").isdigit() else float(text)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"payload must be JSON-serialisable: {exc}") from exc


def encode_payload(name: str, value: dict[str, Any], pk: str, expires_at: int) -> tuple[Item, list[Item]]:
    """Attributes for the owning item, plus BLOB part items to write before it."""
    text = dumps(value)
    raw = text.encode("utf-8")
    if len(raw) <= COMPRESS_ABOVE_BYTES:
        return {name: {"S": text}}, []
    packed = zlib.compress(raw, 6)
    if len(packed) > MAX_PAYLOAD_BYTES:
        logger.warning("payload of %d bytes truncated", len(raw))
        marker = {"_truncated": True, "original_bytes": len(raw), "preview": text[:TRUNCATED_PREVIEW_CHARS]}
        return encode_payload(name, marker, pk, expires_at)
    if len(packed) >= len(raw) and len(raw) <= INLINE_LIMIT_BYTES:
        return {name: {"S": text}}, []
    if len(packed) <= INLINE_LIMIT_BYTES:
        return {f"{name}_z": {"B": packed}}, []
    blob_id = uuid4().hex
    parts = [packed[i : i + BLOB_PART_BYTES] for i in range(0, len(packed), BLOB_PART_BYTES)]
    items = [
        {
            "PK": {"S": pk},
            "SK": {"S": f"BLOB#{blob_id}#{index:04d}"},
            "part": {"B": part},
            "expires_at": {"N": str(expires_at)},
        }
        for index, part in enumerate(parts)
    ]
    reference = {"M": {"id": {"S": blob_id}, "parts": {"N": str(len(parts))}, "bytes": {"N": str(len(raw))}}}
    return {f"{name}_blob": reference}, items


def inline_payload(item: Item, name: str) -> tuple[bool, Any]:
    """(True, the payload) when `item` holds it whole (plain or compressed); (False, None) when it is in
    BLOB parts or absent."""
    if name in item:
        return True, json.loads(item[name]["S"])
    if f"{name}_z" in item:
        return True, json.loads(zlib.decompress(item[f"{name}_z"]["B"]))
    return False, None


def blob_keys(pk: str, item: Item, name: str) -> list[Item]:
    """The keys of the BLOB parts holding `item`'s payload `name` (none when it is inline)."""
    reference = item.get(f"{name}_blob")
    if not reference:
        return []
    blob_id = reference["M"]["id"]["S"]
    parts = int(reference["M"]["parts"]["N"])
    return [{"PK": {"S": pk}, "SK": {"S": f"BLOB#{blob_id}#{index:04d}"}} for index in range(parts)]


def joined_payload(parts: list[bytes]) -> Any:
    """A payload from its BLOB parts, in order."""
    return json.loads(zlib.decompress(b"".join(parts)))
