"""The devices a user registered for push: register (or re-register) a token, list, remove.

A token is one device however often the app registers it (every launch does) and however it is spelled
(APNs hex in either case, `apns` or `apns_sandbox`: trainer.store.repositories.devices); registering a
token another user held moves it to the caller. The SNS endpoint of a removed (or evicted) device is deleted
by the Notifier: `retire_endpoints` publishes `PushEndpointsRetired` with the endpoint ARNs, so the API
needs no SNS permission for it. An account deletion deletes them itself (`DeviceEndpointEraser`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from trainer.services.rows import Row
from trainer.services.scope import UserRef, UserScope, user_key
from trainer.store.repositories import MalformedId
from trainer.store.repositories import devices as repo

if TYPE_CHECKING:
    from trainer.store.db import Database

logger = logging.getLogger(__name__)

PLATFORMS: tuple[str, ...] = repo.PLATFORMS
MAX_DEVICES_PER_USER = repo.MAX_DEVICES_PER_USER
ENDPOINTS_RETIRED = "PushEndpointsRetired"
"""The event whose detail `{user_id, endpoint_arns}` names SNS endpoints to delete."""


class EventPublisher(Protocol):
    """What publishes domain events (structurally `trainer.chat.ports.EventPublisher`)."""

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None: ...


class EndpointDeleter(Protocol):
    """What deletes an SNS platform endpoint (structurally `trainer.services.delivery.PushGateway`);
    an endpoint already gone is not an error."""

    async def delete_endpoint(self, endpoint_arn: str) -> None: ...


@dataclass(frozen=True)
class Registration:
    device: Row
    created: bool
    """A new device for this user (a token seen for the first time, or moved from another user)."""
    evicted: list[Row]
    """The user's least recently registered devices dropped to stay within MAX_DEVICES_PER_USER."""
    replaced_endpoint_arn: str | None = None
    """The SNS endpoint of the token's other APNs platform, when it was registered under the other one."""

    @property
    def retired(self) -> list[Row]:
        """What no longer needs an SNS endpoint: the evicted devices and the replaced endpoint."""
        replaced = [{"endpoint_arn": self.replaced_endpoint_arn}] if self.replaced_endpoint_arn else []
        return [*self.evicted, *replaced]


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
        replaced = row.pop("replaced_endpoint_arn")
        return Registration(device=row, created=created, evicted=evicted, replaced_endpoint_arn=replaced)

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


class DeviceEndpointEraser:
    """An account deletion's `AccountEraser` for push (trainer.services.account): deletes the SNS
    platform endpoints of the user's devices, which hold their push tokens, while the device rows that
    name them are still there (the account's rows go after every eraser succeeded).

    Directly, not through `PushEndpointsRetired`: the Notifier keeps an endpoint a device row points to,
    and the event could arrive before the rows are gone. An endpoint another user's device row points to
    (the same phone registered under a new account since) is theirs and kept."""

    name = "sns_endpoints"

    def __init__(self, db: Database, push: EndpointDeleter) -> None:
        self._db = db
        self._push = push

    async def erase(self, user_id: UserRef) -> int:
        """The number of endpoints deleted; idempotent (a deleted endpoint is not an error)."""
        key = user_key(user_id)
        async with self._db.connection() as conn:
            arns = await repo.endpoints_of(conn, key)
            shared = await repo.endpoints_of_others(conn, key, arns)
        mine = [arn for arn in arns if arn not in shared]
        for arn in mine:
            await self._push.delete_endpoint(arn)
        return len(mine)
