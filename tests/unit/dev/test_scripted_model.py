"""The scripted test model is the whole conversation: a test whose model runs out of script
fails, even when the agent loop catches the error, and so does one that leaves part of its script
unused, unless it says it cuts the turn short on purpose. Checked on a pytest run of its own, with the
model's plugin (tests/fakes/scripted_model.py) as tests/conftest.py loads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

TESTS = """
import asyncio
import contextlib

from trainer_dev.testing.agent_harness import make_harness
from trainer_dev.testing.scripted_model import ScriptedModel, call, idle


def turn(model):
    with contextlib.suppress(Exception):
        asyncio.run(make_harness(model=model).loop.run_turn("user-1", "hi"))


def test_a_script_used_to_its_end():
    turn(ScriptedModel([call("message_notify_user", message="hi"), idle()]))


def test_a_script_that_runs_out():
    turn(ScriptedModel([call("message_notify_user", message="hi")]))


def test_a_script_left_unfinished():
    turn(ScriptedModel([idle(), idle()]))


def test_a_turn_cut_short_on_purpose():
    turn(ScriptedModel([idle(), idle()], unfinished_ok=True))


def test_a_model_never_called():
    ScriptedModel([])
"""


def test_a_script_run_out_or_left_unfinished_fails_its_test(tmp_path: Path) -> None:
    (tmp_path / "test_scripts.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            # its own temporary directory: a run in /tmp/pytest-of-<user> would delete the oldest ones
            # there, which the running sessions (their Postgres data included) may still be using
            f"--basetemp={tmp_path / 'basetemp'}",
            "-p",
            "tests.fixtures_scripted_model",
            "--rootdir",
            str(tmp_path),
            "-c",
            str(tmp_path / "pytest.ini"),
            str(tmp_path / "test_scripts.py"),
        ],
        cwd=tmp_path,
        env={"PYTHONPATH": f"{ROOT}:{ROOT / 'layers' / 'core'}:{ROOT / 'dev'}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    outcomes = {  # a test that passed and then failed at teardown is listed twice, the error last
        line.split()[1].split("::")[-1]: line.split()[0]
        for line in result.stdout.splitlines()
        if line.startswith(
            ("PASSED test_scripts.py::", "ERROR test_scripts.py::", "FAILED test_scripts.py::")
        )
    }
    assert outcomes == {
        "test_a_script_used_to_its_end": "PASSED",
        "test_a_script_that_runs_out": "ERROR",
        "test_a_script_left_unfinished": "ERROR",
        "test_a_turn_cut_short_on_purpose": "PASSED",
        "test_a_model_never_called": "PASSED",
    }, result.stdout[-3000:]
    assert "called 1 time(s) after its script ended" in result.stdout
    assert "1 scripted step(s) never used" in result.stdout
