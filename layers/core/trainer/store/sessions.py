"""DynamoDB session/event store (ARCHITECTURE §5): `DynamoSessionTable` does the blocking boto3 work;
`DynamoSessionStore`, the async `SessionStore` adapter, runs it in worker threads.

Item layout in the one sessions table (partition `SESSION#<id>`):

- `META`: the session (user_id, status, last_seq, totals...); `GSI1PK=USER#<uid>`, `GSI1SK=<updated_at>`
  make the sparse index that lists a user's sessions newest first.
- `EVENT#<seq, 10 digits>`: one event. An append is ONE conditional put (`attribute_not_exists`) of the
  next sequence number; a conflict re-reads the highest existing event and retries with jittered
  backoff, bounded. No event is ever overwritten. The event items are the truth: a session's `last_seq`
  is the highest event (one `Limit=1` query on read); META's copy is refreshed by `update_session`, so
  the list view may lag by the turn in progress. Deleting takes the turn lease, so no running turn can
  append to a session being deleted.
- `STATE#<key>`: per-session state that must survive Lambda invocations.
- `LEASE`: the per-session turn lease (holder, lease_until).
- `BLOB#<id>#<part>`: parts of a payload too large for one item.

Payloads (event `data`, state values) are JSON strings: floats round-trip exactly and nested data needs no
Decimal conversion. Above ~300 KB a payload is zlib-compressed into a binary attribute; if it is still too
large it is split into BLOB parts written before the item that references them, so a reader always sees a
complete payload. Above `MAX_PAYLOAD_BYTES` compressed it is replaced by a truncation marker.

Every item carries `expires_at` (epoch seconds, now + session_ttl_days; META's moves forward with activity).
DynamoDB deletes expired items lazily, so reads skip items whose `expires_at` is in the past.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any, cast
from uuid import UUID, uuid4

from pydantic import BaseModel, TypeAdapter, ValidationError

from trainer.settings import SessionTableSettings
from trainer.store.dynamo_tables import aws_client, in_thread
from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session
from trainer.store.ports import LeaseClaim, LeaseHeld, SequenceConflict, SessionBatch, SessionNotFound

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]
Item = dict[str, Any]

SEQ_WIDTH = 10
MAX_SEQ = 10**SEQ_WIDTH - 1
INLINE_LIMIT_BYTES = 300_000
BLOB_PART_BYTES = 300_000
MAX_PAYLOAD_BYTES = 8_000_000
TRUNCATED_PREVIEW_CHARS = 10_000
APPEND_ATTEMPTS = 25
BATCH_ATTEMPTS = 10
MAX_LIST_LIMIT = 100
MAX_ID_LENGTH = 128
DELETE_LEASE_SECONDS = 60
COMMIT_ATTEMPTS = 6
MAX_EVENTS_PER_COMMIT = 80
"""A transaction takes 100 items: room is left for the states, META and the lease."""
MAX_COMMIT_BYTES = 3_000_000
"""Under the 4 MB a transaction may carry, states included."""
CONDITION_FAILED = "ConditionalCheckFailed"
APPEND_KNOWLEDGE = "list_append(if_not_exists(knowledge_in_context, :empty), :refs)"

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


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _pk(session_id: str) -> str:
    return f"SESSION#{session_id}"


def _event_sk(seq: int) -> str:
    return f"EVENT#{seq:0{SEQ_WIDTH}d}"


def _state_sk(key: str) -> str:
    return f"STATE#{key}"


def _valid_id(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH and value.isprintable()


def _error_code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def _is_condition_failure(error: Exception) -> bool:
    return _error_code(error) == "ConditionalCheckFailedException"


def _number(value: float | int) -> dict[str, str]:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"expected a number, got {type(value).__name__}")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("numbers must be finite")
        return {"N": repr(value)}
    return {"N": str(value)}


def _plain_number(attribute: dict[str, str]) -> int | float:
    text = attribute["N"]
    return int(text) if text.lstrip("-").isdigit() else float(text)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"payload must be JSON-serialisable: {exc}") from exc


def _encode_payload(name: str, value: dict[str, Any], pk: str, expires_at: int) -> tuple[Item, list[Item]]:
    """Attributes for the owning item, plus BLOB part items to write before it (see module docstring)."""
    text = _dumps(value)
    raw = text.encode("utf-8")
    if len(raw) <= INLINE_LIMIT_BYTES:
        return {name: {"S": text}}, []
    packed = zlib.compress(raw, 6)
    if len(packed) > MAX_PAYLOAD_BYTES:
        logger.warning("payload of %d bytes truncated", len(raw))
        marker = {"_truncated": True, "original_bytes": len(raw), "preview": text[:TRUNCATED_PREVIEW_CHARS]}
        return _encode_payload(name, marker, pk, expires_at)
    if len(packed) <= INLINE_LIMIT_BYTES:
        return {f"{name}_z": {"B": packed}}, []
    blob_id = uuid4().hex
    parts = [packed[i : i + BLOB_PART_BYTES] for i in range(0, len(packed), BLOB_PART_BYTES)]
    items = [
        {
            "PK": {"S": pk},
            "SK": {"S": f"BLOB#{blob_id}#{index:04d}"},
            "part": {"B": part},
            "expires_at": {"N": str(expires_at)},
        }
        for index, part in enumerate(parts)
    ]
    reference = {"M": {"id": {"S": blob_id}, "parts": {"N": str(len(parts))}, "bytes": {"N": str(len(raw))}}}
    return {f"{name}_blob": reference}, items


def _blob_keys(pk: str, item: Item, name: str) -> list[Item]:
    reference = item.get(f"{name}_blob")
    if not reference:
        return []
    blob_id = reference["M"]["id"]["S"]
    parts = int(reference["M"]["parts"]["N"])
    return [{"PK": {"S": pk}, "SK": {"S": f"BLOB#{blob_id}#{index:04d}"}} for index in range(parts)]


def _cancellation_reasons(error: Exception) -> list[str] | None:
    """Per-entry codes of a cancelled transaction ("None" for entries that were fine); None for any
    other error."""
    if _error_code(error) != "TransactionCanceledException":
        return None
    reasons = (getattr(error, "response", None) or {}).get("CancellationReasons") or []
    return [str(reason.get("Code") or "None") for reason in reasons]


def _chunks(event_items: list[Item]) -> list[list[Item]]:
    """Event items split so each transaction stays inside DynamoDB's limits; one chunk when they fit."""
    chunks: list[list[Item]] = [[]]
    size = 0
    for item in event_items:
        item_size = len(json.dumps(item, default=str))
        if chunks[-1] and (len(chunks[-1]) >= MAX_EVENTS_PER_COMMIT or size + item_size > MAX_COMMIT_BYTES):
            chunks.append([])
            size = 0
        chunks[-1].append(item)
        size += item_size
    return chunks


