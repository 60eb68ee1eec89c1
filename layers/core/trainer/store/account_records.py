"""A whole account in the DynamoDB sessions table: its tombstone, erasing every item of the user, and
reading them a page at a time for an export. `DynamoAccountTable` does the blocking boto3 work;
`DynamoAccountRecords`, the async port the account service uses, runs it in worker threads.

The user's items: the `USER#<uid>` partition (daily metrics and reservations `DAY#`, request rates `RATE#`,
anything added there later) and each session found through GSI1 (`GSI1PK=USER#<uid>`), with its whole
partition (`META`, `EVENT#`, `STATE#`, `BLOB#`, `LEASE`). A session's lease is taken first, then its META
goes: a turn still running in it fails its next commit or renewal as taken over and writes nothing more.

The tombstone item `PK=DELETED#<digest hex>, SK=ACCOUNT` (trainer.store.account_keys) carries no user id and
no TTL: the cost job's daily-metrics write is a transaction conditional on its absence, and the checkpoint job
reads it, so a late `TurnCompleted` recreates nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from trainer.settings import SessionTableSettings
from trainer.store.account_keys import tombstone_key
from trainer.store.dynamo_tables import aws_client, in_thread
from trainer.store.models import Event, Session
from trainer.store.sessions import DynamoSessionTable

Item = dict[str, Any]

BATCH_SIZE = 25
"""DynamoDB's limit of one BatchWriteItem."""
DELETE_WORKERS = 8
"""Batch deletes in flight at once (the client's pool holds 32 connections)."""
BATCH_ATTEMPTS = 10
EVENTS_PAGE = 200
"""Events one export read brings."""
ERASE_HOLDER = "account-deletion"
ERASE_LEASE_SECONDS = 3600


def user_partition(user_id: str) -> str:
    return f"USER#{user_id}"


def idempotency_partition(user_id: str) -> str:
    """The partition of the user's `Idempotency-Key` records (their stored responses hold user data)."""
    return f"IDEMPOTENCY#{user_id}"


@dataclass
class ErasedItems:
    """What one erase removed; `complete` is False when it stopped at its deadline."""

    items: int = 0
    sessions: int = 0
    complete: bool = True


