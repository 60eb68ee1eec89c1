"""Store layer vs bare boto3 against the same moto server: append 1,000 events, then read them back."""

from __future__ import annotations

import time
from pathlib import Path
from statistics import median

from trainer.settings import Settings
from trainer.store.dynamo_tables import aws_client
from trainer.store.models import EventType
from trainer.store.sessions import DynamoSessionTable
from trainer_dev.local.moto_server import create_resources, start_moto

EVENTS = 1_000
ROUNDS = 1
TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"


def _payload(n: int) -> dict[str, object]:
    return {"tool_name": "fetch_data", "call_id": f"c{n}", "result": {"rows": [n, n * 1.5], "ok": True}}


def _store_round(store: DynamoSessionTable) -> tuple[float, float]:
    session = store.create_session("bench-user")
    started = time.perf_counter()
    for n in range(EVENTS):
        store.append_event(session.id, EventType.TOOL_RESULT, _payload(n))
    appended = time.perf_counter()
    events = store.read_events(session.id).events
    assert len(events) == EVENTS
    return appended - started, time.perf_counter() - appended


def _bare_round(client: object, table: str, round_no: int) -> tuple[float, float]:
    import json

    pk = f"SESSION#bare-{round_no}"
    started = time.perf_counter()
    for n in range(EVENTS):
        client.put_item(  # type: ignore[attr-defined]
            TableName=table,
            Item={
                "PK": {"S": pk},
                "SK": {"S": f"EVENT#{n + 1:010d}"},
                "event_type": {"S": "tool_result"},
                "data": {"S": json.dumps(_payload(n))},
            },
        )
    appended = time.perf_counter()
    items, request = (
        [],
        {
            "TableName": table,
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": {":pk": {"S": pk}},
        },
    )
    while True:
        response = client.query(**request)  # type: ignore[attr-defined]
        items.extend(response["Items"])
        if "LastEvaluatedKey" not in response:
            break
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
    events = [json.loads(item["data"]["S"]) for item in items]
    assert len(events) == EVENTS
    return appended - started, time.perf_counter() - appended


def run() -> list[str]:
    handle = start_moto(0)
    try:
        settings = Settings(AWS_ENDPOINT_URL=handle.endpoint_url, TRAINER_TABLE_NAME="bench-sessions")
        create_resources(settings, TEMPLATE)
        store = DynamoSessionTable(settings)
        client = aws_client("dynamodb", settings)
        store_runs, bare_runs = [], []
        for round_no in range(ROUNDS):
            bare_runs.append(_bare_round(client, settings.table_name, round_no))
            store_runs.append(_store_round(store))
    finally:
        handle.stop()
    store_write, store_read = median(r[0] for r in store_runs), median(r[1] for r in store_runs)
    bare_write, bare_read = median(r[0] for r in bare_runs), median(r[1] for r in bare_runs)
    store_total, bare_total = store_write + store_read, bare_write + bare_read
    return [
        f"{EVENTS} events, median of {ROUNDS} rounds, same moto server",
        f"store: append {store_write:.2f}s ({store_write / EVENTS * 1000:.2f} ms/event), "
        f"read {store_read:.3f}s",
        f"bare : put    {bare_write:.2f}s ({bare_write / EVENTS * 1000:.2f} ms/event), "
        f"query {bare_read:.3f}s",
        f"ratio store/bare total: {store_total / bare_total:.2f}x (aim <= 1.3x); "
        f"append {store_write / bare_write:.2f}x, read {store_read / bare_read:.2f}x",
        "store append = one conditional put of EVENT#n (bare: one plain put); read = paged query + decode",
    ]
