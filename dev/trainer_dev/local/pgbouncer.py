"""PgBouncer in transaction mode in front of a local Postgres, listening on 127.0.0.1.

The test suite runs its Postgres tests through it once (`pytest --pgbouncer`) to prove every statement
works through a transaction-mode pooler, as behind RDS Proxy or PgBouncer in production: no prepared
statement or session state may outlive a transaction. The binary comes from Debian's `pgbouncer`
package (`scripts/ensure_system_packages.sh` installs it). Authentication is `trust`, like the embedded
Postgres behind it; as root it runs as the embedded Postgres system user, since PgBouncer refuses root.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from trainer.runtime_secrets import with_host

from trainer_dev.local.postgres import free_port, prepare_permissions

SEARCH_PATH = "/usr/sbin:/usr/local/sbin:/usr/bin:/usr/local/bin"
START_ATTEMPTS = 3
READY_SECONDS = 10.0


class PgBouncerMissing(RuntimeError):
    """No `pgbouncer` binary: run scripts/ensure_system_packages.sh (or `make test`)."""


@dataclass
class PgBouncerHandle:
    url: str
    port: int
    work_dir: Path
    _process: subprocess.Popen[bytes] = field(repr=False)
    _stopped: bool = field(repr=False, default=False)

    def stop(self) -> None:
        """Stop PgBouncer (immediate shutdown); safe to call more than once."""
        if self._stopped:
            return
        self._stopped = True
        atexit.unregister(self.stop)
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)

    @property
    def running(self) -> bool:
        return not self._stopped and self._process.poll() is None


def find_pgbouncer() -> str | None:
    return shutil.which("pgbouncer") or shutil.which("pgbouncer", path=SEARCH_PATH)


def start_pgbouncer(upstream_url: str, work_dir: Path, *, pool_size: int = 20) -> PgBouncerHandle:
    """Start PgBouncer (pool_mode=transaction) for every database of the server `upstream_url` names;
    returns the URL of the same database through it."""
    binary = find_pgbouncer()
    if binary is None:
        raise PgBouncerMissing("pgbouncer is not installed: run scripts/ensure_system_packages.sh")
    upstream = urlsplit(upstream_url)
    user = upstream.username or "postgres"
    work_dir = Path(work_dir).expanduser().resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    run_as = prepare_permissions(work_dir)
    (work_dir / "userlist.txt").write_text(f'"{user}" ""\n')
    last_error = ""
    for _ in range(START_ATTEMPTS):
        port = free_port()
        config = work_dir / "pgbouncer.ini"
        config.write_text(
            _config(upstream.hostname or "127.0.0.1", upstream.port or 5432, port, work_dir, pool_size)
        )
        command = [binary, *(["-u", run_as] if run_as else []), str(config)]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        if _wait_until_listening(process, port):
            handle = PgBouncerHandle(with_host(upstream_url, f"127.0.0.1:{port}"), port, work_dir, process)
            atexit.register(handle.stop)
            return handle
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.wait(timeout=10)
        log = work_dir / "pgbouncer.log"
        last_error = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise RuntimeError(f"PgBouncer failed to start in {work_dir}:\n{last_error}")


def _config(upstream_host: str, upstream_port: int, port: int, work_dir: Path, pool_size: int) -> str:
    return "\n".join(
        [
            "[databases]",
            f"* = host={upstream_host} port={upstream_port}",
            "[pgbouncer]",
            "listen_addr = 127.0.0.1",
            f"listen_port = {port}",
            "unix_socket_dir =",
            "auth_type = trust",
            f"auth_file = {work_dir / 'userlist.txt'}",
            "pool_mode = transaction",
            "server_reset_query = DISCARD ALL",
            "server_reset_query_always = 1",
            f"default_pool_size = {pool_size}",
            "max_client_conn = 500",
            f"logfile = {work_dir / 'pgbouncer.log'}",
            f"pidfile = {work_dir / 'pgbouncer.pid'}",
            "",
        ]
    )


def _wait_until_listening(process: subprocess.Popen[bytes], port: int) -> bool:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False
