"""The delivery routes on the real adapters (embedded Postgres, DynamoDB on moto, the offline agents):
devices registered, re-registered, moved to the account that registers them, listed and removed, and
never visible to another user; the notification settings read and replaced, SMS only with a phone number
the sign-in verified; the deliveries paged newest first; and GET /today for each of its three cases,
the same workout on every call of the day. Every answer is checked against the OpenAPI document."""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import jwt
import pytest
from trainer.api.auth import mint_dev_token
from trainer.container import Container
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import build_plan, request_plan
from trainer.services.devices import ENDPOINTS_RETIRED
from trainer.services.user_data import UserDataService
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.repositories import devices, notifications
from trainer_dev.testing.agent_harness import RecordingPublisher

from tests.integration.api.test_api_contract import Contract


@pytest.fixture
async def contract(client: httpx.AsyncClient) -> Contract:
    return Contract((await client.get("/openapi.json")).json())


def bearer(settings: Settings, user: str, **claims: Any) -> dict[str, str]:
    if not claims:
        return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user)}"}
    now = int(time.time())
    token = jwt.encode(
        {"sub": user, "iat": now, "exp": now + 600, **claims}, settings.jwt_secret.get_secret_value(), "HS256"
    )
    return {"Authorization": f"Bearer {token}"}


def apns_token() -> str:
    return secrets.token_hex(32)


async def register(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], **body: Any
) -> httpx.Response:
    response = await client.post(
        "/devices", json={"platform": "apns", "token": apns_token(), **body}, headers=auth
    )
    contract.check(response)
    return response


# --- devices ----------------------------------------------------------------------------------------


async def test_a_token_is_one_device_however_often_it_is_registered(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]
) -> None:
    token = apns_token()
    first = await register(client, contract, auth, token=token, app_version="1.0.0", timezone="Europe/Berlin")
    again = await register(client, contract, auth, token=token, app_version="1.1.0", locale="de-DE")

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["device"]["id"] == first.json()["device"]["id"]
    listed = contract.check(await client.get("/devices", headers=auth))["devices"]
    assert [(d["token"], d["app_version"], d["locale"]) for d in listed] == [(token, "1.1.0", "de-DE")]


async def test_devices_are_never_visible_to_another_user(
    client: httpx.AsyncClient,
    contract: Contract,
    auth: dict[str, str],
    make_user: Callable[..., str],
    aws_settings: Settings,
) -> None:
    other = bearer(aws_settings, make_user())
    mine = (await register(client, contract, auth)).json()["device"]

    assert contract.check(await client.get("/devices", headers=other)) == {"devices": []}
    refused = await client.delete(f"/devices/{mine['id']}", headers=other)
    assert refused.status_code == 404 and contract.check(refused)["error"]["code"] == "device_not_found"
    assert [d["id"] for d in contract.check(await client.get("/devices", headers=auth))["devices"]] == [
        mine["id"]
    ]
    malformed = await client.delete("/devices/not-a-uuid", headers=auth)
    assert malformed.status_code == 404 and contract.check(malformed)["error"]["code"] == "device_not_found"


async def test_a_token_registered_by_another_account_moves_to_it_under_a_new_id(
    client: httpx.AsyncClient,
    contract: Contract,
    auth: dict[str, str],
    make_user: Callable[..., str],
    aws_settings: Settings,
) -> None:
    token = apns_token()
    before = (await register(client, contract, auth, token=token)).json()["device"]
    other = bearer(aws_settings, make_user())
    moved = await register(client, contract, other, token=token)

    assert moved.status_code == 201 and moved.json()["device"]["id"] != before["id"]
    assert contract.check(await client.get("/devices", headers=auth)) == {"devices": []}
    assert [d["token"] for d in contract.check(await client.get("/devices", headers=other))["devices"]] == [
        token
    ]


