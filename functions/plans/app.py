"""EventBridge PlanRequested -> build the plan and its first week, once (trainer.jobs.programs).

Metrics: `PlansBuilt` (1 when the plan is ready after the delivery, else 0) and `PlansFailed` (1 when the
agent could not build it; the plan says why).
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.metrics import MetricUnit
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from trainer.jobs.programs import ProgramJobDeps, handle_plan_requested
    from trainer.observability import logger, metrics, tracer
    from trainer.settings import PlanSettings

    deps = ProgramJobDeps.from_settings(PlanSettings.from_environment())


@logger.inject_lambda_context(correlation_id_path=correlation_paths.EVENT_BRIDGE, clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    detail = event.get("detail") or {}
    logger.append_keys(user_id=detail.get("user_id"), plan_id=detail.get("plan_id"))
    result = handle_plan_requested(event, context, deps)
    status = result["status"]
    metrics.add_metric(name="PlansBuilt", unit=MetricUnit.Count, value=1 if status == "ready" else 0)
    metrics.add_metric(name="PlansFailed", unit=MetricUnit.Count, value=1 if status == "failed" else 0)
    logger.info("plan job done", extra={"status": result["status"]})
    return result
