"""Versioned SQL migrations (`store/migrations/NNNN_name.sql`), applied in order, each once; then the
prompt files seed the `prompts` table (trainer/store/prompt_files.py).

Safe to run concurrently (cold Lambdas, `make run`, test workers): every transaction of a run takes a
transaction-level advisory lock first, `schema_migrations` records what is applied, and each file runs
in its own transaction, re-checked under the lock. No session state is used (no session lock, no
prepared statements), so the URL may name PgBouncer in transaction mode or RDS Proxy; the deployed
MigrateFunction still connects to the database directly. An applied file whose text changed is an
error, never silently re-run, unless the file names the checksum of the text it replaced on a line
`-- replaces checksum <sha256 hex>`: how a migration that only seeded data a later mechanism now writes
is emptied, or an applied migration's comments are reworded, without failing the databases that
applied the earlier text (the statements themselves never change).

Usable from AWS as `python -m trainer.store.migrate` (DATABASE_URL from Settings) or by calling
`apply_migrations(url)` from a deploy hook.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import psycopg

from trainer.store.db import POOLER_SAFE
from trainer.store.prompt_files import read_prompt_files, seed_prompts

ADVISORY_LOCK_KEY = 0x7472_6169_6E65_72  # "trainer"
_FILE_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_REPLACED_CHECKSUM = re.compile(r"^-- replaces checksum ([0-9a-f]{64})$", re.MULTILINE)


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True)
class Migration:
    version: str
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()

    @property
    def accepted_checksums(self) -> frozenset[str]:
        """This text's checksum and those of the earlier texts it says it replaces."""
        return frozenset({self.checksum, *_REPLACED_CHECKSUM.findall(self.sql)})


def load_migrations() -> list[Migration]:
    """The packaged migration files, sorted by version; duplicate versions are an error."""
    found: dict[str, Migration] = {}
    for entry in (resources.files("trainer.store") / "migrations").iterdir():
        match = _FILE_NAME.match(entry.name)
        if not match:
            continue
        version = match.group(1)
        if version in found:
            raise MigrationError(f"two migrations share version {version}")
        found[version] = Migration(version, entry.name, entry.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def apply_migrations(url: str, prompts: Mapping[str, str] | None = None) -> list[str]:
    """Apply pending migrations, then seed the prompts (`prompts` by id, the packaged prompt files when
    None); returns the names of the files applied by this call."""
    migrations = load_migrations()
    applied_now: list[str] = []
    with psycopg.connect(url, **POOLER_SAFE) as conn:
        with conn.transaction():
            _lock(conn)
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = _applied(conn)
        for migration in migrations:
            if _check(migration, done):
                continue
            with conn.transaction():
                _lock(conn)
                if _check(migration, _applied(conn)):
                    continue
                conn.execute(migration.sql.encode())
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                    (migration.version, migration.name, migration.checksum),
                )
            applied_now.append(migration.name)
        with conn.transaction():
            _lock(conn)
            seed_prompts(conn, read_prompt_files() if prompts is None else prompts)
    return applied_now


def _lock(conn: psycopg.Connection[Any]) -> None:
    """Serialise runners until this transaction ends (released by commit or rollback), and lift the
    role's statement timeout (migration 0006) for it: a migration may take longer than a request.
    `SET LOCAL`, so nothing outlives the transaction on a pooler's shared server connection."""
    conn.execute("SET LOCAL statement_timeout = 0")
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK_KEY,))


def _applied(conn: psycopg.Connection[Any]) -> dict[str, tuple[str, str]]:
    rows = conn.execute("SELECT version, name, checksum FROM schema_migrations").fetchall()
    return {version: (name, checksum) for version, name, checksum in rows}


def _check(migration: Migration, done: dict[str, tuple[str, str]]) -> bool:
    """Whether the migration is applied; an applied file whose text changed is an error."""
    if migration.version not in done:
        return False
    name, checksum = done[migration.version]
    if checksum not in migration.accepted_checksums:
        raise MigrationError(f"migration {name} was changed after it was applied")
    return True


def main() -> int:
    from trainer.settings import get_settings

    url = get_settings().database_url
    if not url:
        print("DATABASE_URL is not set", file=sys.stderr)
        return 2
    applied = apply_migrations(url)
    print(f"applied {len(applied)} migration(s): {', '.join(applied) or 'none pending'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
