"""The sessions table's items through boto3: consistent reads that skip expired items, paged queries,
batched writes and deletes, payloads read back whole, and the clock expiry is judged by."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, cast

from trainer.settings import SessionTableSettings
from trainer.store.sessions.codec import blob_keys, inline_payload, joined_payload
from trainer.store.sessions.keys import Item, event_sk

Clock = Callable[[], datetime]
BATCH_ATTEMPTS = 10
CONDITION_FAILED = "ConditionalCheckFailed"
"""A cancelled transaction's code for an entry whose condition failed."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def error_code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def is_condition_failure(error: Exception) -> bool:
    return error_code(error) == "ConditionalCheckFailedException"


def cancellation_reasons(error: Exception) -> list[str] | None:
    """Per-entry codes of a cancelled transaction ("None" for entries that were fine); None for any
    other error."""
    if error_code(error) != "TransactionCanceledException":
        return None
    reasons = (getattr(error, "response", None) or {}).get("CancellationReasons") or []
    return [str(reason.get("Code") or "None") for reason in reasons]


def expired(item: Item, now: int) -> bool:
    expires = item.get("expires_at")
    return expires is not None and int(Decimal(expires["N"])) < now


class TableItems:
    """One sessions table's items. Thread-safe; every method is blocking. `client` may be replaced
    (a test wrapping it): every call reads it anew."""

    def __init__(self, settings: SessionTableSettings, client: Any, clock: Clock | None = None) -> None:
        self.name = settings.table_name
        self.client = client
        self._clock = clock or utc_now
        self._ttl = timedelta(days=settings.session_ttl_days)

    def now(self) -> datetime:
        return self._clock().astimezone(UTC)

    def seconds(self) -> float:
        """Now, in epoch seconds (lease expiries)."""
        return self._clock().timestamp()

    def epoch(self) -> int:
        return int(self._clock().timestamp())

    def expires_at(self, now: datetime) -> int:
        return int((now + self._ttl).timestamp())

    def get_live(self, pk: str, sk: str) -> Item | None:
        response = self.client.get_item(
            TableName=self.name, Key={"PK": {"S": pk}, "SK": {"S": sk}}, ConsistentRead=True
        )
        item = response.get("Item")
        if item is None or expired(item, self.epoch()):
            return None
        return cast(Item, item)

    def query(self, query: dict[str, Any]) -> Iterator[Item]:
        request = dict(query)
        while True:
            response = self.client.query(**request)
            yield from response.get("Items", [])
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                return
            request["ExclusiveStartKey"] = last_key

    def payload(self, pk: str, item: Item, name: str) -> Any:
        """The payload `name` of `item`, read from its BLOB parts when it has them ({} when absent)."""
        whole, value = inline_payload(item, name)
        if whole:
            return value
        keys = blob_keys(pk, item, name)
        if not keys:
            return {}
        prefix = keys[0]["SK"]["S"].rsplit("#", 1)[0] + "#"
        parts = [
            part["part"]["B"]
            for part in self.query(
                {
                    "TableName": self.name,
                    "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
                    "ExpressionAttributeValues": {":pk": {"S": pk}, ":prefix": {"S": prefix}},
                    "ConsistentRead": True,
                }
            )
        ]
        if len(parts) != len(keys):
            raise RuntimeError(f"payload {prefix} of {pk} is incomplete ({len(parts)}/{len(keys)} parts)")
        return joined_payload(parts)

    def partition_keys(self, pk: str) -> list[Item]:
        return list(
            self.query(
                {
                    "TableName": self.name,
                    "KeyConditionExpression": "PK = :pk",
                    "ExpressionAttributeValues": {":pk": {"S": pk}},
                    "ProjectionExpression": "PK, SK",
                    "ConsistentRead": True,
                }
            )
        )

    def delete_all_but(self, pk: str, slot: int) -> int:
        """Deletes every item of the partition but the record at `slot`: the number deleted."""
        keep = event_sk(slot)
        doomed = [key for key in self.partition_keys(pk) if key["SK"]["S"] != keep]
        self.delete_keys(doomed)
        return len(doomed)

    def delete_keys(self, keys: Iterable[Item]) -> None:
        self.batch_write([{"DeleteRequest": {"Key": {"PK": k["PK"], "SK": k["SK"]}}} for k in keys])

    def batch_write(self, requests: list[Item]) -> None:
        for start in range(0, len(requests), 25):
            pending: dict[str, Any] = {self.name: requests[start : start + 25]}
            for attempt in range(BATCH_ATTEMPTS):
                response = self.client.batch_write_item(RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(min(1.0, 0.02 * 2**attempt) * random.uniform(0.5, 1.0))
            else:
                raise RuntimeError(f"batch write to {self.name} left unprocessed items")
