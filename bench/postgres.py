"""A throwaway embedded Postgres for the benches that measure SQL."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from trainer.store.migrate import apply_migrations
from trainer_dev.local.postgres import start_postgres


def on_fresh_postgres(measure: Callable[[str], Coroutine[Any, Any, list[str]]]) -> list[str]:
    """`measure(database_url)` against a migrated, non-durable cluster that is removed afterwards."""
    handle = start_postgres(Path(tempfile.mkdtemp(prefix="bench-pg-")) / "data", durable=False)
    try:
        apply_migrations(handle.url)
        return asyncio.run(measure(handle.url))
    finally:
        handle.stop()
