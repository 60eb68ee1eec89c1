"""The key a deleted account's tombstones are stored under, in Postgres and DynamoDB alike: SHA-256 of a
fixed prefix and the user id (a users.id in its canonical text form). The stores keep this digest, never
the id; a known id is checked by one key lookup. Kept free of the store clients, so the cost function can
compute it without importing psycopg."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

DIGEST_PREFIX = "trainer-deleted-account:"
"""The same text as the SQL function trainer_account_digest (migration 0009)."""


def canonical_user_id(user_id: str | uuid.UUID) -> uuid.UUID:
    """The users.id of a subject: a UUID as is, any other text as the services map it (uuid5)."""
    if isinstance(user_id, uuid.UUID):
        return user_id
    try:
        return uuid.UUID(str(user_id))
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"trainer-user:{user_id}")


def account_digest(user_id: str | uuid.UUID) -> bytes:
    """The tombstone key of a user."""
    return hashlib.sha256(f"{DIGEST_PREFIX}{canonical_user_id(user_id)}".encode()).digest()


TOMBSTONE_SK = "ACCOUNT"


def tombstone_key(user_id: str | uuid.UUID) -> dict[str, Any]:
    """The key of the account's tombstone item in the DynamoDB sessions table (no user id in it)."""
    return {"PK": {"S": f"DELETED#{account_digest(user_id).hex()}"}, "SK": {"S": TOMBSTONE_SK}}
