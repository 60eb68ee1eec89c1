"""functions/migrate/app.py against embedded Postgres: runs, is idempotent, refuses without a database."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from trainer.settings import get_settings
from trainer.store.migrate import load_migrations

HANDLER = Path(__file__).resolve().parents[2] / "functions" / "migrate" / "app.py"


@pytest.fixture
def migrate_app() -> Iterator[ModuleType]:
    get_settings.cache_clear()
    spec = importlib.util.spec_from_file_location("lambda_migrate_app", HANDLER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    get_settings.cache_clear()


def test_handler_on_a_migrated_database_applies_nothing(
    pg_url: str, migrate_app: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", pg_url)
    get_settings.cache_clear()
    assert migrate_app.handler({}, None) == {"applied": []}
    assert load_migrations(), "the layer ships its migrations"


def test_handler_without_a_database_is_a_clear_error(
    migrate_app: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("TRAINER_DATABASE_SECRET_ARN", raising=False)
    get_settings.cache_clear()
    with pytest.raises(RuntimeError, match="no database configured"):
        migrate_app.handler({}, None)
