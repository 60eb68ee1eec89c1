"""Rows as the services hand them on: the repository's dict rows, and the one conversion to JSON-ready
values that typed models and tool results are built from."""

from __future__ import annotations

import uuid
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

Row = dict[str, Any]
"""One database row as the repositories return it (column name -> value)."""


def plain(value: Any) -> Any:
    """A database row (or anything nested in one) as JSON-ready values: ids, timestamps and times of day
    (quiet hours) as strings, decimals as ints or floats."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return value
