"""The words the offline coach's readers of a message share: weekdays, months, ordinals, goal categories,
muscle and body-part names, workout types, the number and unit patterns, a workout's type and length."""

from __future__ import annotations

import re

from trainer.domain.muscles import MUSCLES

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
            "eighth": 8, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6}  # fmt: skip

CATEGORIES = {
    "strength": "Strength", "hypertrophy": "Hypertrophy", "muscle": "Hypertrophy", "size": "Hypertrophy",
    "endurance": "Endurance", "cardio": "Cardio", "conditioning": "Conditioning", "mobility": "Mobility",
    "flexibility": "Flexibility", "power": "Power", "weight loss": "Weight Loss", "fat loss": "Fat Loss",
    "stability": "Stability", "balance": "Balance", "speed": "Speed", "general fitness": "General Fitness",
}  # fmt: skip

MUSCLE_ALIASES = {
    **{m.lower(): m for m in MUSCLES},
    "quads": "Quadriceps", "hams": "Hamstrings", "lats": "Back", "delts": "Shoulders", "traps": "Trapezius",
    "core": "Abs", "bis": "Biceps", "tris": "Triceps", "pecs": "Chest", "glute": "Glutes", "calf": "Calves",
}  # fmt: skip

BODY_PARTS = ("lower back", "shoulder", "knee", "back", "wrist", "elbow", "ankle", "hip", "neck", "hamstring",
              "calf", "foot", "groin", "chest")  # fmt: skip

WORKOUT_TYPES = (
    ("upper body", "Upper Body"), ("lower body", "Lower Body"), ("full body", "Full Body"), ("legs", "Legs"),
    ("leg", "Legs"), ("push", "Push"), ("pull", "Pull"), ("chest", "Chest"), ("back", "Back"),
    ("arms", "Arms"), ("shoulders", "Shoulders"), ("core", "Core"), ("hiit", "HIIT"), ("run", "Run"),
    ("cardio", "Cardio"), ("yoga", "Mobility"), ("mobility", "Mobility"), ("stretch", "Mobility"),
    ("strength", "Strength"),
)  # fmt: skip

NUM = r"\d+(?:\.\d+)?"

WEIGHT_UNITS = r"kg|kgs|kilos?|kilograms?|lbs?|pounds?"

TIME_UNITS = r"min|mins|minutes?|sec|secs|seconds?|s"


def workout_type(text: str) -> str:
    lowered = text.lower()
    for key, kind in WORKOUT_TYPES:
        if re.search(rf"\b{re.escape(key)}\b", lowered):
            return kind
    return "Full Body"


def duration_minutes(text: str) -> int | None:
    if m := re.search(r"(\d{1,3})\s*-?\s*(?:min|mins|minutes|minute)\b", text, re.IGNORECASE):
        return int(m.group(1))
    if re.search(r"\bhalf an hour\b", text, re.IGNORECASE):
        return 30
    if re.search(r"\ban hour\b|\b1 hour\b", text, re.IGNORECASE):
        return 60
    return None
