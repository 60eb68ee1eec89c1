"""Applies pending Postgres migrations; invoked by hand after a deploy:
`aws lambda invoke --function-name <MigrateFunction> out.json` (or `sam remote invoke MigrateFunction`)."""

from typing import Any

from trainer.runtime_secrets import resolve_runtime_secrets
from trainer.settings import get_settings
from trainer.store.migrate import apply_migrations


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    settings = resolve_runtime_secrets(get_settings())
    if not settings.database_url:
        raise RuntimeError("no database configured: set TRAINER_DATABASE_SECRET_ARN")
    applied = apply_migrations(settings.database_url)
    return {"applied": applied}
