"""A session's META item: the session's own fields (user, status, totals, knowledge in context...), how
they are written and read, its direct updates and the update a commit carries, and the GSI1 index
that lists a user's sessions newest first."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from trainer.store.account_keys import tombstone_key
from trainer.store.models import KnowledgeRef, Session
from trainer.store.ports import AccountDeleted, SessionBatch, SessionNotFound
from trainer.store.sessions.codec import dumps, iso, number, plain_number
from trainer.store.sessions.items import (
    CONDITION_FAILED,
    TableItems,
    cancellation_reasons,
    expired,
    is_condition_failure,
)
from trainer.store.sessions.keys import (
    MAX_ID_LENGTH,
    META,
    Item,
    session_index_sk,
    session_pk,
    user_pk,
    valid_id,
)

ADDITIVE_FIELDS = frozenset(
    {
        "total_tokens",
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "cache_write_tokens",
        "total_cost_cents",
    }
)
UPDATABLE_FIELDS = ADDITIVE_FIELDS | {"status", "context_start_sequence", "knowledge_in_context", "metadata"}
APPEND_KNOWLEDGE = "list_append(if_not_exists(knowledge_in_context, :empty), :refs)"
LIVE_META = "attribute_exists(PK) AND (attribute_not_exists(expires_at) OR expires_at >= :t)"
"""The condition of every META update: the session exists and has not expired."""


def encoded_refs(refs: Iterable[KnowledgeRef | dict[str, Any]]) -> list[dict[str, str]]:
    """Knowledge refs as the JSON strings META's knowledge_in_context list holds."""
    return [{"S": dumps(KnowledgeRef.model_validate(ref).model_dump(mode="json"))} for ref in refs]


def validated_field(name: str, value: Any) -> Any:
    annotation = Session.model_fields[name].annotation
    try:
        validated: Any = TypeAdapter(annotation).validate_python(value)
    except ValidationError as exc:
        raise ValueError(f"invalid {name}: {exc.errors()[0]['msg']}") from exc
    if name in ADDITIVE_FIELDS | {"context_start_sequence"} and validated < 0:
        raise ValueError(f"{name} must not be negative")
    return validated


def field_attribute(name: str, value: Any) -> dict[str, Any]:
    if name == "knowledge_in_context":
        return {"L": [{"S": dumps(ref.model_dump(mode="json"))} for ref in value]}
    if name == "metadata":
        return {"S": dumps(value)}
    if name == "status":
        return {"S": value}
    return number(value)


def session_item(session: Session) -> Item:
    """The META item of a new session."""
    item: Item = {
        "PK": {"S": session_pk(session.id)},
        "SK": {"S": META},
        "session_id": {"S": session.id},
        "user_id": {"S": session.user_id},
        "created_at": {"S": iso(session.created_at)},
        "updated_at": {"S": iso(session.updated_at)},
        "last_seq": number(session.last_seq),
        "GSI1PK": {"S": f"USER#{session.user_id}"},
        "GSI1SK": {"S": iso(session.updated_at)},
    }
    for name in sorted(UPDATABLE_FIELDS):
        item[name] = field_attribute(name, getattr(session, name))
    if session.expires_at is not None:
        item["expires_at"] = {"N": str(session.expires_at)}
    return item


def session_from_item(item: Item) -> Session:
    prompt = plain_number(item.get("prompt_tokens", {"N": "0"}))
    cached = plain_number(item.get("cached_tokens", {"N": "0"}))
    return Session(
        id=item["session_id"]["S"],
        user_id=item["user_id"]["S"],
        status=item.get("status", {}).get("S", "active"),
        created_at=datetime.fromisoformat(item["created_at"]["S"]),
        updated_at=datetime.fromisoformat(item["updated_at"]["S"]),
        context_start_sequence=int(plain_number(item.get("context_start_sequence", {"N": "0"}))),
        last_seq=int(plain_number(item.get("last_seq", {"N": "0"}))),
        knowledge_in_context=[
            KnowledgeRef.model_validate_json(entry["S"])
            for entry in item.get("knowledge_in_context", {}).get("L", [])
        ],
        total_tokens=int(plain_number(item.get("total_tokens", {"N": "0"}))),
        prompt_tokens=int(prompt),
        completion_tokens=int(plain_number(item.get("completion_tokens", {"N": "0"}))),
        cached_tokens=int(cached),
        cache_write_tokens=int(plain_number(item.get("cache_write_tokens", {"N": "0"}))),
        total_cost_cents=float(plain_number(item.get("total_cost_cents", {"N": "0"}))),
        cache_hit_rate=(cached / (prompt + cached) * 100) if prompt + cached else 0.0,
        metadata=json.loads(item["metadata"]["S"]) if "metadata" in item else {},
        expires_at=int(plain_number(item["expires_at"])) if "expires_at" in item else None,
    )


