"""EventBridge TurnCompleted -> checkpoint a long session (trainer.jobs.checkpoint).

Metrics: `CheckpointsWritten` (1 when the session was checkpointed, else 0) per delivery.
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.metrics import MetricUnit
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from trainer.jobs.checkpoint import CheckpointDeps, handle_turn_completed
    from trainer.observability import logger, metrics, tracer
    from trainer.settings import CheckpointSettings

    deps = CheckpointDeps.from_settings(CheckpointSettings.from_environment())


@logger.inject_lambda_context(correlation_id_path=correlation_paths.EVENT_BRIDGE, clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    detail = event.get("detail") or {}
    logger.append_keys(session_id=detail.get("session_id"), turn_id=detail.get("turn_id"))
    result = handle_turn_completed(event, context, deps)
    metrics.add_metric(
        name="CheckpointsWritten", unit=MetricUnit.Count, value=1 if result["checkpointed"] else 0
    )
    logger.info("checkpoint job done", extra=result)
    return result
