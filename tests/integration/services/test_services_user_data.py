"""The user-data services on embedded Postgres: each service's write read back, one user's calls never
reaching another's rows, a repository's RepositoryError leaving as UserDataError (and an id that is not a
UUID naming no row), and the facade's connection and transaction handling."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from trainer.services.errors import UserDataError
from trainer.services.models import Preference, UserSettings
from trainer.services.user_data import UserData, UserDataService
from trainer.services.workout_plans import PlanSession
from trainer.store.db import Database
from trainer.store.repositories import programs, user_uuid

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
BENCH: dict[str, Any] = {
    "exercise_name": "Bench Press", "exercise_type": "reps", "sets": 3, "reps": [8, 8, 6],
    "load_each": [60, 60, 60], "muscles": [{"muscle": "Chest", "share": 1}],
    "goals": [{"goal": "Strength", "share": 1}], "performed_at": NOW - timedelta(days=1),
}  # fmt: skip

MakeUser = Callable[..., str]


@pytest.fixture
def two_users(db: Database, make_user: MakeUser) -> tuple[UserData, UserData]:
    service = UserDataService(db)
    return service.for_user(make_user()), service.for_user(make_user(weight_unit="lbs"))


# --- settings and profile -----------------------------------------------------------------------------


async def test_settings_round_trip_and_a_first_time_user_gets_a_row(db: Database) -> None:
    data = UserDataService(db).for_user(str(uuid.uuid4()))
    assert await data.settings.get() == UserSettings()
    assert await data.profile.get() is None

    updated = await data.settings.update(
        weight_unit="lbs", timezone="Europe/Berlin", preferred_days=["fri", "Mon"]
    )

    assert updated == UserSettings(
        weight_unit="lbs", timezone="Europe/Berlin", preferred_days=["Monday", "Friday"]
    )
    assert await data.settings.get() == updated
    assert await data.profile.get() is not None


async def test_settings_errors_are_user_data_errors_and_change_nothing(
    two_users: tuple[UserData, UserData],
) -> None:
    mine, theirs = two_users
    with pytest.raises(UserDataError, match="unknown timezone 'Mars/Olympus'"):
        await mine.settings.update(weight_unit="lbs", timezone="Mars/Olympus")
    assert (await mine.settings.get()).weight_unit == "kg"
    assert (await theirs.settings.get()).weight_unit == "lbs"


async def test_profile_round_trip_scoped_to_the_user(two_users: tuple[UserData, UserData]) -> None:
    mine, theirs = two_users
    await mine.profile.ensure(display_name="ignored for an existing user")
    row = await mine.profile.update(height_cm=180, sex="Female", birth_date="1990-05-01")

    assert (row["height_cm"], row["sex"], row["birth_date"]) == (180, "female", date(1990, 5, 1))
    assert (await mine.profile.get()) == row
    assert (await mine.profile.get() or {})["display_name"] == "Test User"
    assert (await theirs.profile.get() or {})["height_cm"] is None
    with pytest.raises(UserDataError, match="height_cm must be between 0 and 300"):
        await mine.profile.update(height_cm=400)


# --- locations ------------------------------------------------------------------------------------------


async def test_locations_round_trip_scoped_to_the_user(two_users: tuple[UserData, UserData]) -> None:
    mine, theirs = two_users
    home = await mine.locations.create("Home", equipment=["Dumbbells"], make_current=True)
    gym = await mine.locations.create("Gym North", equipment=[{"name": "Barbell", "weights": [20]}])
    await theirs.locations.create("Their Gym", make_current=True)

    assert [row["name"] for row in await mine.locations.all()] == ["Home", "Gym North"]
    assert (await mine.locations.current() or {})["id"] == home["id"]

    switched = await mine.locations.set_current(name="gym")
    assert switched["id"] == gym["id"]
    assert (await mine.locations.current() or {})["name"] == "Gym North"
    assert (await theirs.locations.current() or {})["name"] == "Their Gym"

    with pytest.raises(UserDataError, match="no location named 'Their Gym'; your locations: Gym North, Home"):
        await mine.locations.set_current(name="Their Gym")
    their_gym = (await theirs.locations.all())[0]
    with pytest.raises(UserDataError, match="no location with id"):
        await mine.locations.set_current(location_id=their_gym["id"])
    with pytest.raises(UserDataError, match="already exists"):
        await mine.locations.create("home")


# --- goals ----------------------------------------------------------------------------------------------


async def test_goals_round_trip_scoped_to_the_user(two_users: tuple[UserData, UserData]) -> None:
    mine, theirs = two_users
    categories = await mine.goals.set_categories(
        [
            {"category": "Strength", "percentage": 60},
            {"category": "Cardio", "description": "runs", "percentage": 40},
        ]
    )
    muscles = await mine.goals.set_muscles({"chest": 1, "Back": 3})

    assert [(r["category"], float(r["weight"])) for r in categories] == [("Strength", 0.6), ("Cardio", 0.4)]
    assert await mine.goals.categories() == categories
    assert [(r["muscle"], float(r["weight"])) for r in await mine.goals.muscles()] == [
        ("Back", 0.75),
        ("Chest", 0.25),
    ]
    assert muscles == await mine.goals.muscles()
    assert await theirs.goals.categories() == []
    assert await theirs.goals.muscles() == []
    with pytest.raises(UserDataError, match="must not all be zero"):
        await mine.goals.set_categories([{"category": "Strength", "percentage": 0}])
    assert await mine.goals.categories() == categories


# --- preferences ----------------------------------------------------------------------------------------


async def test_preferences_round_trip_scoped_to_the_user(two_users: tuple[UserData, UserData]) -> None:
    mine, theirs = two_users
    lasting = await mine.preferences.create(
        type="injury", description="bad knee", guidance="no jumps", now=NOW
    )
    once = await mine.preferences.create(
        type="exercise", description="extra core", delete_after_use=True, now=NOW
    )
    await theirs.preferences.create(type="time", description="30 minutes", now=NOW)

    assert isinstance(lasting, Preference) and lasting.guidance == "no jumps"
    assert [row["description"] for row in await mine.preferences.active(NOW)] == ["bad knee", "extra core"]

    assert await theirs.preferences.delete(lasting.id) is None
    assert await mine.preferences.delete("not-a-uuid") is None
    assert [p.id for p in await theirs.preferences.consume_one_shot()] == []
    assert [p.id for p in await mine.preferences.consume_one_shot()] == [once.id]
    assert await mine.preferences.delete(lasting.id) == lasting
    assert await mine.preferences.active(NOW) == []
    assert [row["description"] for row in await theirs.preferences.active(NOW)] == ["30 minutes"]
    with pytest.raises(UserDataError, match="expires_at is in the past"):
        await mine.preferences.create(
            type="time", description="x", expires_at=NOW - timedelta(days=1), now=NOW
        )


# --- history --------------------------------------------------------------------------------------------


async def test_history_round_trip_with_its_distribution(two_users: tuple[UserData, UserData]) -> None:
    mine, _ = two_users
    units = await mine.settings.get()
    [logged] = await mine.history.log([BENCH], units=units, now=NOW)

    assert logged["load_unit"] == "kg"
    assert [row["id"] for row in await mine.history.recent(days_back=7, limit=5, now=NOW)] == [logged["id"]]
    assert [row["id"] for row in await mine.history.between(None, NOW)] == [logged["id"]]
    assert [
        row["id"]
        for row in await mine.history.recent_loaded_by_exercise(days_back=30, per_exercise=2, now=NOW)
    ] == [logged["id"]]
    assert await mine.history.get(logged["id"]) == logged
    totals = await mine.history.distribution()
    assert (totals["logged_count"], totals["muscle"]) == (1, {"Chest": 1})

    changed = await mine.history.replace(
        logged["id"], {**BENCH, "exercise_name": "Incline Bench Press"}, units=units, now=NOW
    )
    assert changed is not None and changed[0] == logged
    assert changed[1]["exercise_name"] == "Incline Bench Press"
    assert (await mine.history.distribution())["logged_count"] == 1

    assert await mine.history.delete(logged["id"]) == changed[1]
    assert await mine.history.recent(days_back=7, limit=5, now=NOW) == []
    assert (await mine.history.distribution())["logged_count"] == 0


async def test_history_of_another_user_is_never_reached(two_users: tuple[UserData, UserData]) -> None:
    mine, theirs = two_users
    [logged] = await mine.history.log([BENCH], units=await mine.settings.get(), now=NOW)

    assert await theirs.history.get(logged["id"]) is None
    assert (
        await theirs.history.replace(logged["id"], BENCH, units=await theirs.settings.get(), now=NOW) is None
    )
    assert await theirs.history.delete(logged["id"]) is None
    assert await theirs.history.recent(days_back=7, limit=5, now=NOW) == []
    assert (await theirs.history.distribution())["logged_count"] == 0
    assert await mine.history.get(logged["id"]) == logged


async def test_history_errors(two_users: tuple[UserData, UserData]) -> None:
    mine, _ = two_users
    units = await mine.settings.get()
    with pytest.raises(UserDataError, match="exercise 1: exercise_type must be one of"):
        await mine.history.log([{**BENCH, "exercise_type": "lifting"}], units=units, now=NOW)
    assert await mine.history.get("ex_1") is None
    assert await mine.history.delete("ex_1") is None
    assert await mine.history.replace("ex_1", BENCH, units=units, now=NOW) is None
    assert await mine.history.between(None, None) == []


# --- schedule, calendar plans, milestones ---------------------------------------------------------------


async def test_schedule_round_trip_scoped_to_the_user(two_users: tuple[UserData, UserData]) -> None:
    mine, theirs = two_users
    when = NOW + timedelta(days=2)
    added = await mine.schedule.add(scheduled_date=when, workout_type="Upper Body", duration_minutes=45)

    assert [row["id"] for row in await mine.schedule.upcoming(days_ahead=7, now=NOW)] == [added["id"]]
    assert await theirs.schedule.upcoming(days_ahead=7, now=NOW) == []
    assert await theirs.schedule.update(added["id"], status="skipped") is None
    assert await theirs.schedule.delete(added["id"]) is None
    assert await mine.schedule.update("tomorrow", status="skipped") is None

    moved = await mine.schedule.update(added["id"], scheduled_date=when + timedelta(days=1), notes="moved")
    assert moved is not None and (moved["scheduled_date"], moved["notes"]) == (
        when + timedelta(days=1),
        "moved",
    )
    with pytest.raises(UserDataError, match="status must be one of"):
        await mine.schedule.update(added["id"], status="done")
    assert await mine.schedule.delete(added["id"]) == moved
    assert await mine.schedule.upcoming(days_ahead=7, now=NOW) == []


async def test_a_calendar_plan_and_its_sessions_are_written_together_or_not_at_all(
    two_users: tuple[UserData, UserData],
) -> None:
    mine, theirs = two_users
    start = NOW.date() + timedelta(days=1)
    sessions = [
        PlanSession(scheduled_date=NOW + timedelta(days=day), workout_type="Run", notes=f"day {day}")
        for day in (1, 3)
    ]
    plan, scheduled = await mine.workout_plans.create(
        plan_name="5K", start_date=start, duration_weeks=1, workouts_per_week=2, sessions=sessions
    )

    assert [row["plan_id"] for row in scheduled] == [plan["id"], plan["id"]]
    assert [row["notes"] for row in scheduled] == ["day 1", "day 3"]
    assert [row["id"] for row in await mine.workout_plans.with_status("active")] == [plan["id"]]
    assert await theirs.workout_plans.with_status("all") == []

    broken = [*sessions, PlanSession(scheduled_date=NOW + timedelta(days=5), workout_type=" ")]
    with pytest.raises(UserDataError, match="workout_type must be 1-100 characters"):
        await mine.workout_plans.create(
            plan_name="Broken", start_date=start, duration_weeks=1, sessions=broken
        )
    assert [row["plan_name"] for row in await mine.workout_plans.with_status("all")] == ["5K"]
    assert len(await mine.schedule.upcoming(days_ahead=30, now=NOW)) == 2


async def test_milestones_round_trip_scoped_to_the_user(two_users: tuple[UserData, UserData]) -> None:
    mine, theirs = two_users
    goal = await mine.milestones.create(goal_name="Bench 100 kg", goal_type="weight", target_value=100)

    progressed = await mine.milestones.update_progress(goal["id"], 80)
    assert progressed is not None and progressed["current_value"] == 80
    assert await theirs.milestones.update_progress(goal["id"], 90) is None
    assert await theirs.milestones.set_status(goal["id"], "achieved", current_value=100) is None
    assert await mine.milestones.set_status("goal-1", "achieved") is None
    assert await theirs.milestones.with_status("all") == []

    achieved = await mine.milestones.set_status(goal["id"], "achieved", current_value=100)
    assert achieved is not None and (achieved["status"], achieved["current_value"]) == ("achieved", 100)
    assert achieved["achieved_at"] is not None
    assert await mine.milestones.with_status("active") == []
    with pytest.raises(UserDataError, match="status must be one of"):
        await mine.milestones.with_status("done")


# --- training plans (read side) ------------------------------------------------------------------------


async def test_training_plans_are_read_for_their_user_only(
    db: Database, two_users: tuple[UserData, UserData]
) -> None:
    mine, theirs = two_users
    assert await mine.training_plans.shown() is None
    assert not await mine.training_plans.exists()
    async with db.transaction() as conn:
        plan = await programs.create_plan(
            conn, mine.user_id, weeks=4, training_days=["Monday", "Thursday"], session_minutes=45,
            start_date=NOW.date(),
        )  # fmt: skip

    assert await mine.training_plans.exists()
    assert [row["id"] for row in await mine.training_plans.newest()] == [plan["id"]]
    shown = await mine.training_plans.shown()
    assert shown is not None and (shown.plan["id"], shown.built_weeks) == (plan["id"], [])
    detail = await mine.training_plans.detail(plan["id"])
    assert detail is not None and (detail.plan["status"], detail.weeks, detail.days) == ("pending", [], [])
    assert await mine.training_plans.workouts(NOW.date(), NOW.date() + timedelta(days=7)) == []

    assert not await theirs.training_plans.exists()
    assert await theirs.training_plans.shown() is None
    assert await theirs.training_plans.detail(plan["id"]) is None
    assert await mine.training_plans.detail("plan-1") is None
    assert await mine.training_plans.workout("day-1") is None
    assert await mine.training_plans.workout(plan["id"]) is None
    with pytest.raises(UserDataError, match="the end date is before the start date"):
        await mine.training_plans.workouts(NOW.date(), NOW.date() - timedelta(days=1))


# --- the facade -------------------------------------------------------------------------------------------


async def test_reading_takes_one_connection_for_several_calls(db: Database, make_user: MakeUser) -> None:
    data = UserDataService(db).for_user(make_user())
    db.stats.reset()
    async with data.reading() as reads:
        await reads.settings.get()
        await reads.profile.get()
        await reads.locations.all()
        await reads.history.distribution()
    assert (db.stats.checkouts, db.stats.peak_in_use) == (1, 1)

    db.stats.reset()
    await data.settings.get()
    await data.locations.all()
    assert db.stats.checkouts == 2


async def test_a_transaction_keeps_all_of_its_writes_or_none(db: Database, make_user: MakeUser) -> None:
    data = UserDataService(db).for_user(make_user())
    with pytest.raises(UserDataError, match="weight_unit must be one of"):
        async with data.transaction() as tx:
            await tx.locations.create("Home", make_current=True)
            await tx.settings.update(weight_unit="stone")
    assert await data.locations.all() == []

    async with data.transaction() as tx:
        await tx.locations.create("Home", make_current=True)
        await tx.settings.update(weight_unit="lbs")
    assert (await data.settings.get()).weight_unit == "lbs"
    assert [row["name"] for row in await data.locations.all()] == ["Home"]


async def test_a_subject_that_is_not_a_uuid_reaches_the_same_user_every_time(db: Database) -> None:
    service = UserDataService(db)
    await service.for_user("auth0|trainee-7").settings.update(distance_unit="mi")

    assert service.for_user("auth0|trainee-7").user_id == user_uuid("auth0|trainee-7")
    assert (await service.for_user("auth0|trainee-7").settings.get()).distance_unit == "mi"
    assert (await service.for_user(user_uuid("auth0|trainee-7")).settings.get()).distance_unit == "mi"
    assert (await service.for_user("auth0|trainee-8").settings.get()).distance_unit == "km"


async def test_a_held_connection_serves_the_same_calls(db: Database, make_user: MakeUser) -> None:
    user_id = make_user()
    await UserDataService(db).for_user(user_id).locations.create("Hotel gym", make_current=True)
    async with db.connection() as conn:
        data = UserData.on_connection(conn, user_id)
        assert (await data.locations.current() or {})["name"] == "Hotel gym"
        async with data.reading() as reads:
            assert (await reads.settings.get()).timezone == "UTC"
