"""`make test` with model keys exported stays offline (docs/testing.md#the-layers): a pytest run of its own,
started with ANTHROPIC_API_KEY and OPENAI_API_KEY set to bogus values as a developer's shell might have them,
passes a turn on the real adapters (moto, embedded Postgres) and the guard's refusal of a client for the real
API, and nothing in it connects to, or even looks up, a host beyond loopback (tests/network_audit.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.model_requests import ALLOW_VARIABLE

ROOT = Path(__file__).resolve().parents[3]
SUBSET = [
    "tests/integration/api/test_api_routes.py::test_chat_turn_persists_events_and_publishes_turn_completed",
    "tests/unit/providers/test_model_guard.py",
]


def test_a_test_run_with_model_keys_in_the_environment_stays_on_loopback(tmp_path: Path) -> None:
    audit = tmp_path / "beyond-loopback.txt"
    environment = {name: value for name, value in os.environ.items() if name != ALLOW_VARIABLE}
    environment.update(ANTHROPIC_API_KEY="sk-ant-bogus-0123456789", OPENAI_API_KEY="sk-bogus-0123456789")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            # its own temporary directory: a run in /tmp/pytest-of-<user> would delete the oldest ones
            # there, which the running sessions (their Postgres data included) may still be using
            f"--basetemp={tmp_path / 'basetemp'}",
            "-p",
            "tests.network_audit",
            f"--network-audit={audit}",
            *SUBSET,
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "skipped" not in result.stdout, result.stdout[-2000:]
    assert audit.read_text() == "", "connections beyond loopback"
