"""Secrets in AWS: the template passes only names (TRAINER_ANTHROPIC_KEY_PARAMETER,
TRAINER_OPENAI_KEY_PARAMETER, TRAINER_DATABASE_SECRET_ARN); this resolves them with Powertools
Parameters into a copy of a function's settings (the names its model has: the keys of a model with
`ModelSettings`, the database URL of one with `DatabaseSettings`) on first use. Values already set
directly (local runs) win.
TRAINER_DATABASE_HOST (the RDS Proxy endpoint) replaces the host of the secret's URL."""

from __future__ import annotations

import json
from typing import Any, Protocol
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import SecretStr

from trainer.settings import DatabaseSettings, FunctionSettings, ModelSettings


class ParameterSource(Protocol):
    def get(self, name: str, **kwargs: Any) -> Any: ...


class SecretResolutionError(RuntimeError):
    """A named parameter or secret could not be read or understood."""


def database_url_from_secret(value: str) -> str:
    """A Postgres URL from a secret string: the URL itself, JSON with `url`/`database_url`, or the
    RDS secret layout {username, password, host, port?, dbname?}."""
    text = value.strip()
    if text.startswith(("postgres://", "postgresql://")):
        return text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SecretResolutionError("database secret is neither a postgres URL nor JSON") from exc
    if not isinstance(data, dict):
        raise SecretResolutionError("database secret JSON must be an object")
    for key in ("url", "database_url", "DATABASE_URL"):
        if isinstance(data.get(key), str):
            return str(data[key])
    missing = [key for key in ("username", "password", "host") if not data.get(key)]
    if missing:
        raise SecretResolutionError(f"database secret lacks {', '.join(missing)}")
    user, password = quote(str(data["username"]), safe=""), quote(str(data["password"]), safe="")
    port = data.get("port") or 5432
    dbname = quote(str(data.get("dbname") or "postgres"), safe="")
    return f"postgresql://{user}:{password}@{data['host']}:{port}/{dbname}?sslmode=require"


def with_host(url: str, host: str) -> str:
    """The URL with its host (and port, if `host` names one) replaced: credentials, database and
    options kept."""
    parts = urlsplit(url)
    userinfo, _, _ = parts.netloc.rpartition("@")
    port = f":{parts.port}" if parts.port and ":" not in host else ""
    netloc = f"{userinfo}@{host}{port}" if userinfo else f"{host}{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def _read(source: ParameterSource, name: str, **kwargs: Any) -> str:
    try:
        value = source.get(name, **kwargs)
    except Exception as exc:
        raise SecretResolutionError(f"cannot read {name}: {exc}") from exc
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str) or not value.strip():
        raise SecretResolutionError(f"{name} is empty")
    return value.strip()


def resolve_runtime_secrets[S: FunctionSettings](
    settings: S,
    *,
    ssm: ParameterSource | None = None,
    secrets: ParameterSource | None = None,
) -> S:
    """The settings with API keys and the database URL filled from SSM / Secrets Manager (sync boto3:
    call it in a worker thread from async code). Unchanged when no names are configured."""
    updates: dict[str, Any] = {}
    if isinstance(settings, ModelSettings):
        updates.update(_model_keys(settings, ssm))
    if isinstance(settings, DatabaseSettings) and settings.database_secret_arn and not settings.database_url:
        if secrets is None:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider

            from trainer.store.dynamo_tables import aws_client

            secrets = SecretsProvider(boto3_client=aws_client("secretsmanager", settings))
        url = database_url_from_secret(_read(secrets, settings.database_secret_arn))
        updates["database_url"] = with_host(url, settings.database_host) if settings.database_host else url
    return settings.model_copy(update=updates) if updates else settings


def _model_keys(settings: ModelSettings, ssm: ParameterSource | None) -> dict[str, Any]:
    keys: dict[str, Any] = {}
    wants_ssm = (settings.anthropic_key_parameter and not settings.anthropic_api_key) or (
        settings.openai_key_parameter and not settings.openai_api_key
    )
    if wants_ssm and ssm is None:
        from aws_lambda_powertools.utilities.parameters import SSMProvider

        from trainer.store.dynamo_tables import aws_client

        ssm = SSMProvider(boto3_client=aws_client("ssm", settings))
    if ssm is not None and settings.anthropic_key_parameter and not settings.anthropic_api_key:
        keys["anthropic_api_key"] = SecretStr(_read(ssm, settings.anthropic_key_parameter, decrypt=True))
    if ssm is not None and settings.openai_key_parameter and not settings.openai_api_key:
        keys["openai_api_key"] = SecretStr(_read(ssm, settings.openai_key_parameter, decrypt=True))
    return keys
