"""`make run` keeps its DynamoDB data under the data directory: a session and its whole timeline are
still there after the stack is stopped and started again (finding 7), like the Postgres rows that
refer to them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import assert_clean_shutdown, start_stack

pytestmark = pytest.mark.e2e


def test_sessions_survive_a_restart_of_the_local_stack(tmp_path: Path) -> None:
    first = start_stack(tmp_path, {})
    try:
        with first.client() as http:
            turn = http.post("/agent/chat", json={"message": "Give me a quick chest workout"}).json()
            session_id = turn["sessionId"]
            before = http.get(f"/agent/sessions/{session_id}/events", params={"limit": 500}).json()
            logged = http.get("/exercises/history").json()["exercises"]
    finally:
        assert_clean_shutdown(first)

    second = start_stack(tmp_path, {})
    try:
        with second.client() as http:
            after = http.get(f"/agent/sessions/{session_id}/events", params={"limit": 500}).json()
            assert after["events"] == before["events"]
            listed = http.get("/agent/sessions").json()["sessions"]
            assert session_id in [s["id"] for s in listed]
            assert http.get("/exercises/history").json()["exercises"] == logged
            more = http.post("/agent/chat", json={"message": "swap the first one", "sessionId": session_id})
            assert more.status_code == 200, more.text
    finally:
        assert_clean_shutdown(second)
