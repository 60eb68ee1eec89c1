"""Every agent invocation, recorded once it is over (`agent_invocations`): agent, prompt version,
provider and model, tokens, cost, duration, attempts, the errors of each failed attempt, status. A
sub-agent's row names its parent's. Recording never fails the run it describes."""

from __future__ import annotations

import json
import logging
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from trainer.providers.ports import Usage
from trainer.store.db import Database

log = logging.getLogger(__name__)

Status = Literal["success", "failed"]


@dataclass
class InvocationRecord:
    id: str
    agent: str
    prompt_id: str
    prompt_version: int
    provider: str
    model: str
    status: Status
    attempts: int
    model_calls: int
    tool_calls: int
    usage: Usage
    cost_cents: float
    duration_ms: int
    started_at: datetime
    errors: list[dict[str, Any]] = field(default_factory=list)
    """One entry per failed attempt or callback: {attempt, kind, errors}."""
    error: str | None = None
    """Why the run failed (null on success)."""
    user_id: str | None = None
    parent_id: str | None = None


class InvocationRecorder(Protocol):
    async def record(self, record: InvocationRecord) -> None: ...


class MemoryInvocations:
    """Keeps the latest records in memory (unit tests, runs without a database)."""

    def __init__(self, limit: int = 1000) -> None:
        self.records: deque[InvocationRecord] = deque(maxlen=limit)

    async def record(self, record: InvocationRecord) -> None:
        self.records.append(record)


INSERT = """
INSERT INTO agent_invocations (
    id, parent_id, user_id, agent, prompt_id, prompt_version, provider, model, status, attempts,
    model_calls, tool_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
    cost_cents, duration_ms, validation_errors, error, started_at
) VALUES (
    %(id)s, %(parent_id)s, %(user_id)s, %(agent)s, %(prompt_id)s, %(prompt_version)s, %(provider)s,
    %(model)s, %(status)s, %(attempts)s, %(model_calls)s, %(tool_calls)s, %(input_tokens)s,
    %(output_tokens)s, %(cache_read_tokens)s, %(cache_write_tokens)s, %(cost_cents)s, %(duration_ms)s,
    %(validation_errors)s::jsonb, %(error)s, %(started_at)s
)
"""


def _params(record: InvocationRecord) -> dict[str, Any]:
    usage = record.usage
    return {
        "id": record.id,
        "parent_id": record.parent_id,
        "user_id": record.user_id,
        "agent": record.agent,
        "prompt_id": record.prompt_id,
        "prompt_version": record.prompt_version,
        "provider": record.provider,
        "model": record.model,
        "status": record.status,
        "attempts": record.attempts,
        "model_calls": record.model_calls,
        "tool_calls": record.tool_calls,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_input_tokens,
        "cache_write_tokens": usage.cache_creation_input_tokens,
        "cost_cents": round(record.cost_cents, 6),
        "duration_ms": record.duration_ms,
        "validation_errors": json.dumps(record.errors, ensure_ascii=False, default=str),
        "error": record.error,
        "started_at": record.started_at,
    }


class PostgresInvocations:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def record(self, record: InvocationRecord) -> None:
        try:
            async with self._db.connection() as conn:
                await conn.execute(INSERT, _params(record))
        except Exception:
            log.warning("could not record the invocation of %s (%s)", record.agent, record.id, exc_info=True)

    async def recent(
        self, *, agent: str | None = None, user_id: str | None = None, limit: int = 50
    ) -> list[dict[str, Any]]:
        """The latest rows, newest first, optionally of one agent or one user."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT * FROM agent_invocations"
                " WHERE (%(agent)s::text IS NULL OR agent = %(agent)s)"
                " AND (%(user_id)s::uuid IS NULL OR user_id = %(user_id)s::uuid)"
                " ORDER BY started_at DESC, created_at DESC LIMIT %(limit)s",
                {"agent": agent, "user_id": user_id, "limit": limit},
            )
            return [dict(row) for row in await cursor.fetchall()]
