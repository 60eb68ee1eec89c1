"""The program pipeline on embedded Postgres with the offline agents: a plan request goes pending, its
PlanRequested builds it (ready, deloads, week 1) once; an agent that always fails validation leaves a
failed plan with a readable error and its invocation recorded; the hourly run over a clock publishes
WeekDue for the due plans only (local week starts across time zones and DST), and a WeekDue delivered
twice, even at once, builds the week once; the morning run publishes one WorkoutReady per training day at
the local morning hour; week and day changes rebuild from the user's situation; today's message; a pasted
workout imported; a plan left pending is requested again.

The database is shared with other tests: cross-user reads are asserted on this test's users only."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel
from trainer.agents import AgentRegistry, AgentRunDeps, OfflineContext
from trainer.container import agent_run_deps, build_agent_registry
from trainer.domain.equipment import missing_equipment
from trainer.jobs.programs import ProgramJobDeps, handle_plan_requested, handle_week_due
from trainer.programs.agents import FITNESS_PLAN, MICROCYCLE
from trainer.programs.changes import WeekChange
from trainer.programs.microcycle.dates import week_due_at
from trainer.programs.microcycle.week import draft_week
from trainer.programs.models import PlanInputs, PlanRequest
from trainer.programs.pipeline import (
    PLAN_REQUESTED,
    WEEK_DUE,
    WORKOUT_READY,
    ProgramDeps,
    ProgramError,
    build_plan,
    build_week,
    change_day,
    change_week,
    import_workout,
    request_plan,
    requeue_stale_plans,
    run_daily,
    run_hourly,
    workout_for,
)
from trainer.settings import Settings
from trainer.store.bus import EventBridgePublisher
from trainer.store.db import Database
from trainer.store.dynamo_tables import aws_client
from trainer.store.repositories import locations, programs, readiness
from trainer_dev.local.bus import InProcessBus
from trainer_dev.local.seed import seed_demo_user
from trainer_dev.testing.agent_harness import RecordingPublisher

MONDAY = date(2026, 3, 2)
DAYS = ["Monday", "Tuesday", "Thursday", "Friday"]
OFFLINE = Settings(TRAINER_AGENT_PROVIDER="offline")


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture(scope="module")
def registries() -> AgentRegistry:
    return build_agent_registry()


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))


@pytest.fixture
def agents(db: Database, registries: AgentRegistry) -> AgentRunDeps:
    return agent_run_deps(OFFLINE, db, registries)


@pytest.fixture
def deps(db: Database, agents: AgentRunDeps, clock: Clock) -> ProgramDeps:
    return ProgramDeps(db=db, agents=agents, now=clock)


@pytest.fixture
def trainee(db: Database, make_user: Callable[..., str], clock: Clock) -> Callable[..., Any]:
    """A user seeded like the demo user (home gym, goals, two weeks of history) in a time zone."""

    async def make(timezone: str = "UTC", location: str | None = None) -> str:
        user = make_user(timezone=timezone)
        await seed_demo_user(db, user, now=clock.at)
        if location is not None:
            async with db.connection() as conn:
                await locations.set_current(conn, user, name=location)
        return user

    return make


def request(**fields: Any) -> PlanRequest:
    return PlanRequest(weeks=12, training_days=DAYS, start_date=MONDAY, **fields)


def envelope(detail_type: str, detail: dict[str, Any]) -> dict[str, Any]:
    return InProcessBus().envelope(detail_type, detail)


def mine(details: list[dict[str, Any]], *users: str) -> list[dict[str, Any]]:
    return [d for d in details if d["user_id"] in users]


async def invocations(db: Database, user: str, agent: str) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT status, attempts, error, validation_errors FROM agent_invocations"
            " WHERE user_id = %s AND agent = %s ORDER BY started_at",
            (user, agent),
        )
        return await cur.fetchall()


async def ready_plan(deps: ProgramDeps, user: str, **fields: Any) -> dict[str, Any]:
    row = await request_plan(deps, user, request(**fields))
    assert row["status"] == "ready", row["error"]
    return row


async def days_of(db: Database, user: str, plan_id: Any, week: int) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        return await programs.week_days(conn, user, plan_id, week)


def exercises(day: dict[str, Any]) -> list[dict[str, Any]]:
    return list((day.get("workout") or {}).get("exercises") or [])


# --- plans ----------------------------------------------------------------------------------------


async def test_a_requested_plan_is_pending_then_built_once_by_its_event(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any]
) -> None:
    user = await trainee("Europe/Berlin")
    publisher = RecordingPublisher()
    queued = dataclasses.replace(deps, publisher=publisher)

    pending = await request_plan(queued, user, request())

    assert pending["status"] == "pending" and not pending["active"]
    assert publisher.published == [(PLAN_REQUESTED, {"user_id": user, "plan_id": str(pending["id"])})]
    jobs = ProgramJobDeps.on_loop(deps, asyncio.get_running_loop())
    event = envelope(*publisher.published[0])
    first = await asyncio.to_thread(handle_plan_requested, event, None, jobs)
    again = await asyncio.to_thread(handle_plan_requested, event, None, jobs)

    assert first["status"] == again["status"] == "ready"
    async with db.connection() as conn:
        plan = await programs.get_plan(conn, user, pending["id"])
        weeks = await programs.list_weeks(conn, user, pending["id"])
    assert plan is not None and plan["active"]
    assert plan["plan"]["weeks"] == 12 and len(plan["plan"]["microcycles"]) >= 3
    deloads = sorted({w for m in plan["plan"]["microcycles"] for w in m["deload_weeks"]})
    assert deloads and all(4 <= w <= 12 for w in deloads)
    assert "## Modification History" in plan["markdown"]
    assert [(w["week_number"], w["status"]) for w in weeks] == [(1, "ready")]
    days = await days_of(db, user, pending["id"], 1)
    assert [d["date"] for d in days] == [MONDAY + timedelta(days=i) for i in range(7)]
    assert [d["weekday"] for d in days if d["kind"] == "training"] == DAYS
    assert all(exercises(d) for d in days if d["kind"] == "training")
    assert all(d["recovery_notes"] for d in days if d["kind"] == "rest")
    assert all(d["message"] and len(d["message"]) <= 1600 for d in days)
    assert plan["next_week"] == 2
    assert plan["next_week_due_at"] == week_due_at(MONDAY, 2, "Europe/Berlin")
    assert [r["status"] for r in await invocations(db, user, FITNESS_PLAN.name)] == ["success"], "built once"


def no_backoff(agents: AgentRunDeps) -> AgentRunDeps:
    async def skip(seconds: float) -> None:
        return None

    return dataclasses.replace(agents, sleep=skip)


def failing_registries(registries: AgentRegistry) -> AgentRegistry:
    """The system's agents with a fitness_plan whose every answer fails validation."""

    class Broken(BaseModel):
        title: str

    async def broken(inputs: PlanInputs, context: OfflineContext) -> Broken:
        return Broken(title="A plan with no phases")

    copy = registries.copy()
    copy.replace(dataclasses.replace(FITNESS_PLAN, offline=broken))
    return copy


