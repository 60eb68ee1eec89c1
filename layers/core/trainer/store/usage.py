"""Per-user usage limits kept in the sessions table: daily reservations and request rates.

Both are single conditional writes, so they hold under any concurrency (twelve requests at once at a
limit of three: exactly three pass), across every Lambda instance; each runs in a transaction with a
check that the account has no tombstone (trainer.store.account_records), so a request that passed the
deleted-account check just before its account was deleted creates nothing for it (AccountDeleted).

- Daily reservations: the user's day item (`PK=USER#<uid>, SK=DAY#<yyyy-mm-dd>`, the cost job's daily
  metrics item) gets `ADD <counter> 1` only while the counter is under its limit and the day's
  `cost_cents` (kept by the cost job) under the cost limit.
- Request rates: one item per user and bucket (`SK=RATE#<bucket>`) holding the GCRA's theoretical
  arrival time (`tat`), the token bucket written as one number: a request passes when `tat` is at most
  `burst - 1` intervals ahead of now, and moves it one interval on.
"""

from __future__ import annotations

import random
import threading
import time
from collections import OrderedDict
from datetime import date
from typing import Any, Literal

from trainer.settings import Settings
from trainer.store.account_keys import tombstone_key
from trainer.store.dynamo_tables import aws_client, in_thread
from trainer.store.ports import AccountDeleted

Refusal = Literal["count", "cost"]
RATE_ITEM_SLACK_S = 60
"""A rate item outlives its last use by the burst window and this (DynamoDB TTL removes it)."""
TRANSACTION_ATTEMPTS = 4
"""Tries of a transaction that conflicted with another on the same item."""
RATE_HINTS = 4096
"""How many (user, bucket) passes a process remembers to order its rate writes."""


def _day_key(user_id: str, day: date) -> dict[str, Any]:
    return {"PK": {"S": f"USER#{user_id}"}, "SK": {"S": f"DAY#{day.isoformat()}"}}


def _rate_key(user_id: str, bucket: str) -> dict[str, Any]:
    return {"PK": {"S": f"USER#{user_id}"}, "SK": {"S": f"RATE#{bucket}"}}


def _n(value: float) -> dict[str, str]:
    return {"N": repr(float(value)) if isinstance(value, float) else str(value)}


def _number(item: dict[str, Any], name: str) -> float:
    value = item.get(name)
    return float(value["N"]) if isinstance(value, dict) and "N" in value else 0.0


def _cancellation_reasons(error: Exception) -> list[dict[str, Any]] | None:
    """The per-entry reasons of a cancelled transaction; None for any other error."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return None
    if response.get("Error", {}).get("Code") != "TransactionCanceledException":
        return None
    return [reason for reason in response.get("CancellationReasons") or [] if isinstance(reason, dict)]


def _condition_failed(error: Exception) -> dict[str, Any] | None:
    """The old item of a failed condition (ReturnValuesOnConditionCheckFailure), {} when none came back;
    None when the error is not a condition failure."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return None
    if response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
        return None
    item = response.get("Item")
    return item if isinstance(item, dict) else {}


