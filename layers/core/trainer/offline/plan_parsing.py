"""The plans a message asks for, for the offline coach: a calendar plan (create_workout_plan), a training
plan ('a 12-week plan, 4 days a week'), and a change of circumstances for a week or a day of it
('travelling next week, hotel gym only')."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any, Literal

from trainer.domain.message_words import number
from trainer.offline.dates import named_weekdays, planned_day, resolve_date
from trainer.offline.references import named_location
from trainer.offline.vocabulary import BODY_PARTS, WEEKDAYS, duration_minutes, workout_type
from trainer.programs.tools import (
    ChangeTrainingDayArgs,
    ChangeTrainingWeekArgs,
    RequestTrainingPlanArgs,
)
from trainer.tools.calendar import CreateWorkoutPlanArgs


def parse_plan(text: str, today: date) -> CreateWorkoutPlanArgs:
    lowered = text.lower()
    weeks = 4
    if m := re.search(
        r"\b(\d{1,2}|one|two|three|four|five|six|eight|twelve)[- ]?(week|wk|month)s?\b", lowered
    ):
        n = number(m.group(1)) or 4
        weeks = n * (4 if m.group(2) == "month" else 1)
    days = [d.title() for d in WEEKDAYS if re.search(rf"\b{d}s?\b", lowered)]
    per_week = len(days) or 3
    if m := re.search(r"\b(\d|two|three|four|five|six)\s*(?:x|times|days|sessions|workouts)\s*"
                      r"(?:a|per|/|each)\s*week",
                      lowered):  # fmt: skip
        per_week = number(m.group(1)) or per_week
    start = (
        resolve_date(text, today)
        if re.search(r"\bstart", lowered)
        else today + timedelta(days=(7 - today.weekday()) % 7 or 7)
    )
    kind = workout_type(text)
    return CreateWorkoutPlanArgs(
        plan_name=f"{weeks}-week {kind.lower()} plan",
        start_date=start.isoformat(),
        duration_weeks=weeks,
        goal_description=text.strip()[:200],
        workouts_per_week=per_week,
        preferred_days=days or None,
        workout_types=[kind] if kind != "Full Body" else None,
    )


PLAN_LENGTH = re.compile(
    r"\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen)[- ]?(week|wk|month)s?\b",
    re.I,
)

PER_WEEK = re.compile(
    r"\b(\d|one|two|three|four|five|six|seven)\s*(?:x|times|days|sessions|workouts|trainings?)\s*"
    r"(?:a|per|/|each|every)\s*week",
    re.I,
)

NO_EQUIPMENT = re.compile(
    r"\b(no equipment|bodyweight|body weight|hotel room|nothing but my body|no gym)\b", re.I
)

ONLY_HAVE = re.compile(
    r"\bonly (?:have |got )?(?:a |an |some )?([a-z -]{3,30}?)(?=\s+(?:here|with me)\b|[.,!?;]|$)", re.I
)

HOTEL_GYM = re.compile(r"\bhotel gym\b", re.I)

HOTEL_GYM_EQUIPMENT = ["dumbbell", "bench", "treadmill", "stationary bike"]
"""What a hotel gym usually has, when the user has not saved one as a location."""


def plan_length_weeks(text: str) -> int | None:
    """'12-week' -> 12, 'three months' -> 12; None when the message names no length."""
    if m := PLAN_LENGTH.search(text):
        n = number(m.group(1).lower())
        if n:
            return n * (4 if m.group(2).lower() == "month" else 1)
    return None


def parse_training_plan(text: str) -> RequestTrainingPlanArgs:
    """'Make me a 12-week plan, 4 days a week': length (default 12 weeks), days a week or named weekdays,
    session length, and the user's words as the goal."""
    days = named_weekdays(text)
    per_week = number(m.group(1).lower()) if (m := PER_WEEK.search(text)) else None
    minutes = duration_minutes(text)
    return RequestTrainingPlanArgs(
        weeks=plan_length_weeks(text) or 12,
        days_per_week=None if days else per_week,
        training_days=days or None,
        session_minutes=minutes if minutes is not None and 15 <= minutes <= 180 else None,
        goal=text.strip()[:500],
    )


def change_fields(text: str, locations: Sequence[str]) -> dict[str, Any]:
    """A change of circumstances as the fields of a week or day change: a saved location the message
    names, else the equipment it implies ('hotel gym only', 'no equipment', 'only have dumbbells'),
    a session length, and the body parts an injury rules out."""
    lowered = text.lower()
    location = named_location(text, locations)
    equipment: list[str] | None = None
    if location is None:
        if NO_EQUIPMENT.search(text):
            equipment = ["bodyweight"]
        elif HOTEL_GYM.search(text):
            equipment = list(HOTEL_GYM_EQUIPMENT)
        elif m := ONLY_HAVE.search(lowered):
            thing = m.group(1).strip()
            if thing not in ("time", "gym") and not re.search(r"\d|min|hour", thing):
                equipment = [thing]
    minutes = duration_minutes(text)
    injured = bool(re.search(r"\b(hurts?|injur\w*|sore|pain\w*|strain\w*|tweak\w*|sprain\w*)\b", lowered))
    avoid = [part for part in BODY_PARTS if injured and re.search(rf"\b{part}s?\b", lowered)][:3]
    return {
        "reason": text.strip()[:300],
        "location": location,
        "equipment": equipment,
        "session_minutes": minutes if minutes is not None and 15 <= minutes <= 180 else None,
        "avoid": avoid,
    }


def parse_week_change(text: str, locations: Sequence[str]) -> ChangeTrainingWeekArgs:
    """'I'm travelling next week, hotel gym only' -> next week, the hotel gym's equipment."""
    week: Literal["current", "next"] = "current" if re.search(r"\bthis week\b", text, re.I) else "next"
    return ChangeTrainingWeekArgs(week=week, **change_fields(text, locations))


def parse_day_change(text: str, today: date, locations: Sequence[str]) -> ChangeTrainingDayArgs:
    day = planned_day(text, today)
    fields = change_fields(text, locations)
    return ChangeTrainingDayArgs(day=None if day == today else day.isoformat(), **fields)
