"""Training plans and their planned workouts (docs/programs.md): request a plan (built in the background; the
app polls its status), read plans with their weeks and days, read planned workouts by date, and turn
a pasted workout into a structured one. Every read is scoped to the caller: another user's plan or
workout is 404, never visible. Requests go to the program pipeline, reads to the training-plan
service (trainer.services.training_plans); both are imported on first use."""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from trainer.api.errors import RETRY_AFTER_SECONDS, ApiError
from trainer.api.idempotency import KEY_ERRORS, IdempotencyKeyHeader, run_once
from trainer.api.inputs import ASCII_DIGITS, IsoDate
from trainer.api.openapi import AUTHENTICATED, BUDGET, DATABASE, INVALID_QUERY, JSON_BODY, error_responses
from trainer.api.routes import ContainerDep, RegisteredUserId, UserId
from trainer.api.schemas import (
    ImportedWorkout,
    PlanCreate,
    PlanDetail,
    PlanList,
    PlannedWorkout,
    PlanResponse,
    PlanSummary,
    PlanWeekInfo,
    WorkoutChange,
    WorkoutChanged,
    WorkoutCreate,
    WorkoutImport,
    WorkoutList,
    WorkoutResponse,
)
from trainer.container import Container
from trainer.domain.weekdays import WEEKDAYS
from trainer.programs.models import FitnessPlan

if TYPE_CHECKING:
    from trainer.programs.pipeline import ProgramDeps
    from trainer.services.user_data import UserData

router = APIRouter(tags=["programs"])

MAX_WORKOUT_RANGE_DAYS = 92
DEFAULT_WORKOUT_RANGE_DAYS = 7
MAX_LISTED_WORKOUTS = 200
MAX_START_DAYS_BACK = 29
MAX_START_DAYS_AHEAD = 366
TO_DESCRIPTION = (
    f"Last day, included; default: a week from `from`. At most {MAX_WORKOUT_RANGE_DAYS} days after `from`."
)
RETRY = {"Retry-After": str(RETRY_AFTER_SECONDS)}
KEY_WAIT_SECONDS = 25.0
"""How long a retry with the key of a request still running waits for its answer."""

PLAN_SCOPED = {404: ("plan_not_found",)}
WORKOUT_SCOPED = {404: ("workout_not_found",)}
PLAN_REQUEST_ERRORS = {
    409: ("plan_in_progress",),
    422: ("invalid_plan_request",),
    503: ("plan_queue_unavailable",),
}
RANGE_ERRORS = {422: ("invalid_range",)}
IMPORT_ERRORS = {422: ("not_a_workout", "import_too_large"), 503: ("import_unavailable",)}
CHANGE_ERRORS = {422: ("invalid_workout_change",)}


def plan_links(plan_id: str) -> dict[str, Any]:
    """The OpenAPI link from an answer naming a plan (`plan_id`: a runtime expression) to reading it."""
    return {"GetPlan": {"operationId": "getPlan", "parameters": {"plan_id": plan_id}}}


def require_programs(container: Container) -> ProgramDeps:
    if container.programs is None:
        raise ApiError(503, "database_unavailable", "The domain database is not configured.")
    return container.programs


def user_data(deps: ProgramDeps, user_id: str) -> UserData:
    from trainer.services.user_data import UserDataService

    return UserDataService(deps.db).for_user(user_id)


@router.post(
    "/plans",
    status_code=202,
    response_model=PlanResponse,
    responses={
        202: {"links": plan_links("$response.body#/plan/id")},
        **error_responses(AUTHENTICATED, JSON_BODY, PLAN_REQUEST_ERRORS, BUDGET, DATABASE, KEY_ERRORS),
    },
)
async def create_plan(
    container: ContainerDep,
    user_id: RegisteredUserId,
    request: PlanCreate,
    idempotency_key: IdempotencyKeyHeader = None,
) -> JSONResponse:
    """Starts building a plan and answers at once with it `pending`: poll `GET /plans/{plan_id}` until
    it is `ready` (the plan, its first week and each day's message) or `failed` (with `error`).
    Fields left out come from the user's settings, goals, location and history. With an
    `Idempotency-Key`, a retry gets the first answer (the same plan) and starts no second plan."""
    from trainer.programs.pipeline import ProgramError, request_plan

    deps = require_programs(container)
    check_start(request.start_date, deps.now().date())

    async def run() -> tuple[int, PlanResponse]:
        try:
            row = await request_plan(deps, user_id, request)
        except ProgramError as exc:
            if exc.code == "build_failed":
                raise ApiError(503, "plan_queue_unavailable", exc.message, headers=RETRY) from None
            if exc.code == "in_progress":
                raise ApiError(409, "plan_in_progress", exc.message) from None
            raise ApiError(422, "invalid_plan_request", exc.message) from None
        return 202, PlanResponse(plan=PlanSummary.model_validate(row))

    return await run_once(
        container.stream_records,
        user_id,
        "plans",
        idempotency_key,
        request,
        run,
        wait_seconds=KEY_WAIT_SECONDS,
    )


