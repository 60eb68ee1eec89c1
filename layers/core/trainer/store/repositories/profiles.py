"""users (profile + body stats). `ensure_user` creates the user and default settings on first contact."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from psycopg import sql

from trainer.store.repositories import Conn, RepositoryError, UserId, set_clause

PROFILE_FIELDS = ("display_name", "sex", "birth_date", "height_cm", "weight_kg", "body_fat_pct")
SEXES = ("male", "female", "other")


async def ensure_user(conn: Conn, user_id: UserId, *, display_name: str | None = None) -> None:
    """Create the users row and default user_settings if missing (idempotent, one round trip)."""
    await conn.execute(
        "WITH u AS (INSERT INTO users (id, display_name) VALUES (%(id)s, %(name)s)"
        " ON CONFLICT (id) DO NOTHING)"
        " INSERT INTO user_settings (user_id) VALUES (%(id)s) ON CONFLICT (user_id) DO NOTHING",
        {"id": user_id, "name": display_name},
    )


async def get_profile(conn: Conn, user_id: UserId) -> dict[str, Any] | None:
    cur = await conn.execute(
        "SELECT id, display_name, sex, birth_date, height_cm, weight_kg, body_fat_pct, created_at"
        " FROM users WHERE id = %s",
        (user_id,),
    )
    return await cur.fetchone()


async def update_profile(conn: Conn, user_id: UserId, **fields: Any) -> dict[str, Any]:
    """Set the given profile fields (None clears one). Unknown fields and bad values are errors."""
    unknown = sorted(set(fields) - set(PROFILE_FIELDS))
    if unknown:
        raise RepositoryError(f"unknown profile field(s): {', '.join(unknown)}")
    values = {name: _check(name, value) for name, value in fields.items()}
    if not values:
        profile = await get_profile(conn, user_id)
        if profile is None:
            raise RepositoryError("user not found")
        return profile
    query = sql.SQL(
        "UPDATE users SET {}, updated_at = now() WHERE id = %(user_id)s"
        " RETURNING id, display_name, sex, birth_date, height_cm, weight_kg, body_fat_pct, created_at"
    ).format(set_clause(values))
    cur = await conn.execute(query, {**values, "user_id": user_id})
    row = await cur.fetchone()
    if row is None:
        raise RepositoryError("user not found")
    return row


def _check(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name == "sex":
        if str(value).lower() not in SEXES:
            raise RepositoryError(f"sex must be one of {', '.join(SEXES)}")
        return str(value).lower()
    if name == "birth_date":
        if isinstance(value, date):
            return value
        try:
            return date.fromisoformat(str(value))
        except ValueError:
            raise RepositoryError(f"birth_date {value!r} is not an ISO date") from None
    if name == "display_name":
        text = str(value).strip()
        if not 1 <= len(text) <= 120:
            raise RepositoryError("display_name must be 1-120 characters")
        return text
    limits = {"height_cm": (0, 300), "weight_kg": (0, 700), "body_fat_pct": (0, 100)}
    low, high = limits[name]
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        raise RepositoryError(f"{name} must be a number") from None
    if not low < number < high and not (name == "body_fat_pct" and number == 0):
        raise RepositoryError(f"{name} must be between {low} and {high}")
    return number
