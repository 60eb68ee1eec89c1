"""The data the sample events in events/ refer to, so each function they target does its real job.

`trainer invoke` seeds it before every invocation (tests/integration/dev/test_invoke.py too):

- the sample user (SAMPLE_USER_ID: the events' `user_id`, and whose token replaces
  `Bearer REPLACE_WITH_JWT`): seeded like `make run`'s demo user (profile, units, two gyms, goals, two
  weeks of history), in New York time, training Monday, Wednesday and Friday;
- the sample session (SAMPLE_SESSION_ID) in DynamoDB: one turn of eight events (sequence 1-8) with two
  model responses whose usage adds up to the TurnCompleted samples' `usage` and `cost_cents`; the
  checkpoint sample (86,000 context tokens, over the threshold) checkpoints it, the cost sample counts it;
- a pending plan (REQUESTED_PLAN_ID) for `plans-plan-requested.json`, which PlanFunction builds;
- a running plan (RUNNING_PLAN_ID) starting Monday PLAN_START, built with the offline agents: week 1
  built, week 2 due at its local midnight (2026-03-09T04:00Z). `microcycle-week-due.json` builds week 2,
  `scheduler-hourly.json` (at that instant) publishes its WeekDue, `scheduler-daily.json` (06:00 in New
  York on PLAN_START) its first morning's WorkoutReady;
- the sample user's delivery to the phone: one registered FCM device (SAMPLE_DEVICE_TOKEN, no SNS
  endpoint yet), the default notification settings (push on, the deployment's morning hour, no quiet
  hours, no SMS) and no delivery record. `notifier-workout-ready.json` is for a day that is over
  (2026-03-09): the Notifier records it skipped (`day_over`); the same event for today, past the morning
  in its zone, pushes to the device through the FCM platform application.
  `notifier-endpoints-retired.json` names an endpoint no device holds: the Notifier deletes it.

Each seeding puts the samples back as they were (about a second): the session and both plans are written
afresh, whatever an earlier invocation did to them (a checkpoint, usage counted, a plan built, a week
built, a morning message sent), and so are the device, settings and delivery records (an endpoint
created, a day delivered).
"""

from __future__ import annotations

import contextlib
from datetime import UTC, date, datetime, timedelta
from typing import Any

from psycopg.types.json import Jsonb
from trainer.container import agent_run_deps
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import ProgramDeps, build_plan
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.models import Event, EventType, Session
from trainer.store.ports import SessionBatch, SessionNotFound
from trainer.store.repositories import devices
from trainer.store.repositories import settings as user_settings
from trainer.store.sessions import DynamoSessionTable
from trainer.store.sessions.meta import session_item

from trainer_dev.local.seed import seed_demo_user

SAMPLE_USER_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
SAMPLE_SESSION_ID = "3f2a1b0c-9d8e-4f7a-b6c5-d4e3f2a1b0c9"
REQUESTED_PLAN_ID = "5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d"
RUNNING_PLAN_ID = "6c5d4e3f-2a1b-4c0d-9e8f-7a6b5c4d3e2f"
SAMPLE_TIMEZONE = "America/New_York"
TRAINING_DAYS = ["Monday", "Wednesday", "Friday"]
PLAN_START = date(2026, 3, 2)
"""A Monday: the running plan's week 1; its week 2 is due at 2026-03-09T04:00Z (midnight EDT)."""
PLAN_WEEKS = 8
SESSION_MINUTES = 45
SAMPLE_DEVICE_TOKEN = "sample-fcm-registration-token:APA91bH0Sample0Device0Token0For0TrainerInvoke"
"""An FCM registration token (its shape), registered by the sample user."""
MODEL = "claude-haiku-4-5"

RESPONSE_TOKENS = (
    {"prompt": 700, "completion": 120, "cached": 4000, "cache_write": 5200, "cost_cents": 0.61},
    {"prompt": 500, "completion": 190, "cached": 5800, "cache_write": 0, "cost_cents": 0.41},
)
"""The sample turn's two model responses; together the TurnCompleted samples' usage (input 1,200,
output 310, cache writes 5,200, cache reads 9,800) and cost (1.02 cents)."""


async def seed_samples(db: Database, settings: Settings) -> None:
    """The sample user, session and plans, as the module docstring says. `settings` name the stores
    (the session table); the running plan is built with the offline agents whatever keys they hold."""
    await seed_demo_user(db, SAMPLE_USER_ID)
    async with db.transaction() as conn:
        await user_settings.update_user_settings(
            conn, SAMPLE_USER_ID, timezone=SAMPLE_TIMEZONE, preferred_days=TRAINING_DAYS
        )
    seed_session(DynamoSessionTable(settings), settings.table_name)
    await _seed_plans(db, settings)
    await _seed_delivery(db)


# ---------------------------------------------------------------- the session


def _response(tokens: dict[str, Any], stop_reason: str) -> dict[str, Any]:
    prompt, completion = tokens["prompt"], tokens["completion"]
    cached, cache_write = tokens["cached"], tokens["cache_write"]
    return {
        "provider": "anthropic",
        "model": MODEL,
        "stop_reason": stop_reason,
        "raw_response": {},
        "tokens": {
            "prompt": prompt,
            "completion": completion,
            "cached": cached,
            "cache_write": cache_write,
            "total": prompt + completion + cached + cache_write,
        },
        "usage": {
            "input_tokens": prompt,
            "output_tokens": completion,
            "cache_creation_input_tokens": cache_write,
            "cache_read_input_tokens": cached,
        },
        "cost_cents": tokens["cost_cents"],
    }


