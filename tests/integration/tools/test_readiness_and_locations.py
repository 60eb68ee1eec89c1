"""Readiness check-ins and locations on Postgres (docs/api.md#readiness): the route and the chat tool
store the same entries, user-scoped; a check-in adjusts the next generated workout in code; locations
are created and edited from chat with their bar, plates and dumbbells, and loads fit them."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from trainer.api.auth import mint_dev_token
from trainer.domain.readiness import workout_volume
from trainer.domain.workout import Workout
from trainer.services.readiness import READINESS_HOURS
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.store.repositories.locations import create_location
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.current_workout import save_current_workout
from trainer.tools.generate_workout import GenerateWorkout
from trainer.tools.location import CreateLocation, UpdateLocation
from trainer.tools.readiness import CheckReadiness
from trainer_dev.testing.memory_store import InMemorySessionStore


def bearer(settings: Settings, user_id: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_dev_token(settings.jwt_secret.get_secret_value(), user_id)}"}


def tool_context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    return ToolContext(
        user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: datetime.now(UTC)
    )


async def call(tool: Any, ctx: ToolContext, **args: Any) -> Any:
    return await tool.execute(tool.Args.model_validate(args), ctx)


def exercise(
    name: str, sets: int, reps: int, load: float | None, equipment: list[str], muscle: str
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "exercise_name": name,
        "exercise_type": "reps",
        "order": 1,
        "muscles_utilized": [{"muscle": muscle, "share": 1.0}],
        "goals_addressed": [{"goal": "Strength", "share": 1.0}],
        "reasoning": "test",
        "equipment": equipment,
        "sets": sets,
        "reps": [reps] * sets,
        "rest_sec": 90,
    }
    if load is not None:
        data.update(load_each=[load] * sets, load_unit="kg")
    return data


WORKOUT = {
    "title": "Strength",
    "exercises": [
        {**exercise("Barbell Squat", 4, 5, 61.0, ["barbell", "rack"], "Quadriceps"), "order": 1},
        {
            **exercise("Barbell Bench Press - Medium Grip", 4, 5, 52.0, ["barbell", "bench"], "Chest"),
            "order": 2,
        },
        {**exercise("Dumbbell Shoulder Press", 3, 10, 13.0, ["dumbbell"], "Shoulders"), "order": 3},
    ],
}


async def test_the_route_stores_check_ins_scoped_to_the_user(
    client: httpx.AsyncClient, aws_settings: Settings, make_user: Callable[..., str]
) -> None:
    alice, bob = make_user(), make_user()
    empty = await client.get("/readiness", headers=bearer(aws_settings, alice))
    assert empty.status_code == 200 and empty.json()["entries"] == []
    assert empty.json()["today"]["level"] is None
    posted = await client.post(
        "/readiness",
        json={"sleep_hours": 4.5, "energy": 1, "soreness": {"Quadriceps": 4}},
        headers=bearer(aws_settings, alice),
    )
    assert posted.status_code == 201, posted.text
    body = posted.json()
    assert body["today"]["level"] == "recover" and "4.5 hours of sleep" in body["today"]["advice"]
    assert body["today"]["sore_muscles"] == ["Quadriceps"]
    listed = (await client.get("/readiness", headers=bearer(aws_settings, alice))).json()
    assert [(e["sleep_hours"], e["energy"], e["soreness"]) for e in listed["entries"]] == [
        (4.5, 1, {"Quadriceps": 4})
    ]
    assert (await client.get("/readiness", headers=bearer(aws_settings, bob))).json()["entries"] == []
    for bad in (
        {},
        {"energy": 9},
        {"soreness": {"elbow": 3}},
        {"soreness": {}},
        {"notes": None},
        {"mood": "great"},
    ):
        refused = await client.post("/readiness", json=bad, headers=bearer(aws_settings, alice))
        assert refused.status_code == 422, bad
        assert refused.json()["error"]["code"] in ("invalid_readiness", "invalid_request")
    newcomer = str(uuid.uuid4())
    first = await client.post("/readiness", json={"stress": 4}, headers=bearer(aws_settings, newcomer))
    assert first.status_code == 201, first.text


async def test_the_tool_answers_from_todays_check_in_and_generation_adjusts_to_it(
    db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    ctx = tool_context(db, user)
    nothing = await call(CheckReadiness(), ctx)
    assert (nothing.has_check_in, nothing.recorded) == (False, False)
    plain = await call(GenerateWorkout(), ctx, workout=WORKOUT)
    assert plain.adjustments == []
    unadjusted = Workout.model_validate({**WORKOUT, "exercises": plain.prescribed})

    stored = await call(CheckReadiness(), ctx, sleep_hours=5.5, energy=2)
    assert (stored.recorded, stored.level) == (True, "reduce")
    again = await call(CheckReadiness(), ctx)
    assert (again.recorded, again.level) == (False, "reduce")
    lighter = await call(GenerateWorkout(), ctx, workout=WORKOUT)
    assert lighter.adjustments and "5.5 hours of sleep" in lighter.adjustments[0]
    adjusted = Workout.model_validate({**WORKOUT, "exercises": lighter.prescribed})
    before, after = workout_volume(unadjusted), workout_volume(adjusted)
    assert after.sets < before.sets and after.tonnage < before.tonnage
    current = await ctx.get_state(CURRENT_WORKOUT_KEY)
    assert current is not None and [e["sets"] for e in current["exercises"]] == [3, 3, 2]

    await call(CheckReadiness(), ctx, soreness={"Quadriceps": 4})
    spared = await call(GenerateWorkout(), ctx, workout=WORKOUT)
    assert all("Squat" not in e.exercise_name for e in spared.exercises)
    assert any("Quadriceps" in change for change in spared.adjustments)

    with pytest.raises(ToolError):
        await call(CheckReadiness(), ctx, soreness={"elbow": 3})


async def test_a_check_in_adjusts_the_workout_already_made_today_once_and_a_good_one_restores_it(
    db: Database, make_user: Callable[..., str]
) -> None:
    """A check-in made after the workout was made adjusts that workout too (it once changed nothing)."""
    user = make_user()
    ctx = tool_context(db, user)
    made = await call(GenerateWorkout(), ctx, workout=WORKOUT)
    original = await ctx.get_state(CURRENT_WORKOUT_KEY)
    assert original is not None and made.adjustments == []

    tired = await call(CheckReadiness(), ctx, sleep_hours=5, energy=2)
    assert tired.level == "reduce" and tired.workout_changes
    assert "fewer sets" in tired.workout_changes[0]
    assert "adjusted to it" in CheckReadiness().format(tired)
    current = await ctx.get_state(CURRENT_WORKOUT_KEY)
    assert current is not None
    assert [e["id"] for e in current["exercises"]] == [e["id"] for e in original["exercises"]]
    before = workout_volume(Workout.model_validate({"exercises": original["exercises"]}))
    after = workout_volume(Workout.model_validate({"exercises": current["exercises"]}))
    assert after.sets < before.sets and after.tonnage < before.tonnage
    (artifact,) = (await ctx.get_state("artifacts") or {}).values()
    assert artifact["payload"]["exercises"] == current["exercises"], "the phone's artifact shows it"

    again = await call(CheckReadiness(), ctx, sleep_hours=5, energy=2, stress=3)
    assert again.workout_changes
    twice = await ctx.get_state(CURRENT_WORKOUT_KEY)
    assert twice is not None and twice["exercises"] == current["exercises"], "never cut twice"

    rested = await call(CheckReadiness(), ctx, sleep_hours=8, energy=5)
    assert rested.level == "ready" and rested.workout_changes == [
        "back to the workout as first planned, since you're feeling better"
    ]
    restored = await ctx.get_state(CURRENT_WORKOUT_KEY)
    assert restored is not None and restored["exercises"] == original["exercises"]
    assert "before_readiness" not in restored
    assert (await call(CheckReadiness(), ctx, sleep_hours=8, energy=4)).workout_changes == []


async def test_a_check_in_leaves_an_older_workout_and_an_edit_drops_the_kept_original(
    db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    ctx = tool_context(db, user)
    await call(GenerateWorkout(), ctx, workout=WORKOUT)
    await call(CheckReadiness(), ctx, soreness={"Quadriceps": 4})
    spared = await ctx.get_state(CURRENT_WORKOUT_KEY)
    assert spared is not None and "before_readiness" in spared
    assert all("Squat" not in e["exercise_name"] for e in spared["exercises"])
    assert all(str(e.get("id", "")).startswith("ex_") for e in spared["exercises"]), "swaps get ids"
    await save_current_workout(ctx, spared, spared["exercises"][:1])  # any other edit
    edited = await ctx.get_state(CURRENT_WORKOUT_KEY)
    assert edited is not None and "before_readiness" not in edited

    tomorrow = ToolContext(
        user_id=user,
        session_id=ctx.session_id,
        store=ctx.store,
        db=db,
        now=lambda: datetime.now(UTC) + timedelta(hours=READINESS_HOURS + 1),
    )
    late = await call(CheckReadiness(), tomorrow, sleep_hours=4, energy=1)
    assert late.workout_changes == [], "yesterday's workout is not today's"
    assert await tomorrow.get_state(CURRENT_WORKOUT_KEY) == edited


async def test_locations_from_chat_carry_plates_and_dumbbells_and_loads_fit_them(
    db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    async with db.connection() as conn:
        await create_location(conn, user, "Home Gym", make_current=True)
    ctx = tool_context(db, user)
    hotel = await call(
        CreateLocation(), ctx, name="Hotel Gym", equipment=["treadmill", "bench"], dumbbells_up_to=25
    )
    assert hotel.location.is_current and hotel.location.created
    assert "Dumbbells 2.5-25kg" in hotel.location.equipment_summary
    with pytest.raises(Exception, match="already exists"):
        await call(CreateLocation(), ctx, name="hotel gym")

    garage = await call(
        CreateLocation(),
        ctx,
        name="Garage",
        equipment=["rack", "bench"],
        bar_weight=15,
        plates=[2.5, 5, 10],
        dumbbells=[6, 9, 14, 18],
    )
    assert garage.location.is_current
    generated = await call(GenerateWorkout(), ctx, workout=WORKOUT)
    loads = {e["exercise_name"]: e["load_each"][0] for e in generated.prescribed}
    assert loads["Barbell Squat"] == 60  # 15 + 2 x (10 + 10 + 2.5)
    assert loads["Barbell Bench Press - Medium Grip"] == 50  # 15 + 2 x (10 + 5 + 2.5)
    assert loads["Dumbbell Shoulder Press"] == 14

    edited = await call(
        UpdateLocation(), ctx, location_name="garage", plates=[1.25, 2.5, 5, 10], add_equipment=["cable"]
    )
    assert "cable" in edited.location.equipment_summary and "1.25-10kg" in edited.location.equipment_summary
    refit = await call(GenerateWorkout(), ctx, workout=WORKOUT)
    assert {e["exercise_name"]: e["load_each"][0] for e in refit.prescribed}["Barbell Squat"] == 60
    assert {e["exercise_name"]: e["load_each"][0] for e in refit.prescribed}[
        "Barbell Bench Press - Medium Grip"
    ] == 52.5
    with pytest.raises(ToolError):
        await call(UpdateLocation(), ctx, location_name="Moon Base", add_equipment=["rack"])


async def test_loads_come_in_the_users_unit(db: Database, make_user: Callable[..., str]) -> None:
    user = make_user(weight_unit="lbs")
    ctx = tool_context(db, user)
    await call(CreateLocation(), ctx, name="Basement", bar_weight=45, plates=[10, 25, 45], equipment=["rack"])
    generated = await call(GenerateWorkout(), ctx, workout=WORKOUT)
    squat = next(e for e in generated.prescribed if e["exercise_name"] == "Barbell Squat")
    assert squat["load_unit"] == "lbs" and squat["load_each"][0] == 135  # 61 kg = 134.5 lb -> 45 + 2 x 45
