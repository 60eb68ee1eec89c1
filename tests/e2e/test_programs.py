"""What a training plan must show (docs/programs.md), over HTTP against the local stack on the offline model:
the chat asked for a 12-week plan, 4 days a week, answers at once with the plan being built; the plan becomes
`ready` with deload weeks; the hourly schedule (`trainer schedule run-hourly`, at the time week 2 is due)
builds week 2 once although its `WeekDue` is delivered twice and the schedule runs twice; today's workout
message is at most 1,600 characters; a pasted text workout imports; a session added to the calendar twice with
one `Idempotency-Key` (a retry after a lost answer) is there once."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from trainer.api.auth import mint_dev_token

from tests.e2e.conftest import E2E_SECRET, REPO, TRAINER, Stack, stack_environment

pytestmark = pytest.mark.e2e

READY_TIMEOUT_S = 120
SMS_LIMIT = 1600
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
PASTED = """Push day from my coach
Warm-up: 5 min bike
1. Bench press 4x8 @ 60kg
2. Overhead press 3 sets of 10 @ 30kg
3. Dips 3x12
Plank 3 x 45s
"""


def newcomer(stack: Stack) -> httpx.Client:
    token = mint_dev_token(E2E_SECRET, str(uuid.uuid4()), ttl_seconds=3600)
    return httpx.Client(base_url=stack.base_url, headers=stack.headers(token), timeout=120)


def say(http: httpx.Client, message: str) -> dict[str, Any]:
    reply = http.post("/agent/chat", json={"message": message})
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def result_of(reply: dict[str, Any], tool: str) -> dict[str, Any]:
    calls = [a for a in reply["actions"] if a["tool"] == tool]
    assert calls, f"{tool} not in {[a['tool'] for a in reply['actions']]}"
    result = dict(calls[0]["result"])
    assert result.get("success") is True, result
    return result


def wait_until_ready(http: httpx.Client, plan_id: str) -> dict[str, Any]:
    """The plan once it is ready and its first week's days are there (the plan turns ready a moment
    before its first week is written)."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        response = http.get(f"/plans/{plan_id}")
        assert response.status_code == 200, response.text
        detail: dict[str, Any] = response.json()
        assert detail["plan"]["status"] != "failed", detail["plan"]["error"]
        if detail["plan"]["status"] == "ready" and any(w["status"] == "ready" for w in detail["weeks"]):
            return detail
        assert time.monotonic() < deadline, f"the plan is not ready: {detail['plan']}, {detail['weeks']}"
        time.sleep(0.5)


