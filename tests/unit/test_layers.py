"""The package's layers point one way (ARCHITECTURE §2): api → agent → tools → services → store →
domain, with the model adapters and the data sources behind ports; the repositories are reached through
the user-data services (the program pipeline keeps its own); and nothing in production (the layer's
package, the functions' handlers) imports the development package `trainer_dev` (the local stack, the
fake model server, the `trainer` command), which lives outside the layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layers" / "core" / "trainer"
DEV_PACKAGE = "trainer_dev"
HANDLERS = sorted((ROOT / "functions").glob("*/*.py"))

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
REPOSITORY_USERS = {"store", "services", "programs"}
"""Who imports trainer.store.repositories: the store itself, the services, and the program pipeline
(its own repository)."""


def layer_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def imported_modules(path: Path) -> set[str]:
    """Every absolute module an import statement of `path` names, at module level or inside functions
    (`from a import b` also counts as `a.b`, since b may be a module)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module or "")
            found.update(f"{node.module or ''}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def imported_layers(path: Path) -> set[str]:
    return {
        parts[1]
        for parts in (name.split(".") for name in imported_modules(path))
        if parts[0] == "trainer" and len(parts) > 1
    }


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    layer = layer_of(path)
    used = imported_layers(path)
    if layer in ALLOWED:
        assert used <= ALLOWED[layer], f"{layer} must not import {sorted(used - ALLOWED[layer])}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_user_data_is_read_and_written_through_the_services(path: Path) -> None:
    if layer_of(path) in REPOSITORY_USERS:
        return
    reached = sorted(name for name in imported_modules(path) if name.startswith("trainer.store.repositories"))
    assert not reached, f"{path.name} reaches the repositories ({', '.join(reached)}): call trainer.services"


def test_the_layer_map_covers_the_core_packages() -> None:
    layers = {layer_of(p) for p in MODULES}
    assert set(ALLOWED) <= layers


@pytest.mark.parametrize("path", [*MODULES, *HANDLERS], ids=lambda p: str(p.relative_to(ROOT)))
def test_production_code_never_imports_the_development_package(path: Path) -> None:
    imported = {name.split(".")[0] for name in imported_modules(path)}
    assert DEV_PACKAGE not in imported, (
        f"{path.relative_to(ROOT)} imports {DEV_PACKAGE}, which is not deployed"
    )


def test_the_layer_source_holds_no_development_code() -> None:
    """`sam build` ships everything under the CoreLayer's ContentUri (layers/core)."""
    assert not (PACKAGE / "local").exists(), "the local stack belongs in dev/trainer_dev/local"
    assert not (PACKAGE / "cli.py").exists(), "the `trainer` command belongs in dev/trainer_dev/cli.py"
    assert not list((ROOT / "layers" / "core").glob("**/trainer_dev"))
