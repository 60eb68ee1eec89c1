"""One settings model per function (as template.yaml declares them), each the groups it reads and the
requirements it cannot start without when deployed; its functions/<name>/app.py loads it in the init
phase (`Model.from_environment()`), so a function missing one fails there, with the variable's name,
instead of answering its first request with a 500.

`Settings` is every function's settings at once: what the composition root (trainer.container) takes,
and the local stack, which runs every function in one process; it is a subclass of each function's
model, so code that takes a function's model takes it too.
"""

from functools import lru_cache
from typing import ClassVar

from trainer.settings.environment import Requirement
from trainer.settings.groups import (
    AuthSettings,
    ContextWindowSettings,
    DatabaseSettings,
    EventBusSettings,
    FunctionSettings,
    HttpSettings,
    IdempotencySettings,
    ModelSettings,
    ProgramSettings,
    PushSettings,
    SessionTableSettings,
    TurnSettings,
)

SESSIONS_TABLE = Requirement(("TRAINER_TABLE_NAME",), "the DynamoDB sessions table")
IDEMPOTENCY_TABLE = Requirement(("TRAINER_IDEMPOTENCY_TABLE_NAME",), "the DynamoDB idempotency table")
EVENT_BUS = Requirement(("TRAINER_EVENT_BUS_NAME",), "the EventBridge bus")
DATABASE = Requirement(("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN"), "the Postgres database")
TOKEN_VERIFICATION = Requirement(
    ("TRAINER_JWKS_URL", "TRAINER_JWT_SECRET"),
    "bearer tokens: the JwksUrl parameter, or a secret of this deployment's own",
    accepts=lambda settings: settings.verifies_tokens_safely,
    refusal="is not set, or TRAINER_JWT_SECRET is the public development default",
)
FUNCTION_TIMEOUT = Requirement(
    ("TRAINER_FUNCTION_TIMEOUT_SECONDS",), "the function's timeout, which caps a turn's lease"
)


class CheckpointSettings(SessionTableSettings, DatabaseSettings, ContextWindowSettings):
    """CheckpointFunction (functions/checkpoint): checkpoints a long session after TurnCompleted,
    keeping the user's temporary preferences and location (read from Postgres)."""

    function: ClassVar[str] = "CheckpointFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = (SESSIONS_TABLE, DATABASE)


class CostSettings(SessionTableSettings, IdempotencySettings):
    """CostFunction (functions/costs): a turn's usage into session and daily totals, once per turn."""

    function: ClassVar[str] = "CostFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = (SESSIONS_TABLE, IDEMPOTENCY_TABLE)


class ProgramJobSettings(DatabaseSettings, ModelSettings, EventBusSettings, ProgramSettings):
    """What the program pipeline's functions share (trainer.jobs.programs.LambdaRuntime): Postgres, the
    program agents' models, EventBridge to publish on."""


class PlanSettings(ProgramJobSettings):
    """PlanFunction (functions/plans): builds a requested plan and its first week."""

    function: ClassVar[str] = "PlanFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = (DATABASE,)


class MicrocycleSettings(ProgramJobSettings):
    """MicrocycleFunction (functions/microcycle): builds a plan's week."""

    function: ClassVar[str] = "MicrocycleFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = (DATABASE,)


class SchedulerSettings(ProgramJobSettings):
    """SchedulerFunction (functions/scheduler): the hourly runs, which publish WeekDue and WorkoutReady."""

    function: ClassVar[str] = "SchedulerFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = (DATABASE, EVENT_BUS)


class NotifierSettings(DatabaseSettings, PushSettings, ProgramSettings):
    """NotifierFunction (functions/notifier): WorkoutReady -> the day's workout pushed (and texted) at
    the user's morning hour; PushEndpointsRetired -> the SNS endpoints of removed devices deleted."""

    function: ClassVar[str] = "NotifierFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = (DATABASE,)


class PushAppsSettings(FunctionSettings):
    """PushAppsFunction (functions/push_apps): the custom resource that creates the SNS platform
    applications from the secrets the template's resources name (only the AWS SDK's variables)."""

    function: ClassVar[str] = "PushAppsFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = ()


class MigrateSettings(DatabaseSettings):
    """MigrateFunction (functions/migrate): applies the Postgres migrations."""

    function: ClassVar[str] = "MigrateFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = (DATABASE,)


class Settings(
    CheckpointSettings,
    CostSettings,
    ProgramJobSettings,
    NotifierSettings,
    PushAppsSettings,
    MigrateSettings,
    AuthSettings,
    TurnSettings,
    HttpSettings,
):
    """Every function's settings at once (see the module docstring)."""

    function: ClassVar[str] = "the local stack"


HTTP_REQUIREMENTS = (SESSIONS_TABLE, EVENT_BUS, DATABASE, TOKEN_VERIFICATION, FUNCTION_TIMEOUT)
"""The HTTP functions serve the whole app: the container wires every store, the bus and the models."""


class ApiSettings(Settings):
    """ApiFunction (functions/api): the buffered routes, the FastAPI app under Mangum."""

    function: ClassVar[str] = "ApiFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = HTTP_REQUIREMENTS


class StreamSettings(Settings):
    """StreamFunction (functions/stream): POST /agent/stream, the same app under uvicorn behind the
    Lambda Web Adapter."""

    function: ClassVar[str] = "StreamFunction"
    requirements: ClassVar[tuple[Requirement, ...]] = HTTP_REQUIREMENTS


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The development tools' settings (the local stack, the CLI, `trainer invoke`), read once; a
    deployed function loads its own model in its init phase instead."""
    return Settings()
