"""One calendar (docs/programs.md#one-calendar) on the real adapters: a plan day is listed by `GET /workouts`
under the id the move/skip route and the chat's schedule tools take, a workout scheduled on a plan's
rest day is listed too, a change of available days reshapes the plan's remaining days, and the daily
run notices missed sessions once and adapts the next ones. Every answer is checked against the
OpenAPI document."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.domain.calendar import back_to_back, is_hard
from trainer.jobs.programs import ScheduleRun, run_schedule
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import ProgramDeps, build_week, change_training_days, request_plan
from trainer.services.user_data import UserDataService
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.repositories import history, locations
from trainer.store.sessions import DynamoSessionStore
from trainer.tools.base import ToolContext
from trainer.tools.calendar import (
    DeleteScheduledWorkout,
    DeleteScheduledWorkoutArgs,
    UpdateScheduledWorkout,
    UpdateScheduledWorkoutArgs,
)

from tests.integration.api.test_api_contract import Contract

HOME_GYM = [
    {"name": "Dumbbells", "weights": [5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25], "unit": "kg"},
    {"name": "Adjustable Bench"},
    {"name": "Pull-up Bar"},
]
NOW = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
TODAY = NOW.date()


@pytest.fixture
async def container(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database
) -> AsyncIterator[Container]:
    built = await build_container(aws_settings, store=session_store, db=db)
    yield built
    await built.aclose()


@pytest.fixture
async def client(container: Container) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(container))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=120) as http:
        yield http


@pytest.fixture
async def contract(client: httpx.AsyncClient) -> Contract:
    return Contract((await client.get("/openapi.json")).json())


@pytest.fixture
def headers(aws_settings: Settings, lifter: str) -> dict[str, str]:
    secret = aws_settings.jwt_secret.get_secret_value()
    return {"Authorization": f"Bearer {mint_dev_token(secret, lifter)}"}


@pytest.fixture
async def lifter(make_user: Callable[..., str], db: Database) -> str:
    user_id = make_user()
    async with db.transaction() as conn:
        await locations.create_location(conn, user_id, "Home Gym", equipment=HOME_GYM, make_current=True)
    return user_id


def inline(container: Container, now: datetime | None = None) -> ProgramDeps:
    assert container.programs is not None
    if now is None:
        return ProgramDeps(db=container.programs.db, agents=container.programs.agents, publisher=None)
    return ProgramDeps(
        db=container.programs.db, agents=container.programs.agents, publisher=None, now=lambda: now
    )


async def plan_days(db: Database, user_id: str) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id, date, kind, focus, status, notes, workout FROM plan_workouts WHERE user_id = %s"
            " ORDER BY date",
            (user_id,),
        )
        return await cur.fetchall()


async def test_a_plan_day_is_one_entry_listed_moved_and_skipped_by_the_same_id(
    container: Container,
    client: httpx.AsyncClient,
    contract: Contract,
    headers: dict[str, str],
    lifter: str,
    db: Database,
) -> None:
    days = ["Monday", "Wednesday", "Friday"]
    await request_plan(inline(container), lifter, PlanRequest(weeks=4, training_days=days))
    listed = contract.check(
        await client.get(f"/workouts?from={TODAY}&to={TODAY + timedelta(days=13)}", headers=headers)
    )["workouts"]
    rows = {str(r["id"]): r for r in await plan_days(db, lifter)}
    assert {w["id"] for w in listed if w["source"] == "plan"} <= set(rows)
    training = [w for w in listed if w["kind"] == "training" and w["date"] > TODAY.isoformat()]
    rest = [w for w in listed if w["kind"] == "rest" and w["date"] > TODAY.isoformat()]
    session, free = training[0], next(r for r in rest if r["date"][:8] and r["id"] != training[0]["id"])
    # the route moves it onto a rest day: the same id, the rest day takes its old date
    moved = contract.check(
        await client.patch(f"/workouts/{session['id']}", json={"date": free["date"]}, headers=headers)
    )
    assert moved["workout"]["id"] == session["id"] and moved["workout"]["date"] == free["date"]
    after = {str(r["id"]): r for r in await plan_days(db, lifter)}
    assert after[session["id"]]["date"].isoformat() == free["date"]
    assert after[free["id"]]["date"].isoformat() == session["date"]
    # moving onto another training day is refused (swap instead), and says so
    other = next(w for w in training if w["id"] != session["id"])
    refused = await client.patch(f"/workouts/{session['id']}", json={"date": other["date"]}, headers=headers)
    assert refused.status_code == 422 and "swap" in refused.json()["error"]["message"]
    # the chat's schedule tools take the same id: skip it, then the route takes it back
    ctx = ToolContext(user_id=lifter, db=db, now=lambda: datetime.now(UTC))
    skipped = await DeleteScheduledWorkout().execute(
        DeleteScheduledWorkoutArgs(workout_id=session["id"]), ctx
    )
    assert skipped.workout.source == "plan"
    assert (await plan_days(db, lifter))[0] is not None
    shown = contract.check(await client.get(f"/workouts/{session['id']}", headers=headers))
    assert shown["workout"]["status"] == "skipped"
    back = contract.check(
        await client.patch(f"/workouts/{session['id']}", json={"status": "scheduled"}, headers=headers)
    )
    assert back["workout"]["status"] == "scheduled"
    # and the tool moves it back to where it was
    moved_back = await UpdateScheduledWorkout().execute(
        UpdateScheduledWorkoutArgs(workout_id=session["id"], scheduled_date=session["date"]), ctx
    )
    assert moved_back.workout.date.isoformat() == session["date"] and moved_back.workout.source == "plan"
    upcoming = await UserDataService(db).for_user(lifter).schedule.upcoming(days_ahead=14)
    assert session["id"] in {str(r["id"]) for r in upcoming}


async def test_a_run_scheduled_on_a_plan_rest_day_is_listed_with_the_plan(
    container: Container,
    client: httpx.AsyncClient,
    contract: Contract,
    headers: dict[str, str],
    lifter: str,
    db: Database,
) -> None:
    await request_plan(inline(container), lifter, PlanRequest(weeks=4, training_days=["Monday", "Thursday"]))
    rest = next(r for r in await plan_days(db, lifter) if r["kind"] == "rest" and r["date"] > TODAY)
    added = contract.check(
        await client.post(
            "/workouts",
            json={"date": rest["date"].isoformat(), "time": "07:30", "workout_type": "Zone 2 Run"},
            headers=headers,
        )
    )
    assert added["workout"]["source"] == "calendar"
    listed = contract.check(
        await client.get(f"/workouts?from={rest['date']}&to={rest['date']}", headers=headers)
    )["workouts"]
    assert [(w["source"], w["kind"]) for w in listed] == [("plan", "rest"), ("calendar", "training")]
    assert listed[1]["id"] == added["workout"]["id"] and listed[1]["focus"] == "Zone 2 Run"
    # one set of ids: the schedule service and GET /workouts/{id} know it
    entry = await UserDataService(db).for_user(lifter).schedule.entry(added["workout"]["id"])
    assert entry is not None and entry["source"] == "calendar"
    one = contract.check(await client.get(f"/workouts/{added['workout']['id']}", headers=headers))
    assert one["workout"]["scheduled_at"] is not None


async def test_a_change_of_available_days_reshapes_the_remaining_weeks(
    container: Container, lifter: str, db: Database
) -> None:
    deps = inline(container)
    row = await request_plan(
        deps, lifter, PlanRequest(weeks=4, training_days=["Monday", "Tuesday", "Thursday", "Friday"])
    )
    await build_week(deps, lifter, row["id"], 2)
    report = await change_training_days(deps, lifter, ["Monday", "Wednesday", "Friday"], "new job")
    assert report.has_plan
    days = [d for d in await plan_days(db, lifter) if d["date"] >= TODAY]
    held = [d for d in days if d["kind"] == "training" and d["status"] == "scheduled"]
    assert all(d["date"].strftime("%A") in ("Monday", "Wednesday", "Friday") for d in held)
    assert not back_to_back(d["date"] for d in held if is_hard("training", d["focus"]))
    assert "Monday, Wednesday, Friday" in report.summary()
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT training_days, days_per_week FROM training_plans WHERE id = %s", (row["id"],)
        )
        plan = await cur.fetchone()
        settings = await (
            await conn.execute("SELECT preferred_days FROM user_settings WHERE user_id = %s", (lifter,))
        ).fetchone()
    assert plan == {"training_days": ["Monday", "Wednesday", "Friday"], "days_per_week": 3}
    assert settings["preferred_days"] == ["Monday", "Wednesday", "Friday"]


async def test_the_daily_run_notices_missed_sessions_once_and_adapts_the_next(
    container: Container, lifter: str, db: Database
) -> None:
    start = TODAY - timedelta(days=6)
    every_other = [start + timedelta(days=n) for n in (0, 2, 4)]
    names = [d.strftime("%A") for d in every_other]
    built = inline(container, datetime.combine(start, datetime.min.time(), UTC) + timedelta(hours=9))
    row = await request_plan(built, lifter, PlanRequest(weeks=4, training_days=names, start_date=start))
    await build_week(built, lifter, row["id"], 2)
    # the first session was done (logged that day), the other two passed with nothing logged
    async with db.transaction() as conn:
        await history.log_exercises(
            conn, lifter, [{"exercise_name": "Push-up", "exercise_type": "reps", "sets": 1, "reps": [10]}],
            now=datetime.combine(every_other[0], datetime.min.time(), UTC) + timedelta(hours=18),
        )  # fmt: skip
    deps = inline(container, NOW)
    first = await run_schedule(deps, ScheduleRun(run="daily", at=NOW))
    mine = [m for m in first.missed if m["user_id"] == lifter]
    assert len(mine) == 1 and len(mine[0]["changes"]) == 2
    days = {d["date"]: d for d in await plan_days(db, lifter)}
    assert days[every_other[0]]["status"] == "completed"
    assert [days[d]["status"] for d in every_other[1:]] == ["missed", "missed"]
    assert all(any(n.startswith("Missed ") for n in days[d]["notes"]) for d in every_other[1:])
    upcoming = [d for d in days.values() if d["date"] >= TODAY and d["kind"] == "training"]
    assert not back_to_back(d["date"] for d in upcoming if is_hard("training", d["focus"]))
    assert any(n.startswith(("Carried over", "One extra set")) for d in upcoming for n in d["notes"])
    snapshot = await plan_days(db, lifter)
    # a second run (a retried invocation, the next hour) changes nothing
    second = await run_schedule(deps, ScheduleRun(run="daily", at=NOW))
    assert not [m for m in second.missed if m["user_id"] == lifter]
    assert await plan_days(db, lifter) == snapshot
    assert second.summary()["missed_adapted"] == 0
