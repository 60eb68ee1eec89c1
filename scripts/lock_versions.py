"""The versions every lock of the project pins, and what moved between two snapshots (`make upgrade`).

    python scripts/lock_versions.py snapshot > before.json
    python scripts/lock_versions.py diff before.json

The locks: `uv.lock` (the app with its dev group), `layers/core/requirements.txt` (exported from it for
the layer), `dev/locks/uv.txt` and `dev/locks/sam.txt` (uv itself and the SAM CLI's venv), and
`tests/clients/package-lock.json` (the generated clients' npm toolchain). Standard library only: it runs
before any project environment exists.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def uv_lock(path: Path) -> dict[str, str]:
    data = tomllib.loads(path.read_text())
    return {_normal(p["name"]): p["version"] for p in data["package"] if "version" in p}


def requirements(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        match = PINNED.match(line.strip())
        if match:
            found[_normal(match.group(1))] = match.group(2)
    return found


def npm_lock(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text())
    return {
        name.removeprefix("node_modules/"): entry["version"]
        for name, entry in data.get("packages", {}).items()
        if name.startswith("node_modules/") and "version" in entry
    }


def snapshot() -> dict[str, dict[str, str]]:
    locks = {
        "uv.lock": (ROOT / "uv.lock", uv_lock),
        "layers/core/requirements.txt": (ROOT / "layers/core/requirements.txt", requirements),
        "dev/locks/uv.txt": (ROOT / "dev/locks/uv.txt", requirements),
        "dev/locks/sam.txt": (ROOT / "dev/locks/sam.txt", requirements),
        "tests/clients/package-lock.json": (ROOT / "tests/clients/package-lock.json", npm_lock),
    }
    return {name: read(path) if path.exists() else {} for name, (path, read) in locks.items()}


def diff(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    lines = []
    for lock in after:
        old, new = before.get(lock, {}), after[lock]
        changes = [
            f"  {name}: {old.get(name, '-')} -> {new.get(name, '-')}"
            for name in sorted(set(old) | set(new))
            if old.get(name) != new.get(name)
        ]
        lines.append(f"{lock}: {len(changes)} changed" + (":" if changes else ""))
        lines += changes
    return lines


def main(argv: list[str]) -> int:
    if argv[:1] == ["snapshot"]:
        print(json.dumps(snapshot(), indent=1, sort_keys=True))
        return 0
    if argv[:1] == ["diff"] and len(argv) == 2:
        print("\n".join(diff(json.loads(Path(argv[1]).read_text()), snapshot())))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
