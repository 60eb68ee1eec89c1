"""devices: the push tokens a user registered, one row per phone: per push service (`apns` for both APNs
platforms, `fcm`) and token, the token in its one spelling (`normalised_token`).

A token belongs to the user who registered it last, whatever its spelling and APNs platform:
registering a token another user held moves it (under a new id, so no id is shared between users).
Every read and write but the move is scoped by `user_id`; the Notifier's endpoint bookkeeping is scoped
by user and token, so a token moved meanwhile is left alone.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any

from trainer.domain.workout_grouping import is_iana_zone
from trainer.store.repositories import Conn, RepositoryError, UserId, as_uuid

PLATFORMS = ("apns", "apns_sandbox", "fcm")
MAX_DEVICES_PER_USER = 10
"""A user's registrations beyond this evict the least recently registered (a phone replaced, an app
reinstalled: old tokens are never unregistered by the app)."""
APNS_TOKEN = re.compile(r"(?:[0-9a-f]{2}){32,200}")
"""An APNs device token, lowercased: bytes in hex, 32 of them today (64 characters); SNS takes up to 400."""
FCM_TOKEN = re.compile(r"(?:[A-Za-z0-9_-]{1,255}:)?(?=[_-]*[A-Za-z0-9])[A-Za-z0-9_-]{20,}")
"""An FCM registration token: base64url text (not punctuation alone), the app instance's id and a colon
before it (`<instance id>:APA91b...`, some 160 characters today), or without them (older tokens)."""
MAX_TOKEN_LENGTH = 4096
LOCALE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")

_COLUMNS = (
    "id, user_id, platform, token, app_version, locale, timezone, endpoint_arn, endpoint_synced_at,"
    " registered_at, created_at"
)


def push_service(platform: str) -> str:
    """The service a platform's tokens belong to: one APNs token is one phone on either APNs platform."""
    return "fcm" if platform == "fcm" else "apns"


def normalised_token(platform: str, token: str) -> str:
    """The one spelling of a token: APNs hex in lowercase, an FCM token as given (it is case-sensitive)."""
    return token if platform == "fcm" else token.lower()


def validate_registration(
    platform: str, token: str, app_version: str | None, locale: str | None, timezone: str | None
) -> None:
    """RepositoryError (a message fit for the user) for a registration SNS would refuse."""
    if platform not in PLATFORMS:
        raise RepositoryError(f"platform must be one of {', '.join(PLATFORMS)}")
    pattern = FCM_TOKEN if platform == "fcm" else APNS_TOKEN
    if (
        not isinstance(token, str)
        or len(token) > MAX_TOKEN_LENGTH
        or not pattern.fullmatch(normalised_token(platform, token))
    ):
        kind = "an FCM registration token" if platform == "fcm" else "an APNs device token (hex)"
        raise RepositoryError(f"token is not {kind}")
    if app_version is not None and not 1 <= len(app_version.strip()) <= 40:
        raise RepositoryError("app_version must be 1-40 characters")
    if locale is not None and not LOCALE.fullmatch(locale):
        raise RepositoryError(f"locale {locale[:40]!r} is not a language tag such as en-GB")
    if timezone is not None and not is_iana_zone(timezone):
        raise RepositoryError(f"unknown timezone {timezone[:64]!r}: name an IANA zone, e.g. Europe/Berlin")


