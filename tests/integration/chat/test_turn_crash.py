"""A turn's process is killed (SIGKILL) mid-turn on the DynamoDB adapter. The
next turn on that session succeeds within the lease window, a turn without a session id succeeds at
once, and the timeline is gap-free and marks the interrupted turn."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from trainer.settings import Settings
from trainer.store.models import EventType
from trainer.store.ports import LeaseHeld
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.testing.agent_harness import USER, make_harness
from trainer_dev.testing.scripted_model import call

REPO = Path(__file__).resolve().parents[3]
LEASE_SECONDS = 6


def child_environment(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINER_")}
    env.update(
        {
            "AWS_ENDPOINT_URL": str(settings.aws_endpoint_url),
            "TRAINER_TABLE_NAME": settings.table_name,
            "TRAINER_LEASE_SECONDS": str(LEASE_SECONDS),
            "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "layers" / "core"), str(REPO / "dev")]),
        }
    )
    return env


def start_and_kill_a_turn(settings: Settings) -> str:
    child = subprocess.Popen(
        [sys.executable, "-m", "trainer_dev.testing.crash_turn_child"],
        cwd=REPO,
        env=child_environment(settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("RUNNING "):
                session_id = line.split()[1]
                break
        else:
            pytest.fail(f"the child turn never started (exit {child.wait()})")
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        return session_id
    finally:
        if child.poll() is None:
            child.kill()


async def test_a_killed_turn_frees_its_session_and_is_marked_interrupted(aws_settings: Settings) -> None:
    session_id = start_and_kill_a_turn(aws_settings)
    killed_at = time.monotonic()
    settings = aws_settings.model_copy(update={"lease_seconds": LEASE_SECONDS})
    store = DynamoSessionStore(settings)
    h = make_harness(
        [call("message_notify_user", message="new turn"), call("idle", reason="x")] * 2,
        store=store,  # type: ignore[arg-type]
        settings=settings,
    )

    other = await h.loop.run_turn(USER, "something else")
    assert other.status == "completed" and other.session_id != session_id

    with pytest.raises(LeaseHeld):
        await h.loop.run_turn(USER, "are you there?", session_id=session_id)
    while True:
        try:
            resumed = await h.loop.run_turn(USER, "are you there?", session_id=session_id)
            break
        except LeaseHeld:
            assert time.monotonic() - killed_at < LEASE_SECONDS + 5
            await asyncio.sleep(0.25)
    assert resumed.status == "completed"
    assert time.monotonic() - killed_at <= LEASE_SECONDS + 5

    events = (await store.read_events(session_id)).events
    assert [e.sequence_number for e in events] == list(range(1, len(events) + 1))
    kinds = [e.event_type for e in events]
    messages = [e.data["message"] for e in events if e.event_type is EventType.USER_MESSAGE]
    assert messages == ["the turn that gets killed", "are you there?"]
    interrupted = [e for e in events if e.event_type is EventType.ERROR]
    assert [e.data["code"] for e in interrupted] == ["turn_interrupted"]
    assert kinds.index(EventType.ERROR) < len(kinds) - kinds[::-1].index(EventType.USER_MESSAGE) - 1
    assert (await store.load_session(session_id)).status == "completed"