async def test_a_token_is_one_phone_whatever_its_spelling_or_apns_platform(
    client: httpx.AsyncClient,
    contract: Contract,
    auth: dict[str, str],
    user: str,
    make_user: Callable[..., str],
    aws_settings: Settings,
    db: Database,
    container: Container,
) -> None:
    """Uppercase hex, or the token as `apns_sandbox`, is the phone another account registered: it moves
    to the caller, one row; a new platform gets its own endpoint (the old one is retired)."""
    token = apns_token()
    mine = (await register(client, contract, auth, token=token)).json()["device"]
    arn = "arn:aws:sns:us-east-1:123456789012:endpoint/APNS/trainer-dev-apns/" + str(uuid.uuid4())
    async with db.connection() as conn:
        await devices.set_endpoint(conn, user, mine["id"], token, arn)
    other = bearer(aws_settings, make_user())

    moved = await register(client, contract, other, token=token.upper(), platform="apns_sandbox")

    assert moved.status_code == 201 and moved.json()["device"]["token"] == token
    assert moved.json()["device"]["platform"] == "apns_sandbox"
    assert contract.check(await client.get("/devices", headers=auth)) == {"devices": []}
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT platform, endpoint_arn FROM devices WHERE lower(token) = %s", (token,)
        )
        rows = await cur.fetchall()
    assert rows == [{"platform": "apns_sandbox", "endpoint_arn": None}]
    publisher = container.publisher
    assert isinstance(publisher, RecordingPublisher)
    assert publisher.published[-1][0] == ENDPOINTS_RETIRED and publisher.published[-1][1][
        "endpoint_arns"
    ] == [arn]

    again = await register(client, contract, other, token=token.upper(), platform="apns_sandbox")
    assert again.status_code == 200 and again.json()["device"]["id"] == moved.json()["device"]["id"]


@pytest.mark.parametrize(
    "token", [":" * 30, "a:b:" + "c" * 40, "-" * 40], ids=["colons", "two-colons", "dashes"]
)
async def test_an_fcm_token_of_another_shape_is_422(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], token: str
) -> None:
    response = await client.post("/devices", json={"platform": "fcm", "token": token}, headers=auth)
    assert response.status_code == 422 and contract.check(response)["error"]["code"] == "invalid_device"
    assert contract.check(await client.get("/devices", headers=auth)) == {"devices": []}


async def test_removing_a_device_retires_its_push_endpoint(
    client: httpx.AsyncClient,
    contract: Contract,
    auth: dict[str, str],
    user: str,
    db: Database,
    container: Container,
) -> None:
    device = (await register(client, contract, auth)).json()["device"]
    arn = "arn:aws:sns:us-east-1:123456789012:endpoint/APNS/trainer-dev-apns/" + str(uuid.uuid4())
    async with db.connection() as conn:
        row = await devices.get_device(conn, user, device["id"])
        assert row is not None
        await devices.set_endpoint(conn, user, device["id"], row["token"], arn)

    removed = await client.delete(f"/devices/{device['id']}", headers=auth)

    assert removed.status_code == 204 and contract.check(removed) is None
    assert contract.check(await client.get("/devices", headers=auth)) == {"devices": []}
    publisher = container.publisher
    assert isinstance(publisher, RecordingPublisher)
    assert (ENDPOINTS_RETIRED, {"user_id": user, "endpoint_arns": [arn]}) in publisher.published
    again = await client.delete(f"/devices/{device['id']}", headers=auth)
    assert again.status_code == 404 and contract.check(again)["error"]["code"] == "device_not_found"


async def test_an_eleventh_device_drops_the_least_recently_registered(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str]
) -> None:
    first = (await register(client, contract, auth)).json()["device"]
    for _ in range(devices.MAX_DEVICES_PER_USER):
        await register(client, contract, auth)

    listed = contract.check(await client.get("/devices", headers=auth))["devices"]
    assert len(listed) == devices.MAX_DEVICES_PER_USER
    assert first["id"] not in {d["id"] for d in listed}


