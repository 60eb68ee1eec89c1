"""The data-source registry: name -> fetch + formatter + parameters.

`fetch_sources` runs the requested sources one after another on one pooled connection (a Lambda instance
holds one), reading through the user-data services (trainer.services). A failing or unknown source yields
a SourceResult with `error` set; it never fails the others.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from trainer.domain.distribution import distribution_report
from trainer.domain.equipment import available_equipment
from trainer.domain.exercise_search import equipment_overview, exercise_guide
from trainer.domain.health_readiness import READINESS_WINDOW_DAYS
from trainer.domain.health_summaries import sleep_summary, trends, workouts_words
from trainer.domain.progression import (
    ENTRIES_PER_EXERCISE,
    WINDOW_DAYS,
    established_range,
    exercise_histories,
    progression_targets,
)
from trainer.domain.workout_grouping import local_midnight
from trainer.services.day_readiness import day_readiness, day_words
from trainer.services.errors import UserDataError
from trainer.services.goals import weights_by_category, weights_by_muscle
from trainer.services.milestones import MILESTONE_STATUSES
from trainer.services.scope import UserRef
from trainer.services.user_data import UserData, UserDataService
from trainer.services.workout_plans import PLAN_STATUSES
from trainer.sources import formatters as fmt
from trainer.sources.user_data import build_user_data_xml
from trainer.store.db import Database
from trainer.store.ports import DatabaseUnavailable

__all__ = [
    "DISPLAY_NAMES",
    "SOURCES",
    "SOURCE_NAMES",
    "CurrentWorkoutProvider",
    "DataSource",
    "SourceResult",
    "build_user_data_xml",
    "describe_sources",
    "fetch_sources",
]

logger = logging.getLogger(__name__)

MAX_TARGETS = 20
"""Progression targets listed: the most recently trained exercises."""

CurrentWorkoutProvider = Callable[[], Awaitable[dict[str, Any] | None]]


@dataclass(frozen=True)
class SourceResult:
    source: str
    params: dict[str, Any]
    data: Any
    formatted: str
    error: str | None = None

    @property
    def display_name(self) -> str:
        return DISPLAY_NAMES.get(self.source, self.source)


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    max_length: int | None = None
    """Set on a text parameter: its longest value (whitespace is collapsed)."""

    def parse(self, value: Any) -> Any:
        if self.max_length is not None:
            text = " ".join(value.split()) if isinstance(value, str) else ""
            if not text:
                raise UserDataError(f"{self.name} must be text")
            if len(text) > self.max_length:
                raise UserDataError(f"{self.name} must be at most {self.max_length} characters")
            return text
        if self.choices:
            if value not in self.choices:
                raise UserDataError(f"{self.name} must be one of {', '.join(self.choices)}")
            return value
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise UserDataError(f"{self.name} must be a whole number")
        if not (self.minimum or 0) <= value <= (self.maximum or value):
            raise UserDataError(f"{self.name} must be between {self.minimum} and {self.maximum}")
        return int(value)

    def tolerate(self, value: Any) -> tuple[Any, str | None]:
        """The value made valid, or None to use the default, with a note on what was changed."""
        if self.max_length is not None:
            text = " ".join(value.split()) if isinstance(value, str) else ""
            if not text:
                return None, f"{self.name}={value!r} is not text"
            shortened = text[: self.max_length]
            return shortened, None if shortened == text else f"{self.name} shortened to {self.max_length}"
        if self.choices:
            if value in self.choices:
                return value, None
            return None, f"{self.name}={value!r} is not one of {', '.join(self.choices)}"
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            return None, f"{self.name}={value!r} is not a number"
        low = self.minimum if self.minimum is not None else value
        high = self.maximum if self.maximum is not None else value
        clamped = int(min(max(value, low), high))
        return clamped, None if clamped == value else f"{self.name}={value!r} clamped to {clamped}"


@dataclass(frozen=True)
class FetchContext:
    now: datetime
    current_workout: CurrentWorkoutProvider | None


Fetch = Callable[[UserData, dict[str, Any], FetchContext], Awaitable[Any]]
"""Reads one source for the user whose data it is given (every call on one connection)."""


@dataclass(frozen=True)
class DataSource:
    name: str
    display_name: str
    description: str
    fetch: Fetch
    format: Callable[[Any], str]
    params: tuple[Param, ...] = field(default_factory=tuple)
    uses_database: bool = True

    def resolve_params(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        given = dict(given or {})
        known = {p.name for p in self.params}
        unknown = sorted(set(given) - known)
        if unknown:
            allowed = ", ".join(sorted(known)) or "none"
            raise UserDataError(
                f"unknown parameter(s) {', '.join(unknown)} for {self.name} (allowed: {allowed})"
            )
        return {
            p.name: p.parse(given[p.name]) if given.get(p.name) is not None else p.default
            for p in self.params
        }

    def tolerated_params(self, given: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The given parameters this source takes, made valid (clamped, bad choices and non-numbers
        dropped), and a note per change: for a caller that cannot be told to fix its request."""
        known = {p.name: p for p in self.params}
        kept: dict[str, Any] = {}
        notes: list[str] = []
        for name, value in given.items():
            if value is None:
                continue
            param = known.get(name)
            if param is None:
                notes.append(f"{name} is not a parameter of {self.name}")
                continue
            fixed, note = param.tolerate(value)
            if note:
                notes.append(note)
            if fixed is not None:
                kept[name] = fixed
        return kept, notes


