"""DynamoDB session/event store (ARCHITECTURE §5): `DynamoSessionTable` does the blocking boto3 work;
`DynamoSessionStore`, the async `SessionStore` adapter, runs it in worker threads.

Item layout in the one sessions table (partition `SESSION#<id>`):

- `META`: the session (user_id, status, last_seq, totals...); `GSI1PK=USER#<uid>`, `GSI1SK=<updated_at>`
  make the sparse index that lists a user's sessions newest first. Only commits that set fields (a
  turn's last), lease-less ones and the direct updates write it.
- `EVENT#<first seq, 10 digits>`: the log. A record (`kind=events`) holds consecutive events (`first`
  .. `last`, at most `MAX_EVENTS_PER_COMMIT`) and the state values the same commit set, as one JSON
  `body` (compressed together: a workout's tool call, artifact and states share their text). A
  marker (`kind=marker`, no events) sits at the next free slot. The newest item, the head, carries
  the lease (`holder`, `lease_until`, `released`), `state_at` (where each state key's value lives:
  a record, a `STATE#<key>#<id>` item, or `-` for deleted) and `knowledge` refs not yet in META.
  Every write goes to the head's next slot (over a marker, or after the last event) on condition
  that the slot is free or still holds the marker the writer read, so numbers stay unique and
  gap-free, records are never overwritten, and taking, renewing or releasing the lease (a marker)
  fences off a writer that lost it. A turn's commit is ONE conditional PutItem; a conflict re-reads
  the head (one `Limit=1` query) and tells a lost lease from a taken number. `last_seq` and the
  knowledge in context are META's plus the head's; the list view may lag by a turn that did not
  close. Deleting takes the lease and leaves its marker as a tombstone until it expires, so nothing
  lands in a deleted session.
- `STATE#<key>#<id>`: a state value set without events (`put_state`); `STATE#<key>`: one written
  before the log layout, read while the head has no pointer for the key.
- `BLOB#<id>#<part>`: parts of a payload too large for one item.

Payloads (record bodies, state values) are JSON strings: floats round-trip exactly and nested data needs no
Decimal conversion. Above `COMPRESS_ABOVE_BYTES` a payload is zlib-compressed into a binary attribute
(`body_z`, `value_z`) when that is smaller, since writes are billed per KB of item; above ~300 KB
compressed it is split into BLOB parts written before the item that references them, so a reader always
sees a complete payload. Above `MAX_PAYLOAD_BYTES` compressed it is replaced by a truncation marker.

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
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any, cast
from uuid import UUID, uuid4

from pydantic import BaseModel, TypeAdapter, ValidationError

from trainer.settings import SessionTableSettings
from trainer.store.dynamo_tables import aws_client, in_thread
from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session
from trainer.store.ports import LeaseHeld, SequenceConflict, SessionBatch, SessionNotFound

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]
Item = dict[str, Any]

SEQ_WIDTH = 10
MAX_SEQ = 10**SEQ_WIDTH - 1
INLINE_LIMIT_BYTES = 300_000
COMPRESS_ABOVE_BYTES = 512
"""A payload above this is stored zlib-compressed when that is smaller: DynamoDB bills writes per KB of
item, and a turn's JSON (workouts, tool results, knowledge) shrinks three- to fivefold."""
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
"""Events per record; a commit with more writes several records in one transaction, and a read from
sequence n starts at the record key n - 79 so it finds the record holding n."""
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
    if len(raw) <= COMPRESS_ABOVE_BYTES:
        return {name: {"S": text}}, []
    packed = zlib.compress(raw, 6)
    if len(packed) > MAX_PAYLOAD_BYTES:
        logger.warning("payload of %d bytes truncated", len(raw))
        marker = {"_truncated": True, "original_bytes": len(raw), "preview": text[:TRUNCATED_PREVIEW_CHARS]}
        return _encode_payload(name, marker, pk, expires_at)
    if len(packed) >= len(raw) and len(raw) <= INLINE_LIMIT_BYTES:
        return {name: {"S": text}}, []
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


KIND_EVENTS = "events"
KIND_MARKER = "marker"
NO_STATE = "-"
"""A state pointer meaning the key was deleted."""
HEAD_ATTRIBUTES = (
    "SK",
    "kind",
    "last",
    "token",
    "holder",
    "lease_until",
    "released",
    "state_at",
    "legacy_states",
    "knowledge",
)


