"""A whole account in the DynamoDB sessions table: its tombstone, erasing every item of the user, and
reading them a page at a time for an export. `DynamoAccountTable` does the blocking boto3 work;
`DynamoAccountRecords`, the async port the account service uses, runs it in worker threads.

The user's items: the `USER#<uid>` partition (daily metrics and reservations `DAY#`, request rates `RATE#`,
the sessions' index entries `SESSION#<id>`, anything added there later), the request idempotency records,
and each session — found by its index entry, through GSI1 (`GSI1PK=USER#<uid>`), or by its tombstone under
the account's digest (`GSI1PK=ERASED#<digest hex>`) — with its whole partition (`META`, `EVENT#`, `STATE#`,
`BLOB#`, `FRAME#`). A session's lease is taken first by a tombstone, then everything else goes: a turn
still running in it fails its next commit or renewal as taken over and writes nothing more; the tombstone
goes too once the lease it took over has run out (trainer.store.sessions.keys).

The tombstone item `PK=DELETED#<digest hex>, SK=ACCOUNT` (trainer.store.account_keys) carries no user id and
no TTL. Every write that can create an item of the user checks it in the same transaction: a session's
META and index entry, a frame a stream sent, an idempotency key's claim, a request rate, a daily
reservation, the cost job's daily metrics; the checkpoint job reads it. So once it is written, nothing of
the user can be created again, and one erase after it finds everything there is.
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
from trainer.store.sessions.keys import erased_index, session_index_sk
from trainer.store.sessions.table import ErasedSession

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
    """What one erase removed; `complete` is False when it stopped at its deadline, or when a session's
    tombstone must stay until `fenced_until` (epoch seconds: a turn may still hold the lease it took
    over, and writes nothing after that)."""

    items: int = 0
    sessions: int = 0
    complete: bool = True
    fenced_until: float = 0.0


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
        """Deletes every item of the user (expired ones too): each session found (by its index entry,
        through GSI1, or by its tombstone under the account's digest), DELETE_WORKERS at a time, then
        the `USER#` partition (but the index entries of the sessions not finished) and the request
        idempotency records (`IDEMPOTENCY#`, trainer.store.stream_records). A session not started once
        `time.monotonic()` passes `deadline`, or whose tombstone must stay, is left for the next erase
        (complete=False)."""
        erased = ErasedItems()
        unfinished: set[str] = set()

        def erase_session(session_id: str) -> ErasedSession | None:
            if deadline is not None and time.monotonic() > deadline:
                return None
            return self.sessions.erase(session_id, user_id, ERASE_HOLDER, ERASE_LEASE_SECONDS)

        session_ids = self.session_ids(user_id)
        with ThreadPoolExecutor(max_workers=DELETE_WORKERS) as pool:
            for session_id, done in zip(session_ids, pool.map(erase_session, session_ids), strict=True):
                if done is None:
                    erased.complete = False
                    unfinished.add(session_id)
                    continue
                erased.items += done.deleted
                if done.fenced_until:
                    erased.complete = False
                    erased.fenced_until = max(erased.fenced_until, done.fenced_until)
                    unfinished.add(session_id)
                else:
                    erased.sessions += 1
        kept = {session_index_sk(session_id) for session_id in unfinished}
        erased.items += self._delete_partition(user_partition(user_id), keep=kept)
        erased.items += self._delete_partition(idempotency_partition(user_id))
        return erased

    def session_ids(self, user_id: str) -> list[str]:
        """The user's sessions: their index entries in `USER#` (read consistently: a session created a
        moment ago), GSI1 by user (META) and by the account's digest (tombstones of sessions whose META
        is gone). GSI1 is eventually consistent; the index entry covers a new session's first period."""
        found: dict[str, None] = {}
        for item in self._keys(user_partition(user_id)):
            sk = item["SK"]["S"]
            if sk.startswith("SESSION#"):
                found[sk.removeprefix("SESSION#")] = None
        for index_key in (user_partition(user_id), erased_index(user_id)):
            request: dict[str, Any] = {
                "TableName": self._table,
                "IndexName": "GSI1",
                "KeyConditionExpression": "GSI1PK = :u",
                "ExpressionAttributeValues": {":u": {"S": index_key}},
                "ProjectionExpression": "PK, user_id",
            }
            for item in self._query(request):
                owner = item.get("user_id", {}).get("S")
                if item["PK"]["S"].startswith("SESSION#") and owner in (None, user_id):
                    found[item["PK"]["S"].removeprefix("SESSION#")] = None
        return list(found)

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

    def _delete_partition(self, pk: str, *, keep: set[str] | frozenset[str] = frozenset()) -> int:
        """Deletes a partition's items (but those whose sort key is in `keep`) in batches of 25: the
        number."""
        deleted = 0
        batch: list[Item] = []
        for key in self._keys(pk):
            if key["SK"]["S"] in keep:
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
            if not item["SK"]["S"].startswith("SESSION#")
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
