"""Data sources for a seeded user: correct formatted output, never another user's data, errors isolated."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from trainer.sources.registry import DISPLAY_NAMES, SOURCE_NAMES, build_user_data_xml, fetch_sources
from trainer.store.db import Database
from trainer.store.repositories import history, locations, milestones, plans, preferences, schedule
from trainer_dev.local.seed import seed_demo_user

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
SECRET = "ZZSECRET"


async def _seed_other_user(db: Database, make_user: Callable[..., str]) -> str:
    """A second user whose every row carries SECRET, so leaks are easy to spot."""
    other = make_user(display_name=f"{SECRET} name")
    await seed_demo_user(db, other, now=NOW)
    async with db.connection() as conn:
        await locations.create_location(conn, other, f"{SECRET} gym", equipment=[f"{SECRET} bar"])
        await locations.set_current(conn, other, name=f"{SECRET} gym")
        await preferences.create_preference(conn, other, type="other", description=f"{SECRET} pref")
        await history.log_exercises(
            conn, other,
            [{"exercise_name": f"{SECRET} lift", "exercise_type": "reps", "sets": 1, "reps": [5],
              "muscles": [{"muscle": "Neck", "share": 1}],
              "goals": [{"goal": f"{SECRET} goal", "share": 1}]}],
            now=NOW,
        )  # fmt: skip
        await schedule.schedule_workout(
            conn, other, scheduled_date=NOW + timedelta(days=1), workout_type=SECRET
        )
        await plans.create_plan(conn, other, plan_name=SECRET, start_date="2026-03-01", duration_weeks=2)
        await milestones.create_milestone(conn, other, goal_name=SECRET)
    return other


async def _seed_user(db: Database, make_user: Callable[..., str]) -> str:
    user_id = make_user()
    await seed_demo_user(db, user_id, now=NOW)
    async with db.connection() as conn:
        await preferences.create_preference(
            conn, user_id, type="injury", description="Sore shoulder", guidance="No overhead pressing",
            expires_at=NOW + timedelta(days=7), now=NOW,
        )  # fmt: skip
        await preferences.create_preference(
            conn,
            user_id,
            type="exercise",
            description="Old note",
            expires_at=NOW + timedelta(hours=1),
            now=NOW,
        )
        await schedule.schedule_workout(
            conn,
            user_id,
            scheduled_date="2026-03-12T18:30:00Z",
            workout_type="Upper Body",
            duration_minutes=45,
        )
        await schedule.schedule_workout(
            conn, user_id, scheduled_date="2026-05-01T18:30:00Z", workout_type="Later"
        )
        await plans.create_plan(
            conn, user_id, plan_name="4-Week Strength", start_date="2026-03-09", duration_weeks=4,
            goal_description="Get stronger", workouts_per_week=3,
            preferred_days=["Monday", "Wednesday", "Friday"],
        )  # fmt: skip
        await milestones.create_milestone(
            conn, user_id, goal_name="Run a 5K", goal_type="distance", target_value=5, target_unit="km",
            target_date="2026-06-01", current_value=3.2,
        )  # fmt: skip
    return user_id


async def _current_workout() -> dict[str, Any]:
    return {
        "title": "Push Day",
        "exercises": [
            {"id": "ex_aaa111", "order": 1, "exercise_name": "Bench Press", "exercise_type": "reps",
             "sets": 3, "reps": [8, 8, 8], "load_each": [60, 60, 60], "load_unit": "kg", "completed": True},
            {"id": "ex_bbb222", "order": 2, "exercise_name": "Plank", "exercise_type": "hold", "sets": 2,
             "hold_sec": [30, 45]},
        ],
    }  # fmt: skip


async def test_every_source_for_a_seeded_user(db: Database, make_user: Callable[..., str]) -> None:
    await _seed_other_user(db, make_user)
    user_id = await _seed_user(db, make_user)
    results = await fetch_sources(
        db, user_id, [(name, None) for name in SOURCE_NAMES], now=NOW, current_workout=_current_workout
    )
    by_name = {r.source: r for r in results}
    assert [r.source for r in results] == list(SOURCE_NAMES)
    assert all(r.error is None for r in results), [(r.source, r.error) for r in results if r.error]
    for result in results:
        assert SECRET not in result.formatted, result.source
        assert SECRET not in repr(result.data), result.source

    assert by_name["user_profile"].formatted == (
        "<user_profile>\nName: Demo User\nSex: male\nAge: 29\nHeight: 180cm\nWeight: 82kg\nBody Fat: 15%\n"
        "</user_profile>"
    )
    assert by_name["user_settings"].formatted.startswith(
        "<user_settings>\nWeight unit: kg\nDistance unit: km\n"
    )
    assert "Location: Home Gym" in by_name["current_location"].formatted
    assert (
        "Dumbbells (free_weights): 5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25kg"
        in by_name["current_location"].formatted
    )
    all_locations = by_name["all_locations"].formatted
    assert all_locations.index("Home Gym") < all_locations.index("Commercial Gym")
    assert "(current)" in all_locations.split("\n")[1] and "Squat Rack (rack)" in all_locations

    category = by_name["category_goals"].formatted
    assert "    Strength: 50% target - Compound lifts and progressive overload" in category
    assert "  Distribution (15 exercises logged):" in category
    assert "    Cardio: 13% actual (20% target), debt: +7%" in category
    muscle = by_name["muscle_goals"].formatted
    assert "    Shoulders: 3% actual (10% target), debt: +7%" in muscle
    assert "Neck: 0% actual (2% target), debt: +2%" in muscle

    prefs = by_name["active_preferences"].formatted
    assert "injury: Sore shoulder (temporary, until Tue, Mar 17) - guidance: No overhead pressing" in prefs

    workout_history = by_name["workout_history"]
    assert workout_history.params == {"days_back": 14, "limit": 15}
    lines = workout_history.formatted.splitlines()
    assert lines[0] == '<workout_history days_back="14" count="15" workouts="7">'  # one chat, seven days
    assert lines[1].startswith("  Sun, Mar 8: Plank (hold) 3x45/45/40s hold [id: ")
    bench = "Dumbbell Bench Press (reps) 3 sets: 20, 20, 22.5 kg x 10, 10, 8 reps RPE:8"
    assert any(bench in line for line in lines)
    assert any("Easy Run (duration) 30min 5km RPE:5" in line for line in lines)

    targets = by_name["progression_targets"].formatted.splitlines()
    assert targets[0] == '<progression_targets unit="kg">' and len(targets) == 5
    assert targets[1] == (
        "  Dumbbell Bench Press: 1x9 @22.5kg - 22.5 kg x 8 on 8 Mar, inside your 8-12 reps: same weight, "
        "9 reps; add weight once you reach 12."
    )
    assert targets[2].startswith("  Romanian Deadlift: 3x11 @22.5kg - 22.5 kg x 10 on 4 Mar")

    distribution = by_name["exercise_distribution"].formatted
    assert distribution.startswith('<exercise_distribution exercises="15">\n  Categories: Strength 55%')
    assert "✓ 1. Bench Press (reps) 3x8 @60kg [id: ex_aaa111]" in by_name["current_workout_session"].formatted
    assert "Progress: 1/2" in by_name["current_workout_session"].formatted
    schedule_text = by_name["scheduled_workouts"].formatted
    assert "Thu, Mar 12 18:30: Upper Body (45min)" in schedule_text and "Later" not in schedule_text
    assert "4-Week Strength (active): Mar 9, 2026 to Apr 5, 2026, 4 weeks, 3x/week on Mon, Wed, Fri" in (
        by_name["workout_plans"].formatted
    )
    assert "Run a 5K (distance, active): 3.2/5 km, by Jun 1, 2026" in by_name["milestone_goals"].formatted
    assert DISPLAY_NAMES["workout_history"] == "Workout history"


async def test_params_expiry_and_errors_are_per_source(db: Database, make_user: Callable[..., str]) -> None:
    user_id = await _seed_user(db, make_user)
    later = NOW + timedelta(days=8)
    results = await fetch_sources(
        db, user_id,
        [("workout_history", {"days_back": 3, "limit": 2}), ("active_preferences", None),
         ("no_such_source", None),
         ("workout_history", {"days_back": "lots"}), ("scheduled_workouts", {"days_ahead": 60, "oops": 1}),
         ("current_workout_session", None), ("scheduled_workouts", {"days_ahead": 60}),
         ("milestone_goals", {"status": "achieved"})],
        now=later,
    )  # fmt: skip
    narrow, prefs, unknown, bad, extra, no_provider, wide, achieved = results
    assert narrow.error is None and narrow.formatted.startswith('<workout_history days_back="3" count="0">')
    assert prefs.formatted == "<preferences>None active</preferences>"
    assert unknown.error is not None and "unknown data source 'no_such_source'" in unknown.error
    assert bad.error == "days_back must be a whole number"
    assert extra.error is not None and "unknown parameter(s) oops" in extra.error
    assert no_provider.error == "the current workout is not available here"
    assert wide.error is None and "May 1" in wide.formatted
    assert achieved.formatted == '<milestone_goals status="achieved">No milestones</milestone_goals>'


async def test_user_data_xml(db: Database, make_user: Callable[..., str]) -> None:
    await _seed_other_user(db, make_user)
    user_id = make_user()
    await seed_demo_user(db, user_id, now=NOW)
    await seed_demo_user(db, user_id, now=NOW)
    async with db.connection() as conn:
        await locations.create_location(conn, user_id, "</current_location><evil>")
    first = await build_user_data_xml(db, user_id, today=date(2026, 3, 10))
    second = await build_user_data_xml(db, user_id, today=date(2026, 3, 10))
    assert first == second
    assert SECRET not in first
    assert first.startswith(
        "<user_data>\n<unit_preferences>\nWeight: kg\nDistance: km\n</unit_preferences>\n"
    )
    assert "<current_location>\nLocation: Home Gym\nLocation id: " in first
    assert "\nDescription: Garage setup\nEquipment:\n" in first
    assert "&lt;/current_location&gt;&lt;evil&gt;" in first and "<evil>" not in first
    assert first.count("<current_location>") == 1 and first.count("</current_location>") == 1


async def test_seed_is_idempotent(db: Database, make_user: Callable[..., str]) -> None:
    user_id = make_user()
    await seed_demo_user(db, user_id, now=NOW)
    async with db.connection() as conn:
        totals = await history.distribution_totals(conn, user_id)
        locs = await locations.list_locations(conn, user_id)
    await seed_demo_user(db, user_id, now=NOW + timedelta(days=1))
    async with db.connection() as conn:
        assert await history.distribution_totals(conn, user_id) == totals
        assert [(loc["id"], loc["is_current"]) for loc in await locations.list_locations(conn, user_id)] == [
            (loc["id"], loc["is_current"]) for loc in locs
        ]
    assert totals["logged_count"] == 15 and len(locs) == 2


async def test_a_user_id_with_no_rows_gets_empty_sources(db: Database) -> None:
    results = await fetch_sources(
        db,
        str(uuid.uuid4()),
        [(name, None) for name in SOURCE_NAMES if name != "current_workout_session"],
        now=NOW,
    )
    assert all(r.error is None for r in results)
    assert {r.source: r.formatted for r in results}["current_location"] == (
        "<current_location>No current location set</current_location>"
    )
