"""moto's DynamoDB TransactWriteItems, rolled back from copies of the items it touches.

moto 5 backs a transaction up by deep-copying every table it writes to, once per item of the
transaction, so a ten-item commit on a table of ten thousand items copies a hundred thousand: the
local stack, which keeps its data between runs, would slow down a little more with every turn, and
`make load` would measure moto. This keeps moto's checks, per-item cancellation reasons and outcome,
and backs up only the items the transaction touches (restored in reverse on cancellation). The moto
server runs one request at a time (trainer_dev.local.moto_server), so nothing interleaves with it.
"""

from __future__ import annotations

import copy
from typing import Any

_installed = False


def install() -> None:
    """Replaces `DynamoDBBackend.transact_write_items` for this process (idempotent)."""
    global _installed
    if _installed:
        return
    from moto.dynamodb.models import DynamoDBBackend

    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    _installed = True


def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
    from moto.dynamodb.comparisons import get_filter_expression
    from moto.dynamodb.exceptions import (
        ConditionalCheckFailed,
        MockValidationException,
        MultipleTransactionsException,
        TooManyTransactionsException,
        TransactionCanceledException,
        TransactWriteSingleOpException,
    )

    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    targets: set[tuple[str, str]] = set()
    backups: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
    errors: list[tuple[str, str, dict[str, Any]] | tuple[None, None, None]] = []

    def roll_back() -> None:
        for table_name, key, attributes in reversed(backups):
            if attributes is None:
                self.delete_item(table_name, key)
            else:
                self.put_item(table_name, attributes)

    for entry in transact_items:
        original: dict[str, Any] | None = None
        if len(entry) > 1:
            roll_back()
            raise TransactWriteSingleOpException
        try:
            op_type, op = next(iter(entry.items()))
            if op_type not in {"ConditionCheck", "Put", "Delete", "Update"}:
                raise ValueError("Unsupported transaction operation")
            table_name = op["TableName"]
            condition = op.get("ConditionExpression")
            names = op.get("ExpressionAttributeNames")
            values = op.get("ExpressionAttributeValues")
            if op_type == "Put":
                table = self.get_table(table_name)
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            target = (str(table_name), str(dict(sorted(key.items()))))
            if target in targets:
                raise MultipleTransactionsException()
            targets.add(target)

            current = self.get_item(table_name, key)
            if condition is not None and not get_filter_expression(condition, names, values).expr(current):
                if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                    original = current.to_json()["Attributes"]
                raise ConditionalCheckFailed(item=original)
            if op_type != "ConditionCheck":
                attributes = copy.deepcopy(current.to_json()["Attributes"]) if current else None
                backups.append((table_name, key, attributes))
            write = {"condition_expression": condition, "expression_attribute_names": names}
            write["expression_attribute_values"] = values
            if op_type == "Put":
                self.put_item(table_name, op["Item"], **write)
            elif op_type == "Delete":
                self.delete_item(table_name, key, **write)
            elif op_type == "Update":
                self.update_item(table_name, key, update_expression=op["UpdateExpression"], **write)
            errors.append((None, None, None))
        except (MultipleTransactionsException, MockValidationException):
            roll_back()
            raise
        except ConditionalCheckFailed as exc:
            errors.append(("ConditionalCheckFailed", str(exc.message), original))  # type: ignore[arg-type]
        except Exception as exc:
            errors.append((type(exc).__name__, str(exc), original))  # type: ignore[arg-type]

    if any(code is not None for code, _, _ in errors):
        roll_back()
        raise TransactionCanceledException(errors)
