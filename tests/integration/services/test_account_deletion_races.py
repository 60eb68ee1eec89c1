"""Deleting an account while its work is in flight (docs/api.md#account-deletion-and-data-export), on the
real stores (DynamoDB on moto, embedded Postgres, SNS on moto) with the real SDKs against the loopback
fake model at 0.3 s a call, so the work takes seconds, as it does against `make run`:

- a turn streaming ("Give me a full body workout for 45 minutes"),
- a plan build (the PlanRequested job, its agents on the fake),
- an import (`POST /workouts/import`, the structure agent on the fake),
- check-ins (`POST /readiness`, one every 20 ms),
- pushes (the Notifier's delivery of WorkoutReady, one after the other)

all run when `DELETE /me` arrives. It answers 202 with Retry-After while the turn may still hold its
session's lease, then 204 once it is repeated after that; no request answers 5xx; and afterwards nothing
of hers is left: 0 DynamoDB items (session tombstones included), 0 Postgres rows, 0 SNS endpoints holding
her push tokens, while Bob's data is as it was."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, timedelta
from datetime import time as dt_time
from typing import Any

import httpx
import pytest
from moto.sns.models import sns_backends
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, agent_run_deps, build_container
from trainer.jobs.programs import ProgramJobDeps, handle_plan_requested
from trainer.jobs.sns import SnsPushGateway
from trainer.programs.pipeline import ProgramDeps
from trainer.services.account import AccountService
from trainer.services.delivery import DeliveryService, ReadyWorkout
from trainer.settings import Settings
from trainer.store.account_records import DynamoAccountRecords
from trainer.store.db import Database
from trainer.store.dynamo_tables import aws_client
from trainer.store.repositories import accounts, devices, readiness
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.local.moto_server import create_push_applications
from trainer_dev.testing.account_world import populate_postgres
from trainer_dev.testing.agent_harness import RecordingPublisher

logger = logging.getLogger(__name__)

KEY = "sk-deletion-races"
LEASE_SECONDS = 3
"""The turns' lease (renewed every second): how long a deletion may have to wait for a running turn."""
MODEL_LATENCY_S = 0.3
DELETE_AFTER_S = 0.8
IMPORT_AFTER_S = DELETE_AFTER_S - MODEL_LATENCY_S / 2
CONFIRM = {"confirm": "delete my account"}
PASTED = "Bench press 4x8 @ 60kg\nPlank 3 x 45s\nRows 3x10 @ 50kg\n"
ACCOUNT, REGION = "123456789012", "us-east-1"
NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def fake() -> AsyncIterator[FakeLLMServer]:
    with FakeLLMServer(api_key=KEY, latency_s=MODEL_LATENCY_S) as server:
        yield server


@pytest.fixture
def settings(aws_settings: Settings, fake: FakeLLMServer) -> Settings:
    apps = create_push_applications(aws_settings, prefix=f"t-{uuid.uuid4().hex[:10]}")
    return aws_settings.model_copy(
        update={
            "anthropic_api_key": SecretStr(KEY),
            "anthropic_base_url": fake.base_url,
            "openai_api_key": SecretStr(KEY),
            "openai_base_url": fake.openai_base_url,
            "lease_seconds": LEASE_SECONDS,
            "sns_apns_application_arn": apps["apns"],
            "sns_apns_sandbox_application_arn": apps["apns_sandbox"],
            "sns_fcm_application_arn": apps["fcm"],
        }
    )


@pytest.fixture
async def container(
    settings: Settings, session_store: DynamoSessionStore, db: Database
) -> AsyncIterator[Container]:
    built = await build_container(settings, store=session_store, db=db, publisher=RecordingPublisher())
    yield built
    await built.aclose()


@pytest.fixture
async def client(container: Container) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(container)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=120) as http:
        yield http
    await app.state.container_provider.turns.wait(30)


def bearer(settings: Settings, user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user)}"}


def scan(settings: Settings) -> list[dict[str, Any]]:
    client = aws_client("dynamodb", settings)
    request: dict[str, Any] = {"TableName": settings.table_name, "ConsistentRead": True}
    items: list[dict[str, Any]] = []
    while True:
        page = client.scan(**request)
        items.extend(page["Items"])
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def left_of(items: list[dict[str, Any]], user: str, others: set[str]) -> list[dict[str, Any]]:
    """The items of `user`: naming them, or in a session partition that is not one of `others`'s (only
    two users live in these tables). The account tombstone (`DELETED#<digest>`) names nobody."""
    found = []
    for item in items:
        pk = item["PK"]["S"]
        text = json.dumps(item, default=lambda b: bytes(b).hex())
        if user in text or (pk.startswith("SESSION#") and pk.removeprefix("SESSION#") not in others):
            found.append(item)
    return found