def sample_turn() -> list[tuple[EventType, dict[str, Any]]]:
    """The sample session's turn, sequence 1-8, as the agent loop writes one."""
    first, second = RESPONSE_TOKENS
    workout = "Upper body, 30 minutes: push-ups, dumbbell rows, overhead press, curls, plank"
    return [
        (EventType.USER_MESSAGE, {"message": "Give me a 30 minute upper body workout"}),
        (EventType.LLM_REQUEST, {"model": MODEL, "prompt": {}, "estimated_tokens": 9600, "iteration": 1}),
        (EventType.LLM_RESPONSE, _response(first, "tool_use")),
        (
            EventType.TOOL_CALL,
            {"tool_name": "generate_workout", "arguments": {"duration_min": 30}, "call_id": "call_1"},
        ),
        (
            EventType.TOOL_RESULT,
            {"tool_name": "generate_workout", "success": True, "formatted": workout, "call_id": "call_1"},
        ),
        (EventType.LLM_REQUEST, {"model": MODEL, "prompt": {}, "estimated_tokens": 10400, "iteration": 2}),
        (EventType.LLM_RESPONSE, _response(second, "end_turn")),
        (EventType.ARTIFACT, {"type": "workout", "title": "Upper body, 30 minutes"}),
    ]


def seed_session(table: DynamoSessionTable, table_name: str) -> None:
    """The sample session afresh: any earlier one (checkpointed, its usage counted) deleted first."""
    with contextlib.suppress(SessionNotFound):
        table.delete_session(SAMPLE_USER_ID, SAMPLE_SESSION_ID)
    # A deleted session keeps its tombstone until it expires (fencing off a turn that outlived its
    # lease); only the samples bring a session id back, so they clear the partition themselves.
    table.items.delete_keys(table.items.partition_keys(f"SESSION#{SAMPLE_SESSION_ID}"))
    now = datetime.now(UTC)
    session = Session(
        id=SAMPLE_SESSION_ID,
        user_id=SAMPLE_USER_ID,
        created_at=now,
        updated_at=now,
        expires_at=int((now + timedelta(days=30)).timestamp()),
    )
    # DynamoSessionTable.create_session draws a new id; the samples need this one.
    table.client.put_item(
        TableName=table_name,
        Item=session_item(session),
        ConditionExpression="attribute_not_exists(PK)",
    )
    events = [
        Event(session_id=SAMPLE_SESSION_ID, sequence_number=seq, event_type=kind, timestamp=now, data=data)
        for seq, (kind, data) in enumerate(sample_turn(), start=1)
    ]
    table.commit(SAMPLE_SESSION_ID, SessionBatch(events=events))  # as a turn writes them: META follows


# ---------------------------------------------------------------- the plans


async def _seed_plans(db: Database, settings: Settings) -> None:
    """Both plans written afresh (their weeks and days go with them); the running one built again."""
    async with db.transaction() as conn:
        await conn.execute(
            "DELETE FROM training_plans WHERE user_id = %s AND id = ANY(%s)",
            (SAMPLE_USER_ID, [REQUESTED_PLAN_ID, RUNNING_PLAN_ID]),
        )
        await _insert_pending_plan(conn, RUNNING_PLAN_ID, PlanRequest(goal="Build muscle"))
    offline = settings.model_copy(update={"agent_provider": "offline"})
    programs = ProgramDeps(db=db, agents=agent_run_deps(offline, db))
    built = await build_plan(programs, SAMPLE_USER_ID, RUNNING_PLAN_ID)
    if (built["status"], built["next_week"]) != ("ready", 2):
        raise RuntimeError(f"the sample plan was not built: {built['status']} {built.get('error') or ''}")
    async with db.transaction() as conn:
        # One plan per user is pending at a time: the requested one is written once the running one is built.
        await _insert_pending_plan(conn, REQUESTED_PLAN_ID, PlanRequest(goal="Get stronger for ski season"))


async def _insert_pending_plan(conn: Any, plan_id: str, request: PlanRequest) -> None:
    """A pending plan under a fixed id, as `programs.create_plan` writes one (which draws its id)."""
    stored = request.model_copy(
        update={
            "weeks": PLAN_WEEKS,
            "training_days": TRAINING_DAYS,
            "session_minutes": SESSION_MINUTES,
            "start_date": PLAN_START,
        }
    )
    await conn.execute(
        "INSERT INTO training_plans (id, user_id, weeks, days_per_week, session_minutes, training_days,"
        " start_date, timezone, request) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (
            plan_id,
            SAMPLE_USER_ID,
            PLAN_WEEKS,
            len(TRAINING_DAYS),
            SESSION_MINUTES,
            TRAINING_DAYS,
            PLAN_START,
            SAMPLE_TIMEZONE,
            Jsonb(stored.model_dump(mode="json", exclude_none=True)),
        ),
    )


# ---------------------------------------------------------------- delivery to the phone


async def _seed_delivery(db: Database) -> None:
    """The sample device, settings and delivery records afresh (see the module docstring)."""
    async with db.transaction() as conn:
        for table in ("notification_deliveries", "notification_settings", "devices"):
            await conn.execute(f"DELETE FROM {table} WHERE user_id = %s", (SAMPLE_USER_ID,))
        await devices.register(
            conn, SAMPLE_USER_ID, platform="fcm", token=SAMPLE_DEVICE_TOKEN, timezone=SAMPLE_TIMEZONE
        )
