"""EventBridge WeekDue -> build that week of the plan, once per (user, plan, week) (trainer.jobs.programs).

Metrics: `WeeksBuilt` (1 when this delivery built the week; a duplicate delivery or a failed build 0) and
`WeekBuildsFailed` (the agent could not build it; the plan is due again later).
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.metrics import MetricUnit
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from trainer.jobs.programs import ProgramJobDeps, handle_week_due
    from trainer.observability import logger, metrics, tracer
    from trainer.settings import MicrocycleSettings

    deps = ProgramJobDeps.from_settings(MicrocycleSettings.from_environment())


@logger.inject_lambda_context(correlation_id_path=correlation_paths.EVENT_BRIDGE, clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    detail = event.get("detail") or {}
    logger.append_keys(
        user_id=detail.get("user_id"), plan_id=detail.get("plan_id"), week_number=detail.get("week_number")
    )
    result = handle_week_due(event, context, deps)
    metrics.add_metric(name="WeeksBuilt", unit=MetricUnit.Count, value=1 if result["built"] else 0)
    failed = result.get("reason") == "build_failed"
    metrics.add_metric(name="WeekBuildsFailed", unit=MetricUnit.Count, value=1 if failed else 0)
    logger.info("week job done", extra={"built": result["built"], "reason": result.get("reason")})
    return result
