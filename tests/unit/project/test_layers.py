"""The package's layers point one way (docs/architecture.md#one-way-down), computed from every import of every
module (those inside functions and under TYPE_CHECKING included):

    api, jobs -> container (the composition root) -> offline, chat -> programs -> agents (the one
    runtime) -> tools, providers -> sources -> services -> store -> domain; settings and frames at the
    bottom

The offline coach is a stand-in for the models, chosen by the composition root and imported by nothing
else (the handlers included); what the root takes from it is a stand-in of a port (the chat agent's
model and its planner, the registry agents' backend, the initializer's rules), never a part of the live
turn such as the closing replies. The repositories are reached through the user-data services
(the program pipeline keeps its own); and nothing in production (the layer's package, the functions'
handlers) imports the development package `trainer_dev` (the local stack, the fake model server, the
`trainer` command), which lives outside the layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "layers" / "core" / "trainer"
DEV_PACKAGE = "trainer_dev"
HANDLERS = sorted((ROOT / "functions").glob("*/*.py"))
DEV_MODULES = sorted((ROOT / "dev" / DEV_PACKAGE).rglob("*.py"))

BOTTOM = {"settings", "domain", "frames"}
ALLOWED: dict[str, set[str]] = {
    "settings": set(),
    "model_guard": {"settings"},
    "frames": set(),
    "domain": set(),
    "cold_start": set(),
    "snapstart": set(),
    "store": {"domain", "settings"},
    "services": {"store", "domain"},
    "runtime_secrets": {"store", "settings"},
    "sources": {"services", "store", *BOTTOM},
    "providers": {"sources", "settings", "domain", "model_guard"},
    "tools": {"services", "sources", "store", *BOTTOM},
    "agents": {"tools", "providers", "sources", "services", "store", *BOTTOM},
    "programs": {"agents", "tools", "providers", "sources", "services", "store", *BOTTOM},
    "chat": {"programs", "agents", "tools", "providers", "sources", "services", "store", *BOTTOM},
    "offline": {"programs", "agents", "tools", "providers", "sources", "services", "store", *BOTTOM},
    "observability": {"chat", "store", *BOTTOM},
    "container": {
        "offline", "chat", "programs", "agents", "tools", "providers", "sources", "services", "store",
        "observability", "runtime_secrets", *BOTTOM,
    },
    "jobs": {"container", "chat", "programs", "agents", "services", "store", "runtime_secrets", *BOTTOM},
    "api": {
        "container", "observability", "chat", "programs", "agents", "tools", "providers", "sources",
        "services", "store", "runtime_secrets", "snapstart", *BOTTOM,
    },
}  # fmt: skip
"""What each package may import besides itself."""
REPOSITORY_USERS = {"store", "services", "programs"}
"""Who imports trainer.store.repositories: the store itself, the services, and the program pipeline
(its own repository)."""


OFFLINE = "trainer.offline"
STAND_INS = {
    "trainer.offline.OfflineAgentModel",
    "trainer.offline.degraded_coach",
    "trainer.offline.OfflinePlanner",
    "trainer.offline.planner.OfflineCoach",
    "trainer.offline.structured.OfflineStructured",
    "trainer.offline.selector.DeterministicKnowledgeSelector",
}
"""What the composition root may take from the offline package: the offline model and its planner (the
planner also composes GET /today's workout on a day nothing is planned), the offline model limited to
what it does well (degraded mode: the fallback of a turn whose live model is unavailable), the registry
agents' offline backend, the initializer's deterministic rules."""
COMPOSITION_ROOT = PACKAGE / "container.py"


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


def imported_names(path: Path) -> set[str]:
    """What each import statement of `path` takes: `a.b` for `from a import b`, `a` for `import a`."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            found.update(f"{node.module or ''}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def imported_layers(path: Path) -> set[str]:
    """The other packages of trainer that `path` imports."""
    return {
        parts[1]
        for parts in (name.split(".") for name in imported_modules(path))
        if parts[0] == "trainer" and len(parts) > 1 and parts[1] in PACKAGES
    } - {layer_of(path)}


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)
PACKAGES = {layer_of(p) for p in MODULES}
"""The packages and top-level modules of trainer (what `from trainer import x` may name besides the
package's own attributes, such as __version__)."""


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    layer = layer_of(path)
    used = imported_layers(path)
    assert used <= ALLOWED[layer], f"{layer} must not import {sorted(used - ALLOWED[layer])}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_user_data_is_read_and_written_through_the_services(path: Path) -> None:
    if layer_of(path) in REPOSITORY_USERS:
        return
    reached = sorted(name for name in imported_modules(path) if name.startswith("trainer.store.repositories"))
    assert not reached, f"{path.name} reaches the repositories ({', '.join(reached)}): call trainer.services"


@pytest.mark.parametrize("path", [*MODULES, *HANDLERS], ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_composition_root_takes_the_offline_stand_ins(path: Path) -> None:
    """A live turn runs offline code only as a model port's stand-in (degraded mode included): nothing but
    trainer.container imports trainer.offline, and the container takes only those stand-ins from it."""
    if path.is_relative_to(PACKAGE) and layer_of(path) == "offline":
        return
    taken = {n for n in imported_names(path) if n == OFFLINE or n.startswith(f"{OFFLINE}.")}
    allowed = STAND_INS if path == COMPOSITION_ROOT else set()
    assert taken <= allowed, (
        f"{path.relative_to(ROOT)} takes {sorted(taken - allowed)} from the offline coach"
    )


def test_the_layer_map_covers_every_package() -> None:
    assert {layer_of(p) for p in MODULES} == set(ALLOWED)


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        graph.setdefault(layer_of(path), set()).update(imported_layers(path))
    return graph


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


def test_the_layer_map_has_no_cycle() -> None:
    """The table itself points one way, so following it can never loop."""
    assert not cycles(ALLOWED)


def test_the_package_import_graph_has_no_cycle() -> None:
    assert not cycles(package_graph())


def test_a_cycle_is_found() -> None:
    assert cycles({"tools": {"programs"}, "programs": {"agents"}, "agents": {"tools"}}) == [
        ["agents", "tools", "programs", "agents"]
    ]


@pytest.mark.parametrize("path", [*MODULES, *HANDLERS], ids=lambda p: str(p.relative_to(ROOT)))
def test_production_code_never_imports_the_development_package(path: Path) -> None:
    imported = {name.split(".")[0] for name in imported_modules(path)}
    assert DEV_PACKAGE not in imported, (
        f"{path.relative_to(ROOT)} imports {DEV_PACKAGE}, which is not deployed"
    )


@pytest.mark.parametrize("path", DEV_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_development_package_never_imports_the_tests(path: Path) -> None:
    """The fakes the benchmarks share live in trainer_dev.testing, so that bench/ and the installed
    package never need the tests directory on the path."""
    imported = {name.split(".")[0] for name in imported_modules(path)}
    assert "tests" not in imported, f"{path.relative_to(ROOT)} imports the tests"


def test_the_layer_source_holds_no_development_code() -> None:
    """`sam build` ships everything under the CoreLayer's ContentUri (layers/core)."""
    assert not (PACKAGE / "local").exists(), "the local stack belongs in dev/trainer_dev/local"
    assert not (PACKAGE / "cli.py").exists(), "the `trainer` command belongs in dev/trainer_dev/cli.py"
    assert not list((ROOT / "layers" / "core").glob("**/trainer_dev"))
