"""Plans: a request stores a `pending` plan and publishes `PlanRequested` (one plan per user is built at
a time; a retried request joins it); its builder (`build_plan`) runs the `fitness_plan` agent and
the first week, then the plan is `ready` (or `failed`, with a message the user can read). A plan
still pending after STALE_PENDING is requested again, and failed after GIVE_UP_PENDING."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from psycopg.errors import UniqueViolation
from pydantic import ValidationError

from trainer.agents.factory import AgentFailed, run_agent
from trainer.programs.agents import FITNESS_PLAN
from trainer.programs.inputs import load_plan_inputs
from trainer.programs.models import (
    PlanInputs,
    PlanRequest,
    PlanResult,
)
from trainer.programs.pipeline.deps import (
    PLAN_REQUESTED,
    ProgramDeps,
    ProgramError,
    failure_message,
    publish_all,
)
from trainer.programs.pipeline.plan_rows import plan_row
from trainer.programs.pipeline.weeks import build_week
from trainer.programs.records import plan_of
from trainer.programs.schedule import next_week_after
from trainer.services.usage_limits import Reservation
from trainer.store.repositories import (
    RepositoryError,
    program_schedule,
    programs,
)

logger = logging.getLogger(__name__)


STALE_PENDING = timedelta(minutes=15)
"""A plan still pending this long after its request (or its builder's claim) is requested again."""
GIVE_UP_PENDING = timedelta(days=1)
GAVE_UP_MESSAGE = "Your plan could not be built. Please ask for it again."
"""A plan still pending a day after its request is failed instead of requested again."""


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
        row = await plan_row(conn, user_id, plan_id)
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
            return await plan_row(conn, user_id, plan_id)
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
            return done if done is not None else await plan_row(conn, user_id, plan_id)
    except Exception:
        async with deps.db.connection() as conn:
            await program_schedule.release_plan(conn, user_id, plan_id)
        raise
    async with deps.db.connection() as conn:
        stored = await plan_row(conn, user_id, plan_id)
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
        return await plan_row(conn, user_id, plan_id)


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
                failed if failed is not None else await plan_row(conn, user_id, plan_id)
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
        await publish_all(deps.publisher, PLAN_REQUESTED, details)
    return details
