"""The generated clients, once per test session (per xdist worker), in a temporary directory."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.toolchain import TypeScriptClient, generate_python, generate_typescript


@pytest.fixture(scope="session")
def typescript_client(tmp_path_factory: pytest.TempPathFactory) -> TypeScriptClient:
    return generate_typescript(tmp_path_factory.mktemp("ts-client"))


@pytest.fixture(scope="session")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The directory holding the generated `trainer_client` package, put on sys.path."""
    directory = generate_python(tmp_path_factory.mktemp("py-client"))
    sys.path.insert(0, str(directory))
    try:
        yield directory
    finally:
        sys.path.remove(str(directory))
        for name in [m for m in sys.modules if m == "trainer_client" or m.startswith("trainer_client.")]:
            del sys.modules[name]