def check_start(start: date | None, today: date) -> None:
    """A start date the schedule can work with: at most 4 weeks back, a year ahead (UTC today, give or
    take the user's time zone)."""
    if start is None:
        return
    earliest = today - timedelta(days=MAX_START_DAYS_BACK)
    latest = today + timedelta(days=MAX_START_DAYS_AHEAD)
    if not earliest <= start <= latest:
        raise ApiError(
            422,
            "invalid_plan_request",
            f"`start_date` must be between {earliest.isoformat()} and {latest.isoformat()}.",
        )


@router.get(
    "/plans", response_model=PlanList, responses=error_responses(AUTHENTICATED, INVALID_QUERY, DATABASE)
)
async def list_plans(
    container: ContainerDep, user_id: UserId, limit: Annotated[int, Query(ge=1, le=100), ASCII_DIGITS] = 20
) -> PlanList:
    """The caller's plans, newest first."""
    rows = await user_data(require_programs(container), user_id).training_plans.newest(limit=limit)
    return PlanList(plans=[PlanSummary.model_validate(row) for row in rows])


@router.get(
    "/plans/{plan_id}",
    response_model=PlanDetail,
    responses=error_responses(AUTHENTICATED, PLAN_SCOPED, DATABASE),
)
async def get_plan(container: ContainerDep, user_id: UserId, plan_id: str) -> PlanDetail:
    """The plan with its status, its markdown and structured form once ready, and the weeks built so
    far with their days."""
    detail = await user_data(require_programs(container), user_id).training_plans.detail(plan_id)
    if detail is None:
        raise ApiError(404, "plan_not_found", "Plan not found.")
    row = detail.plan
    return PlanDetail(
        plan=PlanSummary.model_validate(row),
        markdown=row["markdown"],
        structured=FitnessPlan.model_validate(row["plan"]) if row["plan"] else None,
        weeks=[PlanWeekInfo.model_validate(week) for week in detail.weeks],
        days=[PlannedWorkout.model_validate(day) for day in detail.days],
    )


@router.get(
    "/workouts",
    response_model=WorkoutList,
    responses=error_responses(AUTHENTICATED, INVALID_QUERY, RANGE_ERRORS, DATABASE),
)
async def list_workouts(
    container: ContainerDep,
    user_id: UserId,
    date_from: Annotated[
        IsoDate | None, Query(alias="from", description="First day (ISO date); default: today, the user's.")
    ] = None,
    date_to: Annotated[IsoDate | None, Query(alias="to", description=TO_DESCRIPTION)] = None,
) -> WorkoutList:
    """The calendar from `from` to `to` (both included), in date order: the active plan's days, each with
    its structured workout (or recovery notes) and its message, and the workouts put on the calendar
    (`source: calendar`), a day of the plan's rest included."""
    from trainer.domain.workout_grouping import zone

    deps = require_programs(container)
    async with user_data(deps, user_id).reading() as data:
        if date_from is None:
            settings = await data.settings.get()
            date_from = deps.now().astimezone(zone(settings.timezone)).date()
        if date_to is None:
            days = min(DEFAULT_WORKOUT_RANGE_DAYS - 1, (date.max - date_from).days)
            date_to = date_from + timedelta(days=days)
        check_range(date_from, date_to)
        rows = await data.training_plans.workouts(date_from, date_to, limit=MAX_LISTED_WORKOUTS)
        scheduled = await data.schedule.scheduled_in_range(date_from, date_to, limit=MAX_LISTED_WORKOUTS)
    listed = [PlannedWorkout.model_validate(row) for row in rows] + [calendar_workout(r) for r in scheduled]
    listed.sort(key=lambda w: (w.date, w.source != "plan", w.scheduled_at or w.created_at))
    return WorkoutList(workouts=listed[:MAX_LISTED_WORKOUTS], date_from=date_from, date_to=date_to)


