"""What a chat turn answers (its ClientResponse), records and reports: the actions it took,
the turn's result, and the shapes its events and frames take."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from trainer.agents.tools import ToolOutcome
from trainer.frames import ToolResultFrame, TurnOutcome
from trainer.providers.ports import ModelError, ModelRequest, Usage
from trainer.store.ports import DatabaseUnavailable, StoreUnavailable

StopReason = Literal[
    "done", "awaiting_user", "max_iterations", "no_tool_call", "max_tokens", "refused", "error"
]
STOP_OUTCOMES: dict[str, TurnOutcome] = {
    "done": "replied",
    "refused": "refused",
    "awaiting_user": "asked",
    "max_iterations": "limit",
    "no_tool_call": "failed",
    "max_tokens": "limit",
    "error": "failed",
}
"""A turn's stop reason as its `turn_end` outcome."""
RAW_TEXT_LIMIT = 500
MODEL_UNAVAILABLE = "The trainer is unavailable right now. Please try again in a moment."
TURN_BROKE = "Something went wrong while preparing a reply. Please try again."
MODEL_REFUSED = "The trainer can't help with that request. Please ask something else."
"""The reply of a turn whose model declined (stop_reason `refusal`): the turn ends `refused` with it."""
DEGRADED_NOTICE = (
    "The full coach is unavailable right now and will be back soon; the basic coach answered this one."
)
DEGRADED_CODE = "model_degraded"
DEGRADED_EVENT = "The model was unavailable; the offline coach answered this turn."
"""The `error` event of a turn the fallback model answered (context `degraded`)."""
MAX_TOKENS_CODE = "max_tokens"


class TurnFailed(RuntimeError):
    """The model failed (after the one retry) or the turn broke; the turn was logged, the session
    marked `error`. `code` names the failure where the client may act on it."""

    def __init__(self, message: str, *, session_id: str, code: str | None = None) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.code = code


@dataclass
class Action:
    """One tool call of the turn with its outcome."""

    tool: str
    args: dict[str, Any]
    outcome: ToolOutcome

    def as_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "args": self.args, "result": self.outcome.result_json()}


@dataclass
class ClientResponse:
    """What the app shows of the turn: its messages, workout, question and timers."""

    messages: list[str]
    exercises: list[dict[str, Any]] | None = None
    question: dict[str, Any] | None = None
    timers: list[dict[str, Any]] | None = None
    """The timers the turn built or delivered (docs/architecture.md#tools)."""


@dataclass
class TurnResult:
    session_id: str
    actions: list[Action]
    iterations: int
    status: Literal["completed", "error"]
    response: ClientResponse
    stop_reason: StopReason
    turn_id: str = ""
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    cost_cents: float = 0.0
    duration_ms: int = 0
    model_errors: int = 0
    degraded: bool = False
    """The turn's model was unavailable and the fallback model answered it (degraded mode)."""
    model_ms: int = 0
    """Time spent waiting for models (the initializer's and the agent's calls)."""
    dynamodb_requests: int = 0
    sql_queries: int = 0

    @property
    def outcome(self) -> TurnOutcome:
        """How the turn ended, as its `turn_end` says."""
        return STOP_OUTCOMES.get(self.stop_reason, "failed")

    @property
    def tool_calls(self) -> list[tuple[str, bool]]:
        return [(a.tool, a.outcome.success) for a in self.actions]


def trim_raw(raw: dict[str, Any]) -> dict[str, Any]:
    """The provider response without tool inputs (they are in the tool_call event) and long text."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "content" and isinstance(value, list):
            blocks = []
            for block in value:
                if not isinstance(block, dict):
                    continue
                kept = {k: block[k] for k in ("type", "id", "name") if k in block}
                if isinstance(block.get("text"), str):
                    kept["text"] = block["text"][:RAW_TEXT_LIMIT]
                blocks.append(kept)
            out[key] = blocks
        elif isinstance(value, str):
            out[key] = value[:RAW_TEXT_LIMIT]
        elif _is_small(value):
            out[key] = value
    return out


def _is_small(value: Any) -> bool:
    if isinstance(value, (int, float, bool)) or value is None:
        return True
    return isinstance(value, dict) and len(str(value)) <= 2000


def token_usage(usage: Usage) -> dict[str, int]:
    """A model call's tokens: prompt excludes cache reads and writes (Anthropic convention;
    docs/architecture.md#tokens-and-cost)."""
    return {
        "prompt": usage.input_tokens,
        "completion": usage.output_tokens,
        "cached": usage.cache_read_input_tokens,
        "cache_write": usage.cache_creation_input_tokens,
        "total": usage.total_tokens,
    }


def request_summary(request: ModelRequest) -> str:
    """A short description of the prompt for the llm_request event (not the prompt itself)."""
    last = request.messages[-1]["content"][-1] if request.messages else {}
    kind = last.get("type", "?")
    counts = (
        f"{len(request.system)} system blocks, {len(request.tools)} tools, {len(request.messages)} messages"
    )
    return f"{counts}; last: {kind}"


def tool_result_frame(outcome: ToolOutcome) -> ToolResultFrame:
    delivered = outcome.delivered_artifact()
    return ToolResultFrame(
        tool=outcome.tool,
        data=outcome.result_json(),
        formatted=outcome.formatted,
        status="done" if outcome.success else "failed",
        artifact=delivered.artifact if delivered else None,
        artifact_id=delivered.artifact_id if delivered else None,
    )


def user_message_for(exc: BaseException) -> str:
    return MODEL_UNAVAILABLE if isinstance(exc, ModelError) else TURN_BROKE


def error_code_for(exc: BaseException) -> str:
    """The `error` frame's code: the model failure's own (`model_unavailable`, `model_incomplete`,
    `model_timeout`), a store's (`store_unavailable`, `database_unavailable`), else `turn_failed`."""
    if isinstance(exc, ModelError):
        return exc.code
    if isinstance(exc, StoreUnavailable):
        return "store_unavailable"
    if isinstance(exc, DatabaseUnavailable):
        return "database_unavailable"
    return "turn_failed"
