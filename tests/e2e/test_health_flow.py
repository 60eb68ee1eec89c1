"""The phone's health data end to end, through the clients generated from openapi.json against the local
stack on the offline model (docs/health-data.md).

The Python client (openapi-python-client): consent per type, a 90-day first sync in batches of 1,000
(about 20,000 samples, within 60 s), the same window sent again storing nothing, `GET /today` adjusted to
three days of low HRV with the reason, the coach asked "why is today lighter?" answering with the
numbers, consent withdrawn (its samples deleted), the export holding the health tables, and the account
deleted. The TypeScript client (openapi-typescript + openapi-fetch, tests/clients/health.ts): a HealthKit
phone's 90-day sync, the replay, today's adjustment and the withdrawal, typed by `tsc --strict`.
"""

from __future__ import annotations

import importlib
import json
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from trainer.api.auth import mint_dev_token
from trainer_dev.testing.health_series import PhoneHealthData

from tests.clients.conftest import python_client, typescript_client  # noqa: F401  (fixtures)
from tests.clients.toolchain import TypeScriptClient
from tests.e2e.conftest import E2E_SECRET, Stack

pytestmark = pytest.mark.e2e

FIRST_SYNC_SECONDS = 60
PHONE = PhoneHealthData(days=90, hrv_drop_days=3)


class GeneratedClient:
    """The generated `trainer_client` package: one call per operation, by its tag and method name."""

    def __init__(self, base_url: str, token: str) -> None:
        self.models: ModuleType = importlib.import_module("trainer_client.models")
        client = importlib.import_module("trainer_client")
        self.client = client.AuthenticatedClient(
            base_url=base_url, token=token, timeout=httpx.Timeout(120.0), raise_on_unexpected_status=True
        )

    def call(self, group: str, operation: str, **kwargs: Any) -> Any:
        module = importlib.import_module(f"trainer_client.api.{group}.{operation}")
        answer = module.sync(client=self.client, **kwargs)
        assert not isinstance(answer, self.models.Error), f"{operation}: {answer}"
        return answer

    def raw(self, group: str, operation: str, **kwargs: Any) -> Any:
        module = importlib.import_module(f"trainer_client.api.{group}.{operation}")
        return module.sync_detailed(client=self.client, **kwargs)


