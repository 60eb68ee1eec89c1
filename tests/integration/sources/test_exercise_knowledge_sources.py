"""The exercise_info source and search_exercises on Postgres: alternatives and the equipment an exercise
lacks follow the user's current location; without one, any equipment."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from trainer.domain.equipment import missing_equipment
from trainer.sources.registry import fetch_sources
from trainer.store.db import Database
from trainer.store.repositories import locations
from trainer.tools.base import ToolContext
from trainer.tools.exercises import SearchExercises
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
HOME = {"bench", "bodyweight", "dumbbell"}


async def at_home(db: Database, make_user: Callable[..., str]) -> str:
    user_id = make_user()
    async with db.connection() as conn:
        await locations.create_location(
            conn, user_id, "Home", equipment=["Dumbbells", "Bench"], make_current=True
        )
    return user_id


async def test_the_guide_uses_the_current_locations_equipment(
    db: Database, make_user: Callable[..., str]
) -> None:
    user_id = await at_home(db, make_user)
    (dips, rdl, overview, none) = await fetch_sources(
        db,
        user_id,
        [("exercise_info", {"query": "dips"}), ("exercise_info", {"query": "rdl"}), ("exercise_info", None),
         ("exercise_info", {"query": "zorbing"})],
        now=NOW,
    )  # fmt: skip
    assert dips.error is None and dips.display_name == "Exercise guide"
    assert dips.data["location"] == "Home" and set(dips.data["equipment"]) == HOME
    assert dips.data["exercise"]["name"] == "Dips - Triceps Version"
    assert dips.data["exercise"]["missing_equipment"] == ["dip station"]
    assert all(not missing_equipment(a["equipment"], HOME) for a in dips.data["alternatives"])
    assert "Alternatives with the equipment at Home (bench, bodyweight, dumbbell):" in dips.formatted
    assert "  - Bench Dips [bench]: same movement (compound push)" in dips.formatted
    assert rdl.formatted.startswith('<exercise_info query="rdl">\nRomanian Deadlift: ')
    assert "Steps:\n  1. Put a barbell" in rdl.formatted
    assert overview.error is None and "strength exercises with the equipment at Home" in overview.formatted
    assert none.error is None and "No catalog exercise matches 'zorbing'" in none.formatted


async def test_without_a_location_any_equipment_goes(db: Database, make_user: Callable[..., str]) -> None:
    (dips,) = await fetch_sources(db, make_user(), [("exercise_info", {"query": "dips"})], now=NOW)
    assert dips.data["equipment"] is None and dips.data["exercise"]["missing_equipment"] == []
    assert "Alternatives with any equipment (no current location):" in dips.formatted


async def test_search_exercises_limits_alternatives_to_the_current_location(
    db: Database, make_user: Callable[..., str]
) -> None:
    user_id = await at_home(db, make_user)
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    ctx = ToolContext(user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: NOW)
    tool = SearchExercises()
    instead = await tool.execute(tool.Args.model_validate({"alternatives_to": "dips"}), ctx)
    assert instead.equipment_from == "current_location" and instead.location == "Home"
    assert set(instead.equipment or []) == HOME
    assert instead.exercises and all(not missing_equipment(e.equipment, HOME) for e in instead.exercises)
    assert "Limited to the equipment at Home (bench, bodyweight, dumbbell)" in tool.format(instead)
    lookup = await tool.execute(tool.Args.model_validate({"query": "romanian deadlift", "limit": 1}), ctx)
    (rdl,) = lookup.exercises
    assert lookup.equipment is None and rdl.missing_equipment == ["barbell"] and rdl.instructions
    assert "(missing here: barbell)" in tool.format(lookup)
