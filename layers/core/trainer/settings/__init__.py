"""The settings: the one package that reads the environment (docs/operations.md#configuration).

- `environment`: how a model reads its variables, and `from_environment()`, the init-phase check;
- `groups`: the variables of each concern (`DatabaseSettings`, `ModelSettings`, `AuthSettings`...);
- `functions`: one model per function (`ApiSettings`, `CostSettings`...), the groups it reads and what it
  cannot start without when deployed; `Settings`, all of them at once.
"""

from trainer.settings.environment import ConfigurationError, EnvironmentModel, Requirement
from trainer.settings.functions import (
    ApiSettings,
    CheckpointSettings,
    CostSettings,
    MicrocycleSettings,
    MigrateSettings,
    NotifierSettings,
    PlanSettings,
    ProgramJobSettings,
    PushAppsSettings,
    SchedulerSettings,
    Settings,
    StreamSettings,
    get_settings,
)
from trainer.settings.groups import (
    LOCAL_DB_POOL_MAX,
    LOCAL_JWT_SECRET,
    AuthSettings,
    ContextWindowSettings,
    DatabaseSettings,
    EventBusSettings,
    FunctionSettings,
    HttpSettings,
    IdempotencySettings,
    ModelRequestSettings,
    ModelSettings,
    ProgramSettings,
    PushSettings,
    SessionTableSettings,
    TurnSettings,
)

__all__ = [
    "LOCAL_DB_POOL_MAX",
    "LOCAL_JWT_SECRET",
    "ApiSettings",
    "AuthSettings",
    "CheckpointSettings",
    "ConfigurationError",
    "ContextWindowSettings",
    "CostSettings",
    "DatabaseSettings",
    "EnvironmentModel",
    "EventBusSettings",
    "FunctionSettings",
    "HttpSettings",
    "IdempotencySettings",
    "MicrocycleSettings",
    "MigrateSettings",
    "ModelRequestSettings",
    "ModelSettings",
    "NotifierSettings",
    "PlanSettings",
    "ProgramJobSettings",
    "ProgramSettings",
    "PushAppsSettings",
    "PushSettings",
    "Requirement",
    "SchedulerSettings",
    "SessionTableSettings",
    "Settings",
    "StreamSettings",
    "TurnSettings",
    "get_settings",
]
