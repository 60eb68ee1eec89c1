"""Every ScriptedModel a test builds is checked when the test ends: a script that ran out, or was left
unfinished, fails its test even when the agent loop caught the error (trainer_dev.testing.scripted_model;
`ScriptedModel(..., unfinished_ok=True)` for a turn cut short on purpose)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from trainer_dev.testing.scripted_model import scripted_models_built


@pytest.fixture(autouse=True)
def scripted_models_complete() -> Iterator[None]:
    """Fails the test (at teardown) when a ScriptedModel it built ran out of script or left part of it."""
    with scripted_models_built() as models:
        yield
    for model in models:
        model.assert_complete()
