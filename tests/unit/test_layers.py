"""The package's layers point one way (ARCHITECTURE §2): api → agent → tools → services → store →
domain, with the model adapters and the data sources behind ports, and nothing in production importing
the local stack. The repositories are reached through the user-data services (the program pipeline keeps
its own)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "trainer"

ALLOWED: dict[str, set[str]] = {
    "domain": {"domain"},
    "settings": set(),
    "frames": set(),
    "store": {"store", "domain", "settings"},
    "services": {"services", "store", "domain"},
    "sources": {"sources", "services", "store", "domain", "settings"},
    "tools": {"tools", "services", "domain", "store", "sources", "frames", "settings", "programs"},
    "llm": {"llm", "domain", "tools", "frames", "settings"},
    "agent": {
        "agent",
        "tools",
        "services",
        "domain",
        "store",
        "sources",
        "llm",
        "frames",
        "settings",
        "programs",
    },
    "agents": {"agents", "llm", "sources", "store", "domain", "settings"},
    "programs": {"programs", "agents", "domain", "store", "settings", "services"},
    "jobs": {
        "jobs",
        "agent",
        "services",
        "store",
        "domain",
        "settings",
        "runtime_secrets",
        "programs",
        "container",
    },
}
LOCAL_USERS = {"local", "cli"}
REPOSITORY_USERS = {"store", "services", "programs"}
"""Who imports trainer.store.repositories: the store itself, the services, and the program pipeline
(its own repository); the local stack too, to seed data."""


def layer_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def imported_modules(path: Path) -> set[str]:
    """The trainer modules a file imports, at module level or inside functions (`from a import b`
    counts as `a.b`, since b may be a module)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [f"{node.module or ''}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found.update(name for name in names if name.startswith("trainer."))
    return found


def imported_layers(path: Path) -> set[str]:
    return {name.split(".")[1] for name in imported_modules(path)}


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    layer = layer_of(path)
    used = imported_layers(path)
    if layer not in LOCAL_USERS:
        assert "local" not in used, f"{path.name} imports the local stack"
    if layer in ALLOWED:
        assert used <= ALLOWED[layer], f"{layer} must not import {sorted(used - ALLOWED[layer])}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_user_data_is_read_and_written_through_the_services(path: Path) -> None:
    if layer_of(path) in REPOSITORY_USERS | LOCAL_USERS:
        return
    reached = sorted(name for name in imported_modules(path) if name.startswith("trainer.store.repositories"))
    assert not reached, f"{path.name} reaches the repositories ({', '.join(reached)}): call trainer.services"


def test_the_layer_map_covers_the_core_packages() -> None:
    layers = {layer_of(p) for p in MODULES}
    assert set(ALLOWED) <= layers
