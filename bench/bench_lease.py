"""Session leases (docs/architecture.md#sessions-events-and-the-lease). On the DynamoDB adapter (moto), with
the default lease settings:

- the time from a hard kill (SIGKILL of the process running a turn) to the next successful turn on
  the same session (aim <= 60 s);
- the DynamoDB requests lease renewal adds to a turn, for turns of several lengths.

`python -m bench lease`
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from trainer.settings import Settings
from trainer.store.ports import LeaseHeld
from trainer_dev.testing.agent_harness import USER, make_harness
from trainer_dev.testing.scripted_model import ScriptedModel, call

from bench.moto import moto_tables

REPO = Path(__file__).resolve().parent.parent
TURN_LENGTHS_S = (2.0, 15.0, 45.0)


def _kill_a_turn(settings: Settings) -> tuple[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINER_")}
    env.update(
        {
            "AWS_ENDPOINT_URL": str(settings.aws_endpoint_url),
            "TRAINER_TABLE_NAME": settings.table_name,
            "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "layers" / "core"), str(REPO / "dev")]),
        }
    )
    child = subprocess.Popen(
        [sys.executable, "-m", "trainer_dev.testing.crash_turn_child"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert child.stdout is not None
    session_id = ""
    for line in child.stdout:
        if line.startswith("RUNNING "):
            session_id = line.split()[1]
            break
    time.sleep(5)
    child.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    child.wait()
    if not session_id:
        raise RuntimeError("the turn to kill never started")
    return session_id, killed


async def _recovery_seconds(settings: Settings, store: Any) -> tuple[float, int]:
    session_id, killed = await asyncio.to_thread(_kill_a_turn, settings)
    h = make_harness([call("idle", reason="x")], store=store, settings=settings)
    attempts = 0
    while True:
        attempts += 1
        try:
            await h.loop.run_turn(USER, "are you there?", session_id=session_id)
            return time.monotonic() - killed, attempts
        except LeaseHeld:
            await asyncio.sleep(0.5)


async def _renewals(store: Any, operations: Counter[str], settings: Settings) -> list[str]:
    lines = []
    for seconds in TURN_LENGTHS_S:
        calls = 4
        model = ScriptedModel(
            [
                *(call("message_notify_user", message="...") for _ in range(calls - 1)),
                call("idle", reason="done"),
            ]
        )
        model.latency = seconds / calls
        h = make_harness(model=model, store=store, settings=settings)
        operations.clear()
        await h.loop.run_turn(USER, "a turn")
        renewals = operations["PutItem:lease marker"] - 1
        total = sum(operations.values())
        lines.append(
            f"{seconds:.0f} s turn: {renewals} renewal request(s) of {total} DynamoDB requests "
            f"(lease {settings.turn_lease_seconds} s, renewed every {settings.turn_lease_seconds / 3:.0f} s)"
        )
    return lines


async def _run() -> list[str]:
    from trainer.store.sessions import DynamoSessionStore

    async with moto_tables() as settings:
        store = DynamoSessionStore(settings)
        operations: Counter[str] = Counter()

        def count(params: dict[str, Any], model: Any = None, **_: Any) -> None:
            name = model.name if model is not None else "?"
            item = params.get("Item") or {}
            if name == "PutItem" and item.get("kind", {}).get("S") == "marker":
                name = "PutItem:lease marker"
            operations[name] += 1

        store.table._client.meta.events.register("provide-client-params.dynamodb", count)
        recovery, attempts = await _recovery_seconds(settings, store)
        lines = [
            f"hard kill -> next successful turn on the same session: {recovery:.1f} s "
            f"(lease {settings.turn_lease_seconds} s; aim <= 60 s; {attempts} tries at 0.5 s)",
        ]
        lines.extend(await _renewals(store, operations, settings))
        return lines


def run() -> list[str]:
    return asyncio.run(_run())
