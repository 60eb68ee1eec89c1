"""Postgres repositories: async functions taking a connection (so callers compose transactions) and the
authenticated user id first. Every statement is scoped by `user_id`.

Errors are plain exceptions with messages fit to show the model or the user.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from psycopg import AsyncConnection, sql

UserId = str | uuid.UUID
Conn = AsyncConnection[Any]
"""Connections from `trainer.store.db.Database` (dict rows; typed Any since the pool is untyped)."""


class RepositoryError(ValueError):
    """Bad input or a state the request cannot apply to (message is user-facing)."""


class NotFound(RepositoryError):
    pass


class Ambiguous(RepositoryError):
    pass


class Duplicate(RepositoryError):
    """The row would take a name (or key) another of the user's rows has."""


class MalformedId(RepositoryError):
    """An id from user/model input that is not a UUID (so it names no row)."""


UUID_TEXT = re.compile(r"[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}")
"""A UUID in ASCII hex, with or without its hyphens (`uuid.UUID` alone also reads other digits: 32
Arabic-Indic zeros are the nil UUID to it)."""


def as_uuid(value: Any, what: str = "id") -> uuid.UUID:
    """Parse an id from user/model input, with a clear error instead of a database exception."""
    if isinstance(value, uuid.UUID):
        return value
    text = str(value).strip()
    if not UUID_TEXT.fullmatch(text):
        raise MalformedId(f"{what} {text[:60]!r} is not a valid UUID")
    return uuid.UUID(text)


def user_uuid(subject: str) -> uuid.UUID:
    """Map an identity-provider subject to the users.id: UUID subjects as is, others via uuid5."""
    try:
        return uuid.UUID(subject)
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"trainer-user:{subject}")


def set_clause(columns: Iterable[str]) -> sql.Composed:
    """`a = %(a)s, b = %(b)s` for a fixed, validated set of column names."""
    return sql.SQL(", ").join(
        sql.SQL("{} = {}").format(sql.Identifier(name), sql.Placeholder(name)) for name in columns
    )


def decimal_number(
    value: Any, name: str, *, minimum: float, maximum: float | None = None, strict: bool = False
) -> Decimal | None:
    """A Decimal in [minimum, maximum] (above minimum when strict), None for None; a clear
    RepositoryError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise RepositoryError(f"{name} must be a number")
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        raise RepositoryError(f"{name} must be a number") from None
    if not number.is_finite() or number < minimum or (strict and number == minimum):
        raise RepositoryError(f"{name} must be {'greater than' if strict else 'at least'} {minimum}")
    if maximum is not None and number > maximum:
        raise RepositoryError(f"{name} must be at most {maximum}")
    return number