async def rows_of(db: Database, user: str) -> int:
    async with db.connection() as conn:
        count = 0
        for table in await accounts.user_tables(conn):
            cur = await conn.execute(
                f'SELECT count(*) AS n FROM "{table.name}" WHERE "{table.column}" = %s', (user,)
            )
            row = await cur.fetchone()
            count += int(row["n"]) if row else 0
    return count


def endpoints_holding(tokens: set[str]) -> list[str]:
    return [
        arn
        for arn, endpoint in sns_backends[ACCOUNT][REGION].platform_endpoints.items()
        if endpoint.token in tokens
    ]


def ready(user: str, day: date) -> ReadyWorkout:
    return ReadyWorkout.model_validate(
        {
            "user_id": user,
            "plan_id": str(uuid.uuid4()),
            "workout_id": str(uuid.uuid4()),
            "date": day.isoformat(),
            "week_number": 1,
            "timezone": "UTC",
            "title": "Full body",
            "message": "🏋️ Full body today: squats, presses, rows 💪",
        }
    )


class Outcomes:
    """What each piece of in-flight work answered (status codes, or what the job returned)."""

    def __init__(self) -> None:
        self.seen: dict[str, list[Any]] = {}

    def add(self, kind: str, outcome: Any) -> None:
        self.seen.setdefault(kind, []).append(outcome)

    def server_errors(self) -> dict[str, list[Any]]:
        return {
            kind: [o for o in outcomes if (isinstance(o, int) and o >= 500) or isinstance(o, BaseException)]
            for kind, outcomes in self.seen.items()
            if any((isinstance(o, int) and o >= 500) or isinstance(o, BaseException) for o in outcomes)
        }


