"""EventBridge TurnCompleted -> session and daily cost totals, once per turn (trainer.jobs.costs).

Metrics: `TurnsAggregated` (1 per delivery; a duplicate delivery replays the first result) and
`AggregatedLLMCalls` (the model calls the turn's events held).
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.metrics import MetricUnit
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from trainer.jobs.costs import CostDeps, handle_turn_completed
    from trainer.observability import logger, metrics, tracer
    from trainer.settings import CostSettings

    deps = CostDeps.from_settings(CostSettings.from_environment())


@logger.inject_lambda_context(correlation_id_path=correlation_paths.EVENT_BRIDGE, clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    detail = event.get("detail") or {}
    logger.append_keys(session_id=detail.get("session_id"), turn_id=detail.get("turn_id"))
    result = handle_turn_completed(event, context, deps)
    metrics.add_metric(name="TurnsAggregated", unit=MetricUnit.Count, value=1)
    metrics.add_metric(
        name="AggregatedLLMCalls", unit=MetricUnit.Count, value=int(result.get("llm_calls") or 0)
    )
    logger.info("cost job done", extra={"day": result.get("day"), "llm_calls": result.get("llm_calls")})
    return result