class SessionMeta:
    """The META items of one table: read, listed by user, created and updated."""

    def __init__(self, items: TableItems) -> None:
        self._items = items

    def read(self, session_id: str) -> Session | None:
        """The session as its live META item has it (None when there is none)."""
        item = self._items.get_live(session_pk(session_id), META)
        return None if item is None else session_from_item(item)

    def put_new(self, session: Session) -> None:
        """META and the user's index entry of the session, in one transaction conditional on the
        account having no tombstone: AccountDeleted (nothing written) for a deleted account."""
        index: Item = {
            "PK": {"S": user_pk(session.user_id)},
            "SK": {"S": session_index_sk(session.id)},
            "session_id": {"S": session.id},
        }
        if session.expires_at is not None:
            index["expires_at"] = {"N": str(session.expires_at)}
        entries = [
            {
                "ConditionCheck": {
                    "TableName": self._items.name,
                    "Key": tombstone_key(session.user_id),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            {
                "Put": {
                    "TableName": self._items.name,
                    "Item": session_item(session),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            {"Put": {"TableName": self._items.name, "Item": index}},
        ]
        try:
            self._items.client.transact_write_items(TransactItems=entries)
        except Exception as exc:
            codes = cancellation_reasons(exc)
            if codes and codes[0] == CONDITION_FAILED:
                raise AccountDeleted("the account was deleted") from exc
            raise

    def of_user(self, user_id: str, *, active_only: bool) -> Iterator[Session]:
        """The user's live sessions, newest first, read a page at a time."""
        if not valid_id(user_id):
            return
        query: dict[str, Any] = {
            "TableName": self._items.name,
            "IndexName": "GSI1",
            "KeyConditionExpression": "GSI1PK = :u",
            "ExpressionAttributeValues": {":u": {"S": f"USER#{user_id}"}},
            "ScanIndexForward": False,
            "Limit": 25,
        }
        if active_only:
            query["FilterExpression"] = "#status = :active"
            query["ExpressionAttributeNames"] = {"#status": "status"}
            query["ExpressionAttributeValues"][":active"] = {"S": "active"}
        now = self._items.epoch()
        for item in self._items.query(query):
            if not expired(item, now) and item.get("user_id", {}).get("S") == user_id:
                yield session_from_item(item)

    def update(
        self,
        session_id: str,
        assignments: list[str],
        names: dict[str, str],
        values: dict[str, Any],
        *,
        add: str = "",
    ) -> Session:
        """One UpdateItem of a live META (`assignments` and the ADD clause `add`, moving updated_at and
        the expiry forward): the session after. SessionNotFound when it is gone."""
        if not valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        now = self._items.now()
        stamp = {"S": iso(now)}
        expression = "SET " + ", ".join(
            [*assignments, "updated_at = :now", "GSI1SK = :now", "expires_at = :exp"]
        )
        if add:
            expression += f" ADD {add}"
        request: dict[str, Any] = {
            "TableName": self._items.name,
            "Key": {"PK": {"S": session_pk(session_id)}, "SK": {"S": META}},
            "UpdateExpression": expression,
            "ConditionExpression": LIVE_META,
            "ExpressionAttributeValues": {
                **values,
                ":now": stamp,
                ":exp": {"N": str(self._items.expires_at(now))},
                ":t": {"N": str(self._items.epoch())},
            },
            "ReturnValues": "ALL_NEW",
        }
        if names:
            request["ExpressionAttributeNames"] = names
        try:
            response = self._items.client.update_item(**request)
        except Exception as exc:
            if is_condition_failure(exc):
                raise SessionNotFound(session_id) from exc
            raise
        return session_from_item(response["Attributes"])

    def live_check(self, session_id: str) -> dict[str, Any]:
        """A transaction's ConditionCheck that the session is live (its META there, not expired)."""
        return {
            "TableName": self._items.name,
            "Key": {"PK": {"S": session_pk(session_id)}, "SK": {"S": META}},
            "ConditionExpression": LIVE_META,
            "ExpressionAttributeValues": {":t": {"N": str(self._items.epoch())}},
        }

    def commit_update(
        self, session_id: str, batch: SessionBatch, last_seq: int | None, now: datetime
    ) -> dict[str, Any]:
        """The META update a commit's transaction carries: the batch's fields and knowledge, and
        `last_seq`."""
        fields = dict(batch.fields)
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise ValueError(f"cannot update {', '.join(sorted(unknown))}")
        knowledge = list(batch.knowledge)
        if knowledge and "knowledge_in_context" in fields:
            fields["knowledge_in_context"] = [*fields["knowledge_in_context"], *knowledge]
            knowledge = []
        names: dict[str, str] = {}
        values: dict[str, Any] = {
            ":now": {"S": iso(now)},
            ":exp": {"N": str(self._items.expires_at(now))},
            ":t": {"N": str(self._items.epoch())},
        }
        assignments = ["updated_at = :now", "GSI1SK = :now", "expires_at = :exp"]
        for index, (name, raw) in enumerate(sorted(fields.items())):
            names[f"#f{index}"] = name
            values[f":v{index}"] = field_attribute(name, validated_field(name, raw))
            assignments.append(f"#f{index} = :v{index}")
        if knowledge:
            values[":empty"] = {"L": []}
            values[":refs"] = {"L": encoded_refs(knowledge)}
            assignments.append(f"knowledge_in_context = {APPEND_KNOWLEDGE}")
        if last_seq is not None:
            values[":last"] = number(last_seq)
            assignments.append("last_seq = :last")
        update: dict[str, Any] = {
            "TableName": self._items.name,
            "Key": {"PK": {"S": session_pk(session_id)}, "SK": {"S": META}},
            "UpdateExpression": "SET " + ", ".join(assignments),
            "ConditionExpression": LIVE_META,
            "ExpressionAttributeValues": values,
        }
        if names:
            update["ExpressionAttributeNames"] = names
        return update