async def test_a_deletion_during_a_turn_a_plan_build_an_import_check_ins_and_pushes_leaves_nothing(
    client: httpx.AsyncClient,
    container: Container,
    settings: Settings,
    db: Database,
    make_user: Callable[..., str],
) -> None:
    alice, bob = make_user(), make_user()
    for user in (alice, bob):
        await populate_postgres(db, user, now=NOW)
    bob_turn = await client.post("/agent/chat", json={"message": "Hi"}, headers=bearer(settings, bob))
    assert bob_turn.status_code == 200, bob_turn.text
    bobs_sessions = {bob_turn.json()["sessionId"]}
    bob_items_before = left_of(scan(settings), bob, set())
    bob_rows_before = await rows_of(db, bob)
    async with db.connection() as conn:
        alice_tokens = {row["token"] for row in await devices.list_devices(conn, alice)}
    assert alice_tokens, "she has devices to push to"

    auth = bearer(settings, alice)
    outcomes = Outcomes()
    stop = asyncio.Event()
    gateway = SnsPushGateway.from_settings(settings)
    noon = {"at": datetime.combine(NOW.date(), dt_time(12), UTC)}
    delivery = DeliveryService(db, gateway, gateway, morning_hour=0, clock=lambda: noon["at"])
    publisher = RecordingPublisher()
    programs = ProgramDeps(db=db, agents=agent_run_deps(settings, db), publisher=publisher)
    jobs = ProgramJobDeps.on_loop(programs, asyncio.get_running_loop())

    plan = await client.post("/plans", json={"weeks": 4, "days_per_week": 3}, headers=auth)
    assert plan.status_code == 202, plan.text
    (plan_requested,) = [d for kind, d in container.publisher.published if kind == "PlanRequested"]  # type: ignore[attr-defined]

    async def turn() -> None:
        answer = await client.post(
            "/agent/stream", json={"message": "Give me a full body workout for 45 minutes"}, headers=auth
        )
        outcomes.add("turn", answer.status_code)
        frames = [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]
        outcomes.add("turn_end", [f.get("outcome") for f in frames if f["type"] == "turn_end"])

    async def plan_build() -> None:
        event = {"detail-type": "PlanRequested", "detail": plan_requested}
        try:
            outcomes.add("plan", await asyncio.to_thread(handle_plan_requested, event, None, jobs))
        except Exception as exc:
            outcomes.add("plan", exc)

    async def imported() -> None:
        await asyncio.sleep(IMPORT_AFTER_S)  # its model call still running when the deletion comes
        span = [time.monotonic()]
        answer = await client.post("/workouts/import", json={"text": PASTED}, headers=auth)
        outcomes.add("import", answer.status_code)
        outcomes.add("import_span", [*span, time.monotonic()])

    async def check_ins() -> None:
        while not stop.is_set():
            answer = await client.post(
                "/readiness", json={"energy": 4, "notes": "legs a bit sore"}, headers=auth
            )
            outcomes.add("check_in", answer.status_code)
            await asyncio.sleep(0.02)

    async def pushes() -> None:
        day = NOW.date()
        while not stop.is_set():
            day += timedelta(days=1)  # each push a day of its own, at noon there
            noon["at"] = datetime.combine(day, dt_time(12), UTC)
            try:
                result = await delivery.deliver(ready(alice, day))
                outcomes.add("push", result.outcome)
            except Exception as exc:
                outcomes.add("push", exc)

    work = [asyncio.create_task(job()) for job in (turn, plan_build, imported, check_ins, pushes)]
    await asyncio.sleep(DELETE_AFTER_S)
    deleting_at = time.monotonic()
    first = await client.request("DELETE", "/me", json=CONFIRM, headers=auth)
    await asyncio.sleep(0.3)
    stop.set()
    await asyncio.gather(*work)

    assert first.status_code == 202, first.text
    assert 1 <= int(first.headers["retry-after"]) <= LEASE_SECONDS + 2, "until the turn's lease runs out"
    assert outcomes.server_errors() == {}, outcomes.seen
    assert "sent" in outcomes.seen["push"], "pushes went out before the deletion"
    assert outcomes.seen["check_in"].count(201) >= 1, "check-ins landed before the deletion"
    assert set(outcomes.seen["check_in"]) <= {201, 401}, outcomes.seen["check_in"]
    ((import_sent, import_answered),) = outcomes.seen["import_span"]
    assert import_sent < deleting_at < import_answered, "the import was in flight"
    assert outcomes.seen["import"] in ([200], [401]), outcomes.seen["import"]
    assert outcomes.seen["plan"] == [{**outcomes.seen["plan"][0], "status": "account_deleted"}]
    assert outcomes.seen["turn"] == [200] and outcomes.seen["turn_end"] != [["replied"]], "cut short"

    answers = [first.status_code]
    deadline = time.monotonic() + LEASE_SECONDS + 10
    while answers[-1] != 204:
        assert time.monotonic() < deadline, answers
        await asyncio.sleep(0.5)
        again = await client.request("DELETE", "/me", json=CONFIRM, headers=auth)
        answers.append(again.status_code)
        if again.status_code == 202:
            await asyncio.sleep(int(again.headers["retry-after"]))
    await asyncio.sleep(LEASE_SECONDS)  # anything a turn could still have done, it would have done

    items_left = left_of(scan(settings), alice, bobs_sessions)
    rows_left = await rows_of(db, alice)
    endpoints_left = endpoints_holding(alice_tokens)
    logger.warning(
        "after the deletion: %d DynamoDB items, %d Postgres rows, %d SNS endpoints of hers (answers %s;"
        " in flight: turn %s %s, plan %s, import %s, check-ins %s, pushes %s)",
        len(items_left),
        rows_left,
        len(endpoints_left),
        answers,
        outcomes.seen["turn"],
        outcomes.seen["turn_end"],
        [o.get("status") if isinstance(o, dict) else o for o in outcomes.seen["plan"]],
        outcomes.seen["import"],
        {status: outcomes.seen["check_in"].count(status) for status in set(outcomes.seen["check_in"])},
        {outcome: outcomes.seen["push"].count(outcome) for outcome in set(map(str, outcomes.seen["push"]))},
    )
    assert (len(items_left), rows_left, len(endpoints_left)) == (0, 0, 0), items_left[:5]
    assert left_of(scan(settings), bob, set()) == bob_items_before, "Bob's items as they were"
    assert await rows_of(db, bob) == bob_rows_before


async def test_a_check_in_whose_account_is_deleted_before_it_writes_answers_401_and_stores_nothing(
    client: httpx.AsyncClient,
    container: Container,
    settings: Settings,
    db: Database,
    pg_url: str,
    make_user: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The request passed the deleted-account check; the account is deleted before its write, which
    fails on the missing `users` row: `401 account_deleted` (not a 500), and nothing is stored."""
    alice = make_user()
    await populate_postgres(db, alice, now=NOW)
    original = readiness.add_entry
    elsewhere = Database(pg_url, min_size=1, max_size=2)  # the deletion runs in another process
    await elsewhere.open()
    deletion = AccountService(elsewhere, DynamoAccountRecords(settings))

    async def deleted_first(conn: Any, user: Any, **fields: Any) -> Any:
        assert (await deletion.delete(alice)).complete
        return await original(conn, user, **fields)

    monkeypatch.setattr(readiness, "add_entry", deleted_first)
    try:
        answer = await client.post("/readiness", json={"energy": 3}, headers=bearer(settings, alice))
    finally:
        await elsewhere.close()
    assert (answer.status_code, answer.json()["error"]["code"]) == (401, "account_deleted"), answer.text
    assert await rows_of(db, alice) == 0
