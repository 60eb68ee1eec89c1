"""set_goals on Postgres: replaces the set of one type in one transaction, normalised to 100%."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError
from trainer.store.db import Database
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.goals import GoalEntry, SetGoals, SetGoalsResult
from trainer_dev.testing.memory_store import InMemorySessionStore


def tool_context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    return ToolContext(
        user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: datetime.now(UTC)
    )


async def goal_rows(db: Database, user_id: str) -> tuple[list[Any], list[Any]]:
    async with db.connection() as conn:
        cats = await (
            await conn.execute(
                "SELECT category, description, weight FROM category_goals"
                " WHERE user_id = %s ORDER BY category",
                (user_id,),
            )
        ).fetchall()
        muscles = await (
            await conn.execute(
                "SELECT muscle, weight FROM muscle_goals WHERE user_id = %s ORDER BY muscle", (user_id,)
            )
        ).fetchall()
    return cats, muscles


async def run(ctx: ToolContext, **args: Any) -> SetGoalsResult:
    tool = SetGoals()
    return await tool.execute(tool.Args.model_validate(args), ctx)


async def test_category_goals_replace_the_set_and_normalise(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    await run(
        tool_context(db, bob), goal_type="category", category_goals=[{"category": "Yoga", "percentage": 100}]
    )
    bob_before = await goal_rows(db, bob)
    ctx = tool_context(db, alice)
    await run(ctx, goal_type="category", category_goals=[{"category": "Old", "percentage": 100}])

    result = await run(
        ctx,
        goal_type="category",
        category_goals=[
            {"category": "Strength", "description": "Compound lifts", "percentage": 44},
            {"category": "Cardio", "percentage": 20},
            {"category": "Flexibility", "percentage": 16},
        ],
    )

    cats, _ = await goal_rows(db, alice)
    weights = {c["category"]: float(c["weight"]) for c in cats}
    assert weights == {"Strength": 0.55, "Cardio": 0.25, "Flexibility": 0.2}
    assert next(c for c in cats if c["category"] == "Strength")["description"] == "Compound lifts"
    assert result.goal_type == "category" and result.count == 3
    assert {g.name: (g.percentage, g.description) for g in result.goals} == {
        "Strength": (55.0, "Compound lifts"),
        "Cardio": (25.0, None),
        "Flexibility": (20.0, None),
    }
    assert SetGoals().format(result) == "3 categories updated: Strength 55%, Cardio 25%, Flexibility 20%"
    assert await goal_rows(db, bob) == bob_before


async def test_muscle_goals_accept_canonical_names_case_insensitively(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    result = await run(ctx, goal_type="muscle", muscle_goals={"chest": 30, "lower back": 10, "Glutes": 20})
    _, muscles = await goal_rows(db, ctx.user_id)
    weights = {m["muscle"]: float(m["weight"]) for m in muscles}
    assert weights["Chest"] == 0.5 and weights["Glutes"] == pytest.approx(1 / 3, abs=1e-5)
    assert sum(float(m["weight"]) for m in muscles) == pytest.approx(1.0, abs=1e-9)
    assert [m["muscle"] for m in muscles] == ["Chest", "Glutes", "Lower Back"]
    assert result.goals == [
        GoalEntry(name="Chest", percentage=50.0),
        GoalEntry(name="Glutes", percentage=33.3),
        GoalEntry(name="Lower Back", percentage=16.7),
    ]
    assert SetGoals().format(result) == "3 muscles updated: Chest 50%, Glutes 33.3%, Lower Back 16.7%"


async def test_bad_goals_are_rejected_without_changing_anything(db: Database, make_user) -> None:
    ctx = tool_context(db, make_user())
    await run(ctx, goal_type="muscle", muscle_goals={"Chest": 100})
    before = await goal_rows(db, ctx.user_id)
    with pytest.raises(ToolError, match=r"unknown muscle\(s\): Pecs\. Valid muscles: Chest, Back"):
        await run(ctx, goal_type="muscle", muscle_goals={"Pecs": 50, "Back": 50})
    with pytest.raises(ToolError, match="must not all be zero"):
        await run(ctx, goal_type="muscle", muscle_goals={"Back": 0})
    with pytest.raises(ToolError, match="must not all be zero"):
        await run(ctx, goal_type="category", category_goals=[{"category": "A", "percentage": 0}])
    with pytest.raises(ToolError, match="listed twice"):
        await run(
            ctx,
            goal_type="category",
            category_goals=[{"category": "A", "percentage": 5}, {"category": "a", "percentage": 5}],
        )
    with pytest.raises(ValidationError, match="category_goals is required"):
        SetGoals.Args.model_validate({"goal_type": "category", "muscle_goals": {"Chest": 1}})
    assert await goal_rows(db, ctx.user_id) == before
