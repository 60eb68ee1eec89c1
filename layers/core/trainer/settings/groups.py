"""The settings, in groups a function combines (trainer.settings.functions): each group is the
variables of one concern, and what it derives from them. Every group is a `FunctionSettings` (the
runtime's and the AWS SDK's variables), so any function's model can be handed to the code that takes
one of its groups (`aws_client(service, settings)` takes any)."""

from typing import Literal

from pydantic import Field, SecretStr

from trainer.settings.environment import EnvironmentModel

LOCAL_JWT_SECRET = "local-dev-secret-change-me-0123456789abcdef"
LOCAL_DB_POOL_MAX = 10


class FunctionSettings(EnvironmentModel):
    """What every function reads: the Lambda runtime's variables, the AWS SDK's region and endpoint,
    the log level."""

    aws_endpoint_url: str | None = Field(default=None, alias="AWS_ENDPOINT_URL")
    aws_region: str = Field(default="us-east-1", alias="AWS_REGION")
    log_level: str = Field(default="INFO", alias="POWERTOOLS_LOG_LEVEL")
    lambda_function_name: str | None = Field(default=None, alias="AWS_LAMBDA_FUNCTION_NAME")
    """Set by the Lambda runtime: the process is a deployed function, not the local stack."""
    lambda_initialization_type: str | None = Field(default=None, alias="AWS_LAMBDA_INITIALIZATION_TYPE")
    """Set by the Lambda runtime: `on-demand`, `provisioned-concurrency` or `snap-start`."""

    @property
    def deployed(self) -> bool:
        return self.lambda_function_name is not None

    @property
    def snapshot_init(self) -> bool:
        """This init phase ends in a SnapStart snapshot: it must open no connection and read no secret."""
        return self.lambda_initialization_type == "snap-start"

    @property
    def prewarm_at_init(self) -> bool:
        """No request waits for this init phase (a snapshot, or provisioned concurrency), so it does
        the warm-up the first request would otherwise pay (`trainer.container.prewarm`)."""
        return self.lambda_initialization_type in ("snap-start", "provisioned-concurrency")


class SessionTableSettings(FunctionSettings):
    """The DynamoDB table of sessions, their events and the daily metrics."""

    table_name: str = Field(default="trainer-sessions", min_length=1, alias="TRAINER_TABLE_NAME")
    session_ttl_days: int = Field(default=30, alias="TRAINER_SESSION_TTL_DAYS")


class IdempotencySettings(FunctionSettings):
    """The DynamoDB table Powertools' idempotency records live in (the cost job)."""

    idempotency_table_name: str = Field(
        default="trainer-idempotency", min_length=1, alias="TRAINER_IDEMPOTENCY_TABLE_NAME"
    )


class EventBusSettings(FunctionSettings):
    """The EventBridge bus the API and the scheduler publish on."""

    event_bus_name: str = Field(default="trainer-bus", min_length=1, alias="TRAINER_EVENT_BUS_NAME")


class DatabaseSettings(FunctionSettings):
    """Postgres: a URL (local runs), or the Secrets Manager secret that holds it (deployed; resolved by
    trainer.runtime_secrets on first use)."""

    database_url: str | None = Field(default=None, alias="DATABASE_URL")
    database_host: str | None = Field(default=None, alias="TRAINER_DATABASE_HOST")
    """Replaces the host of the URL read from TRAINER_DATABASE_SECRET_ARN (the RDS Proxy endpoint)."""
    db_pool_max: int | None = Field(default=None, ge=1, alias="TRAINER_DB_POOL_MAX")
    """Connections the process's pool may open; unset: `database_pool_max`."""
    database_secret_arn: str | None = Field(default=None, alias="TRAINER_DATABASE_SECRET_ARN")

    @property
    def database_pool_max(self) -> int:
        """A Lambda instance serves one request at a time and a request holds one connection at a
        time: one connection each when deployed; a few for the local stack's concurrent requests."""
        if self.db_pool_max is not None:
            return self.db_pool_max
        return 1 if self.deployed else LOCAL_DB_POOL_MAX


class ModelRequestSettings(EnvironmentModel):
    """Whether the process may send requests to a model provider (trainer.model_guard)."""

    allow_model_requests: bool = Field(default=True, alias="TRAINER_ALLOW_MODEL_REQUESTS")
    """Off: a model SDK client for a host other than loopback is refused (`make test` turns it off)."""


