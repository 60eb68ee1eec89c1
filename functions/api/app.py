"""Buffered JSON routes: the FastAPI app under Mangum (ARCHITECTURE §3).

Built at import so clients live across warm invocations; `create_app()` defers heavy work to first use.
The import runs inside `init_phase()` (trainer.cold_start): no garbage-collector passes over what it builds.
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
    from trainer.api.app import create_app
    from trainer.observability import logger, metrics, tracer

    asgi = Mangum(create_app(), lifespan="off")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return asgi(event, context)
