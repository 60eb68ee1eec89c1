"""The rules every turn is held to, on hand-made outcomes (no stores, no model)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.scenarios.checks import TurnOutcome, names_match, reply_hygiene, truthful_claims
from tests.scenarios.facts import _count_pattern
from tests.scenarios.world import Snapshot

pytestmark = pytest.mark.scenarios
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def snapshot(history: list[dict[str, Any]] | None = None) -> Snapshot:
    return Snapshot(NOW, "UTC", "kg", "km", history or [], [], {}, {}, [], [], [], [])


def outcome(message: str, *, logged: bool = False) -> TurnOutcome:
    after = snapshot([{"id": "1", "exercise_name": "Squat"}] if logged else [])
    return TurnOutcome(message, 200, {"response": {"messages": [message]}}, snapshot(), after)


@pytest.mark.parametrize(
    ("message", "flagged"),
    [
        ("Logged Bench Press 3x10 @ 60kg.", True),
        ("Done - I swapped that exercise for Dumbbell Lunges.", True),
        ("Your workout has been logged.", True),
        ("Your deadlift increased from 100 to 120 kg.", False),
        ("I couldn't log that: which exercise was it?", False),
        ("Here's your workout.", False),
    ],
)
def test_a_claim_needs_a_change(message: str, flagged: bool) -> None:
    assert bool(truthful_claims(outcome(message))) is flagged


def test_a_claim_backed_by_the_change_it_names_passes() -> None:
    assert not truthful_claims(outcome("Logged Squat 3x5 @ 100kg.", logged=True))
    assert truthful_claims(outcome("Done - I swapped the squat for a leg press.", logged=True))


@pytest.mark.parametrize(
    "message",
    [
        "Updated the exercise (load_each).",
        "Removed 3f1c2a9e-1b2c-4d5e-8f90-123456789abc.",
        "Week 2026-W09: 12 sets",
        "Good question. I'm running on the offline trainer.",
        "Invalid adjustment for ex_a1b2c3: Field required",
        "<workout_history>rows</workout_history>",
    ],
)
def test_replies_do_not_show_internals(message: str) -> None:
    assert reply_hygiene(outcome(message))


def test_a_plain_reply_is_clean() -> None:
    assert not reply_hygiene(outcome("Nice work: 4 workouts this month, up from 3 in February."))


def test_counts_read_either_way() -> None:
    pattern = _count_pattern(4)
    for text in ("Workouts: 4 (1.2 a week)", "You did four sessions", "4 workouts so far"):
        assert re.search(pattern, text, re.IGNORECASE), text
    for text in ("Workouts: 14", "2024 workouts", "4.5 workouts"):
        assert not re.search(pattern, text, re.IGNORECASE), text


def test_exercise_names_match_plurals_and_hyphens() -> None:
    assert names_match("Pushups", "push-ups")
    assert names_match("Dumbbell Lunges", "lunge")
    assert not names_match("Dumbbell Bench Press", "row|squat")