class DeadlineSettings(FunctionSettings):
    """How long the function may run: what a turn's lease and every model call's timeout are bounded by."""

    function_timeout_seconds: int = Field(default=300, ge=1, alias="TRAINER_FUNCTION_TIMEOUT_SECONDS")
    """The serving function's timeout (template.yaml sets it from the same parameter as Timeout): no
    lease outlives it."""
    model_deadline_margin_seconds: float = Field(
        default=10.0, ge=0, alias="TRAINER_MODEL_DEADLINE_MARGIN_SECONDS"
    )
    """What a model call leaves of the function's remaining time (the Lambda context's, else the
    function timeout above from the turn's start): the time to record a failure, send the `error`
    frame and close the stream before the platform ends the function (trainer.providers.deadline)."""


class ModelSettings(DeadlineSettings, ModelRequestSettings):
    """The model providers: keys (or the SSM parameters that hold them), base URLs, model ids."""

    anthropic_api_key: SecretStr | None = Field(default=None, alias="ANTHROPIC_API_KEY")
    openai_api_key: SecretStr | None = Field(default=None, alias="OPENAI_API_KEY")
    anthropic_base_url: str | None = Field(default=None, alias="ANTHROPIC_BASE_URL")
    openai_base_url: str | None = Field(default=None, alias="OPENAI_BASE_URL")
    anthropic_key_parameter: str | None = Field(default=None, alias="TRAINER_ANTHROPIC_KEY_PARAMETER")
    openai_key_parameter: str | None = Field(default=None, alias="TRAINER_OPENAI_KEY_PARAMETER")
    model: str = Field(default="claude-haiku-5-5", alias="TRAINER_MODEL")
    """The chat agent's and the `main` registry agents' model (`claude-sonnet-5-5`, `claude-opus-5-5`
    selectable; any id of trainer.providers.models)."""
    initializer_model: str = Field(default="gpt-6-luna", alias="TRAINER_INITIALIZER_MODEL")
    light_model: str = Field(default="claude-haiku-5-5", alias="TRAINER_LIGHT_MODEL")
    """The Anthropic model of agents whose model role is `light` (formatting, extraction)."""
    agent_provider: Literal["auto", "anthropic", "openai", "offline"] = Field(
        default="auto", alias="TRAINER_AGENT_PROVIDER"
    )
    """Backend of the registry's agents; `auto`: Anthropic with its key, else OpenAI with its key, else
    the offline implementations."""
    openai_agent_model: str = Field(default="gpt-6-luna", alias="TRAINER_OPENAI_AGENT_MODEL")
    """The OpenAI model of `main` agents on OpenAI (`light` ones use TRAINER_INITIALIZER_MODEL)."""
    main_effort: Literal["low", "medium", "high", "xhigh", "max"] = Field(
        default="medium", alias="TRAINER_MAIN_EFFORT"
    )
    """Thinking effort (`output_config.effort`) of the chat agent and the `main` registry agents, on
    models that think adaptively (the Claude 5.5 family); other models ignore it."""
    light_effort: Literal["low", "medium", "high", "xhigh", "max"] = Field(
        default="low", alias="TRAINER_LIGHT_EFFORT"
    )
    """Thinking effort of the `light` registry agents (formatting, extraction)."""
    prompt_cache_ttl: Literal["5m", "1h"] = Field(default="5m", alias="TRAINER_PROMPT_CACHE_TTL")
    """The cache TTL of the prefix every session shares (tools and system prompt); 1h suits sparse traffic."""

    @property
    def model_mode(self) -> Literal["offline", "anthropic"]:
        return "anthropic" if self.anthropic_api_key else "offline"

    @property
    def initializer_mode(self) -> Literal["deterministic", "openai"]:
        return "openai" if self.openai_api_key else "deterministic"


class AuthSettings(FunctionSettings):
    """Bearer-token verification (trainer.api.auth): a JWKS when deployed, an HS256 secret locally."""

    jwt_secret: SecretStr = Field(default=SecretStr(LOCAL_JWT_SECRET), alias="TRAINER_JWT_SECRET")
    jwks_url: str | None = Field(default=None, alias="TRAINER_JWKS_URL")
    jwt_issuer: str | None = Field(default=None, alias="TRAINER_JWT_ISSUER")
    jwt_audience: str | None = Field(default=None, alias="TRAINER_JWT_AUDIENCE")

    @property
    def uses_default_jwt_secret(self) -> bool:
        return self.jwt_secret.get_secret_value() == LOCAL_JWT_SECRET

    @property
    def verifies_tokens_safely(self) -> bool:
        """Tokens are checked against the JWKS or a secret of this deployment's own: never against the
        public development secret anyone could sign with."""
        return bool(self.jwks_url) or not self.uses_default_jwt_secret


