"""A user with something in every table: the world the account deletion and export tests (and
bench/bench_account.py) build, through the same services and stores the app writes with.

`POSTGRES_SEEDERS` names, for every table that holds users' rows, the step below that writes it: a test
fails when the schema has a user table no step writes (a table a later migration adds), so the deletion and
export tests always cover every table. The DynamoDB side writes every kind of item the sessions table holds
for a user: session META, events (one large enough to be compressed, one split into BLOB parts), state,
a lease, the `USER#` daily metrics and reservation items and a request-rate item.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from trainer.agents.registry import AgentRegistry
from trainer.container import agent_run_deps, build_agent_registry
from trainer.domain.health_data import DATA_TYPES
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import ProgramDeps, request_plan
from trainer.services.health import SampleRow
from trainer.services.models import UserSettings
from trainer.services.usage_limits import UsageLimits
from trainer.services.user_data import UserDataService
from trainer.services.workout_plans import PlanSession
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.metrics import DailyMetricsStore
from trainer.store.models import EventType
from trainer.store.repositories import notifications, today
from trainer.store.sessions import DynamoSessionTable
from trainer.store.stream_records import DynamoStreamRecords
from trainer.store.usage import DynamoUsageLedger

OFFLINE = Settings(TRAINER_AGENT_PROVIDER="offline")

POSTGRES_SEEDERS: dict[str, str] = {
    "users": "profile",
    "user_settings": "settings",
    "user_locations": "locations",
    "category_goals": "goals",
    "muscle_goals": "goals",
    "preferences": "preferences",
    "workout_history": "history",
    "exercise_distribution_tracking": "history",
    "exercise_distribution_totals": "history",
    "scheduled_workouts": "calendar",
    "workout_plans": "calendar",
    "milestone_goals": "milestones",
    "training_plans": "training plan",
    "plan_weeks": "training plan",
    "plan_workouts": "training plan",
    "agent_invocations": "training plan",
    "devices": "delivery",
    "notification_settings": "delivery",
    "notification_deliveries": "delivery",
    "daily_workouts": "delivery",
    "readiness_entries": "readiness",
    "health_consents": "health",
    "health_samples": "health",
}
"""Every user table and the step that gives a user rows in it."""

EXERCISES = (
    ("Bench Press", ["Chest", "Triceps"]),
    ("Back Squat", ["Quadriceps", "Glutes"]),
    ("Deadlift", ["Hamstrings", "Lower Back"]),
    ("Pull-up", ["Back", "Biceps"]),
    ("Overhead Press", ["Shoulders", "Triceps"]),
    ("Plank", ["Abs"]),
)


async def populate_postgres(db: Database, user_id: str, *, now: datetime, history_days: int = 21) -> None:
    """Rows for the user in every table of POSTGRES_SEEDERS; `history_days` of workouts (four a week, six
    exercises each) before `now`."""
    data = UserDataService(db).for_user(user_id)
    await data.profile.ensure(display_name="Account Owner")
    await data.profile.update(
        sex="female", birth_date="1990-04-02", height_cm=170, weight_kg=64.5, experience="intermediate"
    )
    await data.settings.update(timezone="Europe/Berlin", preferred_days=["Monday", "Wednesday", "Friday"])
    await data.locations.create(
        "Home gym",
        description="Garage",
        equipment=["Pull-up Bar", {"name": "Dumbbells", "weights": [5, 10, 20], "unit": "kg"}],
        make_current=True,
    )
    await data.locations.create("Hotel", equipment=["Treadmill"])
    await data.goals.set_categories(
        [{"category": "Strength", "percentage": 60}, {"category": "Cardio", "percentage": 40}]
    )
    await data.goals.set_muscles({"Chest": 50, "Back": 50})
    await data.preferences.create(type="injury", description="Sore left knee", guidance="No jumping")
    await data.preferences.create(type="exercise", description="Likes rowing")
    await log_history(db, user_id, now=now, days=history_days)
    await data.workout_plans.create(
        plan_name="Spring block",
        start_date=now.date(),
        duration_weeks=4,
        sessions=[PlanSession(scheduled_date=now + timedelta(days=2), workout_type="Upper body")],
    )
    await data.schedule.add(
        scheduled_date=now + timedelta(days=3), workout_type="Easy run", duration_minutes=30
    )
    await data.milestones.create(goal_name="Run a 5K", goal_type="distance", target_value=5, target_unit="km")
    await data.readiness.check_in(sleep_hours=5.5, energy=2, soreness={"Quadriceps": 3})
    await populate_health(db, user_id, now=now)
    deps = ProgramDeps(db=db, agents=agent_run_deps(OFFLINE, db, _registries()), now=lambda: now)
    await request_plan(deps, user_id, PlanRequest(weeks=4, training_days=["Monday", "Wednesday", "Friday"]))
    await populate_delivery(db, user_id, now=now)


async def populate_delivery(db: Database, user_id: str, *, now: datetime) -> None:
    """A registered device, notification settings, a delivery record and the day's generated workout."""
    data = UserDataService(db).for_user(user_id)
    token = hashlib.sha256(user_id.encode()).hexdigest()  # an APNs token of this user's own
    await data.devices.register(platform="apns", token=token, app_version="1.0", timezone="Europe/Berlin")
    await data.notifications.replace_settings(
        push_enabled=True, morning_hour=8, quiet_hours=(time(22), time(6)), sms_enabled=False, phone=None
    )
    async with db.transaction() as conn:
        await notifications.skip(conn, user_id, now.date(), reason="quiet_hours", now=now, title="Push day")
        await today.keep_daily_workout(
            conn,
            user_id,
            now.date() + timedelta(days=1),
            title="Bodyweight circuit",
            workout={"title": "Bodyweight circuit", "exercises": [{"name": "Push-up"}]},
            message="Three rounds, rest as needed.",
        )


