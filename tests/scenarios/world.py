"""A scenario's user in the real stores: seeding the starting state, and reading the state back as
plain data (a `Snapshot`) so checks can compare before and after a turn."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from trainer.domain.catalog import load_catalog
from trainer.domain.weekdays import WEEKDAYS
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import ProgramDeps, request_plan
from trainer.store.db import Database
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.store.ports import SessionStore
from trainer.store.repositories import goals, history, locations, milestones, preferences, profiles, schedule
from trainer.store.repositories import settings as settings_repo
from trainer_dev.testing.health_series import PhoneHealthData

from tests.scenarios.schema import ExerciseSpec, LoggedWorkout, Scenario, UserSpec

SEED_SESSION = "scenario-seed"


def _per_set(value: Any, sets: int | None) -> list[Any] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return list(value)
    return [value] * (sets or 1)


def _shares(shares: dict[str, float] | None, key: str) -> list[dict[str, Any]]:
    return [{key: name, "share": share} for name, share in (shares or {}).items()]


def catalog_muscles(name: str) -> dict[str, float]:
    entry = load_catalog().get(name)
    if entry is None:
        raise ValueError(f"{name!r} is not in the catalog: give its muscles")
    return dict(entry.muscles)


def catalog_equipment(name: str) -> list[str]:
    entry = load_catalog().get(name)
    return list(entry.equipment) if entry is not None else []


def spec_sets(spec: ExerciseSpec) -> int | None:
    if spec.sets is not None:
        return spec.sets
    for value in (spec.reps, spec.hold, spec.load):
        if isinstance(value, list):
            return len(value)
    return 3 if spec.kind in ("reps", "hold") else None


def history_entry(spec: ExerciseSpec, weight_unit: str) -> dict[str, Any]:
    """The row log_exercises takes for a logged exercise."""
    sets = spec_sets(spec)
    kind = spec.kind
    entry: dict[str, Any] = {
        "exercise_name": spec.name,
        "exercise_type": kind,
        "sets": sets if kind in ("reps", "hold") else None,
        "reps": _per_set(spec.reps, sets) if kind == "reps" else None,
        "load_each": _per_set(spec.load, sets),
        "load_unit": (spec.unit or weight_unit) if spec.load is not None else None,
        "hold_sec": _per_set(spec.hold, sets) if kind == "hold" else None,
        "duration_min": spec.minutes,
        "distance": spec.distance,
        "distance_unit": spec.distance_unit if spec.distance is not None else None,
        "rounds": spec.rounds,
        "work_sec": spec.work,
        "rest_sec": spec.rest,
        "rpe": spec.rpe,
        "muscles": _shares(spec.muscles or catalog_muscles(spec.name), "muscle"),
        "goals": _shares(spec.goals or {"Strength": 1.0}, "goal"),
    }
    return {k: v for k, v in entry.items() if v is not None}


def workout_exercise(spec: ExerciseSpec, order: int, weight_unit: str, distance_unit: str) -> dict[str, Any]:
    """A generate_workout exercise (trainer.domain.workout.Exercise) for a current-workout spec."""
    sets = spec_sets(spec)
    kind = spec.kind
    exercise: dict[str, Any] = {
        "exercise_name": spec.name,
        "exercise_type": kind,
        "order": order,
        "muscles_utilized": _shares(spec.muscles or catalog_muscles(spec.name), "muscle"),
        "goals_addressed": _shares(spec.goals or {"Strength": 1.0}, "goal"),
        "reasoning": "Planned earlier in the session.",
        "equipment": spec.equipment if spec.equipment is not None else catalog_equipment(spec.name),
    }
    if kind == "reps":
        exercise.update(sets=sets, reps=_per_set(spec.reps or 10, sets), rest_sec=spec.rest or 90)
        if spec.load is not None:
            exercise.update(load_each=_per_set(spec.load, sets), load_unit=spec.unit or weight_unit)
    elif kind == "hold":
        exercise.update(sets=sets, hold_sec=_per_set(spec.hold or 30, sets), rest_sec=spec.rest or 45)
    elif kind == "duration":
        exercise.update(duration_min=spec.minutes or 20)
        if spec.distance is not None:
            exercise.update(distance=spec.distance, distance_unit=spec.distance_unit or distance_unit)
    else:
        exercise.update(rounds=spec.rounds or 8, work_sec=spec.work or 20, rest_sec=spec.rest or 10)
    return exercise


def local_moment(logged: LoggedWorkout, zone: ZoneInfo, now: datetime) -> datetime:
    """When a seeded session happened: a day relative to today in the user's zone, at its local time,
    never later than a few minutes ago."""
    today = now.astimezone(zone).date()
    if logged.days_ago is not None:
        day = today - timedelta(days=logged.days_ago)
    else:
        year, month = today.year, today.month + (logged.month or 0)
        while month < 1:
            year, month = year - 1, month + 12
        first = date(year, month, 1)
        following = date(year + (month == 12), month % 12 + 1, 1)
        assert logged.day is not None
        day = first + timedelta(days=logged.day - 1) if logged.day > 0 else following + timedelta(logged.day)
    hour, minute = (int(part) for part in logged.time.split(":"))
    moment = datetime.combine(day, time(hour, minute), tzinfo=zone).astimezone(UTC)
    return min(moment, now - timedelta(minutes=5))


async def seed_user(db: Database, spec: UserSpec, now: datetime) -> str:
    """A new user with the scenario's starting state; returns the user id."""
    user_id = str(uuid.uuid4())
    zone = ZoneInfo(spec.timezone)
    async with db.transaction() as conn:
        await profiles.ensure_user(conn, user_id, display_name=spec.display_name)
        profile = {
            k: v
            for k, v in {
                "sex": spec.sex,
                "birth_date": spec.birth_date,
                "height_cm": spec.height_cm,
                "weight_kg": spec.weight_kg,
                "experience": spec.experience,
                "session_minutes": spec.session_minutes,
                "goal_statement": spec.goal_statement,
                "no_limitations": spec.no_limitations or None,
            }.items()
            if v is not None
        }
        if profile:
            await profiles.update_profile(conn, user_id, **profile)
        await settings_repo.update_user_settings(
            conn,
            user_id,
            weight_unit=spec.weight_unit,
            distance_unit=spec.distance_unit,
            timezone=spec.timezone,
            preferred_days=spec.preferred_days,
        )
        for loc in spec.locations:
            await locations.create_location(
                conn,
                user_id,
                loc.name,
                description=loc.description,
                equipment=[{"name": e} if isinstance(e, str) else e for e in loc.equipment],
                make_current=loc.current,
            )
        if spec.category_goals:
            await goals.set_category_goals(
                conn,
                user_id,
                [{"category": name, "percentage": pct} for name, pct in spec.category_goals.items()],
            )
        if spec.muscle_goals:
            await goals.set_muscle_goals(conn, user_id, spec.muscle_goals)
        for pref in spec.preferences:
            expires = now + timedelta(days=pref.expires_in_days) if pref.expires_in_days else None
            await preferences.create_preference(
                conn,
                user_id,
                type=pref.type,
                description=pref.description,
                guidance=pref.guidance or pref.description,
                expires_at=expires,
                delete_after_use=pref.delete_after_use,
                now=now,
            )
        entries: list[dict[str, Any]] = []
        for index, logged in enumerate(spec.history):
            start = local_moment(logged, zone, now)
            for offset, exercise in enumerate(logged.exercises):
                entries.append(
                    {
                        **history_entry(exercise, spec.weight_unit),
                        "performed_at": start + timedelta(minutes=8 * offset),
                        "session_id": f"{SEED_SESSION}-{index}",
                        "workout_id": f"seed-workout-{index}",
                    }
                )
        if entries:
            await history.log_exercises(
                conn,
                user_id,
                entries,
                default_weight_unit=spec.weight_unit,
                default_distance_unit=spec.distance_unit,
                now=now,
            )
        for item in spec.scheduled:
            day = now.astimezone(zone).date() + timedelta(days=item.days_ahead)
            hour, minute = (int(part) for part in item.time.split(":"))
            await schedule.schedule_workout(
                conn,
                user_id,
                scheduled_date=datetime.combine(day, time(hour, minute), tzinfo=zone),
                workout_type=item.workout_type,
                duration_minutes=item.duration_minutes,
            )
        for milestone in spec.milestones:
            await milestones.create_milestone(conn, user_id, **milestone.model_dump())
    if spec.health is not None:
        phone = PhoneHealthData(
            days=spec.health.days,
            platform=spec.health.platform,
            hrv_drop_days=spec.health.hrv_drop_days,
            long_run_yesterday=spec.health.long_run_yesterday,
            steps=False,
        )
        await phone.store(db, user_id, now, zone)
    return user_id


