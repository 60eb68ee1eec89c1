"""Whether this process may send requests to a model provider: pydantic-ai's ALLOW_MODEL_REQUESTS, for
the anthropic and openai SDK clients.

On (the default, and production's) it changes nothing. Off, building a model SDK client whose base URL
names a host other than loopback raises `ModelRequestsNotAllowed` naming that host: no client exists
that could send a request beyond the machine, whatever keys the environment holds, while the fake model
servers on 127.0.0.1 stay reachable. Every SDK client is built through `checked_base_url` (in
`trainer.providers.anthropic.anthropic_client` and `trainer.providers.openai.openai_client`).

The flag is TRAINER_ALLOW_MODEL_REQUESTS (read by trainer.settings), unless the process set it with
`allow_model_requests`: `make test` turns it off for the test session and, through the environment, for
every process the tests start (tests/model_requests.py); `make eval` sets TRAINER_ALLOW_MODEL_REQUESTS=1.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

_allowed: bool | None = None
"""Set by `allow_model_requests`; None: as TRAINER_ALLOW_MODEL_REQUESTS says (on when unset)."""


class ModelRequestsNotAllowed(RuntimeError):
    """A model client for a host beyond loopback, in a process where model requests are off."""


def allow_model_requests(allowed: bool | None) -> None:
    """Turns model requests on or off for this process; None: as the environment says again."""
    global _allowed
    _allowed = allowed


def model_requests_allowed() -> bool:
    if _allowed is not None:
        return _allowed
    from trainer.settings import ModelRequestSettings

    return ModelRequestSettings().allow_model_requests


@contextmanager
def override_allow_model_requests(allowed: bool) -> Iterator[None]:
    """Model requests on or off inside the block, as they were afterwards."""
    saved = _allowed
    allow_model_requests(allowed)
    try:
        yield
    finally:
        allow_model_requests(saved)


def is_loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def checked_base_url(base_url: str) -> str:
    """`base_url`, if a model client may send to it: ModelRequestsNotAllowed naming its host otherwise."""
    host = urlsplit(base_url).hostname or ""
    if not model_requests_allowed() and not is_loopback(host):
        raise ModelRequestsNotAllowed(
            f"model requests are off in this process: refusing a client for {host or base_url!r} "
            "(only loopback hosts are allowed; TRAINER_ALLOW_MODEL_REQUESTS=1 allows every host)"
        )
    return base_url
