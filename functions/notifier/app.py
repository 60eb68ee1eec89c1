"""EventBridge WorkoutReady -> the day's workout pushed to the user's phones through SNS (and texted to
a verified number when they opted in), once per user and local day, at their morning hour and outside
their quiet hours; PushEndpointsRetired -> the SNS endpoints of removed devices deleted
(trainer.jobs.notifier).

Metrics: `NotificationsSent`, `NotificationsFailed`, `NotificationsSkipped`, `NotificationsDeferred`
and `NotificationDuplicates` (1 for the outcome of a WorkoutReady delivery), `PushEndpointsRetired`.
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.metrics import MetricUnit
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from trainer.jobs.notifier import NotifierDeps, handle
    from trainer.observability import logger, metrics, tracer
    from trainer.settings import NotifierSettings

    deps = NotifierDeps.from_settings(NotifierSettings.from_environment())

OUTCOMES = {
    "sent": "NotificationsSent",
    "failed": "NotificationsFailed",
    "skipped": "NotificationsSkipped",
    "deferred": "NotificationsDeferred",
    "duplicate": "NotificationDuplicates",
}


@logger.inject_lambda_context(correlation_id_path=correlation_paths.EVENT_BRIDGE, clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    detail = event.get("detail") or {}
    logger.append_keys(user_id=detail.get("user_id"), date=detail.get("date"))
    result = handle(event, context, deps)
    if "retired" in result:
        metrics.add_metric(name="PushEndpointsRetired", unit=MetricUnit.Count, value=result["retired"])
        logger.info("endpoints retired", extra={"retired": result["retired"]})
        return result
    for outcome, name in OUTCOMES.items():
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=1 if result["outcome"] == outcome else 0)
    logger.info(
        "delivery done",
        extra={
            "outcome": result["outcome"],
            "reason": result.get("reason"),
            "channels": [(c["channel"], c["status"], c.get("reason")) for c in result["channels"]],
        },
    )
    return result