async def populate_health(db: Database, user_id: str, *, now: datetime) -> None:
    """Consent to every type of health data and a sample of each kind the phone sends."""
    health = UserDataService(db).for_user(user_id).health
    await health.set_consents(dict.fromkeys(DATA_TYPES, True))
    night = now - timedelta(hours=8)
    await health.store(
        "healthkit",
        [
            SampleRow(f"hrv-{user_id}", "hrv_sdnn", night, night, 48.0, "ms", "Apple Watch"),
            SampleRow(f"rhr-{user_id}", "resting_heart_rate", night, night, 54.0, "bpm", "Apple Watch"),
            SampleRow(
                f"sleep-{user_id}",
                "sleep_session",
                night - timedelta(hours=7),
                night,
                400.0,
                "min",
                "Apple Watch",
                {"stages": [{"stage": "deep", "start": night.isoformat(), "end": night.isoformat()}]},
            ),
            SampleRow(
                f"steps-{user_id}", "steps", night, night + timedelta(hours=1), 1200.0, "count", "iPhone"
            ),
            SampleRow(
                f"run-{user_id}",
                "workout",
                night - timedelta(days=1),
                night - timedelta(days=1) + timedelta(minutes=50),
                50.0,
                "min",
                "Strava",
                {"activity": "running", "distance_m": 10_000.0},
            ),
        ],
    )


_REGISTRIES: list[AgentRegistry] = []


def _registries() -> AgentRegistry:
    if not _REGISTRIES:
        _REGISTRIES.append(build_agent_registry())
    return _REGISTRIES[0]


async def log_history(db: Database, user_id: str, *, now: datetime, days: int) -> int:
    """Four workouts a week of six exercises over the `days` before `now`: the rows logged."""
    data = UserDataService(db).for_user(user_id)
    rng = random.Random(user_id)
    logged = 0
    for back in range(days, 0, -1):
        day = now - timedelta(days=back)
        if day.weekday() not in (0, 1, 3, 4):
            continue
        entries = [
            {
                "exercise_name": name,
                "exercise_type": "reps" if name != "Plank" else "hold",
                "sets": 3,
                **(
                    {"reps": [8, 8, 6], "load_each": [rng.choice([20, 40, 60])] * 3}
                    if name != "Plank"
                    else {}
                ),
                **({"hold_sec": [45, 45, 40]} if name == "Plank" else {}),
                "muscles": muscles,
                "goals": ["Strength"],
                "performed_at": day.isoformat(),
                "workout_id": f"w-{day.date().isoformat()}",
            }
            for name, muscles in EXERCISES
        ]
        logged += len(await data.history.log(entries, units=UserSettings(), now=now))
    return logged


@dataclass
class DynamoWorld:
    sessions: list[str] = field(default_factory=list)
    turn_spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Session id -> (first_seq, last_seq) of its last turn (for a TurnCompleted)."""


async def populate_dynamodb(
    settings: Settings,
    table: DynamoSessionTable,
    user_id: str,
    *,
    sessions: int = 2,
    turns_per_session: int = 1,
    day: date | None = None,
    large_payload: bool = True,
) -> DynamoWorld:
    """Every kind of sessions-table item for the user (see the module docstring); `large_payload`: the
    first session holds one event of about 1 MB (kept in BLOB parts)."""
    world = DynamoWorld()
    for index in range(sessions):
        session = table.create_session(user_id)
        world.sessions.append(session.id)
        for _ in range(turns_per_session):
            world.turn_spans[session.id] = play_turn(table, session.id)
        if index == 0:
            if large_payload:  # compressed and split into BLOB parts
                rows = [random.Random(i).random() for i in range(60_000)]
                table.append_event(
                    session.id, EventType.TOOL_RESULT, {"tool_name": "fetch_data", "result": {"rows": rows}}
                )
            table.put_state(
                session.id, "current_workout", {"title": "Push day", "exercises": [{"name": "Dips"}]}
            )
            # a turn that died an hour ago holding the lease (it ran out long since)
            an_hour_ago = DynamoSessionTable(
                settings, client=table.client, clock=lambda: datetime.now(UTC) - timedelta(hours=1)
            )
            an_hour_ago.acquire_lease(session.id, "turn:left-behind", 1)
    today = day or datetime.now(UTC).date()
    DailyMetricsStore(settings, client=table.client).add(user_id, today, turns=1, cost_cents=0.5)
    limits = UsageLimits(
        DynamoUsageLedger(settings, client=table.client),
        daily={"turns": 100, "plans": 10, "imports": 10},
        cost_limit_cents=500,
    )
    await limits.reserve(user_id, "turns")
    await limits.check_rate(user_id, "read")
    await DynamoStreamRecords(settings, client=table.client).claim(
        user_id, "chat", "retried-tap", "body-hash"
    )
    return world


def play_turn(table: DynamoSessionTable, session_id: str) -> tuple[int, int]:
    """A turn's events as the agent writes them: (first_seq, last_seq)."""
    first = table.append_event(session_id, EventType.USER_MESSAGE, {"message": "Give me a chest workout"})
    table.append_event(
        session_id,
        EventType.LLM_RESPONSE,
        {
            "raw_response": {},
            "tokens": {"prompt": 500, "completion": 100, "cached": 4000, "cache_write": 500, "total": 5100},
            "cost_cents": 0.25,
        },
    )
    table.append_event(session_id, EventType.TOOL_CALL, {"tool_name": "generate_workout", "arguments": {}})
    last = table.append_event(
        session_id,
        EventType.TOOL_RESULT,
        {"tool_name": "generate_workout", "success": True, "formatted": "ok"},
    )
    return first.sequence_number, last.sequence_number
