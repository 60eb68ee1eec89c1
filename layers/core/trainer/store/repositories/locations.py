"""user_locations with equipment; at most one current location per user (partial unique index)."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from psycopg import errors
from psycopg.types.json import Jsonb

from trainer.store.repositories import Ambiguous, Conn, NotFound, RepositoryError, UserId, as_uuid

_COLUMNS = "id, name, description, equipment, is_current, created_at"
_ORDER = "ORDER BY is_current DESC, lower(name), id"


async def list_locations(conn: Conn, user_id: UserId) -> list[dict[str, Any]]:
    """All locations, current first, then by name (deterministic)."""
    cur = await conn.execute(f"SELECT {_COLUMNS} FROM user_locations WHERE user_id = %s {_ORDER}", (user_id,))
    return await cur.fetchall()


async def get_current(conn: Conn, user_id: UserId) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM user_locations WHERE user_id = %s AND is_current", (user_id,)
    )
    return await cur.fetchone()


async def create_location(
    conn: Conn,
    user_id: UserId,
    name: str,
    *,
    description: str | None = None,
    equipment: list[Any] | None = None,
    make_current: bool = False,
) -> dict[str, Any]:
    clean_name = _check_name(name)
    items = normalise_equipment(equipment or [])
    async with conn.transaction():
        if make_current:
            await conn.execute(
                "UPDATE user_locations SET is_current = false WHERE user_id = %s AND is_current", (user_id,)
            )
        try:
            cur = await conn.execute(
                "INSERT INTO user_locations (user_id, name, description, equipment, is_current)"
                f" VALUES (%s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
                (user_id, clean_name, description, Jsonb(items), make_current),
            )
        except errors.UniqueViolation:
            raise RepositoryError(f"a location named {clean_name!r} already exists") from None
    row = await cur.fetchone()
    assert row is not None
    return row


async def upsert_location(
    conn: Conn,
    user_id: UserId,
    name: str,
    *,
    description: str | None = None,
    equipment: list[Any] | None = None,
) -> dict[str, Any]:
    """Create or replace (by case-insensitive name) a location's description and equipment."""
    cur = await conn.execute(
        "INSERT INTO user_locations (user_id, name, description, equipment) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (user_id, lower(name)) DO UPDATE"
        " SET description = EXCLUDED.description, equipment = EXCLUDED.equipment, updated_at = now()"
        f" RETURNING {_COLUMNS}",
        (user_id, _check_name(name), description, Jsonb(normalise_equipment(equipment or []))),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def update_location(
    conn: Conn,
    user_id: UserId,
    location_id: Any = None,
    name: str | None = None,
    *,
    new_name: str | None = None,
    description: str | None = None,
    equipment: list[Any] | None = None,
) -> dict[str, Any]:
    """Rename a location, or replace its description or equipment (what is None stays)."""
    target = await _find(conn, user_id, location_id, name)
    try:
        cur = await conn.execute(
            "UPDATE user_locations SET name = coalesce(%s, name), description = coalesce(%s, description),"
            " equipment = coalesce(%s, equipment), updated_at = now()"
            f" WHERE user_id = %s AND id = %s RETURNING {_COLUMNS}",
            (
                _check_name(new_name) if new_name is not None else None,
                description,
                Jsonb(normalise_equipment(equipment)) if equipment is not None else None,
                user_id,
                target,
            ),
        )
    except errors.UniqueViolation:
        raise RepositoryError(f"a location named {new_name!r} already exists") from None
    row = await cur.fetchone()
    assert row is not None
    return row


async def delete_location(conn: Conn, user_id: UserId, location_id: Any) -> bool:
    cur = await conn.execute(
        "DELETE FROM user_locations WHERE user_id = %s AND id = %s",
        (user_id, as_uuid(location_id, "location id")),
    )
    return cur.rowcount > 0


async def set_current(
    conn: Conn,
    user_id: UserId,
    location_id: Any = None,
    name: str | None = None,
) -> dict[str, Any]:
    """Make one location current (by id, else by case-insensitive name); clears the others atomically.

    Raises NotFound / Ambiguous with a message listing the user's locations.
    """
    if location_id is None and not (name and name.strip()):
        raise RepositoryError("give a location_id or a location_name")
    async with conn.transaction():
        target = await _find(conn, user_id, location_id, name)
        await conn.execute(
            "UPDATE user_locations SET is_current = false, updated_at = now()"
            " WHERE user_id = %s AND is_current AND id <> %s",
            (user_id, target),
        )
        cur = await conn.execute(
            "UPDATE user_locations SET is_current = true, updated_at = now()"
            f" WHERE user_id = %s AND id = %s RETURNING {_COLUMNS}",
            (user_id, target),
        )
        row = await cur.fetchone()
    assert row is not None
    return row


async def _find(conn: Conn, user_id: UserId, location_id: Any, name: str | None) -> uuid.UUID:
    if location_id is not None:
        cur = await conn.execute(
            "SELECT id FROM user_locations WHERE user_id = %s AND id = %s",
            (user_id, as_uuid(location_id, "location id")),
        )
        row = await cur.fetchone()
        if row is None:
            raise NotFound(f"no location with id {location_id}" + await _known(conn, user_id))
        return row["id"]
    assert name is not None
    wanted = name.strip()
    cur = await conn.execute(
        "SELECT id, name FROM user_locations WHERE user_id = %s AND lower(name) = lower(%s)",
        (user_id, wanted),
    )
    rows = await cur.fetchall()
    if not rows:
        pattern = "%" + wanted.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        cur = await conn.execute(
            "SELECT id, name FROM user_locations WHERE user_id = %s AND name ILIKE %s ORDER BY lower(name)",
            (user_id, pattern),
        )
        rows = await cur.fetchall()
    if not rows:
        raise NotFound(f"no location named {wanted!r}" + await _known(conn, user_id))
    if len(rows) > 1:
        names = ", ".join(r["name"] for r in rows)
        raise Ambiguous(f"{wanted!r} matches several locations ({names}); give the location_id")
    return rows[0]["id"]


async def _known(conn: Conn, user_id: UserId) -> str:
    cur = await conn.execute(
        "SELECT name FROM user_locations WHERE user_id = %s ORDER BY lower(name)", (user_id,)
    )
    names = [r["name"] for r in await cur.fetchall()]
    return f"; your locations: {', '.join(names)}" if names else "; you have no saved locations"


def _check_name(name: str) -> str:
    text = (name or "").strip()
    if not 1 <= len(text) <= 100:
        raise RepositoryError("location name must be 1-100 characters")
    return text


def normalise_equipment(items: list[Any]) -> list[dict[str, Any]]:
    """Equipment items as {name, type?, weights?, unit?}; a bare string is an item name."""
    result: list[dict[str, Any]] = []
    for raw in items:
        item = {"name": raw} if isinstance(raw, str) else raw
        if not isinstance(item, dict) or not str(item.get("name", "")).strip():
            raise RepositoryError("each equipment item needs a name")
        clean: dict[str, Any] = {"name": str(item["name"]).strip()[:100]}
        if item.get("type"):
            clean["type"] = str(item["type"]).strip()[:50]
        weights = item.get("weights")
        if weights:
            try:
                clean["weights"] = [_plain_number(w) for w in weights]
            except (TypeError, ArithmeticError):
                raise RepositoryError(f"weights of {clean['name']!r} must be numbers") from None
            unit = item.get("unit") or "kg"
            if unit not in ("kg", "lbs"):
                raise RepositoryError(f"unit of {clean['name']!r} must be kg or lbs")
            clean["unit"] = unit
        result.append(clean)
    return result


def _plain_number(value: Any) -> int | float:
    number = Decimal(str(value))
    if number < 0:
        raise ArithmeticError
    return int(number) if number == number.to_integral_value() else float(number)
