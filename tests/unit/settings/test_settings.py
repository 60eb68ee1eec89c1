"""Settings read the environment by the fields' aliases; keyword arguments win; nothing heavier than
pydantic is imported to do it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from trainer.settings import Settings

ROOT = Path(__file__).resolve().parents[3]


def test_the_environment_is_read_by_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINER_MODEL", "claude-sonnet-4-6")
    monkeypatch.setenv("TRAINER_MAX_ITERATIONS", "7")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("max_iterations", "99")
    monkeypatch.setenv("SOMETHING_ELSE", "ignored")
    settings = Settings()
    assert (settings.model, settings.max_iterations) == ("claude-sonnet-4-6", 7)
    assert settings.anthropic_api_key is not None
    assert settings.anthropic_api_key.get_secret_value() == "sk-test"


def test_keyword_arguments_win_by_alias_or_by_field_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINER_MODEL", "from-the-environment")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert Settings(model="by-name").model == "by-name"
    assert Settings(TRAINER_MODEL="by-alias").model == "by-alias"
    assert Settings(ANTHROPIC_API_KEY=None).anthropic_api_key is None


def test_invalid_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINER_LEASE_SECONDS", "1")
    with pytest.raises(ValueError, match="TRAINER_LEASE_SECONDS"):
        Settings()


def test_model_construct_is_every_default_whatever_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINER_MAX_MESSAGE_CHARS", "5")
    assert Settings.model_construct().max_message_chars == Settings.model_fields["max_message_chars"].default


def test_reading_the_settings_imports_no_settings_framework() -> None:
    code = (
        "import sys, trainer.settings; trainer.settings.Settings(); print('pydantic_settings' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(ROOT / "layers" / "core")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "False"
