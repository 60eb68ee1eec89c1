"""The devices a user registered for push: register (or re-register) a token, list, remove.

A token is one device however often the app registers it (every launch does); registering a token
another user held moves it to the caller. The SNS endpoint of a removed (or evicted) device is deleted
by the Notifier: `retire_endpoints` publishes `PushEndpointsRetired` with the endpoint ARNs, so the API
itself never needs SNS permissions.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import MalformedId
from trainer.store.repositories import devices as repo

logger = logging.getLogger(__name__)

PLATFORMS: tuple[str, ...] = repo.PLATFORMS
MAX_DEVICES_PER_USER = repo.MAX_DEVICES_PER_USER
ENDPOINTS_RETIRED = "PushEndpointsRetired"
"""The event whose detail `{user_id, endpoint_arns}` names SNS endpoints to delete."""


class EventPublisher(Protocol):
    """What publishes domain events (structurally `trainer.chat.ports.EventPublisher`)."""

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Registration:
    device: Row
    created: bool
    """A new device for this user (a token seen for the first time, or moved from another user)."""
    evicted: list[Row]
    """The user's least recently registered devices dropped to stay within MAX_DEVICES_PER_USER."""


class DeviceService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def register(
        self,
        *,
        platform: str,
        token: str,
        app_version: str | None = None,
        locale: str | None = None,
        timezone: str | None = None,
    ) -> Registration:
        """UserDataError for a token or field SNS or the database would refuse."""
        async with self._scope.use(write=True) as conn:
            row, evicted = await repo.register(
                conn,
                self._scope.user,
                platform=platform,
                token=token,
                app_version=app_version,
                locale=locale,
                timezone=timezone,
            )
        created = bool(row.pop("created"))
        return Registration(device=row, created=created, evicted=evicted)

    async def all(self) -> list[Row]:
        """The user's devices, the most recently registered first."""
        async with self._scope.use() as conn:
            return await repo.list_devices(conn, self._scope.user)

    async def get(self, device_id: Any) -> Row | None:
        async with self._scope.use() as conn:
            try:
                return await repo.get_device(conn, self._scope.user, device_id)
            except MalformedId:
                return None

    async def remove(self, device_id: Any) -> Row | None:
        """The removed device; None when the user has none with that id (another user's included)."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.delete_device(conn, self._scope.user, device_id)
            except MalformedId:
                return None


async def retire_endpoints(publisher: EventPublisher | None, user_id: Any, devices: Sequence[Row]) -> bool:
    """Ask the Notifier to delete the SNS endpoints of devices no longer registered. False when there
    was nothing to retire or the event could not be published (logged: the endpoint is left in SNS,
    where no device row points to it any more)."""
    arns = sorted({str(d["endpoint_arn"]) for d in devices if d.get("endpoint_arn")})
    if not arns or publisher is None:
        return False
    try:
        await publisher.publish(ENDPOINTS_RETIRED, {"user_id": str(user_id), "endpoint_arns": arns})
    except Exception:
        logger.warning("PushEndpointsRetired not published", extra={"endpoints": len(arns)}, exc_info=True)
        return False
    return True