async def test_a_plan_the_agent_cannot_build_fails_with_a_readable_error_and_is_recorded(
    deps: ProgramDeps, db: Database, registries: AgentRegistry, trainee: Callable[..., Any]
) -> None:
    user = await trainee()
    broken = dataclasses.replace(
        deps, agents=no_backoff(agent_run_deps(OFFLINE, db, failing_registries(registries)))
    )

    row = await request_plan(broken, user, request())

    assert row["status"] == "failed" and not row["active"]
    assert row["error"].startswith("Your plan could not be built: ")
    assert "Please try again" in row["error"] and "Traceback" not in row["error"]
    assert len(row["error"]) < 1000
    (invocation,) = await invocations(db, user, FITNESS_PLAN.name)
    assert invocation["status"] == "failed" and invocation["attempts"] == 3
    assert invocation["validation_errors"], "each rejected attempt is recorded"
    assert (await build_plan(deps, user, row["id"]))["status"] == "failed", "a failed plan stays failed"
    async with db.connection() as conn:
        assert await programs.list_weeks(conn, user, row["id"]) == []


async def test_a_plan_whose_first_week_cannot_be_built_fails_and_never_reads_ready_without_it(
    deps: ProgramDeps, db: Database, registries: AgentRegistry, trainee: Callable[..., Any]
) -> None:
    """`ready` promises the first week: a plan whose week 1 the agent cannot build fails with the week's
    reason (the user asks again) instead of reading `ready` with no days."""
    user = await trainee()

    async def broken(given: Any, context: OfflineContext) -> dict[str, Any]:
        return {"week_number": given.week_number, "days": []}

    copy = registries.copy()
    copy.replace(dataclasses.replace(MICROCYCLE, offline=broken))
    failing = dataclasses.replace(deps, agents=no_backoff(agent_run_deps(OFFLINE, db, copy)))

    plan = await request_plan(failing, user, request())

    assert (plan["status"], plan["active"]) == ("failed", False)
    assert plan["error"].startswith("Your week could not be built: ")
    async with db.connection() as conn:
        assert await programs.list_workouts(conn, user, MONDAY, MONDAY + timedelta(days=6)) == []


