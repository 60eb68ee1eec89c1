"""fetch_data on Postgres: sources fetched for the calling user only, each appended as a knowledge
event and tracked in the session's knowledge_in_context; unknown sources fail alone."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from trainer.frames import Frame, KnowledgeFrame, frame_json
from trainer.store.db import Database
from trainer.store.models import EventType, KnowledgeRef
from trainer.store.repositories.goals import set_category_goals
from trainer.store.repositories.history import log_exercises
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.data import FetchData, FetchDataResult
from trainer_dev.testing.memory_store import InMemorySessionStore


def tool_context(db: Database, user_id: str, emitted: list[Frame]) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)

    async def emit(frame: Frame) -> None:
        emitted.append(frame)

    return ToolContext(
        user_id=user_id, session_id=session.id, store=store, db=db, emit=emit, now=lambda: datetime.now(UTC)
    )


async def seed(db: Database, user_id: str, goal: str, exercise: str) -> None:
    async with db.transaction() as conn:
        await set_category_goals(conn, user_id, [{"category": goal, "percentage": 100}])
        await log_exercises(
            conn,
            user_id,
            [
                {
                    "exercise_name": exercise,
                    "exercise_type": "duration",
                    "duration_min": 20,
                    "goals": [{"goal": goal, "share": 1.0}],
                }
            ],
        )


async def run(ctx: ToolContext, **args: Any) -> FetchDataResult:
    tool = FetchData()
    return await tool.execute(tool.Args.model_validate(args), ctx)


async def test_fetch_appends_knowledge_for_each_source(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    await seed(db, alice, "Endurance", "Alice Swim")
    await seed(db, bob, "Powerlifting", "Bob Row")
    emitted: list[Frame] = []
    ctx = tool_context(db, alice, emitted)

    result = await run(
        ctx,
        sources=["category_goals", "workout_history", "no_such_source"],
        params={"workout_history": {"days_back": 30}},
    )

    assert set(result.data) == {"category_goals", "workout_history"}
    assert "Endurance" in result.data["category_goals"] and "Alice Swim" in result.data["workout_history"]
    everything = "".join(result.data.values())
    assert "Powerlifting" not in everything and "Bob Row" not in everything
    assert set(result.errors) == {"no_such_source"}
    assert "unknown data source 'no_such_source'" in result.errors["no_such_source"]

    events = (await ctx.store.read_events(ctx.session_id)).events
    assert [e.event_type for e in events] == [EventType.KNOWLEDGE, EventType.KNOWLEDGE]
    history_event = next(e for e in events if e.data["source"] == "workout_history")
    assert history_event.data["params"]["days_back"] == 30
    assert history_event.data["data"] == result.data["workout_history"]
    session = await ctx.store.get_session(alice, ctx.session_id)
    assert [k.source for k in session.knowledge_in_context] == ["category_goals", "workout_history"]
    assert (
        KnowledgeRef(source="workout_history", params=history_event.data["params"])
        in session.knowledge_in_context
    )
    assert all(isinstance(f, KnowledgeFrame) for f in emitted)
    assert [f.data.source for f in emitted if isinstance(f, KnowledgeFrame)] == [
        "category_goals",
        "workout_history",
    ]
    assert frame_json(emitted[0]) == {
        "type": "knowledge",
        "data": {"source": "category_goals", "displayName": "Category goals", "status": "done"},
    }
    assert FetchData().format(result) == (
        "Fetched: category_goals, workout_history (see knowledge below)\n"
        f"Failed: no_such_source: {result.errors['no_such_source']}"
    )


async def test_current_workout_source_reads_session_state(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user(), [])
    exercise = {
        "id": "ex_abc123",
        "exercise_name": "Goblet Squat",
        "exercise_type": "reps",
        "order": 1,
        "sets": 3,
        "reps": [10, 10, 10],
        "rest_sec": 60,
        "completed": True,
    }
    await ctx.put_state(
        "current_workout", {"workout_id": "workout_1", "title": "Leg day", "exercises": [exercise]}
    )
    result = await run(ctx, sources=["current_workout_session"])
    text = result.data["current_workout_session"]
    assert "Leg day" in text and "Goblet Squat" in text and "[id: ex_abc123]" in text


async def test_nothing_fetched_is_an_error(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user(), [])
    with pytest.raises(ToolError, match="nothing fetched: bogus: unknown data source"):
        await run(ctx, sources=["bogus"])
    with pytest.raises(ToolError, match="unknown parameter"):
        await run(ctx, sources=["user_profile"], params={"user_profile": {"days_back": 3}})
    assert (await ctx.store.read_events(ctx.session_id)).events == []
