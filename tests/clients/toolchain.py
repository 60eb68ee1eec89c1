"""Generates the clients nobody on this team writes by hand, from the committed openapi.json, with the
toolchain a phone team would use: openapi-typescript (types) + openapi-fetch (calls) +
@microsoft/fetch-event-source (the stream), checked with `tsc --strict`; openapi-python-client.

The npm packages are pinned in package-lock.json and installed with `npm ci` (the Makefile does it;
`ensure_node_modules` here too when they are missing). Each generation writes to a fresh directory:
new routes are typed the next run, nothing generated is committed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CLIENTS = Path(__file__).resolve().parent
REPO = CLIENTS.parents[1]
OPENAPI = REPO / "openapi.json"
NODE_MODULES = CLIENTS / "node_modules"
BIN = NODE_MODULES / ".bin"
TS_SOURCES = ("frames.ts", "phone.ts", "health.ts")
PYTHON_PACKAGE = "trainer_client"
VENV_BIN = Path(sys.executable).parent


def run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if result.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        )
    return result


def ensure_node_modules() -> None:
    """`npm ci` from the lockfile when the packages are missing or older than it."""
    stamp = NODE_MODULES / ".package-lock.json"
    if stamp.exists() and stamp.stat().st_mtime >= (CLIENTS / "package-lock.json").stat().st_mtime:
        return
    if shutil.which("npm") is None:
        raise AssertionError(
            "npm is missing: run `make test` (scripts/ensure_system_packages.sh installs it)"
        )
    run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], CLIENTS)


@dataclass(frozen=True)
class TypeScriptClient:
    directory: Path
    """api.d.ts (generated), the checked sources, and `out/` once compiled."""

    @property
    def types(self) -> str:
        return (self.directory / "api.d.ts").read_text(encoding="utf-8")

    def node(self, script: str, *args: str, timeout: float = 300) -> str:
        return run(["node", str(self.directory / "out" / script), *args], self.directory, timeout).stdout


def generate_typescript(directory: Path) -> TypeScriptClient:
    """Types from openapi.json, then every source compiled with `tsc` under tsconfig.json (strict)."""
    ensure_node_modules()
    directory.mkdir(parents=True, exist_ok=True)
    for name in (*TS_SOURCES, "tsconfig.json", "package.json"):
        shutil.copy(CLIENTS / name, directory / name)
    link = directory / "node_modules"
    if not link.exists():
        link.symlink_to(NODE_MODULES, target_is_directory=True)
    run([str(BIN / "openapi-typescript"), str(OPENAPI), "--output", str(directory / "api.d.ts")], directory)
    run([str(BIN / "tsc"), "--project", str(directory / "tsconfig.json"), "--strict"], directory)
    return TypeScriptClient(directory)


def generate_python(directory: Path) -> Path:
    """The openapi-python-client package (`trainer_client`) under `directory`; returns the directory
    to put on sys.path."""
    target = directory / PYTHON_PACKAGE
    run(
        [
            str(VENV_BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(OPENAPI),
            "--config",
            str(CLIENTS / "openapi-python-client.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(target),
            "--overwrite",
        ],
        directory,
    )
    return directory
