"""The program pipeline (seed 003, issue 9): plan -> weeks -> days, and what triggers each step.

A plan request stores a `pending` plan and publishes `PlanRequested`; its builder (`build_plan`) runs the
`fitness_plan` agent and the first week, then the plan is `ready` (or `failed`, with a message the user can
read). Every built week names the next one and when it is due (`trainer.programs.schedule`): the hourly
run (`run_hourly`) reads only the plans due by now and publishes one `WeekDue` each, and `build_week` builds
a week once per (user, plan, week) however often that event is delivered. The morning run (`run_daily`,
hourly too: the morning is each user's own) publishes one `WorkoutReady` per training day whose local
morning it is, with the day's text; a delivery integration (push, SMS) subscribes to it.

With no publisher (tests, `trainer schedule`'s in-process runs through its own bus) the steps run inline.
No database connection is held while a model runs: a deployed function has one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal, Protocol, runtime_checkable

from psycopg.errors import UniqueViolation
from pydantic import ValidationError

from trainer.agents.factory import AgentFailed, AgentRunDeps, run_agent
from trainer.programs.agents import FITNESS_PLAN, MICROCYCLE, WORKOUT_MESSAGE, WORKOUT_STRUCTURE
from trainer.programs.changes import (
    ChangeError,
    WeekChange,
    apply_change,
    change_summary,
    find_location,
    plan_on_days,
)
from trainer.programs.inputs import load_plan_inputs, week_request
from trainer.programs.messages import enforce_length, workout_message
from trainer.programs.microcycle.dates import is_deload, week_start
from trainer.programs.models import (
    FitnessPlan,
    MessageInput,
    PlanInputs,
    PlanRequest,
    PlanResult,
    PlanWeek,
    StructuredWorkout,
    StructureInput,
    WeekInput,
)
from trainer.programs.plan.finalize import record_modification
from trainer.programs.plan.render import render_plan_markdown
from trainer.programs.records import day_of, day_row, plan_of, week_rows
from trainer.programs.schedule import morning_window, next_week_after, retry_at, today_in, week_of
from trainer.programs.structure import ImportTooLarge, check_text_size
from trainer.services.schedule import DaysChange, adapt_missed_sessions, reshape_plan
from trainer.services.usage_limits import Reservation, UsageLimits
from trainer.store.db import Database
from trainer.store.repositories import (
    RepositoryError,
    calendar,
    goals,
    locations,
    notifications,
    program_schedule,
    programs,
    settings,
)

__all__ = [
    "PLAN_REQUESTED",
    "WEEK_DUE",
    "WORKOUT_READY",
    "ProgramDeps",
    "ProgramError",
    "WeekBuild",
    "WeekChange",
    "adapt_missed",
    "build_plan",
    "build_week",
    "change_day",
    "change_training_days",
    "change_week",
    "import_workout",
    "republish_deliveries",
    "request_plan",
    "requeue_stale_plans",
    "run_daily",
    "run_hourly",
    "workout_for",
]

logger = logging.getLogger(__name__)

PLAN_REQUESTED, WEEK_DUE, WORKOUT_READY = "PlanRequested", "WeekDue", "WorkoutReady"
DEFAULT_MORNING_HOUR = 6
MORNING_PAGE = 500
REPUBLISH_PAGE = 500
STALE_PENDING = timedelta(minutes=15)
"""A plan still pending this long after its request (or its builder's claim) is requested again."""
GIVE_UP_PENDING = timedelta(days=1)
GAVE_UP_MESSAGE = "Your plan could not be built. Please ask for it again."
"""A plan still pending a day after its request is failed instead of requested again."""


class EventPublisher(Protocol):
    """What publishes the pipeline's events (structurally `trainer.chat.ports.EventPublisher`)."""

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None: ...


@runtime_checkable
class BatchPublisher(Protocol):
    async def publish_many(self, events: Sequence[tuple[str, dict[str, Any]]]) -> None: ...


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ProgramDeps:
    db: Database
    agents: AgentRunDeps
    """Unbound: the pipeline runs each agent `for_user`."""
    publisher: EventPublisher | None = None
    """None: each step runs inline instead of publishing its event."""
    now: Callable[[], datetime] = _utcnow
    morning_hour: int = DEFAULT_MORNING_HOUR
    """The local hour the morning message goes out (TRAINER_MORNING_HOUR)."""
    limits: UsageLimits | None = None
    """Each plan and import is reserved against the user's daily budget before any agent runs."""


ErrorCode = Literal[
    "not_found", "no_active_plan", "invalid_request", "build_failed", "too_large", "in_progress"
]


class ProgramError(Exception):
    """A refusal with a message the user can read (the API maps not_found to 404, invalid_request to 422,
    no_active_plan to 409)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message


@dataclass(frozen=True)
class WeekBuild:
    built: bool
    week_number: int
    days: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None
    """Why nothing was built: `already_built`, `building` (another delivery builds it), `inactive`."""


# --- plans ----------------------------------------------------------------------------------------


async def request_plan(deps: ProgramDeps, user_id: str, request: PlanRequest) -> dict[str, Any]:
    """A pending plan (the user's days, session length and start resolved now) and its `PlanRequested`;
    without a publisher the plan is built inline and its final row returned."""
    now = deps.now()
    asked = request.model_dump(mode="json", exclude_none=True)
    reservation = await deps.limits.reserve(str(user_id), "plans") if deps.limits is not None else None
    try:
        row = await _create_or_join(deps, user_id, request, asked, now)
    except BaseException:
        await _give_back(deps, reservation)
        raise
    if row.get("joined"):
        await _give_back(deps, reservation)
        return dict(row["plan"])
    row = dict(row["plan"])
    if deps.publisher is None:
        return await build_plan(deps, user_id, row["id"])
    try:
        await deps.publisher.publish(PLAN_REQUESTED, {"user_id": str(user_id), "plan_id": str(row["id"])})
    except Exception as exc:
        logger.exception("PlanRequested not published", extra={"plan_id": str(row["id"])})
        message = "The plan could not be queued for building. Please ask again in a minute."
        async with deps.db.connection() as conn:
            await programs.mark_failed(conn, user_id, row["id"], message)
        raise ProgramError("build_failed", message) from exc
    return row


async def _create_or_join(
    deps: ProgramDeps, user_id: str, request: PlanRequest, asked: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """`{"plan": row}` for a new pending plan; `{"plan": row, "joined": True}` when a plan is already
    being built for the same request (a retry, a double tap, two devices); a different request while one
    is built is ProgramError `in_progress`. At most one plan per user is pending (a unique index), so
    two requests at once cannot both create one."""
    async with deps.db.transaction() as conn:
        inputs = await load_plan_inputs(conn, user_id, now, request)
        pending = await programs.pending_plan(conn, user_id)
        if pending is None:
            try:
                async with conn.transaction():
                    created = await programs.create_plan(
                        conn,
                        user_id,
                        weeks=inputs.weeks,
                        training_days=inputs.training_days,
                        session_minutes=inputs.session_minutes,
                        start_date=inputs.start_date,
                        timezone=inputs.timezone,
                        request=asked,
                    )
                return {"plan": created}
            except UniqueViolation:
                pending = await programs.pending_plan(conn, user_id)
            except RepositoryError as exc:
                raise ProgramError("invalid_request", str(exc)) from None
    if pending is None:
        raise ProgramError("build_failed", "The plan request could not be recorded. Please ask again.")
    if dict(pending.get("request") or {}) == dict(asked):
        return {"plan": pending, "joined": True}
    raise ProgramError(
        "in_progress",
        "A plan is already being built for you; it is ready in a minute or two. Ask for changes once it is.",
    )


async def _give_back(deps: ProgramDeps, reservation: Reservation | None) -> None:
    """A reservation whose work never started goes back to the user's daily budget."""
    if deps.limits is None or reservation is None:
        return
    try:
        await deps.limits.release(reservation)
    except Exception:
        logger.warning("a budget reservation was not given back", exc_info=True)


async def build_plan(deps: ProgramDeps, user_id: str, plan_id: Any) -> dict[str, Any]:
    """Build a pending plan and its first week: the plan row after, `ready` (its first week built) or
    `failed`. Idempotent: a ready or failed plan is returned as it is, and a plan another builder holds
    is left to it. The plan's documents are stored before its first week is built from them, so a build
    that stopped between the two resumes at the week."""
    now = deps.now()
    async with deps.db.connection() as conn:
        row = await _plan_row(conn, user_id, plan_id)
        if row["status"] == "failed" or (row["status"] == "ready" and row["next_week"] != 1):
            return row
        if row["status"] == "ready":
            inputs = None
        elif not await program_schedule.claim_plan(conn, user_id, plan_id, now):
            return row
        elif row.get("plan") is not None:
            inputs = None
        else:
            try:
                inputs = await load_plan_inputs(conn, user_id, now, stored_request(row))
            except Exception:
                await program_schedule.release_plan(conn, user_id, plan_id)
                raise
    if row["status"] == "ready":
        if row["active"]:
            await _first_week(deps, user_id, plan_id)
        async with deps.db.connection() as conn:
            return await _plan_row(conn, user_id, plan_id)
    try:
        if inputs is not None:
            await _draft_plan(deps, user_id, plan_id, inputs)
        first = await build_week(deps, user_id, plan_id, 1, first=True)
    except _PlanFailed as failed:
        return failed.row
    except ProgramError as exc:
        if exc.code != "build_failed":
            raise
        async with deps.db.connection() as conn:
            done = await programs.mark_failed(conn, user_id, plan_id, exc.message)
            return done if done is not None else await _plan_row(conn, user_id, plan_id)
    except Exception:
        async with deps.db.connection() as conn:
            await program_schedule.release_plan(conn, user_id, plan_id)
        raise
    async with deps.db.connection() as conn:
        stored = await _plan_row(conn, user_id, plan_id)
        plan = plan_of(stored)
        following = next_week_after(first.week_number, plan.weeks, plan.start_date, stored["timezone"])
        ready = await programs.mark_ready(
            conn,
            user_id,
            plan_id,
            title=stored["title"] or plan.title,
            markdown=stored["markdown"] or "",
            plan=stored["plan"],
            next_week=following.week_number if following.due_at is not None else None,
            next_week_due_at=following.due_at,
        )
        if ready is None:
            raise ProgramError("not_found", "Plan not found.")
        return await _plan_row(conn, user_id, plan_id)


class _PlanFailed(Exception):
    def __init__(self, row: dict[str, Any]) -> None:
        super().__init__("plan failed")
        self.row = row


async def _draft_plan(deps: ProgramDeps, user_id: str, plan_id: Any, inputs: PlanInputs) -> None:
    """The plan agent's plan, stored on the pending plan; a failed run fails the plan (_PlanFailed)."""
    try:
        run = await run_agent(FITNESS_PLAN, inputs, deps.agents.for_user(str(user_id)))
        result = run.output_as(PlanResult)
    except AgentFailed as exc:
        message = failure_message("plan", exc)
        logger.warning("plan build failed", extra={"plan_id": str(plan_id), "errors": exc.errors[:5]})
        async with deps.db.connection() as conn:
            failed = await programs.mark_failed(conn, user_id, plan_id, message)
            raise _PlanFailed(
                failed if failed is not None else await _plan_row(conn, user_id, plan_id)
            ) from exc
    plan = result.plan
    async with deps.db.connection() as conn:
        stored = await programs.store_plan_documents(
            conn,
            user_id,
            plan_id,
            title=plan.title,
            markdown=result.markdown,
            plan=plan.model_dump(mode="json"),
        )
    if stored is None:
        raise ProgramError("not_found", "Plan not found.")


async def _first_week(deps: ProgramDeps, user_id: str, plan_id: Any) -> None:
    """Week 1 with the plan; a failure leaves the plan ready with week 1 due again later."""
    try:
        await build_week(deps, user_id, plan_id, 1)
    except ProgramError as exc:
        logger.warning("first week not built", extra={"plan_id": str(plan_id), "error": exc.message})


def stored_request(row: Mapping[str, Any]) -> PlanRequest:
    """The request a pending plan is built from: the user's words with the days, length and start the
    request resolved to when it was made."""
    asked = dict(row.get("request") or {})
    try:
        base = PlanRequest.model_validate(asked)
    except ValidationError:
        base = PlanRequest()
    return base.model_copy(
        update={
            "weeks": row["weeks"],
            "days_per_week": None,
            "training_days": list(row["training_days"]),
            "session_minutes": row["session_minutes"],
            "start_date": row["start_date"],
        }
    )


def failure_message(what: str, exc: AgentFailed) -> str:
    if exc.kind == "timeout":
        reason = "the planning model did not answer in time"
    elif exc.kind == "model_error":
        reason = "the planning model is not available right now"
    else:
        reason = (
            "; ".join(e.strip().rstrip(".") for e in exc.errors[:2] if e.strip()) or "it failed its checks"
        )
    hint = " Please try again; fewer training days or a shorter plan can help." if what == "plan" else ""
    return f"Your {what} could not be built: {reason}.{hint}"[:1000]


async def _plan_row(conn: Any, user_id: str, plan_id: Any) -> dict[str, Any]:
    try:
        row = await programs.get_plan(conn, user_id, plan_id)
    except RepositoryError:
        row = None
    if row is None:
        raise ProgramError("not_found", "Plan not found.")
    return row


async def requeue_stale_plans(
    deps: ProgramDeps, *, now: datetime | None = None, limit: int = 100
) -> list[dict[str, Any]]:
    """`PlanRequested` again for plans still pending STALE_PENDING after their request or their builder's
    claim (the event was lost, or the builder died), failed after GIVE_UP_PENDING: the `PlanRequested`
    details published."""
    now = now or deps.now()
    details: list[dict[str, Any]] = []
    async with deps.db.connection() as conn:
        for row in await program_schedule.stale_pending_plans(conn, now - STALE_PENDING, limit=limit):
            if row["created_at"] < now - GIVE_UP_PENDING:
                await programs.mark_failed(conn, row["user_id"], row["id"], GAVE_UP_MESSAGE)
            else:
                details.append({"user_id": str(row["user_id"]), "plan_id": str(row["id"])})
    if deps.publisher is None:
        for detail in details:
            await build_plan(deps, detail["user_id"], detail["plan_id"])
    else:
        await _publish_all(deps.publisher, PLAN_REQUESTED, details)
    return details


# --- weeks ----------------------------------------------------------------------------------------


async def build_week(
    deps: ProgramDeps,
    user_id: str,
    plan_id: Any,
    week_number: int,
    *,
    change: WeekChange | None = None,
    rebuild: bool = False,
    first: bool = False,
) -> WeekBuild:
    """Build week `week_number` once: only the caller that claims it builds it, a duplicate delivery gets
    `built=False`. `rebuild` rebuilds a built week's days from today on (completed ones kept); `change`
    applies to the inputs and its reason goes into the plan's modification history."""
    now = deps.now()
    async with deps.db.connection() as conn:
        row = await _plan_row(conn, user_id, plan_id)
        building_first = first and week_number == 1 and row["status"] == "pending" and row.get("plan")
        if row["status"] != "ready" and not building_first:
            raise ProgramError("invalid_request", "The plan is not ready yet.")
        plan = plan_of(row)
        if not 1 <= week_number <= plan.weeks:
            raise ProgramError("invalid_request", f"The plan has weeks 1 to {plan.weeks}.")
        if not row["active"] and not rebuild and not building_first:
            return WeekBuild(False, week_number, reason="inactive")
        location = await _change_location(conn, user_id, change)
        existing = await program_schedule.week_row(conn, user_id, plan_id, week_number)
        replace = rebuild and existing is not None and existing["status"] == "ready"
        if not replace:
            claimed = await programs.claim_week(
                conn,
                user_id,
                plan_id,
                week_number,
                start_date=week_start(plan, week_number),
                deload=is_deload(plan, week_number),
                now=now,
            )
            if not claimed:
                current = await program_schedule.week_row(conn, user_id, plan_id, week_number)
                if rebuild:
                    raise ProgramError(
                        "build_failed", "That week is being built right now; try again in a minute."
                    )
                ready = current is not None and current["status"] == "ready"
                if ready:
                    await _advance(conn, user_id, plan_id, plan, week_number, row["timezone"])
                days = await programs.week_days(conn, user_id, plan_id, week_number)
                return WeekBuild(False, week_number, days, reason="already_built" if ready else "building")
        try:
            inputs = await _week_inputs(conn, user_id, plan, now, change, location)
        except Exception:
            if not replace:
                await programs.fail_week(conn, user_id, plan_id, week_number, "inputs not loaded")
            raise
    try:
        week = await _compose_week(deps, user_id, plan_id, plan, week_number, inputs, change)
    except AgentFailed as exc:
        message = failure_message("week", exc)
        if not replace:
            await _week_failed(deps, user_id, plan_id, week_number, message, now)
        raise ProgramError("build_failed", message) from exc
    except Exception:
        if not replace:
            await _week_failed(deps, user_id, plan_id, week_number, "the build stopped", now)
        raise
    async with deps.db.connection() as conn:
        if replace:
            days = await _replace_days(conn, user_id, plan_id, week, today_in(now, row["timezone"]))
        else:
            async with conn.transaction():
                days = await programs.save_week(
                    conn,
                    user_id,
                    plan_id,
                    week_number,
                    week_rows(week),
                    start_date=week.start_date,
                    deload=week.deload,
                    now=now,
                )
                await _advance(conn, user_id, plan_id, plan, week_number, row["timezone"])
        if change is not None:
            await _record(
                conn,
                user_id,
                plan_id,
                today_in(now, row["timezone"]),
                change_summary(change, f"Week {week_number}"),
            )
    return WeekBuild(True, week_number, days)


async def _advance(
    conn: Any, user_id: str, plan_id: Any, plan: FitnessPlan, built: int, timezone: str
) -> None:
    following = next_week_after(built, plan.weeks, plan.start_date, timezone)
    await program_schedule.advance_week(
        conn, user_id, plan_id, from_week=built, next_week=following.week_number, due_at=following.due_at
    )


async def _week_failed(
    deps: ProgramDeps, user_id: str, plan_id: Any, week_number: int, message: str, now: datetime
) -> None:
    async with deps.db.connection() as conn:
        await programs.fail_week(conn, user_id, plan_id, week_number, message)
        current = await program_schedule.week_row(conn, user_id, plan_id, week_number)
        attempts = int(current["attempts"]) if current else 1
        await program_schedule.defer_week(conn, user_id, plan_id, week_number, retry_at(now, attempts))


async def _change_location(conn: Any, user_id: str, change: WeekChange | None) -> Mapping[str, Any] | None:
    if change is None or not change.location:
        return None
    try:
        return find_location(await locations.list_locations(conn, user_id), change.location)
    except ChangeError as exc:
        raise ProgramError("invalid_request", str(exc)) from None


async def _week_inputs(
    conn: Any,
    user_id: str,
    plan: FitnessPlan,
    now: datetime,
    change: WeekChange | None,
    location: Mapping[str, Any] | None,
) -> Any:
    request = week_request(plan.weeks, plan.training_days, plan.session_minutes, plan.experience)
    inputs = await load_plan_inputs(conn, user_id, now, request)
    return apply_change(inputs, change, location) if change is not None else inputs


async def _compose_week(
    deps: ProgramDeps,
    user_id: str,
    plan_id: Any,
    plan: FitnessPlan,
    week_number: int,
    inputs: Any,
    change: WeekChange | None,
) -> PlanWeek:
    if change is not None and change.training_days:
        plan = plan_on_days(plan, change.training_days)
    given = WeekInput(
        plan=plan,
        week_number=week_number,
        inputs=inputs,
        plan_id=str(plan_id),
        instructions=change.reason if change is not None else None,
    )
    run = await run_agent(MICROCYCLE, given, deps.agents.for_user(str(user_id)))
    return run.output_as(PlanWeek)


async def _replace_days(
    conn: Any, user_id: str, plan_id: Any, week: PlanWeek, today: date, only: date | None = None
) -> list[dict[str, Any]]:
    """The built week's days from `today` on (or the day `only`) replaced by the new week's, completed or
    skipped days kept; the week's days after."""
    current = {d["date"]: d for d in await programs.week_days(conn, user_id, plan_id, week.week_number)}
    async with conn.transaction():
        for day in week.days:
            old = current.get(day.date)
            if old is None or old["status"] != "scheduled" or day.date < today:
                continue
            if only is not None and day.date != only:
                continue
            values = day_row(day)
            await programs.replace_day(
                conn,
                user_id,
                old["id"],
                kind=values["kind"],
                workout=values["workout"],
                focus=values["focus"],
                notes=values["notes"],
                recovery_notes=values["recovery_notes"],
                message=values["message"],
            )
    return await programs.week_days(conn, user_id, plan_id, week.week_number)


async def _record(conn: Any, user_id: str, plan_id: Any, day: date, line: str) -> None:
    """The change in the plan's modification history (markdown and JSON)."""
    async with conn.transaction():
        row = await programs.get_plan(conn, user_id, plan_id)
        if row is None or row["status"] != "ready":
            return
        plan = record_modification(plan_of(row), day, line)
        await programs.update_document(
            conn, user_id, plan_id, markdown=render_plan_markdown(plan), plan=plan.model_dump(mode="json")
        )


async def _active_plan(conn: Any, user_id: str) -> dict[str, Any]:
    row = await programs.get_active_plan(conn, user_id)
    if row is None:
        raise ProgramError("no_active_plan", "You don't have an active training plan yet: ask for one first.")
    return row


async def change_week(
    deps: ProgramDeps,
    user_id: str,
    change: WeekChange,
    *,
    week: Literal["current", "next"] | int = "next",
) -> WeekBuild:
    """Rebuild a week of the active plan under `change` ("I'm travelling next week, hotel gym only"):
    a built week from today on (completed days kept), a week not built yet in full."""
    async with deps.db.connection() as conn:
        row = await _active_plan(conn, user_id)
    today = today_in(deps.now(), row["timezone"])
    current = week_of(row["start_date"], today)
    if isinstance(week, bool) or not isinstance(week, int | str):
        raise ProgramError("invalid_request", "Name the week: current, next or its number.")
    if isinstance(week, int):
        number = week
    elif week == "current":
        number = max(1, current)
    elif week == "next":
        number = current + 1
    else:
        raise ProgramError("invalid_request", "Name the week: current, next or its number.")
    if not 1 <= number <= row["weeks"]:
        raise ProgramError(
            "invalid_request", f"Your plan has weeks 1 to {row['weeks']}; week {number} is outside it."
        )
    if number < current:
        raise ProgramError("invalid_request", f"Week {number} is over; you are in week {current}.")
    return await build_week(deps, user_id, row["id"], number, change=change, rebuild=True)


async def change_day(deps: ProgramDeps, user_id: str, day: date, change: WeekChange) -> dict[str, Any]:
    """Rebuild one planned day of the active plan under `change`; the rebuilt day row."""
    if change.training_days:
        raise ProgramError("invalid_request", "Training days change a whole week, not a day.")
    now = deps.now()
    async with deps.db.connection() as conn:
        row = await _active_plan(conn, user_id)
        today = today_in(now, row["timezone"])
        if day < today:
            raise ProgramError("invalid_request", f"{day.isoformat()} is in the past.")
        planned = await programs.workout_on(conn, user_id, day)
        if planned is None or planned["plan_id"] != row["id"]:
            raise ProgramError("not_found", f"Your plan has no day on {day.isoformat()} yet.")
        if planned["status"] != "scheduled":
            raise ProgramError(
                "invalid_request", f"The workout of {day.isoformat()} is already {planned['status']}."
            )
        plan = plan_of(row)
        location = await _change_location(conn, user_id, change)
        inputs = await _week_inputs(conn, user_id, plan, now, change, location)
    try:
        week = await _compose_week(deps, user_id, row["id"], plan, planned["week_number"], inputs, change)
    except AgentFailed as exc:
        raise ProgramError("build_failed", failure_message("day", exc)) from exc
    async with deps.db.connection() as conn:
        days = await _replace_days(conn, user_id, row["id"], week, today, only=day)
        await _record(conn, user_id, row["id"], today, change_summary(change, day.strftime("%A %d %B")))
    rebuilt = next((d for d in days if d["date"] == day), None)
    if rebuilt is None:
        raise ProgramError("not_found", f"Your plan has no day on {day.isoformat()}.")
    return rebuilt


async def change_training_days(
    deps: ProgramDeps, user_id: str, days: Sequence[str], reason: str
) -> DaysChange:
    """The user's available days from now on ("only Monday, Wednesday and Friday"): their preferred
    days set, the active plan's sessions still to come put on those days in code (no model call: each
    week's sessions keep their order, no two hard ones on consecutive days, a session that fits nowhere
    becomes a rest day), the plan's training days and document changed so the weeks not built yet are
    built on them, and the change in the plan's modification history."""
    now = deps.now()
    async with deps.db.connection() as conn:
        async with conn.transaction():
            values = await settings.update_user_settings(conn, user_id, preferred_days=list(days))
            chosen = list(values["preferred_days"])
            report = await reshape_plan(conn, user_id, chosen, now)
            row = await programs.get_active_plan(conn, user_id)
            if row is None:
                return report
            moved = plan_on_days(plan_of(row), chosen)
            await calendar.set_plan_days(
                conn, user_id, row["id"], chosen, document=moved.model_dump(mode="json")
            )
        await _record(
            conn, user_id, row["id"], today_in(now, row["timezone"]), f"{report.summary()} ({reason})"[:300]
        )
    return report


async def adapt_missed(
    deps: ProgramDeps, *, now: datetime | None = None, limit: int = 1000
) -> list[dict[str, Any]]:
    """The daily run's missed sessions: for each user whose active plan has a past training day with
    nothing logged, that day marked `missed` and the days after it adapted
    (trainer.services.schedule.adapt_missed_sessions). Idempotent: a day is marked once, so a second
    run changes nothing. One entry per user changed: {user_id, changes}."""
    now = now or deps.now()
    async with deps.db.connection() as conn:
        users = await calendar.users_with_missed(conn, now, limit=limit)
    adapted: list[dict[str, Any]] = []
    for user_id in users:
        async with deps.db.connection() as conn:
            try:
                changes = await adapt_missed_sessions(conn, user_id, now)
            except RepositoryError as exc:
                logger.warning(
                    "missed sessions not adapted", extra={"user_id": str(user_id), "error": str(exc)}
                )
                continue
        if changes:
            adapted.append({"user_id": str(user_id), "changes": changes})
    return adapted


# --- days -----------------------------------------------------------------------------------------


async def workout_for(deps: ProgramDeps, user_id: str, day: date | None = None) -> dict[str, Any] | None:
    """The planned day (the user's local today by default) with its message, generated by the
    `workout_message` agent and cached on the row when missing; None without a planned day."""
    now = deps.now()
    async with deps.db.connection() as conn:
        if day is None:
            timezone = (await settings.get_user_settings(conn, user_id)).get("timezone") or "UTC"
            day = today_in(now, str(timezone))
        row = await programs.workout_on(conn, user_id, day)
    if row is None or row.get("message"):
        return row
    text = await _message_for(deps, user_id, row)
    async with deps.db.connection() as conn:
        updated = await programs.set_message(conn, user_id, row["id"], text)
    return updated if updated is not None else {**row, "message": text}


async def _message_for(deps: ProgramDeps, user_id: str, row: Mapping[str, Any]) -> str:
    given = MessageInput(
        day=day_of(row), week_number=row.get("week_number"), plan_title=row.get("plan_title")
    )
    try:
        run = await run_agent(WORKOUT_MESSAGE, given, deps.agents.for_user(str(user_id)))
        text = run.output if isinstance(run.output, str) and run.output.strip() else workout_message(given)
    except AgentFailed as exc:
        logger.warning("workout_message failed; the offline text is used", extra={"errors": exc.errors[:3]})
        text = workout_message(given)
    return enforce_length(text)


async def import_workout(deps: ProgramDeps, user_id: str, text: str) -> StructuredWorkout:
    """A pasted workout (a coach's program, a markdown table...) as the app's structured workout."""
    if not text or not text.strip():
        raise ProgramError("invalid_request", "Paste the workout's text.")
    try:
        check_text_size(text)
    except ImportTooLarge as exc:
        raise ProgramError("too_large", f"That is too long to read as one workout: {exc}.") from None
    if deps.limits is not None:
        await deps.limits.reserve(str(user_id), "imports")
    async with deps.db.connection() as conn:
        values = await settings.get_user_settings(conn, user_id)
        category = await goals.list_category_goals(conn, user_id)
    try:
        given = StructureInput(
            text=text,
            weight_unit=values.get("weight_unit"),
            distance_unit=values.get("distance_unit"),
            category_goals={r["category"]: float(r["weight"]) for r in category},
        )
    except ValidationError:
        raise ProgramError("invalid_request", "The text is too long to read as one workout.") from None
    try:
        run = await run_agent(WORKOUT_STRUCTURE, given, deps.agents.for_user(str(user_id)))
    except AgentFailed as exc:
        if exc.kind == "validation_error":
            reason = "; ".join(exc.errors[:2]) or "no exercise found"
            raise ProgramError(
                "invalid_request", f"No workout could be read from that text: {reason}."
            ) from exc
        raise ProgramError("build_failed", failure_message("workout", exc)) from exc
    return run.output_as(StructuredWorkout)


# --- the schedules --------------------------------------------------------------------------------


async def run_hourly(
    deps: ProgramDeps, *, now: datetime | None = None, limit: int = 1000
) -> list[dict[str, Any]]:
    """One `WeekDue` per plan whose next week is due by `now` (read through the due index only): the
    details published. Without a publisher the weeks are built inline."""
    now = now or deps.now()
    async with deps.db.connection() as conn:
        due = await programs.due_plans(conn, now, limit=limit)
    if len(due) >= limit:
        logger.warning("more plans due than one run takes", extra={"limit": limit})
    details: list[dict[str, Any]] = [
        {"user_id": str(r["user_id"]), "plan_id": str(r["id"]), "week_number": int(r["next_week"])}
        for r in due
        if r["next_week"] is not None and r["next_week"] <= r["weeks"]
    ]
    if deps.publisher is None:
        for detail in details:
            try:
                await build_week(deps, detail["user_id"], detail["plan_id"], detail["week_number"])
            except ProgramError as exc:
                logger.warning("week not built", extra={**detail, "error": exc.message})
    else:
        await _publish_all(deps.publisher, WEEK_DUE, details)
    return details


async def run_daily(deps: ProgramDeps, *, now: datetime | None = None) -> list[dict[str, Any]]:
    """One `WorkoutReady` per training day of the users whose local time is the morning hour (a message
    generated and cached when the day has none), each published once: the details published."""
    now = now or deps.now()
    published: list[dict[str, Any]] = []
    for day, zones in morning_window(now, deps.morning_hour).days.items():
        while True:
            async with deps.db.connection() as conn:
                rows = await program_schedule.morning_workouts(conn, day, zones, limit=MORNING_PAGE)
            published += await _publish_ready(deps, rows, now)
            if len(rows) < MORNING_PAGE:
                break
    return published


async def _publish_ready(
    deps: ProgramDeps, rows: Sequence[Mapping[str, Any]], now: datetime
) -> list[dict[str, Any]]:
    texts = {}
    for row in rows:
        if not row.get("message"):
            texts[row["id"]] = await _message_for(deps, str(row["user_id"]), row)
    claimed: list[tuple[Mapping[str, Any], dict[str, Any]]] = []
    async with deps.db.connection() as conn:
        for row in rows:
            user_id = row["user_id"]
            text = row.get("message") or texts[row["id"]]
            if row["id"] in texts:
                await programs.set_message(conn, user_id, row["id"], text)
            if await programs.mark_published(conn, user_id, row["id"], now):
                claimed.append((row, ready_detail(row, text)))
    if deps.publisher is not None and claimed:
        try:
            await _publish_all(deps.publisher, WORKOUT_READY, [detail for _, detail in claimed])
        except Exception:
            async with deps.db.connection() as conn:
                for row, _ in claimed:
                    await program_schedule.unpublish(conn, row["user_id"], row["id"])
            raise
    return [detail for _, detail in claimed]


async def republish_deliveries(deps: ProgramDeps, *, now: datetime | None = None) -> list[dict[str, Any]]:
    """`WorkoutReady` again for the deliveries the Notifier deferred (before the user's morning, in their
    quiet hours) whose time has come, and for those whose sender died mid-claim: the details published.
    The Notifier sends each day once however often this runs. Without a publisher there is no Notifier."""
    if deps.publisher is None:
        return []
    now = now or deps.now()
    details: list[dict[str, Any]] = []
    after: tuple[datetime, Any] | None = None
    while True:
        async with deps.db.connection() as conn:
            rows = await notifications.due_deferred(conn, now, after=after, limit=REPUBLISH_PAGE)
        details += [dict(r["detail"]) for r in rows if (r["detail"] or {}).get("user_id")]
        if len(rows) < REPUBLISH_PAGE:
            break
        after = (rows[-1]["not_before"], rows[-1]["id"])
    async with deps.db.connection() as conn:
        stale = await notifications.stale_claims(conn, now, limit=REPUBLISH_PAGE)
    details += [dict(r["detail"]) for r in stale if (r["detail"] or {}).get("user_id")]
    await _publish_all(deps.publisher, WORKOUT_READY, details)
    return details


def ready_detail(row: Mapping[str, Any], message: str) -> dict[str, Any]:
    """`WorkoutReady`: everything a delivery integration needs without reading the database."""
    workout = row.get("workout") or {}
    return {
        "user_id": str(row["user_id"]),
        "plan_id": str(row["plan_id"]),
        "workout_id": str(row["id"]),
        "date": row["date"].isoformat(),
        "week_number": row["week_number"],
        "timezone": row.get("timezone") or "UTC",
        "title": workout.get("title") or row.get("focus") or "Today's workout",
        "message": message,
    }


async def _publish_all(
    publisher: EventPublisher, detail_type: str, details: Sequence[dict[str, Any]]
) -> None:
    if not details:
        return
    if isinstance(publisher, BatchPublisher):
        await publisher.publish_many([(detail_type, d) for d in details])
        return
    for detail in details:
        await publisher.publish(detail_type, detail)
