"""The packaged catalog's muscles are right for common exercises: the primary muscle is the one the
movement trains most, the secondary ones are muscles it really works, and none is one it does not."""

from __future__ import annotations

import pytest
from trainer.domain.catalog import load_catalog

SECONDARY = 0.1

CHECKED: tuple[tuple[str, set[str], set[str], set[str]], ...] = (
    # (exercise, primary is one of, also worked (share >= 0.1), not worked at all)
    ("Romanian Deadlift", {"Hamstrings", "Glutes"}, {"Hamstrings", "Glutes", "Lower Back"}, {"Calves"}),
    ("Stiff-Legged Dumbbell Deadlift", {"Hamstrings", "Glutes"}, {"Glutes", "Lower Back"}, {"Calves"}),
    ("Barbell Squat", {"Quadriceps"}, {"Glutes"}, {"Calves", "Chest"}),
    ("Goblet Squat", {"Quadriceps"}, {"Glutes"}, {"Calves", "Shoulders"}),
    ("Leg Press", {"Quadriceps"}, {"Glutes"}, {"Calves"}),
    ("Dumbbell Lunges", {"Quadriceps"}, {"Glutes"}, {"Calves"}),
    ("Split Squats", {"Quadriceps"}, {"Glutes"}, {"Calves"}),
    ("Barbell Hip Thrust", {"Glutes"}, {"Hamstrings"}, {"Calves"}),
    ("Barbell Bench Press - Medium Grip", {"Chest"}, {"Triceps", "Shoulders"}, {"Back", "Quadriceps"}),
    ("Dumbbell Bench Press", {"Chest"}, {"Triceps", "Shoulders"}, {"Back"}),
    ("Incline Dumbbell Press", {"Chest"}, {"Shoulders", "Triceps"}, {"Back"}),
    ("Pushups", {"Chest"}, {"Triceps", "Shoulders"}, {"Quadriceps"}),
    ("Standing Military Press", {"Shoulders"}, {"Triceps"}, {"Quadriceps"}),
    ("Side Lateral Raise", {"Shoulders"}, set(), {"Chest"}),
    ("Bent Over Barbell Row", {"Back"}, {"Biceps"}, {"Chest", "Quadriceps"}),
    ("One-Arm Dumbbell Row", {"Back"}, {"Biceps"}, {"Chest"}),
    ("Inverted Row", {"Back"}, {"Biceps"}, {"Chest"}),
    ("Pullups", {"Back"}, {"Biceps"}, {"Chest"}),
    ("Wide-Grip Lat Pulldown", {"Back"}, {"Biceps"}, {"Chest"}),
    ("Barbell Curl", {"Biceps"}, {"Forearms"}, {"Triceps"}),
    ("Hammer Curls", {"Biceps"}, {"Forearms"}, {"Triceps"}),
    ("Triceps Pushdown", {"Triceps"}, set(), {"Biceps"}),
    ("Lying Leg Curls", {"Hamstrings"}, set(), {"Quadriceps"}),
    ("Leg Extensions", {"Quadriceps"}, set(), {"Hamstrings"}),
    ("Standing Calf Raises", {"Calves"}, set(), {"Quadriceps"}),
    ("Plank", {"Abs"}, set(), {"Biceps"}),
    ("Barbell Shrug", {"Trapezius"}, set(), {"Quadriceps"}),
)


@pytest.mark.parametrize(("name", "primary", "secondary", "absent"), CHECKED, ids=[c[0] for c in CHECKED])
def test_common_exercise_muscles(name: str, primary: set[str], secondary: set[str], absent: set[str]) -> None:
    entry = load_catalog().get(name)
    assert entry is not None, name
    assert entry.primary_muscle in primary
    assert secondary <= entry.worked_muscles(SECONDARY)
    assert not absent & {m for m, _ in entry.muscles}
    assert sum(s for _, s in entry.muscles) == pytest.approx(1.0)


def test_inverted_row_needs_a_bar() -> None:
    """An inverted row hangs under a bar set in a rack: a bodyweight-only user cannot do it (and the
    bar carries no load, so the rack is all it needs)."""
    entry = load_catalog().get("Inverted Row")
    assert entry is not None and entry.equipment == ("rack",)


def test_nordic_curl_is_not_a_beginner_exercise() -> None:
    entry = load_catalog().get("Natural Glute Ham Raise")
    assert entry is not None and entry.level != "beginner"
