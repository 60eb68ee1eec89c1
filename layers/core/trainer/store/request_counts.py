"""Requests one unit of work (a turn) sends to the stores, counted across the tasks and worker threads
it starts: `counting()` opens a tally in the current context, which asyncio tasks and
`asyncio.to_thread` carry along; the DynamoDB client and the Postgres cursor add to it."""

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
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, *, dynamodb: int = 0, sql: int = 0) -> None:
        with self._lock:
            self.dynamodb += dynamodb
            self.sql += sql


_CURRENT: ContextVar[RequestCounts | None] = ContextVar("trainer_request_counts", default=None)


@contextmanager
def counting() -> Iterator[RequestCounts]:
    counts = RequestCounts()
    token = _CURRENT.set(counts)
    try:
        yield counts
    finally:
        _CURRENT.reset(token)


def count_dynamodb_request(**_: Any) -> None:
    """A botocore `before-call.dynamodb` handler."""
    counts = _CURRENT.get()
    if counts is not None:
        counts.add(dynamodb=1)


def count_sql_statement() -> None:
    counts = _CURRENT.get()
    if counts is not None:
        counts.add(sql=1)
