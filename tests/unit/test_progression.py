from datetime import UTC, datetime

import pytest
from trainer.domain.progression import next_load, starting_load, suggest_from_history, was_successful


@pytest.mark.parametrize(
    ("last", "unit", "expected"),
    [
        (60, "kg", 62.5),
        (100, "kg", 105.0),
        (62, "kg", 65.0),
        (135, "lbs", 140.0),
        (225, "lbs", 235.0),
        (20, "kg", 22.5),
    ],
)
def test_success_adds_a_modest_step_rounded_to_plates(last: float, unit: str, expected: float) -> None:
    assert next_load(last, unit, True) == expected


def test_failure_keeps_then_deloads() -> None:
    assert next_load(100, "kg", False) == 100.0
    assert next_load(100, "kg", False, consecutive_failures=2) == 90.0
    assert next_load(137, "lbs", False) == 135.0


def test_bodyweight_stays_none() -> None:
    assert next_load(None, "kg", True) is None


def test_success_rules() -> None:
    assert was_successful({"reps": [5, 5, 5], "rpe": 8})
    assert not was_successful({"reps": [5, 5], "rpe": 9.5})
    assert not was_successful({"reps": [5, 4, 3]}, target_reps=[5, 5, 5])


def test_history_in_other_unit_is_converted_and_rounded() -> None:
    history = [
        {
            "exercise_name": "Bench Press",
            "performed_at": datetime(2025, 1, 1, tzinfo=UTC),
            "load_each": [100.0],
            "load_unit": "lbs",
            "reps": [5],
            "rpe": 8,
        },
        {
            "exercise_name": "bench press",
            "performed_at": datetime(2025, 1, 8, tzinfo=UTC),
            "load_each": [60, 60],
            "load_unit": "kg",
            "reps": [5, 5],
            "rpe": 9.5,
        },
    ]
    held = suggest_from_history(history, "Bench Press", "kg")
    assert held is not None and held.load == 60.0 and held.success is False
    lbs = suggest_from_history(history[:1], "Bench Press", "lbs")
    assert lbs is not None and lbs.load == 105.0


def test_conservative_start_by_level() -> None:
    assert starting_load(["barbell", "bench"], "beginner", "kg") == 20.0
    assert starting_load(["dumbbell"], "intermediate", "lbs") == 15.0
    assert starting_load(["pull-up bar"], "expert", "kg") is None
