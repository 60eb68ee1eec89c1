"""The package's layers point one way (ARCHITECTURE §2), computed from every import of every module
(those inside functions and under TYPE_CHECKING included):

    api, jobs -> container (the composition root) -> offline, chat -> programs -> agents (the one
    runtime) -> tools, providers -> sources -> store -> domain; settings and frames at the bottom

The offline coach is chosen by the composition root and imported by nothing else; providers never
import it, nor the agents or the tools; nothing in production imports the local stack.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "trainer"

BOTTOM = {"settings", "domain", "frames"}
ALLOWED: dict[str, set[str]] = {
    "settings": set(),
    "frames": set(),
    "domain": set(),
    "cold_start": set(),
    "snapstart": set(),
    "store": {"domain", "settings"},
    "runtime_secrets": {"store", "settings"},
    "sources": {"store", "domain", "settings"},
    "providers": {"sources", "settings"},
    "tools": {"sources", "store", *BOTTOM},
    "agents": {"tools", "providers", "sources", "store", *BOTTOM},
    "programs": {"agents", "tools", "providers", "sources", "store", *BOTTOM},
    "chat": {"programs", "agents", "tools", "providers", "sources", "store", *BOTTOM},
    "offline": {"programs", "agents", "tools", "providers", "sources", "store", *BOTTOM},
    "observability": {"chat", "store", *BOTTOM},
    "container": {
        "offline", "chat", "programs", "agents", "tools", "providers", "sources", "store",
        "observability", "runtime_secrets", *BOTTOM,
    },
    "jobs": {"container", "chat", "programs", "agents", "store", "runtime_secrets", *BOTTOM},
    "api": {
        "container", "observability", "chat", "programs", "agents", "tools", "providers", "sources",
        "store", "runtime_secrets", *BOTTOM,
    },
}  # fmt: skip
"""What each package may import besides itself. The development code (`local`, `cli`) may import
anything; nothing else may import it."""
DEVELOPMENT = {"local", "cli"}


def layer_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


@cache
def imported_layers(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        names = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level == 0
            else [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        for name in names:
            parts = name.split(".")
            if parts[0] == "trainer" and len(parts) > 1:
                found.add(parts[1])
    return frozenset(found - {layer_of(path)})


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        graph.setdefault(layer_of(path), set()).update(imported_layers(path))
    return graph


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    layer = layer_of(path)
    used = imported_layers(path)
    if layer in DEVELOPMENT:
        return
    assert not used & DEVELOPMENT, f"{path.name} imports the development code"
    assert used <= ALLOWED[layer], f"{layer} must not import {sorted(used - ALLOWED[layer])}"


def test_the_layer_map_covers_every_package() -> None:
    assert {layer_of(p) for p in MODULES} - DEVELOPMENT == set(ALLOWED)


def test_the_layer_map_has_no_cycle() -> None:
    """The table itself points one way, so following it can never loop."""
    assert not cycles({layer: set(allowed) for layer, allowed in ALLOWED.items()})


def test_the_package_import_graph_has_no_cycle() -> None:
    assert not cycles(package_graph())


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first walk (one per back edge)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for child in sorted(graph.get(node, ())):
            if state.get(child) == 1:
                found.append([*path[path.index(child) :], child])
            elif child not in state:
                visit(child, [*path, child])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_a_cycle_is_found() -> None:
    assert cycles({"tools": {"programs"}, "programs": {"agents"}, "agents": {"tools"}}) == [
        ["agents", "tools", "programs", "agents"]
    ]