# --- fetchers -----------------------------------------------------------------------------------


async def _user_profile(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    profile = await data.profile.get()
    user_settings = await data.settings.get()
    today = ctx.now.astimezone(fmt.zone(user_settings.timezone)).date()
    return {"profile": profile, "settings": user_settings.model_dump(), "today": today}


async def _user_settings(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    return (await data.settings.get()).model_dump()


async def _all_locations(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    return await data.locations.all()


async def _current_location(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    return await data.locations.current()


def _match_case_insensitively(targets: Mapping[str, Any], totals: Mapping[str, Any]) -> dict[str, float]:
    """Totals keyed by the goal's spelling when the names differ only in case."""
    spelling = {name.lower(): name for name in targets}
    merged: dict[str, float] = {}
    for name, total in totals.items():
        key = spelling.get(name.lower(), name)
        merged[key] = merged.get(key, 0.0) + float(total)
    return merged


async def _category_goals(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    rows = await data.goals.categories()
    totals = await data.history.distribution()
    targets = weights_by_category(rows)
    report = distribution_report(targets, _match_case_insensitively(targets, totals["category"]))
    return {"goals": rows, "distribution": report, "logged_count": totals["logged_count"]}


async def _muscle_goals(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    rows = await data.goals.muscles()
    totals = await data.history.distribution()
    targets = weights_by_muscle(rows)
    report = distribution_report(targets, _match_case_insensitively(targets, totals["muscle"]))
    return {"goals": rows, "distribution": report, "logged_count": totals["logged_count"]}


async def _active_preferences(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    rows = await data.preferences.active(ctx.now)
    user_settings = await data.settings.get()
    return {"rows": rows, "timezone": user_settings.timezone}


async def _workout_history(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    rows = await data.history.recent(days_back=params["days_back"], limit=params["limit"], now=ctx.now)
    return {"rows": rows, "settings": (await data.settings.get()).model_dump(), "params": params}


async def _progression_targets(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    user_settings = await data.settings.get()
    unit = user_settings.weight_unit
    steps = await data.locations.load_steps(unit)
    rows = await data.history.recent_loaded_by_exercise(
        days_back=WINDOW_DAYS, per_exercise=ENTRIES_PER_EXERCISE, now=ctx.now
    )
    histories = exercise_histories(rows, unit, fmt.zone(user_settings.timezone))
    targets = progression_targets(histories, steps, established_range, limit=MAX_TARGETS)
    return {"unit": unit, "days_back": WINDOW_DAYS, "targets": [t.model_dump(mode="json") for t in targets]}


async def _exercise_distribution(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    return await data.history.distribution()


async def _current_workout(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    if ctx.current_workout is None:
        raise UserDataError("the current workout is not available here")
    return await ctx.current_workout()


async def _scheduled_workouts(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    rows = await data.schedule.upcoming(days_ahead=params["days_ahead"], now=ctx.now)
    missed = await data.schedule.recent_changes(ctx.now)
    return {
        "rows": rows,
        "settings": (await data.settings.get()).model_dump(),
        "params": params,
        "missed": missed,
    }


async def _workout_plans(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    return {"rows": await data.workout_plans.with_status(params["status"]), "params": params}


async def _exercise_info(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    current = await data.locations.current()
    equipment = available_equipment(current.get("equipment") or []) if current else None
    location = current["name"] if current else None
    if not params["query"]:
        return equipment_overview(equipment, location=location)
    return exercise_guide(params["query"], equipment, location=location)


async def _readiness(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    return {
        "today": await data.readiness.today(ctx.now),
        "recent": await data.readiness.recent(days=params["days_back"]),
    }


async def _health_data(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    """The phone's health data in words computed in code (trainer.tools.health says the same)."""
    days = params["days_back"]
    day = await day_readiness(data, ctx.now)
    series = await data.health.series(day.today, day.tz, days=max(READINESS_WINDOW_DAYS, days))
    nights = await data.health.nights(day.today - timedelta(days=days - 1), day.today, day.tz)
    since = local_midnight(day.today - timedelta(days=days - 1), day.tz)
    workouts = await data.health.workouts(since, ctx.now + timedelta(seconds=1))
    return {
        "today": day_words(day),
        "sleep": sleep_summary(nights, series.sleep, day.today, days).words(),
        "trends": [t.words() for t in trends(series, day.today, days)],
        "workouts": workouts_words(workouts, day.today, day.tz, days),
    }


async def _milestone_goals(data: UserData, params: dict[str, Any], ctx: FetchContext) -> Any:
    return {"rows": await data.milestones.with_status(params["status"]), "params": params}


SOURCES: dict[str, DataSource] = {
    source.name: source
    for source in (
        DataSource("user_profile", "User profile",
                   "Name, body stats (sex, age, height, weight, body fat), experience, usual session length",
                   _user_profile, fmt.format_user_profile),
        DataSource("user_settings", "User settings", "Units (kg/lbs, km/mi), timezone, preferred days",
                   _user_settings, fmt.format_user_settings),
        DataSource("all_locations", "Locations", "Every saved location with its equipment; current marked",
                   _all_locations, fmt.format_all_locations),
        DataSource("current_location", "Current location", "The current location and its equipment",
                   _current_location, fmt.format_current_location),
        DataSource("category_goals", "Category goals",
                   "Category goal weights with distribution: actual vs target share and debt",
                   _category_goals, fmt.format_category_goals),
        DataSource("muscle_goals", "Muscle goals",
                   "Muscle goal weights with distribution: actual vs target share and debt",
                   _muscle_goals, fmt.format_muscle_goals),
        DataSource("active_preferences", "Preferences", "Active temporary and permanent preferences",
                   _active_preferences, lambda d: fmt.format_preferences(d["rows"], d["timezone"])),
        DataSource("workout_history", "Workout history", "Recently logged exercises, newest first (with ids)",
                   _workout_history, fmt.format_workout_history,
                   (Param("days_back", 14, 1, 3650), Param("limit", 15, 1, 100))),
        DataSource("progression_targets", "Progression targets",
                   "Computed next load and reps for each recently trained exercise (double progression, "
                   "deloads after repeated misses), with the reason",
                   _progression_targets, fmt.format_progression_targets),
        DataSource("exercise_distribution", "Exercise distribution",
                   "Running totals of work per goal category and per muscle",
                   _exercise_distribution, fmt.format_exercise_distribution),
        DataSource("current_workout_session", "Current workout", "The workout in progress or last generated",
                   _current_workout, fmt.format_current_workout, uses_database=False),
        DataSource("scheduled_workouts", "Scheduled workouts",
                   "Upcoming sessions: scheduled workouts and training-plan days (with ids), and missed ones",
                   _scheduled_workouts, fmt.format_schedule, (Param("days_ahead", 7, 1, 365),)),
        DataSource("workout_plans", "Workout plans", "Multi-week workout plans",
                   _workout_plans, fmt.format_plans,
                   (Param("status", "active", choices=(*PLAN_STATUSES, "all")),)),
        DataSource("milestone_goals", "Milestone goals", "Specific achievement goals with progress",
                   _milestone_goals, fmt.format_milestones,
                   (Param("status", "active", choices=(*MILESTONE_STATUSES, "all")),)),
        DataSource("exercise_info", "Exercise guide",
                   "One catalog exercise (query: its name): how to do it (steps), muscles, equipment, "
                   "alternatives with the current location's equipment; no query: what that equipment allows",
                   _exercise_info, fmt.format_exercise_info, (Param("query", None, max_length=120),)),
        DataSource("readiness", "Readiness",
                   "Readiness check-ins (sleep, energy, stress, soreness, last RPE) and today's computed "
                   "readiness: train, train lighter, recovery session or rest, with the reasons",
                   _readiness, fmt.format_readiness, (Param("days_back", 7, 1, 90),)),
        DataSource("health_data", "Health data",
                   "The phone's health data against the user's baseline: why today is lighter or not, "
                   "sleep, HRV and resting heart rate trends, other apps' workouts",
                   _health_data, fmt.format_health_data, (Param("days_back", 7, 1, 90),)),
    )
}  # fmt: skip

SOURCE_NAMES: tuple[str, ...] = tuple(SOURCES)
DISPLAY_NAMES: dict[str, str] = {name: source.display_name for name, source in SOURCES.items()}


def describe_sources() -> str:
    """One line per source: name, what it holds, parameters with defaults (for prompts)."""
    lines = []
    for source in SOURCES.values():
        params = ", ".join(
            f"{p.name} (text)"
            if p.max_length is not None
            else f"{p.name} (default {p.default}" + (f"; one of {'|'.join(p.choices)})" if p.choices else ")")
            for p in source.params
        )
        lines.append(f"- {source.name}: {source.description}" + (f". Params: {params}" if params else ""))
    return "\n".join(lines)


async def fetch_sources(
    db: Database,
    user_id: UserRef,
    requests: Sequence[tuple[str, Mapping[str, Any] | None]],
    *,
    now: datetime | None = None,
    current_workout: CurrentWorkoutProvider | None = None,
) -> list[SourceResult]:
    """Fetch and format each (source, params) in turn on one connection; results in request order. The
    connection is taken only if a requested source reads the database."""
    ctx = FetchContext(now or datetime.now(UTC), current_workout)
    async with AsyncExitStack() as stack:
        data: UserData | None = None
        if any(SOURCES[name].uses_database for name, _ in requests if name in SOURCES):
            try:
                data = await stack.enter_async_context(UserDataService(db).for_user(user_id).reading())
            except DatabaseUnavailable:
                logger.warning("the database is unreachable: its data sources fail", exc_info=True)
        return [await _fetch_one(data, name, params, ctx) for name, params in requests]


async def _fetch_one(
    data: UserData | None, name: str, given: Mapping[str, Any] | None, ctx: FetchContext
) -> SourceResult:
    requested = dict(given or {})
    source = SOURCES.get(name)
    if source is None:
        message = f"unknown data source {name!r}; available: {', '.join(SOURCE_NAMES)}"
        return SourceResult(name, requested, None, "", message)
    try:
        params = source.resolve_params(requested)
    except UserDataError as exc:
        return SourceResult(name, requested, None, "", str(exc))
    failed = SourceResult(name, params, None, "", f"could not load {source.display_name.lower()}")
    if source.uses_database and data is None:
        return failed
    try:
        raw = await source.fetch(data, params, ctx)  # type: ignore[arg-type]
        formatted = source.format(raw)
    except UserDataError as exc:
        return SourceResult(name, params, None, "", str(exc))
    except Exception:
        logger.exception("data source %s failed", name)
        return failed
    return SourceResult(name, params, fmt.jsonable(raw), formatted)
