"""The local stack exactly as `make run` starts it (`.venv/bin/trainer local`), on a free port with
its data under a temporary directory, talked to over HTTP.

`local_stack` (session) runs it on the offline model; `sdk_stack` (session) runs a second one with
`--fake-llm`: its real anthropic and openai SDKs talk to a loopback FakeLLMServer inside the stack
process. Each is stopped with SIGINT at the end and must exit 0, printing that it stopped.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from trainer.settings import LOCAL_JWT_SECRET
from trainer_dev.local.stack import DEMO_USER_ID

from tests.model_requests import ALLOW_VARIABLE

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
TRAINER = REPO / ".venv" / "bin" / "trainer"
START_TIMEOUT_S = 180
STOP_TIMEOUT_S = 60
E2E_SECRET = LOCAL_JWT_SECRET


@dataclass
class Stack:
    base_url: str
    token: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def headers(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.token}"}

    def client(self, timeout: float = 120.0) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, headers=self.headers(), timeout=timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stack_environment(port: int, extra: dict[str, str]) -> dict[str, str]:
    """The caller's environment minus anything that would point the stack at real services, with model
    requests as off as in this process (tests/model_requests.py): the stack's SDK clients may reach
    the loopback fake server only."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "OPENAI_", "TRAINER_", "AWS_")) and k != "DATABASE_URL"
    }
    env.update({"PORT": str(port), "TRAINER_JWT_SECRET": E2E_SECRET, "PYTHONUNBUFFERED": "1"})
    env[ALLOW_VARIABLE] = os.environ.get(ALLOW_VARIABLE, "0")
    env.update(extra)
    return env


def start_stack(tmp_dir: Path, extra_env: dict[str, str], extra_args: tuple[str, ...] = ()) -> Stack:
    port = free_port()
    log_path = tmp_dir / "stack.log"
    log_file = log_path.open("wb")
    process = subprocess.Popen(
        [str(TRAINER), "local", "--data-dir", str(tmp_dir / "data"), "--log-level", "warning", *extra_args],
        cwd=REPO,
        env=stack_environment(port, extra_env),
        stdout=log_file,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"local stack exited with {process.returncode}:\n{log_path.read_text()}")
        try:
            if httpx.get(f"{base_url}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    else:
        stop_stack(process)
        raise RuntimeError(f"local stack did not become healthy:\n{log_path.read_text()}")
    token = subprocess.run(
        [str(TRAINER), "token", "--user", DEMO_USER_ID],
        env=stack_environment(port, extra_env),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Stack(base_url=base_url, token=token, process=process, log_path=log_path)


def stop_stack(process: subprocess.Popen[bytes]) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return -9


def assert_clean_shutdown(stack: Stack) -> None:
    code = stop_stack(stack.process)
    log = stack.log()
    assert code == 0, f"local stack exited with {code}:\n{log[-4000:]}"
    assert "local stack stopped" in log
    assert "Traceback" not in log, log[-4000:]


@pytest.fixture(scope="session")
def local_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not TRAINER.exists():
        pytest.fail(f"{TRAINER} not found: run `make venv` first")
    stack = start_stack(tmp_path_factory.mktemp("stack-offline"), {})
    try:
        yield stack
    finally:
        assert_clean_shutdown(stack)


@pytest.fixture(scope="session")
def sdk_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack on the real SDKs against the loopback fake (Anthropic Messages + OpenAI chat)."""
    stack = start_stack(tmp_path_factory.mktemp("stack-sdk"), {}, ("--fake-llm",))
    try:
        yield stack
    finally:
        assert_clean_shutdown(stack)


FAKE_MODEL_MS = 500
"""The fake model's latency per call in `fake_model_stack`: a turn lasts seconds, as a real one does."""


@pytest.fixture(scope="session")
def fake_model_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The real SDKs against the loopback fake at FAKE_MODEL_MS per call: turns long enough to overlap
    and to time."""
    stack = start_stack(tmp_path_factory.mktemp("stack-slow"), {}, ("--fake-llm", str(FAKE_MODEL_MS)))
    try:
        yield stack
    finally:
        assert_clean_shutdown(stack)


@pytest.fixture(params=["offline", "sdk"])
def stack(request: pytest.FixtureRequest) -> Stack:
    """Each test runs twice: on the offline model, and on the real SDKs against the loopback fake."""
    fixture = "local_stack" if request.param == "offline" else "sdk_stack"
    chosen: Stack = request.getfixturevalue(fixture)
    return chosen


UNNUMBERED_FRAMES = frozenset({"message_delta", "done"})
"""Frames sent without an `id:` (previews and the stream's close): a client's Last-Event-ID stays the
frame before, so a resume replays nothing twice (docs/api.md#server-sent-events)."""


def sse_events(text: str) -> list[tuple[int | None, dict[str, Any]]]:
    """(id, event) for every data frame, id None for the unnumbered kinds (checked: every other frame
    has one); heartbeats and other comments are skipped."""
    frames: list[tuple[int | None, dict[str, Any]]] = []
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        fields = dict(line.split(": ", 1) for line in lines)
        assert "data" in fields, block
        event = json.loads(fields["data"])
        if event["type"] in UNNUMBERED_FRAMES:
            assert "id" not in fields, block
            frames.append((None, event))
        else:
            assert "id" in fields, block
            frames.append((int(fields["id"]), event))
    return frames


def frame_ids(frames: list[tuple[int | None, dict[str, Any]]]) -> list[int]:
    """The numbered frames' ids, in order."""
    return [i for i, _ in frames if i is not None]


def pytest_report_header() -> list[str]:
    return [f"e2e: local stack via {TRAINER} (python {sys.version.split()[0]})"]