class DynamoUsageLedger:
    """`trainer.services.usage_limits.UsageLedger` on DynamoDB (calls run in worker threads)."""

    def __init__(self, settings: Settings, client: Any = None) -> None:
        self._table = settings.table_name
        self._client = client if client is not None else aws_client("dynamodb", settings)
        self._passes: OrderedDict[tuple[str, str], float] = OrderedDict()
        """When this process last let a request of (user, bucket) through: which write to try first."""
        self._passes_lock = threading.Lock()

    async def reserve(
        self, user_id: str, day: date, counter: str, limit: int, cost_limit_cents: float
    ) -> Refusal | None:
        return await in_thread(self._reserve, user_id, day, counter, limit, cost_limit_cents)

    async def release(self, user_id: str, day: date, counter: str) -> None:
        await in_thread(self._release, user_id, day, counter)

    async def take(self, user_id: str, bucket: str, now: float, interval: float, burst: int) -> float:
        return await in_thread(self._take, user_id, bucket, now, interval, burst)

    def _reserve(
        self, user_id: str, day: date, counter: str, limit: int, cost_limit_cents: float
    ) -> Refusal | None:
        passed, old = self._update_unless_deleted(
            user_id,
            {
                "Key": _day_key(user_id, day),
                "UpdateExpression": "SET user_id = :uid, #day = :day ADD #counter :one",
                "ConditionExpression": "(attribute_not_exists(#counter) OR #counter < :limit)"
                " AND (attribute_not_exists(cost_cents) OR cost_cents < :cost)",
                "ExpressionAttributeNames": {"#counter": counter, "#day": "day"},
                "ExpressionAttributeValues": {
                    ":uid": {"S": user_id},
                    ":day": {"S": day.isoformat()},
                    ":one": {"N": "1"},
                    ":limit": _n(limit),
                    ":cost": _n(float(cost_limit_cents)),
                },
            },
        )
        if passed:
            return None
        return "count" if _number(old or {}, counter) >= limit else "cost"

    def _update_unless_deleted(self, user_id: str, update: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """One conditional update in a transaction with a check that the account has no tombstone:
        (True, {}) when it passed, (False, the item as it was) when its own condition failed;
        AccountDeleted (nothing written) for a deleted account."""
        entries = [
            {
                "ConditionCheck": {
                    "TableName": self._table,
                    "Key": tombstone_key(user_id),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            {
                "Update": {
                    "TableName": self._table,
                    **update,
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            },
        ]
        for attempt in range(TRANSACTION_ATTEMPTS):
            try:
                self._client.transact_write_items(TransactItems=entries)
                return True, {}
            except Exception as exc:
                reasons = _cancellation_reasons(exc)
                if reasons is None:
                    raise
                codes = [str(reason.get("Code") or "None") for reason in reasons]
                if codes[0] == "ConditionalCheckFailed":
                    raise AccountDeleted("the account was deleted") from exc
                if len(codes) > 1 and codes[1] == "ConditionalCheckFailed":
                    old = reasons[1].get("Item")
                    return False, old if isinstance(old, dict) else {}
                if "TransactionConflict" not in codes or attempt + 1 == TRANSACTION_ATTEMPTS:
                    raise
                time.sleep(random.uniform(0, min(0.2, 0.02 * 2**attempt)))
        raise AssertionError("unreachable")

    def _release(self, user_id: str, day: date, counter: str) -> None:
        """Gives a reservation back (the work it was for never started)."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=_day_key(user_id, day),
                UpdateExpression="ADD #counter :minus",
                ConditionExpression="#counter > :zero",
                ExpressionAttributeNames={"#counter": counter},
                ExpressionAttributeValues={":minus": {"N": "-1"}, ":zero": {"N": "0"}},
            )
        except Exception as exc:
            if _condition_failed(exc) is None:
                raise

    def _take(self, user_id: str, bucket: str, now: float, interval: float, burst: int) -> float:
        """0 when the request passes, else the seconds until one would. Two conditional writes can
        pass it: one for an idle bucket (`tat` behind now), one for a busy one (`tat` ahead, within the
        burst). It tries first the one this process last saw pass for the bucket, so a user's requests
        in quick succession cost one write each, not two."""
        window = interval * max(1, burst)
        key = _rate_key(user_id, bucket)
        latest = now + window - interval
        with self._passes_lock:
            last_pass = self._passes.get((user_id, bucket))
        busy_first = last_pass is not None and now < last_pass + interval
        order = (self._take_busy, self._take_idle) if busy_first else (self._take_idle, self._take_busy)
        old: dict[str, Any] | None = None
        for write in order:
            passed, refused_item = write(user_id, key, now, interval, window, latest)
            if passed:
                self._remember_pass(user_id, bucket, now)
                return 0.0
            old = refused_item if refused_item is not None else old
        tat = _number(old, "tat") if old else latest + interval
        return max(interval, tat - latest)

    def _remember_pass(self, user_id: str, bucket: str, now: float) -> None:
        with self._passes_lock:
            self._passes[(user_id, bucket)] = now
            self._passes.move_to_end((user_id, bucket))
            while len(self._passes) > RATE_HINTS:
                self._passes.popitem(last=False)

    def _take_idle(
        self, user_id: str, key: dict[str, Any], now: float, interval: float, window: float, latest: float
    ) -> tuple[bool, dict[str, Any] | None]:
        passed, _ = self._update_unless_deleted(
            user_id,
            {
                "Key": key,
                "UpdateExpression": "SET tat = :next, expires_at = :expires",
                "ConditionExpression": "attribute_not_exists(tat) OR tat < :now",
                "ExpressionAttributeValues": {
                    ":next": _n(now + interval),
                    ":now": _n(now),
                    ":expires": _n(int(now + window + RATE_ITEM_SLACK_S)),
                },
            },
        )
        return passed, None

    def _take_busy(
        self, user_id: str, key: dict[str, Any], now: float, interval: float, window: float, latest: float
    ) -> tuple[bool, dict[str, Any] | None]:
        passed, old = self._update_unless_deleted(
            user_id,
            {
                "Key": key,
                "UpdateExpression": "SET tat = tat + :interval, expires_at = :expires",
                "ConditionExpression": "tat <= :latest AND tat >= :now",
                "ExpressionAttributeValues": {
                    ":interval": _n(interval),
                    ":latest": _n(latest),
                    ":now": _n(now),
                    ":expires": _n(int(now + 2 * window + RATE_ITEM_SLACK_S)),
                },
            },
        )
        return passed, None if passed else old
