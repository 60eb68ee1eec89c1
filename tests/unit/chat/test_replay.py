"""A session's events as the console timeline, one line each."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from trainer.chat.replay import format_timeline
from trainer.store.models import Event, EventType
from trainer_dev.testing.agent_harness import USER, chest_workout, make_harness
from trainer_dev.testing.scripted_model import call

SESSION = "a1b2c3d4-0000-4000-8000-000000000000"
AT = datetime(2025, 1, 11, 14, 32, 1, 123456, tzinfo=UTC)


def ev(kind: EventType, duration_ms: int | None = None, **data: Any) -> Event:
    return Event(
        session_id=SESSION,
        sequence_number=1,
        event_type=kind,
        timestamp=AT,
        duration_ms=duration_ms,
        data=data,
    )


def line(event: Event) -> str:
    [text] = format_timeline([event], SESSION)
    return text


def test_timeline_lines_follow_the_seed_console_format() -> None:
    assert line(ev(EventType.USER_MESSAGE, message="Give me a chest workout")) == (
        '14:32:01.123 [a1b2c3d4] 👤 User: "Give me a chest workout"'
    )
    assert line(ev(EventType.LLM_REQUEST, model="claude-haiku-4-5", estimated_tokens=2100)) == (
        "14:32:01.123 [a1b2c3d4] 📤 LLM Request → claude-haiku-4-5  est. 2.1K tokens"
    )
    response = ev(
        EventType.LLM_RESPONSE,
        duration_ms=1300,
        raw_response={"content": []},
        cost_cents=0.12,
        tokens={"total": 3200, "cached": 2800},
    )
    assert line(response) == (
        "14:32:01.123 [a1b2c3d4] 📥 LLM Response ← (empty)  3.2K tokens (2.8K cached) | $0.0012 | 1.3s"
    )
    tool_call = ev(
        EventType.TOOL_CALL, tool_name="generate_workout", arguments={"workout": {"exercises": [1, 2, 3]}}
    )
    assert line(tool_call) == (
        '14:32:01.123 [a1b2c3d4] 🔧 Tool Call → generate_workout  {"workout":{"exercises":[1,2,3]}}'
    )
    assert line(ev(EventType.TOOL_RESULT, duration_ms=112, tool_name="generate_workout", success=True)) == (
        "14:32:01.123 [a1b2c3d4] 🔧 Tool Result ← generate_workout: ✓  112ms"
    )
    assert line(ev(EventType.TOOL_RESULT, tool_name="swap_exercise", success=False)).endswith(
        "swap_exercise: ✗"
    )
    assert line(ev(EventType.ARTIFACT, type="exercise_list", title="Chest & Triceps Session")) == (
        '14:32:01.123 [a1b2c3d4] 📦 Artifact ← exercise_list  "Chest & Triceps Session"'
    )


def test_long_arguments_and_messages_are_clipped() -> None:
    text = line(
        ev(EventType.TOOL_CALL, tool_name="generate_workout", arguments={"workout": {"title": "x" * 100}})
    )
    assert text.endswith('{"workout":{"title":"xxxxxxxxxxxxxxxxxxx...')
    assert line(ev(EventType.USER_MESSAGE, message="y" * 200)).endswith('y..."')


def test_knowledge_error_and_checkpoint_lines() -> None:
    assert line(ev(EventType.KNOWLEDGE, source="workout_history", params={"days_back": 30})).endswith(
        '📚 Knowledge ← workout_history  {"days_back":30}'
    )
    assert line(ev(EventType.ERROR, message="No tool call in response", context="agent_loop")).endswith(
        "❌ Error (agent_loop): No tool call in response"
    )
    assert line(ev(EventType.CHECKPOINT, events_summarized="1-30")).endswith("🧭 Checkpoint ← events 1-30")
    assert line(ev(EventType.TURN_END, outcome="asked")).endswith("🏁 Turn end: asked")


async def test_a_real_turn_replays_one_line_per_event() -> None:
    h = make_harness([call("generate_workout", workout=chest_workout()), call("idle", reason="x")])
    result = await h.loop.run_turn(USER, "chest")
    events = h.store.all_events(result.session_id)
    lines = format_timeline(events, result.session_id)
    assert len(lines) == len(events)
    assert [ln.split("] ")[1].split(" ")[0] for ln in lines] == [
        "👤",
        "📤",
        "📥",
        "🔧",
        "📦",
        "🔧",
        "📤",
        "📥",
        "🔧",
        "🔧",
        "🏁",
    ]
