from datetime import UTC, date, datetime

import pytest
from trainer.domain.statistics import (
    brzycki_1rm,
    epley_1rm,
    exercise_breakdown,
    exercise_moves,
    personal_records,
    progress_trends,
    stats_summary,
    weekly_hard_sets,
    workout_statistics,
)

BENCH = [
    {"muscle": "Chest", "share": 0.6},
    {"muscle": "Triceps", "share": 0.25},
    {"muscle": "Shoulders", "share": 0.15},
]
SQUAT = [{"muscle": "Quadriceps", "share": 0.6}, {"muscle": "Glutes", "share": 0.4}]
ROWS = [
    {
        "performed_at": "2025-03-03T10:00:00Z",
        "workout_id": "w1",
        "exercise_name": "Bench Press",
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 8, 6],
        "load_each": [60, 65, 70],
        "load_unit": "kg",
        "rpe": 8,
        "muscles": BENCH,
        "goals": [{"goal": "Strength", "share": 1.0}],
    },
    {
        "performed_at": "2025-03-03T10:30:00Z",
        "workout_id": "w1",
        "exercise_name": "Squat",
        "exercise_type": "reps",
        "sets": 2,
        "reps": [5, 5],
        "load": 220.462,
        "load_unit": "lbs",
        "rpe": 9,
        "muscles": SQUAT,
        "goals": [{"goal": "Strength", "share": 0.5}, {"goal": "Hypertrophy", "share": 0.5}],
    },
    {
        "performed_at": "2025-03-05T07:00:00Z",
        "exercise_name": "Run",
        "exercise_type": "duration",
        "duration_min": 30,
        "distance": 5,
        "distance_unit": "km",
        "muscles": [{"muscle": "Quadriceps", "share": 1.0}],
        "goals": [{"goal": "Cardio", "share": 1.0}],
    },
    {
        "performed_at": "2025-03-11T10:00:00Z",
        "workout_id": "w3",
        "exercise_name": "Bench Press",
        "exercise_type": "reps",
        "sets": 3,
        "reps": [5, 5, 5],
        "load_each": [80, 80, 80],
        "load_unit": "kg",
        "muscles": BENCH,
        "goals": [{"goal": "Strength", "share": 1.0}],
    },
]


def test_epley_and_brzycki() -> None:
    assert epley_1rm(100, 10) == pytest.approx(133.333, abs=1e-3)
    assert epley_1rm(100, 1) == 100
    assert brzycki_1rm(100, 10) == pytest.approx(133.333, abs=1e-3)
    assert brzycki_1rm(80, 5) == pytest.approx(90.0)
    assert brzycki_1rm(100, 11) is None


def test_workout_statistics_by_hand() -> None:
    stats = workout_statistics(ROWS, date(2025, 3, 1), date(2025, 3, 14), "kg")
    assert stats["total_workouts"] == 3
    assert stats["total_exercises"] == 4
    assert stats["total_sets"] == 3 + 2 + 0 + 3
    # 10*60 + 8*65 + 6*70 + 10*100 (220.462 lb) + 15*80
    assert stats["total_volume"] == pytest.approx(600 + 520 + 420 + 1000 + 1200, abs=0.1)
    assert stats["total_duration_min"] == 30
    assert stats["average_rpe"] == 8.5
    assert stats["workouts_per_week"] == pytest.approx(3 / 2, abs=0.01)


def test_statistics_in_pounds_convert_kg_rows() -> None:
    stats = workout_statistics(ROWS[3:], None, None, "lbs")
    assert stats["total_volume"] == pytest.approx(15 * 80 / 0.45359237, abs=0.1)


def test_date_window_excludes_rows() -> None:
    assert workout_statistics(ROWS, date(2025, 3, 4), date(2025, 3, 5))["total_exercises"] == 1


