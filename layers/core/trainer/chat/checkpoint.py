"""Checkpointing a long session (docs/architecture.md#checkpoints): the format and the I/O, used by
the turn (synchronously, over the hard limit) and by the checkpoint job (trainer.jobs.checkpoint).

When a turn's context passes `checkpoint_threshold` of the window, the events since
`context_start_sequence` are compressed into one `checkpoint` event (a numbered line per event plus
the current state), `context_start_sequence` moves to that event and `knowledge_in_context` is
cleared so the initializer fetches fresh data. Earlier events stay in the store for history.

The pure parts (`summarize`, `render_checkpoint`, `estimate_tokens`, `needs_checkpoint`) carry the
format; `run_checkpoint` does the I/O while holding the session lease, so a checkpoint never
interleaves with a turn.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

from trainer.domain.text import escape_text
from trainer.settings import ContextWindowSettings
from trainer.store.models import CONTEXT_EVENT_TYPES, CURRENT_WORKOUT_KEY, Event, EventType, Session
from trainer.store.ports import SessionStore

logger = logging.getLogger(__name__)

LEASE_HOLDER_PREFIX = "checkpoint:"
CHECKPOINT_LEASE_SECONDS = 45
USER_MESSAGE_CHARS = 40
RESULT_CHARS = 30

StateProvider = Callable[[Session], Awaitable[dict[str, str]]]
"""Extra current-state lines for a session (e.g. temporary preferences), merged after the workout."""

_LINE_NUMBER = re.compile(r"^\s*\d+\.\s?")
_WHITESPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^<>]+>")


def estimate_tokens(text: str) -> int:
    """Four characters per token, rounded up: cheap, and only ever compared with a threshold."""
    return (len(text) + 3) // 4


def needs_checkpoint(tokens: int, settings: ContextWindowSettings, *, hard: bool = False) -> bool:
    """True when `tokens` exceed the checkpoint threshold (or, with `hard`, the hard limit that makes
    a turn checkpoint synchronously before it starts)."""
    ratio = settings.hard_limit_ratio if hard else settings.checkpoint_threshold
    return tokens > ratio * settings.context_window_tokens


def truncate(text: str, limit: int) -> str:
    """One line, at most `limit` characters plus an ellipsis."""
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _result_text(data: dict[str, Any]) -> str:
    formatted = data.get("formatted")
    if isinstance(formatted, str) and _TAG.sub("", formatted).strip():
        return _TAG.sub(" ", formatted)
    result = data.get("result")
    if isinstance(result, dict):
        for key in ("message", "error", "summary"):
            if isinstance(result.get(key), str) and result[key].strip():
                return str(result[key])
    if isinstance(result, str) and result.strip():
        return result
    return "ok" if data.get("success", True) else "failed"


def event_line(event: Event) -> str:
    """One short line for an event of the checkpoint's numbered list."""
    data = event.data
    match event.event_type:
        case EventType.USER_MESSAGE:
            message = data.get("message") or data.get("content") or ""
            return f'user: "{truncate(str(message), USER_MESSAGE_CHARS)}"'
        case EventType.TOOL_CALL:
            return f"action: {data.get('tool_name') or data.get('tool') or 'unknown'}"
        case EventType.TOOL_RESULT:
            prefix = "" if data.get("success", True) else "failed: "
            return f"result: {prefix}{truncate(_result_text(data), RESULT_CHARS)}"
        case EventType.KNOWLEDGE:
            source = data.get("source", "unknown")
            reason = data.get("reason")
            if reason and reason != "not_in_context":
                return f"knowledge_update: {source} ({reason})"
            return f"knowledge: {source}"
        case EventType.ARTIFACT:
            title = truncate(str(data.get("title") or ""), RESULT_CHARS)
            kind = data.get("type") or "artifact"
            return f'artifact: {kind} "{title}"' if title else f"artifact: {kind}"
        case _:
            return str(event.event_type)


def _carried_lines(checkpoint: Event) -> list[str]:
    text = str(checkpoint.data.get("events") or "")
    return [_LINE_NUMBER.sub("", line, count=1) for line in text.splitlines() if line.strip()]


def summarize(events: list[Event], current_state: dict[str, str]) -> dict[str, Any]:
    """The checkpoint event data for `events` (ascending): `events_summarized` "a-b", `events` as a
    numbered list, `current_state`. A previous checkpoint among them is carried forward line by
    line, and the range then starts where that checkpoint's range started. Observability events
    (llm_request, llm_response, error) are left out."""
    if not events:
        raise ValueError("nothing to summarize")
    first = events[0].sequence_number
    lines: list[str] = []
    for event in events:
        if event.event_type is EventType.CHECKPOINT:
            lines.extend(_carried_lines(event))
            if event is events[0]:
                start = str(event.data.get("events_summarized", "")).split("-", 1)[0]
                first = int(start) if start.isdigit() else first
        elif event.event_type in CONTEXT_EVENT_TYPES:
            lines.append(event_line(event))
    return {
        "events_summarized": f"{first}-{events[-1].sequence_number}",
        "events": "\n".join(f"{n}. {line}" for n, line in enumerate(lines, start=1)),
        "current_state": dict(current_state),
    }


