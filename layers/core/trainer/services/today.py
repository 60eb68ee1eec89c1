"""The day's workout in the user's time zone, in one read for the app's launch (GET /today):

1. the active plan's day (a training day with its workout, or a rest day with its recovery notes);
2. else the first workout still scheduled that local day (the calendar, trainer.services.schedule);
3. else one workout composed for the day the first time it is asked for (the app's first
   open shows a workout at once) and kept, so every later call that day answers the same workout.

The day's workout is then fitted to the day's readiness (trainer.services.day_readiness: today's check-in,
else the phone's health data; other apps' long leg sessions), on every read, so a check-in or a night's
data that arrives later in the day changes what the next read answers; `adjustment` says what changed and
why (None: nothing did).

Composing and wording are ports (wired by trainer.container): the composer is the offline coach's,
the one `generate_workout` uses offline (trainer.offline.planner.OfflineCoach: the catalog composer on
the user's equipment, goals, history and preferences, no model call), the texts are the program
pipeline's day messages (at most 1,600 characters).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from typing import Any, Literal, Protocol

from pydantic import ValidationError

from trainer.domain.composer import ComposedWorkout, ComposerError
from trainer.domain.delivery_window import instant
from trainer.domain.readiness import Level
from trainer.domain.workout import Workout
from trainer.domain.workout_grouping import zone
from trainer.services.day_readiness import FitBasis, current_place, day_readiness, fit_to_day
from trainer.services.errors import UserDataError
from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.services.user_data import UserData
from trainer.store.repositories import settings as settings_repo
from trainer.store.repositories import today as repo

TodaySource = Literal["plan", "scheduled", "generated"]
GENERATED_REQUEST = ""
"""What the composed workout is asked for: nothing in particular (goals, debt and recovery decide)."""


class WorkoutComposer(Protocol):
    async def compose_workout(self, user_id: str, request_text: str) -> ComposedWorkout:
        """A workout for the user now, and what it relaxed; ComposerError when none fits."""
        ...


class DayMessages(Protocol):
    def plan_day_text(self, day: Row) -> str:
        """The text of a planned day (training or rest) that has none stored yet."""
        ...

    def workout_text(self, workout: Workout) -> str: ...

    def scheduled_text(self, scheduled: Row, workout: Workout | None) -> str: ...


@dataclass(frozen=True)
class TodayAdjustment:
    """What the day's readiness changed in its workout, and why."""

    source: FitBasis
    level: Level | None
    """The readiness level (None: only other apps' workouts changed the day)."""
    reasons: list[str]
    changes: list[str]
    explanation: str


@dataclass(frozen=True)
class Today:
    date: date
    timezone: str
    source: TodaySource
    id: uuid.UUID
    """The planned day's, the scheduled workout's or the generated workout's id."""
    kind: Literal["training", "rest"]
    title: str
    workout: Workout | None
    recovery_notes: str | None
    message: str
    plan_id: uuid.UUID | None = None
    week_number: int | None = None
    scheduled_at: datetime | None = None
    adjustment: TodayAdjustment | None = None


class TodayService:
    def __init__(self, scope: UserScope, composer: WorkoutComposer, messages: DayMessages) -> None:
        self._scope = scope
        self._composer = composer
        self._messages = messages

    async def today(self, now: datetime) -> Today:
        """UserDataError when the day holds nothing and no workout fits the user's constraints."""
        return await self._fitted(await self._day(now), now)

    async def _fitted(self, today: Today, now: datetime) -> Today:
        if today.kind != "training" or today.workout is None:
            return today
        async with UserData(self._scope).reading() as reads:
            place = await current_place(reads)
            day = await day_readiness(reads, now)
        fit = fit_to_day(today.workout, day, place)
        if fit.basis is None or fit.explanation is None:
            return today
        readiness = day.assessment if fit.basis != "other_workouts" else None
        adjustment = TodayAdjustment(
            source=fit.basis,
            level=readiness.level if readiness is not None else None,
            reasons=list(readiness.reasons) if readiness is not None else [],
            changes=fit.changes,
            explanation=fit.explanation,
        )
        return replace(today, workout=fit.workout, adjustment=adjustment)

    async def _day(self, now: datetime) -> Today:
        user = self._scope.user
        async with self._scope.use() as conn:
            timezone = str((await settings_repo.get_user_settings(conn, user)).get("timezone") or "UTC")
            tz = zone(timezone)
            day = now.astimezone(tz).date()
            planned = await repo.active_plan_day(conn, user, day)
            scheduled: list[Row] = []
            generated = None
            if planned is None:
                start = instant(day, time(0), tz)
                end = instant(day + timedelta(days=1), time(0), tz)
                scheduled = await repo.scheduled_between(conn, user, start, end)
                if not scheduled:
                    generated = await repo.daily_workout(conn, user, day)
        if planned is not None:
            return self._planned(planned, timezone)
        if scheduled:
            return self._scheduled(scheduled[0], day, timezone)
        if generated is None:
            generated = await self._generate(day)
        return Today(
            date=day,
            timezone=timezone,
            source="generated",
            id=generated["id"],
            kind="training",
            title=generated["title"] or "Today's workout",
            workout=Workout.model_validate(generated["workout"]),
            recovery_notes=None,
            message=generated["message"],
        )

    def _planned(self, row: Row, timezone: str) -> Today:
        workout = Workout.model_validate(row["workout"]) if row.get("workout") else None
        title = (
            (workout.title if workout else None)
            or row.get("focus")
            or ("Rest day" if row["kind"] == "rest" else "Today's workout")
        )
        return Today(
            date=row["date"],
            timezone=timezone,
            source="plan",
            id=row["id"],
            kind=row["kind"],
            title=title,
            workout=workout,
            recovery_notes=row.get("recovery_notes"),
            message=row.get("message") or self._messages.plan_day_text(row),
            plan_id=row["plan_id"],
            week_number=row.get("week_number"),
        )

    def _scheduled(self, row: Row, day: date, timezone: str) -> Today:
        workout = scheduled_workout(row)
        return Today(
            date=day,
            timezone=timezone,
            source="scheduled",
            id=row["id"],
            kind="training",
            title=(workout.title if workout else None) or row["workout_type"],
            workout=workout,
            recovery_notes=None,
            message=self._messages.scheduled_text(row, workout),
            plan_id=row.get("plan_id"),
            scheduled_at=row["scheduled_date"],
        )

    async def _generate(self, day: date) -> Row:
        try:
            composed = await self._composer.compose_workout(str(self._scope.user), GENERATED_REQUEST)
        except ComposerError as exc:
            raise UserDataError(str(exc)) from None
        workout = composed.workout
        message = " ".join(filter(None, (composed.relaxed_words(), self._messages.workout_text(workout))))
        async with self._scope.use(write=True) as conn:
            return await repo.keep_daily_workout(
                conn,
                self._scope.user,
                day,
                title=workout.title,
                workout=workout.model_dump(mode="json", exclude_none=True),
                message=message,
            )


def scheduled_workout(row: Row) -> Workout | None:
    """A scheduled workout's exercises as a workout, when they make one (the calendar keeps free-form
    exercises: a type and notes are enough to schedule)."""
    exercises: Any = row.get("exercises") or []
    if not exercises:
        return None
    try:
        return Workout.model_validate({"title": str(row["workout_type"])[:120], "exercises": exercises})
    except ValidationError:
        return None