def calendar_workout(row: dict[str, Any]) -> PlannedWorkout:
    """A workout put on the calendar, as a calendar day (`source: calendar`)."""
    from trainer.services.today import scheduled_workout

    status = row["status"] if row["status"] in ("scheduled", "completed", "skipped") else "skipped"
    return PlannedWorkout(
        id=row["id"],
        plan_id=row.get("plan_id"),
        week_number=None,
        date=row["date"],
        weekday=WEEKDAYS[row["date"].weekday()],
        kind="training",
        focus=row["workout_type"],
        workout=scheduled_workout(row),
        notes=[row["notes"]] if row.get("notes") else [],
        recovery_notes=None,
        message=None,
        status=status,
        published_at=None,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        source="calendar",
        scheduled_at=row["scheduled_date"],
    )


async def calendar_day(data: UserData, workout_id: Any) -> PlannedWorkout | None:
    """One day of the calendar by id: a plan day, else a calendar workout."""
    row = await data.training_plans.workout(workout_id)
    if row is not None:
        return PlannedWorkout.model_validate(row)
    entry = await data.schedule.entry(workout_id)
    if entry is None or entry["source"] != "calendar":
        return None
    return calendar_workout(entry)


async def local_today(data: UserData, deps: ProgramDeps) -> tuple[date, Any]:
    from trainer.domain.workout_grouping import zone

    tz = zone((await data.settings.get()).timezone)
    return deps.now().astimezone(tz).date(), tz


@router.post(
    "/workouts",
    status_code=201,
    response_model=WorkoutResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, CHANGE_ERRORS, DATABASE, KEY_ERRORS),
)
async def create_workout(
    container: ContainerDep,
    user_id: RegisteredUserId,
    body: WorkoutCreate,
    idempotency_key: IdempotencyKeyHeader = None,
) -> JSONResponse:
    """Adds a session to the calendar on a day (today or later), at a time if given; it is listed by
    `GET /workouts` with the plan's days (a plan rest day included) under the id the chat's schedule
    tools take. With an `Idempotency-Key`, a retry gets the first answer (the same session) and adds
    no second one."""
    deps = require_programs(container)
    return await run_once(
        container.stream_records,
        user_id,
        "workouts",
        idempotency_key,
        body,
        lambda: add_workout(deps, user_id, body),
        wait_seconds=KEY_WAIT_SECONDS,
    )


async def add_workout(deps: ProgramDeps, user_id: str, body: WorkoutCreate) -> tuple[int, WorkoutResponse]:
    """`POST /workouts`'s write, run once per `Idempotency-Key`: the session added, as listed."""
    from datetime import datetime, time

    from trainer.services.errors import UserDataError

    data = user_data(deps, user_id)
    today, tz = await local_today(data, deps)
    if body.date < today:
        raise ApiError(422, "invalid_workout_change", f"{body.date.isoformat()} is in the past.")
    at = time.fromisoformat(body.time) if body.time else time(0)
    try:
        row = await data.schedule.add(
            scheduled_date=datetime.combine(body.date, at, tzinfo=tz),
            workout_type=body.workout_type,
            duration_minutes=body.duration_minutes,
            notes=body.notes,
        )
    except UserDataError as exc:
        raise ApiError(422, "invalid_workout_change", str(exc)) from None
    shown = await calendar_day(data, row["id"])
    assert shown is not None
    return 201, WorkoutResponse(workout=shown)


@router.patch(
    "/workouts/{workout_id}",
    response_model=WorkoutChanged,
    responses=error_responses(AUTHENTICATED, JSON_BODY, WORKOUT_SCOPED, CHANGE_ERRORS, DATABASE, KEY_ERRORS),
)
async def update_workout(
    container: ContainerDep,
    user_id: UserId,
    workout_id: str,
    body: WorkoutChange,
    idempotency_key: IdempotencyKeyHeader = None,
) -> JSONResponse:
    """Moves (`date`), skips (`status: skipped`) or swaps (`swap_with`: the two exchange days) one
    session of the calendar: a plan day (it moves onto a rest day of its plan) or a calendar workout
    (it keeps its time of day). `recovery_warning` says when hard sessions end up on consecutive days.
    With an `Idempotency-Key`, a retry gets the first answer and changes nothing again (a retried swap
    does not swap the two back); the key with another session's id is another body."""
    if body.date is None and body.status is None and body.swap_with is None:
        raise ApiError(422, "invalid_workout_change", "Give `date`, `status` or `swap_with`.")
    if body.swap_with is not None and body.date is not None:
        raise ApiError(422, "invalid_workout_change", "Move (`date`) or swap (`swap_with`), not both.")
    deps = require_programs(container)
    return await run_once(
        container.stream_records,
        user_id,
        "workout_change",
        idempotency_key,
        {"workout_id": workout_id, "change": body.model_dump(mode="json")},
        lambda: change_workout(deps, user_id, workout_id, body),
        wait_seconds=KEY_WAIT_SECONDS,
    )


