"""EventBridge Scheduler -> the program pipeline's hourly runs (trainer.jobs.programs).

`{"run": "hourly"}` publishes one `WeekDue` per plan whose next week is due (and `PlanRequested` again for
plans left pending); `{"run": "daily"}` publishes one `WorkoutReady` per training day of the users whose
local time is the morning hour. Both schedules fire every hour; `at` is the scheduled time.

`{"run": "daily"}` first marks the active plans' past training days with nothing logged `missed` (each
once) and adapts the sessions after them (trainer.services.schedule.adapt_missed_sessions); it also
publishes `WorkoutReady` again for the deliveries the Notifier deferred (before a
user's morning hour, in their quiet hours) whose time has come.

Metrics: `WeekDuePublished`, `PlansRequeued` (hourly), `WorkoutReadyPublished`,
`WorkoutReadyRepublished` and `MissedSessionsAdapted` (daily).
"""

from typing import Any

from trainer.cold_start import init_phase

with init_phase():
    from aws_lambda_powertools.metrics import MetricUnit
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from trainer.jobs.programs import ProgramJobDeps, handle_schedule
    from trainer.observability import logger, metrics, tracer
    from trainer.settings import SchedulerSettings

    deps = ProgramJobDeps.from_settings(SchedulerSettings.from_environment())

COUNTS = {
    "week_due": "WeekDuePublished",
    "plans_requeued": "PlansRequeued",
    "workout_ready": "WorkoutReadyPublished",
    "deliveries_republished": "WorkoutReadyRepublished",
    "missed_adapted": "MissedSessionsAdapted",
}


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    logger.append_keys(run=event.get("run") if isinstance(event, dict) else None)
    result = handle_schedule(event, context, deps)
    for key, name in COUNTS.items():
        if key in result:
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=result[key])
    logger.info("schedule run done", extra=result)
    return result
