"""The checkpoint job (docs/architecture.md#events-on-the-bus): a TurnCompleted event whose context passed the
threshold checkpoints the session under its lease (trainer.chat.checkpoint does the work)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from trainer.chat.checkpoint import StateProvider, needs_checkpoint, run_checkpoint
from trainer.chat.turn_completed import parse_turn_completed
from trainer.settings import CheckpointSettings
from trainer.store.ports import SessionNotFound, SessionStore

logger = logging.getLogger(__name__)


class AccountTombstones(Protocol):
    """Whether an account was deleted (trainer.store.account_records.DynamoAccountRecords)."""

    async def has_tombstone(self, user_id: str) -> bool: ...


@dataclass
class CheckpointDeps:
    settings: CheckpointSettings
    store: SessionStore
    state_provider: StateProvider | None = None
    tombstones: AccountTombstones | None = None
    """A late TurnCompleted of a deleted account checkpoints nothing."""

    @classmethod
    def from_settings(cls, settings: CheckpointSettings) -> CheckpointDeps:
        """The production wiring: the checkpoint keeps the user's temporary preferences and location,
        read from the database named by the settings (its secret resolved on the first checkpoint)."""
        from trainer.chat import session_state
        from trainer.store.account_records import DynamoAccountRecords
        from trainer.store.sessions import DynamoSessionStore

        store = DynamoSessionStore(settings)
        return cls(
            settings=settings,
            store=store,
            state_provider=session_state.from_url(_database_url(settings)),
            tombstones=DynamoAccountRecords(settings, client=store.table.client),
        )


def _database_url(settings: CheckpointSettings) -> Callable[[], Awaitable[str | None]]:
    resolved: list[str | None] = []

    async def url() -> str | None:
        if not resolved:
            from trainer.runtime_secrets import resolve_runtime_secrets

            resolved.append((await asyncio.to_thread(resolve_runtime_secrets, settings)).database_url)
        return resolved[0]

    return url


def handle_turn_completed(event: dict[str, Any], context: Any, deps: CheckpointDeps) -> dict[str, Any]:
    """Lambda entry for TurnCompleted. Raises InvalidTurnEvent for a malformed event and LeaseHeld
    while a turn holds the session, so the invocation is retried (then sent to the failure queue)."""
    turn = parse_turn_completed(event)
    if not needs_checkpoint(turn.context_tokens_estimate, deps.settings):
        return {"session_id": turn.session_id, "checkpointed": False, "reason": "below_threshold"}
    if deps.tombstones is not None and asyncio.run(deps.tombstones.has_tombstone(turn.user_id)):
        return {"session_id": turn.session_id, "checkpointed": False, "reason": "account_deleted"}
    try:
        checkpoint = asyncio.run(
            run_checkpoint(
                deps.store, turn.session_id, state_provider=deps.state_provider, covers_through=turn.last_seq
            )
        )
    except SessionNotFound:
        logger.warning("session gone before checkpoint", extra={"session_id": turn.session_id})
        return {"session_id": turn.session_id, "checkpointed": False, "reason": "session_not_found"}
    if checkpoint is None:
        return {"session_id": turn.session_id, "checkpointed": False, "reason": "already_checkpointed"}
    return {"session_id": turn.session_id, "checkpointed": True, "sequence": checkpoint.sequence_number}
