"""The offline coach's planner (`OfflinePlanner` on the domain database): real workouts and replacements
from the catalog composer, the session's current workout, what the policy reads about the user
(trainer.offline.records) and single exercises prescribed for this user (add_exercise_to_workout)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from trainer.domain.composer import (
    ComposedWorkout,
    ComposerError,
    compose_replacement,
    compose_session,
    prescribe_exercise,
)
from trainer.domain.exercise_search import search_exercises
from trainer.domain.loading import LoadSteps
from trainer.domain.onboarding import missing_fields
from trainer.domain.progression import (
    ENTRIES_PER_EXERCISE,
    WINDOW_DAYS,
    established_range,
    exercise_histories,
    progression_targets,
)
from trainer.domain.workout import Exercise
from trainer.domain.workout_grouping import zone
from trainer.offline.records import LocationBrief, UserRecords
from trainer.services.models import Preference
from trainer.services.rows import plain
from trainer.services.user_data import UserDataService
from trainer.sources.training_facts import load_training_facts
from trainer.store.db import Database
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.store.ports import SessionStore
from trainer.tools.calendar import ScheduledWorkout
from trainer.tools.goals import GoalEntry
from trainer.tools.logged_entries import LoggedExercise

LOGGED_DAYS = 30
LOGGED_LIMIT = 60
UPCOMING_DAYS = 60
MAX_TARGETS = 30


def _utcnow() -> datetime:
    return datetime.now(UTC)


class OfflineCoach:
    """`trainer.offline.OfflinePlanner` on the domain database and the session store."""

    def __init__(self, db: Database, store: SessionStore, clock: Callable[[], datetime] = _utcnow) -> None:
        self._records_db = db
        self._store = store
        self._now = clock

    async def compose_workout(self, user_id: str, request_text: str) -> ComposedWorkout:
        facts = await load_training_facts(self._records_db, user_id, self._now())
        return compose_session(facts.composer_request(request_text))

    async def current_workout(self, session_id: str) -> dict[str, Any] | None:
        return await self._store.get_state(session_id, CURRENT_WORKOUT_KEY)

    async def compose_replacement(
        self, user_id: str, session_id: str, exercise: dict[str, Any], request_text: str
    ) -> Exercise:
        facts = await load_training_facts(self._records_db, user_id, self._now())
        current = await self.current_workout(session_id) or {}
        in_workout = [str(e.get("exercise_name", "")) for e in current.get("exercises", [])]
        old = Exercise.model_validate(exercise)
        return compose_replacement(facts.composer_request(request_text), old, avoid_names=in_workout)

    async def user_records(self, user_id: str) -> UserRecords:
        now = self._now()
        async with UserDataService(self._records_db).for_user(user_id).reading() as data:
            user_settings = await data.settings.get()
            profile = await data.profile.get()
            logged = await data.history.recent(days_back=LOGGED_DAYS, limit=LOGGED_LIMIT, now=now)
            active = await data.preferences.active(now)
            upcoming = await data.schedule.upcoming(days_ahead=UPCOMING_DAYS, now=now)
            category_rows = await data.goals.categories()
            places = await data.locations.all()
            loaded = await data.history.recent_loaded_by_exercise(
                days_back=WINDOW_DAYS, per_exercise=ENTRIES_PER_EXERCISE, now=now
            )
        tz = zone(user_settings.timezone or "UTC")
        unit = user_settings.weight_unit
        current = next((p for p in places if p["is_current"]), None)
        items = [dict(i) for i in (current or {}).get("equipment") or [] if isinstance(i, dict)]
        steps = LoadSteps.for_unit(unit, items)
        rows = [LoggedExercise.from_row(r) for r in logged]
        rows.sort(key=lambda r: (r.created_at, r.performed_at), reverse=True)
        return UserRecords(
            weight_unit=unit,
            distance_unit=user_settings.distance_unit,
            timezone=user_settings.timezone or "UTC",
            logged=rows,
            preferences=[Preference.from_row(p) for p in active],
            upcoming=[
                ScheduledWorkout.model_validate(
                    {**plain(w), "date": w["scheduled_date"].astimezone(tz).date().isoformat()}
                )
                for w in upcoming
                if w["scheduled_date"] >= now
            ],
            category_goals=[
                GoalEntry(
                    name=g["category"],
                    description=g["description"],
                    percentage=round(float(g["weight"]) * 100, 1),
                )
                for g in category_rows
            ],
            locations=[LocationBrief(name=p["name"], current=bool(p["is_current"])) for p in places],
            equipment=plain(items),
            targets=progression_targets(
                exercise_histories(loaded, unit, tz), steps, established_range, limit=MAX_TARGETS
            ),
            profile_missing=missing_fields(
                profile, user_settings.preferred_days, sum(p["type"] == "injury" for p in active)
            ),
        )

    async def compose_exercise(self, user_id: str, name: str) -> Exercise:
        """The catalog exercise a name means that the current location's equipment allows, prescribed
        like a composed one (progression loads); ComposerError when none fits."""
        facts = await load_training_facts(self._records_db, user_id, self._now())
        found = search_exercises(query=name, available=facts.equipment, limit=1)
        if not found:
            where = "the equipment you have here" if facts.equipment is not None else "the exercise catalog"
            raise ComposerError(f"I couldn't find {name} that fits {where}.")
        return prescribe_exercise(facts.composer_request(name), found[0], requested=True)
