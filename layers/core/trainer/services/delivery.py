"""Delivering the day's workout to the user's phones (the Notifier's logic, docs/delivery.md#the-notifier).

`DeliveryService.deliver(ready)` takes one `WorkoutReady` and, at most once per (user, local day):

1. reads the user's notification settings (a user who no longer exists: nothing is sent or recorded);
   opted out of every channel: recorded `skipped`;
2. times it (trainer.domain.delivery_window): before their morning hour or in their quiet hours it is
   recorded `deferred` with the instant it may go (the hourly run publishes the event again then); a
   day that is over, or whose rest is quiet, is `skipped`;
3. claims the day's record (a conditional upsert: one caller wins; a duplicate event finds the record
   sent, or being sent — then DeliveryInProgress, which the function's retry resolves);
4. pushes to each registered device through its SNS platform endpoint (created on first use and made to
   match the registration: AWS's token-management guidance), and texts the message to a verified
   number when the user opted in to SMS;
5. records the outcome: `sent` (some channel delivered), `failed` (all tried failed, with the first
   reason) or `skipped` (none could be tried: no devices, push not configured), with every channel's.

An endpoint SNS reports disabled (the push service refused its token) is deleted with its device. The
SNS calls are behind the PushGateway and SmsGateway ports (trainer.jobs.sns is the adapter).

An account deleted while its delivery runs (docs/api.md#account-deletion-and-data-export) is `skipped`
(`account_deleted`), and an endpoint the delivery made for one of its devices is deleted: after noting
the endpoint on the device row, the delivery looks for the account's tombstone; the deletion writes the
tombstone before its eraser reads the rows, so either the eraser sees the endpoint on the row or this
delivery sees the tombstone.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from trainer.domain.delivery_window import delivery_time
from trainer.domain.push_payloads import Platform, deep_link, push_message, sms_text
from trainer.domain.workout_grouping import zone
from trainer.services.notifications import NotificationSettings
from trainer.services.rows import Row
from trainer.services.scope import user_key
from trainer.store.db import Database
from trainer.store.ports import AccountDeleted
from trainer.store.repositories import accounts, devices, notifications

logger = logging.getLogger(__name__)

STALE_AFTER_TIMEOUTS = 3
"""A delivery claim is taken over once it is this many Notifier timeouts old (notifications.STALE_CLAIM)."""
ChannelStatus = Literal["sent", "failed", "skipped"]
Outcome = Literal["sent", "failed", "skipped", "deferred", "duplicate"]


# --- the ports --------------------------------------------------------------------------------------


class PushFailed(Exception):
    """A push that did not go; `reason` is a short code recorded with the delivery."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


class EndpointDisabled(PushFailed):
    """SNS disabled the endpoint: the push service (APNs, FCM) refused its token."""

    def __init__(self, message: str = "") -> None:
        super().__init__("endpoint_disabled", message)


class EndpointGone(PushFailed):
    """The endpoint no longer exists in SNS."""

    def __init__(self, message: str = "") -> None:
        super().__init__("endpoint_not_found", message)


@dataclass(frozen=True)
class EndpointState:
    token: str
    enabled: bool


class PushGateway(Protocol):
    """SNS mobile push (trainer.jobs.sns.SnsPushGateway)."""

    def configured(self, platform: str) -> bool:
        """A platform application exists for the platform (the stack was given its credentials)."""
        ...

    async def create_endpoint(self, platform: str, token: str) -> str: ...

    async def endpoint(self, endpoint_arn: str) -> EndpointState | None:
        """None when the endpoint does not exist."""
        ...

    async def enable(self, endpoint_arn: str, token: str) -> None: ...

    async def publish(self, endpoint_arn: str, message: str) -> str:
        """The message id; EndpointDisabled, EndpointGone or PushFailed when it did not go."""
        ...

    async def delete_endpoint(self, endpoint_arn: str) -> None: ...


class SmsGateway(Protocol):
    async def send(self, phone_number: str, text: str) -> str:
        """The message id; PushFailed when it did not go."""
        ...


# --- the event ------------------------------------------------------------------------------------


