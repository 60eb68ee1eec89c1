"""Delivery to the phone (docs/delivery.md): the devices registered for push, the notification
settings, and the record of each day's delivery. Every read and write is scoped to the caller: another
user's device is 404, never visible. Served by the user-data services (trainer.services.devices,
trainer.services.notifications), imported on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Query, Response

from trainer.api.auth import Principal
from trainer.api.delivery_schemas import (
    Device,
    DeviceList,
    DeviceRegistration,
    DeviceResponse,
    Notification,
    NotificationList,
    NotificationSettingsBody,
    NotificationSettingsResponse,
    NotificationSettingsUpdate,
    QuietHoursBody,
)
from trainer.api.errors import ApiError
from trainer.api.inputs import ASCII_DIGITS, IsoDate
from trainer.api.openapi import AUTHENTICATED, DATABASE, INVALID_QUERY, JSON_BODY, error_responses
from trainer.api.routes import ContainerDep, RegisteredUserId, UserId, current_principal
from trainer.api.routes.user_data import user_data
from trainer.container import Container

if TYPE_CHECKING:
    from trainer.services.notifications import NotificationSettings

router = APIRouter(tags=["delivery"])

DEVICE_SCOPED = {404: ("device_not_found",)}
DEVICE_ERRORS = {422: ("invalid_device",)}
SETTINGS_ERRORS = {422: ("invalid_notification_settings", "phone_not_verified")}
PrincipalDep = Annotated[Principal, Depends(current_principal)]


def device_links(device_id: str) -> dict[str, Any]:
    """The OpenAPI link from an answer naming a device (`device_id`: a runtime expression)."""
    return {"DeleteDevice": {"operationId": "deleteDevice", "parameters": {"device_id": device_id}}}


@router.post(
    "/devices",
    status_code=201,
    response_model=DeviceResponse,
    responses={
        200: {
            "model": DeviceResponse,
            "description": "The token was registered already: its device, updated.",
        },
        201: {"links": device_links("$response.body#/device/id")},
        **error_responses(AUTHENTICATED, JSON_BODY, DEVICE_ERRORS, DATABASE),
    },
)
async def register_device(
    container: ContainerDep, user_id: RegisteredUserId, registration: DeviceRegistration, response: Response
) -> DeviceResponse:
    """Registers the phone's push token: `201` with a new device, `200` when the caller had registered
    the token before (its app version, locale and time zone updated). The morning's workout is pushed to
    every registered device. A user keeps at most 10 devices: registering an 11th drops the least
    recently registered. A token is one phone whatever its spelling: APNs hex in either case is one
    token (stored and answered in lowercase), and `apns` and `apns_sandbox` are one phone, its platform
    the one registered last; it belongs to the account that registered it last."""
    from trainer.services.devices import retire_endpoints
    from trainer.services.errors import UserDataError

    try:
        registered = await user_data(container, user_id).devices.register(
            platform=registration.platform,
            token=registration.token,
            app_version=registration.app_version,
            locale=registration.locale,
            timezone=registration.timezone,
        )
    except UserDataError as exc:
        raise ApiError(422, "invalid_device", str(exc)) from None
    await retire_endpoints(container.publisher, user_id, registered.retired)
    response.status_code = 201 if registered.created else 200
    return DeviceResponse(device=Device.model_validate(registered.device))


@router.get("/devices", response_model=DeviceList, responses=error_responses(AUTHENTICATED, DATABASE))
async def list_devices(container: ContainerDep, user_id: UserId) -> DeviceList:
    """The caller's devices, the most recently registered first."""
    rows = await user_data(container, user_id).devices.all()
    return DeviceList(devices=[Device.model_validate(row) for row in rows])


@router.delete(
    "/devices/{device_id}",
    status_code=204,
    response_class=Response,
    responses=error_responses(AUTHENTICATED, DEVICE_SCOPED, DATABASE),
)
async def delete_device(container: ContainerDep, user_id: UserId, device_id: str) -> Response:
    """Unregisters a device (sign-out): nothing more is pushed to it."""
    from trainer.services.devices import retire_endpoints

    removed = await user_data(container, user_id).devices.remove(device_id)
    if removed is None:
        raise ApiError(404, "device_not_found", "Device not found.")
    await retire_endpoints(container.publisher, user_id, [removed])
    return Response(status_code=204)