class ContextWindowSettings(FunctionSettings):
    """When a session's context is checkpointed (trainer.chat.checkpoint)."""

    context_window_tokens: int = Field(default=100_000, alias="TRAINER_CONTEXT_WINDOW_TOKENS")
    checkpoint_threshold: float = Field(default=0.8, alias="TRAINER_CHECKPOINT_THRESHOLD")
    hard_limit_ratio: float = Field(default=0.95, alias="TRAINER_HARD_LIMIT_RATIO")


class TurnSettings(ContextWindowSettings, DeadlineSettings):
    """A chat turn's limits: iterations, its lease on the session; the user's daily budget and request
    rates (the usage limits of the HTTP routes)."""

    max_iterations: int = Field(default=10, alias="TRAINER_MAX_ITERATIONS")
    lease_seconds: int = Field(default=30, ge=3, alias="TRAINER_LEASE_SECONDS")
    """A turn's lease on its session, renewed every third of it while the turn runs: a turn whose
    process died frees its session within this time."""
    daily_turn_limit: int = Field(default=300, ge=1, alias="TRAINER_DAILY_TURN_LIMIT")
    daily_cost_limit_cents: float = Field(default=500.0, gt=0, alias="TRAINER_DAILY_COST_LIMIT_CENTS")
    """A user's daily budget (UTC days): over either, a turn is refused with 429."""
    daily_plan_limit: int = Field(default=10, ge=1, alias="TRAINER_DAILY_PLAN_LIMIT")
    daily_import_limit: int = Field(default=50, ge=1, alias="TRAINER_DAILY_IMPORT_LIMIT")
    """Plans and pasted-workout imports a user may start per UTC day (each runs model agents); the cost
    limit above covers them too."""
    rate_limits_enabled: bool = Field(default=True, alias="TRAINER_RATE_LIMITS_ENABLED")
    """Per-user request rates on every authenticated route (trainer.services.usage_limits.DEFAULT_RATES)."""

    @property
    def turn_lease_seconds(self) -> int:
        return min(self.lease_seconds, self.function_timeout_seconds)


class HttpSettings(FunctionSettings):
    """The HTTP app's own: request limits, the SSE heartbeat, the console, the local port."""

    port: int = Field(default=8000, alias="PORT")
    max_message_chars: int = Field(default=8000, alias="TRAINER_MAX_MESSAGE_CHARS")
    max_body_bytes: int = Field(default=256_000, alias="TRAINER_MAX_BODY_BYTES")
    heartbeat_seconds: float = Field(default=15.0, alias="TRAINER_HEARTBEAT_SECONDS")
    console_enabled: bool = Field(default=False, alias="TRAINER_CONSOLE_ENABLED")
    """Serve the session console (static files) at /console; the local stack turns it on."""


class ProgramSettings(FunctionSettings):
    """The training-program pipeline's schedule."""

    morning_hour: int = Field(default=6, ge=0, le=23, alias="TRAINER_MORNING_HOUR")
    """The local hour (each user's own time zone) today's workout message goes out (WorkoutReady)."""


class PushSettings(FunctionSettings):
    """Delivery to the phone (trainer.jobs.notifier): the SNS platform applications and SMS."""

    sns_apns_application_arn: str | None = Field(default=None, alias="TRAINER_SNS_APNS_APPLICATION_ARN")
    sns_apns_sandbox_application_arn: str | None = Field(
        default=None, alias="TRAINER_SNS_APNS_SANDBOX_APPLICATION_ARN"
    )
    sns_fcm_application_arn: str | None = Field(default=None, alias="TRAINER_SNS_FCM_APPLICATION_ARN")
    """The SNS platform applications push goes through (template.yaml creates them from the credentials
    its parameters name); unset or empty: no push to that platform, recorded as `push_not_configured`."""
    sms_enabled: bool = Field(default=False, alias="TRAINER_SMS_ENABLED")
    """Text the day's workout to users who opted in with a verified number (SNS SMS; costs per message)."""

    @property
    def push_applications(self) -> dict[str, str]:
        """The SNS platform application ARN of each device platform that has one."""
        arns = {
            "apns": self.sns_apns_application_arn,
            "apns_sandbox": self.sns_apns_sandbox_application_arn,
            "fcm": self.sns_fcm_application_arn,
        }
        return {platform: arn for platform, arn in arns.items() if arn}
