"""What every step of the program pipeline is given and may answer: its dependencies (`ProgramDeps`),
the refusal a user can read (`ProgramError`), the events it publishes and how they are published, and
a failed agent run in the user's words."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, runtime_checkable

from trainer.agents.factory import AgentFailed, AgentRunDeps
from trainer.services.usage_limits import UsageLimits
from trainer.store.db import Database

PLAN_REQUESTED, WEEK_DUE, WORKOUT_READY = "PlanRequested", "WeekDue", "WorkoutReady"
DEFAULT_MORNING_HOUR = 6


class EventPublisher(Protocol):
    """What publishes the pipeline's events (structurally `trainer.chat.ports.EventPublisher`)."""

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None: ...


@runtime_checkable
class BatchPublisher(Protocol):
    async def publish_many(self, events: Sequence[tuple[str, dict[str, Any]]]) -> None: ...


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ProgramDeps:
    db: Database
    agents: AgentRunDeps
    """Unbound: the pipeline runs each agent `for_user`."""
    publisher: EventPublisher | None = None
    """None: each step runs inline instead of publishing its event."""
    now: Callable[[], datetime] = _utcnow
    morning_hour: int = DEFAULT_MORNING_HOUR
    """The local hour the morning message goes out (TRAINER_MORNING_HOUR)."""
    limits: UsageLimits | None = None
    """Each plan and import is reserved against the user's daily budget before any agent runs."""


ErrorCode = Literal[
    "not_found", "no_active_plan", "invalid_request", "build_failed", "too_large", "in_progress"
]


class ProgramError(Exception):
    """A refusal with a message the user can read (the API maps not_found to 404, invalid_request to 422,
    no_active_plan to 409)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message


def failure_message(what: str, exc: AgentFailed) -> str:
    if exc.kind == "timeout":
        reason = "the planning model did not answer in time"
    elif exc.kind == "model_error":
        reason = "the planning model is not available right now"
    else:
        reason = (
            "; ".join(e.strip().rstrip(".") for e in exc.errors[:2] if e.strip()) or "it failed its checks"
        )
    hint = " Please try again; fewer training days or a shorter plan can help." if what == "plan" else ""
    return f"Your {what} could not be built: {reason}.{hint}"[:1000]


async def publish_all(publisher: EventPublisher, detail_type: str, details: Sequence[dict[str, Any]]) -> None:
    if not details:
        return
    if isinstance(publisher, BatchPublisher):
        await publisher.publish_many([(detail_type, d) for d in details])
        return
    for detail in details:
        await publisher.publish(detail_type, detail)
