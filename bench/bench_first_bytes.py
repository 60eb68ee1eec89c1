"""First bytes of a turn on the local stack, over HTTP: `trainer local --fake-llm 500` (embedded
Postgres, moto, the API on uvicorn, the real SDKs against the loopback fake at 500 ms per model call)
exactly as `make run --fake-llm` starts it.

Figures, per turn on `POST /agent/stream`, for a new session and for a session with history:
- first frame: from sending the request to the first SSE frame (`session`) arriving (aim <= 100 ms);
- initializer -> model: from the fake answering the initializer (OpenAI chat) to the main model's
  request (Anthropic messages) arriving at it: source fetch, knowledge commit and context building
  (aim <= 100 ms);
- request -> initializer: from sending the request to the initializer's request arriving (how
  soon the turn gets going);
- store round trips before the first frame and after it (DynamoDB requests, SQL statements), from the
  stack's `request done` log lines: the counts tests/integration/api/test_first_frame_round_trips.py holds,
  which do not depend on the machine's load as the times do.
The fake records `time.monotonic()`, which is one clock for every process of the machine.

Each case runs twice: turns back to back, and with THINK_SECONDS between them (a person reads the reply
before writing again). Back to back, the next turn's first frame competes with the last turn's
background work, which the local stack runs in its own process (its bus hands `TurnCompleted` to the
checkpoint and cost handlers in-process; in AWS they are separate functions).

`python -m bench first_bytes`
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

MODEL_LATENCY_MS = 500
TURNS = 5
THINK_SECONDS = 2.0
MESSAGES = ("How am I doing on my goals this month?", "What did I train last week?")


def _frames(response: httpx.Response) -> Any:
    for line in response.iter_lines():
        if line.startswith("data:"):
            yield json.loads(line[5:].strip())


def _turn(client: httpx.Client, message: str, session_id: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message}
    if session_id:
        body["sessionId"] = session_id
    sent = time.monotonic()
    first: float | None = None
    session = session_id
    with client.stream("POST", "/agent/stream", json=body) as response:
        response.raise_for_status()
        for frame in _frames(response):
            if first is None:
                first = time.monotonic()
            session = frame.get("sessionId") or session
    if first is None:
        raise RuntimeError("the stream sent no frame")
    return {"sent": sent, "first_frame": first, "session_id": session}


def _gaps(fake_url: str, sent: float) -> tuple[float, float]:
    """(request -> initializer request, initializer answer -> first main-model request), in ms."""
    timings = httpx.get(f"{fake_url}/_fake/timings", timeout=10).json()["requests"]
    mine = [t for t in timings if t["received_at"] >= sent]
    init = next(t for t in mine if t["path"].endswith("/chat/completions"))
    model = next(t for t in mine if t["path"] == "/v1/messages" and t["received_at"] >= init["answered_at"])
    return (init["received_at"] - sent) * 1000, (model["received_at"] - init["answered_at"]) * 1000


def _stream_calls(log: str) -> list[dict[str, Any]]:
    """The `request done` lines of the stack's streamed turns, in order."""
    found = []
    for line in log.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(entry, dict)
            and entry.get("message") == "request done"
            and entry.get("path") == "/agent/stream"
            and "store_calls_before_first_frame" in entry
        ):
            found.append(entry)
    return found


def _calls_summary(label: str, entries: list[dict[str, Any]]) -> str:
    def median(key: str, store: str) -> float:
        return statistics.median(entry[key][store] for entry in entries)

    before = {s: median("store_calls_before_first_frame", s) for s in ("dynamodb", "sql")}
    total = {s: median("store_calls", s) for s in ("dynamodb", "sql")}
    return (
        f"{label}: store round trips before the first frame: DynamoDB {before['dynamodb']:.0f}, "
        f"SQL {before['sql']:.0f}; after it: DynamoDB {total['dynamodb'] - before['dynamodb']:.0f}, "
        f"SQL {total['sql'] - before['sql']:.0f} (medians)"
    )


def _summary(label: str, values: list[float], aim: float | None = None) -> str:
    text = f"{label}: p50 {statistics.median(values):.0f} ms, max {max(values):.0f} ms"
    return text + (f" (aim <= {aim:.0f} ms)" if aim is not None else "")


def run() -> list[str]:
    from trainer_dev.testing.local_stack import start_stack, stop_stack

    with tempfile.TemporaryDirectory() as tmp:
        stack = start_stack(Path(tmp), {}, ("--fake-llm", str(MODEL_LATENCY_MS), "--log-level", "info"))
        try:
            found = re.search(r"fake Anthropic/OpenAI APIs on (http://\S+)", stack.log())
            if found is None:
                raise RuntimeError("the stack did not start its fake model server")
            fake_url = found.group(1)
            lines = [f"local stack, fake model {MODEL_LATENCY_MS} ms per call, {TURNS} turns per case"]
            with stack.client(timeout=300) as client:
                warm_up = _turn(client, MESSAGES[0], None)
                lines.append(
                    f"the stack's first turn (builds the container): first frame "
                    f"{(warm_up['first_frame'] - warm_up['sent']) * 1000:.0f} ms"
                )
                cases = [
                    (c, pause)
                    for pause in (0.0, THINK_SECONDS)
                    for c in ("new session", "session with history")
                ]
                for case, pause in cases:
                    first_frame, to_init, init_to_model = [], [], []
                    session_id: str | None = None
                    if case == "session with history":
                        session_id = _turn(client, MESSAGES[0], None)["session_id"]
                    seen = len(_stream_calls(stack.log()))
                    for index in range(TURNS):
                        time.sleep(pause)
                        turn = _turn(client, MESSAGES[index % 2], session_id)
                        first_frame.append((turn["first_frame"] - turn["sent"]) * 1000)
                        started, gap = _gaps(fake_url, turn["sent"])
                        to_init.append(started)
                        init_to_model.append(gap)
                    time.sleep(0.5)  # the last turn's `request done` line
                    label = f"{case}, " + (f"{pause:.0f} s between turns" if pause else "back to back")
                    lines += [
                        _summary(f"{label}: first frame", first_frame, 100),
                        _summary(f"{label}: request -> initializer request", to_init),
                        _summary(f"{label}: initializer answer -> main model request", init_to_model, 100),
                        _calls_summary(label, _stream_calls(stack.log())[seen:]),
                    ]
            return lines
        finally:
            stop_stack(stack.process)
