"""The Lambda handlers' observability, end to end: functions/api/app.py invoked with the sample API
Gateway chat event (through trainer_dev.local.invoke, in a process of its own, on moto and embedded
Postgres) writes the turn's EMF records and, with tracing on as in Lambda, X-Ray segments (sent over
UDP to a stand-in for the X-Ray daemon); the job functions flush their own metrics."""

from __future__ import annotations

import io
import json
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from trainer_dev.local.identity import LocalIdentityProvider
from trainer_dev.local.invoke import InvokeResult, LocalStores, invoke_function, load_event

from tests.integration.dev.test_invoke import identity, samples, stores  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "template.yaml"
EVENTS = ROOT / "events"


class XRayDaemon:
    """A UDP socket on loopback where the X-Ray daemon would listen (AWS_XRAY_DAEMON_ADDRESS): keeps
    the entities the SDK sends, each datagram a JSON header line and the entity."""

    def __init__(self) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.address = f"127.0.0.1:{self.socket.getsockname()[1]}"

    def entities(self) -> list[dict[str, Any]]:
        received: list[dict[str, Any]] = []
        while True:
            try:
                datagram = self.socket.recv(65536)
            except TimeoutError:
                return received
            _, _, entity = datagram.decode().partition("\n")
            received.append(json.loads(entity))


@pytest.fixture
def xray() -> Iterator[XRayDaemon]:
    daemon = XRayDaemon()
    try:
        yield daemon
    finally:
        daemon.socket.close()


def emf(logs: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in logs.splitlines() if line.startswith('{"_aws"')]


def invoke(
    logical_id: str, event: dict[str, Any], local: LocalStores, **options: Any
) -> tuple[InvokeResult, str]:
    logs = io.StringIO()
    result = invoke_function(TEMPLATE, logical_id, event, stores=local, logs=logs, **options)
    assert result.ok, result.error
    return result, logs.getvalue()


def subsegments(entities: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for entity in entities:
        yield entity
        yield from subsegments(entity.get("subsegments", []))


def test_the_api_handler_writes_turn_metrics_and_a_trace(
    stores: LocalStores,  # noqa: F811
    samples: str,  # noqa: F811
    identity: LocalIdentityProvider,  # noqa: F811
    xray: XRayDaemon,
) -> None:
    root = f"1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]}"
    tracing_on = {
        "AWS_SAM_LOCAL": "",  # trainer invoke, like sam local, turns the Tracer off; Lambda does not
        "POWERTOOLS_TRACE_DISABLED": "false",
        "AWS_XRAY_DAEMON_ADDRESS": xray.address,
        "_X_AMZN_TRACE_ID": f"Root={root};Parent={uuid.uuid4().hex[:16]};Sampled=1",
    }
    event = load_event(EVENTS / "api-chat.json")
    event["body"] = json.dumps({"message": "Give me a quick chest workout"})

    result, logs = invoke(
        "ApiFunction", event, stores, identity=identity, user_id=samples, env_overrides=tracing_on
    )

    body = json.loads(result.response["body"])
    assert result.response["statusCode"] == 200, body
    records = emf(logs)
    (turn,) = [r for r in records if "Turns" in r]
    assert (turn["session_id"], turn["service"], turn["model"]) == (
        body["sessionId"],
        "trainer",
        "claude-haiku-5-5",
    )
    assert turn["Turns"] == [1.0] and turn["Iterations"] == [float(body["iterations"])]
    assert turn["InputTokens"][0] > 0 and turn["TurnDuration"][0] > 0
    assert turn["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Trainer"
    tools = {r["tool"]: r for r in records if "tool" in r}
    assert set(tools) == {a["tool"] for a in body["actions"]}
    assert tools["generate_workout"]["ToolCalls"] == [1.0]
    assert tools["generate_workout"]["ToolFailures"] == [0.0]

    traced = list(subsegments(xray.entities()))
    assert {e["trace_id"] for e in traced} == {root}
    (handler,) = [e for e in traced if e["name"] == "## handler"]
    assert handler["annotations"] == {"ColdStart": True, "Service": "trainer"}
    dynamodb = [e for e in traced if e["name"] == "dynamodb" and e.get("namespace") == "aws"]
    assert dynamodb, "AWS SDK calls are subsegments"
    assert {e["aws"]["operation"] for e in dynamodb} >= {"PutItem", "Query"}
    (log,) = [json.loads(line) for line in logs.splitlines() if '"main agent model' in line]
    assert log["xray_trace_id"] == root
    assert log["correlation_id"] == event["requestContext"]["requestId"]
    assert log["function_request_id"] == result.request_id


def test_without_lambda_tracing_nothing_is_sent(stores: LocalStores, xray: XRayDaemon) -> None:  # noqa: F811
    # A deployed ApiFunction starts only with token settings of its own (trainer.settings).
    daemon = {"AWS_XRAY_DAEMON_ADDRESS": xray.address, "TRAINER_JWT_SECRET": "observability-test-" + "0" * 32}
    invoke("ApiFunction", load_event(EVENTS / "api-health.json"), stores, env_overrides=daemon)
    assert xray.entities() == [], "trainer invoke (AWS_SAM_LOCAL) keeps the Tracer off, as sam local does"


def test_job_functions_flush_their_metrics(stores: LocalStores, samples: str) -> None:  # noqa: F811
    _, logs = invoke("CostFunction", load_event(EVENTS / "costs-turn-completed.json"), stores)
    (record,) = emf(logs)
    assert (record["TurnsAggregated"], record["AggregatedLLMCalls"]) == ([1.0], [2.0])
    assert record["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]]

    _, logs = invoke("CheckpointFunction", load_event(EVENTS / "checkpoint-turn-completed.json"), stores)
    (record,) = emf(logs)
    assert record["CheckpointsWritten"] == [1.0]