# --- notification settings --------------------------------------------------------------------------


def settings_body(container: Container, settings: NotificationSettings) -> NotificationSettingsBody:
    quiet = settings.quiet_hours
    default = container.settings.morning_hour
    return NotificationSettingsBody(
        push_enabled=settings.push_enabled,
        morning_hour=settings.morning_hour,
        effective_morning_hour=settings.morning(default),
        earliest_morning_hour=default,
        quiet_hours=QuietHoursBody(start=f"{quiet.start:%H:%M}", end=f"{quiet.end:%H:%M}") if quiet else None,
        sms_enabled=settings.sms_enabled,
        sms_available=container.settings.sms_enabled,
        phone_number=settings.phone_number,
    )


@router.get(
    "/notification-settings",
    response_model=NotificationSettingsResponse,
    responses=error_responses(AUTHENTICATED, DATABASE),
)
async def get_notification_settings(container: ContainerDep, user_id: UserId) -> NotificationSettingsResponse:
    """Push on or off, the morning hour, quiet hours and SMS (the defaults until set: push on at the
    deployment's morning hour, no quiet hours, no SMS)."""
    settings = await user_data(container, user_id).notifications.settings()
    return NotificationSettingsResponse(settings=settings_body(container, settings))


@router.put(
    "/notification-settings",
    response_model=NotificationSettingsResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, SETTINGS_ERRORS, DATABASE),
)
async def put_notification_settings(
    container: ContainerDep, user_id: UserId, principal: PrincipalDep, update: NotificationSettingsUpdate
) -> NotificationSettingsResponse:
    """Replaces the settings. SMS goes only to the phone number the caller's sign-in verified (the
    token's `phone_number` with `phone_number_verified: true`); turning SMS off forgets the number."""
    from datetime import time

    from trainer.services.errors import UserDataError
    from trainer.services.notifications import verified_phone

    phone = verified_phone(principal.claims)
    if update.sms_enabled and phone is None:
        raise ApiError(
            422,
            "phone_not_verified",
            "SMS needs a verified phone number: verify one with your sign-in provider, then sign in again.",
        )
    quiet = (
        (time.fromisoformat(update.quiet_hours.start), time.fromisoformat(update.quiet_hours.end))
        if update.quiet_hours
        else None
    )
    try:
        settings = await user_data(container, user_id).notifications.replace_settings(
            push_enabled=update.push_enabled,
            morning_hour=update.morning_hour,
            quiet_hours=quiet,
            sms_enabled=update.sms_enabled,
            phone=phone,
            earliest_morning_hour=container.settings.morning_hour,
        )
    except UserDataError as exc:
        raise ApiError(422, "invalid_notification_settings", str(exc)) from None
    return NotificationSettingsResponse(settings=settings_body(container, settings))


# --- deliveries -----------------------------------------------------------------------------------


@router.get(
    "/notifications",
    response_model=NotificationList,
    responses=error_responses(AUTHENTICATED, INVALID_QUERY, DATABASE),
)
async def list_notifications(
    container: ContainerDep,
    user_id: UserId,
    limit: Annotated[int, Query(ge=1, le=100), ASCII_DIGITS] = 20,
    before: Annotated[
        IsoDate | None,
        Query(description="Only days before this one (ISO date): the previous page's `next_before`."),
    ] = None,
) -> NotificationList:
    """What became of each day's workout message (sent, failed, skipped, each with its reason and
    channels, or deferred until `not_before`), newest day first."""
    rows = await user_data(container, user_id).notifications.history(before=before, limit=limit + 1)
    page = rows[:limit]
    return NotificationList(
        notifications=[Notification.model_validate(row | {"date": row["day"]}) for row in page],
        next_before=page[-1]["day"] if len(rows) > limit else None,
    )