@pytest.mark.parametrize(
    "body",
    [
        {"platform": "apns", "token": "not-hex-at-all-but-long-enough-0123456789abcdef0123456789abcdef"},
        {"platform": "fcm", "token": "short"},
        {"platform": "apns", "token": "ab" * 32, "locale": "en-GB", "timezone": "Mars/Olympus_Mons"},
    ],
    ids=["apns-not-hex", "fcm-too-short", "unknown-zone"],
)
async def test_a_token_or_zone_sns_and_the_settings_would_refuse_is_a_422(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], body: dict[str, Any]
) -> None:
    response = await client.post("/devices", json=body, headers=auth)
    assert response.status_code == 422
    assert contract.check(response)["error"]["code"] in ("invalid_device", "invalid_request")


# --- notification settings ------------------------------------------------------------------------


SETTINGS = {
    "push_enabled": True,
    "morning_hour": 7,
    "quiet_hours": {"start": "22:00", "end": "07:30"},
    "sms_enabled": False,
}


async def test_notification_settings_have_defaults_and_are_replaced_whole(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], aws_settings: Settings
) -> None:
    defaults = contract.check(await client.get("/notification-settings", headers=auth))["settings"]
    assert defaults == {
        "push_enabled": True,
        "morning_hour": None,
        "effective_morning_hour": aws_settings.morning_hour,
        "earliest_morning_hour": aws_settings.morning_hour,
        "quiet_hours": None,
        "sms_enabled": False,
        "sms_available": False,
        "phone_number": None,
    }
    stored = contract.check(await client.put("/notification-settings", json=SETTINGS, headers=auth))[
        "settings"
    ]
    assert stored["morning_hour"] == stored["effective_morning_hour"] == 7
    assert stored["quiet_hours"] == {"start": "22:00", "end": "07:30"}
    off = {**SETTINGS, "push_enabled": False, "morning_hour": None, "quiet_hours": None}
    replaced = contract.check(await client.put("/notification-settings", json=off, headers=auth))["settings"]
    assert (replaced["push_enabled"], replaced["morning_hour"], replaced["quiet_hours"]) == (
        False,
        None,
        None,
    )
    assert contract.check(await client.get("/notification-settings", headers=auth))["settings"] == replaced


@pytest.mark.parametrize(
    "change,code",
    [
        ({"morning_hour": 3}, "invalid_notification_settings"),
        ({"quiet_hours": {"start": "07:00", "end": "07:00"}}, "invalid_notification_settings"),
        ({"sms_enabled": True}, "phone_not_verified"),
        ({"quiet_hours": {"start": "7:00", "end": "08:00"}}, "invalid_request"),
    ],
    ids=["before-the-earliest-morning", "empty-quiet-hours", "sms-without-a-verified-number", "not-hh-mm"],
)
async def test_settings_the_deployment_cannot_honour_are_a_422(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], change: dict[str, Any], code: str
) -> None:
    response = await client.put("/notification-settings", json={**SETTINGS, **change}, headers=auth)
    assert response.status_code == 422 and contract.check(response)["error"]["code"] == code


async def test_sms_goes_only_to_the_number_the_sign_in_verified(
    client: httpx.AsyncClient, contract: Contract, user: str, aws_settings: Settings
) -> None:
    unverified = bearer(aws_settings, user, phone_number="+15550000001", phone_number_verified=False)
    verified = bearer(aws_settings, user, phone_number="+15550000001", phone_number_verified=True)
    sms = {**SETTINGS, "sms_enabled": True}

    refused = await client.put("/notification-settings", json=sms, headers=unverified)
    accepted = await client.put("/notification-settings", json=sms, headers=verified)
    turned_off = await client.put("/notification-settings", json=SETTINGS, headers=verified)

    assert refused.status_code == 422 and contract.check(refused)["error"]["code"] == "phone_not_verified"
    assert contract.check(accepted)["settings"]["phone_number"] == "+15550000001"
    assert contract.check(turned_off)["settings"]["phone_number"] is None, (
        "turning SMS off forgets the number"
    )


# --- the record of deliveries ---------------------------------------------------------------------


