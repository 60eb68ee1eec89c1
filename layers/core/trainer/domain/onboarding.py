"""Onboarding (docs/api.md#onboarding-and-profile): which profile facts the coach still lacks, in the order it
asks for them, and the one question (with its options) it asks next. Pure: the callers read the profile row,
the training days and the active injuries, and show the question (the chat agent's data, the update_profile
tool's result, the offline coach's reply)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

ProfileField = Literal[
    "experience", "goals", "available_days", "session_minutes", "injuries", "sex", "age", "body_weight"
]  # fmt: skip


@dataclass(frozen=True)
class ProfileQuestion:
    field: ProfileField
    label: str
    """How a reply names the fact ('training experience')."""
    question: str
    options: tuple[str, ...] = ()
    """Quick answers; none where the answer is a number (age, body weight)."""


QUESTIONS: tuple[ProfileQuestion, ...] = (
    ProfileQuestion(
        "experience",
        "training experience",
        "How would you describe your training experience?",
        ("Beginner (under a year)", "Intermediate (1-3 years)", "Advanced (3+ years)"),
    ),
    ProfileQuestion(
        "goals",
        "goals",
        "What are you training for? Tell me in your own words, or pick one.",
        ("Build muscle", "Get stronger", "Lose fat", "Improve endurance", "General fitness"),
    ),
    ProfileQuestion(
        "available_days",
        "training days",
        "Which days of the week can you train?",
        (
            "Monday, Wednesday, Friday",
            "Tuesday, Thursday, Saturday",
            "Monday to Friday",
            "Saturday and Sunday",
        ),
    ),
    ProfileQuestion(
        "session_minutes",
        "session length",
        "How long can a training session be?",
        ("30 minutes", "45 minutes", "60 minutes", "90 minutes"),
    ),
    ProfileQuestion(
        "injuries",
        "injuries or limitations",
        "Any injuries or limitations I should work around?",
        ("No injuries", "Knee", "Lower back", "Shoulder"),
    ),
    ProfileQuestion(
        "sex", "sex", "What's your sex? It helps me set starting loads.", ("Male", "Female", "Other")
    ),
    ProfileQuestion("age", "age", "How old are you? Just the number, for example 34."),
    ProfileQuestion("body_weight", "body weight", "What do you weigh? For example 80 kg or 176 lb."),
)
"""In the order the coach asks: what shapes the plan first, body stats last."""
BY_FIELD: dict[ProfileField, ProfileQuestion] = {q.field: q for q in QUESTIONS}


def whole_years(since: date, today: date) -> int:
    return today.year - since.year - ((today.month, today.day) < (since.month, since.day))


def profile_age(profile: Mapping[str, Any] | None, today: date) -> int | None:
    """Whole years today: from the birth date, else the age the user said plus the years since."""
    if not profile:
        return None
    if profile.get("birth_date"):
        return whole_years(profile["birth_date"], today)
    if profile.get("stated_age") is not None and profile.get("stated_age_on"):
        return int(profile["stated_age"]) + max(0, whole_years(profile["stated_age_on"], today))
    return None


def missing_fields(
    profile: Mapping[str, Any] | None, available_days: list[str], injuries: int
) -> list[ProfileField]:
    """The facts still unknown, in asking order. Injuries are known once one is on file or the user
    said there are none (`no_limitations`)."""
    row = profile or {}
    known: dict[ProfileField, bool] = {
        "experience": bool(row.get("experience")),
        "goals": bool(row.get("goal_statement")),
        "available_days": bool(available_days),
        "session_minutes": row.get("session_minutes") is not None,
        "injuries": injuries > 0 or bool(row.get("no_limitations")),
        "sex": bool(row.get("sex")),
        "age": bool(row.get("birth_date")) or row.get("stated_age") is not None,
        "body_weight": row.get("weight_kg") is not None,
    }
    return [q.field for q in QUESTIONS if not known[q.field]]


def next_question(missing: list[ProfileField]) -> ProfileQuestion | None:
    """The one question to ask next (None: the profile is complete)."""
    return BY_FIELD[missing[0]] if missing else None
