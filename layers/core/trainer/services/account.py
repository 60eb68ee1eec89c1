"""A whole account: is it deleted, delete it, export it (docs/api.md#account-deletion-and-data-export).

Deletion is irreversible and idempotent. In order:
1. the Postgres tombstone (`deleted_accounts`, keyed by a digest of the id): from its commit on, the API
   refuses the user's tokens and no `users` row can be made for them again (a trigger);
2. the DynamoDB tombstone (the jobs that only reach DynamoDB check it);
3. each registered `AccountEraser` (what lives elsewhere: push endpoints...), while the rows they may read
   (a device's endpoint) are still there; if one fails, the deletion stops here, incomplete;
4. one transaction deletes the user's rows of every user table (read from the schema:
   trainer.store.repositories.accounts), children first; with the users row gone, no row of theirs can be
   written anywhere;
5. every DynamoDB item of the user (`AccountRecords.erase`), twice (a session GSI1 did not show yet),
   then the tombstone is marked complete. Every writer of the user's items checks the DynamoDB tombstone
   in the transaction that writes (trainer.store.account_records), so nothing can be created after it; a
   session whose lease a turn held keeps its tombstone marker (holding the lease, so that turn writes
   nothing more) until the lease runs out (`fenced_until`).
Step 5 stops at a deadline, and while a marker must stay: the report says `complete=False` (with
`fenced_until`, when to come back) and the next `delete` resumes and finishes (steps 1-4 are cheap to
repeat). `complete` means nothing more can be written for the account. Only a count summary is logged,
never the user.

The export streams JSON (`export`): the user's rows of every user table through server-side cursors in one
read-only snapshot, then each session with its state and events a page at a time, then the `USER#` items,
in chunks through a bounded queue, so memory stays flat however long the history.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from trainer.services.rows import plain
from trainer.services.scope import UserRef, user_key
from trainer.store.ports import AccountDeleted
from trainer.store.repositories import accounts as repo

if TYPE_CHECKING:
    from trainer.store.account_records import ErasedItems
    from trainer.store.db import Database
    from trainer.store.models import Event, Session

__all__ = [
    "AccountDeleted",
    "AccountEraser",
    "AccountRecords",
    "AccountService",
    "DeletionReport",
    "ExportShapes",
    "StoredShapes",
]

logger = logging.getLogger(__name__)

DELETION_BUDGET_S = 20.0
"""How long a deletion works on DynamoDB and the erasers before it answers `complete=False` (API Gateway
gives up at 29 s); the next deletion resumes."""
DELETED_CACHE_SIZE = 100_000
"""Deleted accounts each process remembers (deletion is irreversible, so a remembered one is never
asked again); an account not remembered costs one key lookup."""
EXPORT_FORMAT = "trainer.account-export"
EXPORT_VERSION = 1
EXPORT_CHUNK_BYTES = 64 * 1024
EXPORT_QUEUE_CHUNKS = 4
"""Chunks written ahead of the client: the most an export holds besides one page of rows."""


class AccountEraser(Protocol):
    """Data of a user held outside Postgres and the sessions table (an SNS platform endpoint, a file
    store...). The composition root registers them (trainer.container.ACCOUNT_ERASERS); a deletion calls
    each once the tombstones are written, and again on a repeated deletion, so `erase` must be idempotent."""

    name: str
    """A short label for the audit line (`sns_endpoints`)."""

    async def erase(self, user_id: str) -> int:
        """Erase everything of the user; how many things were erased."""
        ...


class AccountRecords(Protocol):
    """The user's items in DynamoDB (trainer.store.account_records.DynamoAccountRecords)."""

    async def put_tombstone(self, user_id: str) -> None: ...

    async def erase(self, user_id: str, deadline: float | None = None) -> ErasedItems:
        """Deletes the user's items; `complete=False` (with `fenced_until` when a session's marker must
        stay until then) when something is left for the next erase."""
        ...

    def sessions(self, user_id: str) -> AsyncIterator[Session]: ...

    def events(self, session_id: str) -> AsyncIterator[list[Event]]: ...

    async def states(self, session_id: str) -> dict[str, Any]: ...

    async def user_items(self, user_id: str) -> list[dict[str, Any]]: ...


class ExportShapes(Protocol):
    """How the export writes a session and an event (JSON text): the API hands the published
    contract's shapes (every field the schema requires, private keys left out)."""

    def session(self, session: Session) -> str: ...

    def event(self, event: Event) -> str: ...


