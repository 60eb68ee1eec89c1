"""The schedules: the hourly run publishes one `WeekDue` per plan whose next week is due; the morning
run (hourly too: the morning is each user's own) one `WorkoutReady` per training day whose local
morning it is, with the day's text, for a delivery integration (push, SMS) to send; deferred and
stale deliveries are published again."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from trainer.programs.pipeline.days import message_for
from trainer.programs.pipeline.deps import WEEK_DUE, WORKOUT_READY, ProgramDeps, ProgramError, publish_all
from trainer.programs.pipeline.weeks import build_week
from trainer.programs.schedule import morning_window
from trainer.store.repositories import (
    notifications,
    program_schedule,
    programs,
)

logger = logging.getLogger(__name__)


MORNING_PAGE = 500
REPUBLISH_PAGE = 500


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
        await publish_all(deps.publisher, WEEK_DUE, details)
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
            texts[row["id"]] = await message_for(deps, str(row["user_id"]), row)
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
            await publish_all(deps.publisher, WORKOUT_READY, [detail for _, detail in claimed])
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
    await publish_all(deps.publisher, WORKOUT_READY, details)
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
