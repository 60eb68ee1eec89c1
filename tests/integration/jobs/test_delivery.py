"""The Notifier on moto's SNS and embedded Postgres: the day's workout reaches each registered device once
per user and day however often WorkoutReady arrives (in turn, at once, through the bus); it waits for the
user's morning hour and the end of their quiet hours in their time zone, and the hourly run sends it then;
an opt-out is honoured; an endpoint SNS disabled is removed with its device; the published payloads have
the APNs and FCM v1 shapes; an opted-in user gets the message as an SMS within 1,600 characters; and the
endpoints of removed devices are deleted.

Published messages are read from moto's SNS backend (the moto server runs in this process)."""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from typing import Any

import pytest
from moto.sns.models import sns_backends
from trainer.container import agent_run_deps
from trainer.jobs.notifier import WORKOUT_READY, NotifierDeps, handle
from trainer.jobs.sns import SnsPushGateway
from trainer.programs.pipeline import ProgramDeps, republish_deliveries
from trainer.services.delivery import DeliveryInProgress, DeliveryService, ReadyWorkout
from trainer.services.devices import ENDPOINTS_RETIRED
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.dynamo_tables import aws_client
from trainer.store.repositories import devices, notifications
from trainer_dev.local.bus import InProcessBus
from trainer_dev.local.moto_server import create_push_applications
from trainer_dev.testing.agent_harness import RecordingPublisher

ACCOUNT, REGION = "123456789012", "us-east-1"
MONDAY = date(2026, 3, 9)
BERLIN_SIX = datetime(2026, 3, 9, 5, 0, tzinfo=UTC)
"""06:00 in Berlin (CET) on MONDAY."""
MESSAGE = "🏋️ Monday Upper Strength - Week 2\n\nMAIN WORKOUT\n1️⃣ BB Bench Press: 4×6 @ 70 kg (rest 2 min)\n\n💪"


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def push_settings(aws_settings: Settings) -> Settings:
    apps = create_push_applications(aws_settings, prefix=f"t-{uuid.uuid4().hex[:10]}")
    return aws_settings.model_copy(
        update={
            "sns_apns_application_arn": apps["apns"],
            "sns_apns_sandbox_application_arn": apps["apns_sandbox"],
            "sns_fcm_application_arn": apps["fcm"],
            "sms_enabled": True,
        }
    )


@pytest.fixture
def gateway(push_settings: Settings) -> SnsPushGateway:
    return SnsPushGateway.from_settings(push_settings)


@pytest.fixture
def clock() -> Clock:
    return Clock(BERLIN_SIX)


@pytest.fixture
def service(db: Database, gateway: SnsPushGateway, clock: Clock) -> DeliveryService:
    return DeliveryService(db, gateway, gateway, morning_hour=6, clock=clock)


def token(platform: str) -> str:
    return secrets.token_hex(32) if platform != "fcm" else f"fcm:{secrets.token_urlsafe(60)}"


async def register(
    db: Database, user: str, platform: str = "apns", value: str | None = None
) -> dict[str, Any]:
    async with db.transaction() as conn:
        row, _ = await devices.register(conn, user, platform=platform, token=value or token(platform))
    return row


async def device_rows(db: Database, user: str) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        return await devices.list_devices(conn, user)


async def record(db: Database, user: str, day: date = MONDAY) -> dict[str, Any] | None:
    async with db.connection() as conn:
        return await notifications.get_delivery(conn, user, day)


async def set_notification_settings(db: Database, user: str, **values: Any) -> None:
    async with db.transaction() as conn:
        await notifications.replace_settings(conn, user, values)


def ready(
    user: str, *, day: date = MONDAY, timezone: str = "Europe/Berlin", message: str = MESSAGE
) -> ReadyWorkout:
    return ReadyWorkout.model_validate(
        {
            "user_id": user,
            "plan_id": str(uuid.uuid4()),
            "workout_id": str(uuid.uuid4()),
            "date": day.isoformat(),
            "week_number": 2,
            "timezone": timezone,
            "title": "Upper Strength",
            "message": message,
        }
    )


