"""Changes to the active plan: a week or a day rebuilt at the user's word ("I'm travelling next week,
hotel gym only"), the training days moved ("only Monday, Wednesday and Friday from now on"), and the
missed sessions of the daily run adapted."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any, Literal

from trainer.agents.factory import AgentFailed
from trainer.programs.changes import (
    WeekChange,
    change_summary,
    plan_on_days,
)
from trainer.programs.pipeline.deps import ProgramDeps, ProgramError, failure_message
from trainer.programs.pipeline.plan_rows import active_plan, record_change
from trainer.programs.pipeline.weeks import (
    WeekBuild,
    build_week,
    change_location,
    compose_week,
    replace_days,
    week_inputs,
)
from trainer.programs.records import plan_of
from trainer.programs.schedule import today_in, week_of
from trainer.services.schedule import DaysChange, adapt_missed_sessions, reshape_plan
from trainer.store.repositories import (
    RepositoryError,
    calendar,
    programs,
    settings,
)

logger = logging.getLogger(__name__)


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
        row = await active_plan(conn, user_id)
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
        row = await active_plan(conn, user_id)
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
        location = await change_location(conn, user_id, change)
        inputs = await week_inputs(conn, user_id, plan, now, change, location, row["id"])
    try:
        week = await compose_week(deps, user_id, row["id"], plan, planned["week_number"], inputs, change)
    except AgentFailed as exc:
        raise ProgramError("build_failed", failure_message("day", exc)) from exc
    async with deps.db.connection() as conn:
        days = await replace_days(conn, user_id, row["id"], week, today, only=day)
        await record_change(conn, user_id, row["id"], today, change_summary(change, day.strftime("%A %d %B")))
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
        await record_change(
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