async def test_a_later_week_the_agent_cannot_build_is_due_again_later_and_later(
    deps: ProgramDeps, db: Database, registries: AgentRegistry, trainee: Callable[..., Any], clock: Clock
) -> None:
    user = await trainee()

    async def broken(given: Any, context: OfflineContext) -> Any:
        if given.week_number == 1:
            return draft_week(given.plan, given.week_number, given.inputs)
        return {"week_number": given.week_number, "days": []}

    copy = registries.copy()
    copy.replace(dataclasses.replace(MICROCYCLE, offline=broken))
    failing = dataclasses.replace(deps, agents=no_backoff(agent_run_deps(OFFLINE, db, copy)))

    plan = await request_plan(failing, user, request())

    assert plan["status"] == "ready" and plan["next_week"] == 2
    async with db.connection() as conn:
        (first,) = await programs.list_weeks(conn, user, plan["id"])
    assert (first["week_number"], first["status"]) == (1, "ready"), "ready means week 1 exists"
    clock.at = plan["next_week_due_at"]
    jobs = ProgramJobDeps.on_loop(failing, asyncio.get_running_loop())
    due = {"user_id": user, "plan_id": str(plan["id"]), "week_number": 2}
    once = await asyncio.to_thread(handle_week_due, envelope(WEEK_DUE, due), None, jobs)
    assert once["built"] is False and once["reason"] == "build_failed"
    async with db.connection() as conn:
        row = await programs.get_plan(conn, user, plan["id"])
    assert row is not None and row["next_week_due_at"] == clock.at + timedelta(hours=1)
    clock.at += timedelta(hours=1)
    again = await asyncio.to_thread(handle_week_due, envelope(WEEK_DUE, due), None, jobs)

    assert again["built"] is False and again["reason"] == "build_failed"
    assert again["error"].startswith("Your week could not be built: ")
    async with db.connection() as conn:
        row = await programs.get_plan(conn, user, plan["id"])
        second = next(w for w in await programs.list_weeks(conn, user, plan["id"]) if w["week_number"] == 2)
    assert row is not None and row["next_week_due_at"] == clock.at + timedelta(hours=2)
    assert (second["status"], second["attempts"]) == ("failed", 2)
    mended = await asyncio.to_thread(
        handle_week_due,
        envelope(WEEK_DUE, due),
        None,
        ProgramJobDeps.on_loop(deps, asyncio.get_running_loop()),
    )
    assert mended["built"] is True and mended["days"] == 7


