"""Session and event records as stored in DynamoDB (docs/architecture.md#sessions-events-and-the-lease)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field


class EventType(StrEnum):
    USER_MESSAGE = "user_message"
    LLM_REQUEST = "llm_request"
    LLM_RESPONSE = "llm_response"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    KNOWLEDGE = "knowledge"
    ERROR = "error"
    ARTIFACT = "artifact"
    CHECKPOINT = "checkpoint"
    TURN_END = "turn_end"
    """Closes every turn: `{outcome}` (replied, asked, failed, limit, refused)."""


CONTEXT_EVENT_TYPES: frozenset[EventType] = frozenset(
    {
        EventType.USER_MESSAGE,
        EventType.TOOL_CALL,
        EventType.TOOL_RESULT,
        EventType.KNOWLEDGE,
        EventType.ARTIFACT,
        EventType.CHECKPOINT,
    }
)

SessionStatus = Literal["active", "completed", "error"]

CURRENT_WORKOUT_KEY = "current_workout"
"""Session-state key of the workout being edited and performed (SessionStore.get_state/put_state)."""


class KnowledgeRef(BaseModel):
    """A data source already in context, with the parameters it was fetched with."""

    source: str
    params: dict[str, Any] = Field(default_factory=dict)


class Session(BaseModel):
    id: str
    user_id: str
    status: SessionStatus = "active"
    created_at: datetime
    updated_at: datetime
    context_start_sequence: int = 0
    last_seq: int = 0
    knowledge_in_context: list[KnowledgeRef] = Field(default_factory=list)
    total_tokens: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    total_cost_cents: float = 0.0
    cache_hit_rate: float = 0.0
    metadata: dict[str, Any] = Field(default_factory=dict)
    expires_at: int | None = None


class Event(BaseModel):
    session_id: str
    sequence_number: int
    event_type: EventType
    timestamp: datetime
    duration_ms: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class EventPage(BaseModel):
    events: list[Event]
    next_after: int | None = None
