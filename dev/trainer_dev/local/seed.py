"""A demo user for `make run` and e2e tests: profile, units, two locations, goals, two weeks of history.

Idempotent: re-running updates the profile, locations and goals in place and adds history only once.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from trainer.store.db import Database
from trainer.store.repositories import UserId, goals, history, locations, profiles, settings

SEED_SESSION_ID = "demo-seed"

HOME_GYM: list[dict[str, Any]] = [
    {
        "name": "Dumbbells",
        "type": "free_weights",
        "weights": [5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25],
        "unit": "kg",
    },
    {"name": "Adjustable Bench", "type": "bench"},
    {"name": "Pull-up Bar", "type": "bodyweight"},
    {"name": "Resistance Bands", "type": "bands"},
]
COMMERCIAL_GYM: list[dict[str, Any]] = [
    {"name": "Barbell", "type": "free_weights", "weights": [20], "unit": "kg"},
    {
        "name": "Weight Plates",
        "type": "free_weights",
        "weights": [1.25, 2.5, 5, 10, 15, 20, 25],
        "unit": "kg",
    },
    {"name": "Squat Rack", "type": "rack"},
    {"name": "Flat Bench", "type": "bench"},
    {"name": "Cable Machine", "type": "machine"},
    {"name": "Leg Press", "type": "machine"},
    {"name": "Lat Pulldown", "type": "machine"},
    {"name": "Treadmill", "type": "cardio"},
    {
        "name": "Dumbbells",
        "type": "free_weights",
        "weights": [2.5, 5, 10, 15, 20, 25, 30, 35, 40],
        "unit": "kg",
    },
]
CATEGORY_GOALS = [
    {"category": "Strength", "description": "Compound lifts and progressive overload", "percentage": 50},
    {"category": "Hypertrophy", "description": "Moderate loads, 8-12 reps, muscle growth", "percentage": 30},
    {"category": "Cardio", "description": "Aerobic conditioning and endurance", "percentage": 20},
]
MUSCLE_GOALS = {
    "Chest": 12, "Back": 14, "Shoulders": 10, "Biceps": 6, "Triceps": 6, "Abs": 8, "Lower Back": 4,
    "Quadriceps": 12, "Hamstrings": 8, "Glutes": 10, "Calves": 4, "Trapezius": 2, "Forearms": 2, "Neck": 2,
}  # fmt: skip

_SESSIONS: list[list[dict[str, Any]]] = [
    [
        {"exercise_name": "Dumbbell Bench Press", "exercise_type": "reps", "sets": 3, "reps": [10, 10, 8],
         "load_each": [20, 20, 22.5], "load_unit": "kg", "rpe": 8,
         "muscles": [{"muscle": "Chest", "share": 0.6}, {"muscle": "Triceps", "share": 0.25},
                     {"muscle": "Shoulders", "share": 0.15}],
         "goals": [{"goal": "Strength", "share": 0.5}, {"goal": "Hypertrophy", "share": 0.5}]},
        {"exercise_name": "Pull-ups", "exercise_type": "reps", "sets": 3, "reps": [8, 7, 6], "rpe": 9,
         "muscles": [{"muscle": "Back", "share": 0.7}, {"muscle": "Biceps", "share": 0.3}],
         "goals": [{"goal": "Strength", "share": 1.0}]},
        {"exercise_name": "Plank", "exercise_type": "hold", "sets": 3, "hold_sec": [45, 45, 40],
         "muscles": [{"muscle": "Abs", "share": 0.8}, {"muscle": "Lower Back", "share": 0.2}],
         "goals": [{"goal": "Strength", "share": 1.0}]},
    ],
    [
        {"exercise_name": "Goblet Squat", "exercise_type": "reps", "sets": 4, "reps": [10, 10, 10, 10],
         "load_each": [25, 25, 25, 25], "load_unit": "kg", "rpe": 7,
         "muscles": [{"muscle": "Quadriceps", "share": 0.6}, {"muscle": "Glutes", "share": 0.3},
                     {"muscle": "Abs", "share": 0.1}],
         "goals": [{"goal": "Hypertrophy", "share": 0.6}, {"goal": "Strength", "share": 0.4}]},
        {"exercise_name": "Romanian Deadlift", "exercise_type": "reps", "sets": 3, "reps": [10, 10, 10],
         "load_each": [22.5, 22.5, 22.5], "load_unit": "kg", "rpe": 7,
         "muscles": [{"muscle": "Hamstrings", "share": 0.6}, {"muscle": "Glutes", "share": 0.3},
                     {"muscle": "Lower Back", "share": 0.1}],
         "goals": [{"goal": "Hypertrophy", "share": 1.0}]},
    ],
    [
        {"exercise_name": "Easy Run", "exercise_type": "duration", "duration_min": 30, "distance": 5,
         "distance_unit": "km", "rpe": 5,
         "muscles": [{"muscle": "Quadriceps", "share": 0.4}, {"muscle": "Calves", "share": 0.3},
                     {"muscle": "Hamstrings", "share": 0.3}],
         "goals": [{"goal": "Cardio", "share": 1.0}]},
    ],
]  # fmt: skip


def demo_history(now: datetime) -> list[dict[str, Any]]:
    """Fourteen days: strength A / legs B / run, rotating every other day, ending yesterday."""
    entries: list[dict[str, Any]] = []
    for index, day in enumerate(range(14, 0, -2)):
        performed = (now - timedelta(days=day)).replace(hour=18, minute=0, second=0, microsecond=0)
        for offset, exercise in enumerate(_SESSIONS[index % len(_SESSIONS)]):
            entries.append(
                {
                    **exercise,
                    "performed_at": performed + timedelta(minutes=10 * offset),
                    "session_id": SEED_SESSION_ID,
                }
            )
    return entries


async def seed_demo_user(db: Database, user_id: UserId, *, now: datetime | None = None) -> None:
    at = now or datetime.now(UTC)
    async with db.transaction() as conn:
        await profiles.ensure_user(conn, user_id, display_name="Demo User")
        await profiles.update_profile(
            conn, user_id, display_name="Demo User", sex="male", birth_date="1996-05-14",
            height_cm=180, weight_kg=82, body_fat_pct=15,
        )  # fmt: skip
        await settings.update_user_settings(conn, user_id, weight_unit="kg", distance_unit="km")
        await locations.upsert_location(
            conn, user_id, "Home Gym", description="Garage setup", equipment=HOME_GYM
        )
        await locations.upsert_location(
            conn, user_id, "Commercial Gym", description="Full gym near work", equipment=COMMERCIAL_GYM
        )
        if await locations.get_current(conn, user_id) is None:
            await locations.set_current(conn, user_id, name="Home Gym")
        await goals.set_category_goals(conn, user_id, CATEGORY_GOALS)
        await goals.set_muscle_goals(conn, user_id, MUSCLE_GOALS)
        if not await history.has_session(conn, user_id, SEED_SESSION_ID):
            await history.log_exercises(conn, user_id, demo_history(at), now=at)
