"""Model requests are off in tests (tests/model_requests.py): a model SDK client for a host beyond
loopback is refused, naming the host, through every adapter that builds one; loopback (the fake model
servers) stays allowed; TRAINER_ALLOW_MODEL_REQUESTS=1 (`make eval`) and production allow every host."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from trainer import model_guard
from trainer.model_guard import ModelRequestsNotAllowed, checked_base_url, override_allow_model_requests
from trainer.providers.anthropic import AnthropicAgentModel, AnthropicStructured, anthropic_client
from trainer.providers.openai import OpenAIKnowledgeSelector, OpenAIStructured, openai_client
from trainer.settings import Settings

from tests.model_requests import ALLOW_VARIABLE, MODEL_VARIABLES

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-bogus", "OPENAI_API_KEY": "sk-bogus"}

ANTHROPIC_BUILDERS: list[Callable[[Settings], Any]] = [
    lambda settings: anthropic_client(settings, None, 0, fallback="the offline model"),
    AnthropicAgentModel,
    AnthropicStructured,
]
OPENAI_BUILDERS: list[Callable[[Settings], Any]] = [
    lambda settings: openai_client(settings, None, 0, fallback="the deterministic selector"),
    OpenAIKnowledgeSelector,
    OpenAIStructured,
]


@contextmanager
def as_the_environment_says() -> Iterator[None]:
    saved = model_guard.model_requests_allowed()
    model_guard.allow_model_requests(None)
    try:
        yield
    finally:
        model_guard.allow_model_requests(saved)


def test_this_session_runs_with_model_requests_off_and_no_model_variables() -> None:
    if os.environ.get(ALLOW_VARIABLE) == "1":
        pytest.skip("this session was told to allow model requests")
    assert not model_guard.model_requests_allowed()
    assert os.environ[ALLOW_VARIABLE] == "0", "so the processes the tests start have them off too"
    assert not set(MODEL_VARIABLES) & set(os.environ)
    assert {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "TRAINER_MODEL", "TRAINER_AGENT_PROVIDER"} <= set(
        MODEL_VARIABLES
    )


@pytest.mark.parametrize("build", ANTHROPIC_BUILDERS)
def test_an_anthropic_client_for_the_real_api_is_refused(build: Callable[[Settings], Any]) -> None:
    with (
        override_allow_model_requests(False),
        pytest.raises(ModelRequestsNotAllowed, match=r"'api\.anthropic\.com'"),
    ):
        build(Settings.model_validate(KEYS))


@pytest.mark.parametrize("build", OPENAI_BUILDERS)
def test_an_openai_client_for_the_real_api_is_refused(build: Callable[[Settings], Any]) -> None:
    with (
        override_allow_model_requests(False),
        pytest.raises(ModelRequestsNotAllowed, match=r"'api\.openai\.com'"),
    ):
        build(Settings.model_validate(KEYS))


@pytest.mark.parametrize("build", ANTHROPIC_BUILDERS + OPENAI_BUILDERS)
@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
def test_clients_for_loopback_hosts_are_built(build: Callable[[Settings], Any], host: str) -> None:
    settings = Settings.model_validate(
        {**KEYS, "ANTHROPIC_BASE_URL": f"http://{host}", "OPENAI_BASE_URL": f"http://{host}/v1"}
    )
    with override_allow_model_requests(False):
        assert build(settings) is not None


@pytest.mark.parametrize("build", ANTHROPIC_BUILDERS + OPENAI_BUILDERS)
def test_with_model_requests_on_the_real_apis_are_allowed(build: Callable[[Settings], Any]) -> None:
    with override_allow_model_requests(True):
        assert build(Settings.model_validate(KEYS)) is not None


@pytest.mark.parametrize(
    ("value", "allowed"), [(None, True), ("1", True), ("true", True), ("0", False), ("false", False)]
)
def test_the_flag_comes_from_the_environment_unless_the_process_set_it(
    monkeypatch: pytest.MonkeyPatch, value: str | None, allowed: bool
) -> None:
    if value is None:
        monkeypatch.delenv(ALLOW_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(ALLOW_VARIABLE, value)
    with as_the_environment_says():
        assert model_guard.model_requests_allowed() is allowed
    with override_allow_model_requests(not allowed):
        assert model_guard.model_requests_allowed() is not allowed


@pytest.mark.parametrize(
    "url",
    [
        "https://api.anthropic.com",
        "https://api.openai.com/v1",
        "http://10.0.0.5:8080",
        "http://127.evil.example",
    ],
)
def test_only_loopback_passes_while_off(url: str) -> None:
    with override_allow_model_requests(False), pytest.raises(ModelRequestsNotAllowed):
        checked_base_url(url)
