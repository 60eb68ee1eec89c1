"""A checkpoint keeps the user's temporary preferences and current location, in the turn's
synchronous checkpoint and in the checkpoint job as deployed (CheckpointDeps.from_settings)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from trainer.chat import session_state
from trainer.chat.checkpoint import run_checkpoint
from trainer.jobs.checkpoint import CheckpointDeps
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.models import EventType
from trainer.store.repositories import locations, preferences, profiles
from trainer.store.sessions import DynamoSessionStore


async def a_user_with_state(db: Database) -> str:
    user_id = str(uuid.uuid4())
    async with db.transaction() as conn:
        await profiles.ensure_user(conn, user_id)
        await preferences.create_preference(
            conn,
            user_id,
            type="exercise",
            description="no jumping this week",
            expires_at=datetime.now(UTC) + timedelta(days=5),
        )
        await preferences.create_preference(conn, user_id, type="workout", description="short sessions")
        await preferences.create_preference(
            conn, user_id, type="muscle_group", description="extra core next time", delete_after_use=True
        )
        await locations.create_location(conn, user_id, "Hotel gym", make_current=True)
    return user_id


async def a_long_session(store: DynamoSessionStore, user_id: str) -> str:
    session = await store.create_session(user_id)
    await store.append_event(session.id, EventType.USER_MESSAGE, {"message": "no jumping this week please"})
    await store.append_event(session.id, EventType.USER_MESSAGE, {"message": "give me a workout"})
    return session.id


async def test_the_state_lines_hold_temporary_preferences_and_the_location(db: Database) -> None:
    user_id = await a_user_with_state(db)
    async with db.connection() as conn:
        state = await session_state.read_session_state(conn, user_id)
    assert "no jumping this week (until" in state["temporary_preferences"]
    assert "extra core next time (next workout only)" in state["temporary_preferences"]
    assert "short sessions" not in state["temporary_preferences"], "permanent ones come back with the source"
    assert state["current_location"] == "Hotel gym"


async def test_the_deployed_checkpoint_job_keeps_them(
    db: Database, pg_url: str, aws_settings: Settings, session_store: DynamoSessionStore
) -> None:
    user_id = await a_user_with_state(db)
    session_id = await a_long_session(session_store, user_id)
    deps = CheckpointDeps.from_settings(aws_settings.model_copy(update={"database_url": pg_url}))

    checkpoint = await run_checkpoint(deps.store, session_id, state_provider=deps.state_provider)

    assert checkpoint is not None
    current = checkpoint.data["current_state"]
    assert "no jumping this week" in current["temporary_preferences"]
    assert current["current_location"] == "Hotel gym"


async def test_a_user_without_such_state_adds_no_lines(db: Database) -> None:
    user_id = str(uuid.uuid4())
    async with db.transaction() as conn:
        await profiles.ensure_user(conn, user_id)
    provider = session_state.from_database(db)
    from trainer.store.models import Session

    now = datetime.now(UTC)
    assert await provider(Session(id="s", user_id=user_id, created_at=now, updated_at=now)) == {}
