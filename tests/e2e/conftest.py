"""The local stack exactly as `make run` starts it (`.venv/bin/trainer local`, started and stopped by
trainer_dev.testing.local_stack), on a free port with its data under a temporary directory, talked to
over HTTP.

`local_stack` (session) runs it on the offline model; `sdk_stack` (session) runs a second one with
`--fake-llm`: its real anthropic and openai SDKs talk to a loopback FakeLLMServer inside the stack
process. Each is stopped with SIGINT at the end and must exit 0, printing that it stopped.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from trainer_dev.testing.local_stack import (
    E2E_SECRET,
    REPO,
    TRAINER,
    Stack,
    assert_clean_shutdown,
    stack_environment,
    start_stack,
)

# the stack starter's names, as the tests here import them from this module
__all__ = [
    "E2E_SECRET",
    "REPO",
    "TRAINER",
    "Stack",
    "assert_clean_shutdown",
    "stack_environment",
    "start_stack",
]

pytestmark = pytest.mark.e2e


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


UNNUMBERED_FRAMES = frozenset({"message_delta", "message_reset", "done"})
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
