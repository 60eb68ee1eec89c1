"""Loads what the plan and week builders read about a user (settings, profile, current location and its
equipment, goals, active preferences, recent history and the sessions progression reads) and resolves
the request against it: training days, session length, experience."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from trainer.domain.equipment import available_equipment
from trainer.domain.progression import ENTRIES_PER_EXERCISE, WINDOW_DAYS
from trainer.domain.weekdays import DEFAULT_DAYS_BY_COUNT, WEEKDAYS, Weekday
from trainer.domain.workout_checks import is_temporary, preference_constraints
from trainer.domain.workout_grouping import count_workouts, local_day, zone
from trainer.programs.models import Experience, PlanInputs, PlanRequest
from trainer.services.goals import weights_by_category, weights_by_muscle
from trainer.services.locations import weighed_items
from trainer.store.repositories import (
    Conn,
    UserId,
    goals,
    history,
    locations,
    preferences,
    profiles,
    settings,
)

HISTORY_DAYS = 60
HISTORY_LIMIT = 300
DEFAULT_SESSION_MINUTES = 60
BEGINNER_WORKOUTS = 6
"""Fewer logged workouts than this in HISTORY_DAYS: a beginner (unless the request says otherwise)."""


def training_days(
    requested: Sequence[str] | None, preferred: Sequence[str], days_per_week: int | None
) -> list[Weekday]:
    """The user's training days: the requested ones, else their preferred days, else a standard spread;
    thinned evenly when there are more days than sessions, the standard spread when fewer."""
    days = [d for d in WEEKDAYS if d in set(requested or preferred)]
    count = days_per_week or len(days) or 3
    if len(days) < count:
        days = list(DEFAULT_DAYS_BY_COUNT[count])
    if len(days) > count:
        days = [days[round(i * len(days) / count)] for i in range(count)]
    return days


def infer_experience(rows: Iterable[Mapping[str, Any]], timezone: str = "UTC") -> Experience:
    """Beginner with fewer than BEGINNER_WORKOUTS logged workouts lately, else intermediate; advanced
    only when the user says so."""
    return "beginner" if count_workouts(rows, zone(timezone)) < BEGINNER_WORKOUTS else "intermediate"


def resolve_inputs(
    request: PlanRequest,
    *,
    now: datetime,
    user_settings: Mapping[str, Any],
    location: Mapping[str, Any] | None,
    category_goals: Mapping[str, float],
    muscle_goals: Mapping[str, float],
    active_preferences: Sequence[Mapping[str, Any]],
    recent: Sequence[Mapping[str, Any]],
    sessions: Sequence[Mapping[str, Any]],
    profile: Mapping[str, Any] | None = None,
) -> PlanInputs:
    """PlanInputs from the rows a loader read (pure, so tests need no database). Session length: the
    request's, else a permanent time preference's, else the profile's, else DEFAULT_SESSION_MINUTES;
    experience: the request's, else the profile's, else inferred from the history; the goal: the
    request's, else the profile's goals in the user's words; injuries come as preferences."""
    tz_name = str(user_settings.get("timezone") or "UTC")
    equipment = available_equipment((location or {}).get("equipment") or []) if location else {"bodyweight"}
    permanent = [p for p in active_preferences if not is_temporary(p)]
    profile = profile or {}
    minutes = (
        request.session_minutes
        or preference_constraints(permanent).time_budget_min
        or profile.get("session_minutes")
        or DEFAULT_SESSION_MINUTES
    )
    return PlanInputs(
        now=now,
        start_date=request.start_date or local_day(now, zone(tz_name)),
        weeks=request.weeks,
        training_days=training_days(
            request.training_days, user_settings.get("preferred_days") or [], request.days_per_week
        ),
        session_minutes=max(15, min(180, minutes)),
        experience=request.experience or profile.get("experience") or infer_experience(recent, tz_name),
        goal_text=request.goal or profile.get("goal_statement") or "",
        category_goals={k: float(v) for k, v in category_goals.items()},
        muscle_goals={k: float(v) for k, v in muscle_goals.items()},
        preferences=[{k: p[k] for k in PREFERENCE_KEYS if p.get(k) is not None} for p in active_preferences],
        equipment=sorted(equipment),
        location_items=weighed_items(location),
        location_name=(location or {}).get("name"),
        weight_unit=user_settings.get("weight_unit") or "kg",
        distance_unit=user_settings.get("distance_unit") or "km",
        timezone=tz_name,
        history=[slim_row(r) for r in recent],
        progression_history=[slim_row(r) for r in sessions],
    )


ROW_KEYS = (
    "performed_at", "exercise_name", "exercise_type", "sets", "reps", "load_each", "load_unit", "hold_sec",
    "duration_min", "muscles", "workout_id", "session_id",
)  # fmt: skip
"""What the builders read of a logged exercise (recovery, progression, grouping into workouts)."""
PREFERENCE_KEYS = ("type", "description", "guidance", "expires_at", "delete_after_use", "temporary")


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def slim_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A history row with only what the builders read, numbers as floats (a smaller model input)."""
    return {key: _plain(row[key]) for key in ROW_KEYS if row.get(key) is not None}


async def load_plan_inputs(
    conn: Conn, user_id: UserId, now: datetime, request: PlanRequest | None = None
) -> PlanInputs:
    """Everything the builders read for one user, on one connection (8 statements)."""
    user_settings = await settings.get_user_settings(conn, user_id)
    profile = await profiles.get_profile(conn, user_id)
    current = await locations.get_current(conn, user_id)
    category_rows = await goals.list_category_goals(conn, user_id)
    muscle_rows = await goals.list_muscle_goals(conn, user_id)
    prefs = await preferences.list_active(conn, user_id, now)
    recent = await history.list_recent(conn, user_id, days_back=HISTORY_DAYS, limit=HISTORY_LIMIT, now=now)
    sessions = await history.recent_loaded_by_exercise(
        conn, user_id, days_back=WINDOW_DAYS, per_exercise=ENTRIES_PER_EXERCISE, now=now
    )
    return resolve_inputs(
        request or PlanRequest(),
        now=now,
        user_settings=user_settings,
        location=current,
        category_goals=weights_by_category(category_rows),
        muscle_goals=weights_by_muscle(muscle_rows),
        active_preferences=[dict(p) for p in prefs],
        recent=[dict(r) for r in recent],
        sessions=[dict(r) for r in sessions],
        profile=profile,
    )


def week_request(plan_weeks: int, days: Sequence[str], minutes: int, experience: Experience) -> PlanRequest:
    """The request a week is built under: the plan's own days, length and level."""
    return PlanRequest(
        weeks=plan_weeks,
        training_days=[d for d in WEEKDAYS if d in days],
        session_minutes=max(15, min(180, minutes)),
        experience=experience,
    )
