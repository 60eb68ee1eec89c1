"""The embedded Postgres runs in UTC whatever the machine's time zone, as RDS does: a timestamp comes
back (and the API answers it) in UTC, so a date read from it is the UTC day on any machine. initdb
writes the zone of its environment into the cluster's configuration; the server's start options
override it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from trainer_dev.local.postgres import start_postgres


def test_a_cluster_made_on_a_machine_ten_hours_behind_utc_answers_in_utc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "America/Adak")
    handle = start_postgres(tmp_path / "pgdata", durable=False)
    try:
        with psycopg.connect(handle.url, autocommit=True) as conn:
            assert conn.execute("SHOW timezone").fetchone() == ("UTC",)
            row = conn.execute("SELECT '2026-03-02T00:00:00Z'::timestamptz").fetchone()
            assert row is not None
            midnight: datetime = row[0]
            assert midnight.utcoffset() == timedelta(0)
            assert midnight.date().isoformat() == "2026-03-02"
            assert midnight == datetime(2026, 3, 2, tzinfo=UTC)
    finally:
        handle.stop()