class ReadyWorkout(BaseModel):
    """`WorkoutReady`'s detail (trainer.programs.pipeline.schedules.ready_detail)."""

    model_config = ConfigDict(extra="ignore")
    user_id: uuid.UUID
    workout_id: uuid.UUID
    date: date
    timezone: str = "UTC"
    title: str = Field(default="Today's workout", max_length=500)
    message: str = Field(min_length=1, max_length=1600)
    plan_id: uuid.UUID | None = None
    week_number: int | None = None

    @property
    def link(self) -> str:
        return deep_link(str(self.workout_id))

    def detail(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class DeliveryInProgress(Exception):
    """Another invocation holds the day's delivery and may still be sending it: retry later (a retry
    finds it done, or takes over a claim whose sender died)."""


@dataclass
class Channel:
    channel: Literal["push", "sms"]
    status: ChannelStatus
    reason: str | None = None
    device_id: str | None = None
    platform: str | None = None
    message_id: str | None = None

    def record(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class DeliveryResult:
    outcome: Outcome
    reason: str | None = None
    channels: list[Channel] = field(default_factory=list)
    not_before: datetime | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "reason": self.reason,
            "not_before": self.not_before.isoformat() if self.not_before else None,
            "channels": [c.record() for c in self.channels],
        }


def _utcnow() -> datetime:
    return datetime.now(UTC)


# --- the service ----------------------------------------------------------------------------------


class DeliveryService:
    def __init__(
        self,
        db: Database,
        push: PushGateway,
        sms: SmsGateway | None = None,
        *,
        morning_hour: int = 6,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._db = db
        self._push = push
        self._sms = sms
        self._morning_hour = morning_hour
        self._clock = clock

    async def deliver(self, ready: ReadyWorkout) -> DeliveryResult:
        try:
            return await self._deliver(ready)
        except Exception:
            if await self._account_deleted(ready.user_id):
                logger.info("a delivery stopped: the account was deleted")
                return DeliveryResult("skipped", "account_deleted")
            raise

    async def _account_deleted(self, user_id: Any) -> bool:
        async with self._db.connection() as conn:
            return await accounts.tombstone(conn, user_key(user_id)) is not None

    async def _deliver(self, ready: ReadyWorkout) -> DeliveryResult:
        now = self._clock()
        user, day = ready.user_id, ready.date
        async with self._db.connection() as conn:
            if not await notifications.user_exists(conn, user):
                return DeliveryResult("skipped", "unknown_user")
            prefs = NotificationSettings.from_row(await notifications.get_settings(conn, user))
            existing = await notifications.get_delivery(conn, user, day)
        if existing is not None and not _still_open(existing, now):
            return self._already(existing, now)
        wants_sms = prefs.sms_enabled and prefs.phone_number is not None and self._sms is not None
        if not prefs.push_enabled and not wants_sms:
            return await self._skip(ready, "opted_out", now)
        timing = delivery_time(
            now, zone(ready.timezone), day, prefs.morning(self._morning_hour), prefs.quiet_hours
        )
        if timing.action == "skip":
            return await self._skip(ready, timing.reason or "skipped", now)
        if timing.action == "defer":
            assert timing.not_before is not None
            async with self._db.connection() as conn:
                deferred = await notifications.defer(
                    conn,
                    user,
                    day,
                    not_before=timing.not_before,
                    detail=ready.detail(),
                    reason=timing.reason or "deferred",
                    now=now,
                    workout_id=ready.workout_id,
                )
            if not deferred:
                return await self._reread(ready, now)
            return DeliveryResult("deferred", timing.reason, not_before=timing.not_before)
        async with self._db.connection() as conn:
            claim = await notifications.claim(
                conn, user, day, now=now, detail=ready.detail(), workout_id=ready.workout_id
            )
        if claim is None:
            return await self._reread(ready, now)
        channels: list[Channel] = []
        if prefs.push_enabled:
            async with self._db.connection() as conn:
                registered = await devices.list_devices(conn, user)
            for device in registered:
                channels.append(await self._push_to(device, ready, now))
        if wants_sms:
            assert prefs.phone_number is not None
            channels.append(await self._text(prefs.phone_number, ready))
        status, reason = _outcome(channels, push_enabled=prefs.push_enabled)
        async with self._db.connection() as conn:
            finished = await notifications.finish(
                conn,
                user,
                day,
                claimed_at=claim["claimed_at"],
                status=status,
                reason=reason,
                channels=[c.record() for c in channels],
                title=ready.title,
                message=ready.message,
                deep_link=ready.link,
                sent_at=now if status == "sent" else None,
            )
        if finished is None:
            logger.warning("a delivery claim was taken over before it finished", extra={"day": str(day)})
        return DeliveryResult(status, reason, channels)

    async def retire(self, endpoint_arns: Sequence[str]) -> int:
        """Delete SNS endpoints no device row points to any more (a device removed or evicted); one a
        device registered again meanwhile is kept. The number deleted."""
        wanted = sorted(set(endpoint_arns))
        async with self._db.connection() as conn:
            kept = await devices.endpoints_in_use(conn, wanted)
        retired = [arn for arn in wanted if arn not in kept]
        for arn in retired:
            await self._push.delete_endpoint(arn)
        return len(retired)

    # --- steps ------------------------------------------------------------------------------------

    def _already(self, existing: Row, now: datetime) -> DeliveryResult:
        if existing["status"] == "sending":
            raise DeliveryInProgress(f"the delivery of {existing['day']} is being sent")
        return DeliveryResult("duplicate", existing["status"])

    async def _reread(self, ready: ReadyWorkout, now: datetime) -> DeliveryResult:
        """Another delivery of the same day got there first."""
        async with self._db.connection() as conn:
            existing = await notifications.get_delivery(conn, ready.user_id, ready.date)
        if existing is None or _still_open(existing, now):
            raise DeliveryInProgress("the day's delivery record changed under this one")
        return self._already(existing, now)

    async def _skip(self, ready: ReadyWorkout, reason: str, now: datetime) -> DeliveryResult:
        async with self._db.connection() as conn:
            skipped = await notifications.skip(
                conn,
                ready.user_id,
                ready.date,
                reason=reason,
                now=now,
                workout_id=ready.workout_id,
                title=ready.title,
            )
        if not skipped:
            return await self._reread(ready, now)
        return DeliveryResult("skipped", reason)

    async def _push_to(self, device: Row, ready: ReadyWorkout, now: datetime) -> Channel:
        platform: Platform = device["platform"]
        channel = Channel("push", "skipped", device_id=str(device["id"]), platform=platform)
        if not self._push.configured(platform):
            channel.reason = "push_not_configured"
            return channel
        message = push_message(
            platform,
            ready.title,
            ready.message,
            ready.link,
            {"workout_id": str(ready.workout_id), "date": ready.date.isoformat()},
        )
        try:
            arn = await self._endpoint_of(device, now)
            try:
                channel.message_id = await self._push.publish(arn, message)
            except EndpointGone:
                arn = await self._recreate(device, now)
                channel.message_id = await self._push.publish(arn, message)
        except EndpointDisabled:
            await self._remove(device)
            channel.status, channel.reason = "failed", "endpoint_disabled"
            return channel
        except PushFailed as exc:
            channel.status, channel.reason = "failed", exc.reason
            return channel
        channel.status = "sent"
        return channel

    async def _endpoint_of(self, device: Row, now: datetime) -> str:
        """The device's endpoint ARN, created on first use and, after each registration, checked against
        it (the token set and the endpoint enabled: the app has just told us the token is current)."""
        arn: str | None = device.get("endpoint_arn")
        synced = device.get("endpoint_synced_at")
        if arn is not None and synced is not None and synced >= device["registered_at"]:
            return arn
        if arn is None:
            arn = await self._push.create_endpoint(device["platform"], device["token"])
        state = await self._push.endpoint(arn)
        if state is None:
            arn = await self._push.create_endpoint(device["platform"], device["token"])
            state = await self._push.endpoint(arn)
        if state is None or state.token != device["token"] or not state.enabled:
            await self._push.enable(arn, device["token"])
        await self._keep_endpoint(device, arn, now)
        return arn

    async def _recreate(self, device: Row, now: datetime) -> str:
        arn = await self._push.create_endpoint(device["platform"], device["token"])
        await self._keep_endpoint(device, arn, now)
        return arn

    async def _keep_endpoint(self, device: Row, arn: str, now: datetime) -> None:
        """Notes the endpoint on the device row. An endpoint no row keeps (the device was removed, or
        its account deleted, meanwhile) is deleted, since it holds the push token: AccountDeleted for a
        deleted account."""
        async with self._db.connection() as conn:
            kept = await devices.set_endpoint(conn, device["user_id"], device["id"], device["token"], arn)
            deleted = await accounts.tombstone(conn, user_key(device["user_id"])) is not None
            others = device["user_id"] if deleted else None  # the account's own rows are going
            in_use = bool(await devices.endpoints_in_use(conn, [arn], other_than=others))
        if kept and not deleted:
            return
        if not in_use:
            await self._push.delete_endpoint(arn)
        if deleted:
            raise AccountDeleted("the account was deleted")

    async def _remove(self, device: Row) -> None:
        arn = device.get("endpoint_arn")
        async with self._db.connection() as conn:
            removed = await devices.delete_token(conn, device["user_id"], device["id"], device["token"])
        arn = (removed or {}).get("endpoint_arn") or arn
        if arn:
            await self._push.delete_endpoint(arn)
        logger.info("a disabled push endpoint was removed", extra={"platform": device["platform"]})

    async def _text(self, phone_number: str, ready: ReadyWorkout) -> Channel:
        assert self._sms is not None
        channel = Channel("sms", "sent")
        try:
            channel.message_id = await self._sms.send(phone_number, sms_text(ready.message))
        except PushFailed as exc:
            channel.status, channel.reason = "failed", exc.reason
        return channel


def _still_open(record: Row, now: datetime) -> bool:
    """A day's record a delivery may still take: deferred, or claimed by a sender that died."""
    if record["status"] == "deferred":
        return True
    return record["status"] == "sending" and record["claimed_at"] < now - notifications.STALE_CLAIM


def _outcome(channels: Sequence[Channel], *, push_enabled: bool) -> tuple[ChannelStatus, str | None]:
    if any(c.status == "sent" for c in channels):
        return "sent", None
    failed = [c for c in channels if c.status == "failed"]
    if failed:
        return "failed", failed[0].reason
    if not channels:
        return "skipped", "no_devices" if push_enabled else "opted_out"
    return "skipped", channels[0].reason
