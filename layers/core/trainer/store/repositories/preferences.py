"""User preferences: permanent, expiring (`expires_at`), or one-shot (`delete_after_use`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from trainer.domain.reach import out_of_reach
from trainer.store.repositories import Conn, RepositoryError, UserId, as_uuid

PREFERENCE_TYPES = (
    "workout", "injury", "time", "equipment", "intensity", "muscle_group", "exercise", "goal", "recovery",
    "other",
)  # fmt: skip
_COLUMNS = "id, type, description, guidance, expires_at, delete_after_use, created_at"
MAX_ACTIVE = 50
"""The most preferences one user keeps active (not expired) at once: each is in the chat's context, and
the workouts honour every one (docs/architecture.md#the-prompt-budget)."""
MAX_DESCRIPTION = 1000
MAX_GUIDANCE = 2000


async def create_preference(
    conn: Conn,
    user_id: UserId,
    *,
    type: str,
    description: str,
    guidance: str = "",
    expires_at: datetime | str | None = None,
    delete_after_use: bool = False,
    now: datetime | None = None,
) -> dict[str, Any]:
    if type not in PREFERENCE_TYPES:
        raise RepositoryError(f"preference type must be one of {', '.join(PREFERENCE_TYPES)}")
    text = (description or "").strip()
    if not 1 <= len(text) <= MAX_DESCRIPTION:
        raise RepositoryError(f"description must be 1-{MAX_DESCRIPTION} characters")
    at = now or datetime.now(UTC)
    expiry = parse_timestamp(expires_at, "expires_at") if expires_at not in (None, "") else None
    if expiry is not None and expiry <= at:
        raise RepositoryError("expires_at is in the past")
    # One creation at a time per user, so two at once cannot both take the last place.
    await conn.execute("SELECT 1 FROM users WHERE id = %s FOR NO KEY UPDATE", (user_id,))
    cur = await conn.execute(
        "SELECT count(*) AS active FROM preferences"
        " WHERE user_id = %s AND (expires_at IS NULL OR expires_at > %s)",
        (user_id, at),
    )
    counted = await cur.fetchone()
    if counted is not None and counted["active"] >= MAX_ACTIVE:
        raise RepositoryError(
            f"there are already {counted['active']} active preferences, the most kept at once: "
            "remove one that no longer applies first"
        )
    cur = await conn.execute(
        "INSERT INTO preferences (user_id, type, description, guidance, expires_at, delete_after_use)"
        f" VALUES (%s, %s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
        (user_id, type, text, (guidance or "").strip()[:MAX_GUIDANCE], expiry, bool(delete_after_use)),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def list_active(conn: Conn, user_id: UserId, now: datetime | None = None) -> list[dict[str, Any]]:
    """Preferences not yet expired at `now`, oldest first."""
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM preferences WHERE user_id = %s AND (expires_at IS NULL OR expires_at > %s)"
        " ORDER BY created_at, id",
        (user_id, now or datetime.now(UTC)),
    )
    return await cur.fetchall()


async def delete_preference(conn: Conn, user_id: UserId, preference_id: Any) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"DELETE FROM preferences WHERE user_id = %s AND id = %s RETURNING {_COLUMNS}",
        (user_id, as_uuid(preference_id, "preference id")),
    )
    return await cur.fetchone()


async def consume_delete_after_use(conn: Conn, user_id: UserId) -> list[dict[str, Any]]:
    """Delete the one-shot preferences (call after a workout was generated); returns what was removed."""
    cur = await conn.execute(
        f"DELETE FROM preferences WHERE user_id = %s AND delete_after_use RETURNING {_COLUMNS}", (user_id,)
    )
    return sorted(await cur.fetchall(), key=lambda r: (r["created_at"], str(r["id"])))


def parse_timestamp(value: Any, what: str) -> datetime:
    """ISO timestamp or date from model input; naive values are taken as UTC."""
    if isinstance(value, datetime):
        parsed = value
    else:
        try:
            parsed = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise RepositoryError(f"{what} {str(value)[:40]!r} is not an ISO timestamp") from None
    parsed = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    if (problem := out_of_reach(parsed)) is not None:
        raise RepositoryError(f"{what} {problem}")
    return parsed
