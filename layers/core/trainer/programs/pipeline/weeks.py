"""Weeks: `build_week` builds a week once per (user, plan, week) however often its `WeekDue` is
delivered (the caller that claims it builds it), or rebuilds a built week's days from today on under
a change; each built week names the next one and when it is due."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from trainer.agents.factory import AgentFailed, run_agent
from trainer.programs.agents import MICROCYCLE
from trainer.programs.changes import (
    ChangeError,
    WeekChange,
    apply_change,
    change_summary,
    find_location,
    plan_on_days,
)
from trainer.programs.inputs import load_plan_inputs, week_request
from trainer.programs.microcycle.dates import is_deload, week_start
from trainer.programs.models import (
    FitnessPlan,
    PlanWeek,
    WeekInput,
)
from trainer.programs.pipeline.deps import ProgramDeps, ProgramError, failure_message
from trainer.programs.pipeline.plan_rows import plan_row, record_change
from trainer.programs.records import day_row, plan_of, week_rows
from trainer.programs.schedule import next_week_after, retry_at, today_in
from trainer.store.repositories import (
    locations,
    program_schedule,
    programs,
    readiness,
)

FATIGUE_DAYS = 7
"""How far back the readiness check-ins a fatigue deload reads go."""


@dataclass(frozen=True)
class WeekBuild:
    built: bool
    week_number: int
    days: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None
    """Why nothing was built: `already_built`, `building` (another delivery builds it), `inactive`."""


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
        row = await plan_row(conn, user_id, plan_id)
        building_first = first and week_number == 1 and row["status"] == "pending" and row.get("plan")
        if row["status"] != "ready" and not building_first:
            raise ProgramError("invalid_request", "The plan is not ready yet.")
        plan = plan_of(row)
        if not 1 <= week_number <= plan.weeks:
            raise ProgramError("invalid_request", f"The plan has weeks 1 to {plan.weeks}.")
        if not row["active"] and not rebuild and not building_first:
            return WeekBuild(False, week_number, reason="inactive")
        location = await change_location(conn, user_id, change)
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
            inputs = await week_inputs(conn, user_id, plan, now, change, location, plan_id)
        except Exception:
            if not replace:
                await programs.fail_week(conn, user_id, plan_id, week_number, "inputs not loaded")
            raise
    try:
        week = await compose_week(deps, user_id, plan_id, plan, week_number, inputs, change)
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
            days = await replace_days(conn, user_id, plan_id, week, today_in(now, row["timezone"]))
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
            await record_change(
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


async def change_location(conn: Any, user_id: str, change: WeekChange | None) -> Mapping[str, Any] | None:
    if change is None or not change.location:
        return None
    try:
        return find_location(await locations.list_locations(conn, user_id), change.location)
    except ChangeError as exc:
        raise ProgramError("invalid_request", str(exc)) from None


async def week_inputs(
    conn: Any,
    user_id: str,
    plan: FitnessPlan,
    now: datetime,
    change: WeekChange | None,
    location: Mapping[str, Any] | None,
    plan_id: Any,
) -> Any:
    request = week_request(plan.weeks, plan.training_days, plan.session_minutes, plan.experience)
    inputs = await load_plan_inputs(conn, user_id, now, request)
    inputs = inputs.model_copy(update=await fatigue_inputs(conn, user_id, plan_id, now))
    return apply_change(inputs, change, location) if change is not None else inputs


async def fatigue_inputs(conn: Any, user_id: str, plan_id: Any, now: datetime) -> dict[str, Any]:
    """What a fatigue deload reads: the last week's readiness check-ins and the weeks built as deloads."""
    check_ins = await readiness.list_entries(conn, user_id, since=now - timedelta(days=FATIGUE_DAYS))
    weeks = await programs.list_weeks(conn, user_id, plan_id)
    return {
        "readiness": [dict(c) for c in check_ins],
        "deloads_taken": sorted(
            w["week_number"] for w in weeks if w.get("deload") and w["status"] == "ready"
        ),
    }


async def compose_week(
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


async def replace_days(
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
