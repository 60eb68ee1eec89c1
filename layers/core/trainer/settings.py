"""The one place that reads the environment (ARCHITECTURE §8)."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_JWT_SECRET = "local-dev-secret-change-me-0123456789abcdef"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore", populate_by_name=True)

    anthropic_api_key: SecretStr | None = Field(default=None, alias="ANTHROPIC_API_KEY")
    openai_api_key: SecretStr | None = Field(default=None, alias="OPENAI_API_KEY")
    anthropic_base_url: str | None = Field(default=None, alias="ANTHROPIC_BASE_URL")
    openai_base_url: str | None = Field(default=None, alias="OPENAI_BASE_URL")
    model: str = Field(default="claude-haiku-4-5", alias="TRAINER_MODEL")
    initializer_model: str = Field(default="gpt-4o-mini", alias="TRAINER_INITIALIZER_MODEL")

    jwt_secret: SecretStr = Field(default=SecretStr(LOCAL_JWT_SECRET), alias="TRAINER_JWT_SECRET")
    jwks_url: str | None = Field(default=None, alias="TRAINER_JWKS_URL")
    jwt_issuer: str | None = Field(default=None, alias="TRAINER_JWT_ISSUER")
    jwt_audience: str | None = Field(default=None, alias="TRAINER_JWT_AUDIENCE")

    database_url: str | None = Field(default=None, alias="DATABASE_URL")
    database_secret_arn: str | None = Field(default=None, alias="TRAINER_DATABASE_SECRET_ARN")
    anthropic_key_parameter: str | None = Field(default=None, alias="TRAINER_ANTHROPIC_KEY_PARAMETER")
    openai_key_parameter: str | None = Field(default=None, alias="TRAINER_OPENAI_KEY_PARAMETER")
    aws_endpoint_url: str | None = Field(default=None, alias="AWS_ENDPOINT_URL")
    aws_region: str = Field(default="us-east-1", alias="AWS_REGION")
    table_name: str = Field(default="trainer-sessions", alias="TRAINER_TABLE_NAME")
    idempotency_table_name: str = Field(default="trainer-idempotency", alias="TRAINER_IDEMPOTENCY_TABLE_NAME")
    event_bus_name: str = Field(default="trainer-bus", alias="TRAINER_EVENT_BUS_NAME")
    port: int = Field(default=8000, alias="PORT")

    session_ttl_days: int = Field(default=30, alias="TRAINER_SESSION_TTL_DAYS")
    max_iterations: int = Field(default=10, alias="TRAINER_MAX_ITERATIONS")
    max_message_chars: int = Field(default=8000, alias="TRAINER_MAX_MESSAGE_CHARS")
    max_body_bytes: int = Field(default=256_000, alias="TRAINER_MAX_BODY_BYTES")
    context_window_tokens: int = Field(default=100_000, alias="TRAINER_CONTEXT_WINDOW_TOKENS")
    checkpoint_threshold: float = Field(default=0.8, alias="TRAINER_CHECKPOINT_THRESHOLD")
    hard_limit_ratio: float = Field(default=0.95, alias="TRAINER_HARD_LIMIT_RATIO")
    lease_seconds: int = Field(default=30, ge=3, alias="TRAINER_LEASE_SECONDS")
    """A turn's lease on its session, renewed every third of it while the turn runs: a turn whose
    process died frees its session within this time."""
    function_timeout_seconds: int = Field(default=300, ge=1, alias="TRAINER_FUNCTION_TIMEOUT_SECONDS")
    """The serving function's timeout (template.yaml sets it from the same parameter as Timeout): no
    lease outlives it."""
    daily_turn_limit: int = Field(default=300, ge=1, alias="TRAINER_DAILY_TURN_LIMIT")
    daily_cost_limit_cents: float = Field(default=500.0, gt=0, alias="TRAINER_DAILY_COST_LIMIT_CENTS")
    """A user's daily budget (UTC days): over either, a turn is refused with 429."""
    heartbeat_seconds: float = Field(default=15.0, alias="TRAINER_HEARTBEAT_SECONDS")
    log_level: str = Field(default="INFO", alias="POWERTOOLS_LOG_LEVEL")
    lambda_function_name: str | None = Field(default=None, alias="AWS_LAMBDA_FUNCTION_NAME")
    """Set by the Lambda runtime: the process is a deployed function, not the local stack."""

    @property
    def deployed(self) -> bool:
        return self.lambda_function_name is not None

    @property
    def uses_default_jwt_secret(self) -> bool:
        return self.jwt_secret.get_secret_value() == LOCAL_JWT_SECRET

    @property
    def turn_lease_seconds(self) -> int:
        return min(self.lease_seconds, self.function_timeout_seconds)

    @property
    def model_mode(self) -> Literal["offline", "anthropic"]:
        return "anthropic" if self.anthropic_api_key else "offline"

    @property
    def initializer_mode(self) -> Literal["deterministic", "openai"]:
        return "openai" if self.openai_api_key else "deterministic"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
