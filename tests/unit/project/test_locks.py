"""The locks say what is installed, and they agree with what the project asks for.

`uv.lock` records the requirements it was resolved from (`[package.metadata]` of the project): when
they differ from pyproject.toml, someone changed a requirement without `make lock`, and `uv sync
--locked` (what `make test` and `make run` install with) would stop. This test says so first, with the
difference. The layer's requirements.txt is the lock's runtime closure, exported by `make lock`: what
`sam build` ships is what the suite ran on.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[3]
LAYER_REQUIREMENTS = ROOT / "layers" / "core" / "requirements.txt"
PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")

Spec = tuple[str, str, tuple[str, ...], str]


def _from_pyproject(text: str) -> Spec:
    requirement = Requirement(text)
    return (
        canonicalize_name(requirement.name),
        str(requirement.specifier),
        tuple(sorted(canonicalize_name(extra) for extra in requirement.extras)),
        str(requirement.marker or ""),
    )


def _from_lock(entry: dict[str, Any]) -> Spec:
    specifier = Requirement(f"x{entry['specifier']}").specifier if entry.get("specifier") else ""
    return (
        canonicalize_name(entry["name"]),
        str(specifier),
        tuple(sorted(canonicalize_name(extra) for extra in entry.get("extras", ()))),
        str(entry.get("marker", "")),
    )


def lock_disagreements(pyproject: dict[str, Any], lock: dict[str, Any]) -> list[str]:
    """What pyproject.toml asks for that the lock was not resolved from, and the reverse."""
    (project,) = [p for p in lock["package"] if p["name"] == pyproject["project"]["name"]]
    metadata = project["metadata"]
    wanted = {
        "dependencies": {_from_pyproject(r) for r in pyproject["project"].get("dependencies", [])},
        **{
            f"dependency-groups.{group}": {_from_pyproject(r) for r in requirements}
            for group, requirements in pyproject.get("dependency-groups", {}).items()
        },
    }
    locked = {
        "dependencies": {_from_lock(e) for e in metadata.get("requires-dist", [])},
        **{
            f"dependency-groups.{group}": {_from_lock(e) for e in entries}
            for group, entries in metadata.get("requires-dev", {}).items()
        },
    }
    problems = []
    for section in sorted(set(wanted) | set(locked)):
        for spec in sorted(wanted.get(section, set()) - locked.get(section, set())):
            problems.append(f"{section}: pyproject.toml asks for {spec}, which uv.lock was not resolved from")
        for spec in sorted(locked.get(section, set()) - wanted.get(section, set())):
            problems.append(
                f"{section}: uv.lock was resolved from {spec}, which pyproject.toml no longer asks"
            )
    return problems


def _load() -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        tomllib.loads((ROOT / "pyproject.toml").read_text()),
        tomllib.loads((ROOT / "uv.lock").read_text()),
    )


def test_the_lock_was_resolved_from_what_pyproject_asks_for() -> None:
    pyproject, lock = _load()
    assert lock_disagreements(pyproject, lock) == [], "run `make lock` and commit uv.lock"


def test_a_requirement_changed_in_pyproject_alone_is_caught() -> None:
    pyproject, lock = _load()
    dependencies = pyproject["project"]["dependencies"]
    bumped = [re.sub(r"^fastapi>=[^,\s]+", "fastapi>=99", d) for d in dependencies]
    assert bumped != dependencies
    pyproject["project"]["dependencies"] = bumped
    assert any("fastapi" in problem for problem in lock_disagreements(pyproject, lock))
    pyproject["project"]["dependencies"] = [*dependencies, "left-pad>=1"]
    assert any("left-pad" in problem for problem in lock_disagreements(pyproject, lock))
    pyproject["project"]["dependencies"] = dependencies
    pyproject["dependency-groups"]["dev"] = pyproject["dependency-groups"]["dev"][1:]
    assert lock_disagreements(pyproject, lock)


def _runtime_closure(lock: dict[str, Any], project_name: str) -> dict[str, str]:
    """Every package the project's runtime dependencies pull in, with its locked version (markers
    ignored: the export keeps them, so every one is listed)."""
    packages = {canonicalize_name(p["name"]): p for p in lock["package"]}
    found: dict[str, str] = {}
    todo: list[tuple[str, tuple[str, ...]]] = [
        (canonicalize_name(d["name"]), tuple(d.get("extra", ())))
        for d in packages[project_name]["dependencies"]
    ]
    seen: set[tuple[str, tuple[str, ...]]] = set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        package = packages[name]
        found[name] = package["version"]
        entries = list(package.get("dependencies", []))
        for extra in extras:
            entries += package.get("optional-dependencies", {}).get(extra, [])
        todo += [(canonicalize_name(d["name"]), tuple(d.get("extra", ()))) for d in entries]
    return found


def test_the_layer_ships_exactly_the_locked_runtime_closure() -> None:
    pyproject, lock = _load()
    shipped = {}
    for line in LAYER_REQUIREMENTS.read_text().splitlines():
        match = PINNED.match(line)
        if match:
            shipped[canonicalize_name(match.group(1))] = match.group(2)
    assert shipped == _runtime_closure(lock, pyproject["project"]["name"]), "run `make lock`"
    assert "--hash=sha256:" in LAYER_REQUIREMENTS.read_text()


def test_the_tool_locks_pin_every_package_with_hashes() -> None:
    for name in ("uv", "sam"):
        text = (ROOT / "dev" / "locks" / f"{name}.txt").read_text()
        pins = [line for line in text.splitlines() if PINNED.match(line)]
        assert pins, name
        assert text.count("--hash=sha256:") >= len(pins), name
    assert re.search(r"^uv==", (ROOT / "dev" / "locks" / "uv.txt").read_text(), re.M)


def test_make_installs_from_the_locks_only() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "sync --locked" in makefile
    assert "--require-hashes" in makefile
    assert not re.search(r"pip install (?!.*--require-hashes)", makefile), "an install outside the locks"
    assert "npm ci" in makefile