@dataclass(frozen=True)
class _Head:
    """The newest item of a session's log: the highest sequence number, the lease and where each
    state value lives."""

    slot: int
    highest: int
    kind: str | None
    token: str | None
    holder: str | None
    lease_until: float
    released: bool
    states: dict[str, str]
    legacy_states: bool
    knowledge: tuple[str, ...] = ()
    """Knowledge refs (JSON) added since META's knowledge_in_context was last written: a commit under a
    lease keeps them here rather than pay for a META update; the next commit that updates META
    moves them there."""

    @property
    def next_slot(self) -> int:
        """Where the next record goes: over a marker, else right after the highest event."""
        return self.slot if self.kind == KIND_MARKER else self.highest + 1

    def slot_condition(self) -> dict[str, Any]:
        """The condition of a write at `next_slot`: the slot is free, or still holds this marker."""
        if self.kind == KIND_MARKER and self.token is not None:
            return {
                "ConditionExpression": "#kind = :marker AND #token = :token",
                "ExpressionAttributeNames": {"#kind": "kind", "#token": "token"},
                "ExpressionAttributeValues": {":marker": {"S": KIND_MARKER}, ":token": {"S": self.token}},
            }
        return {"ConditionExpression": "attribute_not_exists(PK)"}


def _head_of(item: Item | None) -> _Head:
    if item is None:
        return _Head(0, 0, None, None, None, 0.0, False, {}, True)
    seq = int(item["SK"]["S"].removeprefix("EVENT#"))
    kind = item.get("kind", {}).get("S")
    if kind is None:
        return _Head(seq, seq, None, None, None, 0.0, False, {}, True)
    return _Head(
        slot=seq,
        highest=int(item["last"]["N"]),
        kind=kind,
        token=item.get("token", {}).get("S"),
        holder=item.get("holder", {}).get("S"),
        lease_until=float(item.get("lease_until", {"N": "0"})["N"]),
        released=bool(item.get("released", {}).get("BOOL", False)),
        states={key: value["S"] for key, value in item.get("state_at", {}).get("M", {}).items()},
        legacy_states=bool(item.get("legacy_states", {}).get("BOOL", True)),
        knowledge=tuple(entry["S"] for entry in item.get("knowledge", {}).get("L", [])),
    )


def _lease_fields(holder: str, until: float) -> Item:
    return {"holder": {"S": holder}, "lease_until": _number(until)}


def _pending_knowledge(refs: Iterable[str]) -> Item:
    entries = list(refs)
    return {"knowledge": {"L": [{"S": ref} for ref in entries]}} if entries else {}


def _carried(head: _Head) -> Item:
    """The head's lease and pending knowledge, for a record written by someone other than its
    holder."""
    fields = _pending_knowledge(head.knowledge)
    if head.holder is None:
        return fields
    fields.update(_lease_fields(head.holder, head.lease_until))
    if head.released:
        fields["released"] = {"BOOL": True}
    return fields


