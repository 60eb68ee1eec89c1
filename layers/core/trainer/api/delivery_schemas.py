"""The HTTP contract of delivery to the phone (docs/delivery.md): devices registered for push, the
notification settings, the record of what was delivered, and the day's workout at launch. Same rules as
trainer.api.schemas: every field of a response model is always present (null where its type allows it).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal
from uuid import UUID

from pydantic import Field, StrictBool, StrictInt

from trainer.api.inputs import RequestBody
from trainer.api.schemas import Day, ResponseModel, TimeZone
from trainer.domain.workout import Workout

DevicePlatform = Literal["apns", "apns_sandbox", "fcm"]
TOKEN_PATTERN = r"^[A-Za-z0-9_:.\-]+$"
LOCALE_PATTERN = r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$"
APP_VERSION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ._+()\-]{0,39}$"
CLOCK_TIME_PATTERN = r"^(?:[01][0-9]|2[0-3]):[0-5][0-9]$"
ClockTime = Annotated[
    str, Field(pattern=CLOCK_TIME_PATTERN, description="A local time of day, `HH:MM` (24-hour clock).")
]


# --- devices --------------------------------------------------------------------------------------


class DeviceRegistration(RequestBody):
    """A push token from the phone's OS. Registering a token again (every launch may) updates its
    device; registering a token another account held moves it to the caller (a shared or sold phone).
    A token of the wrong shape for its platform is `422 invalid_device`. A token is one device whatever
    its spelling: an APNs token is stored in lowercase hex, and `apns` and `apns_sandbox` name the same
    phone (registering it under the other moves it there)."""

    platform: DevicePlatform = Field(
        description="`apns` (App Store / TestFlight builds), `apns_sandbox` (development builds), `fcm`."
    )
    token: str = Field(
        min_length=1,
        max_length=4096,
        pattern=TOKEN_PATTERN,
        description="APNs: the device token in hex (64 characters); FCM: the registration token.",
    )
    app_version: str | None = Field(
        default=None, pattern=APP_VERSION_PATTERN, description="e.g. `1.4.0 (212)`."
    )
    locale: str | None = Field(
        default=None, max_length=35, pattern=LOCALE_PATTERN, description="e.g. `en-GB`."
    )
    timezone: TimeZone | None = Field(default=None, description="The phone's IANA time zone.")


class Device(ResponseModel):
    id: UUID
    platform: DevicePlatform
    token: str = Field(description="Only ever shown to the account that registered it.")
    app_version: str | None
    locale: str | None
    timezone: str | None
    registered_at: datetime = Field(description="The latest registration.")
    created_at: datetime


class DeviceResponse(ResponseModel):
    device: Device


class DeviceList(ResponseModel):
    devices: list[Device] = Field(description="The most recently registered first (at most 10).")


# --- notification settings ------------------------------------------------------------------------


class QuietHoursWindow(RequestBody):
    """No push or SMS from `start` until `end`, local time; it may span midnight (`22:00`-`07:00`)."""

    start: ClockTime
    end: ClockTime = Field(description="Must differ from `start`.")


class NotificationSettingsUpdate(RequestBody):
    """The whole settings document (PUT replaces it). `morning_hour` before the deployment's
    `earliest_morning_hour`, or quiet hours that start when they end, are `422
    invalid_notification_settings`; `sms_enabled` without a verified phone number in the caller's token
    (the OIDC claims `phone_number` and `phone_number_verified`) is `422 phone_not_verified`. Each
    value is of its JSON type: `1` or `"true"` is no boolean, `"8"`, `7.0` or `true` no hour."""

    push_enabled: StrictBool = Field(description="False opts out of push.")
    morning_hour: StrictInt | None = Field(
        ge=0, le=23, description="The local hour the day's workout arrives; null: the deployment's default."
    )
    quiet_hours: QuietHoursWindow | None = Field(description="Null: no quiet hours.")
    sms_enabled: StrictBool = Field(description="Also text the day's workout to the verified phone number.")


class QuietHoursBody(ResponseModel):
    start: ClockTime
    end: ClockTime


class NotificationSettingsBody(ResponseModel):
    push_enabled: bool
    morning_hour: int | None = Field(description="As set; null follows the deployment's default.")
    effective_morning_hour: int = Field(description="The local hour deliveries actually aim at.")
    earliest_morning_hour: int = Field(description="The earliest `morning_hour` this deployment accepts.")
    quiet_hours: QuietHoursBody | None
    sms_enabled: bool
    sms_available: bool = Field(description="This deployment sends SMS at all.")
    phone_number: str | None = Field(description="The verified number SMS goes to (E.164); null without SMS.")


class NotificationSettingsResponse(ResponseModel):
    settings: NotificationSettingsBody


# --- deliveries -----------------------------------------------------------------------------------


class DeliveryChannel(ResponseModel):
    channel: Literal["push", "sms"]
    status: Literal["sent", "failed", "skipped"]
    reason: str | None = Field(
        default=None,
        description="`endpoint_disabled` (the token was refused; the device is removed), "
        "`push_not_configured`, or the push service's error.",
    )
    device_id: UUID | None = Field(default=None, description="Push: the device.")
    platform: DevicePlatform | None = None


class Notification(ResponseModel):
    """What became of one day's workout message."""

    id: UUID
    date: Day
    workout_id: UUID | None
    status: Literal["deferred", "sending", "sent", "failed", "skipped"] = Field(
        description="`deferred` until the morning hour or the end of quiet hours (`not_before`); `sent` "
        "when a channel delivered it; `failed` when all tried failed; `skipped` when none was tried."
    )
    reason: str | None = Field(
        description="`opted_out`, `no_devices`, `push_not_configured`, `quiet_hours`, `day_over`, "
        "`before_morning`, `endpoint_disabled`..."
    )
    title: str | None
    message: str | None = Field(description="The text delivered (at most 1,600 characters).")
    deep_link: str | None = Field(description="`trainer://workouts/<workout id>`.")
    channels: list[DeliveryChannel]
    not_before: datetime | None
    attempts: int
    sent_at: datetime | None
    created_at: datetime
    updated_at: datetime