class DynamoAccountTable:
    """The account's items through boto3. Thread-safe; every method is blocking."""

    def __init__(self, settings: SessionTableSettings, client: Any = None) -> None:
        self._table = settings.table_name
        self._client = client if client is not None else aws_client("dynamodb", settings)
        self.sessions = DynamoSessionTable(settings, client=self._client)

    # -- the tombstone --------------------------------------------------------------------------------

    def put_tombstone(self, user_id: str) -> None:
        self._client.put_item(
            TableName=self._table,
            Item={**tombstone_key(user_id), "deleted_at": {"S": datetime.now(UTC).isoformat()}},
        )

    def has_tombstone(self, user_id: str) -> bool:
        response = self._client.get_item(
            TableName=self._table, Key=tombstone_key(user_id), ConsistentRead=True, ProjectionExpression="PK"
        )
        return "Item" in response

    # -- erasing ----------------------------------------------------------------------------------------

    def erase(self, user_id: str, deadline: float | None = None) -> ErasedItems:
        """Deletes every item of the user (expired ones too): the `USER#` partition and the request
        idempotency records (`IDEMPOTENCY#`, trainer.store.stream_records), then the sessions,
        DELETE_WORKERS at a time, each META first. A session not started once `time.monotonic()` passes
        `deadline` is left for the next erase (complete=False)."""
        erased = ErasedItems(
            items=self._delete_partition(user_partition(user_id))
            + self._delete_partition(idempotency_partition(user_id))
        )

        def erase_session(pk: str) -> int | None:
            if deadline is not None and time.monotonic() > deadline:
                return None
            return self.sessions.erase(pk.removeprefix("SESSION#"), ERASE_HOLDER, ERASE_LEASE_SECONDS)

        with ThreadPoolExecutor(max_workers=DELETE_WORKERS) as pool:
            for deleted in pool.map(erase_session, self._session_partitions(user_id)):
                if deleted is None:
                    erased.complete = False
                else:
                    erased.items += deleted
                    erased.sessions += 1
        return erased

    def _session_partitions(self, user_id: str) -> list[str]:
        """The partitions of the user's sessions (GSI1 is eventually consistent: a session created a
        moment ago may be missing; the account service erases twice)."""
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": "GSI1",
            "KeyConditionExpression": "GSI1PK = :u",
            "ExpressionAttributeValues": {":u": {"S": user_partition(user_id)}},
            "ProjectionExpression": "PK, user_id",
        }
        return [
            item["PK"]["S"]
            for item in self._query(request)
            if item.get("user_id", {}).get("S") == user_id and item["PK"]["S"].startswith("SESSION#")
        ]

    def _keys(self, pk: str) -> Iterator[Item]:
        return self._query(
            {
                "TableName": self._table,
                "KeyConditionExpression": "PK = :pk",
                "ExpressionAttributeValues": {":pk": {"S": pk}},
                "ProjectionExpression": "PK, SK",
                "ConsistentRead": True,
            }
        )

    def _delete_partition(self, pk: str, *, keep_meta: bool = False) -> int:
        """Deletes a partition's items (but its META with `keep_meta`) in batches of 25: the number."""
        deleted = 0
        batch: list[Item] = []
        for key in self._keys(pk):
            if keep_meta and key["SK"]["S"] == "META":
                continue
            batch.append({"DeleteRequest": {"Key": {"PK": key["PK"], "SK": key["SK"]}}})
            if len(batch) == BATCH_SIZE:
                self._write_batch(batch)
                deleted += len(batch)
                batch = []
        if batch:
            self._write_batch(batch)
            deleted += len(batch)
        return deleted

    def _write_batch(self, requests: list[Item]) -> None:
        pending: dict[str, Any] = {self._table: requests}
        for attempt in range(BATCH_ATTEMPTS):
            response = self._client.batch_write_item(RequestItems=pending)
            pending = response.get("UnprocessedItems") or {}
            if not pending:
                return
            time.sleep(min(1.0, 0.02 * 2**attempt))
        raise RuntimeError(f"batch delete on {self._table} left unprocessed items")

    # -- reading (export) -------------------------------------------------------------------------------

    def user_items(self, user_id: str) -> list[Item]:
        """The `USER#` partition's items as plain values ({key, attributes}), a few per day of use."""
        from boto3.dynamodb.types import TypeDeserializer

        deserialize = TypeDeserializer().deserialize
        items = self._query(
            {
                "TableName": self._table,
                "KeyConditionExpression": "PK = :pk",
                "ExpressionAttributeValues": {":pk": {"S": user_partition(user_id)}},
                "ConsistentRead": True,
            }
        )
        return [
            {
                "key": item["SK"]["S"],
                "attributes": {
                    name: _plain(deserialize(value))
                    for name, value in item.items()
                    if name not in ("PK", "SK")
                },
            }
            for item in items
        ]

    def _query(self, request: dict[str, Any]) -> Iterator[Item]:
        request = dict(request)
        while True:
            response = self._client.query(**request)
            yield from response.get("Items", [])
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                return
            request["ExclusiveStartKey"] = last_key


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | set | frozenset):
        return [_plain(v) for v in value]
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    return value


class DynamoAccountRecords:
    """The account service's port on DynamoDB (trainer.services.account.AccountRecords): each call
    runs in a worker thread; an erase runs without the store-call deadline (it has its own)."""

    def __init__(self, settings: SessionTableSettings, client: Any = None) -> None:
        self.table = DynamoAccountTable(settings, client=client)

    async def put_tombstone(self, user_id: str) -> None:
        await in_thread(self.table.put_tombstone, user_id)

    async def has_tombstone(self, user_id: str) -> bool:
        return await in_thread(self.table.has_tombstone, user_id)

    async def erase(self, user_id: str, deadline: float | None = None) -> ErasedItems:
        return await asyncio.to_thread(self.table.erase, user_id, deadline)

    async def sessions(self, user_id: str) -> AsyncIterator[Session]:
        """The user's sessions, newest first, each read when the caller asks for it."""
        found = self.table.sessions.user_sessions(user_id)
        while (session := await in_thread(next, found, None)) is not None:
            yield session

    async def events(self, session_id: str) -> AsyncIterator[list[Event]]:
        """The session's events in pages of EVENTS_PAGE, oldest first."""
        after: int | None = 0
        while after is not None:
            page = await in_thread(self.table.sessions.read_events, session_id, after, EVENTS_PAGE)
            if page.events:
                yield page.events
            after = page.next_after

    async def states(self, session_id: str) -> dict[str, Any]:
        return await in_thread(self.table.sessions.states, session_id)

    async def user_items(self, user_id: str) -> list[Item]:
        return await in_thread(self.table.user_items, user_id)
