"""Event bus adapters: EventBridge publishing (moto rule -> SQS), partial-failure resends, in-process bus."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from trainer.chat.ports import EventPublisher
from trainer.settings import Settings
from trainer.store.bus import SOURCE, EventBridgePublisher, PublishError
from trainer.store.dynamo_tables import aws_client
from trainer_dev.local.bus import InProcessBus

TURN = {
    "turn_id": "t-1",
    "session_id": "s-1",
    "user_id": "u-1",
    "first_seq": 1,
    "last_seq": 9,
    "context_tokens_estimate": 1234,
    "model": "claude-haiku-4-5",
    "status": "completed",
    "usage": {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 3,
    },
    "cost_cents": 0.0125,
}


class FlakyEventsClient:
    """Stands in for boto3's events client: rejects entries of the listed detail types, `failures` times."""

    def __init__(self, reject: set[str], failures: int) -> None:
        self.reject = reject
        self.failures = failures
        self.calls: list[list[dict[str, Any]]] = []

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        self.calls.append(Entries)
        failing = len(self.calls) <= self.failures
        results = [
            {"ErrorCode": "ThrottlingException", "ErrorMessage": "slow down"}
            if failing and entry["DetailType"] in self.reject
            else {"EventId": f"id-{len(self.calls)}-{index}"}
            for index, entry in enumerate(Entries)
        ]
        return {"FailedEntryCount": sum("ErrorCode" in r for r in results), "Entries": results}


async def test_published_turn_reaches_a_rule_target(aws_settings: Settings) -> None:
    sqs = aws_client("sqs", aws_settings)
    events = aws_client("events", aws_settings)
    queue_url = sqs.create_queue(QueueName=f"{aws_settings.event_bus_name}-target")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    events.put_rule(
        Name="turn-completed",
        EventBusName=aws_settings.event_bus_name,
        EventPattern=json.dumps({"source": [SOURCE], "detail-type": ["TurnCompleted"]}),
    )
    events.put_targets(
        Rule="turn-completed",
        EventBusName=aws_settings.event_bus_name,
        Targets=[{"Id": "q", "Arn": queue_arn}],
    )

    publisher: EventPublisher = EventBridgePublisher(aws_settings)
    await publisher.publish("TurnCompleted", TURN)

    messages = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=1, MaxNumberOfMessages=10)["Messages"]
    (delivered,) = [json.loads(m["Body"]) for m in messages]
    assert delivered["source"] == SOURCE
    assert delivered["detail-type"] == "TurnCompleted"
    assert delivered["detail"] == TURN


@pytest.fixture
def bus_settings() -> Settings:
    return Settings(TRAINER_EVENT_BUS_NAME="trainer-test-bus")


async def test_only_failed_entries_are_resent(bus_settings: Settings) -> None:
    client = FlakyEventsClient(reject={"B"}, failures=2)
    publisher = EventBridgePublisher(bus_settings, client=client, sleep=lambda _: None)

    await publisher.publish_many([("A", {"n": 1}), ("B", {"n": 2}), ("C", {"n": 3})])

    assert [[entry["DetailType"] for entry in call] for call in client.calls] == [
        ["A", "B", "C"],
        ["B"],
        ["B"],
    ]
    first = client.calls[0][0]
    assert first["Source"] == SOURCE
    assert first["EventBusName"] == "trainer-test-bus"
    assert json.loads(first["Detail"]) == {"n": 1}


async def test_publishing_gives_up_after_bounded_resends(bus_settings: Settings) -> None:
    client = FlakyEventsClient(reject={"TurnCompleted"}, failures=100)
    delays: list[float] = []
    publisher = EventBridgePublisher(bus_settings, client=client, max_attempts=3, sleep=delays.append)

    with pytest.raises(PublishError) as raised:
        await publisher.publish("TurnCompleted", TURN)

    assert len(client.calls) == 3
    assert len(delays) == 2
    assert raised.value.failed[0]["ErrorCode"] == "ThrottlingException"


async def test_oversized_detail_is_a_clear_error(bus_settings: Settings) -> None:
    publisher = EventBridgePublisher(bus_settings, client=FlakyEventsClient(set(), 0))
    with pytest.raises(ValueError, match="exceeds"):
        await publisher.publish("TurnCompleted", {"blob": "x" * 300_000})


async def test_in_process_bus_delivers_an_eventbridge_envelope_without_blocking() -> None:
    bus = InProcessBus(region="eu-west-1")
    release = threading.Event()
    received: list[tuple[dict[str, Any], Any]] = []

    def checkpoint_handler(event: dict[str, Any], context: Any) -> None:
        release.wait(timeout=5)
        received.append((event, context))

    def cost_handler(event: dict[str, Any], context: Any) -> None:
        raise RuntimeError("cost store down")

    bus.subscribe("TurnCompleted", checkpoint_handler)
    bus.subscribe("TurnCompleted", cost_handler)
    publisher: EventPublisher = bus

    started = time.perf_counter()
    await publisher.publish("TurnCompleted", TURN)
    await publisher.publish("SomethingElse", {"ignored": True})
    assert time.perf_counter() - started < 1
    assert received == []

    release.set()
    await bus.drain()
    bus.close()

    ((event, context),) = received
    assert set(event) == {
        "version",
        "id",
        "detail-type",
        "source",
        "account",
        "time",
        "region",
        "resources",
        "detail",
    }
    assert event["source"] == SOURCE
    assert event["detail-type"] == "TurnCompleted"
    assert event["region"] == "eu-west-1"
    assert event["detail"] == TURN
    assert event["time"].endswith("Z")
    assert context.function_name == "checkpoint_handler"
    assert context.get_remaining_time_in_millis() > 0
    assert [(name, str(error)) for name, error in bus.failures] == [("cost_handler", "cost store down")]