async def seed_training_plan(programs: ProgramDeps, user_id: str, spec: UserSpec, now: datetime) -> None:
    """The user's training plan, built inline (ready, with week 1) from today."""
    plan = spec.training_plan
    assert plan is not None
    days = list(plan.training_days)
    local_today = now.astimezone(ZoneInfo(spec.timezone)).date()
    if plan.include_today:
        days.append(local_today.strftime("%A"))
    days.extend((local_today + timedelta(days=n)).strftime("%A") for n in plan.day_offsets)
    request = PlanRequest.model_validate(
        {
            "weeks": plan.weeks,
            "days_per_week": None if days else plan.days_per_week,
            "training_days": sorted(set(days), key=WEEKDAYS.index) or None,
            "session_minutes": plan.session_minutes,
            "goal": plan.goal,
            "start_date": local_today - timedelta(days=plan.start_days_ago) if plan.start_days_ago else None,
        }
    )
    row = await request_plan(programs, user_id, request)
    if row["status"] != "ready":
        raise RuntimeError(f"the seeded training plan is {row['status']}: {row.get('error')}")


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


@dataclass
class Snapshot:
    """What is stored for the user (and the scenario's session) at one moment."""

    taken_at: datetime
    timezone: str
    weight_unit: str
    distance_unit: str
    history: list[dict[str, Any]]
    preferences: list[dict[str, Any]]
    category_goals: dict[str, float]
    muscle_goals: dict[str, float]
    locations: list[dict[str, Any]]
    schedule: list[dict[str, Any]]
    plans: list[dict[str, Any]]
    milestones: list[dict[str, Any]]
    current_workout: dict[str, Any] | None = None
    programs: list[dict[str, Any]] = field(default_factory=list)
    """Training plans (newest last), without their documents."""
    program_days: list[dict[str, Any]] = field(default_factory=list)
    """Their planned days, in date order."""
    calendar: list[dict[str, Any]] = field(default_factory=list)
    """The calendar as GET /workouts lists it (two weeks back to four ahead), filled in by the runner."""
    settings_row: dict[str, Any] = field(default_factory=dict)
    readiness: list[dict[str, Any]] = field(default_factory=list)
    """Readiness check-ins as GET /readiness lists them (newest first), filled in by the runner."""
    profile: dict[str, Any] = field(default_factory=dict)
    """The profile as GET /me/profile shows it, filled in by the runner."""

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def current_location(self) -> dict[str, Any] | None:
        return next((loc for loc in self.locations if loc["is_current"]), None)

    def domain(self, name: str) -> Any:
        """Comparable content of one domain (ids and timestamps of rows included: a replaced row counts
        as a change)."""
        match name:
            case "history":
                return self.history
            case "preferences":
                return self.preferences
            case "goals":
                return (self.category_goals, self.muscle_goals)
            case "locations":
                return [(loc["name"], loc["is_current"], loc["equipment"]) for loc in self.locations]
            case "schedule":
                return self.schedule
            case "plans":
                return self.plans
            case "milestones":
                return self.milestones
            case "settings":
                return self.settings_row
            case "programs":
                return (self.programs, self.program_days)
            case "readiness":
                return [r["id"] for r in self.readiness]
            case "profile":
                return self.profile
            case "current_workout":
                exercises = (self.current_workout or {}).get("exercises") or []
                return [{k: v for k, v in e.items() if k != "reasoning"} for e in exercises]
        raise ValueError(f"unknown domain {name}")