class StoredShapes:
    """Sessions and events as stored."""

    def session(self, session: Session) -> str:
        return session.model_dump_json()

    def event(self, event: Event) -> str:
        return event.model_dump_json()


@dataclass
class DeletionReport:
    """What a deletion did: counts only (the audit line), never the user."""

    complete: bool
    deleted_at: datetime
    already_complete: bool = False
    postgres_rows: dict[str, int] = field(default_factory=dict)
    dynamodb_items: int = 0
    sessions: int = 0
    external: dict[str, int] = field(default_factory=dict)
    fenced_until: float = 0.0
    """When incomplete because a turn may still hold a session's lease: the epoch second it runs out
    (the next deletion can finish then)."""
    duration_ms: int = 0
    phase_ms: dict[str, int] = field(default_factory=dict)
    """How long each step took: tombstone, erasers, postgres, dynamodb."""

    def audit(self) -> dict[str, Any]:
        return {
            "complete": self.complete,
            "already_complete": self.already_complete,
            "postgres_rows": sum(self.postgres_rows.values()),
            "postgres_tables": sum(1 for count in self.postgres_rows.values() if count),
            "dynamodb_items": self.dynamodb_items,
            "sessions": self.sessions,
            "external": dict(self.external),
            "fenced": bool(self.fenced_until),
            "duration_ms": self.duration_ms,
            "phase_ms": dict(self.phase_ms),
        }


