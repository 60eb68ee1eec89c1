"""Resolving secret names from the template into Settings values, with in-memory parameter sources."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import SecretStr
from trainer.runtime_secrets import SecretResolutionError, database_url_from_secret, resolve_runtime_secrets
from trainer.settings import Settings


class Source:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def get(self, name: str, **kwargs: Any) -> Any:
        self.calls.append((name, kwargs))
        if name not in self.values:
            raise KeyError(name)
        return self.values[name]


def test_resolves_keys_and_database_url_from_their_names() -> None:
    ssm = Source({"/trainer/dev/anthropic": "ant-value", "/trainer/dev/openai": "oai-value"})
    secrets = Source({"arn:db": "postgresql://u:p@db.internal:5432/trainer"})
    settings = Settings(
        TRAINER_ANTHROPIC_KEY_PARAMETER="/trainer/dev/anthropic",
        TRAINER_OPENAI_KEY_PARAMETER="/trainer/dev/openai",
        TRAINER_DATABASE_SECRET_ARN="arn:db",
    )
    resolved = resolve_runtime_secrets(settings, ssm=ssm, secrets=secrets)
    assert resolved.anthropic_api_key is not None
    assert resolved.anthropic_api_key.get_secret_value() == "ant-value"
    assert resolved.openai_api_key is not None
    assert resolved.openai_api_key.get_secret_value() == "oai-value"
    assert resolved.database_url == "postgresql://u:p@db.internal:5432/trainer"
    assert resolved.model_mode == "anthropic"
    assert all(kwargs == {"decrypt": True} for _, kwargs in ssm.calls)
    assert settings.anthropic_api_key is None, "the original settings are left alone"


def test_direct_values_win_and_nothing_is_read() -> None:
    ssm, secrets = Source({}), Source({})
    settings = Settings(
        ANTHROPIC_API_KEY=SecretStr("direct"),
        TRAINER_ANTHROPIC_KEY_PARAMETER="/x",
        DATABASE_URL="postgresql://local/db",
        TRAINER_DATABASE_SECRET_ARN="arn:db",
    )
    assert resolve_runtime_secrets(settings, ssm=ssm, secrets=secrets) is settings
    assert ssm.calls == [] and secrets.calls == []


def test_unreadable_parameter_is_a_clear_error() -> None:
    settings = Settings(TRAINER_ANTHROPIC_KEY_PARAMETER="/missing")
    with pytest.raises(SecretResolutionError, match="/missing"):
        resolve_runtime_secrets(settings, ssm=Source({}))


def test_database_secret_layouts() -> None:
    rds = {
        "username": "app",
        "password": "p@ss/w:rd",
        "host": "db.internal",
        "port": 6432,
        "dbname": "trainer",
    }
    assert database_url_from_secret(json.dumps(rds)) == (
        "postgresql://app:p%40ss%2Fw%3Ard@db.internal:6432/trainer?sslmode=require"
    )
    assert database_url_from_secret(json.dumps({"url": "postgresql://a/b"})) == "postgresql://a/b"
    with pytest.raises(SecretResolutionError, match="password"):
        database_url_from_secret(json.dumps({"username": "app", "host": "h"}))
    with pytest.raises(SecretResolutionError):
        database_url_from_secret("not a url")


@pytest.mark.parametrize(
    ("secret", "host", "expected"),
    [
        (
            json.dumps({"username": "app", "password": "p@ss", "host": "db.internal", "dbname": "trainer"}),
            "trainer-dev-db.proxy-abc.us-east-1.rds.amazonaws.com",
            "postgresql://app:p%40ss@trainer-dev-db.proxy-abc.us-east-1.rds.amazonaws.com:5432/trainer"
            "?sslmode=require",
        ),
        ("postgresql://u:p@db.internal:5432/trainer", "proxy:6432", "postgresql://u:p@proxy:6432/trainer"),
        ("postgresql://db.internal/trainer", "proxy", "postgresql://proxy/trainer"),
    ],
)
def test_the_proxy_host_replaces_the_secrets_host(secret: str, host: str, expected: str) -> None:
    settings = Settings(TRAINER_DATABASE_SECRET_ARN="arn:db", TRAINER_DATABASE_HOST=host)
    resolved = resolve_runtime_secrets(settings, secrets=Source({"arn:db": secret}))
    assert resolved.database_url == expected


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({}, 10),
        ({"AWS_LAMBDA_FUNCTION_NAME": "trainer-api"}, 1),
        ({"AWS_LAMBDA_FUNCTION_NAME": "trainer-api", "TRAINER_DB_POOL_MAX": "2"}, 2),
        ({"TRAINER_DB_POOL_MAX": "4"}, 4),
    ],
)
def test_a_deployed_function_pools_one_connection(variables: dict[str, str], expected: int) -> None:
    assert Settings(**variables).database_pool_max == expected


def test_the_pool_holds_at_least_one_connection() -> None:
    with pytest.raises(ValueError, match="TRAINER_DB_POOL_MAX"):
        Settings(TRAINER_DB_POOL_MAX="0")