async def take_snapshot(
    db: Database, store: SessionStore, user_id: str, session_id: str | None, now: datetime
) -> Snapshot:
    uid = uuid.UUID(user_id)
    async with db.connection() as conn:

        async def rows(query: str) -> list[dict[str, Any]]:
            cur = await conn.execute(query, (uid,))
            return [plain(dict(r)) for r in await cur.fetchall()]

        settings_rows = await rows(
            "SELECT weight_unit, distance_unit, timezone, preferred_days FROM user_settings"
            " WHERE user_id = %s"
        )
        history_rows = await rows(
            "SELECT * FROM workout_history WHERE user_id = %s ORDER BY performed_at, created_at, id"
        )
        preference_rows = await rows(
            "SELECT * FROM preferences WHERE user_id = %s AND (expires_at IS NULL OR expires_at > now())"
            " ORDER BY created_at, id"
        )
        category_rows = await rows("SELECT category, weight FROM category_goals WHERE user_id = %s")
        muscle_rows = await rows("SELECT muscle, weight FROM muscle_goals WHERE user_id = %s")
        location_rows = await rows(
            "SELECT id, name, equipment, is_current FROM user_locations WHERE user_id = %s ORDER BY name"
        )
        schedule_rows = await rows(
            "SELECT * FROM scheduled_workouts WHERE user_id = %s ORDER BY scheduled_date, id"
        )
        plan_rows = await rows("SELECT * FROM workout_plans WHERE user_id = %s ORDER BY created_at, id")
        milestone_rows = await rows(
            "SELECT * FROM milestone_goals WHERE user_id = %s ORDER BY created_at, id"
        )
        program_rows = await rows(
            "SELECT id, status, error, title, weeks, days_per_week, session_minutes, training_days,"
            " start_date, active, updated_at FROM training_plans WHERE user_id = %s ORDER BY created_at, id"
        )
        program_day_rows = await rows(
            "SELECT id, plan_id, week_number, date, weekday, kind, workout, recovery_notes, updated_at"
            " FROM plan_workouts WHERE user_id = %s ORDER BY date, id"
        )
    current = await store.get_state(session_id, CURRENT_WORKOUT_KEY) if session_id else None
    settings_row = settings_rows[0] if settings_rows else {}
    return Snapshot(
        taken_at=now,
        timezone=str(settings_row.get("timezone") or "UTC"),
        weight_unit=str(settings_row.get("weight_unit") or "kg"),
        distance_unit=str(settings_row.get("distance_unit") or "km"),
        history=history_rows,
        preferences=preference_rows,
        category_goals={r["category"]: round(float(r["weight"]) * 100, 1) for r in category_rows},
        muscle_goals={r["muscle"]: round(float(r["weight"]) * 100, 1) for r in muscle_rows},
        locations=location_rows,
        schedule=schedule_rows,
        plans=plan_rows,
        milestones=milestone_rows,
        current_workout=current,
        programs=program_rows,
        program_days=program_day_rows,
        settings_row=settings_row,
    )


def scenario_rules(scenario: Scenario) -> tuple[set[str], set[str]]:
    """(muscles, exercise phrases) no workout of the scenario may load or contain, from the start."""
    muscles = set(scenario.rules.avoid_muscles)
    phrases = set(scenario.rules.avoid_exercises)
    for pref in scenario.user.preferences:
        muscles |= set(pref.avoid_muscles)
        phrases |= set(pref.avoid_exercises)
    return muscles, phrases
