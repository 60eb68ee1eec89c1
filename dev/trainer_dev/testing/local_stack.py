"""The local stack exactly as `make run` starts it (`.venv/bin/trainer local`), as a child process on a
free port with its data under a given directory, for the end-to-end tests (tests/e2e/conftest.py) and
the benchmarks that time it (bench/bench_first_bytes.py, bench/load.py).

`start_stack` waits until /health answers and mints a token for the demo user; `stop_stack` sends SIGINT
(a clean shutdown) and kills the process if it does not exit in time."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from trainer.settings import LOCAL_JWT_SECRET

from trainer_dev.local.stack import DEMO_USER_ID

REPO = Path(__file__).resolve().parents[3]
"""The repository (this file is dev/trainer_dev/testing/local_stack.py)."""
TRAINER = REPO / ".venv" / "bin" / "trainer"
START_TIMEOUT_S = 180
STOP_TIMEOUT_S = 60
E2E_SECRET = LOCAL_JWT_SECRET
ALLOW_VARIABLE = "TRAINER_ALLOW_MODEL_REQUESTS"
"""Whether model requests are allowed (trainer.model_guard): passed on to the stack as this process has it."""


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