async def change_workout(
    deps: ProgramDeps, user_id: str, workout_id: str, body: WorkoutChange
) -> tuple[int, WorkoutChanged]:
    """`PATCH /workouts/{id}`'s write, run once per `Idempotency-Key`: the session as changed."""
    from datetime import datetime

    from trainer.services.errors import UserDataError

    data = user_data(deps, user_id)
    entry = await data.schedule.entry(workout_id)
    if entry is None:
        raise ApiError(404, "workout_not_found", "Workout not found.")
    today, tz = await local_today(data, deps)
    other: PlannedWorkout | None = None
    try:
        if body.swap_with is not None:
            first, second = await data.schedule.swap(entry["id"], body.swap_with)
            warning = first.get("recovery_warning") or second.get("recovery_warning")
            other = await calendar_day(data, second["id"])
        else:
            changes: dict[str, Any] = {}
            if body.status is not None:
                changes["status"] = body.status
            if body.date is not None:
                if body.date < today:
                    raise ApiError(422, "invalid_workout_change", f"{body.date.isoformat()} is in the past.")
                local = entry["scheduled_date"].astimezone(tz)
                changes["scheduled_date"] = datetime.combine(body.date, local.timetz())
            row = await data.schedule.update(entry["id"], **changes)
            if row is None:
                raise ApiError(404, "workout_not_found", "Workout not found.")
            warning = row.get("recovery_warning")
    except UserDataError as exc:
        raise ApiError(422, "invalid_workout_change", str(exc)) from None
    shown = await calendar_day(data, entry["id"])
    assert shown is not None
    return 200, WorkoutChanged(workout=shown, swapped_with=other, recovery_warning=warning)


def check_range(date_from: date, date_to: date) -> None:
    if date_to < date_from:
        raise ApiError(
            422, "invalid_range", f"`to` ({date_to.isoformat()}) is before `from` ({date_from.isoformat()})."
        )
    days = (date_to - date_from).days
    if days > MAX_WORKOUT_RANGE_DAYS:
        raise ApiError(
            422,
            "invalid_range",
            f"The range spans {days + 1} days; at most {MAX_WORKOUT_RANGE_DAYS + 1} can be listed at once.",
        )


@router.post(
    "/workouts/import",
    response_model=ImportedWorkout,
    responses=error_responses(AUTHENTICATED, JSON_BODY, IMPORT_ERRORS, BUDGET, DATABASE, KEY_ERRORS),
)
async def import_workout(
    container: ContainerDep,
    user_id: RegisteredUserId,
    body: WorkoutImport,
    idempotency_key: IdempotencyKeyHeader = None,
) -> JSONResponse:
    """A workout written as text (e.g. a program from the user's coach) as a structured workout in the
    app's schema, with the lines that were not read as exercises; nothing is stored. A text with no
    exercise in it is `422 not_a_workout`. With an `Idempotency-Key`, a retry gets the first answer
    without structuring the text again (no second model call)."""
    from trainer.programs.pipeline import ProgramError
    from trainer.programs.pipeline import import_workout as structure

    async def run() -> tuple[int, ImportedWorkout]:
        try:
            result = await structure(require_programs(container), user_id, body.text)
        except ProgramError as exc:
            if exc.code == "build_failed":
                raise ApiError(503, "import_unavailable", exc.message, headers=RETRY) from None
            if exc.code == "too_large":
                raise ApiError(422, "import_too_large", exc.message) from None
            raise ApiError(422, "not_a_workout", exc.message) from None
        return 200, ImportedWorkout(workout=result.workout, unrecognised=result.unrecognised)

    return await run_once(
        container.stream_records,
        user_id,
        "import",
        idempotency_key,
        body,
        run,
        wait_seconds=KEY_WAIT_SECONDS,
    )


@router.get(
    "/workouts/{workout_id}",
    response_model=WorkoutResponse,
    responses=error_responses(AUTHENTICATED, WORKOUT_SCOPED, DATABASE),
)
async def get_workout(container: ContainerDep, user_id: UserId, workout_id: str) -> WorkoutResponse:
    """One day of the calendar: a planned day with its structured workout and message, or a workout put
    on the calendar."""
    shown = await calendar_day(user_data(require_programs(container), user_id), workout_id)
    if shown is None:
        raise ApiError(404, "workout_not_found", "Workout not found.")
    return WorkoutResponse(workout=shown)
