"""Publishing domain events to the EventBridge bus (docs/architecture.md#events-on-the-bus)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from trainer.settings import EventBusSettings
from trainer.store.dynamo_tables import aws_client

logger = logging.getLogger(__name__)

SOURCE = "trainer.agent"
MAX_ENTRIES_PER_CALL = 10
MAX_DETAIL_BYTES = 250_000


class PublishError(RuntimeError):
    """Some entries were still rejected by EventBridge after the bounded resends."""

    def __init__(self, message: str, failed: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.failed = failed


def encode_detail(detail: dict[str, Any]) -> str:
    if not isinstance(detail, dict):
        raise ValueError("event detail must be a dict")
    text = json.dumps(detail, separators=(",", ":"), default=str)
    if len(text.encode("utf-8")) > MAX_DETAIL_BYTES:
        raise ValueError(f"event detail exceeds {MAX_DETAIL_BYTES} bytes")
    return text


class EventBridgePublisher:
    """`trainer.chat.ports.EventPublisher` on EventBridge `PutEvents`; entries rejected in a partial
    failure are resent."""

    def __init__(
        self,
        settings: EventBusSettings,
        client: Any = None,
        *,
        max_attempts: int = 4,
        base_delay: float = 0.1,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._bus_name = settings.event_bus_name
        self._client = client if client is not None else aws_client("events", settings)
        self._max_attempts = max_attempts
        self._base_delay = base_delay
        self._sleep = sleep

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        await asyncio.to_thread(self.publish_sync, [(detail_type, detail)])

    async def publish_many(self, events: Sequence[tuple[str, dict[str, Any]]]) -> None:
        await asyncio.to_thread(self.publish_sync, events)

    def publish_sync(self, events: Sequence[tuple[str, dict[str, Any]]]) -> None:
        entries = [
            {
                "Source": SOURCE,
                "DetailType": detail_type,
                "Detail": encode_detail(detail),
                "EventBusName": self._bus_name,
            }
            for detail_type, detail in events
        ]
        for start in range(0, len(entries), MAX_ENTRIES_PER_CALL):
            self._put_with_resend(entries[start : start + MAX_ENTRIES_PER_CALL])

    def _put_with_resend(self, entries: list[dict[str, Any]]) -> None:
        pending = entries
        results: list[dict[str, Any]] = []
        for attempt in range(self._max_attempts):
            if attempt:
                self._sleep(self._base_delay * 2 ** (attempt - 1) * random.uniform(0.5, 1.0))
            response = self._client.put_events(Entries=pending)
            if not response.get("FailedEntryCount"):
                return
            results = response.get("Entries", [])
            pending = [
                entry for entry, result in zip(pending, results, strict=True) if result.get("ErrorCode")
            ]
            logger.warning(
                "EventBridge rejected %d of %d entries (attempt %d): %s",
                len(pending),
                len(results),
                attempt + 1,
                sorted({str(result.get("ErrorCode")) for result in results if result.get("ErrorCode")}),
            )
        failures = [result for result in results if result.get("ErrorCode")]
        raise PublishError(
            f"{len(pending)} event(s) not accepted by bus {self._bus_name} "
            f"after {self._max_attempts} attempts",
            failures,
        )
