"""A retried calendar write never writes twice (the calendar's routes with their `Idempotency-Key`:
docs/api.md#retries-idempotency-and-catch-up), on the real adapters: the keys in DynamoDB on moto, the
calendar in embedded Postgres. A phone that lost the answer to `POST /workouts` sends it again (once more, and
twice at once) and the calendar holds one session; a swap retried with its key stays swapped (a second run
would swap the two back) and answers the first response; a key sent with another body, or for another session,
is `422 idempotency_key_reused` and writes nothing. Every answer is checked against the OpenAPI document."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import httpx
import pytest
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import request_plan
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.repositories import locations
from trainer.store.sessions import DynamoSessionStore

from tests.integration.api.test_api_contract import Contract
from tests.integration.api.test_calendar import HOME_GYM, TODAY, inline, plan_days


@pytest.fixture
async def container(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database
) -> AsyncIterator[Container]:
    built = await build_container(aws_settings, store=session_store, db=db)
    assert built.stream_records is not None, "the keys are the real DynamoDB adapter's"
    yield built
    await built.aclose()


@pytest.fixture
async def client(container: Container) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(container))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=120) as http:
        yield http


@pytest.fixture
async def contract(client: httpx.AsyncClient) -> Contract:
    return Contract((await client.get("/openapi.json")).json())


@pytest.fixture
async def lifter(make_user: Callable[..., str], db: Database) -> str:
    user_id = make_user()
    async with db.transaction() as conn:
        await locations.create_location(conn, user_id, "Home Gym", equipment=HOME_GYM, make_current=True)
    return user_id


@pytest.fixture
def headers(aws_settings: Settings, lifter: str) -> dict[str, str]:
    secret = aws_settings.jwt_secret.get_secret_value()
    return {"Authorization": f"Bearer {mint_dev_token(secret, lifter)}"}


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


async def calendar_sessions(client: httpx.AsyncClient, headers: dict[str, str]) -> list[tuple[str, str, str]]:
    """The workouts put on the calendar in the next two weeks: (id, date, type)."""
    listed = (await client.get(f"/workouts?from={day(0)}&to={day(13)}", headers=headers)).json()["workouts"]
    return [(w["id"], w["date"], w["focus"]) for w in listed if w["source"] == "calendar"]


async def test_a_session_added_again_with_its_key_is_one_session_on_the_calendar(
    client: httpx.AsyncClient, contract: Contract, headers: dict[str, str]
) -> None:
    body = {"date": day(3), "time": "07:30", "workout_type": "Zone 2 Run", "duration_minutes": 45}
    keyed = {**headers, "Idempotency-Key": "add-run-5d1e"}
    # the first request and a retry sent while it runs: the retry waits for the first one's answer
    first, during = await asyncio.gather(
        client.post("/workouts", json=body, headers=keyed),
        client.post("/workouts", json=body, headers=keyed),
    )
    added = contract.check(first)
    assert first.status_code == 201, first.text
    assert (during.status_code, during.json()) == (201, added)
    # and one after it ended, its answer lost on the way
    after = await client.post("/workouts", json=body, headers=keyed)
    assert (after.status_code, contract.check(after)) == (201, added)
    assert await calendar_sessions(client, headers) == [(added["workout"]["id"], day(3), "Zone 2 Run")]
    # a new key is a new request: the same session added on purpose is a second one
    again = await client.post("/workouts", json=body, headers={**headers, "Idempotency-Key": "add-run-2"})
    assert again.status_code == 201 and again.json()["workout"]["id"] != added["workout"]["id"]
    assert len(await calendar_sessions(client, headers)) == 2


async def test_a_swap_retried_with_its_key_swaps_once_and_answers_the_first_response(
    container: Container,
    client: httpx.AsyncClient,
    contract: Contract,
    headers: dict[str, str],
    lifter: str,
    db: Database,
) -> None:
    names = [(TODAY + timedelta(days=n)).strftime("%A") for n in (1, 3)]
    await request_plan(inline(container), lifter, PlanRequest(weeks=4, training_days=names, start_date=TODAY))
    listed = contract.check(await client.get(f"/workouts?from={day(1)}&to={day(13)}", headers=headers))
    one, two = [w for w in listed["workouts"] if w["kind"] == "training" and w["status"] == "scheduled"][:2]
    keyed = {**headers, "Idempotency-Key": "swap-8c2a"}
    first = await client.patch(f"/workouts/{one['id']}", json={"swap_with": two["id"]}, headers=keyed)
    swapped = contract.check(first)
    assert first.status_code == 200, first.text
    assert (swapped["workout"]["date"], swapped["swapped_with"]["date"]) == (two["date"], one["date"])
    for _ in range(2):  # the answer was lost: the phone sends the same swap again
        retried = await client.patch(f"/workouts/{one['id']}", json={"swap_with": two["id"]}, headers=keyed)
        assert (retried.status_code, contract.check(retried)) == (200, swapped)
    rows = {str(r["id"]): r["date"].isoformat() for r in await plan_days(db, lifter)}
    assert (rows[one["id"]], rows[two["id"]]) == (two["date"], one["date"]), "swapped once, not back"
    # swapping them back is a new request, with a new key
    back = await client.patch(
        f"/workouts/{one['id']}",
        json={"swap_with": two["id"]},
        headers={**headers, "Idempotency-Key": "swap-2"},
    )
    assert contract.check(back)["workout"]["date"] == one["date"]


async def test_a_calendar_key_with_another_body_is_refused_and_writes_nothing(
    client: httpx.AsyncClient, contract: Contract, headers: dict[str, str]
) -> None:
    keyed = {**headers, "Idempotency-Key": "cal-key-31"}
    run = contract.check(
        await client.post("/workouts", json={"date": day(2), "workout_type": "Zone 2 Run"}, headers=keyed)
    )["workout"]
    other = await client.post("/workouts", json={"date": day(2), "workout_type": "Yoga"}, headers=keyed)
    assert other.status_code == 422
    assert contract.check(other)["error"]["code"] == "idempotency_key_reused"
    yoga = contract.check(
        await client.post("/workouts", json={"date": day(4), "workout_type": "Yoga"}, headers=headers)
    )["workout"]
    # a key is per route: the PATCH route has not seen this one, so the move runs
    moved = await client.patch(f"/workouts/{run['id']}", json={"date": day(5)}, headers=keyed)
    assert moved.status_code == 200 and contract.check(moved)["workout"]["date"] == day(5)
    # the same key with another change, or for another session, is another request
    for workout_id, change in ((run["id"], {"date": day(6)}), (yoga["id"], {"date": day(5)})):
        refused = await client.patch(f"/workouts/{workout_id}", json=change, headers=keyed)
        assert refused.status_code == 422
        assert contract.check(refused)["error"]["code"] == "idempotency_key_reused"
    assert sorted(await calendar_sessions(client, headers)) == sorted(
        [(run["id"], day(5), "Zone 2 Run"), (yoga["id"], day(4), "Yoga")]
    )
