"""The phone's health data on the real adapters (embedded Postgres behind PgBouncer, DynamoDB on moto):
consent per type, batches stored once each (a replayed batch changes nothing), the consent checked
where the batch is written, withdrawal deleting the type's samples, every read scoped by the user, the
limits (1,000 samples, 2,000,000 bytes), and the day adapting: GET /today and GET /readiness from the
health data, a check-in winning over it, yesterday's long run in another app. Every answer is checked
against the OpenAPI document. The clock stands at 09:00 in Berlin on 2 March 2026."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import time_machine
from trainer.services.health import ConsentRequired, SampleRow, purge_expired
from trainer.services.user_data import UserDataService
from trainer.store.db import Database
from trainer.store.repositories import health as repo
from trainer_dev.testing.health_series import PhoneHealthData

from tests.integration.api.test_api_contract import Contract

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
TYPES = ("heart_rate_variability", "resting_heart_rate", "sleep", "steps", "workouts")
ALL = dict.fromkeys(TYPES, True)
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def morning() -> Iterator[datetime]:
    with time_machine.travel(NOW, tick=False):
        yield NOW


@pytest.fixture
async def contract(client: httpx.AsyncClient) -> Contract:
    return Contract((await client.get("/openapi.json")).json())


@pytest.fixture
async def berliner(client: httpx.AsyncClient, auth: dict[str, str]) -> dict[str, str]:
    response = await client.put("/user-settings", json={"timezone": "Europe/Berlin"}, headers=auth)
    assert response.status_code == 200
    return auth


async def grant(client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], **grants: bool) -> Any:
    return contract.check(await client.put("/health/consent", json=grants or ALL, headers=auth))


async def sync(
    client: httpx.AsyncClient, contract: Contract, auth: dict[str, str], series: PhoneHealthData
) -> dict[str, int]:
    totals = {"received": 0, "stored": 0, "duplicates": 0}
    for body in series.batches(NOW, BERLIN):
        answer = contract.check(await client.post("/health/samples", json=body, headers=auth))
        for key in totals:
            totals[key] += answer[key]
    return totals


async def stored_rows(db: Database, user: str) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT kind, sample_id, value, details FROM health_samples WHERE user_id = %s"
            " ORDER BY sample_id",
            (user,),
        )
        return await cur.fetchall()


# --- storing ---------------------------------------------------------------------------------------


async def test_a_replayed_batch_changes_nothing(
    morning: datetime,
    client: httpx.AsyncClient,
    contract: Contract,
    berliner: dict[str, str],
    db: Database,
    user: str,
) -> None:
    await grant(client, contract, berliner)
    series = PhoneHealthData(days=7)
    first = await sync(client, contract, berliner, series)
    before = await stored_rows(db, user)
    again = await sync(client, contract, berliner, series)

    assert first["stored"] == first["received"] == len(before) > 1000
    assert again == {"received": first["received"], "stored": 0, "duplicates": first["received"]}
    assert await stored_rows(db, user) == before


async def test_a_sample_sent_again_with_other_values_keeps_the_first(
    morning: datetime,
    client: httpx.AsyncClient,
    contract: Contract,
    berliner: dict[str, str],
    db: Database,
    user: str,
) -> None:
    await grant(client, contract, berliner)
    sample = PhoneHealthData(days=1, steps=False).samples(NOW, BERLIN)[0]
    doubled = {**sample, "value": sample["value"] + 1}
    answer = contract.check(
        await client.post(
            "/health/samples",
            json={"platform": "health_connect", "samples": [sample, doubled]},
            headers=berliner,
        )
    )
    assert answer == {"received": 2, "stored": 1, "duplicates": 1}
    rows = await stored_rows(db, user)
    assert [r["value"] for r in rows if r["sample_id"] == sample["sample_id"]] == [sample["value"]]


async def test_nothing_is_stored_without_consent_for_the_type(
    morning: datetime,
    client: httpx.AsyncClient,
    contract: Contract,
    berliner: dict[str, str],
    db: Database,
    user: str,
) -> None:
    await grant(client, contract, berliner, sleep=True, steps=False)
    body = next(PhoneHealthData(days=2).batches(NOW, BERLIN))
    response = await client.post("/health/samples", json=body, headers=berliner)
    error = contract.check(response)["error"]
    assert response.status_code == 409 and error["code"] == "consent_required"
    assert "heart rate variability" in error["message"] and "steps" in error["message"]
    assert await stored_rows(db, user) == []


async def test_withdrawing_consent_deletes_that_types_samples_only(
    morning: datetime,
    client: httpx.AsyncClient,
    contract: Contract,
    berliner: dict[str, str],
    db: Database,
    user: str,
) -> None:
    await grant(client, contract, berliner)
    await sync(client, contract, berliner, PhoneHealthData(days=3))
    kinds_before = {r["kind"] for r in await stored_rows(db, user)}
    steps = sum(r["kind"] == "steps" for r in await stored_rows(db, user))

    answer = await grant(client, contract, berliner, steps=False)

    assert answer["deleted_samples"] == steps > 0
    assert {c["data_type"]: c["granted"] for c in answer["consents"]} == {**ALL, "steps": False}
    assert {r["kind"] for r in await stored_rows(db, user)} == kinds_before - {"steps"}
    status = contract.check(await client.get("/health/status", headers=berliner))
    assert "steps" not in {s["type"] for s in status["stored"]} and status["retention_days"] == 400
    refused = await client.post(
        "/health/samples", json=next(PhoneHealthData(days=1).batches(NOW, BERLIN)), headers=berliner
    )
    assert refused.status_code == 409


async def test_consent_and_samples_are_the_callers_own(
    morning: datetime,
    client: httpx.AsyncClient,
    contract: Contract,
    berliner: dict[str, str],
    db: Database,
    user: str,
    make_user: Any,
    aws_settings: Any,
) -> None:
    from trainer.api.auth import mint_dev_token

    other = make_user()
    other_auth = {
        "Authorization": f"Bearer {mint_dev_token(aws_settings.jwt_secret.get_secret_value(), other)}"
    }
    await grant(client, contract, berliner)
    await sync(client, contract, berliner, PhoneHealthData(days=1))

    consents = contract.check(await client.get("/health/consent", headers=other_auth))["consents"]
    assert not any(c["granted"] for c in consents) and all(c["changed_at"] is None for c in consents)
    assert contract.check(await client.get("/health/status", headers=other_auth))["stored"] == []
    await grant(client, contract, other_auth)
    same_ids = await sync(client, contract, other_auth, PhoneHealthData(days=1))
    assert same_ids["stored"] == same_ids["received"], "the same platform ids are another user's samples"
    assert len(await stored_rows(db, other)) == len(await stored_rows(db, user))


async def test_a_withdrawal_waits_for_a_batch_being_written_or_refuses_it(
    morning: datetime, db: Database, pg_url: str, user: str
) -> None:
    """The consent row is held while a batch is written: a withdrawal in flight makes the batch wait,
    then find no consent; nothing of the type is left either way. (The batch is written from a pool of
    its own: the two transactions are two requests.)"""
    writer = Database(pg_url, min_size=1, max_size=1)
    await writer.open()
    health = UserDataService(writer).for_user(user).health
    await health.set_consents({"steps": True})
    row = SampleRow("s-1", "steps", NOW - timedelta(hours=1), NOW, 100.0, "count", "iPhone")
    async with db.transaction() as conn:
        await repo.set_consent(conn, user, "steps", False)
        writing = asyncio.create_task(health.store("healthkit", [row]))
        await asyncio.sleep(0.3)
        assert not writing.done(), "the batch waits for the withdrawal"
        await repo.delete_kinds(conn, user, ["steps"])
    with pytest.raises(ConsentRequired):
        await writing
    await writer.close()
    assert await stored_rows(db, user) == []


async def test_the_batch_limits_are_the_contracts(
    morning: datetime, client: httpx.AsyncClient, contract: Contract, berliner: dict[str, str]
) -> None:
    await grant(client, contract, berliner)
    samples = PhoneHealthData(days=6).samples(NOW, BERLIN)
    too_many = await client.post(
        "/health/samples", json={"platform": "health_connect", "samples": samples[:1001]}, headers=berliner
    )
    assert too_many.status_code == 422 and contract.check(too_many)["error"]["code"] == "invalid_request"

    big = [{**s, "source": "x" * 200} for s in samples[:1000]]
    body = json.dumps({"platform": "health_connect", "samples": big})
    assert 256_000 < len(body) < 2_000_000
    accepted = await client.post(
        "/health/samples", content=body, headers={**berliner, "Content-Type": "application/json"}
    )
    assert contract.check(accepted)["stored"] == 1000, "a batch may be larger than other routes' bodies"
    elsewhere = await client.post(
        "/readiness",
        content=json.dumps({"notes": "x" * 300_000}),
        headers={**berliner, "Content-Type": "application/json"},
    )
    assert elsewhere.status_code == 413

    huge = json.dumps({"platform": "health_connect", "samples": big * 6})
    assert len(huge) > 2_000_000
    too_large = await client.post("/health/samples", content=huge, headers={**berliner, **JSON})
    assert too_large.status_code == 413 and contract.check(too_large)["error"]["code"] == "body_too_large"

    bad = await client.post(
        "/health/samples",
        json={"platform": "health_connect", "samples": [{**samples[0], "source": "\u200b\u0000"}]},
        headers=berliner,
    )
    details = contract.check(bad)["error"]["details"]
    assert bad.status_code == 422 and details[0]["field"] == "samples.0.source", details


# --- the day adapts ----------------------------------------------------------------------------------


async def test_today_is_lighter_after_three_days_of_low_hrv_and_says_why(
    morning: datetime, client: httpx.AsyncClient, contract: Contract, berliner: dict[str, str]
) -> None:
    await grant(client, contract, berliner)
    plain = contract.check(await client.get("/today", headers=berliner))["today"]
    assert plain["adjustment"] is None

    phone = PhoneHealthData(days=60, hrv_drop_days=3, steps=False)
    await sync(client, contract, berliner, phone)
    today = contract.check(await client.get("/today", headers=berliner))["today"]

    adjustment = today["adjustment"]
    assert adjustment["source"] == "health_data" and adjustment["level"] == "reduce"
    assert "HRV (RMSSD)" in adjustment["reasons"][0] and "3 days running" in adjustment["reasons"][0]
    assert adjustment["explanation"].startswith("Adjusted to your phone's health data: ")
    sets = lambda w: sum(e.get("sets") or e.get("rounds") or 1 for e in w["exercises"])  # noqa: E731
    assert sets(today["workout"]) < sets(plain["workout"])
    assert today["id"] == plain["id"], "the same day's workout, fitted"

    readiness = contract.check(await client.get("/readiness", headers=berliner))["today"]
    assert readiness["source"] == "health_data" and readiness["level"] == "reduce"
    assert any("resting heart rate" in r for r in readiness["health_readings"])

    replayed = await sync(client, contract, berliner, phone)
    assert replayed["stored"] == 0 and replayed["duplicates"] == replayed["received"]
    again = contract.check(await client.get("/today", headers=berliner))["today"]
    assert (again["adjustment"], again["workout"]) == (adjustment, today["workout"]), "replayed"
    assert contract.check(await client.get("/readiness", headers=berliner))["today"] == readiness


async def test_a_check_in_wins_over_the_sensors_for_the_day(
    morning: datetime, client: httpx.AsyncClient, contract: Contract, berliner: dict[str, str]
) -> None:
    await grant(client, contract, berliner)
    await sync(client, contract, berliner, PhoneHealthData(days=60, hrv_drop_days=3, steps=False))
    contract.check(await client.post("/readiness", json={"sleep_hours": 8.5, "energy": 5}, headers=berliner))

    today = contract.check(await client.get("/today", headers=berliner))["today"]
    readiness = contract.check(await client.get("/readiness", headers=berliner))["today"]

    assert today["adjustment"] is None
    assert readiness["source"] == "check_in" and readiness["level"] == "ready"
    assert readiness["health_readings"], "what the sensors say is still shown"


async def test_a_stable_baseline_leaves_the_day_as_planned(
    morning: datetime, client: httpx.AsyncClient, contract: Contract, berliner: dict[str, str]
) -> None:
    await grant(client, contract, berliner)
    await sync(client, contract, berliner, PhoneHealthData(days=60, steps=False))
    today = contract.check(await client.get("/today", headers=berliner))["today"]
    readiness = contract.check(await client.get("/readiness", headers=berliner))["today"]
    assert today["adjustment"] is None
    assert readiness["source"] == "health_data" and readiness["level"] == "ready"


async def test_yesterdays_long_run_in_another_app_lowers_todays_leg_volume(
    morning: datetime,
    client: httpx.AsyncClient,
    contract: Contract,
    berliner: dict[str, str],
    db: Database,
    user: str,
) -> None:
    await (
        UserDataService(db)
        .for_user(user)
        .schedule.add(
            scheduled_date=NOW + timedelta(hours=8),
            workout_type="Legs",
            exercises=[
                {
                    "exercise_name": "Barbell Back Squat",
                    "exercise_type": "reps",
                    "order": 1,
                    "sets": 4,
                    "reps": [6, 6, 6, 6],
                    "rest_sec": 120,
                    "muscles_utilized": [
                        {"muscle": "Quadriceps", "share": 0.6},
                        {"muscle": "Glutes", "share": 0.4},
                    ],
                    "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                    "equipment": ["Barbell"],
                    "reasoning": "Legs.",
                },
                {
                    "exercise_name": "Push-up",
                    "exercise_type": "reps",
                    "order": 2,
                    "sets": 3,
                    "reps": [12, 12, 12],
                    "rest_sec": 60,
                    "muscles_utilized": [
                        {"muscle": "Chest", "share": 0.7},
                        {"muscle": "Triceps", "share": 0.3},
                    ],
                    "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                    "equipment": [],
                    "reasoning": "Push.",
                },
            ],
        )
    )
    await grant(client, contract, berliner)
    await sync(
        client,
        contract,
        berliner,
        PhoneHealthData(days=2, long_run_yesterday=True, steps=False, platform="healthkit"),
    )

    today = contract.check(await client.get("/today", headers=berliner))["today"]

    assert today["source"] == "scheduled"
    squat, push_up = today["workout"]["exercises"]
    assert (squat["sets"], push_up["sets"]) == (3, 3)
    assert today["adjustment"]["source"] == "other_workouts" and today["adjustment"]["level"] is None
    assert "yesterday's 62-minute run" in today["adjustment"]["explanation"]


# --- retention -----------------------------------------------------------------------------------------


async def test_samples_older_than_400_days_are_purged_by_the_hourly_run(
    morning: datetime, db: Database, user: str, make_user: Any
) -> None:
    other = make_user()
    old, kept = NOW - timedelta(days=401), NOW - timedelta(days=399)
    async with db.transaction() as conn:
        for owner in (user, other):
            await repo.insert_samples(
                conn,
                owner,
                "healthkit",
                [
                    SampleRow("old", "steps", old, old, 10.0, "count", "iPhone"),
                    SampleRow("kept", "steps", kept, kept, 10.0, "count", "iPhone"),
                ],
            )
    assert await purge_expired(db, NOW, batch=1) == 2
    assert [r["sample_id"] for r in await stored_rows(db, user)] == ["kept"]
    assert [r["sample_id"] for r in await stored_rows(db, other)] == ["kept"]
    assert await purge_expired(db, NOW) == 0
