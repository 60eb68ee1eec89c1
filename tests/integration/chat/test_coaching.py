"""The coaching wiring on Postgres: the offline planner composes from the user's real equipment and
history, and generate_workout reports problems found by the real checks (equipment, recovery,
preferences) and consumes delete-after-use preferences."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from trainer.agents.tools import ToolSet
from trainer.chat.coaching import CoachServices
from trainer.domain.equipment import available_equipment, missing_equipment
from trainer.offline.planner import OfflineCoach
from trainer.store.db import Database
from trainer.store.repositories import locations, preferences
from trainer.store.repositories.history import log_exercises
from trainer.tools.base import ToolContext
from trainer.tools.workout import workout_tools
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
DUMBBELL_ROOM = [{"name": "Dumbbells", "type": "free_weights", "weights": [5, 10, 15, 20]}, {"name": "Bench"}]


async def home_gym_user(db: Database, make_user: Any) -> str:
    user = str(make_user())
    async with db.transaction() as conn:
        await locations.create_location(conn, user, "Home", equipment=DUMBBELL_ROOM, make_current=True)
    return user


def barbell_bench_and_squat() -> dict[str, Any]:
    common = {"exercise_type": "reps", "sets": 3, "reps": [5, 5, 5], "rest_sec": 120, "reasoning": "test"}
    return {
        "title": "Heavy day",
        "exercises": [
            {
                **common,
                "order": 1,
                "exercise_name": "Barbell Bench Press",
                "equipment": ["barbell", "bench"],
                "load_each": [80, 80, 80],
                "load_unit": "kg",
                "muscles_utilized": [{"muscle": "Chest", "share": 0.7}, {"muscle": "Triceps", "share": 0.3}],
                "goals_addressed": [{"goal": "Strength", "share": 1.0}],
            },
            {
                **common,
                "order": 2,
                "exercise_name": "Goblet Squat",
                "equipment": ["dumbbell"],
                "load_each": [20, 20, 20],
                "load_unit": "kg",
                "muscles_utilized": [
                    {"muscle": "Quadriceps", "share": 0.7},
                    {"muscle": "Glutes", "share": 0.3},
                ],
                "goals_addressed": [{"goal": "Strength", "share": 1.0}],
            },
        ],
    }


async def generate(db: Database, user: str, workout: dict[str, Any], message: str) -> tuple[Any, Any]:
    store = InMemorySessionStore()
    session = store.new_session(user)
    ctx = ToolContext(
        user_id=user,
        session_id=session.id,
        store=store,
        db=db,
        now=lambda: NOW,
        user_message=message,
        coach=CoachServices(db),
    )
    registry = ToolSet(workout_tools())
    return await registry.execute("generate_workout", {"workout": workout}, ctx), store


async def test_generated_workout_reports_missing_equipment_and_recovering_muscles(
    db: Database, make_user: Any
) -> None:
    user = await home_gym_user(db, make_user)
    async with db.transaction() as conn:
        squat = {
            "exercise_name": "Back Squat",
            "exercise_type": "reps",
            "sets": 5,
            "reps": [5] * 5,
            "muscles": [{"muscle": "Quadriceps", "share": 0.7}, {"muscle": "Glutes", "share": 0.3}],
            "goals": [{"goal": "Strength", "share": 1.0}],
            "performed_at": (NOW - timedelta(hours=10)).isoformat(),
        }
        await log_exercises(conn, user, [squat], now=NOW)

    execution, _ = await generate(db, user, barbell_bench_and_squat(), "a heavy session please")

    assert execution.success
    problems = " ".join(execution.result_json()["problems"]).lower()
    assert "barbell" in problems
    assert "quadriceps" in problems
    assert "barbell" in execution.formatted.lower()


async def test_muscles_the_user_asked_for_are_not_flagged_as_recovering(db: Database, make_user: Any) -> None:
    user = await home_gym_user(db, make_user)
    async with db.transaction() as conn:
        squat = {
            "exercise_name": "Back Squat",
            "exercise_type": "reps",
            "sets": 3,
            "reps": [5] * 3,
            "muscles": [{"muscle": "Quadriceps", "share": 1.0}],
            "goals": [{"goal": "Strength", "share": 1.0}],
            "performed_at": (NOW - timedelta(hours=10)).isoformat(),
        }
        await log_exercises(conn, user, [squat], now=NOW)

    execution, _ = await generate(db, user, barbell_bench_and_squat(), "legs again today, quads please")

    assert "quadriceps" not in " ".join(execution.result_json()["problems"]).lower()


async def test_generation_consumes_delete_after_use_preferences_only(db: Database, make_user: Any) -> None:
    user = await home_gym_user(db, make_user)
    async with db.transaction() as conn:
        await preferences.create_preference(
            conn, user, type="muscle_group", description="Hamstrings today", delete_after_use=True, now=NOW
        )
        await preferences.create_preference(conn, user, type="exercise", description="No burpees", now=NOW)

    await generate(db, user, barbell_bench_and_squat(), "hamstrings today")

    async with db.connection() as conn:
        left = await preferences.list_active(conn, user, NOW)
    assert [p["description"] for p in left] == ["No burpees"]


async def test_offline_planner_composes_with_the_users_equipment_and_units(
    db: Database, make_user: Any
) -> None:
    user = await home_gym_user(db, make_user)
    store = InMemorySessionStore()
    planner = OfflineCoach(db, store, clock=lambda: NOW)

    workout = (await planner.compose_workout(user, "Give me a quick chest workout")).workout

    available = available_equipment(DUMBBELL_ROOM)
    for exercise in workout.exercises:
        assert not missing_equipment(exercise.equipment, available), exercise
        assert exercise.load_unit in (None, "kg")
    assert any(m.muscle == "Chest" for e in workout.exercises for m in e.muscles_utilized)


async def test_an_arms_workout_with_no_equipment_asks_for_arms_and_uses_none(
    db: Database, make_user: Any
) -> None:
    """'no equipment' in the request is the one-shot preference saved beside it: the composer leaves every
    item out, and still reads 'chest and arms' as the muscles asked for (none ruled out)."""
    user = await home_gym_user(db, make_user)
    async with db.transaction() as conn:
        await preferences.create_preference(
            conn,
            user,
            type="equipment",
            description="No equipment available",
            guidance="Bodyweight exercises only",
            delete_after_use=True,
            now=NOW,
        )
    planner = OfflineCoach(db, InMemorySessionStore(), clock=lambda: NOW)

    workout = (await planner.compose_workout(user, "chest and arms workout with no equipment please")).workout

    assert workout.exercises
    for exercise in workout.exercises:
        assert not missing_equipment(exercise.equipment, {"bodyweight"}), exercise
    main = {max(e.muscles_utilized, key=lambda m: m.share).muscle for e in workout.exercises}
    assert main & {"Biceps", "Triceps", "Forearms"}, main
