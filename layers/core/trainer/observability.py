"""Logs, traces and metrics: one Powertools Logger, Tracer and Metrics for every function, and the
per-turn EMF metrics hook.

- `logger`: JSON logs under the `trainer` logger hierarchy (every `logging.getLogger(__name__)` in
  the package propagates to it), level from Settings (`POWERTOOLS_LOG_LEVEL`). It writes to whatever
  `sys.stdout` is at the time, so `trainer invoke` can move function logs to stderr and tests can
  capture them.
- `tracer`: the Powertools Tracer, built on first use (see LazyTracer): importing a handler module
  does not load the X-Ray SDK. It patches botocore only (DynamoDB, EventBridge, SSM, Secrets
  Manager calls as subsegments); Powertools turns it off outside Lambda and under `sam local` /
  `trainer invoke`.
- `metrics`: the shared Powertools buffer (namespace from the template's
  `POWERTOOLS_METRICS_NAMESPACE`, `Trainer` when unset; dimension `service`). Lambda handlers flush
  it with `@metrics.log_metrics`; under uvicorn (the stream function behind the Lambda Web Adapter,
  the local stack) the request middleware calls `flush_request_metrics()` after each request.
- `TurnMetrics`: a TurnHooks observer that writes one EMF record per turn (dimensions service +
  model) and one per tool used (service + tool) when the turn ends, in every runtime, so a turn
  that outlives its request (a detached stream turn) still reports. Each record has its own buffer,
  so concurrent turns never mix.

`POWERTOOLS_METRICS_DISABLED=true` turns every EMF line off (the local stack sets it unless it is
set already).
"""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import IO, TYPE_CHECKING, Any, cast

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

from trainer.chat.hooks import TurnHooks
from trainer.settings import FunctionSettings, Settings

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

    from trainer.chat.hooks import TurnSummary
    from trainer.store.models import Session

SERVICE_NAME = "trainer"
"""POWERTOOLS_SERVICE_NAME in template.yaml; also the root of the package's logger hierarchy."""
METRICS_NAMESPACE = "Trainer"
"""POWERTOOLS_METRICS_NAMESPACE in template.yaml; used when the variable is unset (locally)."""
TRACED_MODULES = ("botocore",)


class _CurrentStdout(io.TextIOBase):
    """A stream that writes to the `sys.stdout` of the moment (not the one at import)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


_request_trace_id: ContextVar[str | None] = ContextVar("trainer_request_trace_id", default=None)


def root_trace_id(header: str | None) -> str | None:
    """`1-5759e988-bd862e3fe1be46a994272793` from an X-Ray header `Root=1-...;Parent=...;Sampled=1`
    (the form Powertools logs as xray_trace_id)."""
    if not header:
        return None
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == "Root" and value:
            return value
    return header.strip() if header.strip().startswith("1-") else None


def bind_request_trace_id(header: str | None) -> None:
    """The trace of the request being served (and the turn it starts), for runtimes where the
    process environment has none: under the Lambda Web Adapter `_X_AMZN_TRACE_ID` is not set per
    request in the app's process, so Powertools alone would log no xray_trace_id."""
    _request_trace_id.set(root_trace_id(header))


class _Formatter(LambdaPowertoolsFormatter):
    """Powertools' JSON formatter; xray_trace_id falls back to the request's trace (see above)."""

    def _get_latest_trace_id(self) -> str | None:
        from_environment: str | None = super()._get_latest_trace_id()
        return from_environment or _request_trace_id.get()


class _Logger(Logger):
    """Powertools Logger whose `inject_lambda_context` also lets a handler be called without a Lambda
    context (`handler(event, None)` from a script or a test): the handler runs, with no context keys."""

    def inject_lambda_context(  # type: ignore[override]
        self, lambda_handler: Callable[..., Any] | None = None, **options: Any
    ) -> Any:
        if lambda_handler is None:
            return functools.partial(self.inject_lambda_context, **options)
        injected = super().inject_lambda_context(lambda_handler, **options)

        @functools.wraps(lambda_handler)
        def handler(event: Any, context: Any, *args: Any, **kwargs: Any) -> Any:
            if context is None:
                return lambda_handler(event, context, *args, **kwargs)
            return injected(event, context, *args, **kwargs)

        return handler


