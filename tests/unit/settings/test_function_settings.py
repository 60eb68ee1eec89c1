"""Each function checks its settings in its init phase (docs/operations.md#configuration): started with the
environment template.yaml gives it, it starts; deployed without a variable it needs, or with one invalid, its
functions/<name>/app.py fails at import (the stream function: when uvicorn calls its factory) with an error
naming the variable; run locally, the defaults serve.

One subprocess per function, which imports the handler afresh for each environment, as a new Lambda
execution environment would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from trainer.settings import (
    LOCAL_JWT_SECRET,
    ApiSettings,
    CheckpointSettings,
    ConfigurationError,
    CostSettings,
    EnvironmentModel,
    MicrocycleSettings,
    MigrateSettings,
    NotifierSettings,
    PlanSettings,
    ProgramJobSettings,
    PushAppsSettings,
    SchedulerSettings,
    Settings,
    StreamSettings,
)
from trainer_dev.testing.lambda_environment import RUNTIME, deployed_environment, function_directories

ROOT = Path(__file__).resolve().parents[3]

HTTP_NEEDS = [
    ("TRAINER_TABLE_NAME",),
    ("TRAINER_EVENT_BUS_NAME",),
    ("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN"),
    ("TRAINER_JWKS_URL", "TRAINER_JWT_SECRET"),
    ("TRAINER_FUNCTION_TIMEOUT_SECONDS",),
]
FUNCTIONS: dict[str, tuple[type[EnvironmentModel], list[tuple[str, ...]]]] = {
    "api": (ApiSettings, HTTP_NEEDS),
    "stream": (StreamSettings, HTTP_NEEDS),
    "checkpoint": (
        CheckpointSettings,
        [("TRAINER_TABLE_NAME",), ("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN")],
    ),
    "costs": (CostSettings, [("TRAINER_TABLE_NAME",), ("TRAINER_IDEMPOTENCY_TABLE_NAME",)]),
    "plans": (PlanSettings, [("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN")]),
    "microcycle": (MicrocycleSettings, [("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN")]),
    "scheduler": (
        SchedulerSettings,
        [("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN"), ("TRAINER_EVENT_BUS_NAME",)],
    ),
    "migrate": (MigrateSettings, [("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN")]),
    "notifier": (NotifierSettings, [("DATABASE_URL", "TRAINER_DATABASE_SECRET_ARN")]),
    "push_apps": (PushAppsSettings, []),
}
"""Each function's settings model, and the variables it cannot start without when deployed (one of each
tuple)."""

FACTORIES = {"stream": "create_app"}
"""What starts a function beyond its import: run.sh has uvicorn call `app:create_app`."""

CHILD = """
import importlib.util, json, os, sys

