"""Daily usage metrics per user, in the sessions table.

Item `PK=USER#<uid>, SK=DAY#<yyyy-mm-dd>`; counters are incremented atomically with `ADD`. The cost job
adds with `add_unless_deleted`: one transaction conditional on the account's tombstone being absent
(trainer.store.account_records), so a late event for a deleted account recreates nothing.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from trainer.settings import SessionTableSettings
from trainer.store.account_keys import tombstone_key
from trainer.store.dynamo_tables import aws_client

_COUNTER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_RESERVED = frozenset({"user_id", "day", "updated_at", "expires_at"})


def _key(user_id: str, day: date) -> dict[str, Any]:
    return {"PK": {"S": f"USER#{user_id}"}, "SK": {"S": f"DAY#{day.isoformat()}"}}


def _counter_value(value: float) -> dict[str, str]:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"counter increments must be numbers, got {type(value).__name__}")
    if isinstance(value, float) and (value != value or abs(value) == float("inf")):
        raise ValueError("counter increments must be finite")
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def _plain(attribute: dict[str, str]) -> int | float:
    text = attribute["N"]
    return int(text) if text.lstrip("-").isdigit() else float(text)


class DailyMetricsStore:
    def __init__(self, settings: SessionTableSettings, client: Any = None) -> None:
        self._table = settings.table_name
        self._client = client if client is not None else aws_client("dynamodb", settings)

    def add(self, user_id: str, day: date, **increments: float) -> dict[str, int | float]:
        """Adds each increment to its counter (created at zero) and returns the day's counters."""
        if not increments:
            self._check(user_id, increments)
            return self.get(user_id, day)
        response = self._client.update_item(**self._update(user_id, day, increments), ReturnValues="ALL_NEW")
        return self._counters(response.get("Attributes") or {})

    def add_unless_deleted(self, user_id: str, day: date, **increments: float) -> bool:
        """Adds each increment to its counter, in one transaction with a check that the account has no
        tombstone: False (nothing written) for a deleted account."""
        if not increments:
            self._check(user_id, increments)
            return True
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self._table,
                            "Key": tombstone_key(user_id),
                            "ConditionExpression": "attribute_not_exists(PK)",
                        }
                    },
                    {"Update": self._update(user_id, day, increments)},
                ]
            )
        except Exception as exc:
            response = getattr(exc, "response", None) or {}
            reasons = response.get("CancellationReasons") or []
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                return False
            raise
        return True

    def _check(self, user_id: str, increments: dict[str, float]) -> None:
        if not user_id:
            raise ValueError("user_id is required")
        bad = [name for name in increments if not _COUNTER_NAME.match(name) or name in _RESERVED]
        if bad:
            raise ValueError(f"invalid counter name(s): {', '.join(sorted(bad))}")

    def _update(self, user_id: str, day: date, increments: dict[str, float]) -> dict[str, Any]:
        """The UpdateItem arguments that add the increments to the day's counters."""
        self._check(user_id, increments)
        names = {f"#c{i}": name for i, name in enumerate(sorted(increments))}
        values: dict[str, Any] = {
            f":c{i}": _counter_value(increments[n]) for i, n in enumerate(sorted(increments))
        }
        values[":uid"] = {"S": user_id}
        values[":day"] = {"S": day.isoformat()}
        return {
            "TableName": self._table,
            "Key": _key(user_id, day),
            "UpdateExpression": "SET user_id = :uid, #day = :day ADD "
            + ", ".join(f"{placeholder} :{placeholder[1:]}" for placeholder in names),
            "ExpressionAttributeNames": {**names, "#day": "day"},
            "ExpressionAttributeValues": values,
        }

    def get(self, user_id: str, day: date) -> dict[str, int | float]:
        response = self._client.get_item(TableName=self._table, Key=_key(user_id, day), ConsistentRead=True)
        return self._counters(response.get("Item") or {})

    @staticmethod
    def _counters(item: dict[str, Any]) -> dict[str, int | float]:
        return {
            name: _plain(value)
            for name, value in item.items()
            if "N" in value and name not in _RESERVED and name not in {"PK", "SK"}
        }
