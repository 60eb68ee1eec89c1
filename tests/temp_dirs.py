"""Each test run's temporary directories under a directory of its own in the system's temp directory,
not under pytest's shared `pytest-of-<user>`.

Why: the embedded Postgres and PgBouncer run as an unprivileged user (they refuse root), so the
directories above their data must let that user through. Every pytest run that does not name its
`--basetemp` resets `pytest-of-<user>` to mode 0700 when it starts, which locks the servers of any other
run on the machine out of their own data (a PANIC, then "the database is not reachable" for every test
after it). A run with its own base directory is never touched by another run. The base directory is
removed when the run passes, and kept (its path printed) when it fails.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

_OWN_BASETEMP = "_trainer_own_basetemp"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    worker = hasattr(config, "workerinput")  # an xdist worker gets a directory under the controller's
    if config.option.basetemp is None and not worker:
        base = tempfile.mkdtemp(prefix="trainer-pytest-")
        config.option.basetemp = base
        setattr(config, _OWN_BASETEMP, Path(base))


def pytest_unconfigure(config: pytest.Config) -> None:
    base: Path | None = getattr(config, _OWN_BASETEMP, None)
    if base is None:
        return
    session = getattr(config, "_trainer_session_failed", None)
    if session:
        print(f"\ntemporary files of this run kept in {base}")
        return
    shutil.rmtree(base, ignore_errors=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config._trainer_session_failed = exitstatus not in (0, 5)  # type: ignore[attr-defined]
