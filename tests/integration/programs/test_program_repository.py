"""Programs on embedded Postgres: a plan from pending to ready (active, superseding the previous plan
and the label-only plans of create_workout_plan), a week claimed once and saved with its days, the
day reads, message caching, publishing once, the scheduler's due read, and user scoping; the inputs
loader reads a real user's data."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import psycopg
import pytest
from trainer.programs.agents import attach_messages
from trainer.programs.inputs import load_plan_inputs
from trainer.programs.microcycle.week import build_week
from trainer.programs.models import PlanRequest, PlanWeek
from trainer.programs.plan.finalize import build_plan
from trainer.programs.plan.render import render_plan_markdown
from trainer.programs.records import day_of, plan_of, week_rows
from trainer.store.db import Database
from trainer.store.repositories import RepositoryError, history, locations, preferences, programs
from trainer.store.repositories import plans as legacy_plans
from trainer.store.repositories import schedule as legacy_schedule
from trainer.store.repositories.goals import set_category_goals

NOW = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
START = date(2026, 3, 2)
DAYS = ["Monday", "Tuesday", "Thursday", "Friday"]


async def ready_plan(db: Database, user: str, *, start: date = START) -> tuple[dict[str, Any], Any]:
    async with db.transaction() as conn:
        inputs = await load_plan_inputs(
            conn, user, NOW, PlanRequest(weeks=12, training_days=DAYS, start_date=start)
        )
        row = await programs.create_plan(
            conn,
            user,
            weeks=12,
            training_days=DAYS,
            session_minutes=inputs.session_minutes,
            start_date=start,
            request={"weeks": 12},
        )
    plan = build_plan(inputs)
    async with db.transaction() as conn:
        ready = await programs.mark_ready(
            conn,
            user,
            row["id"],
            title=plan.title,
            markdown=render_plan_markdown(plan),
            plan=plan.model_dump(mode="json"),
            next_week=1,
            next_week_due_at=NOW,
        )
    assert ready is not None
    return ready, (plan, inputs)


def day_rows(week: PlanWeek) -> list[dict[str, Any]]:
    return week_rows(week)


async def test_a_plan_goes_from_pending_to_ready_and_active(
    db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    async with db.transaction() as conn:
        pending = await programs.create_plan(
            conn, user, weeks=12, training_days=["Friday", "Monday"], session_minutes=60, start_date=START
        )
    assert pending["status"] == "pending" and not pending["active"]
    assert pending["training_days"] == ["Monday", "Friday"] and pending["days_per_week"] == 2
    async with db.connection() as conn:
        assert (await programs.pending_plan(conn, user) or {}).get("id") == pending["id"]
        with pytest.raises(psycopg.errors.UniqueViolation):
            await programs.create_plan(
                conn, user, weeks=4, training_days=["Monday"], session_minutes=30, start_date=START
            )
        failed = await programs.mark_failed(conn, user, pending["id"], "the model did not answer")
        assert await programs.pending_plan(conn, user) is None
    ready, (plan, _) = await ready_plan(db, user)
    async with db.connection() as conn:
        active = await programs.get_active_plan(conn, user)
        listed = await programs.list_plans(conn, user)
        assert await programs.mark_failed(conn, user, ready["id"], "late") is None
    assert active is not None and active["id"] == ready["id"] and active["status"] == "ready"
    assert active["plan"]["title"] == plan.title and active["markdown"].startswith("# 12-Week")
    assert [p["id"] for p in listed] == [ready["id"], pending["id"]]
    assert "markdown" not in listed[0]
    assert (
        failed is not None and failed["status"] == "failed" and failed["error"] == "the model did not answer"
    )


async def test_a_new_plan_supersedes_the_old_one_and_the_label_only_plans(
    db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    async with db.transaction() as conn:
        old = await legacy_plans.create_plan(conn, user, plan_name="Old", start_date=START, duration_weeks=4)
        past = await legacy_schedule.schedule_workout(
            conn,
            user,
            scheduled_date=datetime.combine(START - timedelta(days=2), time(0), tzinfo=UTC),
            workout_type="Full Body",
            plan_id=old["id"],
        )
        future = await legacy_schedule.schedule_workout(
            conn,
            user,
            scheduled_date=datetime.combine(START + timedelta(days=3), time(0), tzinfo=UTC),
            workout_type="Full Body",
            plan_id=old["id"],
        )
        own = await legacy_schedule.schedule_workout(
            conn,
            user,
            scheduled_date=datetime.combine(START + timedelta(days=3), time(0), tzinfo=UTC),
            workout_type="Run",
        )
    first, (plan, inputs) = await ready_plan(db, user)
    week = build_week(plan, 1, inputs)
    async with db.transaction() as conn:
        await programs.save_week(
            conn, user, first["id"], 1, day_rows(week), start_date=week.start_date, now=NOW, next_week=2
        )
    second, _ = await ready_plan(db, user, start=START + timedelta(days=3))
    async with db.connection() as conn:
        plans = {p["id"]: p for p in await programs.list_plans(conn, user)}
        days = await programs.list_plan_days(conn, user, first["id"])
        cur = await conn.execute("SELECT id, status FROM scheduled_workouts WHERE user_id = %s", (user,))
        statuses = {r["id"]: r["status"] for r in await cur.fetchall()}
        cur = await conn.execute("SELECT status FROM workout_plans WHERE id = %s", (old["id"],))
        legacy = await cur.fetchone()
    assert plans[second["id"]]["active"] and not plans[first["id"]]["active"]
    assert plans[first["id"]]["next_week_due_at"] is None
    assert [d["date"] for d in days] == [START, START + timedelta(days=1), START + timedelta(days=2)]
    assert statuses == {past["id"]: "scheduled", future["id"]: "cancelled", own["id"]: "scheduled"}
    assert legacy is not None and legacy["status"] == "cancelled"


async def test_a_week_is_claimed_once_and_saved_with_its_days(
    db: Database, make_user: Callable[..., str]
) -> None:
    user = make_user()
    ready, (plan, inputs) = await ready_plan(db, user)
    week = attach_messages(build_week(plan, 1, inputs), None, plan.title)
    async with db.connection() as conn:
        first = await programs.claim_week(conn, user, ready["id"], 1, start_date=week.start_date, now=NOW)
        again = await programs.claim_week(conn, user, ready["id"], 1, start_date=week.start_date, now=NOW)
        stale = await programs.claim_week(
            conn, user, ready["id"], 1, start_date=week.start_date, now=NOW + timedelta(hours=1)
        )
    assert (first, again, stale) == (True, False, True)
    next_due = datetime(2026, 3, 9, 0, 0, tzinfo=UTC)
    async with db.transaction() as conn:
        saved = await programs.save_week(
            conn,
            user,
            ready["id"],
            1,
            day_rows(week),
            start_date=week.start_date,
            now=NOW,
            next_week=2,
            next_week_due_at=next_due,
        )
    assert [r["kind"] for r in saved] == [d.kind for d in week.days]
    async with db.connection() as conn:
        weeks = await programs.list_weeks(conn, user, ready["id"])
        after = await programs.claim_week(conn, user, ready["id"], 1, start_date=week.start_date, now=NOW)
        days = await programs.week_days(conn, user, ready["id"], 1)
        plan_row = await programs.get_plan(conn, user, ready["id"])
    assert weeks[0]["status"] == "ready" and weeks[0]["attempts"] == 2 and not after
    assert plan_row is not None and plan_row["next_week"] == 2 and plan_row["next_week_due_at"] == next_due
    assert [day_of(r) for r in days] == week.days
    assert plan_of(plan_row) == plan
    monday = days[0]
    assert monday["weekday"] == "Monday" and monday["kind"] == "training"
    assert monday["workout"]["exercises"][0]["group"]["type"] == "warmup"
    assert monday["message"].startswith("🏋️ Monday")
    assert days[2]["kind"] == "rest" and days[2]["workout"] is None and days[2]["recovery_notes"]


async def test_saving_a_week_again_replaces_its_days(db: Database, make_user: Callable[..., str]) -> None:
    user = make_user()
    ready, (plan, inputs) = await ready_plan(db, user)
    week = build_week(plan, 1, inputs)
    hotel = build_week(plan, 1, inputs.model_copy(update={"equipment": ["dumbbell"]}))
    async with db.transaction() as conn:
        await programs.save_week(
            conn, user, ready["id"], 1, day_rows(week), start_date=week.start_date, now=NOW
        )
    async with db.transaction() as conn:
        await programs.save_week(
            conn, user, ready["id"], 1, day_rows(hotel), start_date=week.start_date, now=NOW
        )
    async with db.connection() as conn:
        days = await programs.week_days(conn, user, ready["id"], 1)
    assert len(days) == 7
    names = {e["exercise_name"] for d in days if d["workout"] for e in d["workout"]["exercises"]}
    assert "Barbell Bench Press - Medium Grip" not in names


async def test_day_reads_messages_and_publishing(db: Database, make_user: Callable[..., str]) -> None:
    user = make_user()
    ready, (plan, inputs) = await ready_plan(db, user)
    week = build_week(plan, 1, inputs)
    async with db.transaction() as conn:
        await programs.save_week(
            conn, user, ready["id"], 1, day_rows(week), start_date=week.start_date, now=NOW
        )
    async with db.connection() as conn:
        listed = await programs.list_workouts(
            conn, user, START + timedelta(days=1), START + timedelta(days=3)
        )
        today = await programs.workout_on(conn, user, START)
        assert today is not None
        one = await programs.get_workout(conn, user, today["id"])
        cached = await programs.set_message(conn, user, today["id"], "Bench day 💪")
        first = await programs.mark_published(conn, user, today["id"], NOW)
        second = await programs.mark_published(conn, user, today["id"], NOW)
        done = await programs.set_workout_status(conn, user, today["id"], "completed")
        changed = await programs.replace_day(
            conn, user, listed[1]["id"], kind="rest", workout=None, recovery_notes="Travel day: walk."
        )
        with pytest.raises(RepositoryError, match="1 to 1600 characters"):
            await programs.set_message(conn, user, today["id"], "x" * 1601)
        with pytest.raises(RepositoryError, match="a training day has a workout"):
            await programs.replace_day(conn, user, today["id"], kind="training", workout=None)
        with pytest.raises(RepositoryError, match="before the start"):
            await programs.list_workouts(conn, user, START, START - timedelta(days=1))
    assert [r["date"] for r in listed] == [START + timedelta(days=i) for i in (1, 2, 3)]
    assert one is not None and one["date"] == START and one["workout"]["title"] == "Upper A - Week 1"
    assert cached is not None and cached["message"] == "Bench day 💪"
    assert (first, second) == (True, False)
    assert done is not None and done["status"] == "completed"
    assert (
        changed is not None and changed["kind"] == "rest" and changed["recovery_notes"] == "Travel day: walk."
    )


async def test_another_users_rows_are_never_touched(db: Database, make_user: Callable[..., str]) -> None:
    alice, bob = make_user(), make_user()
    ready, (plan, inputs) = await ready_plan(db, alice)
    week = build_week(plan, 1, inputs)
    async with db.transaction() as conn:
        await programs.save_week(
            conn, alice, ready["id"], 1, day_rows(week), start_date=week.start_date, now=NOW
        )
    async with db.connection() as conn:
        day = await programs.workout_on(conn, alice, START)
        assert day is not None
        assert await programs.get_plan(conn, bob, ready["id"]) is None
        assert await programs.get_workout(conn, bob, day["id"]) is None
        assert await programs.set_message(conn, bob, day["id"], "hi") is None
        assert not await programs.mark_published(conn, bob, day["id"], NOW)
        assert not await programs.claim_week(conn, bob, ready["id"], 2, start_date=START, now=NOW)
        assert await programs.list_workouts(conn, bob, START, START + timedelta(days=6)) == []
        with pytest.raises(RepositoryError, match="plan not found"):
            await programs.save_week(conn, bob, ready["id"], 2, [], start_date=START, now=NOW)


async def test_the_scheduler_reads_only_the_due_plans(db: Database, make_user: Callable[..., str]) -> None:
    due_user, later_user = make_user(), make_user()
    due, _ = await ready_plan(db, due_user)
    later, _ = await ready_plan(db, later_user)
    async with db.transaction() as conn:
        await programs.save_week(
            conn,
            later_user,
            later["id"],
            1,
            [],
            start_date=START,
            now=NOW,
            next_week=2,
            next_week_due_at=NOW + timedelta(days=7),
        )
        found = await programs.due_plans(conn, NOW + timedelta(minutes=1))
        plan_ids = {r["id"] for r in found}
        await conn.execute("SET LOCAL enable_seqscan = off")
        cur = await conn.execute(
            "EXPLAIN SELECT id FROM training_plans WHERE active AND next_week_due_at IS NOT NULL"
            " AND next_week_due_at <= %s ORDER BY next_week_due_at, id LIMIT 1000",
            (NOW,),
        )
        plan_text = " ".join(str(r) for r in await cur.fetchall())
    assert due["id"] in plan_ids and later["id"] not in plan_ids
    row = next(r for r in found if r["id"] == due["id"])
    assert row["user_id"] is not None and row["next_week"] == 1 and row["timezone"] == "UTC"
    assert "training_plans_next_week_due_idx" in plan_text


async def test_constraints_hold(pg_url: str, make_user: Callable[..., str]) -> None:
    user = make_user()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        plan_id = conn.execute(
            "INSERT INTO training_plans (user_id, weeks, days_per_week, session_minutes, training_days,"
            " start_date) VALUES (%s, 12, 2, 60, ARRAY['Monday', 'Friday'], %s) RETURNING id",
            (user, START),
        ).fetchone()[0]  # type: ignore[index]
        bad = [
            ("UPDATE training_plans SET status = 'ready' WHERE id = %s", (plan_id,)),
            ("UPDATE training_plans SET active = true WHERE id = %s", (plan_id,)),
            ("UPDATE training_plans SET weeks = 20 WHERE id = %s", (plan_id,)),
            ("UPDATE training_plans SET training_days = ARRAY['Monday'] WHERE id = %s", (plan_id,)),
            (
                "UPDATE training_plans SET training_days = ARRAY['Someday', 'Monday'] WHERE id = %s",
                (plan_id,),
            ),
        ]
        for statement, params in bad:
            with pytest.raises(psycopg.errors.CheckViolation):
                conn.execute(statement, params)
        conn.execute(
            "INSERT INTO plan_weeks (plan_id, user_id, week_number, start_date) VALUES (%s, %s, 1, %s)",
            (plan_id, user, START),
        )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO plan_weeks (plan_id, user_id, week_number, start_date) VALUES (%s, %s, 1, %s)",
                (plan_id, user, START),
            )
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "INSERT INTO plan_workouts (user_id, plan_id, week_number, date, weekday, kind)"
                " VALUES (%s, %s, 1, %s, 'Monday', 'training')",
                (user, plan_id, START),
            )
        conn.execute(
            "INSERT INTO plan_workouts (user_id, plan_id, week_number, date, weekday, kind)"
            " VALUES (%s, %s, 1, %s, 'Monday', 'rest')",
            (user, plan_id, START),
        )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO plan_workouts (user_id, plan_id, week_number, date, weekday, kind)"
                " VALUES (%s, %s, 1, %s, 'Monday', 'rest')",
                (user, plan_id, START),
            )
        conn.execute("DELETE FROM training_plans WHERE id = %s", (plan_id,))
        left = conn.execute("SELECT count(*) FROM plan_workouts WHERE plan_id = %s", (plan_id,)).fetchone()
    assert left == (0,)


async def test_the_inputs_loader_reads_the_users_data(db: Database, make_user: Callable[..., str]) -> None:
    user = make_user(weight_unit="lbs", timezone="America/New_York")
    async with db.transaction() as conn:
        await locations.create_location(
            conn,
            user,
            "Home",
            equipment=[{"name": "Dumbbells", "weights": [10, 20, 30], "unit": "lbs"}, {"name": "Bench"}],
            make_current=True,
        )
        await set_category_goals(
            conn, user, [{"category": "Strength", "percentage": 70}, {"category": "Cardio", "percentage": 30}]
        )
        await preferences.create_preference(conn, user, type="injury", description="sore left knee")
        await history.log_exercises(
            conn,
            user,
            [
                {
                    "exercise_name": "Dumbbell Bench Press",
                    "exercise_type": "reps",
                    "sets": 3,
                    "reps": [10, 10, 10],
                    "load_each": [30, 30, 30],
                    "load_unit": "lbs",
                    "performed_at": (NOW - timedelta(days=2)).isoformat(),
                    "muscles": [{"muscle": "Chest", "share": 1.0}],
                }
            ],
            now=NOW,
        )
        loaded = await load_plan_inputs(
            conn, user, NOW, PlanRequest(weeks=8, days_per_week=3, goal="get stronger")
        )
    assert loaded.weight_unit == "lbs" and loaded.timezone == "America/New_York"
    assert loaded.start_date == date(2026, 3, 2)
    assert loaded.training_days == ["Monday", "Wednesday", "Friday"]
    assert {"dumbbell", "bench", "bodyweight"} <= set(loaded.equipment) and "barbell" not in loaded.equipment
    assert loaded.location_name == "Home" and loaded.location_items[0]["weights"] == [10, 20, 30]
    assert loaded.category_goals["Strength"] > loaded.category_goals["Cardio"]
    assert loaded.preferences[0]["description"] == "sore left knee"
    assert loaded.experience == "beginner"
    assert [r["exercise_name"] for r in loaded.progression_history] == ["Dumbbell Bench Press"]
    plan = build_plan(loaded)
    week = build_week(plan, 1, loaded)
    bench = next(
        e
        for d in week.days
        if d.workout
        for e in d.workout.exercises
        if e.exercise_name == "Dumbbell Bench Press"
    )
    assert bench.load_unit == "lbs" and bench.load_each and bench.load_each[0] == 30
