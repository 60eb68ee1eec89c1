"""`trainer invoke`: every function of template.yaml with every sample event in events/ that targets it,
through trainer.local.invoke (what the command runs), on moto and embedded Postgres; then a turn's
TurnCompleted carried from the API function to the checkpoint and cost functions, the migrate
function on a fresh database, and the command line itself."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import uuid
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import psycopg
import pytest
from trainer.cli import main
from trainer.local.invoke import (
    InvokeResult,
    LocalStores,
    invoke_function,
    load_event,
    load_function,
    template_functions,
)
from trainer.settings import Settings, get_settings
from trainer.store.dynamo_tables import aws_client
from trainer.store.metrics import DailyMetricsStore
from trainer.store.migrate import load_migrations
from trainer.store.sessions import DynamoSessionTable

ROOT = Path(__file__).resolve().parents[2]
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
    from trainer.local.seed import seed_demo_user
    from trainer.store.db import Database

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
def turn_queue(aws_settings: Settings) -> Callable[[], list[dict[str, Any]]]:
    """An EventBridge rule on the bus sending TurnCompleted to SQS (moto cannot invoke Lambda
    targets); returns a reader of the envelopes delivered so far."""
    sqs = aws_client("sqs", aws_settings)
    events = aws_client("events", aws_settings)
    queue_url = sqs.create_queue(QueueName=f"{aws_settings.event_bus_name}-turns")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    events.put_rule(
        Name="turn-completed",
        EventBusName=aws_settings.event_bus_name,
        EventPattern=json.dumps({"source": ["trainer.agent"], "detail-type": ["TurnCompleted"]}),
    )
    events.put_targets(
        Rule="turn-completed",
        EventBusName=aws_settings.event_bus_name,
        Targets=[{"Id": "q", "Arn": queue_arn}],
    )

    def read() -> list[dict[str, Any]]:
        response = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=1, MaxNumberOfMessages=10)
        return [json.loads(m["Body"]) for m in response.get("Messages", [])]

    return read


def invoke(
    logical_id: str, event: dict[str, Any], stores: LocalStores, **options: Any
) -> tuple[InvokeResult, str]:
    logs = io.StringIO()
    result = invoke_function(TEMPLATE, logical_id, event, stores=stores, logs=logs, **options)
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


# ---------------------------------------------------------------- every sample event


def expect_api_health(result: InvokeResult, **_: Any) -> None:
    status, body = api_body(result)
    assert status == 200
    assert body["status"] == "ok"
    assert body["stores"] == {"sessions": True, "database": True}


def expect_api_list_sessions_no_token(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    status, body = api_body(result)
    assert (status, body["error"]["code"]) == (401, "missing_token")
    assert result.response["headers"]["x-request-id"] == event["requestContext"]["requestId"]


def expect_api_list_sessions_with_token(result: InvokeResult, **_: Any) -> None:
    status, body = api_body(result)
    assert (status, body) == (200, {"sessions": []}), "a new user, authenticated, has no sessions yet"


def expect_api_chat(result: InvokeResult, turns: list[dict[str, Any]], user: str, **_: Any) -> None:
    status, body = api_body(result)
    assert status == 200, body
    assert body["status"] == "completed"
    assert body["response"]["messages"] and body["response"]["exercises"], "a workout was composed"
    assert "generate_workout" in [a["tool"] for a in body["actions"]]
    (turn,) = turns
    assert turn["detail"]["session_id"] == body["sessionId"]
    assert turn["detail"]["user_id"] == user


def expect_stream_chat(result: InvokeResult, turns: list[dict[str, Any]], **_: Any) -> None:
    assert result.ok, result.error
    assert result.status == 200
    assert result.headers["content-type"].startswith("text/event-stream")
    frames = sse_frames(result.body)
    assert frames[-1]["type"] == "done"
    assert [f for f in frames if f["type"] == "message_notify_user" and f.get("status") == "done"]
    (turn,) = turns
    assert turn["detail"]["session_id"] == frames[-1]["sessionId"]
    assert turn["detail"]["status"] == "completed"


def expect_checkpoint_turn_completed(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    assert result.ok, result.error
    assert result.response == {
        "session_id": event["detail"]["session_id"],
        "checkpointed": False,
        "reason": "session_not_found",
    }, "the sample's session does not exist here; the pipeline test checkpoints a real one"


def expect_costs_turn_completed(
    result: InvokeResult, event: dict[str, Any], settings: Settings, **_: Any
) -> None:
    assert result.ok, result.error
    usage = event["detail"]["usage"]
    prompt = usage["input_tokens"] + usage["cache_creation_input_tokens"]
    assert result.response["session_counted"] is False
    assert result.response["llm_calls"] == 0, "no events for the sample's session: its usage is what counts"
    assert result.response["prompt_tokens"] == prompt
    assert result.response["cached_tokens"] == usage["cache_read_input_tokens"]
    assert (
        result.response["total_tokens"] == prompt + usage["cache_read_input_tokens"] + usage["output_tokens"]
    )
    assert result.response["cost_cents"] == event["detail"]["cost_cents"]
    day = date.fromisoformat(result.response["day"])
    daily = DailyMetricsStore(settings).get(event["detail"]["user_id"], day)
    assert daily["turns"] == 1
    assert daily["cached_tokens"] == usage["cache_read_input_tokens"]


def expect_migrate(result: InvokeResult, **_: Any) -> None:
    assert result.ok, result.error
    assert result.response == {"applied": []}, "the test database is migrated already"


def expect_plans_plan_requested(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    assert result.ok, result.error
    assert result.response["plan_id"] == event["detail"]["plan_id"]
    assert result.response["status"] == "not_found", "the sample's plan does not exist here"


def expect_microcycle_week_due(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    assert result.ok, result.error
    assert result.response["week_number"] == event["detail"]["week_number"]
    assert (result.response["built"], result.response["reason"]) == (False, "not_found")


def expect_scheduler_run(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    assert result.ok, result.error
    assert result.response["run"] == event["run"]
    assert result.response["at"].startswith(event["at"].removesuffix("Z"))
    counts = {k: v for k, v in result.response.items() if k not in ("run", "at")}
    expected = (
        {"week_due", "plans_requeued"}
        if event["run"] == "hourly"
        else {"workout_ready", "deliveries_republished"}
    )
    assert set(counts) == expected and all(isinstance(v, int) and v >= 0 for v in counts.values())


def expect_notifier_workout_ready(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    assert result.ok, result.error
    assert result.response["user_id"] == event["detail"]["user_id"]
    assert (result.response["outcome"], result.response["reason"]) == ("skipped", "unknown_user"), (
        "the sample's user does not exist here: nothing is sent or recorded"
    )


def expect_notifier_endpoints_retired(result: InvokeResult, event: dict[str, Any], **_: Any) -> None:
    assert result.ok, result.error
    assert result.response["retired"] == len(event["detail"]["endpoint_arns"])


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
    "scheduler-hourly.json": expect_scheduler_run,
    "scheduler-daily.json": expect_scheduler_run,
    "notifier-workout-ready.json": expect_notifier_workout_ready,
    "notifier-endpoints-retired.json": expect_notifier_endpoints_retired,
    "push-apps-create.json": expect_push_apps_create,
}


def test_every_function_has_sample_events_and_every_event_an_expectation() -> None:
    names = {p.name for p in EVENTS.glob("*.json")}
    assert names == set(EXPECTATIONS), "an event in events/ without an expectation here (or the reverse)"
    assert {function_for(name) for name in names} == set(template_functions(TEMPLATE))


@pytest.mark.parametrize("event_name", sorted(EXPECTATIONS))
def test_sample_event(
    event_name: str,
    stores: LocalStores,
    user: str,
    aws_settings: Settings,
    turn_queue: Callable[[], list[dict[str, Any]]],
) -> None:
    event = load_event(EVENTS / event_name)
    result, logs = invoke(function_for(event_name), event, stores, user_id=user)

    EXPECTATIONS[event_name](result, event=event, user=user, settings=aws_settings, turns=turn_queue())
    for line in (line for line in logs.splitlines() if line.startswith('{"level"')):
        assert json.loads(line).get("function_request_id") in (result.request_id, None)


def test_an_invoke_leaves_no_connection_of_the_function_open(
    stores: LocalStores, user: str, pg_url: str
) -> None:
    """The program functions keep a pool per instance; an in-process invoke closes it afterwards."""

    def connections() -> int:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert row is not None
        return int(row[0])

    before = connections()
    result, _ = invoke(
        "SchedulerFunction", load_event(EVENTS / "scheduler-hourly.json"), stores, user_id=user
    )
    assert result.error is None
    assert connections() == before


# ---------------------------------------------------------------- a turn through the pipeline


def test_a_turn_goes_from_the_api_to_the_checkpoint_and_cost_functions(
    stores: LocalStores,
    user: str,
    aws_settings: Settings,
    turn_queue: Callable[[], list[dict[str, Any]]],
) -> None:
    chat = load_event(EVENTS / "api-chat.json")
    chat["body"] = json.dumps({"message": "Give me a quick chest workout"})
    status, body = api_body(invoke("ApiFunction", chat, stores, user_id=user)[0])
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
    status, page = api_body(invoke("ApiFunction", listed, stores, user_id=user)[0])
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


def test_functions_are_read_from_the_template_with_local_values(stores: LocalStores) -> None:
    api = load_function(TEMPLATE, "ApiFunction", resource_names=stores.resource_names())
    assert (api.handler, api.code_dir, api.runtime) == (
        "app.handler",
        ROOT / "functions" / "api",
        "python3.12",
    )
    assert api.layer_dirs == (ROOT / "layers" / "core",)
    assert api.environment["TRAINER_TABLE_NAME"] == stores.table_name
    assert api.environment["TRAINER_EVENT_BUS_NAME"] == stores.event_bus_name
    assert api.environment["TRAINER_MODEL"] == "claude-haiku-4-5"
    assert api.environment["TRAINER_ANTHROPIC_KEY_PARAMETER"] == "/trainer/dev/anthropic-api-key"
    assert api.environment["POWERTOOLS_METRICS_NAMESPACE"] == "Trainer"
    assert "TRAINER_JWKS_URL" not in api.environment, "no default: left unset, so local HS256 tokens work"
    assert not api.uses_web_adapter

    stream = load_function(
        TEMPLATE, "StreamFunction", parameter_overrides={"ModelId": "claude-sonnet-4-6"}, region="eu-west-1"
    )
    assert stream.uses_web_adapter and stream.timeout == 300
    assert stream.layer_arns == ("arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:27",)
    assert stream.environment["TRAINER_MODEL"] == "claude-sonnet-4-6"
    assert stream.environment["AWS_LWA_READINESS_CHECK_PROTOCOL"] == "tcp"


def test_parameter_overrides_reach_the_function(stores: LocalStores, user: str) -> None:
    event = load_event(EVENTS / "api-list-sessions-with-token.json")
    overrides = {"JwtIssuer": "https://issuer.example", "JwtAudience": "trainer-app"}
    status, _ = api_body(invoke("ApiFunction", event, stores, user_id=user, parameter_overrides=overrides)[0])
    assert status == 200, "the dev token is minted with the function's issuer and audience"

    untouched = load_event(EVENTS / "api-list-sessions-with-token.json")
    status, body = api_body(invoke("ApiFunction", untouched, stores, user_id=None)[0])
    assert (status, body["error"]["code"]) == (401, "invalid_token"), "no user: the placeholder stays"


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
def test_cli_prints_the_response_and_sends_logs_to_stderr(
    user: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["invoke", "ApiFunction", "-e", str(EVENTS / "api-health.json"), "--user", user])

    out, err = capsys.readouterr()
    assert code == 0
    response = json.loads(out)
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["stores"] == {"sessions": True, "database": True}
    assert '"function_name":"ApiFunction"' in err


@pytest.mark.usefixtures("cli_environment")
def test_cli_streams_the_stream_function_body(user: str, capsys: pytest.CaptureFixture[str]) -> None:
    event = EVENTS / "stream-chat.json"
    code = main(["invoke", "StreamFunction", "-e", str(event), "--user", user])

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
def test_cli_refuses_an_unknown_function(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["invoke", "NoSuchFunction"]) == 2
    assert "ApiFunction" in capsys.readouterr().err
