"""A pytest plugin that records every connection and name lookup the test process makes beyond
loopback: `pytest -p tests.network_audit --network-audit=PATH ...` appends them to PATH, one a line
(an empty file: nothing left the machine). It watches through an audit hook (`socket.connect`,
`socket.getaddrinfo`), which sees every socket of the process, whatever library opened it; a hook
cannot be removed, so it is for a pytest run of its own
(tests/integration/providers/test_no_model_requests.py)."""

from __future__ import annotations

import ipaddress
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

_beyond_loopback: list[str] = []
_lock = threading.Lock()


def is_local(host: Any) -> bool:
    """Loopback, or the unspecified address (a local bind)."""
    if isinstance(host, bytes | bytearray):
        host = host.decode(errors="replace")
    name = str(host or "").strip("[]").lower()
    if not name or name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect":
        address = args[1]
        if not isinstance(address, tuple):
            return  # a Unix socket
        host = address[0]
    elif event == "socket.getaddrinfo":
        host = args[0]
    else:
        return
    if not is_local(host):
        with _lock:
            _beyond_loopback.append(f"{event} {host!r}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--network-audit", metavar="PATH", help="write the connections beyond loopback to PATH")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--network-audit"):
        sys.addaudithook(_audit)


def pytest_unconfigure(config: pytest.Config) -> None:
    path = config.getoption("--network-audit")
    if path:  # appended: each xdist worker, and the controller, adds its own
        with _lock, Path(path).open("a", encoding="utf-8") as audit:
            audit.writelines(f"{line}\n" for line in _beyond_loopback)