def test_consent_a_90_day_sync_a_lighter_day_the_coach_withdrawal_export_and_deletion(
    local_stack: Stack,
    python_client: Path,  # noqa: F811
) -> None:
    user = str(uuid.uuid4())
    phone = GeneratedClient(local_stack.base_url, mint_dev_token(E2E_SECRET, user, ttl_seconds=3600))
    models = phone.models
    zone = ZoneInfo("UTC")

    consents = phone.call(
        "health_data",
        "update_health_consent",
        body=models.HealthConsentUpdate(
            heart_rate_variability=True, resting_heart_rate=True, sleep=True, steps=True, workouts=True
        ),
    )
    assert all(c.granted for c in consents.consents) and consents.deleted_samples == 0
    before = phone.call("delivery", "get_today").today
    assert before.adjustment is None

    now = datetime.now(UTC)
    batches = [models.HealthSampleBatch.from_dict(body) for body in PHONE.batches(now, zone)]
    started = time.monotonic()
    stored = [phone.call("health_data", "send_health_samples", body=batch) for batch in batches]
    seconds = time.monotonic() - started
    received = sum(s.received for s in stored)
    assert 18_000 <= received <= 22_000 and len(batches) == -(-received // 1000)
    assert sum(s.stored for s in stored) == received
    assert seconds < FIRST_SYNC_SECONDS, f"the first sync took {seconds:.1f} s"

    replayed = phone.call("health_data", "send_health_samples", body=batches[-1])
    assert (replayed.stored, replayed.duplicates) == (0, replayed.received)
    status = phone.call("health_data", "get_health_status")
    assert sum(s.samples for s in status.stored) == received

    today = phone.call("delivery", "get_today").today
    assert today.adjustment is not None
    assert (today.adjustment.source, today.adjustment.level) == ("health_data", "reduce")
    assert "3 days running" in today.adjustment.reasons[0]
    assert today.adjustment.explanation.startswith("Adjusted to your phone's health data")
    sets = lambda w: sum(e.sets or e.rounds or 1 for e in w.exercises)  # noqa: E731
    assert sets(today.workout) < sets(before.workout)

    reply = phone.call("agent", "send_chat_message", body=models.ChatRequest(message="Why is today lighter?"))
    text = " ".join(reply.response.messages)
    assert "lighter" in text and "HRV (RMSSD)" in text and "3 days running" in text, text
    assert "your phone's health data" in text

    withdrawn = phone.call(
        "health_data", "update_health_consent", body=models.HealthConsentUpdate(heart_rate_variability=False)
    )
    hrv = sum(1 for body in PHONE.batches(now, zone) for s in body["samples"] if s["type"] == "hrv_rmssd")
    assert withdrawn.deleted_samples == hrv
    assert phone.call("delivery", "get_today").today.adjustment is None
    refused = phone.raw("health_data", "send_health_samples", body=batches[0])
    assert refused.status_code == 409

    exported = phone.raw("account", "export_account")
    assert exported.status_code == 200
    document = json.loads(exported.content)
    samples = document["tables"]["health_samples"]
    assert len(samples) == received - hrv and {s["kind"] for s in samples} >= {"steps", "sleep_session"}
    assert "hrv_rmssd" not in {s["kind"] for s in samples}
    assert {c["data_type"]: c["granted"] for c in document["tables"]["health_consents"]}[
        "heart_rate_variability"
    ] is False

    deleted = phone.raw("account", "delete_account", body=models.AccountDeletion(confirm="delete my account"))
    assert deleted.status_code == 204
    gone = phone.raw("health_data", "get_health_status")
    assert gone.status_code == 401 and json.loads(gone.content)["error"]["code"] == "account_deleted"


def test_a_healthkit_phones_sync_through_the_generated_typescript_client(
    local_stack: Stack,
    typescript_client: TypeScriptClient,  # noqa: F811
    tmp_path: Path,
) -> None:
    phone = PhoneHealthData(days=90, platform="healthkit", hrv_drop_days=3)
    batches = list(phone.batches(datetime.now(UTC), ZoneInfo("UTC")))
    (tmp_path / "batches.json").write_text(json.dumps(batches), encoding="utf-8")
    token = mint_dev_token(E2E_SECRET, str(uuid.uuid4()), ttl_seconds=3600)

    summary = json.loads(
        typescript_client.node("health.js", local_stack.base_url, token, str(tmp_path / "batches.json"))
    )

    sent = sum(len(body["samples"]) for body in batches)
    hrv = sum(1 for body in batches for s in body["samples"] if s["type"] == "hrv_sdnn")
    assert len(summary["granted"]) == 5
    assert summary["requests"] == len(batches) and summary["received"] == summary["stored"] == sent
    assert summary["syncSeconds"] < FIRST_SYNC_SECONDS, f"the first sync took {summary['syncSeconds']:.1f} s"
    replayed = summary["replayed"]
    assert (replayed["stored"], replayed["duplicates"]) == (0, replayed["received"])
    adjustment = summary["adjustment"]
    assert (adjustment["source"], adjustment["level"]) == ("health_data", "reduce")
    assert "HRV (SDNN)" in adjustment["reasons"][0], adjustment
    assert summary["withdrawnDeleted"] == hrv and summary["adjustmentAfterWithdrawal"] is None
    assert summary["refused"] == {"status": 409, "code": "consent_required"}
    assert "hrv_sdnn" not in summary["storedByType"] and sum(summary["storedByType"].values()) == sent - hrv
