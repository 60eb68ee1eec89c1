"""functions/migrate/app.py against embedded Postgres: runs, is idempotent, refuses without a database."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from trainer.store.migrate import load_migrations

HANDLER = Path(__file__).resolve().parents[3] / "functions" / "migrate" / "app.py"


@pytest.fixture
def load_migrate_app(monkeypatch: pytest.MonkeyPatch) -> Callable[[str | None], ModuleType]:
    """Imports the handler afresh, as a cold start does, with DATABASE_URL as given (None: unset)."""

    def load(database_url: str | None) -> ModuleType:
        monkeypatch.delenv("TRAINER_DATABASE_SECRET_ARN", raising=False)
        if database_url is None:
            monkeypatch.delenv("DATABASE_URL", raising=False)
        else:
            monkeypatch.setenv("DATABASE_URL", database_url)
        spec = importlib.util.spec_from_file_location("lambda_migrate_app", HANDLER)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


def test_handler_on_a_migrated_database_applies_nothing(
    pg_url: str, load_migrate_app: Callable[[str | None], ModuleType]
) -> None:
    assert load_migrate_app(pg_url).handler({}, None) == {"applied": []}
    assert load_migrations(), "the layer ships its migrations"


def test_handler_without_a_database_is_a_clear_error(
    load_migrate_app: Callable[[str | None], ModuleType],
) -> None:
    """Run locally (deployed, the function would not even start:
    tests/unit/settings/test_function_settings.py)."""
    migrate_app = load_migrate_app(None)
    with pytest.raises(RuntimeError, match="no database configured"):
        migrate_app.handler({}, None)