class NotificationList(ResponseModel):
    notifications: list[Notification] = Field(description="Newest day first.")
    next_before: date | None = Field(description="Pass as `before` for the next page; null on the last.")


# --- today ----------------------------------------------------------------------------------------


class TodayAdjustment(ResponseModel):
    """What the day's readiness changed in the planned workout, and why (docs/health-data.md#readiness)."""

    source: Literal["check_in", "health_data", "other_workouts"] = Field(
        description="Today's check-in (it wins), else the phone's health data; `other_workouts`: only a "
        "long leg session in another app yesterday or today changed the day."
    )
    level: Literal["ready", "reduce", "recover", "rest"] | None = Field(
        description="The day's readiness; null when only other apps' workouts changed the day."
    )
    reasons: list[str] = Field(description="The signs behind the level, in words.")
    changes: list[str] = Field(description="What changed, in words.")
    explanation: str = Field(description="What changed and why, in one sentence for the user.")


class TodayWorkout(ResponseModel):
    date: Day = Field(description="Today in the user's time zone.")
    timezone: TimeZone
    source: Literal["plan", "scheduled", "generated"] = Field(
        description="The active plan's day, a workout scheduled today, or one composed for the day "
        "(the same all day)."
    )
    id: UUID = Field(description="The planned day's, the scheduled workout's or the generated workout's id.")
    kind: Literal["training", "rest"]
    title: str
    workout: Workout | None = Field(
        description="Null on a rest day (or a scheduled workout without exercises); adjusted to the "
        "day's readiness when `adjustment` says so."
    )
    recovery_notes: str | None
    message: str = Field(description="The day as a push/SMS text (at most 1,600 characters).")
    plan_id: UUID | None
    week_number: int | None
    scheduled_at: datetime | None
    adjustment: TodayAdjustment | None = Field(
        description="What the day's readiness changed in the workout and why; null: it is as planned."
    )


class TodayResponse(ResponseModel):
    today: TodayWorkout
