"""users (profile + body stats + training profile). `ensure_user` creates the user and default settings on
first contact; for a deleted account it raises AccountDeleted (the users trigger of migration 0009)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import psycopg
from psycopg import sql

from trainer.store.repositories import Conn, RepositoryError, UserId, set_clause
from trainer.store.repositories.accounts import refuse_if_deleted

PROFILE_FIELDS = (
    "display_name", "sex", "birth_date", "height_cm", "weight_kg", "body_fat_pct", "experience",
    "session_minutes", "goal_statement", "stated_age", "stated_age_on", "no_limitations",
)  # fmt: skip
SEXES = ("male", "female", "other")
EXPERIENCE_LEVELS = ("beginner", "intermediate", "advanced")
SESSION_MINUTES = (15, 180)
STATED_AGES = (13, 110)
GOAL_STATEMENT_MAX = 500
EARLIEST_BIRTH_DATE = date(1900, 1, 1)
"""Birth dates must be after it (the column's check)."""
_COLUMNS = (
    "id, display_name, sex, birth_date, height_cm, weight_kg, body_fat_pct, experience, session_minutes,"
    " goal_statement, stated_age, stated_age_on, no_limitations, created_at"
)


async def ensure_user(conn: Conn, user_id: UserId, *, display_name: str | None = None) -> None:
    """Create the users row and default user_settings if missing (idempotent, one round trip)."""
    try:
        await conn.execute(
            "WITH u AS (INSERT INTO users (id, display_name) VALUES (%(id)s, %(name)s)"
            " ON CONFLICT (id) DO NOTHING)"
            " INSERT INTO user_settings (user_id) VALUES (%(id)s) ON CONFLICT (user_id) DO NOTHING",
            {"id": user_id, "name": display_name},
        )
    except psycopg.Error as exc:
        refuse_if_deleted(exc)
        raise


async def get_profile(conn: Conn, user_id: UserId) -> dict[str, Any] | None:
    cur = await conn.execute(f"SELECT {_COLUMNS} FROM users WHERE id = %s", (user_id,))
    return await cur.fetchone()


async def update_profile(conn: Conn, user_id: UserId, **fields: Any) -> dict[str, Any]:
    """Set the given profile fields (None clears one). Unknown fields and bad values are errors."""
    unknown = sorted(set(fields) - set(PROFILE_FIELDS))
    if unknown:
        raise RepositoryError(f"unknown profile field(s): {', '.join(unknown)}")
    values = {name: _check(name, value) for name, value in fields.items()}
    if ("stated_age" in values) != ("stated_age_on" in values):
        raise RepositoryError("stated_age and stated_age_on are set together")
    if not values:
        profile = await get_profile(conn, user_id)
        if profile is None:
            raise RepositoryError("user not found")
        return profile
    query = sql.SQL(
        "UPDATE users SET {}, updated_at = now() WHERE id = %(user_id)s RETURNING " + _COLUMNS
    ).format(set_clause(values))
    cur = await conn.execute(query, {**values, "user_id": user_id})
    row = await cur.fetchone()
    if row is None:
        raise RepositoryError("user not found")
    return row


def _check(name: str, value: Any) -> Any:
    if name == "no_limitations":
        if not isinstance(value, bool):
            raise RepositoryError("no_limitations must be true or false")
        return value
    if value is None:
        return None
    if name == "stated_age":
        low_age, high_age = STATED_AGES
        if isinstance(value, bool) or not isinstance(value, int) or not low_age <= value <= high_age:
            raise RepositoryError(f"age must be a whole number from {low_age} to {high_age}")
        return value
    if name == "stated_age_on":
        if not isinstance(value, date) or value > date.today() + timedelta(days=1):
            raise RepositoryError("stated_age_on must be a date, not in the future")
        return value
    if name == "goal_statement":
        statement = " ".join(str(value).split())
        if not 1 <= len(statement) <= GOAL_STATEMENT_MAX:
            raise RepositoryError(f"goal_statement must be 1-{GOAL_STATEMENT_MAX} characters")
        return statement
    if name == "sex":
        if str(value).lower() not in SEXES:
            raise RepositoryError(f"sex must be one of {', '.join(SEXES)}")
        return str(value).lower()
    if name == "birth_date":
        try:
            born = value if isinstance(value, date) else date.fromisoformat(str(value))
        except ValueError:
            raise RepositoryError(f"birth_date {value!r} is not an ISO date") from None
        if not EARLIEST_BIRTH_DATE < born <= date.today():
            raise RepositoryError(f"birth_date must be after {EARLIEST_BIRTH_DATE} and not in the future")
        return born
    if name == "experience":
        if str(value).lower() not in EXPERIENCE_LEVELS:
            raise RepositoryError(f"experience must be one of {', '.join(EXPERIENCE_LEVELS)}")
        return str(value).lower()
    if name == "session_minutes":
        low_minutes, high_minutes = SESSION_MINUTES
        if isinstance(value, bool) or not isinstance(value, int) or not low_minutes <= value <= high_minutes:
            raise RepositoryError(
                f"session_minutes must be a whole number from {low_minutes} to {high_minutes}"
            )
        return value
    if name == "display_name":
        text = str(value).strip()
        if not 1 <= len(text) <= 120:
            raise RepositoryError("display_name must be 1-120 characters")
        return text
    limits = {"height_cm": (0, 300), "weight_kg": (0, 700), "body_fat_pct": (0, 100)}
    low, high = limits[name]
    try:
        # Rounded as the column stores it (one decimal), so a value the check passes is one it keeps.
        number = Decimal(str(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    except ArithmeticError:
        raise RepositoryError(f"{name} must be a number") from None
    if not number.is_finite():
        raise RepositoryError(f"{name} must be a number")
    if not low < number < high and not (name == "body_fat_pct" and number == 0):
        raise RepositoryError(f"{name} must be between {low} and {high}")
    return number