def test_personal_records_convert_units() -> None:
    prs = personal_records(ROWS, "kg")
    bench = prs["Bench Press"]
    assert bench["best_load"] == 80
    assert bench["epley_1rm"] == pytest.approx(round(80 * (1 + 5 / 30), 1))
    assert bench["brzycki_1rm"] == pytest.approx(90.0)
    assert prs["Squat"]["best_load"] == pytest.approx(100.0, abs=0.01)
    assert "Run" not in prs


def test_weekly_hard_sets_count_secondary_as_half() -> None:
    weeks = weekly_hard_sets(ROWS)
    assert weeks[date(2025, 3, 3)] == {"Chest": 3, "Triceps": 1.5, "Quadriceps": 2, "Glutes": 1.0}
    assert weeks[date(2025, 3, 10)] == {"Chest": 3, "Triceps": 1.5}


def test_breakdowns() -> None:
    by_goal = {b["name"]: b for b in exercise_breakdown(ROWS, "category")}
    assert by_goal["Strength"]["amount"] == 2.5 and by_goal["Strength"]["percentage"] == 62.5
    by_name = exercise_breakdown(ROWS, "exercise_name")
    assert by_name[0]["name"] == "Bench Press" and by_name[0]["amount"] == 2 and by_name[0]["sets"] == 6
    by_muscle = {b["name"]: b["amount"] for b in exercise_breakdown(ROWS, "muscle")}
    assert by_muscle["Quadriceps"] == 1.6
    with pytest.raises(ValueError):
        exercise_breakdown(ROWS, "colour")


def test_progress_trend_of_bench_weight() -> None:
    trend = progress_trends(ROWS, "weight", "bench press", "month", now=datetime(2025, 3, 14, tzinfo=UTC))
    assert [s["value"] for s in trend["series"]] == [70, 80]
    assert [s["week_start"] for s in trend["series"]] == ["2025-03-03", "2025-03-10"]
    assert trend["slope_per_week"] == 10 and trend["percent_change"] == pytest.approx(14.3)
    assert trend["direction"] == "up"
    freq = progress_trends(ROWS, "frequency", now=datetime(2025, 3, 14, tzinfo=UTC))
    assert [s["value"] for s in freq["series"]] == [2, 1]


def test_summary_mentions_key_figures() -> None:
    text = stats_summary(ROWS, None, None, "kg", goal_targets={"Strength": 1, "Cardio": 1})
    assert "3 workouts" in text and "Bench Press 80kg" in text and "Strength" in text
    assert stats_summary([], None, None) == "No workouts logged in this period."


def _lift(day: str, name: str, load: float, unit: str = "kg") -> dict[str, object]:
    return {
        "performed_at": f"{day}T10:00:00Z",
        "exercise_name": name,
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 10, 10],
        "load": load,
        "load_unit": unit,
    }


def test_the_lifts_that_moved_from_their_first_to_their_last_session_most_first() -> None:
    rows = [
        _lift("2025-03-01", "Bench Press", 20),
        _lift("2025-03-01", "Goblet Squat", 20),
        _lift("2025-03-01", "Row", 30),
        _lift("2025-03-10", "Bench Press", 22.5),
        _lift("2025-03-20", "Bench Press", 25),
        _lift("2025-03-20", "Goblet Squat", 26),
        _lift("2025-03-20", "Row", 30),
        _lift("2025-03-20", "Curl", 10),
    ]
    moves = exercise_moves(rows, "2025-03-01", "2025-03-31", "kg")
    assert [(m["exercise_name"], m["from_load"], m["to_load"]) for m in moves] == [
        ("Goblet Squat", 20, 26),
        ("Bench Press", 20, 25),
    ], "the row did not move, the curl was logged once"


def test_moves_are_in_the_users_unit_and_inside_the_period() -> None:
    rows = [
        _lift("2025-02-01", "Squat", 200, "lbs"),
        _lift("2025-03-01", "Squat", 100),
        _lift("2025-03-09", "Squat", 110),
    ]
    (move,) = exercise_moves(rows, "2025-03-01", "2025-03-31", "lbs")
    assert (move["unit"], move["from_load"], move["to_load"]) == ("lbs", 220.46, 242.51)
