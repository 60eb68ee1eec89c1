"""Requests one unit of work (a request, a turn) sends to the stores, counted across the tasks and worker
threads it starts: `counting()` opens a tally in the current context, which asyncio tasks and
`asyncio.to_thread` carry along; the DynamoDB client and the Postgres cursor add to it. Tallies nest: a
turn's tally inside a request's adds to both, so the request's counts include its turn."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RequestCounts:
    dynamodb: int = 0
    sql: int = 0
    parent: RequestCounts | None = field(default=None, repr=False, compare=False)
    marks: dict[str, dict[str, int]] = field(default_factory=dict, repr=False, compare=False)
    """Counts at named moments (`mark`), e.g. when a stream's first frame was ready to send."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, *, dynamodb: int = 0, sql: int = 0) -> None:
        with self._lock:
            self.dynamodb += dynamodb
            self.sql += sql
        if self.parent is not None:
            self.parent.add(dynamodb=dynamodb, sql=sql)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return {"dynamodb": self.dynamodb, "sql": self.sql}

    def mark(self, name: str) -> None:
        """Notes the counts now under `name` in this tally and the ones it nests in (the first mark of
        a name stands)."""
        tally: RequestCounts | None = self
        while tally is not None:
            if name not in tally.marks:
                tally.marks[name] = tally.snapshot()
            tally = tally.parent


_CURRENT: ContextVar[RequestCounts | None] = ContextVar("trainer_request_counts", default=None)


@contextmanager
def counting() -> Iterator[RequestCounts]:
    counts = RequestCounts(parent=_CURRENT.get())
    token = _CURRENT.set(counts)
    try:
        yield counts
    finally:
        _CURRENT.reset(token)


def mark(name: str) -> None:
    """Notes the current tally's counts under `name` (nothing outside a tally)."""
    counts = _CURRENT.get()
    if counts is not None:
        counts.mark(name)


FIRST_FRAME = "first_frame"
"""The mark a stream sets when its first frame is ready to send."""


def count_dynamodb_request(**_: Any) -> None:
    """A botocore `before-call.dynamodb` handler."""
    counts = _CURRENT.get()
    if counts is not None:
        counts.add(dynamodb=1)


def count_sql_statement() -> None:
    counts = _CURRENT.get()
    if counts is not None:
        counts.add(sql=1)
