"""What a request may hold, checked where it comes in (docs/api.md#what-a-request-may-hold).

- `RequestBody` is the base of every JSON body: unknown fields are refused, values must have the JSON
  type the schema names (no `1` or `"true"` for true, no `"8"`, `7.0` or `true` for 8, no number for a
  date), no NaN or Infinity, and every string in it, nested ones and object keys included, goes through
  `clean_text` (trainer.domain.text) before the fields' own limits are checked: no NUL (Postgres text
  cannot hold it), no control, bidirectional or zero-width character.
- `IsoDate` and `IsoDatetime`: ISO text only, in ASCII digits; a time must exist in UTC too (Python
  has no year 10000: `9999-12-31T23:00:00-12:00` is refused). How far from today a stored date may
  lie is the services' rule (trainer.domain.reach).
- `QueryInt` (`ASCII_DIGITS` after a `Query`): an integer query parameter in ASCII digits (`²`,
  `١٢`, `1_0`, ` 5`, `5.0` are refused), at most 18 of them.
- `FRAME_ID_PATTERN`: the `Last-Event-ID` header, the same.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Strict,
    model_validator,
)

from trainer.domain.text import clean_text

VISIBLE_PATTERN = (
    r"[^\u0000-\u0020\u007f-\u00a0\u061c\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff"
    r"\ufff9-\ufffb]"
)
"""A text must hold a character that is neither whitespace (to `str.strip()`) nor one `clean_text`
drops (nor ZWJ/ZWNJ alone): every such character, written as explicit `\\uXXXX` ranges so that
pydantic's, JSON Schema's and the clients' regex dialects all read the class the same way. A text that
only the cleaning empties is refused like a blank one."""

MAX_DIGITS = 18
"""The longest integer a query parameter or header holds (any id or count fits in 18 digits)."""
MAX_QUERY_INT = 10**MAX_DIGITS - 1
ASCII_INTEGER = re.compile(rf"-?[0-9]{{1,{MAX_DIGITS}}}")
FRAME_ID_PATTERN = rf"^[0-9]{{1,{MAX_DIGITS}}}$"
ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
ISO_DATETIME_START = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}")


def clean_strings(value: Any) -> Any:
    """Every string in a parsed JSON value through `clean_text`, object keys included."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_strings(key): clean_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clean_strings(item) for item in value]
    return value


class RequestBody(BaseModel):
    """The base of every request body (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _cleaned(cls, data: Any) -> Any:
        return clean_strings(data)


def _iso_date_text(value: Any) -> Any:
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not ISO_DATE.fullmatch(value):
        raise ValueError("an ISO date (YYYY-MM-DD) is required")
    return value


def _iso_text(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not value.isascii() or not ISO_DATETIME_START.match(value):
        raise ValueError("an ISO 8601 date and time is required")
    return value


def _exists_in_utc(value: datetime) -> datetime:
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise ValueError("the time is out of range") from None
    return value


IsoDate = Annotated[date, Strict(False), BeforeValidator(_iso_date_text)]
"""A date as `YYYY-MM-DD` text (pydantic alone would also read `0` as 1970-01-01)."""
IsoDatetime = Annotated[
    AwareDatetime, Strict(False), BeforeValidator(_iso_text), AfterValidator(_exists_in_utc)
]
"""A date and time with its offset, as ISO 8601 text, that exists in UTC."""


def _ascii_integer(value: Any) -> Any:
    if isinstance(value, str) and not ASCII_INTEGER.fullmatch(value):
        raise ValueError(f"an integer in ASCII digits (at most {MAX_DIGITS}) is required")
    return value


ASCII_DIGITS = BeforeValidator(_ascii_integer)
"""What an integer query parameter is checked with, after its `Query(...)` (so that FastAPI still
writes its bounds into the schema): `Annotated[int, Query(ge=1, le=100), ASCII_DIGITS]`."""
QueryInt = Annotated[int, ASCII_DIGITS]
"""An integer query parameter (see the module docstring)."""
