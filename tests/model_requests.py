"""No test reaches a real model unless told to (pydantic-ai's ALLOW_MODEL_REQUESTS;
docs/testing.md#the-layers).

At the start of the session, unless TRAINER_ALLOW_MODEL_REQUESTS=1 (what `make eval` sets), this turns
model requests off (trainer.model_guard) in the test process, and sets TRAINER_ALLOW_MODEL_REQUESTS=0
and removes the model variables (keys, base URLs, model ids, the SSM key parameters:
`MODEL_VARIABLES`) from its environment, which every process a test starts inherits (the local stacks
of tests/e2e pass TRAINER_ALLOW_MODEL_REQUESTS on). A developer's exported ANTHROPIC_API_KEY then
switches nothing to the live API, and a client built for a host beyond loopback is refused."""

from __future__ import annotations

import os

import pytest
from trainer import model_guard
from trainer.settings import FunctionSettings, ModelRequestSettings, ModelSettings

ALLOW_VARIABLE = "TRAINER_ALLOW_MODEL_REQUESTS"
MODEL_VARIABLES = tuple(
    name
    for name in ModelSettings.environment_variables()
    if name not in {*FunctionSettings.environment_variables(), *ModelRequestSettings.environment_variables()}
)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(ALLOW_VARIABLE) == "1":
        model_guard.allow_model_requests(True)
        return
    for name in MODEL_VARIABLES:
        os.environ.pop(name, None)
    os.environ[ALLOW_VARIABLE] = "0"
    model_guard.allow_model_requests(False)
