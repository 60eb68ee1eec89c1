"""`trainer invoke`: every function of template.yaml with every sample event in events/ that targets it,
through trainer_dev.local.invoke (what the command runs), on moto and embedded Postgres with the sample
data seeded, each doing its real job; the environment the template gives (tokens verified against the
local identity provider's JWKS, as deployed); the code run from the source tree or from a build; then a
turn's TurnCompleted carried from the API function to the checkpoint and cost functions, the migrate
function on a fresh database, and the command line itself."""

from __future__ import annotations

import asyncio
import io
import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jwt
import psycopg
import pytest
from moto.sns.models import sns_backends
from trainer.api.auth import mint_dev_token
from trainer.settings import LOCAL_JWT_SECRET, Settings, get_settings
from trainer.store.db import Database
from trainer.store.dynamo_tables import aws_client
from trainer.store.metrics import DailyMetricsStore
from trainer.store.migrate import load_migrations
from trainer.store.models import EventType
from trainer.store.sessions import DynamoSessionTable
from trainer_dev.cli import main
from trainer_dev.local.identity import LocalIdentityProvider
from trainer_dev.local.invoke import (
    InvokeError,
    InvokeResult,
    LocalStores,
    bearer_token,
    code_source,
    invoke_function,
    load_event,
    load_function,
    local_parameters,
    seed_samples,
    template_functions,
)
from trainer_dev.local.moto_server import create_push_applications
from trainer_dev.local.samples import (
    REQUESTED_PLAN_ID,
    RESPONSE_TOKENS,
    RUNNING_PLAN_ID,
    SAMPLE_DEVICE_TOKEN,
    SAMPLE_SESSION_ID,
    SAMPLE_TIMEZONE,
    SAMPLE_USER_ID,
)

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "template.yaml"
EVENTS = ROOT / "events"
FUNCTION_OF_PREFIX = {
    "api-": "ApiFunction",
    "stream-": "StreamFunction",
    "checkpoint-": "CheckpointFunction",
    "costs-": "CostFunction",
    "migrate": "MigrateFunction",
    "plans-": "PlanFunction",
    "microcycle-": "MicrocycleFunction",
    "scheduler-": "SchedulerFunction",
    "notifier-": "NotifierFunction",
    "push-apps-": "PushAppsFunction",
}


def function_for(event_name: str) -> str:
    (function,) = [f for prefix, f in FUNCTION_OF_PREFIX.items() if event_name.startswith(prefix)]
    return function


def run_async(work: Callable[[], Any]) -> Any:
    """An asyncio.run in a thread of its own (leaves the test session's loop alone)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        outcome["value"] = asyncio.run(work())

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    return outcome.get("value")


@pytest.fixture
def stores(aws_settings: Settings, pg_url: str) -> LocalStores:
    return LocalStores.from_settings(aws_settings.model_copy(update={"database_url": pg_url}))


@pytest.fixture
def user(pg_url: str) -> str:
    """A fresh user seeded like `make run`'s demo user (profile, home gym, goals, history)."""
    from trainer_dev.local.seed import seed_demo_user

    user_id = str(uuid.uuid4())

    async def seed() -> None:
        db = Database(pg_url, min_size=1, max_size=2)
        await db.open()
        try:
            await seed_demo_user(db, user_id)
        finally:
            await db.close()

    run_async(seed)
    return user_id


@pytest.fixture
def samples(stores: LocalStores, aws_settings: Settings, pg_url: str) -> str:
    """The sample data the events in events/ refer to, seeded as `trainer invoke` seeds it: the sample
    user's id."""
    seed_samples(aws_settings.model_copy(update={"database_url": pg_url}))
    return SAMPLE_USER_ID


@pytest.fixture(scope="module")
def identity() -> Iterator[LocalIdentityProvider]:
    with LocalIdentityProvider() as provider:
        yield provider


def fetch(pg_url: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()


def bus_queue(settings: Settings, detail_type: str) -> Callable[[], list[dict[str, Any]]]:
    """An EventBridge rule on the bus sending `detail_type` to SQS (moto cannot invoke Lambda targets);
    returns a reader of the envelopes delivered so far."""
    sqs = aws_client("sqs", settings)
    events = aws_client("events", settings)
    queue_url = sqs.create_queue(QueueName=f"{settings.event_bus_name}-{detail_type}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    events.put_rule(
        Name=detail_type,
        EventBusName=settings.event_bus_name,
        EventPattern=json.dumps({"source": ["trainer.agent"], "detail-type": [detail_type]}),
    )
    events.put_targets(
        Rule=detail_type, EventBusName=settings.event_bus_name, Targets=[{"Id": "q", "Arn": queue_arn}]
    )

    def read() -> list[dict[str, Any]]:
        response = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=1, MaxNumberOfMessages=10)
        return [json.loads(m["Body"]) for m in response.get("Messages", [])]

    return read


