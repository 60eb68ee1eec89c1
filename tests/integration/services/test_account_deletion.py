"""Account deletion (docs/api.md#account-deletion-and-data-export) on the real stores: embedded Postgres,
DynamoDB on moto, the API over httpx's ASGI transport, the job handlers as Lambda runs them.

Two users get rows in every Postgres table (the list is read from the schema, and
trainer_dev/testing/account_world.py must have a step for each) and items of every kind in every DynamoDB
table of template.yaml; one deletes their account.
Nothing of theirs is left (no row keyed by them, no item that names them or their sessions), nothing of the
other user changed, their old token is refused, and late events (TurnCompleted, PlanRequested, WeekDue, the
schedules) and a turn that was still running write nothing for them again."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import time_machine
from moto.sns.models import sns_backends
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.chat.turn_store import LeaseLost, TurnStore
from trainer.container import Container, agent_run_deps, build_container
from trainer.jobs import checkpoint, costs
from trainer.jobs.checkpoint import CheckpointDeps
from trainer.jobs.costs import CostDeps
from trainer.jobs.programs import ProgramJobDeps, handle_plan_requested, handle_week_due
from trainer.programs.pipeline import ProgramDeps, run_daily, run_hourly
from trainer.services.account import AccountService
from trainer.services.devices import DeviceEndpointEraser
from trainer.settings import Settings
from trainer.store.account_records import DynamoAccountRecords
from trainer.store.db import Database
from trainer.store.dynamo_tables import aws_client, parse_template
from trainer.store.metrics import DailyMetricsStore
from trainer.store.models import Event, EventType
from trainer.store.ports import AccountDeleted, LeaseClaim, SessionBatch, SessionNotFound
from trainer.store.push_endpoints import SnsEndpoints
from trainer.store.repositories import accounts, devices, profiles
from trainer.store.sessions import DynamoSessionStore
from trainer.store.sessions.head import FENCE_SLACK_SECONDS
from trainer.store.stream_records import DynamoStreamRecords, StoredFrame
from trainer.store.usage import DynamoUsageLedger
from trainer_dev.local.moto_server import create_push_applications
from trainer_dev.testing.account_world import (
    OFFLINE,
    POSTGRES_SEEDERS,
    DynamoWorld,
    populate_dynamodb,
    populate_postgres,
)
from trainer_dev.testing.agent_harness import RecordingPublisher

ACCOUNT, REGION = "123456789012", "us-east-1"
"""moto's account and the tests' region (SNS endpoints are read from its backend)."""
TEMPLATE = Path(__file__).resolve().parents[3] / "template.yaml"
CONFIRM = {"confirm": "delete my account"}
GLOBAL_TABLES = {"prompts", "schema_migrations", "deleted_accounts"}
"""The schema's tables that hold no user's rows."""
DYNAMODB_TABLES = {"SessionsTable": "table_name", "IdempotencyTable": "idempotency_table_name"}
"""Every DynamoDB table of the template, with the setting that names it."""
NOW = datetime.now(UTC).replace(microsecond=0)
REFUSED_ROUTES = (
    ("GET", "/user-settings"),
    ("GET", "/agent/sessions"),
    ("POST", "/agent/sessions"),
    ("GET", "/me/profile"),
    ("GET", "/me/export"),
)


def bearer(settings: Settings, user_id: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user_id)}"}


def turn_completed(
    user: str, session_id: str, span: tuple[int, int], *, tokens: int = 1000
) -> dict[str, Any]:
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "TurnCompleted",
        "source": "trainer.agent",
        "detail": {
            "turn_id": f"turn:{uuid.uuid4().hex}",
            "session_id": session_id,
            "user_id": user,
            "first_seq": span[0],
            "last_seq": span[1],
            "context_tokens_estimate": tokens,
            "model": "claude-haiku-4-5",
            "status": "completed",
            "usage": {},
            "cost_cents": 0.0,
        },
    }


async def user_rows(db: Database, user: str) -> dict[str, list[str]]:
    """Every row of the user in every user table, as sorted JSON texts."""
    async with db.connection() as conn:
        tables = await accounts.user_tables(conn)
        found: dict[str, list[str]] = {}
        for table in tables:
            cur = await conn.execute(f'SELECT * FROM "{table.name}" WHERE "{table.column}" = %s', (user,))
            found[table.name] = sorted(
                json.dumps(row, default=str, sort_keys=True) for row in await cur.fetchall()
            )
    return found


def scan(settings: Settings, table_setting: str) -> list[dict[str, Any]]:
    client = aws_client("dynamodb", settings)
    request: dict[str, Any] = {"TableName": getattr(settings, table_setting), "ConsistentRead": True}
    items: list[dict[str, Any]] = []
    while True:
        page = client.scan(**request)
        items.extend(page["Items"])
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def naming(items: list[dict[str, Any]], needles: set[str]) -> list[dict[str, Any]]:
    """The items whose text (keys and attributes, binary as hex) holds one of the needles."""
    text = [(item, json.dumps(item, default=lambda b: bytes(b).hex(), sort_keys=True)) for item in items]
    return [item for item, dumped in text if any(needle in dumped for needle in needles)]


def keys(items: list[dict[str, Any]]) -> set[str]:
    return {json.dumps(item, default=lambda b: bytes(b).hex(), sort_keys=True) for item in items}


class Users:
    """Alice (deleted) and Bob (kept), each with rows and items everywhere."""

    def __init__(self, alice: str, bob: str, worlds: dict[str, DynamoWorld]) -> None:
        self.alice, self.bob, self.worlds = alice, bob, worlds

    def needles(self, user: str) -> set[str]:
        return {user, *self.worlds[user].sessions}


@pytest.fixture
async def users(
    db: Database, aws_settings: Settings, session_store: DynamoSessionStore, make_user: Callable[..., str]
) -> Users:
    alice, bob = make_user(), make_user()
    cost_deps = CostDeps(
        store=session_store,
        metrics=DailyMetricsStore(aws_settings),
        idempotency=costs.build_idempotency_layer(aws_settings),
    )
    worlds: dict[str, DynamoWorld] = {}
    for user in (alice, bob):
        await populate_postgres(db, user, now=NOW)
        worlds[user] = await populate_dynamodb(aws_settings, session_store.table, user)
        for session_id, span in worlds[user].turn_spans.items():  # the cost job's records for their turns
            await asyncio.to_thread(
                costs.handle_turn_completed, turn_completed(user, session_id, span), None, cost_deps
            )
    return Users(alice, bob, worlds)


async def test_every_table_is_written_by_the_world_and_every_dynamodb_table_is_known(db: Database) -> None:
    """The deletion and export tests cover the schema as it is: a table a migration adds needs a step in
    trainer_dev/testing/account_world.py (or a place among the global tables), a DynamoDB table in the
    template a place here."""
    async with db.connection() as conn:
        held = {table.name for table in await accounts.user_tables(conn)}
        unheld = set(await accounts.global_tables(conn))
    assert held == set(POSTGRES_SEEDERS), "account_world.POSTGRES_SEEDERS must name every user table"
    assert unheld == GLOBAL_TABLES
    template = parse_template(TEMPLATE.read_text(encoding="utf-8"))
    tables = {name for name, r in template["Resources"].items() if r["Type"] == "AWS::DynamoDB::Table"}
    assert tables == set(DYNAMODB_TABLES)


async def test_user_tables_come_referencing_tables_first(db: Database) -> None:
    async with db.connection() as conn:
        order = [table.name for table in await accounts.user_tables(conn)]
    assert order[-1] == "users"
    assert order.index("plan_workouts") < order.index("plan_weeks") < order.index("training_plans")
    assert order.index("scheduled_workouts") < order.index("workout_plans")


async def test_deleting_an_account_erases_everything_of_theirs_and_nothing_of_anyone_elses(
    users: Users,
    client: httpx.AsyncClient,
    container: Container,
    aws_settings: Settings,
    session_store: DynamoSessionStore,
    db: Database,
) -> None:
    alice, bob = users.alice, users.bob
    before = {user: await user_rows(db, user) for user in (alice, bob)}
    assert all(before[user][table] for user in (alice, bob) for table in POSTGRES_SEEDERS), "rows everywhere"
    items_before = {name: scan(aws_settings, setting) for name, setting in DYNAMODB_TABLES.items()}
    for user in (alice, bob):
        assert naming(items_before["SessionsTable"], {f"USER#{user}"}), "daily, reservation and rate items"
        assert len(naming(items_before["SessionsTable"], users.needles(user))) > 10
    kinds = {
        item["SK"]["S"].split("#")[0] for item in naming(items_before["SessionsTable"], users.needles(alice))
    }
    assert {"META", "EVENT", "BLOB", "DAY", "RATE"} <= kinds
    assert len(items_before["IdempotencyTable"]) == 4

    deleted = await client.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, alice))
    assert deleted.status_code == 204, deleted.text

    after = {user: await user_rows(db, user) for user in (alice, bob)}
    assert {table: rows for table, rows in after[alice].items() if rows} == {}
    assert after[bob] == before[bob]
    sessions_after = scan(aws_settings, "table_name")
    assert naming(sessions_after, users.needles(alice)) == [], "nothing of hers, no session tombstone"
    (tombstone,) = [item for item in sessions_after if item["PK"]["S"].startswith("DELETED#")]
    assert naming([tombstone], {alice, alice.replace("-", "")}) == []
    untouched = [i for i in items_before["SessionsTable"] if not naming([i], users.needles(alice))]
    assert keys(sessions_after) == keys(untouched) | keys([tombstone])
    # The cost job's idempotency records hold neither user id nor session id (their key hashes the turn
    # id; they expire in two days): nothing in them names Alice, and Bob's are as they were.
    idempotency_after = scan(aws_settings, "idempotency_table_name")
    assert naming(idempotency_after, users.needles(alice) | users.needles(bob)) == []
    assert keys(idempotency_after) == keys(items_before["IdempotencyTable"])

    async with db.connection() as conn:
        stone = await accounts.tombstone(conn, alice)
        cur = await conn.execute("SELECT user_digest FROM deleted_accounts")
        digests = [bytes(r["user_digest"]) for r in await cur.fetchall()]
    assert stone is not None and stone["completed_at"] is not None
    assert uuid.UUID(alice).bytes not in b"".join(digests) and alice.encode() not in b"".join(digests)

    # Her token is refused everywhere, by this process and by a fresh one; Bob is served.
    for method, path in REFUSED_ROUTES:
        refused = await client.request(method, path, headers=bearer(aws_settings, alice))
        assert (refused.status_code, refused.json()["error"]["code"]) == (401, "account_deleted"), path
        assert refused.headers["www-authenticate"] == "Bearer"
    fresh = await build_container(aws_settings, store=session_store, db=db, publisher=RecordingPublisher())
    try:
        transport = httpx.ASGITransport(app=create_app(fresh))
        async with httpx.AsyncClient(transport=transport, base_url="http://fresh.test") as other:
            refused = await other.get("/user-settings", headers=bearer(aws_settings, alice))
            assert refused.json()["error"]["code"] == "account_deleted"
            assert (await other.get("/me/profile", headers=bearer(aws_settings, bob))).status_code == 200
            again = await other.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, alice))
            assert again.status_code == 204, "a repeated deletion answers as the first did"
    finally:
        await fresh.aclose()
    assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == [], "the repeat wrote nothing"
    assert (await user_rows(db, alice)) == after[alice]


async def test_late_events_and_a_running_turn_write_nothing_for_a_deleted_account(
    users: Users,
    container: Container,
    aws_settings: Settings,
    session_store: DynamoSessionStore,
    db: Database,
) -> None:
    alice, bob = users.alice, users.bob
    assert container.accounts is not None
    world = users.worlds[alice]
    session_id = world.sessions[1]
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id, next_week FROM training_plans WHERE user_id = %s AND active", (alice,)
        )
        plan = await cur.fetchone()
    assert plan is not None
    # A turn is running in one of her sessions when she deletes her account.
    running = await session_store.get_session(alice, session_id)
    await session_store.acquire_lease(session_id, "turn:running", 60)
    turn = TurnStore(session_store, running, "turn:running", lambda: 60)

    report = await container.accounts.delete(alice)
    assert not report.complete, "a turn may still hold a lease: its session's tombstone stays"
    assert time.time() + 55 < report.fenced_until <= time.time() + 60 + FENCE_SLACK_SECONDS

    await turn.append_event(session_id, EventType.USER_MESSAGE, {"message": "still here"})
    with pytest.raises(LeaseLost):
        await turn.flush(release=True)
    with pytest.raises(SessionNotFound):  # a write that holds no lease is refused too
        await session_store.append_event(session_id, EventType.ERROR, {"message": "late"})
    with time_machine.travel(report.fenced_until + 1, tick=True):  # the turn's lease has run out
        finished = await container.accounts.delete(alice)
    assert finished.complete and report.sessions + finished.sessions == len(world.sessions)
    with pytest.raises(AccountDeleted):
        await container.ensure_user(alice)
    with pytest.raises(AccountDeleted):
        async with db.transaction() as conn:
            await profiles.ensure_user(conn, alice)

    span = world.turn_spans[session_id]
    cost_deps = CostDeps(
        store=session_store,
        metrics=DailyMetricsStore(aws_settings),
        idempotency=costs.build_idempotency_layer(aws_settings),
    )
    late_cost = await asyncio.to_thread(
        costs.handle_turn_completed, turn_completed(alice, session_id, span), None, cost_deps
    )
    assert late_cost["daily_counted"] is False and late_cost["session_counted"] is False
    checkpoint_deps = CheckpointDeps(
        settings=aws_settings, store=session_store, tombstones=DynamoAccountRecords(aws_settings)
    )
    late_checkpoint = await asyncio.to_thread(
        checkpoint.handle_turn_completed,
        turn_completed(alice, session_id, span, tokens=95_000),
        None,
        checkpoint_deps,
    )
    assert late_checkpoint["reason"] == "account_deleted"

    programs = ProgramDeps(db=db, agents=agent_run_deps(OFFLINE, db), publisher=RecordingPublisher())
    jobs = ProgramJobDeps.on_loop(programs, asyncio.get_running_loop())
    ids = {"user_id": alice, "plan_id": str(plan["id"])}
    week_due = {"detail-type": "WeekDue", "detail": {**ids, "week_number": 2}}
    assert (await asyncio.to_thread(handle_week_due, week_due, None, jobs))["reason"] == "account_deleted"
    plan_requested = {"detail-type": "PlanRequested", "detail": ids}
    assert (await asyncio.to_thread(handle_plan_requested, plan_requested, None, jobs))[
        "status"
    ] == "account_deleted"
    # The schedules find nothing of hers: her plans went with her.
    for hours in range(0, 48, 3):
        at = NOW + timedelta(hours=hours)
        published = [*await run_hourly(programs, now=at), *await run_daily(programs, now=at)]
        assert [d for d in published if d["user_id"] == alice] == [], at
    assert [kind for kind, detail in programs.publisher.published if detail.get("user_id") == alice] == []

    assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == []
    assert {table: rows for table, rows in (await user_rows(db, alice)).items() if rows} == {}
    assert (await user_rows(db, bob))["workout_history"], "Bob keeps his"


class AfterMeta:
    """The records' DynamoDB client, calling `hook(pk)` right after a session's META is deleted."""

    def __init__(self, client: Any, hook: Callable[[str], None]) -> None:
        self._client, self._hook = client, hook

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def delete_item(self, **request: Any) -> Any:
        answer = self._client.delete_item(**request)
        if request["Key"]["SK"]["S"] == "META":
            self._hook(request["Key"]["PK"]["S"])
        return answer

    def batch_write_item(self, **request: Any) -> Any:
        answer = self._client.batch_write_item(**request)
        for writes in request["RequestItems"].values():
            for write in writes:
                key = write.get("DeleteRequest", {}).get("Key")
                if key is not None and key["SK"]["S"] == "META":
                    self._hook(key["PK"]["S"])
        return answer


async def test_a_turn_committing_while_its_session_is_erased_is_taken_over(
    users: Users, aws_settings: Settings, session_store: DynamoSessionStore, db: Database
) -> None:
    """A turn's commit that lands between its session's META going and the rest of the session is
    refused as a lease taken over (so the turn writes nothing more), not as a missing session (after
    which it would write its error event straight to the store)."""
    alice = users.alice
    session_id = users.worlds[alice].sessions[1]
    next_seq = session_store.table.load_session(session_id).last_seq + 1
    await session_store.acquire_lease(session_id, "turn:running", 60)
    outcomes: list[str] = []

    def commit_now(pk: str) -> None:
        if pk != f"SESSION#{session_id}":
            return
        event = Event(
            session_id=session_id,
            sequence_number=next_seq,
            event_type=EventType.USER_MESSAGE,
            timestamp=datetime.now(UTC),
            data={"message": "one more"},
        )
        batch = SessionBatch(events=[event], lease=LeaseClaim("turn:running", 60))
        try:
            session_store.table.commit(session_id, batch)
        except Exception as exc:
            outcomes.append(type(exc).__name__)
        else:
            outcomes.append("committed")

    records = DynamoAccountRecords(aws_settings)
    records.table._client = AfterMeta(records.table._client, commit_now)
    records.table.sessions._client = AfterMeta(records.table.sessions._client, commit_now)
    report = await AccountService(db, records).delete(alice)
    assert not report.complete and report.fenced_until, "the turn's lease was live: its tombstone stays"
    assert outcomes == ["LeaseHeld"]
    with time_machine.travel(report.fenced_until + 1, tick=True):
        assert (await AccountService(db, records).delete(alice)).complete
    assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == []


async def test_a_wrong_or_missing_confirmation_deletes_nothing(
    users: Users, client: httpx.AsyncClient, aws_settings: Settings, db: Database
) -> None:
    alice = users.alice
    before = await user_rows(db, alice)
    for body in ({}, {"confirm": "yes"}, {"confirm": "Delete my account "}, {"confirm": True}):
        refused = await client.request("DELETE", "/me", json=body, headers=bearer(aws_settings, alice))
        assert refused.status_code == 422, body
        assert refused.json()["error"]["details"][0]["field"] == "confirm"
    no_body = await client.request("DELETE", "/me", headers=bearer(aws_settings, alice))
    assert no_body.status_code in (400, 422)
    assert await user_rows(db, alice) == before
    assert (await client.get("/me/profile", headers=bearer(aws_settings, alice))).status_code == 200


async def test_a_deletion_out_of_time_answers_202_and_a_repeat_finishes_it(
    users: Users,
    client: httpx.AsyncClient,
    container: Container,
    aws_settings: Settings,
    db: Database,
) -> None:
    alice = users.alice
    assert container.accounts is not None
    records = DynamoAccountRecords(aws_settings)
    container.accounts = AccountService(db, records, budget_seconds=0)
    first = await client.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, alice))
    assert first.status_code == 202, first.text
    assert first.json()["deletion"]["status"] == "in_progress" and first.headers["retry-after"] == "1"
    refused = await client.get("/user-settings", headers=bearer(aws_settings, alice))
    assert refused.json()["error"]["code"] == "account_deleted", "refused from the first request on"
    assert naming(scan(aws_settings, "table_name"), users.needles(alice)), "sessions left for the repeat"

    container.accounts = AccountService(db, records)
    second = await client.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, alice))
    assert second.status_code == 204
    assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == []


class RecordingEraser:
    """An external store's eraser: it reads what it erases from the user's rows, as an SNS endpoint
    eraser reads the devices table."""

    name = "locations_mirror"

    def __init__(self, db: Database, *, fail: bool = False) -> None:
        self.db = db
        self.fail = fail
        self.seen: list[list[str]] = []

    async def erase(self, user_id: str) -> int:
        async with self.db.connection() as conn:
            cur = await conn.execute(
                "SELECT name FROM user_locations WHERE user_id = %s ORDER BY name", (user_id,)
            )
            names = [r["name"] for r in await cur.fetchall()]
        self.seen.append(names)
        if self.fail:
            raise ConnectionError("the external store is down")
        return len(names)


class Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def account_logs() -> Any:
    log = logging.getLogger("trainer.services.account")
    handler, level = Collected(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    yield handler
    log.removeHandler(handler)
    log.setLevel(level)


async def test_erasers_run_while_the_rows_are_there_and_a_failing_one_keeps_the_deletion_open(
    users: Users, aws_settings: Settings, db: Database, account_logs: Collected
) -> None:
    alice = users.alice
    records = DynamoAccountRecords(aws_settings)
    failing = RecordingEraser(db, fail=True)
    report = await AccountService(db, records, [failing]).delete(alice)
    assert not report.complete and failing.seen == [["Home gym", "Hotel"]]
    assert any((await user_rows(db, alice)).values()), "the rows stay until every eraser succeeded"
    assert await AccountService(db).is_deleted(alice), "but the account is refused already"

    working = RecordingEraser(db)
    report = await AccountService(db, records, [working]).delete(alice)
    assert report.complete and report.external == {"locations_mirror": 2}
    assert {table: rows for table, rows in (await user_rows(db, alice)).items() if rows} == {}
    assert report.postgres_rows["workout_history"] > 0 and report.dynamodb_items > 10

    audit = [
        r
        for r in account_logs.records
        if r.getMessage() in ("account deleted", "account deletion incomplete")
    ]
    assert [r.getMessage() for r in audit] == ["account deletion incomplete", "account deleted"]
    assert audit[-1].__dict__["postgres_rows"] == sum(report.postgres_rows.values())
    logged = json.dumps([{**r.__dict__, "msg": r.getMessage()} for r in account_logs.records], default=str)
    assert not any(needle in logged for needle in users.needles(alice)), "the audit names nobody"


# --- the SNS endpoints that hold the user's push tokens ---------------------------------------------


async def _endpoint_for_each_device(db: Database, sns: Any, application: str, user: str) -> list[str]:
    """What the Notifier does on a first delivery: an SNS endpoint per device, its ARN on the row."""
    arns = []
    async with db.transaction() as conn:
        for device in await devices.list_devices(conn, user):
            arn = sns.create_platform_endpoint(PlatformApplicationArn=application, Token=device["token"])[
                "EndpointArn"
            ]
            assert await devices.set_endpoint(conn, user, device["id"], device["token"], arn)
            arns.append(arn)
    return arns


def _endpoints(application: str) -> set[str]:
    return {arn for arn, endpoint in sns_backends[ACCOUNT][REGION].platform_endpoints.items()
            if endpoint.application.arn == application}  # fmt: skip


async def test_deleting_an_account_deletes_the_sns_endpoints_holding_its_push_tokens(
    users: Users, client: httpx.AsyncClient, aws_settings: Settings, db: Database
) -> None:
    """DELETE /me through the container's own erasers (trainer.container.ACCOUNT_ERASERS): the endpoints of
    Alice's devices are gone from SNS (they held her tokens), Bob's is untouched, and a repeated deletion
    is not an error."""
    sns = aws_client("sns", aws_settings)
    application = create_push_applications(aws_settings, prefix=f"t-{uuid.uuid4().hex[:10]}")["apns"]
    alices = await _endpoint_for_each_device(db, sns, application, users.alice)
    bobs = await _endpoint_for_each_device(db, sns, application, users.bob)
    assert alices and bobs and _endpoints(application) == {*alices, *bobs}

    deleted = await client.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, users.alice))
    assert deleted.status_code == 204, deleted.text

    assert _endpoints(application) == set(bobs), "her endpoints are deleted, his kept"
    again = await client.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, users.alice))
    assert again.status_code == 204


async def test_the_endpoint_eraser_keeps_an_endpoint_another_users_device_points_to(
    users: Users, aws_settings: Settings, db: Database
) -> None:
    sns = aws_client("sns", aws_settings)
    application = create_push_applications(aws_settings, prefix=f"t-{uuid.uuid4().hex[:10]}")["apns"]
    (alices,) = await _endpoint_for_each_device(db, sns, application, users.alice)
    async with db.transaction() as conn:  # a stale row of Bob's names her endpoint too
        (bob_device,) = await devices.list_devices(conn, users.bob)
        await devices.set_endpoint(conn, users.bob, bob_device["id"], bob_device["token"], alices)
    eraser = DeviceEndpointEraser(db, SnsEndpoints(aws_settings))
    assert await eraser.erase(users.alice) == 0
    assert alices in _endpoints(application)
    async with db.transaction() as conn:
        await devices.delete_device(conn, users.bob, bob_device["id"])
    assert await eraser.erase(users.alice) == 1
    assert alices not in _endpoints(application)
    assert await eraser.erase(users.alice) == 1, "an endpoint already gone is not an error"


async def test_once_the_tombstone_is_written_no_writer_creates_anything_of_the_account(
    users: Users, aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    """Every write that can create an item of the user checks the DynamoDB tombstone in the same
    transaction (or updates only what is still there): a request that passed the deleted-account check
    just before the deletion creates nothing after it."""
    alice = users.alice
    records = DynamoAccountRecords(aws_settings)
    client = session_store.table.client
    stream = DynamoStreamRecords(aws_settings, client=client)
    ledger = DynamoUsageLedger(aws_settings, client=client)
    await stream.claim(alice, "chat", "tap-1", "hash")  # claimed before the deletion
    await records.put_tombstone(alice)
    assert (await records.erase(alice)).complete
    assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == []

    session_id = users.worlds[alice].sessions[0]
    attempts = {
        "a session": lambda: session_store.create_session(alice),
        "frames": lambda: stream.record(alice, session_id, [StoredFrame(1000, {"type": "session"})]),
        "an idempotency key": lambda: stream.claim(alice, "stream", "tap-2", "hash"),
        "a request rate": lambda: ledger.take(alice, "model", time.time(), 3.0, 3),
        "a reservation": lambda: ledger.reserve(alice, NOW.date(), "turns", 10, 500.0),
    }
    for what, attempt in attempts.items():
        with pytest.raises(AccountDeleted):
            await attempt()
        assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == [], what
    await stream.started(alice, "chat", "tap-1", session_id, 1000)  # its record was erased: not made again
    await stream.finished(alice, "chat", "tap-1", 200, {"messages": ["hi"]})
    with pytest.raises(SessionNotFound):
        await session_store.append_event(session_id, EventType.ERROR, {"message": "late"})
    with pytest.raises(SessionNotFound):  # a state set outside a turn updates META only while it lives
        await session_store.put_state(session_id, "current_workout", {"title": "late"})
    assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == []
    assert naming(scan(aws_settings, "table_name"), {session_id}) == [], "nothing in her sessions"


async def test_a_repeated_deletion_finds_the_strays_of_sessions_whose_meta_is_gone(
    users: Users, client: httpx.AsyncClient, aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    """A session its owner deleted keeps a tombstone (indexed under the account's digest, no user id)
    in which items could be left (frames a stream wrote before the frames checked the tombstone): the
    account's deletion finds the session through that index and erases it whole."""
    alice = users.alice
    session_id = users.worlds[alice].sessions[1]
    await session_store.delete_session(alice, session_id)
    client_ = session_store.table.client
    client_.delete_item(  # as if its index entry had expired: only the tombstone points to it
        TableName=aws_settings.table_name,
        Key={"PK": {"S": f"USER#{alice}"}, "SK": {"S": f"SESSION#{session_id}"}},
    )
    client_.put_item(
        TableName=aws_settings.table_name,
        Item={
            "PK": {"S": f"SESSION#{session_id}"},
            "SK": {"S": "FRAME#0000000000009000"},
            "frame": {"S": '{"type":"turn_end","outcome":"failed"}'},
        },
    )
    left = naming(scan(aws_settings, "table_name"), {session_id})
    assert len(left) == 2, "the tombstone and the stray frame"
    assert naming(left, {alice}) == [], "neither names her"

    deleted = await client.request("DELETE", "/me", json=CONFIRM, headers=bearer(aws_settings, alice))
    assert deleted.status_code == 204, deleted.text
    assert naming(scan(aws_settings, "table_name"), users.needles(alice)) == []
