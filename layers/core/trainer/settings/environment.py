"""The one place that reads the environment (docs/operations.md#configuration), and how a function checks it
at init.

`EnvironmentModel()` validates the variables named by its fields' aliases (exact names, as Lambda sets
them); keyword arguments, by alias or by field name, win over the environment. A plain pydantic model:
every function imports this at cold start, and pydantic-settings' many sources (dotenv, cloud secret
stores, a command line) cost more to import than the whole environment costs to read.
`Model.model_construct()` is every default, with the environment unread.

Cold-start cost: a function imports every model (`Settings` derives from all of them) but validates one,
so each model builds its validator when first used (`defer_build`), and the settings modules do without
`from __future__ import annotations`, which would have pydantic evaluate every inherited annotation
again for each model.

`from_environment()` is what a function's init phase calls (functions/*/app.py): the model of that
function, or a `ConfigurationError` that names every variable that is invalid and, in a deployed
function, every `Requirement` of its model that the environment leaves unmet. The process then never
serves a request: Lambda reports the init error, with the message, in the function's log.
"""

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError


class ConfigurationError(ValueError):
    """The environment does not configure the function: each problem names its variable."""

    def __init__(self, function: str, problems: Sequence[str]) -> None:
        self.function = function
        self.problems = list(problems)
        super().__init__(f"{function} cannot start: " + "; ".join(self.problems))


@dataclass(frozen=True)
class Requirement:
    """What a deployed function cannot start without: one of `variables` set to a value that is not
    empty, and, when `accepts` is given, the settings it produced accepted by it."""

    variables: tuple[str, ...]
    purpose: str
    accepts: Callable[[Any], bool] | None = None
    refusal: str = "is not set"
    """How the message says the requirement is unmet."""

    def met_by(self, settings: "EnvironmentModel") -> bool:
        given = settings.given_variables()
        if not any(name in given for name in self.variables):
            return False
        return self.accepts is None or self.accepts(settings)

    def problem(self) -> str:
        return f"{' or '.join(self.variables)} {self.refusal} ({self.purpose})"


class EnvironmentModel(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, validate_default=True, defer_build=True)

    function: ClassVar[str] = "the process"
    """Who the settings are for, as an init error names it (`ApiFunction`...)."""
    requirements: ClassVar[tuple[Requirement, ...]] = ()
    """What the function needs when deployed, beyond each variable's own validation."""

    def __init__(self, **values: Any) -> None:
        aliases = {name: field.alias for name, field in type(self).model_fields.items() if field.alias}
        environment = {alias: os.environ[alias] for alias in aliases.values() if alias in os.environ}
        super().__init__(**{**environment, **{aliases.get(key, key): value for key, value in values.items()}})

    @classmethod
    def environment_variables(cls) -> tuple[str, ...]:
        """The variables this model reads."""
        return tuple(field.alias for field in cls.model_fields.values() if field.alias)

    def given_variables(self) -> set[str]:
        """The variables that were given (by the environment or by name) a value that is not empty."""
        given = set()
        for name in self.model_fields_set:
            field = type(self).model_fields[name]
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = value.get_secret_value()
            if value is not None and value != "" and field.alias:
                given.add(field.alias)
        return given

    @property
    def deployed(self) -> bool:
        """A deployed function (the Lambda runtime's variables are set), not the local stack."""
        return False

    def unmet_requirements(self) -> list[str]:
        return [requirement.problem() for requirement in self.requirements if not requirement.met_by(self)]

    @classmethod
    def from_environment(cls) -> Self:
        """The settings of `cls` from the environment, checked as a function's init phase needs them:
        ConfigurationError naming each invalid variable, and, deployed, each unmet requirement. The
        message quotes no value (a variable may hold a secret)."""
        try:
            settings = cls()
        except ValidationError as exc:
            problems = [_invalid(error) for error in exc.errors(include_input=False, include_url=False)]
            raise ConfigurationError(cls.function, problems) from None
        unmet = settings.unmet_requirements() if settings.deployed else []
        if unmet:
            raise ConfigurationError(cls.function, unmet)
        return settings


def _invalid(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "the environment"
    return f"{where} is invalid: {error['msg']}"
