"""The local stack's DynamoDB keeps its data between runs: every accepted item write is
journalled as it happens, so a server that dies loses nothing it acknowledged; a clean stop writes a
snapshot and empties the journal."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client
from trainer.store.models import EventType
from trainer.store.sessions import DynamoSessionTable
from trainer_dev.local.moto_server import create_resources, start_moto

from tests.fixtures_moto import REPO_TEMPLATE

USER = "00000000-0000-4000-8000-00000000beef"


def settings_for(endpoint: str, suffix: str) -> Settings:
    return Settings(
        AWS_ENDPOINT_URL=endpoint,
        AWS_REGION="us-east-1",
        TRAINER_TABLE_NAME=f"sessions-{suffix}",
        TRAINER_IDEMPOTENCY_TABLE_NAME=f"idempotency-{suffix}",
        TRAINER_EVENT_BUS_NAME=f"bus-{suffix}",
    )


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.setenv(name, "local")


def forget_everything(settings: Settings, suffix: str) -> None:
    """moto keeps its data in this process's memory, shared by every moto server of the process: drop
    this test's tables, as a new process would start without them. (moto's reset would wipe the
    tables of every other test of the same worker too, the scenario runs' among them.)"""
    client = aws_client("dynamodb", settings)
    for page in client.get_paginator("list_tables").paginate():
        for name in page["TableNames"]:
            if name.endswith(f"-{suffix}"):
                client.delete_table(TableName=name)


def run_server(state: Path, suffix: str) -> tuple[object, Settings, int]:
    handle = start_moto(0, state)
    settings = settings_for(handle.endpoint_url, suffix)
    create_resources(settings, REPO_TEMPLATE)
    return handle, settings, handle.restore_state(settings)


LARGE_STATE = {"notes": [f"note {n}: " + "squat, bench, row " * 8 for n in range(12)]}
"""Over the store's compression threshold (512 bytes): the snapshot and the journal carry binary values."""


@pytest.mark.parametrize("clean_stop", [True, False], ids=["clean stop", "killed"])
def test_sessions_and_events_survive_a_restart(tmp_path: Path, clean_stop: bool) -> None:
    suffix = uuid.uuid4().hex[:8]
    handle, settings, restored = run_server(tmp_path, suffix)
    assert restored == 0
    table = DynamoSessionTable(settings)
    session = table.create_session(USER)
    for n in range(3):
        table.append_event(session.id, EventType.USER_MESSAGE, {"message": f"m{n}"})
    table.acquire_lease(session.id, "turn-a", 30)
    table.release_lease(session.id, "turn-a")
    table.put_state(session.id, "current_workout", {"exercises": [{"id": "ex_1"}]})
    table.put_state(session.id, "artifacts", LARGE_STATE)  # stored compressed: a binary attribute
    if clean_stop:
        handle.save_state(settings)  # type: ignore[attr-defined]
        assert not (tmp_path / "dynamodb-journal.jsonl").exists()
    forget_everything(settings, suffix)
    handle.stop()  # type: ignore[attr-defined]

    again, settings, restored = run_server(tmp_path, suffix)
    try:
        assert restored > 0
        table = DynamoSessionTable(settings)
        loaded = table.load_session(session.id)
        assert loaded.user_id == USER and loaded.last_seq == 3
        assert [e.data["message"] for e in table.read_events(session.id).events] == ["m0", "m1", "m2"]
        assert table.get_state(session.id, "current_workout") == {"exercises": [{"id": "ex_1"}]}
        assert table.get_state(session.id, "artifacts") == LARGE_STATE
        assert [s.id for s in table.list_sessions(USER)] == [session.id]
        table.acquire_lease(session.id, "turn-b", 30)
    finally:
        again.stop()  # type: ignore[attr-defined]


def test_a_snapshot_table_the_stack_no_longer_creates_is_skipped(tmp_path: Path) -> None:
    """moto's tables are process-wide: a snapshot may hold a table this stack does not create."""
    suffix = uuid.uuid4().hex[:8]
    handle, settings, _ = run_server(tmp_path, suffix)
    table = DynamoSessionTable(settings)
    session = table.create_session(USER)
    client = aws_client("dynamodb", settings)
    client.create_table(
        TableName=f"gone-{suffix}",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=f"gone-{suffix}", Item={"pk": {"S": "x"}})
    handle.save_state(settings)  # type: ignore[attr-defined]
    forget_everything(settings, suffix)
    handle.stop()  # type: ignore[attr-defined]

    again, settings, restored = run_server(tmp_path, suffix)
    try:
        assert restored > 0
        assert DynamoSessionTable(settings).load_session(session.id).user_id == USER
    finally:
        again.stop()  # type: ignore[attr-defined]
