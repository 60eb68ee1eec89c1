"""Repositories against a real Postgres: scoping by user, distribution tracking, preferences, locations."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from trainer.store.db import Database
from trainer.store.repositories import (
    Ambiguous,
    NotFound,
    RepositoryError,
    goals,
    history,
    locations,
    milestones,
    plans,
    preferences,
    profiles,
    schedule,
    settings,
)

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)

BENCH: dict[str, Any] = {
    "exercise_name": "Bench Press", "exercise_type": "reps", "sets": 3, "reps": [8, 8, 6], "load": 60,
    "load_unit": "kg", "rpe": 8,
    "muscles_utilized": [{"muscle": "Chest", "share": 0.6}, {"muscle": "Triceps", "share": 0.25},
                         {"muscle": "Shoulders", "share": 0.15}],
    "goals_addressed": [{"goal": "Strength", "share": 0.7}, {"goal": "Hypertrophy", "share": 0.3}],
}  # fmt: skip
RUN: dict[str, Any] = {
    "exercise_name": "Easy Run", "exercise_type": "duration", "duration_min": 30, "distance": 5,
    "muscles": [{"muscle": "quadriceps", "share": 1}, {"muscle": "Calves", "share": 1}],
    "goals": [{"goal": "cardio", "share": 1}],
}  # fmt: skip


async def _history_rows(db: Database, user_id: str) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        return await history.list_between(conn, user_id, None, None)


async def _totals(db: Database, user_id: str) -> dict[str, Any]:
    async with db.connection() as conn:
        return await history.distribution_totals(conn, user_id)


async def test_log_then_undo_restores_history_and_totals_exactly(
    db: Database, make_user: Callable[..., str]
) -> None:
    user_id = make_user()
    async with db.connection() as conn:
        await history.log_exercises(conn, user_id, [RUN], now=NOW - timedelta(days=1))
    rows_before, totals_before = await _history_rows(db, user_id), await _totals(db, user_id)

    async with db.connection() as conn:
        logged = await history.log_exercises(conn, user_id, [BENCH, BENCH], now=NOW)
    middle = await _totals(db, user_id)
    assert middle["logged_count"] == 3
    assert middle["muscle"]["Chest"] == Decimal("1.2")
    assert middle["category"]["Strength"] == Decimal("1.4")
    assert middle["category_total"] == Decimal("3") and middle["muscle_total"] == Decimal("3")

    async with db.connection() as conn:
        for row in logged:
            deleted = await history.delete_logged(conn, user_id, row["id"])
            assert deleted is not None and deleted["id"] == row["id"]
        assert await history.delete_logged(conn, user_id, logged[0]["id"]) is None

    assert await _history_rows(db, user_id) == rows_before
    assert await _totals(db, user_id) == totals_before
    assert "Chest" not in totals_before["muscle"]


async def test_running_totals_match_a_full_rebuild(db: Database, make_user: Callable[..., str]) -> None:
    user_id = make_user()
    async with db.connection() as conn:
        logged = await history.log_exercises(conn, user_id, [BENCH, RUN, BENCH, RUN], now=NOW)
        await history.delete_logged(conn, user_id, logged[1]["id"])
        incremental = await history.distribution_totals(conn, user_id)
        await history.rebuild_distribution(conn, user_id)
        rebuilt = await history.distribution_totals(conn, user_id)
    assert incremental == rebuilt
    assert incremental["muscle"]["Quadriceps"] == Decimal("0.5")
    assert incremental["category"]["cardio"] == Decimal("1")


async def test_logging_is_atomic_with_the_callers_transaction(
    db: Database, make_user: Callable[..., str]
) -> None:
    user_id = make_user()
    with pytest.raises(RuntimeError):
        async with db.transaction() as conn:
            await history.log_exercises(conn, user_id, [BENCH], now=NOW)
            raise RuntimeError("tool failed after logging")
    assert await _history_rows(db, user_id) == []
    assert (await _totals(db, user_id))["logged_count"] == 0


async def test_log_stores_what_was_logged_with_units(db: Database, make_user: Callable[..., str]) -> None:
    user_id = make_user(weight_unit="lbs", distance_unit="mi")
    async with db.connection() as conn:
        [bench, run] = await history.log_exercises(
            conn,
            user_id,
            [{**BENCH, "load_unit": None}, RUN],
            default_weight_unit="lbs",
            default_distance_unit="mi",
        )
    assert bench["load_each"] == [Decimal(60)] * 3 and bench["load_unit"] == "lbs"
    assert run["distance"] == Decimal(5) and run["distance_unit"] == "mi"
    assert run["muscles"] == [{"muscle": "Quadriceps", "share": 0.5}, {"muscle": "Calves", "share": 0.5}]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"exercise_type": "reps"}, "exercise_name is required"),
        ({"exercise_name": "X", "exercise_type": "cardio"}, "exercise_type must be one of"),
        ({**BENCH, "reps": [8, 8]}, "one value per set"),
        ({**BENCH, "muscles_utilized": [{"muscle": "Pecs", "share": 1}]}, "not one of the 16 muscles"),
        ({**BENCH, "rpe": 11}, "rpe must be at most 10"),
        ({**BENCH, "performed_at": "yesterday"}, "not an ISO timestamp"),
    ],
)
async def test_bad_entries_are_refused_clearly(
    db: Database, make_user: Callable[..., str], entry: dict[str, Any], message: str
) -> None:
    user_id = make_user()
    async with db.connection() as conn:
        with pytest.raises(RepositoryError, match=message) as info:
            await history.log_exercises(conn, user_id, [RUN, entry], now=NOW)
    assert str(info.value).startswith("exercise 2:")
    assert await _history_rows(db, user_id) == []


async def test_history_is_scoped_by_user(db: Database, make_user: Callable[..., str]) -> None:
    alice, bob = make_user(), make_user()
    async with db.connection() as conn:
        [row] = await history.log_exercises(conn, alice, [BENCH], now=NOW)
        assert await history.list_recent(conn, bob, now=NOW) == []
        assert await history.get_logged(conn, bob, row["id"]) is None
        assert await history.delete_logged(conn, bob, row["id"]) is None
        assert len(await history.list_recent(conn, alice, now=NOW)) == 1
    assert (await _totals(db, bob))["logged_count"] == 0
    assert (await _totals(db, alice))["logged_count"] == 1


async def test_recent_history_respects_days_back_and_limit(
    db: Database, make_user: Callable[..., str]
) -> None:
    user_id = make_user()
    entries = [{**RUN, "performed_at": NOW - timedelta(days=d)} for d in range(0, 30)]
    async with db.connection() as conn:
        await history.log_exercises(conn, user_id, entries, now=NOW)
        recent = await history.list_recent(conn, user_id, days_back=7, limit=100, now=NOW)
        limited = await history.list_recent(conn, user_id, days_back=30, limit=5, now=NOW)
    assert len(recent) == 8
    assert [r["performed_at"] for r in limited] == [NOW - timedelta(days=d) for d in range(5)]


async def test_preferences_expire_and_one_shot_ones_are_consumed(
    db: Database, make_user: Callable[..., str]
) -> None:
    alice, bob = make_user(), make_user()
    async with db.connection() as conn:
        await preferences.create_preference(
            conn, alice, type="injury", description="Sore shoulder", guidance="No overhead pressing",
            expires_at=NOW + timedelta(days=14), now=NOW,
        )  # fmt: skip
        await preferences.create_preference(conn, alice, type="exercise", description="Hates burpees")
        one_shot = await preferences.create_preference(
            conn, alice, type="time", description="Only 20 minutes today", delete_after_use=True
        )
        await preferences.create_preference(
            conn, bob, type="time", description="Bob's one-shot", delete_after_use=True
        )

        assert len(await preferences.list_active(conn, alice, NOW)) == 3
        later = await preferences.list_active(conn, alice, NOW + timedelta(days=15))
        assert [p["description"] for p in later] == ["Hates burpees", "Only 20 minutes today"]

        consumed = await preferences.consume_delete_after_use(conn, alice)
        assert [p["id"] for p in consumed] == [one_shot["id"]]
        assert await preferences.consume_delete_after_use(conn, alice) == []
        assert [p["description"] for p in await preferences.list_active(conn, alice, NOW)] == [
            "Sore shoulder", "Hates burpees",
        ]  # fmt: skip
        assert len(await preferences.list_active(conn, bob, NOW)) == 1

        with pytest.raises(RepositoryError, match="in the past"):
            await preferences.create_preference(
                conn, alice, type="other", description="x", expires_at=NOW - timedelta(days=1), now=NOW
            )
        with pytest.raises(RepositoryError, match="type must be one of"):
            await preferences.create_preference(conn, alice, type="mood", description="x")
        assert await preferences.delete_preference(conn, bob, consumed[0]["id"]) is None


async def test_set_current_keeps_exactly_one(db: Database, make_user: Callable[..., str]) -> None:
    alice, bob = make_user(), make_user()
    async with db.connection() as conn:
        home = await locations.create_location(
            conn, alice, "Home Gym", equipment=["Pull-up Bar"], make_current=True
        )
        gym = await locations.create_location(conn, alice, "Commercial Gym")
        await locations.create_location(conn, alice, "Gym at Work")
        bobs = await locations.create_location(conn, bob, "Bob's Garage", make_current=True)

        switched = await locations.set_current(conn, alice, name="commercial gym")
        assert switched["id"] == gym["id"] and switched["is_current"]
        current = [loc["id"] for loc in await locations.list_locations(conn, alice) if loc["is_current"]]
        assert current == [gym["id"]]

        assert (await locations.set_current(conn, alice, location_id=str(home["id"])))["id"] == home["id"]
        assert [loc["name"] for loc in await locations.list_locations(conn, alice) if loc["is_current"]] == [
            "Home Gym"
        ]
        assert (await locations.set_current(conn, alice, name="work"))["name"] == "Gym at Work"

        with pytest.raises(Ambiguous, match="matches several"):
            await locations.set_current(conn, alice, name="gym")
        with pytest.raises(NotFound, match="your locations: Commercial Gym, Gym at Work, Home Gym"):
            await locations.set_current(conn, alice, name="Beach")
        with pytest.raises(NotFound):
            await locations.set_current(conn, alice, location_id=bobs["id"])
        with pytest.raises(RepositoryError, match="not a valid UUID"):
            await locations.set_current(conn, alice, location_id="nope")
        assert (await locations.get_current(conn, alice))["name"] == "Gym at Work"  # type: ignore[index]
        assert (await locations.get_current(conn, bob))["id"] == bobs["id"]  # type: ignore[index]
        with pytest.raises(RepositoryError, match="already exists"):
            await locations.create_location(conn, alice, "home gym")


async def test_goals_are_normalised_and_replaced(db: Database, make_user: Callable[..., str]) -> None:
    user_id = make_user()
    async with db.connection() as conn:
        saved = await goals.set_category_goals(
            conn, user_id,
            [{"category": "Strength", "description": "Heavy", "percentage": 40},
             {"category": "Cardio", "percentage": 40}, {"category": "Mobility", "percentage": 40}],
        )  # fmt: skip
        assert sum(g["weight"] for g in saved) == Decimal(1)
        assert {g["category"] for g in saved} == {"Strength", "Cardio", "Mobility"}
        saved = await goals.set_category_goals(conn, user_id, [{"category": "Strength", "percentage": 100}])
        assert [(g["category"], g["weight"]) for g in saved] == [("Strength", Decimal(1))]

        muscles = await goals.set_muscle_goals(conn, user_id, {"chest": 30, "Back": 30, "lower back": 15})
        assert {m["muscle"]: m["weight"] for m in muscles} == {
            "Chest": Decimal("0.4"), "Back": Decimal("0.4"), "Lower Back": Decimal("0.2"),
        }  # fmt: skip
        with pytest.raises(RepositoryError, match="not one of the 16 muscles"):
            await goals.set_muscle_goals(conn, user_id, {"Pecs": 100})
        with pytest.raises(RepositoryError, match="listed twice"):
            await goals.set_category_goals(
                conn, user_id, [{"category": "A", "percentage": 1}, {"category": "a", "percentage": 1}]
            )
        with pytest.raises(RepositoryError, match="must not all be zero"):
            await goals.set_muscle_goals(conn, user_id, {"Chest": 0})
        assert len(await goals.list_muscle_goals(conn, user_id)) == 3


def test_normalised_weights_always_sum_to_one() -> None:
    for values in ([1, 1, 1], [33, 33, 34], [1, 2, 3, 4, 5, 6, 7], [0.1, 0.2], [50, 0, 50]):
        weights = goals.normalise_weights(values)
        assert sum(weights) == Decimal(1)
        assert all(w >= 0 for w in weights)


async def test_profile_and_settings(db: Database) -> None:
    user_id = str(uuid.uuid4())
    async with db.connection() as conn:
        await profiles.ensure_user(conn, user_id, display_name="New")
        await profiles.ensure_user(conn, user_id, display_name="Ignored")
        profile = await profiles.update_profile(
            conn, user_id, sex="Female", weight_kg=61.5, birth_date="1990-02-03"
        )
        assert profile["display_name"] == "New" and profile["sex"] == "female"
        assert await settings.get_user_settings(conn, user_id) == settings.DEFAULT_SETTINGS
        updated = await settings.update_user_settings(
            conn, user_id, weight_unit="lbs", preferred_days=["fri", "Monday"]
        )
        assert updated["weight_unit"] == "lbs" and updated["preferred_days"] == ["Monday", "Friday"]
        with pytest.raises(RepositoryError, match="weight_unit must be one of"):
            await settings.update_user_settings(conn, user_id, weight_unit="stone")
        with pytest.raises(RepositoryError, match="unknown timezone"):
            await settings.update_user_settings(conn, user_id, timezone="Mars/Olympus")
        with pytest.raises(RepositoryError, match="between 0 and 700"):
            await profiles.update_profile(conn, user_id, weight_kg=-3)


async def test_schedule_plans_and_milestones_are_scoped(db: Database, make_user: Callable[..., str]) -> None:
    alice, bob = make_user(timezone="America/New_York"), make_user()
    async with db.connection() as conn:
        plan = await plans.create_plan(
            conn, alice, plan_name="5K Plan", start_date="2026-03-09", duration_weeks=4,
            goal_description="Run 5K", workouts_per_week=3, preferred_days=["Mon", "wed", "Friday"],
        )  # fmt: skip
        assert str(plan["end_date"]) == "2026-04-05"
        soon = await schedule.schedule_workout(
            conn, alice, scheduled_date="2026-03-12", workout_type="Easy Run", duration_minutes=30,
            plan_id=plan["id"], timezone="America/New_York",
        )  # fmt: skip
        assert soon["scheduled_date"] == datetime(2026, 3, 12, 4, 0, tzinfo=UTC)
        await schedule.schedule_workout(
            conn, alice, scheduled_date="2026-04-30T18:00:00Z", workout_type="Far"
        )
        assert [
            w["workout_type"] for w in await schedule.list_upcoming(conn, alice, days_ahead=7, now=NOW)
        ] == ["Easy Run"]
        assert await schedule.list_upcoming(conn, bob, days_ahead=365, now=NOW) == []
        assert await schedule.update_scheduled(conn, bob, soon["id"], status="completed") is None
        done = await schedule.update_scheduled(conn, alice, soon["id"], status="completed")
        assert done is not None and done["status"] == "completed"
        assert await schedule.delete_scheduled(conn, bob, soon["id"]) is None

        goal = await milestones.create_milestone(
            conn, alice, goal_name="Run a 5K", goal_type="distance", target_value=5, target_unit="km"
        )
        assert await milestones.update_progress(conn, bob, goal["id"], 3) is None
        progressed = await milestones.update_progress(conn, alice, goal["id"], 3.2)
        assert progressed is not None and progressed["current_value"] == Decimal("3.2")
        achieved = await milestones.set_status(conn, alice, goal["id"], "achieved")
        assert achieved is not None and achieved["achieved_at"] is not None
        assert await milestones.list_milestones(conn, alice) == []
        assert len(await milestones.list_milestones(conn, alice, "achieved")) == 1
        assert await plans.list_plans(conn, bob, "all") == []
        assert [p["plan_name"] for p in await plans.list_plans(conn, alice)] == ["5K Plan"]
        with pytest.raises(RepositoryError, match="status must be one of"):
            await plans.list_plans(conn, alice, "bogus")
