"""Loads what the coach must know about a user before composing or checking a workout: units, time
zone, equipment at the current location (and the weights it lists), goals and distribution debt (other
apps' cardio minutes from the phone's health data counted toward the cardio goals),
active preferences (injuries among them), recent history, the recent sessions of each exercise
progression reads, and the profile's experience and usual session length.

One read per concern, all on one pooled connection; the composer and the workout checks share it
so the offline model's workouts and the model's workouts are judged by the same facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from trainer.domain.composer import ComposerRequest
from trainer.domain.distribution import DistributionRow, distribution_report
from trainer.domain.equipment import available_equipment
from trainer.domain.loading import LoadSteps
from trainer.domain.outside_workouts import with_outside_cardio
from trainer.domain.prescriptions import leading_style
from trainer.domain.progression import ENTRIES_PER_EXERCISE, WINDOW_DAYS, exercise_histories
from trainer.domain.recovery import recovering_muscles
from trainer.domain.workout_checks import UserTrainingContext
from trainer.domain.workout_grouping import zone
from trainer.services.locations import weighed_items
from trainer.services.user_data import UserDataService
from trainer.store.db import Database

HISTORY_DAYS = 60
HISTORY_LIMIT = 300
EXPERIENCE_LEVELS = {"beginner": "beginner", "intermediate": "intermediate", "advanced": "expert"}
"""The profile's experience as the catalog's exercise level."""


@dataclass(frozen=True)
class TrainingFacts:
    weight_unit: str
    distance_unit: str
    equipment: set[str] | None
    category_goals: dict[str, float]
    muscle_goals: dict[str, float]
    category_debt: list[DistributionRow]
    muscle_debt: list[DistributionRow]
    preferences: list[dict[str, Any]]
    history: list[dict[str, Any]]
    now: datetime
    timezone: str = "UTC"
    location_items: list[dict[str, Any]] = field(default_factory=list)
    """The current location's equipment rows, with the weights they list."""
    progression_history: list[dict[str, Any]] = field(default_factory=list)
    """The newest loaded sessions of each exercise (history.recent_loaded_by_exercise)."""
    experience: str | None = None
    """The profile's experience (beginner, intermediate, advanced); None: not said."""
    session_minutes: int | None = None
    """The profile's usual session length; None: not said."""

    def load_steps(self) -> LoadSteps:
        return LoadSteps.for_unit(self.weight_unit, self.location_items)

    def composer_request(self, request_text: str) -> ComposerRequest:
        """The composer's request, the profile turned into its constraints: the experience bounds the
        exercises' level (advanced is the catalog's expert), the usual session length is the default
        time and the longest session (injuries come as preferences)."""
        return ComposerRequest(
            request_text=request_text,
            weight_unit=self.weight_unit,
            distance_unit=self.distance_unit,
            available_equipment=self.equipment if self.equipment is not None else available_equipment([]),
            category_goals=self.category_goals,
            muscle_goals=self.muscle_goals,
            category_debt=self.category_debt,
            muscle_debt=self.muscle_debt,
            preferences=self.preferences,
            history=self.history,
            now=self.now,
            progression_history=self.progression_history,
            load_steps=self.load_steps(),
            timezone=self.timezone,
            experience_level=EXPERIENCE_LEVELS.get(self.experience or "", "intermediate"),
            preferred_minutes=self.session_minutes,
            session_cap_minutes=self.session_minutes,
        )

    def check_context(self, requested_muscles: set[str] | None = None) -> UserTrainingContext:
        return UserTrainingContext(
            available_equipment=self.equipment,
            recovering_muscles=recovering_muscles(self.history, self.now),
            preferences=self.preferences,
            weight_unit=self.weight_unit,
            distance_unit=self.distance_unit,
            requested_muscles=requested_muscles or set(),
            now=self.now,
            exercise_history=exercise_histories(
                self.progression_history, self.weight_unit, zone(self.timezone)
            ),
            load_steps=self.load_steps(),
            goal_style=leading_style(self.category_goals),
        )


async def load_training_facts(db: Database, user_id: str, now: datetime) -> TrainingFacts:
    async with UserDataService(db).for_user(user_id).reading() as data:
        user_settings = await data.settings.get()
        profile = await data.profile.get() or {}
        current = await data.locations.current()
        category_goals = await data.goals.category_weights()
        muscle_goals = await data.goals.muscle_weights()
        totals = await data.history.distribution()
        outside_cardio = await data.health.cardio_minutes()
        prefs = await data.preferences.active(now)
        recent = await data.history.recent(days_back=HISTORY_DAYS, limit=HISTORY_LIMIT, now=now)
        sessions = await data.history.recent_loaded_by_exercise(
            days_back=WINDOW_DAYS, per_exercise=ENTRIES_PER_EXERCISE, now=now
        )
    return TrainingFacts(
        weight_unit=user_settings.weight_unit,
        distance_unit=user_settings.distance_unit,
        equipment=available_equipment(current.get("equipment") or []) if current else None,
        category_goals=category_goals,
        muscle_goals=muscle_goals,
        category_debt=distribution_report(
            category_goals,
            with_outside_cardio(_floats(totals.get("category", {})), category_goals, outside_cardio),
        ),
        muscle_debt=distribution_report(muscle_goals, _floats(totals.get("muscle", {}))),
        preferences=[dict(p) for p in prefs],
        history=[dict(r) for r in recent],
        now=now,
        timezone=user_settings.timezone or "UTC",
        location_items=weighed_items(current),
        progression_history=[dict(r) for r in sessions],
        experience=profile.get("experience"),
        session_minutes=profile.get("session_minutes"),
    )


def _floats(values: dict[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in values.items()}
