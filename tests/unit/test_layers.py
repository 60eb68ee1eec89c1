"""The package's layers point one way (ARCHITECTURE §2): api → agent → tools → domain, with the
store, the model adapters and the data sources behind ports, and nothing in production importing
the local stack."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "trainer"

ALLOWED: dict[str, set[str]] = {
    "domain": {"domain"},
    "settings": {"settings"},
    "model_guard": {"settings"},
    "frames": set(),
    "store": {"store", "domain", "settings"},
    "sources": {"sources", "store", "domain", "settings"},
    "tools": {"tools", "domain", "store", "sources", "frames", "settings", "programs"},
    "llm": {"llm", "domain", "tools", "frames", "settings", "model_guard"},
    "agent": {"agent", "tools", "domain", "store", "sources", "llm", "frames", "settings", "programs"},
    "agents": {"agents", "llm", "sources", "store", "domain", "settings"},
    "programs": {"programs", "agents", "domain", "store", "settings"},
    "jobs": {"jobs", "agent", "store", "domain", "settings", "runtime_secrets", "programs", "container"},
}
LOCAL_USERS = {"local", "cli"}


def layer_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def imported_layers(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        names = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        for name in names:
            parts = name.split(".")
            if parts[0] == "trainer" and len(parts) > 1:
                found.add(parts[1])
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    layer = layer_of(path)
    used = imported_layers(path)
    if layer not in LOCAL_USERS:
        assert "local" not in used, f"{path.name} imports the local stack"
    if layer in ALLOWED:
        assert used <= ALLOWED[layer], f"{layer} must not import {sorted(used - ALLOWED[layer])}"


def test_the_layer_map_covers_the_core_packages() -> None:
    layers = {layer_of(p) for p in MODULES}
    assert set(ALLOWED) <= layers
