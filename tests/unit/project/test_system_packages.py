"""scripts/ensure_system_packages.sh: installs a missing system package with apt-get as root, and
fails with a clear message when it cannot. Stubs of `id`, `apt-get` and `sudo` stand in for the system."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "ensure_system_packages.sh"
PACKAGE = "trainer-test-no-such-tool"


def _stub(directory: Path, name: str, body: str) -> None:
    path = directory / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(0o755)


def _run(stubs: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/bash", str(SCRIPT), *packages],
        env={"PATH": f"{stubs}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_as_root_a_missing_package_is_installed_with_apt_get(tmp_path: Path) -> None:
    calls = tmp_path / "apt-calls"
    _stub(tmp_path, "id", "echo 0")
    _stub(
        tmp_path,
        "apt-get",
        f'echo "$@" >> {calls}\n[ "$1" = install ] && cp {tmp_path}/id {tmp_path}/{PACKAGE}\nexit 0',
    )
    result = _run(tmp_path, PACKAGE)
    assert result.returncode == 0, result.stderr
    assert calls.read_text().split() == ["install", "-y", "--no-install-recommends", PACKAGE]


def test_a_present_package_needs_nothing(tmp_path: Path) -> None:
    _stub(tmp_path, "id", "echo 1000")
    _stub(tmp_path, "apt-get", "exit 1")
    _stub(tmp_path, PACKAGE, "exit 0")
    assert _run(tmp_path, PACKAGE).returncode == 0


def test_without_root_or_sudo_it_fails_naming_the_package(tmp_path: Path) -> None:
    _stub(tmp_path, "id", "echo 1000")
    _stub(tmp_path, "sudo", "exit 1")
    _stub(tmp_path, "apt-get", f"touch {tmp_path}/apt-ran; exit 0")
    result = _run(tmp_path, PACKAGE)
    assert result.returncode == 1
    assert f"missing system package(s): {PACKAGE}" in result.stderr
    assert "apt-get install -y" in result.stderr
    assert not (tmp_path / "apt-ran").exists()


def test_make_test_installs_node_and_the_pinned_npm_packages_for_the_generated_clients() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "setup: $(STAMP) system-packages clients" in makefile and "\ntest: setup\n" in makefile
    assert "make setup" in (ROOT / ".ci" / "run").read_text()
    assert "npm ci" in makefile and (ROOT / "tests" / "clients" / "package-lock.json").exists()


def test_make_test_installs_pgbouncer_then_runs_the_postgres_tests_through_it() -> None:
    """One pass: tests/integration reaches Postgres through PgBouncer (its conftest), the scenarios and
    the e2e stack directly."""
    assert "PACKAGES=(pgbouncer chromium nodejs npm)" in SCRIPT.read_text()
    recipe = subprocess.run(
        ["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, timeout=30, check=True
    ).stdout.splitlines()
    install = recipe.index("scripts/ensure_system_packages.sh")
    runs = [i for i, line in enumerate(recipe) if "bin/pytest" in line]
    assert len(runs) == 1 and install < runs[0]
    assert "--direct-postgres" not in recipe[runs[0]] and recipe[runs[0]].rstrip().endswith(" tests")
    conftest = (ROOT / "tests" / "integration" / "conftest.py").read_text()
    assert 'getfixturevalue("pgbouncer")' in conftest
