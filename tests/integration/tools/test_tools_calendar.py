"""Calendar tools on Postgres: scheduling in the user's timezone, plans laid out on preferred days,
milestones through their lifecycle; another user's rows are never touched."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from pydantic import ValidationError
from trainer.store.db import Database
from trainer.store.repositories.settings import update_user_settings
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.calendar import (
    CreateWorkoutPlan,
    DeleteScheduledWorkout,
    ManageMilestone,
    ScheduleWorkout,
    UpdateScheduledWorkout,
    plan_days,
)
from trainer_dev.testing.memory_store import InMemorySessionStore

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # a Monday


def tool_context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session(user_id)
    return ToolContext(user_id=user_id, session_id=session.id, store=store, db=db, now=lambda: NOW)


async def run(tool: Any, ctx: ToolContext, **args: Any) -> Any:
    return await tool.execute(tool.Args.model_validate(args), ctx)


async def calendar_rows(db: Database, user_id: str) -> dict[str, list[Any]]:
    async with db.connection() as conn:
        result = {}
        for table, order in (
            ("scheduled_workouts", "scheduled_date, id"),
            ("workout_plans", "start_date, id"),
            ("milestone_goals", "created_at, id"),
        ):
            cur = await conn.execute(f"SELECT * FROM {table} WHERE user_id = %s ORDER BY {order}", (user_id,))
            result[table] = await cur.fetchall()
    return result


async def bob_with_calendar(db: Database, make_user) -> tuple[str, dict[str, list[Any]]]:
    bob = make_user()
    ctx = tool_context(db, bob)
    await run(ScheduleWorkout(), ctx, scheduled_date="2026-03-05", workout_type="Bob run")
    await run(
        CreateWorkoutPlan(),
        ctx,
        plan_name="Bob plan",
        start_date="2026-03-02",
        duration_weeks=1,
        goal_description="fit",
    )
    await run(ManageMilestone(), ctx, action="create", goal_name="Bob 5K", target_value=5, target_unit="km")
    return bob, await calendar_rows(db, bob)


async def test_schedule_update_delete(db: Database, make_user) -> None:
    bob, bob_before = await bob_with_calendar(db, make_user)
    alice = make_user(timezone="America/New_York")
    ctx = tool_context(db, alice)

    result = await run(
        ScheduleWorkout(),
        ctx,
        scheduled_date="2026-03-04",
        workout_type="Upper Body",
        duration_minutes=45,
        notes="heavy",
    )
    workout_id = result.workout.id
    (row,) = (await calendar_rows(db, alice))["scheduled_workouts"]
    assert workout_id == str(row["id"]) and result.workout.date == date(2026, 3, 4)
    assert result.workout.scheduled_date == row["scheduled_date"] and result.workout.notes == "heavy"
    assert row["scheduled_date"] == datetime(2026, 3, 4, 5, 0, tzinfo=UTC)  # midnight in New York
    assert (
        row["workout_type"] == "Upper Body" and row["duration_minutes"] == 45 and row["status"] == "scheduled"
    )
    assert (
        ScheduleWorkout().format(result)
        == f"scheduled: Upper Body on Wed 2026-03-04, 45 min (id={workout_id})"
    )

    updated = await run(
        UpdateScheduledWorkout(),
        ctx,
        workout_id=workout_id,
        scheduled_date="2026-03-06T18:30:00",
        status="skipped",
    )
    (row,) = (await calendar_rows(db, alice))["scheduled_workouts"]
    assert row["scheduled_date"] == datetime(2026, 3, 6, 23, 30, tzinfo=UTC) and row["status"] == "skipped"
    assert updated.changed == ["scheduled_date", "status"] and updated.workout.status == "skipped"
    assert updated.workout.date == date(2026, 3, 6)
    assert UpdateScheduledWorkout().format(updated) == (
        f"updated: Upper Body on Fri 2026-03-06 [skipped] (scheduled_date, status; id={workout_id})"
    )

    deleted = await run(DeleteScheduledWorkout(), ctx, workout_id=workout_id)
    assert DeleteScheduledWorkout().format(deleted) == "deleted"
    assert deleted.workout.id == workout_id and deleted.workout.workout_type == "Upper Body"
    assert (await calendar_rows(db, alice))["scheduled_workouts"] == []
    assert await calendar_rows(db, bob) == bob_before


async def test_schedule_rejects_past_dates_and_foreign_ids(db: Database, make_user) -> None:
    bob, bob_before = await bob_with_calendar(db, make_user)
    ctx = tool_context(db, make_user())
    today = await run(ScheduleWorkout(), ctx, scheduled_date="2026-03-02", workout_type="Today")
    assert today.workout.date == date(2026, 3, 2)
    with pytest.raises(ToolError, match="2026-03-01 is in the past"):
        await run(ScheduleWorkout(), ctx, scheduled_date="2026-03-01", workout_type="Late")
    with pytest.raises(ToolError, match="in the past"):
        await run(ScheduleWorkout(), ctx, scheduled_date="2026-03-02T09:00:00Z", workout_type="Late")
    with pytest.raises(ToolError, match="not an ISO date"):
        await run(ScheduleWorkout(), ctx, scheduled_date="next tuesday", workout_type="x")
    bobs_workout = str(bob_before["scheduled_workouts"][0]["id"])
    with pytest.raises(ToolError, match="not found"):
        await run(UpdateScheduledWorkout(), ctx, workout_id=bobs_workout, workout_type="Hijack")
    with pytest.raises(ToolError, match="not found"):
        await run(DeleteScheduledWorkout(), ctx, workout_id=bobs_workout)
    with pytest.raises(ToolError, match="not found"):
        await run(DeleteScheduledWorkout(), ctx, workout_id="garbage")
    with pytest.raises(ToolError, match="nothing to change"):
        await run(UpdateScheduledWorkout(), ctx, workout_id=today.workout.id)
    assert await calendar_rows(db, bob) == bob_before


async def test_create_workout_plan_lays_out_sessions_on_default_days(db: Database, make_user) -> None:
    bob, bob_before = await bob_with_calendar(db, make_user)
    alice = make_user()
    ctx = tool_context(db, alice)

    result = await run(
        CreateWorkoutPlan(),
        ctx,
        plan_name="Strength block",
        start_date="2026-03-02",
        duration_weeks=2,
        goal_description="Get stronger",
        workout_types=["Upper", "Lower"],
    )

    rows = await calendar_rows(db, alice)
    (plan,) = rows["workout_plans"]
    assert plan["start_date"] == date(2026, 3, 2) and plan["end_date"] == date(2026, 3, 15)
    assert plan["preferred_days"] == ["Monday", "Wednesday", "Friday"] and plan["workouts_per_week"] == 3
    sessions = rows["scheduled_workouts"]
    assert [(s["scheduled_date"].date().isoformat(), s["workout_type"]) for s in sessions] == [
        ("2026-03-02", "Upper"),
        ("2026-03-04", "Lower"),
        ("2026-03-06", "Upper"),
        ("2026-03-09", "Lower"),
        ("2026-03-11", "Upper"),
        ("2026-03-13", "Lower"),
    ]
    assert {s["plan_id"] for s in sessions} == {plan["id"]}
    assert [len(w.workouts) for w in result.plan.weeks] == [3, 3]
    assert result.scheduled_count == 6 and result.plan.id == str(plan["id"])
    assert (result.plan.start_date, result.plan.end_date) == (date(2026, 3, 2), date(2026, 3, 15))
    assert [(w.id, w.date, w.workout_type) for week in result.plan.weeks for w in week.workouts] == [
        (str(s["id"]), s["scheduled_date"].date(), s["workout_type"]) for s in sessions
    ]
    text = CreateWorkoutPlan().format(result)
    assert text.splitlines()[0] == (
        f"Plan: Strength block (id={plan['id']}) 2026-03-02..2026-03-15, "
        "3/week on Monday, Wednesday, Friday; 6 workouts scheduled"
    )
    assert text.splitlines()[1] == "  Week 1: 3 workouts (Mon 03-02 Upper, Wed 03-04 Lower, Fri 03-06 Upper)"
    assert await calendar_rows(db, bob) == bob_before


async def test_create_workout_plan_uses_the_users_preferred_days(db: Database, make_user) -> None:
    alice = make_user()
    async with db.connection() as conn:
        await update_user_settings(conn, alice, preferred_days=["Tuesday", "Thursday", "Saturday"])
    ctx = tool_context(db, alice)
    await run(
        CreateWorkoutPlan(),
        ctx,
        plan_name="Run plan",
        start_date="2026-03-03",
        duration_weeks=1,
        goal_description="5K",
    )
    sessions = (await calendar_rows(db, alice))["scheduled_workouts"]
    assert [s["scheduled_date"].strftime("%a") for s in sessions] == ["Tue", "Thu", "Sat"]
    assert {s["workout_type"] for s in sessions} == {"Full Body"}
    with pytest.raises(ToolError, match="more than the preferred days"):
        await run(
            CreateWorkoutPlan(),
            ctx,
            plan_name="x",
            start_date="2026-03-03",
            duration_weeks=1,
            goal_description="x",
            preferred_days=["Mon"],
            workouts_per_week=2,
        )
    with pytest.raises(ToolError, match="in the past"):
        await run(
            CreateWorkoutPlan(),
            ctx,
            plan_name="x",
            start_date="2026-02-01",
            duration_weeks=1,
            goal_description="x",
        )


def test_plan_days() -> None:
    assert plan_days(None, [], None) == (["Monday", "Wednesday", "Friday"], 3)
    assert plan_days(None, [], 4) == (["Monday", "Tuesday", "Thursday", "Friday"], 4)
    assert plan_days(None, ["Tuesday", "Thursday", "Saturday"], 2) == (["Tuesday", "Saturday"], 2)
    assert plan_days(None, ["Sunday"], 2) == (["Monday", "Thursday"], 2)
    assert plan_days(["sat", "Mon"], ["Tuesday"], None) == (["Monday", "Saturday"], 2)
    with pytest.raises(ToolError, match="not a weekday"):
        plan_days(["Funday"], [], None)


async def test_milestone_lifecycle(db: Database, make_user) -> None:
    bob, bob_before = await bob_with_calendar(db, make_user)
    ctx = tool_context(db, make_user())
    tool = ManageMilestone()

    created = await run(
        tool,
        ctx,
        action="create",
        goal_name="Run a 5K",
        goal_type="distance",
        target_value=5,
        target_unit="km",
        target_date="2026-05-01",
        current_value=2,
    )
    mid = created.milestone.id
    assert created.action == "create" and created.milestone.goal_type == "distance"
    assert created.milestone.target_date == date(2026, 5, 1) and created.milestone.current_value == 2
    assert tool.format(created) == f"milestone created: Run a 5K 2/5 km (40%) by 2026-05-01 (id={mid})"
    progress = await run(tool, ctx, action="update_progress", milestone_id=mid, current_value=3.5)
    assert tool.format(progress) == f"milestone progress: Run a 5K 3.5/5 km (70%) by 2026-05-01 (id={mid})"
    achieved = await run(tool, ctx, action="mark_achieved", milestone_id=mid, current_value=5)
    (row,) = (await calendar_rows(db, ctx.user_id))["milestone_goals"]
    assert row["status"] == "achieved" and row["achieved_at"] is not None and float(row["current_value"]) == 5
    assert tool.format(achieved).startswith("milestone achieved: Run a 5K 5/5 km (100%)")
    other = await run(tool, ctx, action="create", goal_name="Bench 100")
    assert other.milestone.goal_type == "other" and other.milestone.target_value is None
    abandoned = await run(tool, ctx, action="abandon", milestone_id=other.milestone.id)
    assert abandoned.milestone.status == "abandoned" and achieved.milestone.achieved_at is not None
    assert [r["status"] for r in (await calendar_rows(db, ctx.user_id))["milestone_goals"]] == [
        "achieved",
        "abandoned",
    ]

    bobs = str(bob_before["milestone_goals"][0]["id"])
    with pytest.raises(ToolError, match="not found"):
        await run(tool, ctx, action="mark_achieved", milestone_id=bobs)
    with pytest.raises(ToolError, match="not found"):
        await run(tool, ctx, action="update_progress", milestone_id=bobs, current_value=1)
    with pytest.raises(ValidationError, match="milestone_id is required"):
        tool.Args.model_validate({"action": "abandon"})
    with pytest.raises(ValidationError, match="current_value is required"):
        tool.Args.model_validate({"action": "update_progress", "milestone_id": mid})
    assert await calendar_rows(db, bob) == bob_before