def workout_state(workout: dict[str, Any] | None) -> dict[str, str]:
    """Current-state lines for the session's `current_workout`: n/m complete and what remains."""
    exercises = [e for e in (workout or {}).get("exercises") or [] if isinstance(e, dict)]
    if not exercises:
        return {}
    state: dict[str, str] = {}
    title = (workout or {}).get("title")
    if title:
        state["workout"] = str(title)
    done = sum(1 for e in exercises if e.get("completed"))
    state["workout_in_progress"] = f"{done}/{len(exercises)} complete"
    remaining = [
        str(e.get("exercise_name") or e.get("name") or "?") for e in exercises if not e.get("completed")
    ]
    if remaining:
        state["remaining"] = ", ".join(remaining)
    return state


def render_checkpoint(data: dict[str, Any], sequence: int | None = None) -> str:
    """The checkpoint as the model sees it: `<checkpoint>` with `<events>` and `<current_state>`,
    XML-escaped."""
    attributes = f' sequence="{escape_text(sequence, attribute=True)}"' if sequence is not None else ""
    summarized = escape_text(data.get("events_summarized", ""), attribute=True)
    out = [f'<checkpoint{attributes} events_summarized="{summarized}">']
    out.append("  <events>")
    out.extend(f"    {escape_text(line)}" for line in str(data.get("events") or "").splitlines())
    out.append("  </events>")
    current_state = data.get("current_state") or {}
    if current_state:
        out.append("  <current_state>")
        out.extend(f"    {escape_text(key)}: {escape_text(value)}" for key, value in current_state.items())
        out.append("  </current_state>")
    out.append("</checkpoint>")
    return "\n".join(out)


async def read_context_events(store: SessionStore, session_id: str, start_sequence: int) -> list[Event]:
    """Every context event from `start_sequence` on, all pages."""
    events: list[Event] = []
    after: int | None = max(start_sequence - 1, 0)
    while after is not None:
        page = await store.read_events(session_id, after=after, types=CONTEXT_EVENT_TYPES)
        events.extend(page.events)
        after = page.next_after if page.events else None
    return events


async def create_checkpoint(
    store: SessionStore,
    session: Session,
    *,
    state_provider: StateProvider | None = None,
    now: datetime | None = None,
) -> Event | None:
    """Summarise the session's context into a checkpoint event. The caller must hold the session
    lease (a turn checkpointing synchronously does; `run_checkpoint` takes it). None when there is
    nothing new since the last checkpoint."""
    events = await read_context_events(store, session.id, session.context_start_sequence)
    if not any(e.event_type is not EventType.CHECKPOINT for e in events):
        return None
    state = workout_state(await store.get_state(session.id, CURRENT_WORKOUT_KEY))
    if state_provider is not None:
        state.update(await state_provider(session))
    data = summarize(events, state)
    data["created_at"] = (now or datetime.now(UTC)).isoformat()
    checkpoint = await store.append_event(session.id, EventType.CHECKPOINT, data)
    await store.update_session(
        session.id, context_start_sequence=checkpoint.sequence_number, knowledge_in_context=[]
    )
    logger.info(
        "checkpoint written",
        extra={
            "session_id": session.id,
            "sequence": checkpoint.sequence_number,
            "range": data["events_summarized"],
        },
    )
    return checkpoint


async def run_checkpoint(
    store: SessionStore,
    session_id: str,
    *,
    state_provider: StateProvider | None = None,
    covers_through: int | None = None,
    now: datetime | None = None,
) -> Event | None:
    """Checkpoint under the session lease (holder `checkpoint:<uuid>`).

    Raises LeaseHeld while a turn runs (the caller retries later) and SessionNotFound for a deleted
    session. With `covers_through` (the last sequence of the turn that asked), a checkpoint that
    already landed after that turn makes this a no-op, so a redelivered event does nothing.
    """
    await store.load_session(session_id)
    holder = f"{LEASE_HOLDER_PREFIX}{uuid4()}"
    await store.acquire_lease(session_id, holder, CHECKPOINT_LEASE_SECONDS)
    try:
        session = await store.load_session(session_id)
        if covers_through is not None and session.context_start_sequence > covers_through:
            return None
        return await create_checkpoint(store, session, state_provider=state_provider, now=now)
    finally:
        await store.release_lease(session_id, holder)