async def register(
    conn: Conn,
    user_id: UserId,
    *,
    platform: str,
    token: str,
    app_version: str | None = None,
    locale: str | None = None,
    timezone: str | None = None,
    now: datetime | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The device row for the token (created, updated, or moved to this user, `created` saying whether it
    is new to this user, `replaced_endpoint_arn` the SNS endpoint of its other APNs platform when it
    changed platform) and the devices evicted to keep the user within MAX_DEVICES_PER_USER. Run it in a
    transaction."""
    validate_registration(platform, token, app_version, locale, timezone)
    token = normalised_token(platform, token)
    cur = await conn.execute(
        "SELECT platform, endpoint_arn FROM devices WHERE push_service = %s AND token = %s FOR UPDATE",
        (push_service(platform), token),
    )
    before = await cur.fetchone()
    new_id = uuid.uuid4()
    cur = await conn.execute(
        "INSERT INTO devices (id, user_id, platform, token, app_version, locale, timezone, registered_at)"
        " VALUES (%(id)s, %(user)s, %(platform)s, %(token)s, %(version)s, %(locale)s, %(tz)s,"
        " coalesce(%(now)s, now()))"
        " ON CONFLICT (push_service, token) DO UPDATE SET"
        " id = CASE WHEN devices.user_id = EXCLUDED.user_id THEN devices.id ELSE EXCLUDED.id END,"
        " created_at = CASE WHEN devices.user_id = EXCLUDED.user_id THEN devices.created_at"
        " ELSE EXCLUDED.created_at END,"
        # An endpoint belongs to one SNS platform application: another APNs platform needs its own.
        " endpoint_arn = CASE WHEN devices.platform = EXCLUDED.platform THEN devices.endpoint_arn END,"
        " endpoint_synced_at = CASE WHEN devices.platform = EXCLUDED.platform"
        " THEN devices.endpoint_synced_at END,"
        " platform = EXCLUDED.platform,"
        " user_id = EXCLUDED.user_id, app_version = EXCLUDED.app_version, locale = EXCLUDED.locale,"
        " timezone = EXCLUDED.timezone, registered_at = EXCLUDED.registered_at"
        f" RETURNING {_COLUMNS}",
        {
            "id": new_id,
            "user": user_id,
            "platform": platform,
            "token": token,
            "version": app_version.strip() if app_version else None,
            "locale": locale,
            "tz": timezone,
            "now": now,
        },
    )
    row = await cur.fetchone()
    assert row is not None
    cur = await conn.execute(
        f"DELETE FROM devices WHERE user_id = %s AND id IN (SELECT id FROM devices WHERE user_id = %s"
        f" ORDER BY registered_at DESC, id DESC OFFSET %s) RETURNING {_COLUMNS}",
        (user_id, user_id, MAX_DEVICES_PER_USER),
    )
    replaced = before["endpoint_arn"] if before is not None and before["platform"] != platform else None
    return {**row, "created": row["id"] == new_id, "replaced_endpoint_arn": replaced}, await cur.fetchall()


async def list_devices(conn: Conn, user_id: UserId) -> list[dict[str, Any]]:
    """The user's devices, the most recently registered first."""
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM devices WHERE user_id = %s ORDER BY registered_at DESC, id DESC",
        (user_id,),
    )
    return await cur.fetchall()


async def get_device(conn: Conn, user_id: UserId, device_id: Any) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM devices WHERE user_id = %s AND id = %s",
        (user_id, as_uuid(device_id, "device id")),
    )
    return await cur.fetchone()


async def delete_device(conn: Conn, user_id: UserId, device_id: Any) -> dict[str, Any] | None:
    """The deleted row; None when the user has no device with that id."""
    cur = await conn.execute(
        f"DELETE FROM devices WHERE user_id = %s AND id = %s RETURNING {_COLUMNS}",
        (user_id, as_uuid(device_id, "device id")),
    )
    return await cur.fetchone()


async def delete_token(conn: Conn, user_id: UserId, device_id: Any, token: str) -> dict[str, Any] | None:
    """Remove a device whose endpoint SNS disabled, unless its token changed hands meanwhile."""
    cur = await conn.execute(
        f"DELETE FROM devices WHERE user_id = %s AND id = %s AND token = %s RETURNING {_COLUMNS}",
        (user_id, as_uuid(device_id, "device id"), token),
    )
    return await cur.fetchone()


async def set_endpoint(conn: Conn, user_id: UserId, device_id: Any, token: str, endpoint_arn: str) -> bool:
    """Record the token's SNS endpoint, made to match the registration now (the database's clock, as
    `registered_at`), if the device still holds that token."""
    cur = await conn.execute(
        "UPDATE devices SET endpoint_arn = %s, endpoint_synced_at = now()"
        " WHERE user_id = %s AND id = %s AND token = %s RETURNING id",
        (endpoint_arn, user_id, as_uuid(device_id, "device id"), token),
    )
    return await cur.fetchone() is not None


async def endpoints_in_use(conn: Conn, endpoint_arns: list[str]) -> set[str]:
    """Those of the endpoints a device row still points to (a token registered again meanwhile)."""
    if not endpoint_arns:
        return set()
    cur = await conn.execute(
        "SELECT DISTINCT endpoint_arn FROM devices WHERE endpoint_arn = ANY(%s)", (list(endpoint_arns),)
    )
    return {str(row["endpoint_arn"]) for row in await cur.fetchall()}


async def endpoints_of(conn: Conn, user_id: UserId) -> list[str]:
    """The SNS endpoints the user's devices point to."""
    cur = await conn.execute(
        "SELECT DISTINCT endpoint_arn FROM devices WHERE user_id = %s AND endpoint_arn IS NOT NULL"
        " ORDER BY endpoint_arn",
        (user_id,),
    )
    return [str(row["endpoint_arn"]) for row in await cur.fetchall()]


async def endpoints_of_others(conn: Conn, user_id: UserId, endpoint_arns: list[str]) -> set[str]:
    """Those of the endpoints another user's device row points to (a token moved to them meanwhile)."""
    if not endpoint_arns:
        return set()
    cur = await conn.execute(
        "SELECT DISTINCT endpoint_arn FROM devices WHERE endpoint_arn = ANY(%s) AND user_id <> %s",
        (list(endpoint_arns), user_id),
    )
    return {str(row["endpoint_arn"]) for row in await cur.fetchall()}
