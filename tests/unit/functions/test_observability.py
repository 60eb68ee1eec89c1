"""trainer.observability: the per-turn EMF records (read back from the EMF lines Powertools prints),
the shared buffer's flushes, the request middleware's log keys and flush, and the settings and
template values the Logger and Metrics are built from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.metrics import MetricUnit
from starlette.types import Message
from trainer import observability
from trainer.api.logging import CorrelationIdMiddleware, correlation_keys
from trainer.observability import (
    METRICS_NAMESPACE,
    SERVICE_NAME,
    TurnMetrics,
    cache_hit_rate,
    default_turn_hooks,
    flush_request_metrics,
    metrics,
    tool_counts,
)
from trainer.settings import Settings
from trainer.store.dynamo_tables import parse_template
from trainer.store.models import Session

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Summary:
    """A TurnSummary (trainer.chat.ports) as the loop reports it."""

    status: str = "completed"
    iterations: int = 3
    model: str = "claude-haiku-4-5"
    usage: dict[str, int] = field(
        default_factory=lambda: {
            "input_tokens": 1200,
            "output_tokens": 310,
            "cache_creation_input_tokens": 5200,
            "cache_read_input_tokens": 9800,
        }
    )
    cost_cents: float = 1.02
    duration_ms: int = 2345
    tool_calls: list[tuple[str, bool]] = field(
        default_factory=lambda: [
            ("generate_workout", True),
            ("swap_exercise", False),
            ("generate_workout", True),
        ]
    )
    model_errors: int = 1
    degraded: bool = False
    model_ms: int = 2000
    dynamodb_requests: int = 11
    sql_queries: int = 7


def session(session_id: str = "s-1") -> Session:
    now = datetime.now(UTC)
    return Session(id=session_id, user_id="u-1", created_at=now, updated_at=now)


def emf_lines(text: str) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in text.splitlines() if line.startswith('{"_aws"')]
    return records


def dimensions(record: dict[str, Any]) -> list[list[str]]:
    (directive,) = record["_aws"]["CloudWatchMetrics"]
    return [sorted(d) for d in directive["Dimensions"]]


def metric_names(record: dict[str, Any]) -> set[str]:
    (directive,) = record["_aws"]["CloudWatchMetrics"]
    return {m["Name"] for m in directive["Metrics"]}


def units(record: dict[str, Any]) -> dict[str, str]:
    (directive,) = record["_aws"]["CloudWatchMetrics"]
    return {m["Name"]: m["Unit"] for m in directive["Metrics"]}


@pytest.fixture(autouse=True)
def metrics_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)
    metrics.clear_metrics()
    yield
    metrics.clear_metrics()


async def test_a_turn_writes_its_figures_with_service_and_model(capsys: pytest.CaptureFixture[str]) -> None:
    await TurnMetrics().on_turn_end(session("s-42"), Summary())

    turn, *_ = emf_lines(capsys.readouterr().out)
    assert turn["_aws"]["CloudWatchMetrics"][0]["Namespace"] == METRICS_NAMESPACE
    assert dimensions(turn) == [["model", "service"]]
    assert (turn["service"], turn["model"]) == ("trainer", "claude-haiku-4-5")
    figures = {name: turn[name] for name in metric_names(turn)}
    assert figures == {
        "Turns": [1.0],
        "FailedTurns": [0.0],
        "Iterations": [3.0],
        "InputTokens": [1200.0],
        "CacheWriteTokens": [5200.0],
        "CachedInputTokens": [9800.0],
        "OutputTokens": [310.0],
        "CostCents": [1.02],
        "CacheHitRate": [round(9800 / (1200 + 5200 + 9800) * 100, 2)],
        "TurnDuration": [2345.0],
        "ModelErrors": [1.0],
        "DegradedTurns": [0.0],
        "ModelWait": [2000.0],
        "BackendTime": [345.0],
        "DynamoDBRequests": [11.0],
        "SqlQueries": [7.0],
    }
    assert units(turn)["TurnDuration"] == "Milliseconds"
    assert units(turn)["CacheHitRate"] == "Percent"
    assert units(turn)["Turns"] == "Count"
    assert (turn["session_id"], turn["status"]) == ("s-42", "completed"), "metadata, not dimensions"


async def test_tool_calls_and_failures_are_counted_per_tool(capsys: pytest.CaptureFixture[str]) -> None:
    await TurnMetrics().on_turn_end(session(), Summary())

    _, *tools = emf_lines(capsys.readouterr().out)
    assert [dimensions(t) for t in tools] == [[["service", "tool"]], [["service", "tool"]]]
    counted = {t["tool"]: (t["ToolCalls"], t["ToolFailures"]) for t in tools}
    assert counted == {"generate_workout": ([2.0], [0.0]), "swap_exercise": ([1.0], [1.0])}
    assert all("model" not in t for t in tools), "tool records carry no model dimension"


async def test_a_failed_turn_without_model_output(capsys: pytest.CaptureFixture[str]) -> None:
    failed = Summary(status="error", iterations=0, usage={}, cost_cents=0.0, tool_calls=[], model_errors=2)
    await TurnMetrics().on_turn_end(session(), failed)

    (turn,) = emf_lines(capsys.readouterr().out)
    assert turn["FailedTurns"] == [1.0]
    assert turn["ModelErrors"] == [2.0]
    assert turn["InputTokens"] == [0.0]
    assert "CacheHitRate" not in metric_names(turn), (
        "no input sent: no rate rather than a 0 that drags averages"
    )


async def test_a_turn_the_fallback_model_answered_is_counted_as_degraded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    await TurnMetrics().on_turn_end(session(), Summary(degraded=True))

    turn, *_ = emf_lines(capsys.readouterr().out)
    assert (turn["DegradedTurns"], turn["FailedTurns"]) == ([1.0], [0.0])


async def test_turns_stay_apart_and_leave_the_shared_buffer_alone(capsys: pytest.CaptureFixture[str]) -> None:
    metrics.add_metric(name="Unrelated", unit=MetricUnit.Count, value=1)
    await TurnMetrics().on_turn_end(session("a"), Summary(model="claude-haiku-4-5"))
    await TurnMetrics().on_turn_end(session("b"), Summary(model="claude-sonnet-4-6"))

    records = [r for r in emf_lines(capsys.readouterr().out) if "Turns" in r]
    assert [(r["model"], r["session_id"]) for r in records] == [
        ("claude-haiku-4-5", "a"),
        ("claude-sonnet-4-6", "b"),
    ]
    assert set(metrics.metric_set) == {"Unrelated"}


async def test_disabled_metrics_write_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    await TurnMetrics().on_turn_end(session(), Summary())
    metrics.add_metric(name="Unrelated", unit=MetricUnit.Count, value=1)
    flush_request_metrics()

    assert emf_lines(capsys.readouterr().out) == []
    assert not metrics.metric_set, "a disabled flush still empties the buffer"


def test_request_flush_writes_the_shared_buffer_once(capsys: pytest.CaptureFixture[str]) -> None:
    metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
    flush_request_metrics()
    flush_request_metrics()

    (record,) = emf_lines(capsys.readouterr().out)
    assert record["Requests"] == [1.0, 1.0]
    assert dimensions(record) == [["service"]]


def test_an_empty_flush_is_silent(capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flush_request_metrics()
        metrics.flush_metrics()
    assert capsys.readouterr().out == ""


def test_cache_hit_rate_and_tool_counts() -> None:
    assert (
        cache_hit_rate(
            {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 300}
        )
        == 75
    )
    assert (
        cache_hit_rate({"input_tokens": 50, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 0})
        == 0
    )
    assert cache_hit_rate({}) is None
    assert tool_counts([("a", True), ("b", False), ("a", False)]) == {"a": (2, 1), "b": (1, 1)}


def test_every_turn_gets_the_metrics_hook() -> None:
    (hook,) = default_turn_hooks(Settings())
    assert isinstance(hook, TurnMetrics)


# ---------------------------------------------------------------- the request middleware


async def _call(scope: dict[str, Any], app: Any) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await CorrelationIdMiddleware(app)(scope, receive, send)
    return sent


async def _app_recording_a_metric(scope: Any, receive: Any, send: Any) -> None:
    observability.logger.info("inside the request")
    metrics.add_metric(name="RouteHits", unit=MetricUnit.Count, value=1)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _scope(headers: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "path": "/health",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        **extra,
    }


LWA_CONTEXT = {
    "request_id": "lwa-req-1",
    "deadline": 1,
    "invoked_function_arn": "arn:aws:lambda:us-east-1:123456789012:function:trainer-stream",
    "xray_trace_id": "Root=1-65a0b0c0-0123456789abcdef01234567;Parent=1111111111111111;Sampled=1",
    "env_config": {"function_name": "trainer-stream", "memory": 1024, "version": "$LATEST"},
}


def test_the_adapter_context_becomes_the_lambda_log_keys() -> None:
    keys = correlation_keys(
        _scope(
            {
                "x-amzn-lambda-context": json.dumps(LWA_CONTEXT),
                "x-amzn-request-context": json.dumps({"requestId": "apigw-7"}),
            }
        )
    )
    assert keys == {
        "function_name": "trainer-stream",
        "function_memory_size": 1024,
        "function_arn": LWA_CONTEXT["invoked_function_arn"],
        "function_request_id": "lwa-req-1",
        "lambda_request_id": "lwa-req-1",
        "xray_trace_id": "1-65a0b0c0-0123456789abcdef01234567",
        "correlation_id": "apigw-7",
    }
    fallback = correlation_keys(
        _scope({"x-amzn-trace-id": "Root=1-abc", "x-amzn-lambda-context": "not json"})
    )
    assert fallback["xray_trace_id"] == "1-abc"
    assert set(fallback) == {"xray_trace_id", "correlation_id"} and len(fallback["correlation_id"]) == 32


async def test_outside_lambda_the_middleware_flushes_after_the_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sent = await _call(_scope({"x-amzn-lambda-context": json.dumps(LWA_CONTEXT)}), _app_recording_a_metric)

    assert sent[0]["headers"] == [(b"x-request-id", b"lwa-req-1")]
    out = capsys.readouterr().out
    (record,) = emf_lines(out)
    assert record["RouteHits"] == [1.0]
    (log,) = [json.loads(line) for line in out.splitlines() if '"inside the request"' in line]
    assert (log["function_name"], log["function_request_id"]) == ("trainer-stream", "lwa-req-1")
    assert log["xray_trace_id"] == "1-65a0b0c0-0123456789abcdef01234567"
    assert not metrics.metric_set


async def test_under_mangum_the_handler_decorator_flushes_not_the_middleware(
    capsys: pytest.CaptureFixture[str],
) -> None:
    await _call(_scope({}, **{"aws.context": object(), "aws.event": {}}), _app_recording_a_metric)

    assert emf_lines(capsys.readouterr().out) == []
    assert set(metrics.metric_set) == {"RouteHits"}, (
        "left for @metrics.log_metrics at the end of the invocation"
    )


# ---------------------------------------------------------------- configuration


def test_service_and_namespace_match_the_template() -> None:
    template = parse_template((ROOT / "template.yaml").read_text())
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["POWERTOOLS_SERVICE_NAME"] == SERVICE_NAME
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == METRICS_NAMESPACE
    assert metrics.namespace == METRICS_NAMESPACE
    assert observability.logger.service == SERVICE_NAME


def test_log_level_and_namespace_come_from_the_environment_of_the_function() -> None:
    code = (
        "import json, logging; from trainer import observability as o; "
        "print(json.dumps([logging.getLevelName(o.logger.log_level), o.metrics.namespace]))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "layers" / "core"),
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "POWERTOOLS_METRICS_NAMESPACE": "TrainerStaging",
    }
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["WARNING", "TrainerStaging"]


def test_a_handler_called_without_a_lambda_context_still_runs() -> None:
    @observability.logger.inject_lambda_context(clear_state=True)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return {"event": event, "context": context}

    assert handler({"a": 1}, None) == {"event": {"a": 1}, "context": None}


def test_the_tracer_is_built_on_first_use_only() -> None:
    code = (
        "import sys; sys.path[:0] = ['.']; import functions.api.app as handler_module; "
        "before = 'aws_xray_sdk.core' in sys.modules; handler_module.tracer.get(); "
        "print(before, 'aws_xray_sdk.core' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "core")}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "True"], "importing a handler module does not load the X-Ray SDK"
