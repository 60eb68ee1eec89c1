"""Applies pending Postgres migrations; invoked by hand after a deploy:
`aws lambda invoke --function-name <MigrateFunction> out.json` (or `sam remote invoke MigrateFunction`).

Metrics: `MigrationsApplied` (how many ran in this invocation).
"""

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from trainer.observability import logger, metrics, tracer
from trainer.runtime_secrets import resolve_runtime_secrets
from trainer.settings import MigrateSettings
from trainer.store.migrate import apply_migrations

settings = MigrateSettings.from_environment()


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    database_url = resolve_runtime_secrets(settings).database_url
    if not database_url:
        raise RuntimeError("no database configured: set TRAINER_DATABASE_SECRET_ARN")
    applied = apply_migrations(database_url)
    metrics.add_metric(name="MigrationsApplied", unit=MetricUnit.Count, value=len(applied))
    logger.info("migrations applied", extra={"applied": applied})
    return {"applied": applied}
