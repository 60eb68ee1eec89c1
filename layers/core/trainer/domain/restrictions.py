"""Movement restrictions a user states in words ('no jumping', 'nothing overhead', 'bad knees, no
impact'): each is a typed restriction with the exercise-name phrases it rules out, so every workout
the composer builds leaves those movements out, however the restriction was worded when it was saved."""

from __future__ import annotations

import re

_SHOULDER_PRESSES = (
    "arnold", "kettlebell press", "seated press", "seesaw press", "see saw press", "para press", "bradford",
    "cuban press", "clean and press", "anti gravity press", "behind neck", "seated dumbbell press",
    "standing dumbbell press", "alternating dumbbell press", "palm in one arm dumbbell press",
    "palms in dumbbell press", "standing barbell press",
)  # fmt: skip
"""The catalog's overhead presses named without 'overhead' or 'shoulder press' ('Arnold Dumbbell Press',
'Seated Dumbbell Press', 'Kettlebell Seesaw Press'), each by its own phrase: a bare 'dumbbell press'
would take the bench and incline presses too."""

RESTRICTED_PHRASES: dict[str, tuple[str, ...]] = {
    "jumping": ("jump", "plyo", "burpee", "bounding", "skater", "tuck jump", "box jump", "jumping jack"),
    "overhead": (
        "overhead",
        "military press",
        "shoulder press",
        "push press",
        "snatch",
        "jerk",
        "handstand",
        *_SHOULDER_PRESSES,
    ),
    "running": ("running", "sprint", "jogging", "treadmill run"),
}
"""A restriction -> the phrases of the exercise names it rules out (a name holding one, as words or run
together, is out: so no phrase may hide inside an unrelated name, such as 'hop' in 'Wood Chop' or 'run'
in 'Crunch')."""

_NO = (
    r"(?:no|nothing|not|never|without|avoid(?:ing)?|stay away from|can'?t do|cannot do|don'?t do|skip|"
    r"cut(?: out)?|drop|ditch|leave out|take out|get rid of)"
)
_STATED = {
    "jumping": re.compile(
        rf"\b{_NO}\b[^.?!]{{0,20}}\b(?:jump\w*|hops?|hopping|plyo\w*|impact|bounding)\b"
        r"|\b(?:jump\w*|plyo\w*|hopping)\b[^.?!]{0,12}\b(?:please no|is out|are out|not for me|kills? my)\b"
        r"|\blow[- ]impact only\b",
        re.I,
    ),
    "overhead": re.compile(
        rf"\b{_NO}\b[^.?!]{{0,20}}\b(?:overhead|over my head|above my head|above the head)\b", re.I
    ),
    "running": re.compile(rf"\b{_NO}\b[^.?!]{{0,12}}\b(?:running|runs|sprint\w*|jogging)\b", re.I),
}


def restrictions_in(text: str) -> list[str]:
    """The movement restrictions a text states, in RESTRICTED_PHRASES order."""
    return [name for name, pattern in _STATED.items() if pattern.search(text)]


def restricted_phrases(text: str) -> list[str]:
    """The exercise-name phrases the restrictions a text states rule out."""
    return [phrase for name in restrictions_in(text) for phrase in RESTRICTED_PHRASES[name]]
