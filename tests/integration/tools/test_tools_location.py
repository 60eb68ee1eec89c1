"""set_current_location on Postgres: by id or case-insensitive name, exactly one current location."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from trainer.store.db import Database
from trainer.store.repositories.locations import create_location
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.location import (
    CurrentLocation,
    SetCurrentLocation,
    SetCurrentLocationResult,
    equipment_summary,
)
from trainer_dev.testing.memory_store import InMemorySessionStore


def tool_context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    return ToolContext(
        user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: datetime.now(UTC)
    )


async def locations(db: Database, user_id: str) -> list[Any]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id, name, is_current FROM user_locations WHERE user_id = %s ORDER BY name", (user_id,)
        )
        return await cur.fetchall()


async def add(db: Database, user_id: str, name: str, *, current: bool = False, **kw: Any) -> dict[str, Any]:
    async with db.connection() as conn:
        return await create_location(conn, user_id, name, make_current=current, **kw)


async def run(ctx: ToolContext, **args: Any) -> SetCurrentLocationResult:
    tool = SetCurrentLocation()
    return await tool.execute(tool.Args.model_validate(args), ctx)


async def test_switch_by_name_and_by_id_keeps_one_current(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    await add(db, bob, "Home Gym", current=True)
    await add(db, bob, "Office")
    bob_before = await locations(db, bob)
    await add(db, alice, "Home", current=True)
    gym = await add(
        db,
        alice,
        "Downtown Gym",
        description="Big gym",
        equipment=["Barbell", {"name": "Dumbbells", "weights": [5, 10, 50], "unit": "kg"}, "Bench"],
    )
    ctx = tool_context(db, alice)

    result = await run(ctx, location_name="downtown gym")

    assert result.location == CurrentLocation(
        id=str(gym["id"]),
        name="Downtown Gym",
        description="Big gym",
        equipment_count=3,
        equipment_summary="Barbell, Dumbbells 5-50kg, Bench",
    )
    assert result.model_dump(mode="json", exclude_none=True) == {
        "success": True,
        "location": {
            "id": str(gym["id"]),
            "name": "Downtown Gym",
            "description": "Big gym",
            "equipment_count": 3,
            "equipment_summary": "Barbell, Dumbbells 5-50kg, Bench",
        },
    }
    assert [(r["name"], r["is_current"]) for r in await locations(db, alice)] == [
        ("Downtown Gym", True),
        ("Home", False),
    ]
    assert SetCurrentLocation().format(result) == (
        f"current location: Downtown Gym (id={gym['id']}); 3 equipment: Barbell, Dumbbells 5-50kg, Bench"
    )
    home = next(r for r in await locations(db, alice) if r["name"] == "Home")
    await run(ctx, location_id=str(home["id"]))
    assert [(r["name"], r["is_current"]) for r in await locations(db, alice)] == [
        ("Downtown Gym", False),
        ("Home", True),
    ]
    assert await locations(db, bob) == bob_before


async def test_unknown_ambiguous_and_foreign_locations_are_errors(db: Database, make_user) -> None:
    alice, bob = make_user(), make_user()
    bobs = await add(db, bob, "Bob Gym", current=True)
    await add(db, alice, "Gym North", current=True)
    await add(db, alice, "Gym South")
    before = (await locations(db, alice), await locations(db, bob))
    ctx = tool_context(db, alice)

    with pytest.raises(ToolError, match="no location named 'Beach'; your locations: Gym North, Gym South"):
        await run(ctx, location_name="Beach")
    with pytest.raises(ToolError, match="matches several locations"):
        await run(ctx, location_name="gym")
    with pytest.raises(ToolError, match="no location with id"):
        await run(ctx, location_id=str(bobs["id"]))
    with pytest.raises(ValueError, match="give location_id or location_name"):
        SetCurrentLocation.Args.model_validate({})
    assert (await locations(db, alice), await locations(db, bob)) == before


def test_equipment_summary_caps_the_list() -> None:
    items = [{"name": f"Item {i}"} for i in range(13)]
    assert equipment_summary(items).endswith("Item 9 and 3 more")
    assert equipment_summary([]) == "bodyweight only"
