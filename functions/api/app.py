"""Buffered JSON routes: the FastAPI app under Mangum (docs/architecture.md#runtimes-and-streaming).

Built at import so clients live across warm invocations; `create_app()` defers heavy work to first use.
The import runs inside `init_phase()` (trainer.cold_start): no garbage-collector passes over what it builds.
It loads the function's settings first (`ApiSettings`): a variable missing or invalid fails the init
phase with its name, before any request.
When no request waits for the init phase (a SnapStart snapshot, provisioned concurrency) it also
prewarms what the first request would build (trainer.snapstart); the SnapStart hooks close a container
built before the snapshot and reseed after a restore.
The handler carries the Powertools decorators: logs with the Lambda context and the API Gateway request
id as correlation id, one X-Ray subsegment per invocation (`## handler`, AWS SDK calls beneath it), and
the metrics buffer flushed when the invocation ends. A turn's own metrics (trainer.observability
.TurnMetrics) are written as the turn ends, inside the invocation.
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.logging import correlation_paths
    from mangum import Mangum
    from mangum.types import LambdaContext
    from trainer import snapstart
    from trainer.api.app import create_app
    from trainer.observability import logger, metrics, tracer
    from trainer.settings import ApiSettings

    settings = ApiSettings.from_environment()
    app = create_app(settings=settings)
    asgi = Mangum(app, lifespan="off")
    provider = app.state.container_provider
    snapstart.on_snapshot("api", before=provider.before_snapshot, after=provider.after_restore)
    if settings.prewarm_at_init:
        provider.prewarm()
        tracer.get()


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return asgi(event, context)