async def test_notifications_are_paged_newest_day_first_and_scoped_to_the_user(
    client: httpx.AsyncClient,
    contract: Contract,
    auth: dict[str, str],
    user: str,
    db: Database,
    make_user: Callable[..., str],
    aws_settings: Settings,
) -> None:
    now = datetime.now(UTC)
    async with db.transaction() as conn:
        for offset in range(3):
            await notifications.skip(
                conn,
                user,
                date(2026, 3, 9) + timedelta(days=offset),
                reason="opted_out",
                now=now,
                title="Legs",
            )

    first = contract.check(await client.get("/notifications", params={"limit": 2}, headers=auth))
    second = contract.check(
        await client.get("/notifications", params={"limit": 2, "before": first["next_before"]}, headers=auth)
    )

    assert [n["date"] for n in first["notifications"]] == ["2026-03-11", "2026-03-10"]
    assert first["next_before"] == "2026-03-10"
    assert [n["date"] for n in second["notifications"]] == ["2026-03-09"] and second["next_before"] is None
    assert {(n["status"], n["reason"]) for n in first["notifications"]} == {("skipped", "opted_out")}
    other = bearer(aws_settings, make_user())
    assert contract.check(await client.get("/notifications", headers=other)) == {
        "notifications": [],
        "next_before": None,
    }


# --- today ----------------------------------------------------------------------------------------


async def test_today_composes_one_workout_for_a_day_with_nothing_planned_and_keeps_it(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], frozen_now: datetime
) -> None:
    first = contract.check(await client.get("/today", headers=auth))["today"]
    again = contract.check(await client.get("/today", headers=auth))["today"]

    assert first["source"] == "generated" and first["kind"] == "training"
    assert first["workout"]["exercises"] and 0 < len(first["message"]) <= 1600
    assert first["date"] == frozen_now.date().isoformat(), "the user's zone is UTC"
    assert again == first, "the same workout all day"


async def test_today_is_the_workout_scheduled_today(
    client: httpx.AsyncClient,
    contract: Contract,
    auth: dict[str, str],
    user: str,
    db: Database,
    frozen_now: datetime,
) -> None:
    today = frozen_now.date()
    noon = datetime(today.year, today.month, today.day, 12, 0, tzinfo=UTC)
    scheduled = (
        await UserDataService(db)
        .for_user(user)
        .schedule.add(scheduled_date=noon, workout_type="Easy run", duration_minutes=30, notes="Zone 2")
    )
    await (
        UserDataService(db)
        .for_user(user)
        .schedule.add(scheduled_date=noon + timedelta(days=1), workout_type="Tomorrow's swim")
    )

    first = contract.check(await client.get("/today", headers=auth))["today"]

    assert (first["source"], first["id"], first["title"]) == ("scheduled", str(scheduled["id"]), "Easy run")
    assert "Easy run" in first["message"] and "Zone 2" in first["message"]
    assert contract.check(await client.get("/today", headers=auth))["today"] == first


async def test_today_is_the_active_plans_day_before_anything_else(
    client: httpx.AsyncClient,
    contract: Contract,
    auth: dict[str, str],
    user: str,
    container: Container,
    db: Database,
) -> None:
    assert container.programs is not None
    today = container.programs.now().date()
    pending = await request_plan(
        container.programs, user, PlanRequest(weeks=4, days_per_week=3, start_date=today)
    )
    plan = await build_plan(container.programs, user, pending["id"])
    assert plan["status"] == "ready", plan["error"]
    noon = datetime(today.year, today.month, today.day, 12, 0, tzinfo=UTC)
    await UserDataService(db).for_user(user).schedule.add(scheduled_date=noon, workout_type="Easy run")

    first = contract.check(await client.get("/today", headers=auth))["today"]

    assert first["source"] == "plan" and first["plan_id"] == str(plan["id"]) and first["week_number"] == 1
    assert first["date"] == today.isoformat() and first["message"]
    assert (first["workout"] is None) == (first["kind"] == "rest")
    assert contract.check(await client.get("/today", headers=auth))["today"] == first

    async with db.connection() as conn:
        await conn.execute("UPDATE plan_workouts SET message = NULL WHERE id = %s", (first["id"],))
    unwritten = contract.check(await client.get("/today", headers=auth))["today"]
    assert unwritten["id"] == first["id"] and 0 < len(unwritten["message"]) <= 1600, "worded on the spot"
