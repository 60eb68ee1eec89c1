"""The pure side of logging: loads per set (a single load is the top set), the entry a planned exercise
becomes, and the whole entry a correction produces."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from trainer.tools.base import ToolError
from trainer.tools.log_corrections import AdjustLoggedExerciseArgs, corrected_entry
from trainer.tools.logged_entries import actual_loads
from trainer.tools.logging import planned_entry

AT = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


def test_a_single_load_is_the_top_set() -> None:
    assert actual_loads(3, planned=[60, 60, 65]) == [60, 60, 65]
    assert actual_loads(3, load=65, planned=[60, 60, 65]) == [60, 60, 65]
    assert actual_loads(3, load=70, planned=[60, 60, 65]) == [70, 70, 70]
    assert actual_loads(4, planned=[60, 65]) == [60, 65, 65, 65]
    assert actual_loads(3, load_each=[60, 62.5, 65]) == [60, 62.5, 65]
    assert actual_loads(3, load_each=[40]) == [40, 40, 40]
    assert actual_loads(2) is None
    with pytest.raises(ToolError, match=r"one load per set \(3\), got 2"):
        actual_loads(3, load_each=[60, 65])
    with pytest.raises(ToolError, match="heaviest set"):
        actual_loads(3, load=60, load_each=[60, 60, 65])


def planned(**overrides: Any) -> dict[str, Any]:
    return {
        "exercise_name": "Bench Press",
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 10, 8],
        "load_each": [60, 60, 65],
        "load_unit": "kg",
        "rest_sec": 90,
        "muscles_utilized": [{"muscle": "Chest", "share": 1.0}],
        "goals_addressed": [{"goal": "Strength", "share": 1.0}],
        **overrides,
    }


def test_a_planned_pyramid_is_logged_per_set() -> None:
    entry = planned_entry(planned(), load=65, weight_unit="kg", default_distance_unit="km")
    assert (entry["load_each"], entry["load_unit"], entry["sets"]) == ([60, 60, 65], "kg", 3)
    four = planned_entry(planned(), load_each=[60, 60, 65, 70], weight_unit="kg", default_distance_unit="km")
    assert four["sets"] == 4 and four["reps"] == [10, 10, 8, 8] and four["load_each"] == [60, 60, 65, 70]
    pounds = planned_entry(planned(), load=135, load_unit="lbs", weight_unit="kg", default_distance_unit="km")
    assert (pounds["load_each"], pounds["load_unit"]) == ([135, 135, 135], "lbs")
    bodyweight = planned_entry(
        planned(load_each=None, load_unit=None), weight_unit="lbs", default_distance_unit="km"
    )
    assert "load_each" not in bodyweight


def logged(**overrides: Any) -> dict[str, Any]:
    return {
        "id": "00000000-0000-4000-8000-000000000001",
        "performed_at": AT,
        "exercise_name": "Bench Press",
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 10, 10],
        "load_each": [60, 60, 60],
        "load_unit": "kg",
        "hold_sec": None,
        "duration_min": None,
        "distance": None,
        "distance_unit": None,
        "rounds": None,
        "work_sec": None,
        "rest_sec": 90,
        "rpe": 8,
        "muscles": [{"muscle": "Chest", "share": 0.7}, {"muscle": "Triceps", "share": 0.3}],
        "goals": [{"goal": "Hypertrophy", "share": 1.0}],
        "session_id": "s1",
        "workout_id": "workout_1",
        "notes": None,
        "created_at": AT,
        **overrides,
    }


def correct(**fields: Any) -> tuple[dict[str, Any], str | None]:
    args = AdjustLoggedExerciseArgs.model_validate({"exercise_id": "h1", **fields})
    return corrected_entry(logged(), args, "kg")


def test_a_correction_keeps_what_it_does_not_name() -> None:
    entry, matched = correct(load_each=[60, 60, 65])
    assert matched is None
    assert entry["load_each"] == [60, 60, 65] and entry["reps"] == [10, 10, 10] and entry["rpe"] == 8
    assert entry["muscles"] == logged()["muscles"] and entry["goals"] == logged()["goals"]
    assert (entry["session_id"], entry["workout_id"], entry["performed_at"]) == ("s1", "workout_1", AT)
    entry, _ = correct(sets=4)
    assert entry["reps"] == [10, 10, 10, 10] and entry["load_each"] == [60, 60, 60, 60]
    entry, _ = correct(load_unit="lbs")
    assert entry["load_each"] == [60, 60, 60] and entry["load_unit"] == "lbs"


def test_another_exercise_brings_its_own_muscles_and_goals() -> None:
    entry, matched = correct(exercise_name="Pullups")
    assert matched == "Pullups"
    assert entry["muscles"] == [{"muscle": "Back", "share": 0.6}, {"muscle": "Biceps", "share": 0.4}]
    assert entry["goals"] == [{"goal": "Strength", "share": 1.0}]
    same, matched = correct(exercise_name="bench press", rpe=9)
    assert (
        matched is None and same["muscles"] == logged()["muscles"] and same["exercise_name"] == "bench press"
    )
    given, _ = correct(exercise_name="Zorbing", muscles_utilized=[{"muscle": "Abs", "share": 1.0}])
    assert given["muscles"] == [{"muscle": "Abs", "share": 1.0}]


def test_another_type_drops_the_old_types_fields() -> None:
    entry, _ = correct(exercise_name="Plank", exercise_type="hold", hold_sec=[60, 45])
    assert entry["hold_sec"] == [60, 45] and entry["sets"] == 2
    assert entry["reps"] is None and entry["load_each"] is None and entry["load_unit"] is None
    with pytest.raises(ToolError, match="hold exercise needs hold_sec"):
        correct(exercise_type="hold")
    with pytest.raises(ToolError, match="distance not part of a reps exercise"):
        correct(distance=5)