def _touches_meta(batch: SessionBatch) -> bool:
    """Whether a commit updates META. Under a lease it need not: the record's condition
    already proves the lease held, and a deleted session's slot is taken by its tombstone; META's
    last_seq, updated_at, expires_at and knowledge move with the turn's closing commit, which sets
    fields. An update per commit would make every commit a transaction (twice the write units)
    and rewrite the GSI1 entry."""
    return batch.lease is None or bool(batch.fields)


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
        self._heads: OrderedDict[str, _Head] = OrderedDict()
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
        # a new session's log is empty: its first lease needs no read of the head
        self._remember_head(session.id, _head_of(None))
        return session

    def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        if session_id:
            return self.get_session(user_id, session_id)
        active = next(self._user_sessions(user_id, active_only=True), None)
        if active is None:
            return self.create_session(user_id)
        # The index holds META as the last update left it; the log's head has the highest sequence
        # and the knowledge added since.
        return self.load_session(active.id)

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
        head = self._read_head(session_id)
        if head.highest > session.last_seq:
            session = session.model_copy(update={"last_seq": head.highest})
        if head.knowledge:
            pending = [KnowledgeRef.model_validate_json(ref) for ref in head.knowledge]
            session = session.model_copy(
                update={"knowledge_in_context": [*session.knowledge_in_context, *pending]}
            )
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
        """Takes the lease, deletes META and every item but the lease's marker, which stays (until it
        expires) as a tombstone holding the lease: a turn that outlived its lease finds its next slot
        taken, so nothing lands in a deleted session."""
        self.get_session(user_id, session_id)
        pk = _pk(session_id)
        deleter = f"delete:{uuid4().hex}"
        self.acquire_lease(session_id, deleter, DELETE_LEASE_SECONDS)
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
        marker = self._cached_head(session_id) or self._read_head(session_id)
        self._delete_all_but(session_id, marker.slot)
        tombstone = replace(marker, states={})
        self._write_marker(session_id, tombstone, _lease_fields(deleter, float(MAX_SEQ)))
        self._forget_head(session_id)

    def erase(self, session_id: str, holder: str, ttl_seconds: int) -> int:
        """Erases a session whoever holds it (account deletion): a tombstone marker takes the lease at
        the next slot, so a turn still running there finds its slot taken (LeaseHeld) and writes
        nothing more; then META and every other item go. The tombstone holds no states, knowledge or
        events and expires after `ttl_seconds`. Returns the items deleted."""
        until = self._clock().timestamp() + ttl_seconds
        for _ in range(APPEND_ATTEMPTS):
            head = self._read_head(session_id)
            if self._write_marker(
                session_id, replace(head, states={}, knowledge=()), _lease_fields(holder, until)
            ):
                break
        else:
            raise LeaseHeld(f"session {session_id} kept moving while it was erased")
        deleted = self._delete_all_but(session_id, head.next_slot)  # the slot the tombstone took
        self._forget_head(session_id)
        return deleted

    def _delete_all_but(self, session_id: str, slot: int) -> int:
        """Deletes every item of the session but the record at `slot`: the number deleted."""
        keep = _event_sk(slot)
        doomed = [key for key in self._partition_keys(_pk(session_id)) if key["SK"]["S"] != keep]
        self._delete_keys(doomed)
        return len(doomed)

    def _forget_head(self, session_id: str) -> None:
        with self._hints_lock:
            self._heads.pop(session_id, None)

    def update_session(self, session_id: str, **fields: Any) -> Session:
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise ValueError(
                f"cannot update {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(UPDATABLE_FIELDS))}"
            )
        if "knowledge_in_context" in fields:
            # Replaces the head's pending knowledge too, in one transaction.
            self.commit(session_id, SessionBatch(fields=dict(fields)))
            return self.load_session(session_id)
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        assignments = []
        for index, (name, raw) in enumerate(sorted(fields.items())):
            value = self._validated_field(name, raw)
            names[f"#f{index}"] = name
            values[f":v{index}"] = self._field_attribute(name, value)
            assignments.append(f"#f{index} = :v{index}")
        known = self._cached_head(session_id)
        if known is not None:
            assignments.append("last_seq = :known_seq")
            values[":known_seq"] = _number(known.highest)
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
        """One conditional put of a one-event record at the head's next slot, carrying the head's
        lease and state pointers forward; a conflict re-reads the head and retries with jittered
        backoff, bounded."""
        if not _valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        pk = _pk(session_id)
        now = self._now()
        expires_at = self._expires_at(now)
        head = self._cached_head(session_id)
        if head is None:
            self.load_session(session_id)
            head = self._cached_head(session_id) or _head_of(None)
        event = Event(
            session_id=session_id,
            sequence_number=head.next_slot,
            event_type=event_type,
            timestamp=now,
            duration_ms=duration_ms,
            data=data,
        )
        _dumps(data)
        for attempt in range(APPEND_ATTEMPTS):
            seq = head.next_slot
            if seq > MAX_SEQ:
                raise SequenceConflict(f"session {session_id} has no sequence numbers left")
            event = event.model_copy(update={"sequence_number": seq})
            item, blob_items = self._record_item(pk, [event], {}, _carried(head), head.states, expires_at)
            item["legacy_states"] = {"BOOL": head.legacy_states}
            if blob_items:
                self._batch_write([{"PutRequest": {"Item": part}} for part in blob_items])
            try:
                self._client.put_item(TableName=self._table, Item=item, **head.slot_condition())
            except Exception as exc:
                if not _is_condition_failure(exc):
                    raise
                time.sleep(random.uniform(0, min(1.0, 0.01 * 2**attempt)))
                head = self._read_head(session_id)
                continue
            self._remember_head(session_id, _head_of(item))
            return event
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
        after = max(after, 0)
        query: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": {
                ":pk": {"S": pk},
                ":lo": {"S": _event_sk(max(after + 2 - MAX_EVENTS_PER_COMMIT, 1))},
                ":hi": {"S": _event_sk(MAX_SEQ)},
            },
            "ConsistentRead": True,
        }
        if limit is not None:
            query["Limit"] = limit + 1
        wanted = {EventType(t) for t in types} if types else None
        now = self._epoch()
        events: list[Event] = []
        for item in self._query(query):
            if self._expired(item, now):
                continue
            for event in self._events_of(session_id, item):
                if event.sequence_number <= after or (wanted and event.event_type not in wanted):
                    continue
                events.append(event)
                if limit is not None and len(events) > limit:
                    return EventPage(events=events[:limit], next_after=events[limit - 1].sequence_number)
        return EventPage(events=events)

    def _events_of(self, session_id: str, item: Item) -> list[Event]:
        kind = item.get("kind", {}).get("S")
        if kind is None:
            return [self._event_from_item(session_id, item)]
        if kind != KIND_EVENTS:
            return []
        body = self._decode_payload(item["PK"]["S"], item, "body")
        return [
            Event(
                session_id=session_id,
                sequence_number=seq,
                event_type=EventType(event_type),
                timestamp=datetime.fromisoformat(stamp),
                duration_ms=duration,
                data=data,
            )
            for seq, event_type, stamp, duration, data in body.get("events", [])
        ]

    def _record_item(
        self,
        pk: str,
        events: list[Event],
        states: dict[str, dict[str, Any] | None],
        lease: Item,
        pointers: dict[str, str],
        expires_at: int,
        slot: int | None = None,
    ) -> tuple[Item, list[Item]]:
        """A log record: `events` (consecutive) with the state values this commit set, or a marker
        (no events) at `slot`; it carries the lease fields and the state pointers as the new head."""
        first = events[0].sequence_number if events else int(slot or 1)
        body: dict[str, Any] = {
            "events": [
                [e.sequence_number, EventType(e.event_type).value, _iso(e.timestamp), e.duration_ms, e.data]
                for e in events
            ]
        }
        record_states = {key: value for key, value in states.items() if value is not None}
        if record_states:
            body["states"] = record_states
        item: Item = {
            "PK": {"S": pk},
            "SK": {"S": _event_sk(first)},
            "kind": {"S": KIND_EVENTS if events else KIND_MARKER},
            "last": {"N": str(events[-1].sequence_number if events else first - 1)},
            "token": {"S": uuid4().hex},
            "expires_at": {"N": str(expires_at)},
            **lease,
        }
        blob_items: list[Item] = []
        if events:
            payload, blob_items = _encode_payload("body", body, pk, expires_at)
            item.update(payload)
        sk = item["SK"]["S"]
        merged = dict(pointers)
        for key, value in states.items():
            merged[key] = NO_STATE if value is None else sk
        if merged:
            item["state_at"] = {"M": {key: {"S": pointer} for key, pointer in sorted(merged.items())}}
        return item, blob_items

    # -- commit -------------------------------------------------------------------------------------

    def commit(self, session_id: str, batch: SessionBatch) -> None:
        """One write per commit in the common case: a conditional PutItem of one record at the head's
        next slot holding the events and the state values they set, and the lease claim (extended or
        released) as the new head. The condition (the slot is free, or is the marker this writer last
        saw) is what makes the sequence numbers free and the lease still the claimant's. A batch with
        fields or knowledge, without a lease, with states but no events, or past one record's events,
        is one TransactWriteItems of its records, state items and a META update."""
        if batch.is_empty():
            return
        if not _valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        pk = _pk(session_id)
        now = self._now()
        expires_at = self._expires_at(now)
        events = sorted(batch.events, key=lambda e: e.sequence_number)
        states = {key: value for key, value in batch.states.items() if _valid_id(key)}
        for value in states.values():
            if value is not None:
                _dumps(value)
        head = self._cached_head(session_id)
        if head is None or not self._commit_fits(head, batch, events):
            head = self._read_head(session_id)
        for attempt in range(COMMIT_ATTEMPTS):
            self._check_commit(session_id, head, batch, events, now)
            try:
                new_head, superseded = self._write_commit(pk, head, batch, events, states, now, expires_at)
            except Exception as exc:
                kinds: list[tuple[str, str]] | None = getattr(exc, "kinds", None)
                if kinds is None and not _is_condition_failure(exc):
                    raise
                refused = {kind for kind, code in kinds or [] if code == CONDITION_FAILED}
                if "meta" in refused:
                    raise SessionNotFound(session_id) from exc
                head = self._read_head(session_id)
                if kinds is None or refused:
                    self._check_commit(session_id, head, batch, events, now)
                else:
                    time.sleep(random.uniform(0, min(1.0, 0.02 * 2**attempt)))
                continue
            self._remember_head(session_id, new_head)
            self._delete_superseded(pk, superseded)
            return
        raise SequenceConflict(f"commit to session {session_id} kept conflicting")

    @staticmethod
    def _commit_fits(head: _Head, batch: SessionBatch, events: list[Event]) -> bool:
        """Whether a commit can go on `head` (the cached guess is re-read when not)."""
        if batch.lease is not None and (head.holder != batch.lease.holder or head.released):
            return False
        return not events or events[0].sequence_number == head.next_slot

    def _check_commit(
        self, session_id: str, head: _Head, batch: SessionBatch, events: list[Event], now: datetime
    ) -> None:
        if batch.lease is not None and (head.holder != batch.lease.holder or head.released):
            raise LeaseHeld(f"the lease on session {session_id} was taken over")
        if events:
            numbers = [e.sequence_number for e in events]
            if numbers != list(range(head.next_slot, head.next_slot + len(numbers))):
                raise SequenceConflict(
                    f"events {numbers[0]}..{numbers[-1]} of session {session_id} do not follow {head.highest}"
                )

    def _write_commit(
        self,
        pk: str,
        head: _Head,
        batch: SessionBatch,
        events: list[Event],
        states: dict[str, dict[str, Any] | None],
        now: datetime,
        expires_at: int,
    ) -> tuple[_Head, list[str]]:
        added = [_dumps(KnowledgeRef.model_validate(ref).model_dump(mode="json")) for ref in batch.knowledge]
        pending = [*head.knowledge, *added]
        if batch.lease is None:
            lease = _carried(head)
        else:
            lease = _lease_fields(batch.lease.holder, now.timestamp() + batch.lease.ttl_seconds)
            if batch.lease.release:
                lease["released"] = {"BOOL": True}
        lease.pop("knowledge", None)
        if not _touches_meta(batch):
            lease.update(_pending_knowledge(pending))
        chunks = [events[i : i + MAX_EVENTS_PER_COMMIT] for i in range(0, len(events), MAX_EVENTS_PER_COMMIT)]
        entries: list[tuple[str, Item]] = []
        blob_items: list[Item] = []
        pointers = dict(head.states)
        state_items: list[Item] = []
        if not events and any(value is not None for value in states.values()):
            for key, value in states.items():
                if value is None:
                    continue
                sk = f"{_state_sk(key)}#{uuid4().hex}"
                payload, parts = _encode_payload("value", value, pk, expires_at)
                blob_items += parts
                state_items.append(
                    {
                        "PK": {"S": pk},
                        "SK": {"S": sk},
                        "updated_at": {"S": _iso(now)},
                        "expires_at": {"N": str(expires_at)},
                        **payload,
                    }
                )
                pointers[key] = sk
            states = {key: value for key, value in states.items() if value is None}
        record: Item = {}
        for index, chunk in enumerate(chunks or [[]]):
            last = index == len(chunks or [[]]) - 1
            record, parts = self._record_item(
                pk,
                chunk,
                states if last else {},
                lease if last else {},
                pointers if last else {},
                expires_at,
                slot=head.next_slot,
            )
            if last:
                record["legacy_states"] = {"BOOL": head.legacy_states}
            blob_items += parts
            condition = (
                head.slot_condition() if index == 0 else {"ConditionExpression": "attribute_not_exists(PK)"}
            )
            entries.append(("record", {"Put": {"TableName": self._table, "Item": record, **condition}}))
        for item in state_items:
            entries.append(("state", {"Put": {"TableName": self._table, "Item": item}}))
        if _touches_meta(batch):
            # The update moves the head's pending knowledge into META (an explicit
            # knowledge_in_context replaces it) and checks the session is live.
            last_seq = events[-1].sequence_number if events else head.highest
            kept = added if "knowledge_in_context" in batch.fields else pending
            moved = replace(batch, knowledge=[KnowledgeRef.model_validate_json(ref) for ref in kept])
            entries.append(
                ("meta", {"Update": self._meta_update(pk.removeprefix("SESSION#"), moved, last_seq, now)})
            )
        if blob_items:
            self._batch_write([{"PutRequest": {"Item": part}} for part in blob_items])
        if len(entries) == 1:
            self._client.put_item(**entries[0][1]["Put"])
        else:
            try:
                self._client.transact_write_items(
                    TransactItems=[entry for _, entry in entries], ClientRequestToken=uuid4().hex
                )
            except Exception as exc:
                codes = _cancellation_reasons(exc)
                if codes is not None:
                    exc.kinds = list(zip([k for k, _ in entries], codes, strict=False))  # type: ignore[attr-defined]
                raise
        new_head = _head_of(record)
        superseded = [
            pointer
            for key, pointer in head.states.items()
            if pointer.startswith("STATE#") and new_head.states.get(key) != pointer
        ]
        return new_head, superseded

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

    def _delete_superseded(self, pk: str, pointers: list[str]) -> None:
        """State items no head points to any more, with their BLOB parts (best effort: TTL is the
        backstop)."""
        for sk in pointers:
            try:
                response = self._client.delete_item(
                    TableName=self._table, Key={"PK": {"S": pk}, "SK": {"S": sk}}, ReturnValues="ALL_OLD"
                )
                self._delete_keys(_blob_keys(pk, response.get("Attributes") or {}, "value"))
            except Exception:
                logger.warning("could not delete superseded state item %s of %s", sk, pk, exc_info=True)

    # -- lease --------------------------------------------------------------------------------------

    def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        """Writes a marker holding the lease at the head's next slot (or over the head marker),
        unless another holder's lease there is still running."""
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        # The first attempt trusts the head this process last read or wrote (a turn loads its session
        # just before): the marker's write is conditional on that head, so a stale one costs a failed
        # write and a read, never a lost lease. Only a fresh read may refuse the lease.
        hint = self._cached_head(session_id)
        for attempt in range(APPEND_ATTEMPTS + 1):
            head = hint if attempt == 0 and hint is not None else self._read_head(session_id)
            now = self._clock().timestamp()
            other = head.holder is not None and not head.released and head.holder != holder
            if other and head.lease_until >= now:
                if head is hint:
                    continue
                raise LeaseHeld(f"session {session_id} is busy with another turn")
            if self._write_marker(session_id, head, _lease_fields(holder, now + ttl_seconds)):
                return head.holder if other else None
        raise LeaseHeld(f"session {session_id} is busy with another turn")

    def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        for _ in range(APPEND_ATTEMPTS):
            head = self._read_head(session_id)
            if head.holder != holder or head.released:
                raise LeaseHeld(f"the lease on session {session_id} was taken over")
            until = self._clock().timestamp() + ttl_seconds
            if self._write_marker(session_id, head, _lease_fields(holder, until)):
                return
        raise LeaseHeld(f"the lease on session {session_id} kept moving")

    def release_lease(self, session_id: str, holder: str) -> None:
        for _ in range(APPEND_ATTEMPTS):
            head = self._read_head(session_id)
            if head.holder != holder or head.released:
                logger.info("lease on %s not released: no longer held by %s", session_id, holder)
                return
            fields = _lease_fields(holder, self._clock().timestamp())
            fields["released"] = {"BOOL": True}
            if self._write_marker(session_id, head, fields):
                return
        logger.warning("lease on %s not released: the head kept moving", session_id)

    def _write_marker(self, session_id: str, head: _Head, lease: Item) -> bool:
        """A marker record with `lease` as the new head; False when the head moved meanwhile."""
        pk = _pk(session_id)
        fields = {**_pending_knowledge(head.knowledge), **lease}
        item, _ = self._record_item(
            pk, [], {}, fields, head.states, self._expires_at(self._now()), slot=head.next_slot
        )
        item["legacy_states"] = {"BOOL": head.legacy_states}
        try:
            self._client.put_item(TableName=self._table, Item=item, **head.slot_condition())
        except Exception as exc:
            if _is_condition_failure(exc):
                return False
            raise
        self._remember_head(session_id, _head_of(item))
        return True

    # -- state --------------------------------------------------------------------------------------

    def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        """The value the head points to: inside the record of the commit that set it, or in a
        state item; sessions written before the log layout keep theirs in `STATE#<key>`."""
        if not _valid_id(session_id) or not _valid_id(key):
            return None
        pk = _pk(session_id)
        pointer = self._read_head(session_id).states.get(key)
        if pointer == NO_STATE:
            return None
        item = self._get_live_item(pk, pointer or _state_sk(key))
        if item is None:
            return None
        if item.get("kind", {}).get("S") == KIND_EVENTS:
            value = self._decode_payload(pk, item, "body").get("states", {}).get(key)
            return cast(dict[str, Any] | None, value)
        return cast(dict[str, Any], self._decode_payload(pk, item, "value"))

    def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None:
        if not _valid_id(key):
            raise ValueError("state key must be a non-empty printable string")
        if not isinstance(value, dict):
            raise ValueError("state value must be a dict")
        self.commit(session_id, SessionBatch(states={key: value}))

    def delete_state(self, session_id: str, key: str) -> None:
        if not _valid_id(key):
            return
        self.commit(session_id, SessionBatch(states={key: None}))

    # -- a whole account (export) -------------------------------------------------------------------

    def user_sessions(self, user_id: str) -> Iterator[Session]:
        """Every live session of the user, newest first, read a page at a time."""
        return self._user_sessions(user_id, active_only=False)

    def states(self, session_id: str) -> dict[str, Any]:
        """Every live state value of a session, by key: the keys the head points to and those of state
        items (sessions written before the log layout, values kept in items of their own), each read
        as get_state reads it."""
        if not _valid_id(session_id):
            return {}
        pk = _pk(session_id)
        query = {
            "TableName": self._table,
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :state)",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":state": {"S": "STATE#"}},
            "ProjectionExpression": "SK",
            "ConsistentRead": True,
        }
        keys = {item["SK"]["S"].removeprefix("STATE#").split("#")[0] for item in self._query(query)}
        keys |= set(self._read_head(session_id).states)
        values = {key: self.get_state(session_id, key) for key in sorted(keys)}
        return {key: value for key, value in values.items() if value is not None}

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

    def _cached_head(self, session_id: str) -> _Head | None:
        """The head this store last wrote or read: a guess its conditional writes verify."""
        with self._hints_lock:
            return self._heads.get(session_id)

    def _remember_head(self, session_id: str, head: _Head) -> None:
        """Remembers `head` unless a newer one is known (a read that raced a commit can finish
        after it)."""
        with self._hints_lock:
            known = self._heads.get(session_id)
            if known is not None and known.next_slot > head.next_slot:
                return
            self._heads[session_id] = head
            self._heads.move_to_end(session_id)
            while len(self._heads) > 4096:
                self._heads.popitem(last=False)

    def _read_head(self, session_id: str) -> _Head:
        names = {f"#h{index}": name for index, name in enumerate(HEAD_ATTRIBUTES)}
        response = self._client.query(
            TableName=self._table,
            KeyConditionExpression="PK = :pk AND begins_with(SK, :event)",
            ExpressionAttributeValues={":pk": {"S": _pk(session_id)}, ":event": {"S": "EVENT#"}},
            ExpressionAttributeNames=names,
            ProjectionExpression=", ".join(names),
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        )
        items = response.get("Items", [])
        head = _head_of(items[0] if items else None)
        self._remember_head(session_id, head)
        return head

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