path, factory, cases = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
outcomes = {}
for index, (label, environment) in enumerate(cases):
    os.environ.clear()
    os.environ.update(environment)
    spec = importlib.util.spec_from_file_location(f"lambda_app_{index}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        if factory:
            getattr(module, factory)()
        outcomes[label] = None
    except Exception as exc:
        outcomes[label] = f"{type(exc).__name__}: {exc}"
print(json.dumps(outcomes))
"""


def start(directory: str, cases: dict[str, dict[str, str]]) -> dict[str, str | None]:
    """For each case, None if the function started with that environment, else its init error."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(ROOT / "functions" / directory / "app.py"),
            FACTORIES.get(directory, ""),
            json.dumps(list(cases.items())),
        ],
        env={"PYTHONPATH": f"{ROOT}:{ROOT / 'layers' / 'core'}"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcomes: dict[str, str | None] = json.loads(result.stdout.strip().splitlines()[-1])
    return outcomes


def test_every_function_of_the_template_has_its_settings_model() -> None:
    assert set(function_directories()) == set(FUNCTIONS)
    for model, needs in FUNCTIONS.values():
        assert [requirement.variables for requirement in model.requirements] == needs, model.__name__


def test_the_local_stacks_settings_serve_as_every_functions() -> None:
    """The local stack runs every function in one process on one `Settings`, which the job code (typed
    with the job models) and the HTTP functions' models (its subclasses) both take."""
    for model in (
        CheckpointSettings,
        CostSettings,
        ProgramJobSettings,
        MigrateSettings,
        NotifierSettings,
        PushAppsSettings,
    ):
        assert issubclass(Settings, model), model.__name__
    for model in (PlanSettings, MicrocycleSettings, SchedulerSettings):
        assert issubclass(model, ProgramJobSettings) and set(model.model_fields) == set(
            ProgramJobSettings.model_fields
        )
    assert issubclass(ApiSettings, Settings) and issubclass(StreamSettings, Settings)
    assert set(Settings.model_fields) == set().union(*(model.model_fields for model, _ in FUNCTIONS.values()))


@pytest.mark.parametrize("directory", sorted(FUNCTIONS))
def test_a_deployed_function_refuses_to_start_without_what_it_needs(directory: str) -> None:
    model, needs = FUNCTIONS[directory]
    deployed = deployed_environment(function_directories()[directory])
    cases = {"as deployed": deployed, "locally, on the defaults": dict(RUNTIME)}
    for variables in needs:
        cases[" or ".join(variables)] = {k: v for k, v in deployed.items() if k not in variables}
    if "TRAINER_DATABASE_SECRET_ARN" in deployed:
        cases["invalid"] = {**deployed, "TRAINER_DB_POOL_MAX": "a few"}
        cases["a database URL instead"] = {
            **{k: v for k, v in deployed.items() if k != "TRAINER_DATABASE_SECRET_ARN"},
            "DATABASE_URL": "postgresql://trainer@db.internal:5432/trainer",
        }

    outcomes = start(directory, cases)

    assert outcomes.pop("as deployed") is None, "it starts with the variables template.yaml gives it"
    assert outcomes.pop("locally, on the defaults") is None
    if "a database URL instead" in outcomes:
        assert outcomes.pop("a database URL instead") is None
        invalid = outcomes.pop("invalid")
        assert invalid is not None and "TRAINER_DB_POOL_MAX is invalid" in invalid, invalid
    for missing, error in outcomes.items():
        assert error is not None, f"started without {missing}"
        assert error.startswith(f"ConfigurationError: {model.function} cannot start: {missing} "), error
    assert set(outcomes) == {" or ".join(variables) for variables in needs}


@pytest.mark.parametrize("directory", ["api", "stream"])
def test_a_deployed_http_function_refuses_the_public_development_secret(directory: str) -> None:
    deployed = deployed_environment(function_directories()[directory])
    del deployed["TRAINER_JWKS_URL"]
    outcomes = start(
        directory,
        {
            "the public secret": {**deployed, "TRAINER_JWT_SECRET": LOCAL_JWT_SECRET},
            "its own secret": {**deployed, "TRAINER_JWT_SECRET": "a-secret-of-this-deployment-0123456789"},
        },
    )
    assert outcomes["its own secret"] is None
    refusal = outcomes["the public secret"]
    assert refusal is not None and "TRAINER_JWT_SECRET is the public development default" in refusal


def test_the_error_names_every_problem_and_quotes_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in deployed_environment("ApiFunction").items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TRAINER_TABLE_NAME")
    monkeypatch.delenv("TRAINER_DATABASE_SECRET_ARN")
    with pytest.raises(ConfigurationError) as caught:
        ApiSettings.from_environment()
    assert caught.value.problems == [
        "TRAINER_TABLE_NAME is not set (the DynamoDB sessions table)",
        "DATABASE_URL or TRAINER_DATABASE_SECRET_ARN is not set (the Postgres database)",
    ]
    monkeypatch.setenv("TRAINER_LEASE_SECONDS", "secret-looking-value")
    with pytest.raises(ConfigurationError) as caught:
        ApiSettings.from_environment()
    assert "TRAINER_LEASE_SECONDS is invalid" in str(caught.value)
    assert "secret-looking-value" not in str(caught.value)


def test_a_variable_set_empty_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in deployed_environment("MigrateFunction").items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("TRAINER_DATABASE_SECRET_ARN", "")
    with pytest.raises(ConfigurationError, match="DATABASE_URL or TRAINER_DATABASE_SECRET_ARN is not set"):
        MigrateSettings.from_environment()