async def test_a_plan_left_pending_is_requested_again(deps: ProgramDeps, trainee: Callable[..., Any]) -> None:
    user = await trainee()
    lost = dataclasses.replace(deps, publisher=RecordingPublisher())
    pending = await request_plan(lost, user, request())
    resend = dataclasses.replace(deps, publisher=RecordingPublisher())
    requested_at = datetime.now(UTC)  # the row's created_at is the database's clock

    soon = await requeue_stale_plans(resend, now=requested_at + timedelta(minutes=5))
    later = await requeue_stale_plans(resend, now=requested_at + timedelta(minutes=20))

    assert mine(soon, user) == []
    assert mine(later, user) == [{"user_id": user, "plan_id": str(pending["id"])}]
    assert isinstance(resend.publisher, RecordingPublisher)
    assert (PLAN_REQUESTED, {"user_id": user, "plan_id": str(pending["id"])}) in resend.publisher.published
    gave_up = await requeue_stale_plans(resend, now=requested_at + timedelta(days=2))
    assert mine(gave_up, user) == []
    async with resend.db.connection() as conn:
        failed = await programs.get_plan(conn, user, pending["id"])
    assert failed is not None and failed["status"] == "failed" and "ask for it again" in failed["error"]


# --- the hourly run -------------------------------------------------------------------------------


async def test_the_hourly_run_publishes_week_due_for_due_plans_only_and_a_week_builds_once(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any], clock: Clock
) -> None:
    new_york, tokyo, planless = (
        await trainee("America/New_York"),
        await trainee("Asia/Tokyo"),
        await trainee(),
    )
    ny_plan, tokyo_plan = await ready_plan(deps, new_york), await ready_plan(deps, tokyo)
    publisher = RecordingPublisher()
    hourly = dataclasses.replace(deps, publisher=publisher)
    users = (new_york, tokyo, planless)

    # Week 2 starts on Monday 9 March: 00:00 in Tokyo is 15:00Z on the 8th; in New York, a day after
    # the clocks went forward, 04:00Z on the 9th (not 05:00Z as in winter, nor 00:00Z as in UTC).
    at_tokyo = await run_hourly(hourly, now=datetime(2026, 3, 8, 20, 0, tzinfo=UTC))
    before_ny = await run_hourly(hourly, now=datetime(2026, 3, 9, 3, 30, tzinfo=UTC))
    at_ny = await run_hourly(hourly, now=datetime(2026, 3, 9, 4, 0, tzinfo=UTC))

    tokyo_due = {"user_id": tokyo, "plan_id": str(tokyo_plan["id"]), "week_number": 2}
    ny_due = {"user_id": new_york, "plan_id": str(ny_plan["id"]), "week_number": 2}
    assert mine(at_tokyo, *users) == [tokyo_due]
    assert mine(before_ny, *users) == [tokyo_due], "not built yet: still due"
    assert sorted(mine(at_ny, *users), key=str) == sorted([tokyo_due, ny_due], key=str)
    assert all(t == WEEK_DUE for t, _ in publisher.published)

    clock.at = datetime(2026, 3, 9, 4, 5, tzinfo=UTC)
    jobs = ProgramJobDeps.on_loop(deps, asyncio.get_running_loop())
    event = envelope(WEEK_DUE, ny_due)
    together = await asyncio.gather(
        asyncio.to_thread(handle_week_due, event, None, jobs),
        asyncio.to_thread(handle_week_due, event, None, jobs),
    )
    redelivered = await asyncio.to_thread(handle_week_due, event, None, jobs)

    assert sorted(r["built"] for r in together) == [False, True]
    assert redelivered["built"] is False and redelivered["reason"] == "already_built"
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT count(*) AS n FROM agent_invocations WHERE user_id = %s AND agent = 'microcycle'",
            (new_york,),
        )
        built_weeks = (await cur.fetchone())["n"]
        plan = await programs.get_plan(conn, new_york, ny_plan["id"])
        weeks = await programs.list_weeks(conn, new_york, ny_plan["id"])
    assert built_weeks == 2, "week 1 with the plan, week 2 once"
    assert [(w["week_number"], w["status"], w["attempts"]) for w in weeks] == [
        (1, "ready", 1),
        (2, "ready", 1),
    ]
    assert len(await days_of(db, new_york, ny_plan["id"], 2)) == 7
    assert plan is not None and plan["next_week"] == 3
    assert plan["next_week_due_at"] == datetime(2026, 3, 16, 4, 0, tzinfo=UTC)
    after = await run_hourly(hourly, now=datetime(2026, 3, 9, 5, 0, tzinfo=UTC))
    assert mine(after, new_york) == [], "built: no longer due"


