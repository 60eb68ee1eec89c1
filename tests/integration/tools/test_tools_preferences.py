"""Preference tools on Postgres: saved with their temporal behaviour, expiring, consumed after a
workout generation, deletable only by their owner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from trainer.store.db import Database
from trainer.store.repositories.preferences import list_active
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.preferences import (
    DeletePreference,
    SetPreference,
    SetPreferenceResult,
    consume_after_generation,
)
from trainer_dev.testing.memory_store import InMemorySessionStore


def tool_context(db: Database, user_id: str, now: datetime | None = None) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    moment = now or datetime.now(UTC)
    return ToolContext(user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: moment)


async def preference_rows(db: Database, user_id: str) -> list[Any]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id, type, description, guidance, expires_at, delete_after_use FROM preferences"
            " WHERE user_id = %s ORDER BY created_at, id",
            (user_id,),
        )
        return await cur.fetchall()


async def save(ctx: ToolContext, **args: Any) -> SetPreferenceResult:
    tool = SetPreference()
    return await tool.execute(tool.Args.model_validate(args), ctx)


async def test_set_preference_persists_and_formats(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    await save(tool_context(db, bob), type="exercise", description="Dislikes burpees", guidance="No burpees")
    bob_before = await preference_rows(db, bob)
    ctx = tool_context(db, alice)

    expiry = datetime.now(UTC) + timedelta(days=14)
    permanent = await save(
        ctx, type="exercise", description="Dislikes burpees", guidance="Never include burpees"
    )
    expiring = await save(
        ctx,
        type="muscle_group",
        description="Shoulders - temporary avoidance of all overhead pressing movements",
        guidance="Exclude shoulder-focused exercises",
        expires_at=expiry.isoformat(),
    )
    one_shot = await save(
        ctx, type="time", description="Only 20 minutes today", guidance="Keep it short", delete_after_use=True
    )

    rows = await preference_rows(db, alice)
    assert [r["type"] for r in rows] == ["exercise", "muscle_group", "time"]
    assert rows[0]["expires_at"] is None and not rows[0]["delete_after_use"]
    assert rows[1]["expires_at"] is not None and rows[2]["delete_after_use"]
    assert [str(r["id"]) for r in rows] == [p.preference.id for p in (permanent, expiring, one_shot)]
    assert permanent.preference.expires_at is None and not permanent.preference.delete_after_use
    assert permanent.preference.guidance == "Never include burpees"
    assert expiring.preference.expires_at == rows[1]["expires_at"]
    assert abs(expiring.preference.expires_at - expiry) < timedelta(seconds=1)
    assert one_shot.preference.delete_after_use and one_shot.preference.type == "time"
    assert SetPreference().format(permanent) == (
        f"saved: exercise - Dislikes burpees id={permanent.preference.id}"
    )
    text = SetPreference().format(expiring)
    assert text.startswith("saved: muscle_group - Shoulders - temporary avoidance of all overhead p… (until ")
    assert "(next workout only)" in SetPreference().format(one_shot)
    assert await preference_rows(db, bob) == bob_before


async def test_expired_preferences_drop_out_and_past_expiry_is_rejected(db: Database, make_user) -> None:
    now = datetime.now(UTC)
    ctx = tool_context(db, make_user(), now)
    await save(
        ctx,
        type="intensity",
        description="Take it easy",
        guidance="No jumping",
        expires_at=(now + timedelta(hours=2)).isoformat(),
    )
    await save(ctx, type="exercise", description="Likes rowing", guidance="Include rowing")
    async with db.connection() as conn:
        assert len(await list_active(conn, ctx.user_id, now + timedelta(hours=1))) == 2
        later = await list_active(conn, ctx.user_id, now + timedelta(hours=3))
    assert [p["description"] for p in later] == ["Likes rowing"]
    with pytest.raises(ToolError, match="expires_at is in the past"):
        await save(ctx, type="intensity", description="Old", guidance="x", expires_at="2020-01-01T00:00:00Z")


async def test_delete_after_use_is_consumed_by_generation(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    await save(
        tool_context(db, bob), type="time", description="Bob short", guidance="short", delete_after_use=True
    )
    bob_before = await preference_rows(db, bob)
    ctx = tool_context(db, alice)
    await save(ctx, type="time", description="20 minutes today", guidance="short", delete_after_use=True)
    await save(ctx, type="exercise", description="No burpees", guidance="never")

    consumed = await consume_after_generation(ctx)

    assert [p.description for p in consumed] == ["20 minutes today"]
    assert isinstance(consumed[0].id, str) and consumed[0].delete_after_use
    assert [r["description"] for r in await preference_rows(db, alice)] == ["No burpees"]
    assert await consume_after_generation(ctx) == []
    assert await preference_rows(db, bob) == bob_before


async def test_delete_preference_only_for_its_owner(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    bobs = await save(tool_context(db, bob), type="other", description="Bob pref", guidance="g")
    bob_before = await preference_rows(db, bob)
    ctx = tool_context(db, alice)
    mine = await save(ctx, type="other", description="Alice pref", guidance="g")
    tool = DeletePreference()

    with pytest.raises(ToolError, match="not found"):
        await tool.execute(tool.Args.model_validate({"preference_id": bobs.preference.id}), ctx)
    with pytest.raises(ToolError, match="not found"):
        await tool.execute(tool.Args.model_validate({"preference_id": "nonsense"}), ctx)
    result = await tool.execute(tool.Args.model_validate({"preference_id": mine.preference.id}), ctx)

    assert tool.format(result) == "deleted"
    assert result.preference == mine.preference
    assert await preference_rows(db, alice) == []
    assert await preference_rows(db, bob) == bob_before