def endpoint_messages(arn: str) -> list[dict[str, Any]]:
    endpoint = sns_backends[ACCOUNT][REGION].platform_endpoints.get(arn)
    return [json.loads(m) for m in endpoint.messages.values()] if endpoint is not None else []


def sms_to(number: str) -> list[str]:
    return [text for phone, text in sns_backends[ACCOUNT][REGION].sms_messages.values() if phone == number]


async def pushed(db: Database, user: str) -> dict[str, list[dict[str, Any]]]:
    """Each device's platform and the messages its endpoint received."""
    return {
        str(row["id"]): endpoint_messages(row["endpoint_arn"]) if row["endpoint_arn"] else []
        for row in await device_rows(db, user)
    }


# --- once per user and day --------------------------------------------------------------------------


async def test_one_push_per_device_and_day_however_often_the_event_arrives(
    service: DeliveryService, db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user(timezone="Europe/Berlin")
    phone, tablet = await register(db, user, "apns"), await register(db, user, "fcm")
    event = ready(user)

    first = await service.deliver(event)
    again = [await service.deliver(event) for _ in range(3)]
    at_once = await asyncio.gather(*(service.deliver(event) for _ in range(5)), return_exceptions=True)

    assert first.outcome == "sent" and {c.status for c in first.channels} == {"sent"}
    assert [r.outcome for r in again] == ["duplicate"] * 3
    assert all(not isinstance(r, Exception) and r.outcome == "duplicate" for r in at_once)
    counts = {device: len(messages) for device, messages in (await pushed(db, user)).items()}
    assert counts == {str(phone["id"]): 1, str(tablet["id"]): 1}
    stored = await record(db, user)
    assert stored is not None and stored["status"] == "sent" and stored["attempts"] == 1
    assert stored["message"] == MESSAGE and stored["deep_link"] == event.link
    assert {c["channel"] for c in stored["channels"]} == {"push"} and stored["detail"] == {}


async def test_events_delivered_together_claim_the_day_once(
    gateway: SnsPushGateway, db: Database, make_user: Callable[..., str], clock: Clock
) -> None:
    """Deliveries racing for one day: one claims it; the others see it sent or still being sent (and
    then raise, so the function's retry settles it), never send it again."""
    user = make_user()
    await register(db, user)
    services = [DeliveryService(db, gateway, morning_hour=6, clock=clock) for _ in range(8)]
    outcomes = await asyncio.gather(*(s.deliver(ready(user)) for s in services), return_exceptions=True)

    sent = [o for o in outcomes if not isinstance(o, BaseException) and o.outcome == "sent"]
    others = [o for o in outcomes if o not in sent]
    assert len(sent) == 1
    assert all(isinstance(o, DeliveryInProgress) or o.outcome == "duplicate" for o in others)  # type: ignore[union-attr]
    assert sum(len(m) for m in (await pushed(db, user)).values()) == 1


async def test_duplicate_workout_ready_events_on_the_bus_push_once(
    service: DeliveryService, db: Database, make_user: Callable[..., str]
) -> None:
    """The function's handler (trainer.jobs.notifier) on the in-process bus, as the local stack runs it."""
    user = make_user()
    await register(db, user, "fcm")
    bus = InProcessBus()
    deps = NotifierDeps.on_loop(service, asyncio.get_running_loop())
    results: list[dict[str, Any]] = []

    def notifier(event: dict[str, Any], context: Any) -> None:
        results.append(handle(event, context, deps))

    bus.subscribe(WORKOUT_READY, notifier)
    detail = ready(user).detail()
    try:
        for _ in range(4):
            bus.publish_nowait(WORKOUT_READY, detail)
        await bus.drain()
    finally:
        bus.close()

    assert sum(len(m) for m in (await pushed(db, user)).values()) == 1
    assert sorted(r["outcome"] for r in results).count("sent") == 1
    assert all(r["outcome"] == "duplicate" for r in results if r["outcome"] != "sent")
    assert all(isinstance(exc, DeliveryInProgress) for _, exc in bus.failures)


# --- when -----------------------------------------------------------------------------------------


async def test_quiet_hours_in_the_users_zone_defer_it_and_the_hourly_run_sends_it_then(
    service: DeliveryService,
    db: Database,
    make_user: Callable[..., str],
    clock: Clock,
    push_settings: Settings,
) -> None:
    user = make_user(timezone="America/New_York")
    await register(db, user)
    await set_notification_settings(db, user, quiet_start=time(5, 0), quiet_end=time(8, 30))
    clock.at = datetime(2026, 3, 9, 10, 0, tzinfo=UTC)  # 06:00 in New York (EDT since March 8)

    deferred = await service.deliver(ready(user, timezone="America/New_York"))

    assert deferred.outcome == "deferred" and deferred.reason == "quiet_hours"
    assert deferred.not_before == datetime(2026, 3, 9, 12, 30, tzinfo=UTC)  # 08:30 in New York
    assert sum(len(m) for m in (await pushed(db, user)).values()) == 0
    stored = await record(db, user)
    assert stored is not None and stored["status"] == "deferred" and stored["detail"]["user_id"] == user

    publisher = RecordingPublisher()
    programs = ProgramDeps(db=db, agents=agent_run_deps(push_settings, db), publisher=publisher)
    too_early = await republish_deliveries(programs, now=datetime(2026, 3, 9, 12, 0, tzinfo=UTC))
    due = await republish_deliveries(programs, now=datetime(2026, 3, 9, 13, 0, tzinfo=UTC))
    assert [d for d in too_early if d["user_id"] == user] == []
    (again,) = [d for d in due if d["user_id"] == user]
    assert (WORKOUT_READY, again) in publisher.published

    clock.at = datetime(2026, 3, 9, 13, 0, 5, tzinfo=UTC)
    sent = await service.deliver(ReadyWorkout.model_validate(again))
    assert sent.outcome == "sent"
    assert sum(len(m) for m in (await pushed(db, user)).values()) == 1
    assert [d for d in await republish_deliveries(programs, now=clock.at) if d["user_id"] == user] == []


async def test_it_waits_for_the_users_own_morning_hour(
    service: DeliveryService, db: Database, make_user: Callable[..., str], clock: Clock
) -> None:
    user = make_user(timezone="Asia/Tokyo")
    await register(db, user)
    await set_notification_settings(db, user, morning_hour=8)
    clock.at = datetime(2026, 3, 8, 21, 0, tzinfo=UTC)  # 06:00 on the 9th in Tokyo

    deferred = await service.deliver(ready(user, timezone="Asia/Tokyo"))

    assert (deferred.outcome, deferred.reason) == ("deferred", "before_morning")
    assert deferred.not_before == datetime(2026, 3, 8, 23, 0, tzinfo=UTC)  # 08:00 in Tokyo


async def test_a_day_that_is_over_is_skipped_and_recorded(
    service: DeliveryService, db: Database, make_user: Callable[..., str], clock: Clock
) -> None:
    user = make_user()
    await register(db, user)
    clock.at = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
    result = await service.deliver(ready(user))
    assert (result.outcome, result.reason) == ("skipped", "day_over")
    stored = await record(db, user)
    assert stored is not None and (stored["status"], stored["reason"]) == ("skipped", "day_over")


# --- what the user asked for ---------------------------------------------------------------------


async def test_an_opt_out_is_honoured_and_recorded(
    service: DeliveryService, db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    await register(db, user)
    await set_notification_settings(db, user, push_enabled=False)

    result = await service.deliver(ready(user))

    assert (result.outcome, result.reason) == ("skipped", "opted_out")
    assert sum(len(m) for m in (await pushed(db, user)).values()) == 0
    stored = await record(db, user)
    assert stored is not None and (stored["status"], stored["reason"]) == ("skipped", "opted_out")


async def test_an_opted_in_verified_number_gets_the_message_as_an_sms_within_1600_characters(
    service: DeliveryService, db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    number = f"+1555{secrets.randbelow(10**7):07d}"
    await set_notification_settings(
        db, user, push_enabled=False, sms_enabled=True, phone_number=number, phone_verified_at=BERLIN_SIX
    )
    long = ("1️⃣ Dumbbell Bulgarian split squat: 4×10 @ 22.5 kg (rest 90s) 💪\n" * 40)[:1600]

    result = await service.deliver(ready(user, message=long))

    assert result.outcome == "sent" and [c.channel for c in result.channels] == ["sms"]
    (text,) = sms_to(number)
    assert len(text) <= 1600 and text.startswith("1️⃣ Dumbbell Bulgarian split squat")


async def test_a_user_who_no_longer_exists_gets_nothing_and_nothing_is_recorded(
    service: DeliveryService, db: Database
) -> None:
    ghost = str(uuid.uuid4())
    result = await service.deliver(ready(ghost))
    assert (result.outcome, result.reason) == ("skipped", "unknown_user")
    assert await record(db, ghost) is None


# --- endpoints ------------------------------------------------------------------------------------


async def test_an_endpoint_sns_disabled_is_removed_with_its_device(
    service: DeliveryService,
    db: Database,
    make_user: Callable[..., str],
    clock: Clock,
    push_settings: Settings,
) -> None:
    user = make_user()
    kept, dropped = await register(db, user, "fcm"), await register(db, user, "apns")
    assert (await service.deliver(ready(user))).outcome == "sent"
    rows = {str(r["id"]): r for r in await device_rows(db, user)}
    dead = rows[str(dropped["id"])]["endpoint_arn"]
    aws_client("sns", push_settings).set_endpoint_attributes(
        EndpointArn=dead, Attributes={"Enabled": "false"}
    )

    clock.at += timedelta(days=1)
    result = await service.deliver(ready(user, day=MONDAY + timedelta(days=1)))

    assert result.outcome == "sent", "the other device still got it"
    failed = [c for c in result.channels if c.status == "failed"]
    assert [(c.device_id, c.reason) for c in failed] == [(str(dropped["id"]), "endpoint_disabled")]
    assert [str(r["id"]) for r in await device_rows(db, user)] == [str(kept["id"])]
    assert dead not in sns_backends[ACCOUNT][REGION].platform_endpoints, "the endpoint is deleted"


async def test_a_token_registered_again_reenables_its_endpoint_and_a_deleted_one_is_recreated(
    service: DeliveryService,
    db: Database,
    make_user: Callable[..., str],
    clock: Clock,
    push_settings: Settings,
) -> None:
    """AWS's token guidance: after each registration the endpoint is made to match it."""
    user = make_user()
    value = token("apns")
    await register(db, user, "apns", value)
    assert (await service.deliver(ready(user))).outcome == "sent"
    (row,) = await device_rows(db, user)
    sns = aws_client("sns", push_settings)
    sns.set_endpoint_attributes(EndpointArn=row["endpoint_arn"], Attributes={"Enabled": "false"})
    await register(db, user, "apns", value)  # the app launched: its token is current

    clock.at += timedelta(days=1)
    assert (await service.deliver(ready(user, day=MONDAY + timedelta(days=1)))).outcome == "sent"
    (row,) = await device_rows(db, user)
    assert sns.get_endpoint_attributes(EndpointArn=row["endpoint_arn"])["Attributes"]["Enabled"] == "true"

    sns.delete_endpoint(EndpointArn=row["endpoint_arn"])
    clock.at += timedelta(days=1)
    assert (await service.deliver(ready(user, day=MONDAY + timedelta(days=2)))).outcome == "sent"
    (row,) = await device_rows(db, user)
    assert len(endpoint_messages(row["endpoint_arn"])) == 1, "a new endpoint got the third day"


async def test_pushes_to_a_platform_without_an_application_are_skipped_with_the_reason(
    db: Database, make_user: Callable[..., str], clock: Clock, aws_settings: Settings
) -> None:
    user = make_user()
    await register(db, user, "fcm")
    unconfigured = DeliveryService(
        db, SnsPushGateway.from_settings(aws_settings), morning_hour=6, clock=clock
    )

    result = await unconfigured.deliver(ready(user))

    assert (result.outcome, result.reason) == ("skipped", "push_not_configured")
    stored = await record(db, user)
    assert stored is not None and stored["channels"][0]["reason"] == "push_not_configured"


async def test_retired_endpoints_are_deleted_unless_a_device_holds_them_again(
    service: DeliveryService, db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    await register(db, user, "apns")
    await register(db, user, "fcm")
    await service.deliver(ready(user))
    first, second = await device_rows(db, user)
    async with db.transaction() as conn:
        await devices.delete_device(conn, user, first["id"])
    event = InProcessBus().envelope(
        ENDPOINTS_RETIRED, {"user_id": user, "endpoint_arns": [first["endpoint_arn"], second["endpoint_arn"]]}
    )
    deps = NotifierDeps.on_loop(service, asyncio.get_running_loop())

    result = await asyncio.to_thread(partial(handle, event, None, deps))

    assert result["retired"] == 1
    endpoints = sns_backends[ACCOUNT][REGION].platform_endpoints
    assert first["endpoint_arn"] not in endpoints and second["endpoint_arn"] in endpoints


# --- the payloads ---------------------------------------------------------------------------------


async def test_the_published_payloads_have_the_apns_and_fcm_v1_shapes(
    service: DeliveryService, db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    by_platform = {p: await register(db, user, p) for p in ("apns", "apns_sandbox", "fcm")}
    event = ready(user)

    await service.deliver(event)

    received = await pushed(db, user)
    for platform, key in (("apns", "APNS"), ("apns_sandbox", "APNS_SANDBOX")):
        (message,) = received[str(by_platform[platform]["id"])]
        assert set(message) == {"default", key}
        apns = json.loads(message[key])
        assert apns["aps"]["alert"] == {"title": "Upper Strength", "body": MESSAGE}
        assert apns["aps"]["sound"] == "default" and apns["aps"]["thread-id"]
        assert apns["deep_link"] == f"trainer://workouts/{event.workout_id}"
    (message,) = received[str(by_platform["fcm"]["id"])]
    assert set(message) == {"default", "GCM"}
    fcm = json.loads(message["GCM"])["fcmV1Message"]["message"]
    assert fcm["notification"] == {"title": "Upper Strength", "body": MESSAGE}
    assert fcm["data"]["deep_link"] == f"trainer://workouts/{event.workout_id}"
    assert fcm["data"]["date"] == MONDAY.isoformat()


async def test_a_dead_sender_is_taken_over_once_its_claim_is_stale(
    service: DeliveryService,
    db: Database,
    make_user: Callable[..., str],
    clock: Clock,
    push_settings: Settings,
) -> None:
    """A sender that died mid-claim: the day is sent by the next delivery after STALE_CLAIM, which the
    hourly run publishes."""
    user = make_user()
    await register(db, user)
    event = ready(user)
    async with db.connection() as conn:
        claimed = await notifications.claim(conn, user, MONDAY, now=clock.at, detail=event.detail())
    assert claimed is not None
    with pytest.raises(DeliveryInProgress):
        await service.deliver(event)

    clock.at += notifications.STALE_CLAIM + timedelta(seconds=1)
    programs = ProgramDeps(db=db, agents=agent_run_deps(push_settings, db), publisher=RecordingPublisher())
    (republished,) = [d for d in await republish_deliveries(programs, now=clock.at) if d["user_id"] == user]
    result = await service.deliver(ReadyWorkout.model_validate(republished))

    assert result.outcome == "sent"
    stored = await record(db, user)
    assert stored is not None and stored["attempts"] == 2
    assert sum(len(m) for m in (await pushed(db, user)).values()) == 1


async def test_without_a_publisher_nothing_is_republished(
    service: DeliveryService,
    db: Database,
    make_user: Callable[..., str],
    clock: Clock,
    push_settings: Settings,
) -> None:
    """No publisher (the pipeline's inline runs): no Notifier runs, so nothing is published again."""
    user = make_user()
    clock.at = datetime(2026, 3, 9, 3, 0, tzinfo=UTC)
    assert (await service.deliver(ready(user))).outcome == "deferred"
    inline = ProgramDeps(db=db, agents=agent_run_deps(push_settings, db), publisher=None)
    assert await republish_deliveries(inline, now=clock.at + timedelta(hours=3)) == []
