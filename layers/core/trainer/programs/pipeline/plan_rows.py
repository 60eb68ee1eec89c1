"""A user's plan rows as the pipeline reads them (ProgramError when there is none), and a change
written into a plan's modification history."""

from __future__ import annotations

from datetime import date
from typing import Any

from trainer.programs.pipeline.deps import ProgramError
from trainer.programs.plan.finalize import record_modification
from trainer.programs.plan.render import render_plan_markdown
from trainer.programs.records import plan_of
from trainer.store.repositories import (
    RepositoryError,
    programs,
)


async def plan_row(conn: Any, user_id: str, plan_id: Any) -> dict[str, Any]:
    try:
        row = await programs.get_plan(conn, user_id, plan_id)
    except RepositoryError:
        row = None
    if row is None:
        raise ProgramError("not_found", "Plan not found.")
    return row


async def record_change(conn: Any, user_id: str, plan_id: Any, day: date, line: str) -> None:
    """The change in the plan's modification history (markdown and JSON)."""
    async with conn.transaction():
        row = await programs.get_plan(conn, user_id, plan_id)
        if row is None or row["status"] != "ready":
            return
        plan = record_modification(plan_of(row), day, line)
        await programs.update_document(
            conn, user_id, plan_id, markdown=render_plan_markdown(plan), plan=plan.model_dump(mode="json")
        )


async def active_plan(conn: Any, user_id: str) -> dict[str, Any]:
    row = await programs.get_active_plan(conn, user_id)
    if row is None:
        raise ProgramError("no_active_plan", "You don't have an active training plan yet: ask for one first.")
    return row
