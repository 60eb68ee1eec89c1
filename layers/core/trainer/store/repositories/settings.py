"""user_settings: display units, timezone, preferred training days."""

from __future__ import annotations

from typing import Any

from psycopg import sql

from trainer.domain.weekdays import WEEKDAYS
from trainer.domain.workout_grouping import is_iana_zone
from trainer.store.repositories import Conn, RepositoryError, UserId, set_clause

WEIGHT_UNITS = ("kg", "lbs")
DISTANCE_UNITS = ("km", "mi")
DEFAULT_SETTINGS: dict[str, Any] = {
    "weight_unit": "kg",
    "distance_unit": "km",
    "timezone": "UTC",
    "preferred_days": [],
}
_COLUMNS = "weight_unit, distance_unit, timezone, preferred_days"


async def get_user_settings(conn: Conn, user_id: UserId) -> dict[str, Any]:
    """The user's settings, or the defaults when no row exists yet."""
    cur = await conn.execute(f"SELECT {_COLUMNS} FROM user_settings WHERE user_id = %s", (user_id,))
    row = await cur.fetchone()
    return dict(row) if row else dict(DEFAULT_SETTINGS)


async def update_user_settings(conn: Conn, user_id: UserId, **changes: Any) -> dict[str, Any]:
    """Upsert the given settings (weight_unit, distance_unit, timezone, preferred_days)."""
    values = validate_settings(changes)
    if not values:
        return await get_user_settings(conn, user_id)
    columns = sql.SQL(", ").join(sql.Identifier(name) for name in values)
    placeholders = sql.SQL(", ").join(sql.Placeholder(name) for name in values)
    query = sql.SQL(
        "INSERT INTO user_settings (user_id, {columns}) VALUES (%(user_id)s, {placeholders})"
        " ON CONFLICT (user_id) DO UPDATE SET {assignments}, updated_at = now()"
        " RETURNING " + _COLUMNS
    ).format(columns=columns, placeholders=placeholders, assignments=set_clause(values))
    cur = await conn.execute(query, {**values, "user_id": user_id})
    row = await cur.fetchone()
    assert row is not None
    return dict(row)


def validate_settings(changes: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, value in changes.items():
        if value is None:
            continue
        if name == "weight_unit":
            if value not in WEIGHT_UNITS:
                raise RepositoryError(f"weight_unit must be one of {', '.join(WEIGHT_UNITS)}")
        elif name == "distance_unit":
            if value not in DISTANCE_UNITS:
                raise RepositoryError(f"distance_unit must be one of {', '.join(DISTANCE_UNITS)}")
        elif name == "timezone":
            if not is_iana_zone(str(value)):
                raise RepositoryError(
                    f"unknown timezone {str(value)[:64]!r}: name an IANA zone, e.g. Europe/Berlin"
                )
        elif name == "preferred_days":
            value = normalise_weekdays(value)
        else:
            raise RepositoryError(f"unknown setting {name!r}")
        values[name] = value
    return values


def normalise_weekdays(days: Any) -> list[str]:
    if not isinstance(days, list | tuple):
        raise RepositoryError("preferred_days must be a list of weekday names")
    result: list[str] = []
    for day in days:
        match = next((w for w in WEEKDAYS if str(day).strip().lower() in (w.lower(), w[:3].lower())), None)
        if match is None:
            raise RepositoryError(f"{str(day)[:20]!r} is not a weekday name")
        if match not in result:
            result.append(match)
    return sorted(result, key=WEEKDAYS.index)