def run_hourly(stack: Stack, at: datetime, deliveries: int) -> dict[str, Any]:
    """`trainer schedule run-hourly` against the running stack's database, its WeekDue events
    delivered `deliveries` times."""
    data_dir = Path(stack.log_path).parent / "data"
    done = subprocess.run(
        [
            str(TRAINER),
            "schedule",
            "run-hourly",
            "--data-dir",
            str(data_dir),
            "--at",
            at.isoformat(),
            "--deliveries",
            str(deliveries),
            "--json",
        ],
        cwd=REPO,
        env=stack_environment(0, {}),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def mine(entries: list[dict[str, Any]], plan_id: str, key: str) -> list[dict[str, Any]]:
    return [e[key] for e in entries if e[key].get("plan_id") == plan_id]


def test_a_chat_plan_is_built_then_the_schedule_builds_week_two_once(local_stack: Stack) -> None:
    with newcomer(local_stack) as http:
        today = datetime.now(UTC).date()
        days = [WEEKDAYS[(today.weekday() + offset) % 7] for offset in (0, 1, 3, 5)]
        assert http.put("/user-settings", json={"preferred_days": days}).status_code == 200

        reply = say(http, "Make me a 12-week plan, 4 days a week")
        requested = result_of(reply, "request_training_plan")["plan"]
        assert requested["status"] == "pending"
        assert (requested["weeks"], requested["days_per_week"]) == (12, 4)
        said = " ".join(reply["response"]["messages"])
        assert "12-week" in said and "is ready" not in said

        plan_id = requested["plan_id"]
        detail = wait_until_ready(http, plan_id)
        deloads = sorted(w for cycle in detail["structured"]["microcycles"] for w in cycle["deload_weeks"])
        assert deloads and all(1 < w <= 12 for w in deloads)
        assert [(w["week_number"], w["status"]) for w in detail["weeks"]] == [(1, "ready")]
        assert len(detail["days"]) == 7
        assert sorted(d["weekday"] for d in detail["days"] if d["kind"] == "training") == sorted(days)
        assert [p["id"] for p in http.get("/plans").json()["plans"]] == [plan_id]

        workouts = http.get("/workouts").json()["workouts"]
        # The plan starts on the stack's today (its own clock): the day the test read, or the next one
        # if midnight passed meanwhile (a training day too: the days chosen include tomorrow's).
        start = detail["plan"]["start_date"]
        assert start in (today.isoformat(), (today + timedelta(days=1)).isoformat())
        todays = next(w for w in workouts if w["date"] == start)
        assert todays["kind"] == "training" and todays["workout"]["exercises"]
        assert 0 < len(todays["message"]) <= SMS_LIMIT
        asked = result_of(say(http, "What's my workout today?"), "get_planned_workout")
        assert asked["planned"]["workout_id"] == todays["id"]
        assert asked["planned"]["message"] == todays["message"]

        week_two = date.fromisoformat(detail["plan"]["start_date"]) + timedelta(days=7)
        due_at = datetime.fromisoformat(detail["plan"]["next_week_due_at"])
        assert detail["plan"]["next_week"] == 2 and due_at.date() == week_two
        at = due_at + timedelta(minutes=30)
        early = run_hourly(local_stack, due_at - timedelta(hours=1), deliveries=1)
        assert mine(early["published"], plan_id, "detail") == []

        first = run_hourly(local_stack, at, deliveries=2)
        published = mine(first["published"], plan_id, "detail")
        assert published == [{"user_id": published[0]["user_id"], "plan_id": plan_id, "week_number": 2}]
        delivered = mine(first["delivered"], plan_id, "result")
        assert len(delivered) == 2, first
        assert sorted(bool(d["built"]) for d in delivered) == [False, True], delivered
        second = run_hourly(local_stack, at + timedelta(minutes=5), deliveries=2)
        assert mine(second["published"], plan_id, "detail") == []

        after = http.get(f"/plans/{plan_id}").json()
        assert [(w["week_number"], w["status"]) for w in after["weeks"]] == [(1, "ready"), (2, "ready")]
        week_days = [d for d in after["days"] if d["week_number"] == 2]
        assert len(week_days) == 7 and len({d["date"] for d in week_days}) == 7
        assert min(d["date"] for d in week_days) == week_two.isoformat()
        assert len(after["days"]) == 14
        assert after["plan"]["next_week"] == 3


def test_a_pasted_text_workout_imports(local_stack: Stack) -> None:
    with newcomer(local_stack) as http:
        imported = http.post("/workouts/import", json={"text": PASTED})
        assert imported.status_code == 200, imported.text
        exercises = imported.json()["workout"]["exercises"]
        names = [e["exercise_name"].lower() for e in exercises]
        for word in ("bench", "dip", "plank"):
            assert any(word in name for name in names), names
        assert sum("press" in name for name in names) == 2, names
        bench = next(e for e in exercises if "bench" in e["exercise_name"].lower())
        assert (bench["sets"], bench["reps"], bench["load_each"], bench["load_unit"]) == (
            4,
            [8, 8, 8, 8],
            [60.0] * 4,
            "kg",
        )
        refused = http.post("/workouts/import", json={"text": "No idea what to do today, any thoughts?"})
        assert refused.status_code == 422 and refused.json()["error"]["code"] == "not_a_workout"


def test_a_session_added_again_with_its_key_is_on_the_calendar_once(local_stack: Stack) -> None:
    with newcomer(local_stack) as http:
        day = (datetime.now(UTC).date() + timedelta(days=2)).isoformat()
        body = {"date": day, "time": "18:00", "workout_type": "Zone 2 Run"}
        key = {"Idempotency-Key": str(uuid.uuid4())}
        added = http.post("/workouts", json=body, headers=key)
        assert added.status_code == 201, added.text
        retried = http.post("/workouts", json=body, headers=key)  # the first answer was lost
        assert (retried.status_code, retried.json()) == (201, added.json())
        listed = http.get("/workouts", params={"from": day, "to": day}).json()["workouts"]
        assert [w["id"] for w in listed if w["source"] == "calendar"] == [added.json()["workout"]["id"]]