async def test_a_run_down_week_brings_the_deload_forward_and_it_is_stored_as_one(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any], clock: Clock
) -> None:
    """Two check-ins of the past week pointing to less than a full day: week 2 is built as a deload
    (docs/training-model.md#deloads), stored as one, and week 3 is not another."""
    user = await trainee()
    plan = await ready_plan(deps, user)
    clock.at = datetime(2026, 3, 8, 20, 0, tzinfo=UTC)
    async with db.transaction() as conn:
        for days_ago in (1, 2):
            await readiness.add_entry(
                conn, user, recorded_at=clock.at - timedelta(days=days_ago), sleep_hours=5, energy=2
            )
    built = await build_week(deps, user, plan["id"], 2)
    assert built.built
    async with db.connection() as conn:
        weeks = {w["week_number"]: w for w in await programs.list_weeks(conn, user, plan["id"])}
    assert weeks[2]["deload"] is True
    training = [d for d in await days_of(db, user, plan["id"], 2) if d.get("workout")]
    assert training and all("(deload)" in d["workout"]["title"] for d in training)
    clock.at = datetime(2026, 3, 15, 20, 0, tzinfo=UTC)
    assert (await build_week(deps, user, plan["id"], 3)).built
    async with db.connection() as conn:
        weeks = {w["week_number"]: w for w in await programs.list_weeks(conn, user, plan["id"])}
    assert weeks[3]["deload"] is False


async def test_week_due_reaches_the_bus_through_eventbridge(
    deps: ProgramDeps, aws_settings: Settings, trainee: Callable[..., Any]
) -> None:
    user = await trainee("Asia/Tokyo")
    plan = await ready_plan(deps, user)
    sqs, events = aws_client("sqs", aws_settings), aws_client("events", aws_settings)
    queue_url = sqs.create_queue(QueueName=f"week-due-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    events.put_rule(
        Name="week-due",
        EventBusName=aws_settings.event_bus_name,
        EventPattern=json.dumps({"source": ["trainer.agent"], "detail-type": [WEEK_DUE]}),
    )
    events.put_targets(
        Rule="week-due", EventBusName=aws_settings.event_bus_name, Targets=[{"Id": "q", "Arn": queue_arn}]
    )

    published = await run_hourly(
        dataclasses.replace(deps, publisher=EventBridgePublisher(aws_settings)),
        now=datetime(2026, 3, 8, 16, 0, tzinfo=UTC),
    )

    messages = []
    for _ in range(5):
        response = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=1, MaxNumberOfMessages=10)
        messages += [json.loads(m["Body"]) for m in response.get("Messages", [])]
        if len(messages) >= len(published):
            break
    delivered = [m["detail"] for m in messages if m["detail"]["user_id"] == user]
    assert delivered == [{"user_id": user, "plan_id": str(plan["id"]), "week_number": 2}]


# --- the morning run ------------------------------------------------------------------------------


async def test_the_morning_run_publishes_each_training_day_once_at_the_local_morning(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any]
) -> None:
    berlin, new_york = await trainee("Europe/Berlin"), await trainee("America/New_York")
    berlin_plan = await ready_plan(deps, berlin)
    await ready_plan(deps, new_york)
    publisher = RecordingPublisher()
    daily = dataclasses.replace(deps, publisher=publisher)
    tuesday = (await days_of(db, berlin, berlin_plan["id"], 1))[1]
    async with db.connection() as conn:
        await conn.execute("UPDATE plan_workouts SET message = NULL WHERE id = %s", (tuesday["id"],))
    assert (await days_of(db, berlin, berlin_plan["id"], 1))[1]["message"] is None

    # 06:00 in Berlin (CET) is 05:00Z; New York is at midnight then.
    early = await run_daily(daily, now=datetime(2026, 3, 2, 4, 10, tzinfo=UTC))
    monday = await run_daily(daily, now=datetime(2026, 3, 2, 5, 10, tzinfo=UTC))
    monday_again = await run_daily(daily, now=datetime(2026, 3, 2, 5, 40, tzinfo=UTC))
    rest_day = await run_daily(daily, now=datetime(2026, 3, 4, 5, 10, tzinfo=UTC))
    tuesday_run = await run_daily(daily, now=datetime(2026, 3, 3, 5, 10, tzinfo=UTC))

    assert mine(early, berlin, new_york) == []
    (sent,) = mine(monday, berlin, new_york)
    days = await days_of(db, berlin, berlin_plan["id"], 1)
    assert sent["user_id"] == berlin and sent["workout_id"] == str(days[0]["id"])
    assert sent["date"] == "2026-03-02" and sent["week_number"] == 1 and sent["timezone"] == "Europe/Berlin"
    assert sent["message"] == days[0]["message"] and len(sent["message"]) <= 1600
    assert mine(monday_again, berlin, new_york) == [], "published once"
    assert mine(rest_day, berlin, new_york) == [], "a rest day has no workout to send"
    (generated,) = mine(tuesday_run, berlin, new_york)
    assert generated["workout_id"] == str(tuesday["id"])
    assert generated["message"] and len(generated["message"]) <= 1600
    cached = (await days_of(db, berlin, berlin_plan["id"], 1))[1]
    assert cached["message"] == generated["message"] and cached["published_at"] is not None
    assert [t for t, d in publisher.published if d["user_id"] == berlin] == [WORKOUT_READY, WORKOUT_READY]


