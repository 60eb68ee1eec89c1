"""The sessions table through boto3: `DynamoSessionTable`, the blocking operations the async store runs
in worker threads. It keeps the sessions' own life (created, read, listed, updated, deleted, erased)
and hands the log to its parts: the head (head.py), the lease (lease.py), commits (commit.py), event
reads (records.py) and state reads (state.py); the item layout is in keys.py."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any
from uuid import uuid4

from trainer.settings import SessionTableSettings
from trainer.store.dynamo_tables import aws_client
from trainer.store.models import Event, EventPage, EventType, KnowledgeRef, Session
from trainer.store.ports import LeaseHeld, SessionBatch, SessionNotFound
from trainer.store.sessions.codec import number
from trainer.store.sessions.commit import LogWriter
from trainer.store.sessions.head import (
    APPEND_ATTEMPTS,
    Heads,
    head_of,
    lease_fields,
    live_lease_until,
    tombstone_fields,
)
from trainer.store.sessions.items import Clock, TableItems, is_condition_failure, utc_now
from trainer.store.sessions.keys import MAX_ID_LENGTH, MAX_SEQ, META, event_sk, session_pk, valid_id
from trainer.store.sessions.lease import SessionLease
from trainer.store.sessions.meta import (
    ADDITIVE_FIELDS,
    APPEND_KNOWLEDGE,
    UPDATABLE_FIELDS,
    SessionMeta,
    encoded_refs,
    field_attribute,
    validated_field,
)
from trainer.store.sessions.records import read_events
from trainer.store.sessions.state import state_value, state_values

MAX_LIST_LIMIT = 100
DELETE_LEASE_SECONDS = 60


@dataclass(frozen=True)
class ErasedSession:
    """What erasing a session did: the items deleted, and until when its tombstone must stay (0: the
    session is gone whole)."""

    deleted: int
    fenced_until: float


class DynamoSessionTable:
    """The sessions table through boto3. Thread-safe; every method is blocking."""

    def __init__(
        self, settings: SessionTableSettings, client: Any = None, clock: Clock | None = None
    ) -> None:
        self._settings = settings
        self._clock = clock or utc_now
        self.items = TableItems(
            settings, client if client is not None else aws_client("dynamodb", settings), self._clock
        )
        self._heads = Heads(self.items)
        self._meta = SessionMeta(self.items)
        self._lease = SessionLease(self.items, self._heads)
        self._log = LogWriter(self.items, self._heads, self._meta)

    @property
    def client(self) -> Any:
        """The boto3 DynamoDB client (shared with the other stores of the same table)."""
        return self.items.client

    @property
    def _client(self) -> Any:
        return self.items.client

    @_client.setter
    def _client(self, client: Any) -> None:
        """Every part of the table calls through the new client from now on (a test wrapping it)."""
        self.items.client = client

    # -- sessions ---------------------------------------------------------------------------------

    def create_session(self, user_id: str) -> Session:
        if not valid_id(user_id):
            raise ValueError("user_id must be a non-empty printable string")
        now = self.items.now()
        session = Session(
            id=str(uuid4()),
            user_id=user_id,
            created_at=now,
            updated_at=now,
            expires_at=self.items.expires_at(now),
        )
        self._meta.put_new(session)
        # a new session's log is empty: its first lease needs no read of the head
        self._heads.remember(session.id, head_of(None))
        return session

    def get_or_create_session(self, user_id: str, session_id: str | None = None) -> Session:
        if session_id:
            return self.get_session(user_id, session_id)
        active = next(self._meta.of_user(user_id, active_only=True), None)
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
        """META with the log's head on it: the highest sequence and the knowledge added since."""
        if not valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        session = self._meta.read(session_id)
        if session is None:
            raise SessionNotFound(session_id)
        head = self._heads.read(session_id)
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
        for session in self._meta.of_user(user_id, active_only=False):
            sessions.append(session)
            if len(sessions) == limit:
                break
        return sessions

    def user_sessions(self, user_id: str) -> Iterator[Session]:
        """Every live session of the user, newest first, read a page at a time (an account's export)."""
        return self._meta.of_user(user_id, active_only=False)

    def delete_session(self, user_id: str, session_id: str) -> None:
        """Takes the lease, deletes META and every item but the lease's marker, which stays (until it
        expires) as a tombstone holding the lease: a turn that outlived its lease finds its next slot
        taken, a lease-less write is refused, so nothing lands in a deleted session. The tombstone is
        indexed under the owner's account digest, so the account's deletion finds it."""
        self.get_session(user_id, session_id)
        pk = session_pk(session_id)
        deleter = f"delete:{uuid4().hex}"
        self.acquire_lease(session_id, deleter, DELETE_LEASE_SECONDS)
        try:
            self.items.client.delete_item(
                TableName=self.items.name,
                Key={"PK": {"S": pk}, "SK": {"S": META}},
                ConditionExpression="user_id = :uid",
                ExpressionAttributeValues={":uid": {"S": user_id}},
            )
        except Exception as exc:
            if is_condition_failure(exc):
                raise SessionNotFound(session_id) from exc
            raise
        marker = self._heads.cached(session_id) or self._heads.read(session_id)
        self.items.delete_all_but(pk, marker.slot)
        tombstone = replace(marker, states={})
        fields = {**lease_fields(deleter, float(MAX_SEQ)), **tombstone_fields(user_id, session_id, 0.0)}
        self._lease.write_marker(session_id, tombstone, fields)
        self._heads.forget(session_id)

    def erase(self, session_id: str, user_id: str, holder: str, ttl_seconds: int) -> ErasedSession:
        """Erases a session whoever holds it (account deletion). A tombstone takes the lease at the next
        slot (a turn still running there finds its slot taken, LeaseHeld, and writes nothing more; a
        lease-less write is refused), then META and every other item go. While the lease it took over
        may still be held by a turn that has not noticed (`fence_until`: that lease's end, or the fence
        an earlier tombstone carried), the tombstone stays, indexed under the account's digest for the
        next erase; after it, the tombstone goes too and nothing of the session is left. Idempotent."""
        pk = session_pk(session_id)
        now = self.items.seconds()
        for _ in range(APPEND_ATTEMPTS):
            head = self._heads.read(session_id)
            if head.kind is None and head.slot == 0 and not self.items.partition_keys(pk):
                self._heads.forget(session_id)
                return ErasedSession(0, 0.0)
            fence = live_lease_until(head, now)
            tombstone = replace(head, states={}, knowledge=())
            fields = {
                **lease_fields(holder, now + ttl_seconds),
                **tombstone_fields(user_id, session_id, fence),
            }
            if self._lease.write_marker(session_id, tombstone, fields):
                break
        else:
            raise LeaseHeld(f"session {session_id} kept moving while it was erased")
        written = self._heads.cached(session_id) or self._heads.read(session_id)
        deleted = self.items.delete_all_but(pk, written.slot)
        self._heads.forget(session_id)
        if fence:
            return ErasedSession(deleted, fence)
        try:
            self.items.client.delete_item(
                TableName=self.items.name,
                Key={"PK": {"S": pk}, "SK": {"S": event_sk(written.slot)}},
                ConditionExpression="#token = :token",
                ExpressionAttributeNames={"#token": "token"},
                ExpressionAttributeValues={":token": {"S": written.token or ""}},
            )
        except Exception as exc:
            if not is_condition_failure(exc):
                raise
            return ErasedSession(deleted, now)  # another eraser moved it: the next erase finishes
        return ErasedSession(deleted + 1, 0.0)

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
            value = validated_field(name, raw)
            names[f"#f{index}"] = name
            values[f":v{index}"] = field_attribute(name, value)
            assignments.append(f"#f{index} = :v{index}")
        known = self._heads.cached(session_id)
        if known is not None:
            assignments.append("last_seq = :known_seq")
            values[":known_seq"] = number(known.highest)
        return self._meta.update(session_id, assignments, names, values)

    def add_knowledge(self, session_id: str, refs: list[KnowledgeRef]) -> None:
        encoded = encoded_refs(refs)
        if not encoded:
            return
        self._meta.update(
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
        values = {f":a{i}": number(increments[name]) for i, name in enumerate(sorted(increments))}
        additions = ", ".join(f"#a{i} :a{i}" for i in range(len(increments)))
        return self._meta.update(session_id, [], names, values, add=additions)

    # -- the log: events, commits, the lease, state -----------------------------------------------

    def append_event(
        self,
        session_id: str,
        event_type: EventType,
        data: dict[str, Any],
        duration_ms: int | None = None,
    ) -> Event:
        """One event on its own at the head's next slot (the session's head is read first when this
        process knows none)."""
        if not valid_id(session_id):
            raise SessionNotFound(str(session_id)[:MAX_ID_LENGTH])
        now = self.items.now()
        head = self._heads.cached(session_id)
        if head is None:
            self.load_session(session_id)
            head = self._heads.cached(session_id) or head_of(None)
        return self._log.append(session_id, head, event_type, data, duration_ms, now)

    def read_events(
        self,
        session_id: str,
        after: int = 0,
        limit: int | None = None,
        types: frozenset[EventType] | None = None,
    ) -> EventPage:
        return read_events(self.items, session_id, after, limit, types)

    def commit(self, session_id: str, batch: SessionBatch) -> None:
        self._log.commit(session_id, batch)

    def acquire_lease(self, session_id: str, holder: str, ttl_seconds: int) -> str | None:
        return self._lease.acquire(session_id, holder, ttl_seconds)

    def renew_lease(self, session_id: str, holder: str, ttl_seconds: int) -> None:
        self._lease.renew(session_id, holder, ttl_seconds)

    def release_lease(self, session_id: str, holder: str) -> None:
        self._lease.release(session_id, holder)

    def get_state(self, session_id: str, key: str) -> dict[str, Any] | None:
        return state_value(self.items, self._heads, session_id, key)

    def states(self, session_id: str) -> dict[str, Any]:
        """Every live state value of a session, by key (an account's export)."""
        return state_values(self.items, self._heads, session_id)

    def put_state(self, session_id: str, key: str, value: dict[str, Any]) -> None:
        if not valid_id(key):
            raise ValueError("state key must be a non-empty printable string")
        if not isinstance(value, dict):
            raise ValueError("state value must be a dict")
        self.commit(session_id, SessionBatch(states={key: value}))

    def delete_state(self, session_id: str, key: str) -> None:
        if not valid_id(key):
            return
        self.commit(session_id, SessionBatch(states={key: None}))
