"""What makes a turn retryable (docs/api.md#retries-idempotency-and-catch-up): the frames a stream sent, and
idempotency keys.

Both live in the sessions table, in items of their own (nothing here rewrites the session items of
trainer.store.sessions), so the API and stream functions need no other table or permission:

- `SESSION#<id>` / `FRAME#<frame id, 16 digits>`: one frame as the stream sent it (its wire JSON), written
  by the turn whether or not a client listens. A retried stream and the catch-up route read them back.
  They share the session's partition, so deleting the session deletes them; `expires_at` is the
  session TTL. They are written in a transaction that checks the account's tombstone
  (trainer.store.account_records): a turn still streaming when its account is deleted records nothing
  more.
- `IDEMPOTENCY#<user id>` / `<scope>#<key>`: an `Idempotency-Key` claimed by one request (a conditional
  put: the first request wins, atomically), with the hash of its body, the turn it started (session id
  and the id of its first frame) and, once it ended, its response. It expires after
  `IDEMPOTENCY_TTL_SECONDS` (24 h); an expired record is claimed again. A claim checks the account's
  tombstone in the same transaction, and the later notes only update a record that is still there, so a
  deleted account's request leaves no record behind.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from trainer.settings import Settings
from trainer.store.account_keys import tombstone_key
from trainer.store.dynamo_tables import aws_client, in_thread
from trainer.store.ports import AccountDeleted

FRAME_ID_WIDTH = 16
FRAMES_PER_WRITE = 99
"""Frames per transaction (DynamoDB's limit of 100 entries, one of them the tombstone check)."""
TRANSACTION_ATTEMPTS = 4
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
IdempotencyScope = Literal["stream", "chat", "plans", "import", "workouts", "workout_change"]
"""The route a key belongs to (a key is per user and route): `workouts` adds a calendar session
(`POST /workouts`), `workout_change` moves, skips or swaps one (`PATCH /workouts/{id}`)."""


@dataclass(frozen=True)
class StoredFrame:
    frame_id: int
    frame: dict[str, Any]
    """The frame's wire JSON (trainer.frames.frame_json)."""


@dataclass(frozen=True)
class IdempotencyRecord:
    body_hash: str
    state: Literal["running", "done"]
    session_id: str | None = None
    first_frame_id: int | None = None
    """The stream's first frame (the turn's frames follow it)."""
    status_code: int | None = None
    response: Any = None
    """The JSON response the first request answered with (chat, plans, import), once it ended."""


class FrameLog(Protocol):
    """The frames streams sent, per session, in frame id order."""

    async def record(self, user_id: str, session_id: str, frames: list[StoredFrame]) -> None:
        """Writes the frames of a session of `user_id`; AccountDeleted (nothing written) once the
        account is deleted."""
        ...

    async def read(
        self, session_id: str, after: int, before: int | None = None, limit: int | None = None
    ) -> list[StoredFrame]:
        """The frames with `after < id < before`, in order (the first `limit` of them)."""
        ...


class IdempotencyKeys(Protocol):
    """`Idempotency-Key`s per user and scope, claimed atomically."""

    async def claim(
        self, user_id: str, scope: IdempotencyScope, key: str, body_hash: str
    ) -> IdempotencyRecord | None:
        """Claims the key for this request: None when it is now this request's, else the record of the
        request that claimed it first (within 24 h)."""
        ...

    async def started(
        self, user_id: str, scope: IdempotencyScope, key: str, session_id: str, first_frame_id: int
    ) -> None:
        """Notes the turn the request started (a retry attaches to it)."""
        ...

    async def finished(
        self, user_id: str, scope: IdempotencyScope, key: str, status_code: int, response: Any
    ) -> None:
        """Stores the response a retry gets."""
        ...

    async def release(self, user_id: str, scope: IdempotencyScope, key: str) -> None:
        """Gives the key up (the request failed before it did anything a retry must not repeat)."""
        ...

    async def get(self, user_id: str, scope: IdempotencyScope, key: str) -> IdempotencyRecord | None: ...


def _frame_sk(frame_id: int) -> str:
    return f"FRAME#{frame_id:0{FRAME_ID_WIDTH}d}"


def _idempotency_key(user_id: str, scope: str, key: str) -> dict[str, dict[str, str]]:
    return {"PK": {"S": f"IDEMPOTENCY#{user_id}"}, "SK": {"S": f"{scope}#{key}"}}


def _cancellation_codes(error: Exception) -> list[str] | None:
    """Per-entry codes of a cancelled transaction ("None" for entries that were fine); None for any
    other error."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return None
    if response.get("Error", {}).get("Code") != "TransactionCanceledException":
        return None
    return [str(reason.get("Code") or "None") for reason in response.get("CancellationReasons") or []]


def _is_condition_failure(error: Exception) -> bool:
    response = getattr(error, "response", None)
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    return code == "ConditionalCheckFailedException"


class DynamoStreamRecords:
    """The DynamoDB adapter of `FrameLog` and `IdempotencyKeys` (the sessions table)."""

    def __init__(
        self, settings: Settings, client: Any = None, clock: Callable[[], float] = time.time
    ) -> None:
        self._client = client if client is not None else aws_client("dynamodb", settings)
        self._table = settings.table_name
        self._session_ttl = settings.session_ttl_days * 86400
        self._clock = clock

    # -- frames

    async def record(self, user_id: str, session_id: str, frames: list[StoredFrame]) -> None:
        if frames:
            await in_thread(self._record, user_id, session_id, frames)

    def _record(self, user_id: str, session_id: str, frames: list[StoredFrame]) -> None:
        expires_at = str(int(self._clock()) + self._session_ttl)
        puts = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {
                        "PK": {"S": f"SESSION#{session_id}"},
                        "SK": {"S": _frame_sk(stored.frame_id)},
                        "frame": {"S": json.dumps(stored.frame, ensure_ascii=False, separators=(",", ":"))},
                        "expires_at": {"N": expires_at},
                    },
                }
            }
            for stored in frames
        ]
        for start in range(0, len(puts), FRAMES_PER_WRITE):
            self._unless_deleted(user_id, puts[start : start + FRAMES_PER_WRITE])

    def _unless_deleted(self, user_id: str, entries: list[dict[str, Any]]) -> None:
        """`entries` in one transaction with a check that the account has no tombstone: AccountDeleted
        (nothing written) for a deleted account. When an entry's own condition fails, the
        transaction's error is raised with the entries' codes on `.codes`."""
        check = {
            "ConditionCheck": {
                "TableName": self._table,
                "Key": tombstone_key(user_id),
                "ConditionExpression": "attribute_not_exists(PK)",
            }
        }
        for attempt in range(TRANSACTION_ATTEMPTS):
            try:
                self._client.transact_write_items(TransactItems=[check, *entries])
                return
            except Exception as exc:
                codes = _cancellation_codes(exc)
                if codes is None:
                    raise
                if codes and codes[0] == "ConditionalCheckFailed":
                    raise AccountDeleted("the account was deleted") from exc
                if "TransactionConflict" in codes and attempt + 1 < TRANSACTION_ATTEMPTS:
                    time.sleep(min(0.05 * 2**attempt, 0.5))
                    continue
                exc.codes = codes[1:]  # type: ignore[attr-defined]
                raise

    async def read(
        self, session_id: str, after: int, before: int | None = None, limit: int | None = None
    ) -> list[StoredFrame]:
        return await in_thread(self._read, session_id, after, before, limit)

    def _read(self, session_id: str, after: int, before: int | None, limit: int | None) -> list[StoredFrame]:
        upper = before - 1 if before is not None else 10**FRAME_ID_WIDTH - 1
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": {
                ":pk": {"S": f"SESSION#{session_id}"},
                ":lo": {"S": _frame_sk(max(after, -1) + 1)},
                ":hi": {"S": _frame_sk(upper)},
            },
            "ConsistentRead": True,
        }
        now = int(self._clock())
        frames: list[StoredFrame] = []
        while True:
            response = self._client.query(**request)
            for item in response.get("Items", []):
                if int(item["expires_at"]["N"]) < now:
                    continue
                frame_id = int(item["SK"]["S"].removeprefix("FRAME#"))
                frames.append(StoredFrame(frame_id, json.loads(item["frame"]["S"])))
                if limit is not None and len(frames) >= limit:
                    return frames
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                return frames
            request["ExclusiveStartKey"] = last_key

    # -- idempotency keys

    async def claim(
        self, user_id: str, scope: IdempotencyScope, key: str, body_hash: str
    ) -> IdempotencyRecord | None:
        return await in_thread(self._claim, user_id, scope, key, body_hash)

    def _claim(self, user_id: str, scope: str, key: str, body_hash: str) -> IdempotencyRecord | None:
        now = int(self._clock())
        put = {
            "TableName": self._table,
            "Item": {
                **_idempotency_key(user_id, scope, key),
                "body_hash": {"S": body_hash},
                "state": {"S": "running"},
                "expires_at": {"N": str(now + IDEMPOTENCY_TTL_SECONDS)},
            },
            "ConditionExpression": "attribute_not_exists(PK) OR expires_at < :now",
            "ExpressionAttributeValues": {":now": {"N": str(now)}},
        }
        try:
            self._unless_deleted(user_id, [{"Put": put}])
        except Exception as exc:
            if getattr(exc, "codes", None) != ["ConditionalCheckFailed"]:
                raise
            record = self._get(user_id, scope, key)
            if record is None:  # released or expired between the put and the read: try once more
                return self._claim(user_id, scope, key, body_hash)
            return record
        return None

    async def started(
        self, user_id: str, scope: IdempotencyScope, key: str, session_id: str, first_frame_id: int
    ) -> None:
        await in_thread(
            self._update,
            user_id,
            scope,
            key,
            "SET session_id = :s, first_frame_id = :f",
            {":s": {"S": session_id}, ":f": {"N": str(first_frame_id)}},
        )

    async def finished(
        self, user_id: str, scope: IdempotencyScope, key: str, status_code: int, response: Any
    ) -> None:
        await in_thread(
            self._update,
            user_id,
            scope,
            key,
            "SET #state = :done, status_code = :c, #response = :r",
            {
                ":done": {"S": "done"},
                ":c": {"N": str(status_code)},
                ":r": {"S": json.dumps(response, ensure_ascii=False, separators=(",", ":"))},
            },
        )

    def _update(self, user_id: str, scope: str, key: str, expression: str, values: dict[str, Any]) -> None:
        """Updates the record if it is still there (a record its account's deletion erased, or one
        released, is not made again)."""
        names = {name: name[1:] for name in ("#state", "#response") if name in expression}
        try:
            self._client.update_item(
                TableName=self._table,
                Key=_idempotency_key(user_id, scope, key),
                UpdateExpression=expression,
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeValues=values,
                **({"ExpressionAttributeNames": names} if names else {}),
            )
        except Exception as exc:
            if not _is_condition_failure(exc):
                raise

    async def release(self, user_id: str, scope: IdempotencyScope, key: str) -> None:
        await in_thread(
            lambda: self._client.delete_item(TableName=self._table, Key=_idempotency_key(user_id, scope, key))
        )

    async def get(self, user_id: str, scope: IdempotencyScope, key: str) -> IdempotencyRecord | None:
        return await in_thread(self._get, user_id, scope, key)

    def _get(self, user_id: str, scope: str, key: str) -> IdempotencyRecord | None:
        item = self._client.get_item(
            TableName=self._table, Key=_idempotency_key(user_id, scope, key), ConsistentRead=True
        ).get("Item")
        if item is None or int(item["expires_at"]["N"]) < int(self._clock()):
            return None
        return IdempotencyRecord(
            body_hash=item["body_hash"]["S"],
            state="done" if item["state"]["S"] == "done" else "running",
            session_id=item["session_id"]["S"] if "session_id" in item else None,
            first_frame_id=int(item["first_frame_id"]["N"]) if "first_frame_id" in item else None,
            status_code=int(item["status_code"]["N"]) if "status_code" in item else None,
            response=json.loads(item["response"]["S"]) if "response" in item else None,
        )


class StreamRecords(FrameLog, IdempotencyKeys, Protocol):
    """Both ports, as one adapter serves them."""