async def test_a_morning_event_that_cannot_be_sent_is_sent_by_the_next_run(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any]
) -> None:
    user = await trainee("Asia/Kolkata")
    plan = await ready_plan(deps, user)
    at = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)  # 06:30 in Kolkata
    down = RecordingPublisher(error=RuntimeError("bus unavailable"))

    with pytest.raises(RuntimeError):
        await run_daily(dataclasses.replace(deps, publisher=down), now=at)
    retried = await run_daily(dataclasses.replace(deps, publisher=RecordingPublisher()), now=at)

    (monday,) = [d for d in await days_of(db, user, plan["id"], 1) if d["date"] == MONDAY]
    assert [d["workout_id"] for d in mine(retried, user)] == [str(monday["id"])]


# --- changes --------------------------------------------------------------------------------------


HOTEL = ["dumbbells", "treadmill", "bench"]


async def test_hotel_gym_only_rebuilds_next_week_with_that_equipment_only(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any], clock: Clock
) -> None:
    user = await trainee(location="Commercial Gym")
    plan = await ready_plan(deps, user)
    week_one = await days_of(db, user, plan["id"], 1)
    assert any(missing_equipment(e.get("equipment") or [], HOTEL) for d in week_one for e in exercises(d)), (
        "the gym week uses equipment the hotel lacks"
    )
    clock.at = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
    reason = "I'm travelling next week, hotel gym only"

    build = await change_week(deps, user, WeekChange(reason=reason, equipment=HOTEL))

    assert build.built and build.week_number == 2 and len(build.days) == 7
    training = [d for d in build.days if d["kind"] == "training"]
    assert [d["weekday"] for d in training] == DAYS and all(exercises(d) for d in training)
    for day in training:
        for exercise in exercises(day):
            assert not missing_equipment(exercise.get("equipment") or [], HOTEL), exercise["exercise_name"]
    async with db.connection() as conn:
        row = await programs.get_plan(conn, user, plan["id"])
    assert row is not None and row["next_week"] == 3, "built ahead: the scheduler moves on to week 3"
    assert row["plan"]["modification_history"][-1] == {
        "day": "2026-03-04",
        "change": f"Week 2 rebuilt: {reason}",
    }
    assert reason in row["markdown"]
    assert await days_of(db, user, plan["id"], 1) == week_one, "this week is untouched"


async def test_changing_the_current_week_keeps_the_days_already_past(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any], clock: Clock
) -> None:
    user = await trainee(location="Commercial Gym")
    plan = await ready_plan(deps, user)
    before = await days_of(db, user, plan["id"], 1)
    clock.at = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)

    build = await change_week(
        deps, user, WeekChange(reason="no gym this week", equipment=["bodyweight"]), week="current"
    )

    assert build.built and build.week_number == 1
    assert build.days[0] == before[0], "Monday is over"
    for day in build.days[1:]:
        for exercise in exercises(day):
            assert not missing_equipment(exercise.get("equipment") or [], ["bodyweight"])
    assert build.days[1]["workout"] != before[1]["workout"]


