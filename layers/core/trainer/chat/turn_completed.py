"""The `TurnCompleted` event the API publishes after every turn (docs/architecture.md#events-on-the-bus), and
its parsing out of an EventBridge envelope for the job handlers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SOURCE = "trainer.agent"
DETAIL_TYPE = "TurnCompleted"


class TurnUsage(BaseModel):
    """Anthropic convention: input_tokens excludes cache reads and cache writes."""

    model_config = ConfigDict(extra="ignore")

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cache_creation_input_tokens: int = Field(default=0, ge=0)
    cache_read_input_tokens: int = Field(default=0, ge=0)


class TurnCompleted(BaseModel):
    model_config = ConfigDict(extra="ignore")

    turn_id: str = Field(min_length=1)
    session_id: str = Field(min_length=1)
    user_id: str = Field(min_length=1)
    first_seq: int = Field(ge=0)
    last_seq: int = Field(ge=0)
    context_tokens_estimate: int = Field(default=0, ge=0)
    model: str = ""
    status: Literal["completed", "error"] = "completed"
    usage: TurnUsage = Field(default_factory=TurnUsage)
    cost_cents: float = Field(default=0.0, ge=0)


class InvalidTurnEvent(ValueError):
    """The event is not a well-formed TurnCompleted; retrying cannot fix it."""


def parse_turn_completed(event: dict[str, Any]) -> TurnCompleted:
    """The detail of an EventBridge envelope (or a bare detail dict) as a TurnCompleted."""
    if not isinstance(event, dict):
        raise InvalidTurnEvent(f"expected an EventBridge event object, got {type(event).__name__}")
    detail_type = event.get("detail-type")
    if detail_type is not None and detail_type != DETAIL_TYPE:
        raise InvalidTurnEvent(f"unexpected detail-type {detail_type!r}, expected {DETAIL_TYPE!r}")
    detail = event.get("detail", event)
    try:
        return TurnCompleted.model_validate(detail)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'detail'}: {e['msg']}" for e in exc.errors())
        raise InvalidTurnEvent(f"invalid TurnCompleted detail: {problems}") from exc