logger: Logger = _Logger(
    service=SERVICE_NAME,
    level=FunctionSettings().log_level,
    stream=cast(IO[str], _CurrentStdout()),
    logger_formatter=_Formatter(),
)


class _EMFProvider(AmazonCloudWatchEMFProvider):
    """Powertools' EMF provider, except that a flush with nothing recorded (most API invocations)
    writes nothing without a warning, and a flush while metrics are disabled empties the buffer
    (Powertools keeps it, and prints it anyway once it reaches 100 values)."""

    def flush_metrics(self, raise_on_empty_metrics: bool = False) -> None:
        if not self.metric_set and not raise_on_empty_metrics:
            return
        if metrics_disabled():
            self.clear_metrics()
            return
        super().flush_metrics(raise_on_empty_metrics=raise_on_empty_metrics)


metrics = Metrics(
    provider=_EMFProvider(
        # the buffers Metrics instances share, as Metrics() itself wires them
        metric_set=Metrics._metrics,
        dimension_set=Metrics._dimensions,
        metadata_set=Metrics._metadata,
        default_dimensions=Metrics._default_dimensions,
        service=SERVICE_NAME,
    )
)
if not metrics.namespace:  # POWERTOOLS_METRICS_NAMESPACE unset (locally)
    metrics.namespace = METRICS_NAMESPACE


