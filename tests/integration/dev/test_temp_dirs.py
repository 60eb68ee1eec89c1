"""A test run's servers live outside pytest's shared `pytest-of-<user>` directory, which every other
pytest run on the machine resets to mode 0700 when it starts (tests/temp_dirs.py)."""

from __future__ import annotations

import getpass
import tempfile
from pathlib import Path

import psycopg
from trainer_dev.local.postgres import PgHandle, start_postgres


def test_a_run_starting_beside_this_one_cannot_lock_its_servers_out(
    pg_server: PgHandle, tmp_path: Path
) -> None:
    shared = Path(tempfile.gettempdir()) / f"pytest-of-{getpass.getuser()}"
    assert shared not in tmp_path.parents and shared not in pg_server.data_dir.parents
    if shared.exists():
        shared.chmod(0o700)  # what a pytest run without --basetemp does to it as it starts
    handle = start_postgres(tmp_path / "pgdata", durable=False)
    try:
        with psycopg.connect(handle.url, autocommit=True) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        handle.stop()
    with psycopg.connect(pg_server.url, autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
