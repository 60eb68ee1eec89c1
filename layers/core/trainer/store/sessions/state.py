"""A session's state values read back: the value the head points to, inside the record of the commit
that set it or in a state item of its own; sessions written before the log layout keep theirs in
`STATE#<key>`."""

from __future__ import annotations

from typing import Any, cast

from trainer.store.sessions.head import KIND_EVENTS, NO_STATE, Heads
from trainer.store.sessions.items import TableItems
from trainer.store.sessions.keys import session_pk, state_sk, valid_id


def state_value(items: TableItems, heads: Heads, session_id: str, key: str) -> dict[str, Any] | None:
    """The live value of `key` (None when unset or deleted)."""
    if not valid_id(session_id) or not valid_id(key):
        return None
    pk = session_pk(session_id)
    pointer = heads.read(session_id).states.get(key)
    if pointer == NO_STATE:
        return None
    item = items.get_live(pk, pointer or state_sk(key))
    if item is None:
        return None
    if item.get("kind", {}).get("S") == KIND_EVENTS:
        value = items.payload(pk, item, "body").get("states", {}).get(key)
        return cast(dict[str, Any] | None, value)
    return cast(dict[str, Any], items.payload(pk, item, "value"))


def state_values(items: TableItems, heads: Heads, session_id: str) -> dict[str, Any]:
    """Every live state value of a session, by key: the keys the head points to and those of state
    items (sessions written before the log layout, values kept in items of their own), each read
    as `state_value` reads it."""
    if not valid_id(session_id):
        return {}
    query = {
        "TableName": items.name,
        "KeyConditionExpression": "PK = :pk AND begins_with(SK, :state)",
        "ExpressionAttributeValues": {":pk": {"S": session_pk(session_id)}, ":state": {"S": "STATE#"}},
        "ProjectionExpression": "SK",
        "ConsistentRead": True,
    }
    keys = {item["SK"]["S"].removeprefix("STATE#").split("#")[0] for item in items.query(query)}
    keys |= set(heads.read(session_id).states)
    values = {key: state_value(items, heads, session_id, key) for key in sorted(keys)}
    return {key: value for key, value in values.items() if value is not None}