class LazyTracer:
    """The Powertools Tracer, built when first used rather than at import.

    Building a Tracer imports the X-Ray SDK and, in Lambda, patches botocore (importing
    botocore.client). A handler decorated with `@tracer.capture_lambda_handler` builds it on its first
    invocation, which imports boto3 anyway for the container; until then importing the handler
    module costs nothing extra (bench/bench_import.py), and the ASGI app, the stream function and the
    local stack, which never trace a handler, never load the SDK. Any other attribute (put_annotation,
    capture_method...) is the real Tracer's.
    """

    def __init__(self) -> None:
        self._tracer: Tracer | None = None

    def get(self) -> Tracer:
        if self._tracer is None:
            from aws_lambda_powertools import Tracer

            self._tracer = Tracer(service=SERVICE_NAME, patch_modules=TRACED_MODULES)
        return self._tracer

    def reset(self) -> None:
        """Forget the Tracer and Powertools' cached tracing config (tests that change the tracing
        environment get a new one)."""
        from aws_lambda_powertools import Tracer

        Tracer._reset_config()
        self._tracer = None

    def capture_lambda_handler(self, lambda_handler: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Tracer.capture_lambda_handler, applied on the first invocation."""
        if lambda_handler is None:
            return functools.partial(self.capture_lambda_handler, **options)
        handler_function = lambda_handler
        traced: list[Callable[..., Any]] = []

        @functools.wraps(handler_function)
        def handler(event: Any, context: Any, *args: Any, **kwargs: Any) -> Any:
            if not traced:
                traced.append(self.get().capture_lambda_handler(handler_function, **options))
            return traced[0](event, context, *args, **kwargs)

        return handler

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


tracer = LazyTracer()


def reset_tracer() -> None:
    tracer.reset()


def metrics_disabled() -> bool:
    from aws_lambda_powertools.metrics.functions import is_metrics_disabled

    return bool(is_metrics_disabled())


def flush_request_metrics() -> None:
    """Writes what the shared buffer holds as one EMF line and empties it: the explicit flush for
    runtimes without a Lambda handler decorator (uvicorn under the Lambda Web Adapter, the local
    stack). Nothing recorded: nothing written."""
    metrics.flush_metrics()


# ---------------------------------------------------------------- per-turn metrics


def cache_hit_rate(usage: dict[str, int]) -> float | None:
    """Percent of the turn's input read from the prompt cache:
    cached / (input + cache writes + cached) * 100; None when the turn sent no input."""
    cached = int(usage.get("cache_read_input_tokens") or 0)
    seen = int(usage.get("input_tokens") or 0) + int(usage.get("cache_creation_input_tokens") or 0) + cached
    return round(cached / seen * 100, 2) if seen > 0 else None


def tool_counts(tool_calls: Sequence[tuple[str, bool]]) -> dict[str, tuple[int, int]]:
    """Tool name -> (calls, failures), in first-use order."""
    counts: dict[str, tuple[int, int]] = {}
    for name, success in tool_calls:
        calls, failures = counts.get(name, (0, 0))
        counts[name] = (calls + 1, failures + (0 if success else 1))
    return counts


def turn_metric_sets(
    summary: TurnSummary,
    *,
    session_id: str | None = None,
    namespace: str | None = None,
    service: str = SERVICE_NAME,
) -> list[EphemeralMetrics]:
    """The EMF records of one finished turn, not yet written: the turn's figures (dimensions service,
    model) first, then one record per tool it called (dimensions service, tool)."""
    namespace = namespace or metrics.namespace or METRICS_NAMESPACE
    usage = dict(summary.usage or {})
    turn = EphemeralMetrics(namespace=namespace, service=service)
    turn.add_dimension(name="model", value=summary.model or "unknown")
    turn.add_metric(name="Turns", unit=MetricUnit.Count, value=1)
    turn.add_metric(
        name="FailedTurns", unit=MetricUnit.Count, value=0 if summary.status == "completed" else 1
    )
    turn.add_metric(name="Iterations", unit=MetricUnit.Count, value=summary.iterations)
    turn.add_metric(name="InputTokens", unit=MetricUnit.Count, value=int(usage.get("input_tokens") or 0))
    turn.add_metric(
        name="CacheWriteTokens",
        unit=MetricUnit.Count,
        value=int(usage.get("cache_creation_input_tokens") or 0),
    )
    turn.add_metric(
        name="CachedInputTokens", unit=MetricUnit.Count, value=int(usage.get("cache_read_input_tokens") or 0)
    )
    turn.add_metric(name="OutputTokens", unit=MetricUnit.Count, value=int(usage.get("output_tokens") or 0))
    turn.add_metric(name="CostCents", unit=MetricUnit.NoUnit, value=float(summary.cost_cents))
    rate = cache_hit_rate(usage)
    if rate is not None:
        turn.add_metric(name="CacheHitRate", unit=MetricUnit.Percent, value=rate)
    turn.add_metric(name="TurnDuration", unit=MetricUnit.Milliseconds, value=summary.duration_ms)
    turn.add_metric(name="ModelErrors", unit=MetricUnit.Count, value=summary.model_errors)
    turn.add_metric(name="DegradedTurns", unit=MetricUnit.Count, value=1 if summary.degraded else 0)
    turn.add_metric(name="ModelWait", unit=MetricUnit.Milliseconds, value=summary.model_ms)
    turn.add_metric(
        name="BackendTime",
        unit=MetricUnit.Milliseconds,
        value=max(0, summary.duration_ms - summary.model_ms),
    )
    turn.add_metric(name="DynamoDBRequests", unit=MetricUnit.Count, value=summary.dynamodb_requests)
    turn.add_metric(name="SqlQueries", unit=MetricUnit.Count, value=summary.sql_queries)
    turn.add_metadata(key="status", value=summary.status)
    if session_id:
        turn.add_metadata(key="session_id", value=session_id)
    sets = [turn]
    for name, (calls, failures) in tool_counts(summary.tool_calls).items():
        tool = EphemeralMetrics(namespace=namespace, service=service)
        tool.add_dimension(name="tool", value=name)
        tool.add_metric(name="ToolCalls", unit=MetricUnit.Count, value=calls)
        tool.add_metric(name="ToolFailures", unit=MetricUnit.Count, value=failures)
        sets.append(tool)
    return sets


class TurnMetrics(TurnHooks):
    """Writes a finished turn's EMF records (see `turn_metric_sets`) as the turn ends."""

    def __init__(self, namespace: str | None = None, service: str = SERVICE_NAME) -> None:
        self.namespace = namespace
        self.service = service

    async def on_turn_end(self, session: Session, summary: TurnSummary) -> None:
        if metrics_disabled():
            return
        records = turn_metric_sets(
            summary, session_id=session.id, namespace=self.namespace, service=self.service
        )
        for record in records:
            record.flush_metrics()


def default_turn_hooks(settings: Settings) -> list[TurnHooks]:
    """The observers every turn gets (container.build_container puts them before any passed in)."""
    return [TurnMetrics(namespace=metrics.namespace)]
