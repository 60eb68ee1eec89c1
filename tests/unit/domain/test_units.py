import pytest
from trainer.domain.loading import LoadSteps, convert_workout
from trainer.domain.units import (
    convert_distance,
    convert_pace,
    convert_weight,
    kg_to_lbs,
    lbs_to_kg,
    weight_unit,
)
from trainer.domain.workout import Workout


def _workout() -> Workout:
    base = {
        "muscles_utilized": [{"muscle": "Chest", "share": 1.0}],
        "goals_addressed": [{"goal": "Strength", "share": 1.0}],
        "reasoning": "r",
    }
    return Workout.model_validate(
        {
            "exercises": [
                {
                    **base,
                    "exercise_name": "Bench",
                    "exercise_type": "reps",
                    "order": 1,
                    "sets": 2,
                    "reps": [5, 5],
                    "rest_sec": 60,
                    "load_each": [60, 62.5],
                    "load_unit": "kg",
                },
                {
                    **base,
                    "exercise_name": "Run",
                    "exercise_type": "duration",
                    "order": 2,
                    "duration_min": 30,
                    "distance": 5,
                    "distance_unit": "km",
                    "target_pace": "6:00/km",
                },
            ]
        }
    )


def test_conversions_are_exact_inverses() -> None:
    assert kg_to_lbs(100) == pytest.approx(220.462, abs=1e-3)
    assert lbs_to_kg(kg_to_lbs(37.5)) == pytest.approx(37.5)
    assert convert_distance(10, "km", "mi") == pytest.approx(6.2137, abs=1e-4)
    assert convert_weight(10, "kg", "kg") == 10


def test_unit_spellings_and_errors() -> None:
    assert weight_unit("Pounds") == "lbs"
    assert weight_unit("KG") == "kg"
    with pytest.raises(ValueError, match="unknown weight unit"):
        weight_unit("stone")


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [(61.2, "kg", 60.0), (61.3, "kg", 62.5), (137, "lbs", 135.0), (138, "lbs", 140.0), (-3, "kg", 20.0)],
)
def test_barbell_loads_round_to_plate_steps_over_the_bar(value: float, unit: str, expected: float) -> None:
    assert LoadSteps.for_unit(unit).nearest(value, "barbell") == expected


def test_convert_pace() -> None:
    assert convert_pace("5:00/km", "mi") == "8:03/mi"
    assert convert_pace("easy", "mi") == "easy"


def test_convert_workout_to_imperial() -> None:
    converted = convert_workout(_workout(), "lbs", "mi")
    bench, run = converted.exercises
    # 60 kg = 132.3 lb and 62.5 kg = 137.8 lb: the nearest loads a bar takes in 5 lb steps
    assert bench.load_unit == "lbs" and bench.load_each == [130.0, 140.0]
    assert run.distance_unit == "mi" and run.distance == pytest.approx(3.11)
    assert run.target_pace == "9:39/mi"
