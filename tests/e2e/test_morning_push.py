"""The local twin delivers (docs/programs.md): against the running local stack, `trainer schedule run-daily`
(what `make schedule-daily` runs) hands each `WorkoutReady` to that stack's bus, as the scheduler hands it to
EventBridge in AWS, and the stack's Notifier pushes the day's workout through moto's SNS to the user's
registered device and records the delivery, readable with `GET /notifications`."""

from __future__ import annotations

import json
import re
import subprocess
import time
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.e2e.conftest import REPO, TRAINER, Stack, stack_environment
from tests.e2e.test_programs import WEEKDAYS, newcomer, wait_until_ready

pytestmark = pytest.mark.e2e

APNS_TOKEN = "a1b2c3d4" * 8
DELIVERED_TIMEOUT_S = 60


def zone_at_noon(now: datetime) -> str:
    """A fixed-offset zone where it is now between 12:00 and 13:00: the morning is past and the day is
    not over, on any date at any hour (Etc/GMT-N is UTC+N)."""
    offset = 12 - now.hour
    return "UTC" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"


def run_daily(stack: Stack, at: datetime) -> dict[str, Any]:
    done = subprocess.run(
        [
            str(TRAINER),
            "schedule",
            "run-daily",
            "--data-dir",
            str(Path(stack.log_path).parent / "data"),
            "--at",
            at.isoformat(),
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


def moto_pushes(stack: Stack, token: str) -> list[dict[str, Any]]:
    """The messages moto's SNS holds for the platform endpoints of `token` (its state, as moto serves
    it: /moto-api/data.json)."""
    found = re.search(r"moto \(DynamoDB, EventBridge\) on (http://\S+)", stack.log())
    assert found, "the stack prints its moto endpoint"
    data = httpx.get(f"{found.group(1)}/moto-api/data.json", timeout=30).json()
    endpoints = data.get("sns", {}).get("PlatformEndpoint", [])
    return [
        json.loads(m) for e in endpoints if e.get("token") == token for m in e.get("messages", {}).values()
    ]


def test_the_morning_schedule_reaches_the_running_stacks_notifier(local_stack: Stack) -> None:
    now = datetime.now(UTC)
    zone = zone_at_noon(now)
    today = now.astimezone(ZoneInfo(zone)).date()
    days = [WEEKDAYS[(today.weekday() + offset) % 7] for offset in (0, 2, 4)]
    with newcomer(local_stack) as http:
        settings = http.put("/user-settings", json={"timezone": zone, "preferred_days": days})
        assert settings.status_code == 200, settings.text
        device = http.post("/devices", json={"platform": "apns", "token": APNS_TOKEN})
        assert device.status_code == 201, device.text
        morning = http.get("/notification-settings").json()["settings"]
        assert morning["push_enabled"] is True
        requested = http.post("/plans", json={"weeks": 4, "days_per_week": 3})
        assert requested.status_code == 202, requested.text
        plan = wait_until_ready(http, requested.json()["plan"]["id"])
        todays = [d for d in plan["days"] if d["date"] == today.isoformat()]
        assert [d["kind"] for d in todays] == ["training"], plan["days"]

        # the daily run as the scheduler starts it at the morning hour in the user's zone
        at = datetime.combine(today, dt_time(morning["effective_morning_hour"]), ZoneInfo(zone))
        report = run_daily(local_stack, (at + timedelta(minutes=1)).astimezone(UTC))
        handed = [d["result"] for d in report["delivered"] if d["detail-type"] == "WorkoutReady"]
        assert handed and all("the local stack's bus" in (h["handed_to"] or "") for h in handed), report
        (published,) = [
            p["detail"]
            for p in report["published"]
            if p["detail"]["date"] == today.isoformat() and p["detail"]["workout_id"] == todays[0]["id"]
        ]

        deadline = time.monotonic() + DELIVERED_TIMEOUT_S
        while True:
            listed = http.get("/notifications")
            assert listed.status_code == 200, listed.text
            records = [n for n in listed.json()["notifications"] if n["date"] == today.isoformat()]
            if records and records[0]["status"] not in ("sending",):
                break
            assert time.monotonic() < deadline, (
                f"no delivery recorded: {records}\n{local_stack.log()[-3000:]}"
            )
            time.sleep(0.5)
    (record,) = records
    assert (record["status"], record["workout_id"], record["message"]) == (
        "sent",
        published["workout_id"],
        published["message"],
    ), record
    assert [(c["channel"], c["status"], c["platform"]) for c in record["channels"]] == [
        ("push", "sent", "apns")
    ]

    (push,) = moto_pushes(local_stack, APNS_TOKEN)
    alert = json.loads(push["APNS"])
    assert alert["workout_id"] == published["workout_id"] and alert["date"] == today.isoformat()
    assert alert["aps"]["alert"]["title"] == published["title"]