class DynamoSessionTable:
    """The sessions table through boto3. Thread-safe; every method is blocking."""

    def __init__(
        self, settings: SessionTableSettings, client: Any = None, clock: Clock | None = None
    ) -> None:
        self._settings = settings
        self._table = settings.table_name
        self._client = client if client is not None else aws_client("dynamodb", settings)
        self._clock = clock or _utc_now
        self._ttl = timedelta(days=settings.session_ttl_days)
        self._seq_hints: OrderedDict[str, int] = OrderedDict()
        self._hints_lock = threading.Lock()

    @property
    def client(self) -> Any:
        """The boto3 DynamoDB client (shared with the other stores of the same table)."""
        return self._client

    # -- sessions ---------------------------------------------------------------------------------

    def create_session(self, user_id: str) -> Session:
        if not _valid_id(user_id):
            raise ValueError("user_id must be a non-empty printable string")
        now = self._now()
        session = Session(
            id=str(uuid4()),
            user_id=user_id,
            created_at=now,
            updated_at=now,
            expires_at=self._expires_at(now),
        )
        self._client.put_item(
            TableName=self._table,
            Item=self._session_item(session),
            ConditionExpression="attribute_not_exists(PK)",
        )
        return session

    def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        if session_id:
            return self.get_session(user_id, session_id)
        active = next(self._user_sessions(user_id, active_only=True), None)
        return active if active is not None else self.create_session(user_id)

    def get_session(self, user_id: str, session_id: str) -> Session:
        session = self.load_session(session_id)
        if session.user_id != user_id:
            raise SessionNotFound(session_id)
        return session

    def load_session(self, session_id: str) -> Session:
        if not _valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        item = self._get_live_item(_pk(session_id), "META")
        if item is None:
            raise SessionNotFound(session_id)
        session = self._session_from_item(item)
        highest = self._highest_event_seq(_pk(session_id))
        self._remember_sequence(session_id, highest)
        if highest > session.last_seq:
            session = session.model_copy(update={"last_seq": highest})
        return session

    def list_sessions(self, user_id: str, limit: int = 10) -> list[Session]:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST_LIMIT:
            raise ValueError(f"limit must be an integer from 1 to {MAX_LIST_LIMIT}")
        sessions = []
        for session in self._user_sessions(user_id, active_only=False):
            sessions.append(session)
            if len(sessions) == limit:
                break
        return sessions

    def delete_session(self, user_id: str, session_id: str) -> None:
        self.get_session(user_id, session_id)
        pk = _pk(session_id)
        self.acquire_lease(session_id, f"delete:{uuid4().hex}", DELETE_LEASE_SECONDS)
        try:
            self._client.delete_item(
                TableName=self._table,
                Key={"PK": {"S": pk}, "SK": {"S": "META"}},
                ConditionExpression="user_id = :uid",
                ExpressionAttributeValues={":uid": {"S": user_id}},
            )
        except Exception as exc:
            if _is_condition_failure(exc):
                raise SessionNotFound(session_id) from exc
            raise
        with self._hints_lock:
            self._seq_hints.pop(session_id, None)
        self._delete_keys(self._partition_keys(pk))

    def update_session(self, session_id: str, **fields: Any) -> Session:
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise ValueError(
                f"cannot update {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(UPDATABLE_FIELDS))}"
            )
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        assignments = []
        for index, (name, raw) in enumerate(sorted(fields.items())):
            value = self._validated_field(name, raw)
            names[f"#f{index}"] = name
            values[f":v{index}"] = self._field_attribute(name, value)
            assignments.append(f"#f{index} = :v{index}")
        known = self._known_sequence(session_id)
        if known is not None:
            assignments.append("last_seq = :known_seq")
            values[":known_seq"] = _number(known)
        return self._update_meta(session_id, assignments, names, values)

    def add_knowledge(self, session_id: str, refs: list[KnowledgeRef]) -> None:
        encoded = [{"S": _dumps(KnowledgeRef.model_validate(ref).model_dump(mode="json"))} for ref in refs]
        if not encoded:
            return
        self._update_meta(
            session_id,
            [f"knowledge_in_context = {APPEND_KNOWLEDGE}"],
            {},
            {":empty": {"L": []}, ":refs": {"L": encoded}},
        )

    def add_usage(self, session_id: str, **increments: float) -> Session:
        unknown = set(increments) - ADDITIVE_FIELDS
        if unknown:
            raise ValueError(
                f"cannot add to {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(ADDITIVE_FIELDS))}"
            )
        if not increments:
            return self.load_session(session_id)
        names = {f"#a{i}": name for i, name in enumerate(sorted(increments))}
        values = {f":a{i}": _number(increments[name]) for i, name in enumerate(sorted(increments))}
        additions = ", ".join(f"#a{i} :a{i}" for i in range(len(increments)))
        return self._update_meta(session_id, [], names, values, add=additions)

    # -- events -----------------------------------------------------------------------------------

    def append_event(
        self,
        session_id: str,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None = None,
    ) -> Event:
        event_type = EventType(event_type)
        if not isinstance(data, dict):
            raise ValueError("event data must be a dict")
        if not _valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        pk = _pk(session_id)
        now = self._now()
        expires_at = self._expires_at(now)
        seq = self._sequence_hint(session_id) + 1
        event = Event(
            session_id=session_id,
            sequence_number=seq,
            event_type=event_type,
            timestamp=now,
            duration_ms=duration_ms,
            data=data,
        )
        item = self._event_item(pk, event, expires_at)
        for attempt in range(APPEND_ATTEMPTS):
            if seq > MAX_SEQ:
                raise SequenceConflict(f"session {session_id} has no sequence numbers left")
            item["SK"] = {"S": _event_sk(seq)}
            try:
                self._client.put_item(
                    TableName=self._table, Item=item, ConditionExpression="attribute_not_exists(PK)"
                )
            except Exception as exc:
                if not _is_condition_failure(exc):
                    raise
                time.sleep(random.uniform(0, min(1.0, 0.01 * 2**attempt)))
                seq = max(self._highest_event_seq(pk), seq) + 1
                continue
            self._remember_sequence(session_id, seq)
            return event.model_copy(update={"sequence_number": seq})
        raise SequenceConflict(
            f"no free sequence number for session {session_id} after {APPEND_ATTEMPTS} tries"
        )

    def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError("limit must be a positive integer")
        if not _valid_id(session_id) or after >= MAX_SEQ:
            return EventPage(events=[])
        pk = _pk(session_id)
        query: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": {
                ":pk": {"S": pk},
                ":lo": {"S": _event_sk(max(after, 0) + 1)},
                ":hi": {"S": _event_sk(MAX_SEQ)},
            },
            "ConsistentRead": True,
        }
        if types:
            placeholders = {f":t{i}": {"S": EventType(t).value} for i, t in enumerate(sorted(types))}
            query["FilterExpression"] = f"event_type IN ({', '.join(placeholders)})"
            query["ExpressionAttributeValues"].update(placeholders)
        if limit is not None:
            query["Limit"] = limit + 1
        now = self._epoch()
        events: list[Event] = []
        for item in self._query(query):
            if self._expired(item, now):
                continue
            events.append(self._event_from_item(session_id, item))
            if limit is not None and len(events) > limit:
                return EventPage(events=events[:limit], next_after=events[limit - 1].sequence_number)
        return EventPage(events=events)

    def _event_item(self, pk: str, event: Event, expires_at: int) -> Item:
        """The event's item (without its sort key when numbering is still open); the parts of a large
        payload are written first."""
        payload, blob_items = _encode_payload("data", event.data, pk, expires_at)
        if blob_items:
            self._batch_write([{"PutRequest": {"Item": item}} for item in blob_items])
        item: Item = {
            "PK": {"S": pk},
            "SK": {"S": _event_sk(event.sequence_number)},
            "event_type": {"S": EventType(event.event_type).value},
            "timestamp": {"S": _iso(event.timestamp)},
            "expires_at": {"N": str(expires_at)},
            **payload,
        }
        if event.duration_ms is not None:
            item["duration_ms"] = _number(int(event.duration_ms))
        return item

    # -- commit -------------------------------------------------------------------------------------

    def commit(self, session_id: str, batch: SessionBatch) -> None:
        """One TransactWriteItems per commit (split only past DynamoDB's 100 items / 4 MB): the
        events conditional on their sequence numbers being free, the states, a META update that
        checks the session is live, and the lease claim conditional on its holder."""
        if batch.is_empty():
            return
        if not _valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        pk = _pk(session_id)
        now = self._now()
        expires_at = self._expires_at(now)
        events = sorted(batch.events, key=lambda e: e.sequence_number)
        event_items = [self._event_item(pk, event, expires_at) for event in events]
        states = {key: value for key, value in batch.states.items() if _valid_id(key)}
        state_items = self._state_writes(pk, states, now, expires_at)
        chunks = _chunks(event_items)
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            self._commit_chunk(
                session_id,
                chunk,
                state_items if last else {},
                batch if last else SessionBatch(lease=batch.lease and replace(batch.lease, release=False)),
                now,
            )
        if events:
            self._remember_sequence(session_id, events[-1].sequence_number)

    def _state_writes(
        self, pk: str, states: dict[str, dict[str, Any] | None], now: datetime, expires_at: int
    ) -> dict[str, Item]:
        """Transaction entries for state puts and deletes. A value too large for one item is written
        directly (its parts cannot join a transaction)."""
        writes: dict[str, Item] = {}
        for key, value in states.items():
            key_attrs = {"PK": {"S": pk}, "SK": {"S": _state_sk(key)}}
            guard = {"ConditionExpression": "attribute_not_exists(value_blob)"}
            if value is None:
                writes[key] = {"Delete": {"TableName": self._table, "Key": key_attrs, **guard}}
                continue
            payload, blob_items = _encode_payload("value", value, pk, expires_at)
            if blob_items:
                self.put_state(pk.removeprefix("SESSION#"), key, value)
                continue
            item = {
                **key_attrs,
                "updated_at": {"S": _iso(now)},
                "expires_at": {"N": str(expires_at)},
                **payload,
            }
            writes[key] = {"Put": {"TableName": self._table, "Item": item, **guard}}
        return writes

    def _commit_chunk(
        self,
        session_id: str,
        event_items: list[Item],
        state_writes: dict[str, Item],
        batch: SessionBatch,
        now: datetime,
    ) -> None:
        pk = _pk(session_id)
        for attempt in range(COMMIT_ATTEMPTS):
            kinds: list[str] = []
            entries: list[Item] = []
            for item in event_items:
                kinds.append("event")
                entries.append(
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": item,
                            "ConditionExpression": "attribute_not_exists(PK)",
                        }
                    }
                )
            for key, entry in state_writes.items():
                kinds.append(f"state:{key}")
                entries.append(entry)
            last_seq = int(event_items[-1]["SK"]["S"].removeprefix("EVENT#")) if event_items else None
            kinds.append("meta")
            entries.append({"Update": self._meta_update(session_id, batch, last_seq, now)})
            if batch.lease is not None:
                kinds.append("lease")
                entries.append(self._lease_entry(pk, batch.lease, now))
            try:
                self._client.transact_write_items(TransactItems=entries, ClientRequestToken=uuid4().hex)
                return
            except Exception as exc:
                reasons = _cancellation_reasons(exc)
                if reasons is None:
                    raise
            refused = {kind for kind, code in zip(kinds, reasons, strict=False) if code == CONDITION_FAILED}
            if "lease" in refused:
                raise LeaseHeld(f"the lease on session {session_id} was taken over")
            if "meta" in refused:
                raise SessionNotFound(session_id)
            if "event" in refused:
                raise SequenceConflict(f"an event sequence number of session {session_id} is taken")
            for key in [kind.removeprefix("state:") for kind in refused if kind.startswith("state:")]:
                self._write_state_directly(session_id, key, state_writes.pop(key))
            if not refused:
                time.sleep(random.uniform(0, min(1.0, 0.02 * 2**attempt)))
        raise SequenceConflict(f"commit to session {session_id} kept conflicting")

    def _write_state_directly(self, session_id: str, key: str, entry: Item) -> None:
        """A state write the transaction refused because the old value has parts to clean up."""
        if "Put" in entry:
            item = entry["Put"]["Item"]
            self.put_state(session_id, key, self._decode_payload(item["PK"]["S"], item, "value"))
        else:
            self.delete_state(session_id, key)

    def _meta_update(
        self, session_id: str, batch: SessionBatch, last_seq: int | None, now: datetime
    ) -> dict[str, Any]:
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
            ":now": {"S": _iso(now)},
            ":exp": {"N": str(self._expires_at(now))},
            ":t": {"N": str(self._epoch())},
        }
        assignments = ["updated_at = :now", "GSI1SK = :now", "expires_at = :exp"]
        for index, (name, raw) in enumerate(sorted(fields.items())):
            names[f"#f{index}"] = name
            values[f":v{index}"] = self._field_attribute(name, self._validated_field(name, raw))
            assignments.append(f"#f{index} = :v{index}")
        if knowledge:
            encoded = [
                {"S": _dumps(KnowledgeRef.model_validate(r).model_dump(mode="json"))} for r in knowledge
            ]
            values[":empty"] = {"L": []}
            values[":refs"] = {"L": encoded}
            assignments.append(
                "knowledge_in_context = list_append(if_not_exists(knowledge_in_context, :empty), :refs)"
            )
        if last_seq is not None:
            values[":last"] = _number(last_seq)
            assignments.append("last_seq = :last")
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": {"PK": {"S": _pk(session_id)}, "SK": {"S": "META"}},
            "UpdateExpression": "SET " + ", ".join(assignments),
            "ConditionExpression": (
                "attribute_exists(PK) AND (attribute_not_exists(expires_at) OR expires_at >= :t)"
            ),
            "ExpressionAttributeValues": values,
        }
        if names:
            update["ExpressionAttributeNames"] = names
        return update

    def _lease_entry(self, pk: str, claim: LeaseClaim, now: datetime) -> Item:
        entry: Item = {
            "TableName": self._table,
            "Key": {"PK": {"S": pk}, "SK": {"S": "LEASE"}},
            "ConditionExpression": "holder = :holder",
            "ExpressionAttributeValues": {":holder": {"S": claim.holder}},
        }
        if claim.release:
            return {"Delete": entry}
        entry["ExpressionAttributeValues"][":until"] = _number(now.timestamp() + claim.ttl_seconds)
        return {"Update": {**entry, "UpdateExpression": "SET lease_until = :until"}}

    # -- lease --------------------------------------------------------------------------------------

    def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        now = self._clock().timestamp()
        try:
            response = self._client.put_item(
                TableName=self._table,
                Item=self._lease_item(session_id, holder, now + ttl_seconds),
                ConditionExpression="attribute_not_exists(PK) OR lease_until < :now OR holder = :holder",
                ExpressionAttributeValues={":now": _number(now), ":holder": {"S": holder}},
                ReturnValues="ALL_OLD",
            )
        except Exception as exc:
            if _is_condition_failure(exc):
                raise LeaseHeld(f"session {session_id} is busy with another turn") from exc
            raise
        previous = (response.get("Attributes") or {}).get("holder", {}).get("S")
        return previous if previous and previous != holder else None

    def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        now = self._clock().timestamp()
        try:
            self._client.put_item(
                TableName=self._table,
                Item=self._lease_item(session_id, holder, now + ttl_seconds),
                ConditionExpression="holder = :holder",
                ExpressionAttributeValues={":holder": {"S": holder}},
            )
        except Exception as exc:
            if _is_condition_failure(exc):
                raise LeaseHeld(f"the lease on session {session_id} was taken over") from exc
            raise

    def _lease_item(self, session_id: str, holder: str, until: float) -> Item:
        """The lease is valid until `lease_until`; the item itself lives as long as the session, so a
        lease that expired without being released is still seen (and reported) by the next holder."""
        return {
            "PK": {"S": _pk(session_id)},
            "SK": {"S": "LEASE"},
            "holder": {"S": holder},
            "lease_until": _number(until),
            "expires_at": {"N": str(self._expires_at(self._now()))},
        }

    def release_lease(self, session_id: str, holder: str) -> None:
        try:
            self._client.delete_item(
                TableName=self._table,
                Key={"PK": {"S": _pk(session_id)}, "SK": {"S": "LEASE"}},
                ConditionExpression="holder = :holder",
                ExpressionAttributeValues={":holder": {"S": holder}},
            )
        except Exception as exc:
            if not _is_condition_failure(exc):
                raise
            logger.info("lease on %s not released: no longer held by %s", session_id, holder)

    # -- state --------------------------------------------------------------------------------------

    def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        if not _valid_id(session_id) or not _valid_id(key):
            return None
        pk = _pk(session_id)
        item = self._get_live_item(pk, _state_sk(key))
        if item is None:
            return None
        return cast(dict[str, Any], self._decode_payload(pk, item, "value"))

    def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None:
        if not _valid_id(key):
            raise ValueError("state key must be a non-empty printable string")
        if not isinstance(value, dict):
            raise ValueError("state value must be a dict")
        pk = _pk(session_id)
        now = self._now()
        expires_at = self._expires_at(now)
        payload, blob_items = _encode_payload("value", value, pk, expires_at)
        if blob_items:
            self._batch_write([{"PutRequest": {"Item": item}} for item in blob_items])
        response = self._client.put_item(
            TableName=self._table,
            Item={
                "PK": {"S": pk},
                "SK": {"S": _state_sk(key)},
                "updated_at": {"S": _iso(now)},
                "expires_at": {"N": str(expires_at)},
                **payload,
            },
            ReturnValues="ALL_OLD",
        )
        self._delete_keys(_blob_keys(pk, response.get("Attributes") or {}, "value"))

    def delete_state(self, session_id: str, key: str) -> None:
        if not _valid_id(key):
            return
        pk = _pk(session_id)
        response = self._client.delete_item(
            TableName=self._table,
            Key={"PK": {"S": pk}, "SK": {"S": _state_sk(key)}},
            ReturnValues="ALL_OLD",
        )
        self._delete_keys(_blob_keys(pk, response.get("Attributes") or {}, "value"))

    # -- a whole account (export) -------------------------------------------------------------------

    def user_sessions(self, user_id: str) -> Iterator[Session]:
        """Every live session of the user, newest first, read a page at a time."""
        return self._user_sessions(user_id, active_only=False)

    def states(self, session_id: str) -> dict[str, Any]:
        """Every live state value of a session, by key."""
        if not _valid_id(session_id):
            return {}
        pk = _pk(session_id)
        now = self._epoch()
        query = {
            "TableName": self._table,
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :state)",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":state": {"S": "STATE#"}},
            "ConsistentRead": True,
        }
        return {
            item["SK"]["S"].removeprefix("STATE#"): self._decode_payload(pk, item, "value")
            for item in self._query(query)
            if not self._expired(item, now)
        }

    # -- internals ----------------------------------------------------------------------------------

    def _now(self) -> datetime:
        return self._clock().astimezone(UTC)

    def _epoch(self) -> int:
        return int(self._clock().timestamp())

    def _expires_at(self, now: datetime) -> int:
        return int((now + self._ttl).timestamp())

    @staticmethod
    def _expired(item: Item, now: int) -> bool:
        expires = item.get("expires_at")
        return expires is not None and int(Decimal(expires["N"])) < now

    def _get_live_item(self, pk: str, sk: str) -> Item | None:
        response = self._client.get_item(
            TableName=self._table, Key={"PK": {"S": pk}, "SK": {"S": sk}}, ConsistentRead=True
        )
        item = response.get("Item")
        if item is None or self._expired(item, self._epoch()):
            return None
        return cast(Item, item)

    def _query(self, query: dict[str, Any]) -> Iterator[Item]:
        request = dict(query)
        while True:
            response = self._client.query(**request)
            yield from response.get("Items", [])
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                return
            request["ExclusiveStartKey"] = last_key

    def _user_sessions(self, user_id: str, *, active_only: bool) -> Iterator[Session]:
        if not _valid_id(user_id):
            return
        query: dict[str, Any] = {
            "TableName": self._table,
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
        now = self._epoch()
        for item in self._query(query):
            if not self._expired(item, now) and item.get("user_id", {}).get("S") == user_id:
                yield self._session_from_item(item)

    def _session_item(self, session: Session) -> Item:
        item: Item = {
            "PK": {"S": _pk(session.id)},
            "SK": {"S": "META"},
            "session_id": {"S": session.id},
            "user_id": {"S": session.user_id},
            "created_at": {"S": _iso(session.created_at)},
            "updated_at": {"S": _iso(session.updated_at)},
            "last_seq": _number(session.last_seq),
            "GSI1PK": {"S": f"USER#{session.user_id}"},
            "GSI1SK": {"S": _iso(session.updated_at)},
        }
        for name in sorted(UPDATABLE_FIELDS):
            item[name] = self._field_attribute(name, getattr(session, name))
        if session.expires_at is not None:
            item["expires_at"] = {"N": str(session.expires_at)}
        return item

    @staticmethod
    def _validated_field(name: str, value: Any) -> Any:
        annotation = Session.model_fields[name].annotation
        try:
            validated: Any = TypeAdapter(annotation).validate_python(value)
        except ValidationError as exc:
            raise ValueError(f"invalid {name}: {exc.errors()[0]['msg']}") from exc
        if name in ADDITIVE_FIELDS | {"context_start_sequence"} and validated < 0:
            raise ValueError(f"{name} must not be negative")
        return validated

    @staticmethod
    def _field_attribute(name: str, value: Any) -> dict[str, Any]:
        if name == "knowledge_in_context":
            return {"L": [{"S": _dumps(ref.model_dump(mode="json"))} for ref in value]}
        if name == "metadata":
            return {"S": _dumps(value)}
        if name == "status":
            return {"S": value}
        return _number(value)

    def _session_from_item(self, item: Item) -> Session:
        prompt = _plain_number(item.get("prompt_tokens", {"N": "0"}))
        cached = _plain_number(item.get("cached_tokens", {"N": "0"}))
        return Session(
            id=item["session_id"]["S"],
            user_id=item["user_id"]["S"],
            status=item.get("status", {}).get("S", "active"),
            created_at=datetime.fromisoformat(item["created_at"]["S"]),
            updated_at=datetime.fromisoformat(item["updated_at"]["S"]),
            context_start_sequence=int(_plain_number(item.get("context_start_sequence", {"N": "0"}))),
            last_seq=int(_plain_number(item.get("last_seq", {"N": "0"}))),
            knowledge_in_context=[
                KnowledgeRef.model_validate_json(entry["S"])
                for entry in item.get("knowledge_in_context", {}).get("L", [])
            ],
            total_tokens=int(_plain_number(item.get("total_tokens", {"N": "0"}))),
            prompt_tokens=int(prompt),
            completion_tokens=int(_plain_number(item.get("completion_tokens", {"N": "0"}))),
            cached_tokens=int(cached),
            cache_write_tokens=int(_plain_number(item.get("cache_write_tokens", {"N": "0"}))),
            total_cost_cents=float(_plain_number(item.get("total_cost_cents", {"N": "0"}))),
            cache_hit_rate=(cached / (prompt + cached) * 100) if prompt + cached else 0.0,
            metadata=json.loads(item["metadata"]["S"]) if "metadata" in item else {},
            expires_at=int(_plain_number(item["expires_at"])) if "expires_at" in item else None,
        )

    def _event_from_item(self, session_id: str, item: Item) -> Event:
        duration = item.get("duration_ms")
        return Event(
            session_id=session_id,
            sequence_number=int(item["SK"]["S"].removeprefix("EVENT#")),
            event_type=EventType(item["event_type"]["S"]),
            timestamp=datetime.fromisoformat(item["timestamp"]["S"]),
            duration_ms=int(_plain_number(duration)) if duration else None,
            data=self._decode_payload(item["PK"]["S"], item, "data"),
        )

    def _decode_payload(self, pk: str, item: Item, name: str) -> Any:
        if name in item:
            return json.loads(item[name]["S"])
        if f"{name}_z" in item:
            return json.loads(zlib.decompress(item[f"{name}_z"]["B"]))
        keys = _blob_keys(pk, item, name)
        if not keys:
            return {}
        prefix = keys[0]["SK"]["S"].rsplit("#", 1)[0] + "#"
        parts = [
            part["part"]["B"]
            for part in self._query(
                {
                    "TableName": self._table,
                    "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
                    "ExpressionAttributeValues": {":pk": {"S": pk}, ":prefix": {"S": prefix}},
                    "ConsistentRead": True,
                }
            )
        ]
        if len(parts) != len(keys):
            raise RuntimeError(f"payload {prefix} of {pk} is incomplete ({len(parts)}/{len(keys)} parts)")
        return json.loads(zlib.decompress(b"".join(parts)))

    def _update_meta(
        self,
        session_id: str,
        assignments: list[str],
        names: dict[str, str],
        values: dict[str, Any],
        *,
        add: str = "",
    ) -> Session:
        if not _valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        now = self._now()
        stamp = {"S": _iso(now)}
        expression = "SET " + ", ".join(
            [*assignments, "updated_at = :now", "GSI1SK = :now", "expires_at = :exp"]
        )
        if add:
            expression += f" ADD {add}"
        request: dict[str, Any] = {
            "TableName": self._table,
            "Key": {"PK": {"S": _pk(session_id)}, "SK": {"S": "META"}},
            "UpdateExpression": expression,
            "ConditionExpression": (
                "attribute_exists(PK) AND (attribute_not_exists(expires_at) OR expires_at >= :t)"
            ),
            "ExpressionAttributeValues": {
                **values,
                ":now": stamp,
                ":exp": {"N": str(self._expires_at(now))},
                ":t": {"N": str(self._epoch())},
            },
            "ReturnValues": "ALL_NEW",
        }
        if names:
            request["ExpressionAttributeNames"] = names
        try:
            response = self._client.update_item(**request)
        except Exception as exc:
            if _is_condition_failure(exc):
                raise SessionNotFound(session_id) from exc
            raise
        return self._session_from_item(response["Attributes"])

    def _sequence_hint(self, session_id: str) -> int:
        """The highest sequence this store knows; the first append to a session checks it exists."""
        hint = self._known_sequence(session_id)
        return hint if hint is not None else self.load_session(session_id).last_seq

    def _known_sequence(self, session_id: str) -> int | None:
        with self._hints_lock:
            return self._seq_hints.get(session_id)

    def _remember_sequence(self, session_id: str, seq: int) -> None:
        with self._hints_lock:
            known = self._seq_hints.get(session_id)
            if known is None or known < seq:
                self._seq_hints[session_id] = seq
            self._seq_hints.move_to_end(session_id)
            while len(self._seq_hints) > 4096:
                self._seq_hints.popitem(last=False)

    def _highest_event_seq(self, pk: str) -> int:
        response = self._client.query(
            TableName=self._table,
            KeyConditionExpression="PK = :pk AND begins_with(SK, :event)",
            ExpressionAttributeValues={":pk": {"S": pk}, ":event": {"S": "EVENT#"}},
            ProjectionExpression="SK",
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        )
        items = response.get("Items", [])
        return int(items[0]["SK"]["S"].removeprefix("EVENT#")) if items else 0

    def _partition_keys(self, pk: str) -> list[Item]:
        return list(
            self._query(
                {
                    "TableName": self._table,
                    "KeyConditionExpression": "PK = :pk",
                    "ExpressionAttributeValues": {":pk": {"S": pk}},
                    "ProjectionExpression": "PK, SK",
                    "ConsistentRead": True,
                }
            )
        )

    def _delete_keys(self, keys: Iterable[Item]) -> None:
        self._batch_write([{"DeleteRequest": {"Key": {"PK": k["PK"], "SK": k["SK"]}}} for k in keys])

    def _batch_write(self, requests: list[Item]) -> None:
        for start in range(0, len(requests), 25):
            pending: dict[str, Any] = {self._table: requests[start : start + 25]}
            for attempt in range(BATCH_ATTEMPTS):
                response = self._client.batch_write_item(RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(min(1.0, 0.02 * 2**attempt) * random.uniform(0.5, 1.0))
            else:
                raise RuntimeError(f"batch write to {self._table} left unprocessed items")


class DynamoSessionStore:
    """The async `SessionStore` port on DynamoDB: each call runs the blocking table operation in a
    worker thread, so callers never block the event loop; a store that cannot be reached (or keeps
    throttling after boto3's retries) is StoreUnavailable."""

    def __init__(
        self, settings: SessionTableSettings, client: Any = None, clock: Clock | None = None
    ) -> None:
        self.table = DynamoSessionTable(settings, client=client, clock=clock)

    async def create_session(self, user_id: str) -> Session:
        return await in_thread(self.table.create_session, user_id)

    async def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        return await in_thread(self.table.get_or_create_session, user_id, session_id)

    async def get_session(self, user_id: str, session_id: str) -> Session:
        return await in_thread(self.table.get_session, user_id, session_id)

    async def load_session(self, session_id: str) -> Session:
        return await in_thread(self.table.load_session, session_id)

    async def list_sessions(self, user_id: str, limit: int = 10) -> list[Session]:
        return await in_thread(self.table.list_sessions, user_id, limit)

    async def delete_session(self, user_id: str, session_id: str) -> None:
        await in_thread(self.table.delete_session, user_id, session_id)

    async def append_event(
        self,
        session_id: str,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None = None,
    ) -> Event:
        return await in_thread(self.table.append_event, session_id, event_type, data, duration_ms)

    async def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        return await in_thread(self.table.read_events, session_id, after, limit, types)

    async def update_session(self, session_id: str, **fields: Any) -> Session:
        return await in_thread(lambda: self.table.update_session(session_id, **fields))

    async def add_knowledge(self, session_id: str, refs: list[KnowledgeRef]) -> None:
        await in_thread(self.table.add_knowledge, session_id, refs)

    async def add_usage(self, session_id: str, **increments: float) -> Session:
        return await in_thread(lambda: self.table.add_usage(session_id, **increments))

    async def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        return await in_thread(self.table.acquire_lease, session_id, holder, ttl_seconds)

    async def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        await in_thread(self.table.renew_lease, session_id, holder, ttl_seconds)

    async def release_lease(self, session_id: str, holder: str) -> None:
        await in_thread(self.table.release_lease, session_id, holder)

    async def commit(self, session_id: str, batch: SessionBatch) -> None:
        await in_thread(self.table.commit, session_id, batch)

    async def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        return await in_thread(self.table.get_state, session_id, key)

    async def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None:
        await in_thread(self.table.put_state, session_id, key, value)

    async def delete_state(self, session_id: str, key: str) -> None:
        await in_thread(self.table.delete_state, session_id, key)