@pytest.fixture
def turn_queue(aws_settings: Settings) -> Callable[[], list[dict[str, Any]]]:
    return bus_queue(aws_settings, "TurnCompleted")


@pytest.fixture
def published(aws_settings: Settings) -> Callable[[], list[dict[str, Any]]]:
    """Reads what the functions published to the bus: TurnCompleted, WeekDue and WorkoutReady."""
    readers = [bus_queue(aws_settings, kind) for kind in ("TurnCompleted", "WeekDue", "WorkoutReady")]
    return lambda: [envelope for read in readers for envelope in read()]


def invoke(
    logical_id: str,
    event: dict[str, Any],
    stores: LocalStores,
    *,
    template: Path = TEMPLATE,
    **options: Any,
) -> tuple[InvokeResult, str]:
    """Invokes the function, its logs captured."""
    logs = io.StringIO()
    result = invoke_function(template, logical_id, event, stores=stores, logs=logs, **options)
    return result, logs.getvalue()


def api_body(result: InvokeResult) -> tuple[int, dict[str, Any]]:
    assert result.ok, result.error
    response = result.response
    return response["statusCode"], json.loads(response["body"]) if response["body"] else {}


def sse_frames(body: bytes) -> list[dict[str, Any]]:
    frames = []
    for block in body.decode().split("\n\n"):
        data = [line[len("data: ") :] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            frames.append(json.loads(data[0]))
    return frames


# ---------------------------------------------------------------- every sample event, doing its job


def expect_api_health(result: InvokeResult, **_: Any) -> None:
    status, body = api_body(result)
    assert status == 200
    assert body["status"] == "ok"
    assert body["stores"] == {"sessions": True, "database": True}


def expect_api_list_sessions_no_token(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    status, body = api_body(result)
    assert (status, body["error"]["code"]) == (401, "missing_token")
    assert result.response["headers"]["x-request-id"] == event["requestContext"]["requestId"]


def expect_api_list_sessions_with_token(
    result: InvokeResult, identity: LocalIdentityProvider, **_: Any
) -> None:
    status, body = api_body(result)
    assert (status, [s["id"] for s in body["sessions"]]) == (200, [SAMPLE_SESSION_ID]), body
    assert identity.requests >= 1, "the function fetched the provider's keys to verify the token"


def expect_api_chat(result: InvokeResult, published: list[dict[str, Any]], **_: Any) -> None:
    status, body = api_body(result)
    assert status == 200, body
    assert body["status"] == "completed"
    assert body["response"]["messages"] and body["response"]["exercises"], "a workout was composed"
    assert "generate_workout" in [a["tool"] for a in body["actions"]]
    (turn,) = published
    assert turn["detail"]["session_id"] == body["sessionId"]
    assert turn["detail"]["user_id"] == SAMPLE_USER_ID


def expect_stream_chat(result: InvokeResult, published: list[dict[str, Any]], **_: Any) -> None:
    assert result.ok, result.error
    assert result.status == 200
    assert result.headers["content-type"].startswith("text/event-stream")
    frames = sse_frames(result.body)
    assert frames[-1]["type"] == "done"
    assert [f for f in frames if f["type"] == "tool_result" and f["tool"] == "message_notify_user"]
    assert [f["type"] for f in frames[-2:]] == ["turn_end", "done"]
    (turn,) = published
    assert turn["detail"]["session_id"] == frames[-1]["sessionId"]
    assert turn["detail"]["status"] == "completed"


def expect_checkpoint_turn_completed(
    result: InvokeResult, event: dict[str, Any], settings: Settings, **_: Any
) -> None:
    assert result.ok, result.error
    assert result.response == {"session_id": SAMPLE_SESSION_ID, "checkpointed": True, "sequence": 9}
    sessions = DynamoSessionTable(settings)
    (written,) = sessions.read_events(SAMPLE_SESSION_ID, after=event["detail"]["last_seq"]).events
    assert written.event_type is EventType.CHECKPOINT
    assert written.data["events_summarized"] == "1-8"
    assert sessions.load_session(SAMPLE_SESSION_ID).context_start_sequence == 9


def expect_costs_turn_completed(
    result: InvokeResult, event: dict[str, Any], settings: Settings, **_: Any
) -> None:
    assert result.ok, result.error
    usage = event["detail"]["usage"]
    prompt = usage["input_tokens"] + usage["cache_creation_input_tokens"]
    assert result.response["session_counted"] is True, "the sample session exists"
    assert result.response["llm_calls"] == len(RESPONSE_TOKENS), "its turn's model responses are counted"
    assert result.response["prompt_tokens"] == prompt, "and add up to the event's usage"
    assert result.response["cached_tokens"] == usage["cache_read_input_tokens"]
    total = prompt + usage["cache_read_input_tokens"] + usage["output_tokens"]
    assert result.response["total_tokens"] == total
    assert result.response["cost_cents"] == pytest.approx(event["detail"]["cost_cents"])
    assert DynamoSessionTable(settings).load_session(SAMPLE_SESSION_ID).total_tokens == total
    day = date.fromisoformat(result.response["day"])
    daily = DailyMetricsStore(settings).get(event["detail"]["user_id"], day)
    assert daily["turns"] == 1
    assert daily["cached_tokens"] == usage["cache_read_input_tokens"]


def expect_migrate(result: InvokeResult, **_: Any) -> None:
    assert result.ok, result.error
    assert result.response == {"applied": []}, "the test database is migrated already"


def expect_plans_plan_requested(result: InvokeResult, pg_url: str, **_: Any) -> None:
    assert result.ok, result.error
    assert (result.response["plan_id"], result.response["status"]) == (REQUESTED_PLAN_ID, "ready")
    plan = fetch(
        pg_url, "SELECT status, active, next_week FROM training_plans WHERE id = %s", REQUESTED_PLAN_ID
    )
    assert plan == [("ready", True, 2)], "built, made the user's plan, its week 1 built with it"
    weeks = fetch(pg_url, "SELECT week_number, status FROM plan_weeks WHERE plan_id = %s", REQUESTED_PLAN_ID)
    assert weeks == [(1, "ready")]


def expect_microcycle_week_due(result: InvokeResult, pg_url: str, **_: Any) -> None:
    assert result.ok, result.error
    assert (result.response["plan_id"], result.response["week_number"]) == (RUNNING_PLAN_ID, 2)
    assert (result.response["built"], result.response["reason"]) == (True, None)
    weeks = fetch(
        pg_url,
        "SELECT week_number, status FROM plan_weeks WHERE plan_id = %s ORDER BY week_number",
        RUNNING_PLAN_ID,
    )
    assert weeks == [(1, "ready"), (2, "ready")], "the week row is built"
    days = fetch(
        pg_url, "SELECT count(*) FROM plan_workouts WHERE plan_id = %s AND week_number = 2", RUNNING_PLAN_ID
    )
    assert days == [(result.response["days"],)] and result.response["days"] == 7


def expect_scheduler_hourly(
    result: InvokeResult, event: dict[str, Any], published: list[dict[str, Any]], **_: Any
) -> None:
    assert result.ok, result.error
    assert result.response["run"] == "hourly"
    assert result.response["at"].startswith(event["at"].removesuffix("Z"))
    assert set(result.response) == {"run", "at", "week_due", "plans_requeued", "health_samples_purged"}
    week_due = [e["detail"] for e in published if e["detail-type"] == "WeekDue"]
    assert result.response["week_due"] == len(week_due)
    assert {"user_id": SAMPLE_USER_ID, "plan_id": RUNNING_PLAN_ID, "week_number": 2} in week_due


def expect_scheduler_daily(
    result: InvokeResult, event: dict[str, Any], published: list[dict[str, Any]], pg_url: str, **_: Any
) -> None:
    assert result.ok, result.error
    assert result.response["run"] == "daily"
    assert result.response["at"].startswith(event["at"].removesuffix("Z"))
    assert set(result.response) == {"run", "at", "workout_ready", "deliveries_republished", "missed_adapted"}
    ready = [e["detail"] for e in published if e["detail-type"] == "WorkoutReady"]
    assert result.response["workout_ready"] + result.response["deliveries_republished"] == len(ready), (
        "the morning's WorkoutReady and those sent again for deliveries the Notifier deferred"
    )
    (monday,) = [d for d in ready if d["plan_id"] == RUNNING_PLAN_ID]
    assert (monday["date"], monday["week_number"], monday["timezone"]) == (
        "2026-03-02",
        1,
        "America/New_York",
    )
    assert monday["message"], "the morning message is written"
    sent = fetch(
        pg_url,
        "SELECT message IS NOT NULL, published_at IS NOT NULL FROM plan_workouts WHERE id = %s",
        monday["workout_id"],
    )
    assert sent == [(True, True)]


def expect_notifier_workout_ready(result: InvokeResult, event: dict[str, Any], pg_url: str, **_: Any) -> None:
    assert result.ok, result.error
    detail = event["detail"]
    assert (result.response["user_id"], result.response["date"]) == (SAMPLE_USER_ID, detail["date"])
    assert (result.response["outcome"], result.response["reason"]) == ("skipped", "day_over"), (
        "the sample's day (2026-03-09) is over in the user's zone: nothing is sent"
    )
    assert result.response["channels"] == []
    recorded = fetch(
        pg_url,
        "SELECT status, reason, workout_id::text FROM notification_deliveries"
        " WHERE user_id = %s AND day = %s",
        SAMPLE_USER_ID,
        detail["date"],
    )
    assert recorded == [("skipped", "day_over", detail["workout_id"])], "the day's one record"
    device = fetch(pg_url, "SELECT endpoint_arn FROM devices WHERE user_id = %s", SAMPLE_USER_ID)
    assert device == [(None,)], "no endpoint was created for the sample device"


def expect_notifier_endpoints_retired(
    result: InvokeResult, event: dict[str, Any], pg_url: str, **_: Any
) -> None:
    assert result.ok, result.error
    assert result.response["retired"] == len(event["detail"]["endpoint_arns"]), "no device holds it"
    held = fetch(pg_url, "SELECT count(*) FROM devices WHERE user_id = %s", SAMPLE_USER_ID)
    assert held == [(1,)], "the sample device stays"


def expect_push_apps_create(result: InvokeResult, logs: str = "", **_: Any) -> None:
    assert result.ok, result.error
    assert result.response["Status"] == "FAILED", "the sample's secret does not exist here"
    assert result.response["PhysicalResourceId"].startswith("failed-")


EXPECTATIONS: dict[str, Callable[..., None]] = {
    "api-health.json": expect_api_health,
    "api-list-sessions-no-token.json": expect_api_list_sessions_no_token,
    "api-list-sessions-with-token.json": expect_api_list_sessions_with_token,
    "api-chat.json": expect_api_chat,
    "stream-chat.json": expect_stream_chat,
    "checkpoint-turn-completed.json": expect_checkpoint_turn_completed,
    "costs-turn-completed.json": expect_costs_turn_completed,
    "migrate.json": expect_migrate,
    "plans-plan-requested.json": expect_plans_plan_requested,
    "microcycle-week-due.json": expect_microcycle_week_due,
    "scheduler-hourly.json": expect_scheduler_hourly,
    "scheduler-daily.json": expect_scheduler_daily,
    "notifier-workout-ready.json": expect_notifier_workout_ready,
    "notifier-endpoints-retired.json": expect_notifier_endpoints_retired,
    "push-apps-create.json": expect_push_apps_create,
}


def test_every_function_has_sample_events_and_every_event_an_expectation() -> None:
    names = {p.name for p in EVENTS.glob("*.json")}
    assert names == set(EXPECTATIONS), "an event in events/ without an expectation here (or the reverse)"
    assert {function_for(name) for name in names} == set(template_functions(TEMPLATE))


def test_the_sample_events_name_the_seeded_data() -> None:
    ids = {"user_id": SAMPLE_USER_ID, "session_id": SAMPLE_SESSION_ID}
    for path in EVENTS.glob("*.json"):
        detail = load_event(path).get("detail") or {}
        for key, value in ids.items():
            assert detail.get(key, value) == value, f"{path.name}: {key}"
    assert load_event(EVENTS / "plans-plan-requested.json")["detail"]["plan_id"] == REQUESTED_PLAN_ID
    assert load_event(EVENTS / "microcycle-week-due.json")["detail"]["plan_id"] == RUNNING_PLAN_ID
    ready = load_event(EVENTS / "notifier-workout-ready.json")["detail"]
    assert (ready["plan_id"], ready["timezone"]) == (RUNNING_PLAN_ID, SAMPLE_TIMEZONE)


@pytest.mark.parametrize("event_name", sorted(EXPECTATIONS))
def test_sample_event(
    event_name: str,
    stores: LocalStores,
    samples: str,
    aws_settings: Settings,
    pg_url: str,
    identity: LocalIdentityProvider,
    published: Callable[[], list[dict[str, Any]]],
) -> None:
    event = load_event(EVENTS / event_name)
    result, logs = invoke(function_for(event_name), event, stores, identity=identity, user_id=samples)

    EXPECTATIONS[event_name](
        result, event=event, settings=aws_settings, pg_url=pg_url, identity=identity, published=published()
    )
    for line in (line for line in logs.splitlines() if line.startswith('{"level"')):
        assert json.loads(line).get("function_request_id") in (result.request_id, None)


def test_seeding_again_puts_the_samples_back(
    stores: LocalStores, samples: str, aws_settings: Settings, pg_url: str
) -> None:
    """Each `trainer invoke` seeds: a sample event does its job however often it is sent."""
    week_due = load_event(EVENTS / "microcycle-week-due.json")
    assert invoke("MicrocycleFunction", week_due, stores)[0].response["built"] is True
    checkpoint, _ = invoke(
        "CheckpointFunction", load_event(EVENTS / "checkpoint-turn-completed.json"), stores
    )
    assert checkpoint.response["checkpointed"] is True, checkpoint.payload

    seed_samples(aws_settings.model_copy(update={"database_url": pg_url}))

    session = DynamoSessionTable(aws_settings).load_session(SAMPLE_SESSION_ID)
    assert (session.last_seq, session.context_start_sequence) == (8, 0), "the session as seeded"
    again, _ = invoke("MicrocycleFunction", week_due, stores)
    assert (again.response["built"], again.response["reason"]) == (True, None), again.payload


def test_an_invoke_leaves_no_connection_of_the_function_open(
    stores: LocalStores, samples: str, pg_url: str
) -> None:
    """The program functions keep a pool per instance; the invoke's process closes it before it ends."""

    def connections() -> int:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert row is not None
        return int(row[0])

    before = connections()
    result, _ = invoke("SchedulerFunction", load_event(EVENTS / "scheduler-hourly.json"), stores)
    assert result.error is None
    assert connections() == before


def _zone_at_noon(now: datetime) -> str:
    """A time zone whose local hour is 12 at `now` (Etc/GMT-N is UTC+N): past any morning hour."""
    offset = 12 - now.hour
    return "Etc/GMT" if offset == 0 else f"Etc/GMT{-offset:+d}"


def test_the_notifier_pushes_todays_workout_to_the_sample_device_through_sns(
    stores: LocalStores, samples: str, aws_settings: Settings, pg_url: str
) -> None:
    """The sample WorkoutReady for today, in a zone where it is noon, with the FCM platform application
    the stack creates from its secret (moto's here, its ARN given as the template gives it): the
    sample user's device gets the day's workout once, and the day is recorded sent."""
    applications = create_push_applications(aws_settings)
    now = datetime.now(UTC)
    zone = _zone_at_noon(now)
    event = load_event(EVENTS / "notifier-workout-ready.json")
    today = now.astimezone(ZoneInfo(zone)).date().isoformat()
    event["detail"].update(date=today, timezone=zone)
    pushing = {"TRAINER_SNS_FCM_APPLICATION_ARN": applications["fcm"]}

    result, _ = invoke("NotifierFunction", event, stores, env_overrides=pushing)

    assert result.ok, result.error
    assert (result.response["outcome"], result.response["date"]) == ("sent", today), result.response
    (channel,) = result.response["channels"]
    assert (channel["channel"], channel["platform"], channel["status"]) == ("push", "fcm", "sent")
    ((endpoint_arn, token),) = fetch(
        pg_url, "SELECT endpoint_arn, token FROM devices WHERE user_id = %s", SAMPLE_USER_ID
    )
    assert token == SAMPLE_DEVICE_TOKEN
    assert endpoint_arn.startswith(applications["fcm"].replace(":app/", ":endpoint/") + "/")
    account, region = endpoint_arn.split(":")[4], endpoint_arn.split(":")[3]
    endpoint = sns_backends[account][region].platform_endpoints[endpoint_arn]
    (pushed,) = [json.loads(m) for m in endpoint.messages.values()]
    fcm = json.loads(pushed["GCM"])["fcmV1Message"]["message"]
    assert fcm["notification"]["title"] == event["detail"]["title"]
    assert fcm["data"] == {
        "deep_link": f"trainer://workouts/{event['detail']['workout_id']}",
        "workout_id": event["detail"]["workout_id"],
        "date": today,
    }
    recorded = fetch(
        pg_url,
        "SELECT status, sent_at IS NOT NULL FROM notification_deliveries WHERE user_id = %s AND day = %s",
        SAMPLE_USER_ID,
        today,
    )
    assert recorded == [("sent", True)]

    again, _ = invoke("NotifierFunction", event, stores, env_overrides=pushing)
    assert (again.response["outcome"], again.response["reason"]) == ("duplicate", "sent"), again.payload
    assert len(endpoint.messages) == 1, "once per user and day"


# ---------------------------------------------------------------- a turn through the pipeline


def test_a_turn_goes_from_the_api_to_the_checkpoint_and_cost_functions(
    stores: LocalStores,
    user: str,
    aws_settings: Settings,
    identity: LocalIdentityProvider,
    turn_queue: Callable[[], list[dict[str, Any]]],
) -> None:
    chat = load_event(EVENTS / "api-chat.json")
    chat["body"] = json.dumps({"message": "Give me a quick chest workout"})
    status, body = api_body(invoke("ApiFunction", chat, stores, identity=identity, user_id=user)[0])
    assert status == 200, body
    session_id = body["sessionId"]
    (turn_completed,) = turn_queue()
    assert turn_completed["detail"]["session_id"] == session_id

    checkpoint, _ = invoke(
        "CheckpointFunction",
        turn_completed,
        stores,
        env_overrides={"TRAINER_CHECKPOINT_THRESHOLD": "0.0001"},
    )
    assert checkpoint.response["checkpointed"] is True, checkpoint.payload
    sessions = DynamoSessionTable(aws_settings)
    assert sessions.load_session(session_id).context_start_sequence == checkpoint.response["sequence"]

    first, logs = invoke("CostFunction", turn_completed, stores)
    again, _ = invoke("CostFunction", turn_completed, stores)
    assert first.response["llm_calls"] == body["iterations"] >= 1
    assert again.response == first.response, "a redelivery replays the first result"
    assert sessions.load_session(session_id).total_tokens == first.response["total_tokens"] > 0
    assert '"TurnsAggregated"' in logs

    listed = load_event(EVENTS / "api-list-sessions-with-token.json")
    status, page = api_body(invoke("ApiFunction", listed, stores, identity=identity, user_id=user)[0])
    assert (status, [s["id"] for s in page["sessions"]]) == (200, [session_id])


def test_migrate_function_applies_every_migration_to_a_fresh_database(
    stores: LocalStores, pg_url: str
) -> None:
    name = f"fresh_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    fresh = LocalStores(**{**stores.__dict__, "database_url": pg_url.rsplit("/", 1)[0] + f"/{name}"})
    try:
        first, logs = invoke("MigrateFunction", {}, fresh)
        second, _ = invoke("MigrateFunction", {}, fresh)
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
    assert first.response == {"applied": [m.name for m in load_migrations()]}
    assert second.response == {"applied": []}
    (emf,) = [json.loads(line) for line in logs.splitlines() if '"MigrationsApplied"' in line]
    assert emf["MigrationsApplied"] == [float(len(load_migrations()))]


def test_a_handler_error_comes_back_as_lambda_reports_it(stores: LocalStores) -> None:
    result, _ = invoke("CheckpointFunction", {"detail-type": "TurnCompleted", "detail": {}}, stores)
    assert not result.ok
    assert result.error is not None and result.error["errorType"] and result.error["stackTrace"]
    assert result.payload == result.error


# ---------------------------------------------------------------- the template as the function sees it


def test_functions_are_read_from_the_template_with_local_values(
    stores: LocalStores, identity: LocalIdentityProvider
) -> None:
    api = load_function(TEMPLATE, "ApiFunction", resource_names=stores.resource_names())
    assert (api.handler, api.code_dir, api.runtime) == (
        "app.handler",
        ROOT / "functions" / "api",
        "python3.12",
    )
    assert api.layer_dirs == (ROOT / "layers" / "core",)
    assert not api.built and api.import_paths == (ROOT / "functions" / "api", ROOT / "layers" / "core")
    assert api.environment["TRAINER_TABLE_NAME"] == stores.table_name
    assert api.environment["TRAINER_EVENT_BUS_NAME"] == stores.event_bus_name
    assert api.environment["TRAINER_MODEL"] == "claude-haiku-5-5"
    assert api.environment["TRAINER_MAIN_EFFORT"] == "medium"
    assert api.environment["TRAINER_ANTHROPIC_KEY_PARAMETER"] == "/trainer/dev/anthropic-api-key"
    assert api.environment["TRAINER_JWT_AUDIENCE"] == "trainer-mobile"
    assert api.environment["POWERTOOLS_METRICS_NAMESPACE"] == "Trainer"
    assert "TRAINER_JWKS_URL" not in api.environment, "no default and no local value: left unset"
    assert "TRAINER_JWT_SECRET" not in api.environment
    assert not api.uses_web_adapter

    local = load_function(
        TEMPLATE,
        "ApiFunction",
        local_parameters=local_parameters(identity),
        parameter_overrides={"JwtIssuer": "https://issuer.example"},
    )
    assert local.environment["TRAINER_JWKS_URL"] == identity.jwks_url, "the local value of a required one"
    assert local.environment["TRAINER_JWT_ISSUER"] == "https://issuer.example", "an override wins"

    stream = load_function(
        TEMPLATE, "StreamFunction", parameter_overrides={"ModelId": "claude-sonnet-4-6"}, region="eu-west-1"
    )
    assert stream.uses_web_adapter and stream.timeout == 300
    assert stream.layer_arns == ("arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:27",)
    assert stream.environment["TRAINER_MODEL"] == "claude-sonnet-4-6"
    assert stream.environment["AWS_LWA_READINESS_CHECK_PROTOCOL"] == "tcp"


def test_only_the_local_providers_tokens_pass_as_deployed(
    stores: LocalStores, samples: str, identity: LocalIdentityProvider
) -> None:
    """The API function runs with the template's JWKS settings (its RS256 token passing is the sample
    event's job above): a token signed by another key, or with the public development secret, is
    refused."""
    listed = load_event(EVENTS / "api-list-sessions-with-token.json")
    with LocalIdentityProvider() as stranger:
        foreign = stranger.token(samples, issuer=identity.issuer, audience="trainer-mobile")
    dev_secret = mint_dev_token(LOCAL_JWT_SECRET, samples, issuer=identity.issuer, audience="trainer-mobile")
    for token in (foreign, dev_secret):
        event = json.loads(json.dumps(listed).replace("REPLACE_WITH_JWT", token))
        status, body = api_body(invoke("ApiFunction", event, stores, identity=identity)[0])
        assert (status, body["error"]["code"]) == (401, "invalid_token")


def test_parameter_overrides_reach_the_function(
    stores: LocalStores, samples: str, identity: LocalIdentityProvider
) -> None:
    event = load_event(EVENTS / "api-list-sessions-with-token.json")
    overrides = {"JwtIssuer": "https://issuer.example", "JwtAudience": "trainer-app"}
    result, _ = invoke(
        "ApiFunction", event, stores, identity=identity, user_id=samples, parameter_overrides=overrides
    )
    status, _ = api_body(result)
    assert status == 200, "the token is minted with the function's issuer and audience"

    untouched = load_event(EVENTS / "api-list-sessions-with-token.json")
    status, body = api_body(invoke("ApiFunction", untouched, stores, identity=identity, user_id=None)[0])
    assert (status, body["error"]["code"]) == (401, "invalid_token"), "no user: the placeholder stays"


def test_a_token_is_made_only_with_a_key_the_function_trusts(identity: LocalIdentityProvider) -> None:
    ours = {"TRAINER_JWKS_URL": identity.jwks_url, "TRAINER_JWT_AUDIENCE": "trainer-mobile"}
    claims = jwt.decode(
        bearer_token(ours, SAMPLE_USER_ID, identity) or "", options={"verify_signature": False}
    )
    assert (claims["sub"], claims["iss"], claims["aud"]) == (
        SAMPLE_USER_ID,
        identity.issuer,
        "trainer-mobile",
    )
    elsewhere = {"TRAINER_JWKS_URL": "https://idp.example/.well-known/jwks.json"}
    assert bearer_token(elsewhere, SAMPLE_USER_ID, identity) is None, "another provider's keys"
    assert bearer_token({}, SAMPLE_USER_ID, identity) is None, "no keys and no secret: nothing to sign with"
    own_secret = {"TRAINER_JWT_SECRET": "a-secret-given-with---env-vars-0123456789"}
    token = bearer_token(own_secret, SAMPLE_USER_ID, identity) or ""
    assert jwt.decode(token, own_secret["TRAINER_JWT_SECRET"], algorithms=["HS256"])["sub"] == SAMPLE_USER_ID


# ---------------------------------------------------------------- the code: the source tree or a build

ECHO_HANDLER = """\
import importlib.util, os, sys, time
import shipped

def handler(event, context):
    time.sleep(event.get("sleep", 0))
    return {
        "shipped": shipped.__file__,
        "sys_path": sys.path,
        "environment": dict(os.environ),
        "virtualenv_importable": importlib.util.find_spec("pydantic") is not None,
        "remaining_ms": context.get_remaining_time_in_millis(),
    }
"""

ECHO_TEMPLATE = """\
Parameters:
  JwksUrl:
    Type: String
  JwtAudience:
    Type: String
    Default: trainer-mobile
Resources:
  CoreLayer:
    Type: AWS::Serverless::LayerVersion
    Properties:
      ContentUri: {layer}
  EchoFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: {code}
      Handler: app.handler
      Runtime: python3.12
      Timeout: 1
      Layers:
        - !Ref CoreLayer
      Environment:
        Variables:
          TRAINER_JWKS_URL: !Ref JwksUrl
          TRAINER_JWT_AUDIENCE: !Ref JwtAudience
"""


def echo_project(root: Path, *, built: bool) -> Path:
    """A template with one function whose handler reports what it sees; the layer holds `shipped`,
    laid out as the source tree or as `sam build` lays it out (under python/)."""
    layer, code = ("CoreLayer", "EchoFunction") if built else ("layers/core", "functions/echo")
    package = root / layer / ("python" if built else "") / "shipped"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (root / code).mkdir(parents=True)
    (root / code / "app.py").write_text(ECHO_HANDLER)
    (root / "template.yaml").write_text(ECHO_TEMPLATE.format(layer=layer, code=code))
    return root / "template.yaml"


@pytest.mark.parametrize("built", [False, True], ids=["source", "built"])
def test_the_function_runs_in_a_process_of_its_own_with_only_the_template_environment(
    built: bool,
    tmp_path: Path,
    stores: LocalStores,
    identity: LocalIdentityProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    template = echo_project(tmp_path, built=built)
    monkeypatch.setenv("TRAINER_JWT_SECRET", "a-secret-of-the-callers-shell")
    result, _ = invoke("EchoFunction", {}, stores, template=template, identity=identity)

    assert result.ok, result.error
    seen = result.response
    layer = tmp_path / ("CoreLayer/python" if built else "layers/core")
    code = tmp_path / ("EchoFunction" if built else "functions/echo")
    assert seen["shipped"] == str(layer / "shipped" / "__init__.py"), "imported from the layer"
    assert seen["sys_path"][:2] == [str(code), str(layer)], "/var/task, then /opt/python"
    assert seen["virtualenv_importable"] is not built, "a built layer runs without the virtualenv"
    environment = seen["environment"]
    assert environment["TRAINER_JWKS_URL"] == identity.jwks_url
    assert environment["TRAINER_JWT_AUDIENCE"] == "trainer-mobile"
    assert environment["AWS_LAMBDA_FUNCTION_NAME"] == "EchoFunction"
    assert environment["LAMBDA_TASK_ROOT"] == str(code)
    assert "TRAINER_JWT_SECRET" not in environment, "neither the shell's nor a made-up secret"
    assert 0 < seen["remaining_ms"] <= 1000


def test_without_a_key_the_function_trusts_the_placeholder_stays_and_is_noted(
    tmp_path: Path, stores: LocalStores, identity: LocalIdentityProvider
) -> None:
    template = echo_project(tmp_path, built=False)
    elsewhere = {"JwksUrl": "https://idp.example/.well-known/jwks.json"}
    event = {"headers": {"Authorization": "Bearer REPLACE_WITH_JWT"}}
    result, _ = invoke(
        "EchoFunction",
        event,
        stores,
        template=template,
        identity=identity,
        user_id=SAMPLE_USER_ID,
        parameter_overrides=elsewhere,
    )
    assert result.ok, result.error
    assert result.notes == [
        "REPLACE_WITH_JWT left in place: EchoFunction trusts no key at hand"
        " (TRAINER_JWKS_URL='https://idp.example/.well-known/jwks.json')"
    ]


def test_a_function_past_its_timeout_is_stopped(tmp_path: Path, stores: LocalStores) -> None:
    template = echo_project(tmp_path, built=False)
    started = time.monotonic()
    result, _ = invoke("EchoFunction", {"sleep": 60}, stores, template=template, init_seconds=2)
    assert result.error is not None and result.error["errorType"] == "Sandbox.Timedout"
    assert time.monotonic() - started < 30


def test_the_build_is_run_when_there_is_one(tmp_path: Path) -> None:
    template = echo_project(tmp_path, built=False)
    source = code_source(template)
    assert (source.template, source.built) == (template, False)
    assert "make build" in source.note

    build = tmp_path / ".aws-sam" / "build"
    build.mkdir(parents=True)
    built_template = echo_project(build, built=True)
    chosen = code_source(template)
    assert (chosen.template, chosen.built) == (built_template, True)
    assert "warning" not in chosen.note
    assert code_source(template, "source").built is False

    (tmp_path / "functions" / "echo" / "app.py").touch()
    later = built_template.stat().st_mtime + 10
    os.utime(tmp_path / "functions" / "echo" / "app.py", (later, later))
    assert "warning: functions/echo/app.py changed since that build" in code_source(template).note

    with pytest.raises(InvokeError, match="make build"):
        code_source(template, "built", tmp_path / "no-build")


# ---------------------------------------------------------------- the command line


@pytest.fixture
def cli_environment(stores: LocalStores, monkeypatch: pytest.MonkeyPatch) -> None:
    """DATABASE_URL and AWS_ENDPOINT_URL set: `trainer invoke` uses these stores, starts none."""
    for name, value in {
        "DATABASE_URL": stores.database_url,
        "AWS_ENDPOINT_URL": stores.aws_endpoint_url,
        "TRAINER_TABLE_NAME": stores.table_name,
        "TRAINER_IDEMPOTENCY_TABLE_NAME": stores.idempotency_table_name,
        "TRAINER_EVENT_BUS_NAME": stores.event_bus_name,
    }.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()


@pytest.mark.usefixtures("cli_environment")
def test_cli_seeds_the_samples_prints_the_response_and_sends_logs_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    event = EVENTS / "api-list-sessions-with-token.json"
    code = main(["invoke", "ApiFunction", "-e", str(event), "--code", "source"])

    out, err = capsys.readouterr()
    assert code == 0
    response = json.loads(out)
    assert response["statusCode"] == 200, response
    assert [s["id"] for s in json.loads(response["body"])["sessions"]] == [SAMPLE_SESSION_ID]
    assert "code: the source tree (--code source)" in err
    assert f"sample data seeded (user {SAMPLE_USER_ID}" in err
    assert '"function_name":"ApiFunction"' in err


@pytest.mark.usefixtures("cli_environment")
def test_cli_streams_the_stream_function_body(user: str, capsys: pytest.CaptureFixture[str]) -> None:
    event = EVENTS / "stream-chat.json"
    code = main(["invoke", "StreamFunction", "-e", str(event), "--user", user, "--code", "source"])

    out, err = capsys.readouterr()
    assert code == 0
    frames = sse_frames(out.encode())
    assert frames[-1]["type"] == "done" and frames[-1]["sessionId"]
    assert "HTTP 200 text/event-stream" in err
    turn_record = [
        json.loads(line) for line in err.splitlines() if line.startswith('{"_aws"') and '"Turns"' in line
    ]
    assert turn_record and turn_record[0]["session_id"] == frames[-1]["sessionId"], "per-turn EMF on stderr"


@pytest.mark.usefixtures("cli_environment")
def test_cli_says_it_runs_the_source_without_a_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = EVENTS / "migrate.json"
    code = main(["invoke", "MigrateFunction", "-e", str(event), "--build-dir", str(tmp_path), "--no-seed"])

    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out) == {"applied": []}
    assert f"code: the source tree (layers/core, functions/); no build in {tmp_path}" in err
    assert "sample data seeded" not in err


@pytest.mark.usefixtures("cli_environment")
def test_cli_refuses_an_unknown_function(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["invoke", "NoSuchFunction", "--code", "source"]) == 2
    assert "ApiFunction" in capsys.readouterr().err