async def test_moving_a_week_to_other_days_trains_on_those_days(
    deps: ProgramDeps, trainee: Callable[..., Any], clock: Clock
) -> None:
    user = await trainee()
    await ready_plan(deps, user)
    clock.at = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)

    build = await change_week(
        deps,
        user,
        WeekChange(reason="busy Monday and Tuesday", training_days=["Wednesday", "Saturday", "Sunday"]),
    )

    assert [d["weekday"] for d in build.days if d["kind"] == "training"] == [
        "Wednesday",
        "Saturday",
        "Sunday",
    ]
    assert all(exercises(d) for d in build.days if d["kind"] == "training")


async def test_change_day_rebuilds_that_day_only(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any], clock: Clock
) -> None:
    user = await trainee(location="Commercial Gym")
    plan = await ready_plan(deps, user)
    before = await days_of(db, user, plan["id"], 1)
    thursday = MONDAY + timedelta(days=3)
    clock.at = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)

    day = await change_day(deps, user, thursday, WeekChange(reason="only bands at home", equipment=["bands"]))

    assert day["date"] == thursday and day["kind"] == "training" and exercises(day)
    for exercise in exercises(day):
        assert not missing_equipment(exercise.get("equipment") or [], ["bands"]), exercise["exercise_name"]
    assert day["message"] and len(day["message"]) <= 1600
    after = await days_of(db, user, plan["id"], 1)
    assert [d for d in after if d["date"] != thursday] == [d for d in before if d["date"] != thursday]
    with pytest.raises(ProgramError) as past:
        await change_day(deps, user, MONDAY, WeekChange(reason="too late"))
    assert past.value.code == "invalid_request"


async def test_changes_need_an_active_plan_and_a_known_location(
    deps: ProgramDeps, trainee: Callable[..., Any]
) -> None:
    user = await trainee()
    with pytest.raises(ProgramError) as none:
        await change_week(deps, user, WeekChange(reason="travelling"))
    assert none.value.code == "no_active_plan"
    await ready_plan(deps, user)
    with pytest.raises(ProgramError) as unknown:
        await change_week(deps, user, WeekChange(reason="travelling", location="Hotel Paris"))
    assert unknown.value.code == "invalid_request" and "Home Gym" in unknown.value.message


# --- today's workout and imports ------------------------------------------------------------------


async def test_todays_workout_comes_with_a_message_cached_on_the_day(
    deps: ProgramDeps, db: Database, trainee: Callable[..., Any]
) -> None:
    user = await trainee()
    plan = await ready_plan(deps, user)
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE plan_workouts SET message = NULL WHERE plan_id = %s AND date = %s", (plan["id"], MONDAY)
        )

    today = await workout_for(deps, user)

    assert today is not None and today["date"] == MONDAY and today["kind"] == "training"
    assert today["message"] and len(today["message"]) <= 1600
    assert "MAIN WORKOUT" in today["message"]
    (stored,) = [d for d in await days_of(db, user, plan["id"], 1) if d["date"] == MONDAY]
    assert stored["message"] == today["message"]
    assert await workout_for(deps, user, MONDAY + timedelta(days=30)) is None


async def test_a_pasted_workout_is_imported_as_a_structured_workout(
    deps: ProgramDeps, trainee: Callable[..., Any]
) -> None:
    user = await trainee()
    text = "Push day from my coach\nBench press 4x8 @ 60kg\n3 sets of 10 squats\nRemember to hydrate!"

    imported = await import_workout(deps, user, text)

    names = [e.exercise_name for e in imported.workout.exercises]
    assert len(names) == 2 and "Bench" in names[0] and "Squat" in names[1]
    bench = imported.workout.exercises[0]
    assert bench.sets == 4 and bench.reps == [8, 8, 8, 8] and bench.load_each == [60.0] * 4
    assert "Remember to hydrate!" in imported.unrecognised
    with pytest.raises(ProgramError) as nothing:
        await import_workout(deps, user, "Hello coach, see you tomorrow")
    assert nothing.value.code == "invalid_request"
