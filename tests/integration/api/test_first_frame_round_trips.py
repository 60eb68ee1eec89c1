"""Store round trips before a stream's first frame, and after it, on each path of `POST /agent/stream`:
a new session, a session with history, and a retry with the same `Idempotency-Key`. Counted, not timed:
a round trip costs ~5-20 ms against DynamoDB or Postgres in AWS whatever this machine's load, so the
count is what keeps the first frame near its budget (100 ms p50, `python -m bench first_bytes`). A write
added in front of the first frame fails here until it moves behind it, or the budget below is changed on
purpose, in its own commit.

The counts are the stores' own tallies (trainer.store.request_counts): every DynamoDB request the
botocore client sends, every SQL statement the Postgres cursor executes. The request runs on the real
adapters (moto, embedded Postgres) through the app's ASGI interface, and its first body message is the
first frame.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from trainer.store.request_counts import FIRST_FRAME, counting

BEFORE_FIRST_FRAME = {
    # rate, reservation, the user's latest active session (none), META, the lease's marker; the
    # account's tombstone and (on a user's first request to this process) their row
    "new session": {"dynamodb": 5, "sql": 2},
    # rate, reservation, META, the log's head, the lease's marker; the tombstone
    "session with history": {"dynamodb": 5, "sql": 1},
    # the same and the key's claim (the note of the turn it started goes behind the first frame)
    "first with a key": {"dynamodb": 6, "sql": 1},
    # rate, the claim (refused: the key's record), the turn's first frames; the tombstone
    "retried with a key": {"dynamodb": 4, "sql": 1},
}
"""The most round trips each path may make before its first frame (2026-12-07: 6+2, 7+1, 9+1 and 5+1
before the lease trusted the head a turn just read and the rate check its last pass)."""


async def _stream(app: FastAPI, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """One `POST /agent/stream` through the ASGI app: the counts at its first body message, the counts
    once the turn it started has finished, and the frames."""
    raw = json.dumps(body).encode()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/agent/stream",
        "raw_path": b"/agent/stream",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"api.test"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(raw)).encode()),
            *[(k.lower().encode(), v.encode()) for k, v in headers.items()],
        ],
        "client": ("127.0.0.1", 5000),
        "server": ("api.test", 80),
    }
    sent = False
    finished = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await finished.wait()
        return {"type": "http.disconnect"}

    status = 0
    chunks: list[bytes] = []

    with counting() as counts:

        async def send(message: dict[str, Any]) -> None:
            nonlocal first, status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    finished.set()

        await app(scope, receive, send)
        await app.state.container_provider.turns.wait(30)
        total = counts.snapshot()
        first = counts.marks.get(FIRST_FRAME)
    assert status == 200, b"".join(chunks)
    assert first is not None, (status, chunks)
    frames = [
        json.loads(line[5:])
        for line in b"".join(chunks).decode().splitlines()
        if line.startswith("data:") and line[5:].strip()
    ]
    return {"first": first, "after": {k: total[k] - first[k] for k in total}, "frames": frames}


async def _paths(app: FastAPI, auth: dict[str, str]) -> dict[str, dict[str, Any]]:
    new = await _stream(app, {"message": "How am I doing on my goals this month?"}, auth)
    session_id = new["frames"][0]["sessionId"]
    history = await _stream(app, {"message": "What did I train last week?", "sessionId": session_id}, auth)
    keyed = {**auth, "Idempotency-Key": "first-frame-key-1"}
    first_keyed = await _stream(app, {"message": "Show my stats", "sessionId": session_id}, keyed)
    retried = await _stream(app, {"message": "Show my stats", "sessionId": session_id}, keyed)
    return {
        "new session": new,
        "session with history": history,
        "first with a key": first_keyed,
        "retried with a key": retried,
    }


async def test_round_trips_before_the_first_frame_stay_within_their_budget(
    app: FastAPI, auth: dict[str, str], record_property: Callable[[str, object], None]
) -> None:
    paths = await _paths(app, auth)
    seen = {name: path["first"] for name, path in paths.items()}
    for name, path in paths.items():
        record_property(name, {"before": path["first"], "after": path["after"]})
        print(f"{name}: before the first frame {path['first']}, after it {path['after']}")
    for name, budget in BEFORE_FIRST_FRAME.items():
        for store, most in budget.items():
            assert seen[name][store] <= most, f"{name}: {seen}"
    assert paths["new session"]["frames"][0]["type"] == "session"
    assert paths["retried with a key"]["after"]["sql"] == 0, "a replay runs no turn"