class AccountService:
    """`db`: the domain database (None: nothing to delete, nobody deleted); `records`: the DynamoDB side
    (None: no sessions table)."""

    def __init__(
        self,
        db: Database | None,
        records: AccountRecords | None = None,
        erasers: Sequence[AccountEraser] = (),
        *,
        budget_seconds: float = DELETION_BUDGET_S,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._db = db
        self._records = records
        self.erasers: list[AccountEraser] = list(erasers)
        self._budget = budget_seconds
        self._clock = clock
        self._deleted: OrderedDict[str, None] = OrderedDict()

    # -- the tombstone ------------------------------------------------------------------------------

    async def is_deleted(self, user_id: UserRef) -> bool:
        """Whether the account was deleted: remembered once seen, else one key lookup."""
        key = str(user_key(user_id))
        if key in self._deleted:
            return True
        if self._db is None:
            return False
        async with self._db.connection() as conn:
            found = await repo.tombstone(conn, key) is not None
        if found:
            self._remember(key)
        return found

    async def refuse_if_deleted(self, user_id: UserRef) -> None:
        """Raises AccountDeleted for a deleted account."""
        if await self.is_deleted(user_id):
            raise AccountDeleted("the account was deleted")

    def _remember(self, key: str) -> None:
        self._deleted[key] = None
        while len(self._deleted) > DELETED_CACHE_SIZE:
            self._deleted.popitem(last=False)

    # -- deletion -----------------------------------------------------------------------------------

    async def delete(self, user_id: str) -> DeletionReport:
        """Erase everything the system holds for the user (see the module docstring); idempotent: a
        deleted account's deletion resumes what is left, or does nothing once complete."""
        if self._db is None:
            raise RuntimeError("account deletion needs the domain database")
        started = time.monotonic()
        deadline = started + self._budget
        key = user_key(user_id)
        async with self._db.transaction() as conn:
            await repo.lock_account(conn, key)
            stone = await repo.add_tombstone(conn, key)
        self._remember(str(key))
        report = DeletionReport(complete=True, deleted_at=stone["deleted_at"])
        if stone["completed_at"] is not None:
            report.already_complete = True
            return self._audited(report, started)
        if self._records is not None:
            await self._records.put_tombstone(user_id)
        phase = report.phase_ms
        mark = _Stopwatch()
        phase["tombstone"] = mark.lap(started)
        for eraser in self.erasers:
            try:
                report.external[eraser.name] = await eraser.erase(user_id)
            except Exception as exc:
                logger.warning(
                    "account eraser failed", extra={"eraser": eraser.name, "error": type(exc).__name__}
                )
                report.complete = False
        phase["erasers"] = mark.lap()
        if not report.complete:
            # The erasers read what they erase from the user's rows (a device's endpoint): the rows stay
            # until every eraser succeeded; the tombstone already refuses the account everywhere.
            return self._audited(report, started)
        async with self._db.transaction() as conn:
            await repo.lock_account(conn, key)
            report.postgres_rows = await repo.erase_rows(conn, key, await repo.user_tables(conn))
        phase["postgres"] = mark.lap()
        if self._records is not None:
            self._count(report, await self._records.erase(user_id, deadline))
            if report.complete:
                self._count(report, await self._records.erase(user_id, deadline))
        phase["dynamodb"] = mark.lap()
        if report.complete:
            async with self._db.connection() as conn:
                await repo.complete_tombstone(conn, key)
        return self._audited(report, started)

    @staticmethod
    def _count(report: DeletionReport, erased: ErasedItems) -> None:
        report.dynamodb_items += erased.items
        report.sessions += erased.sessions
        report.complete = report.complete and erased.complete
        report.fenced_until = max(report.fenced_until, erased.fenced_until)

    @staticmethod
    def _audited(report: DeletionReport, started: float) -> DeletionReport:
        report.duration_ms = int((time.monotonic() - started) * 1000)
        logger.info(
            "account deleted" if report.complete else "account deletion incomplete", extra=report.audit()
        )
        return report

    # -- export -------------------------------------------------------------------------------------

    async def export(self, user_id: str, shapes: ExportShapes | None = None) -> AsyncIterator[bytes]:
        """The account as one JSON document (the `AccountExport` schema), in chunks of about
        EXPORT_CHUNK_BYTES; the last key, `complete: true`, tells a whole download from a cut one.
        `shapes` writes each session and event as the published contract has them (the API's models;
        default: as stored)."""
        if self._db is None:
            raise RuntimeError("the export needs the domain database")
        queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue(maxsize=EXPORT_QUEUE_CHUNKS)
        producer = asyncio.create_task(
            self._produce(user_id, queue, shapes or StoredShapes()), name="account-export"
        )
        try:
            while (chunk := await queue.get()) is not None:
                if isinstance(chunk, BaseException):
                    raise chunk
                yield chunk
        finally:
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await producer

    async def _produce(
        self, user_id: str, queue: asyncio.Queue[bytes | BaseException | None], shapes: ExportShapes
    ) -> None:
        out = _ChunkWriter(queue)
        try:
            await self._write(user_id, out, shapes)
            await out.flush()
            await queue.put(None)
        except Exception as exc:
            await queue.put(exc)

    async def _write(self, user_id: str, out: _ChunkWriter, shapes: ExportShapes) -> None:
        assert self._db is not None
        key = user_key(user_id)
        head = {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "exportedAt": self._clock(),
            "userId": user_id,
        }
        await out.write(_dumps(head)[:-1] + ',"tables":{')
        async with self._db.connection() as conn, conn.transaction():
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            for index, table in enumerate(reversed(await repo.user_tables(conn))):
                await out.write(("," if index else "") + _dumps(table.name) + ":[")
                first = True
                async for row in repo.rows_of(conn, table, key):
                    await out.write(("" if first else ",") + _dumps(plain(row)))
                    first = False
                await out.write("]")
        await out.write('},"sessions":[')
        if self._records is not None:
            first_session = True
            async for session in self._records.sessions(user_id):
                state = await self._records.states(session.id)
                await out.write(
                    ("" if first_session else ",")
                    + '{"session":'
                    + shapes.session(session)
                    + ',"state":'
                    + _dumps(state)
                    + ',"events":['
                )
                first_session = False
                first_event = True
                async for page in self._records.events(session.id):
                    for event in page:
                        await out.write(("" if first_event else ",") + shapes.event(event))
                        first_event = False
                await out.write("]}")
        items = await self._records.user_items(user_id) if self._records is not None else []
        await out.write('],"userItems":' + _dumps(items) + ',"complete":true}')


class _Stopwatch:
    def __init__(self) -> None:
        self._last = time.monotonic()

    def lap(self, since: float | None = None) -> int:
        """Milliseconds since `since` (else the last lap)."""
        now = time.monotonic()
        elapsed = now - (self._last if since is None else since)
        self._last = now
        return int(elapsed * 1000)


class _ChunkWriter:
    def __init__(self, queue: asyncio.Queue[bytes | BaseException | None]) -> None:
        self._queue = queue
        self._parts: list[bytes] = []
        self._size = 0

    async def write(self, text: str) -> None:
        data = text.encode()
        self._parts.append(data)
        self._size += len(data)
        if self._size >= EXPORT_CHUNK_BYTES:
            await self.flush()

    async def flush(self) -> None:
        if self._parts:
            chunk = b"".join(self._parts)
            self._parts, self._size = [], 0
            await self._queue.put(chunk)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    converted = plain(value)
    if converted is value:
        raise TypeError(f"{type(value).__name__} is not JSON serialisable")
    return converted
