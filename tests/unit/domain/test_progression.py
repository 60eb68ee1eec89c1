"""Progression rules against hand-computed cases: double progression, fixed low reps, misses and
deloads, e1RM substitution from a related exercise, rounding in kg and lb."""

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from trainer.domain.movements import movement_pattern, movement_profile, transfer_factor
from trainer.domain.progression import (
    LoadSteps,
    exercise_histories,
    progression_target,
    progression_targets,
    rep_range,
    starting_load,
)

START = datetime(2026, 2, 2, 18, 0, tzinfo=UTC)
HAMSTRINGS = [{"muscle": "Hamstrings", "share": 0.6}, {"muscle": "Glutes", "share": 0.3},
              {"muscle": "Lower Back", "share": 0.1}]  # fmt: skip


def logged(name: str, load: float | list[float], reps: list[int], days: int, unit: str = "kg",
           **extra: Any) -> dict[str, Any]:  # fmt: skip
    loads = load if isinstance(load, list) else [load] * len(reps)
    return {
        "exercise_name": name, "exercise_type": "reps", "sets": len(reps), "reps": reps,
        "load_each": loads, "load_unit": unit, "performed_at": START + timedelta(days=days),
        "muscles": HAMSTRINGS, **extra,
    }  # fmt: skip


def target_for(name: str, rows: list[dict[str, Any]], unit: str = "kg", steps: LoadSteps | None = None,
               **kwargs: Any):  # fmt: skip
    histories = exercise_histories(rows, unit)
    return progression_target(name, histories, steps or LoadSteps.for_unit(unit), **kwargs)


def test_rep_ranges() -> None:
    assert [rep_range(r) for r in (3, 5, 6, 7, 8, 11, 12, 15, 25)] == [
        (3, 3), (5, 5), (6, 8), (6, 8), (8, 12), (8, 12), (12, 15), (15, 20), (20, 30),
    ]  # fmt: skip


def test_double_progression_adds_a_rep_inside_the_range() -> None:
    target = target_for("Barbell Curl", [logged("Barbell Curl", 20, [10, 10, 10], 0)])
    assert target is not None
    assert (target.load, target.reps, target.sets, target.rule) == (20, 11, 3, "more_reps")
    assert (target.rep_low, target.rep_high, target.max_load) == (8, 12, 22.5)
    assert target.reference_e1rm == pytest.approx(20 * (1 + 11 / 30), abs=0.01)
    assert target.reasoning == (
        "20 kg x 10 on 2 Feb, inside your 8-12 reps: same weight, 11 reps; add weight once you reach 12."
    )


def test_double_progression_adds_a_plate_step_at_the_top_and_resets_reps() -> None:
    rows = [
        logged("Barbell Curl", 20, [10, 10, 10], 0),
        logged("Barbell Curl", 20, [11, 11, 11], 3),
        logged("Barbell Curl", 20, [12, 12, 12], 6),
    ]
    target = target_for("Barbell Curl", rows)
    assert target is not None
    assert (target.load, target.reps, target.rule, target.max_load) == (22.5, 8, "more_load", 22.5)
    assert "top of your 8-12 reps: go up to 22.5 kg for 8 reps" in target.reasoning


def test_every_working_set_must_reach_the_top() -> None:
    target = target_for("Barbell Curl", [logged("Barbell Curl", 20, [12, 12, 11], 0)])
    assert target is not None and (target.load, target.reps) == (20, 12)


def test_fixed_low_reps_progress_the_load_only() -> None:
    kg = target_for("Barbell Squat", [logged("Barbell Squat", 100, [5, 5, 5, 5, 5], 0)])
    assert kg is not None and (kg.load, kg.reps, kg.rule) == (102.5, 5, "more_load")
    lb = target_for("Barbell Squat", [logged("Barbell Squat", 225, [5, 5, 5], 0, "lbs")], unit="lbs")
    assert lb is not None and (lb.load, lb.reps, lb.unit) == (230, 5, "lbs")


def test_per_set_loads_use_the_heaviest_set() -> None:
    target = target_for("Barbell Curl", [logged("Barbell Curl", [30, 35, 40], [10, 8, 6], 0)])
    assert target is not None
    assert (target.last_load, target.last_reps, target.sets) == (40, 6, 1)
    assert (target.load, target.reps, target.rep_low, target.rep_high) == (40, 7, 6, 8)


ESTABLISHED = [
    logged("Barbell Curl", 20, [10, 10, 10], 0),
    logged("Barbell Curl", 20, [11, 11, 11], 3),
    logged("Barbell Curl", 20, [12, 12, 12], 6),
]


def test_one_miss_repeats_the_step_from_the_last_successful_session() -> None:
    rows = [*ESTABLISHED, logged("Barbell Curl", 22.5, [7, 6, 6], 9)]
    target = target_for("Barbell Curl", rows)
    assert target is not None
    assert (target.load, target.reps, target.rule) == (22.5, 8, "retry")
    assert target.reasoning.startswith("Last time (22.5 kg x 6 on 11 Feb) was short of 8 reps")


def test_two_misses_in_a_row_deload_by_ten_percent() -> None:
    rows = [
        *ESTABLISHED,
        logged("Barbell Curl", 22.5, [7, 6, 6], 9),
        logged("Barbell Curl", 22.5, [6, 6, 5], 12),
    ]
    target = target_for("Barbell Curl", rows)
    assert target is not None
    # 22.5 x 0.9 = 20.25 -> the plate step at or below: 20 kg, at the bottom of the 8-12 range
    assert (target.load, target.reps, target.rule) == (20, 8, "deload")
    assert "last 2 sessions stayed below 8 reps" in target.reasoning
    lb_rows = [logged("Barbell Squat", 200, [5, 5, 5], d, "lbs") for d in (0, 3, 6)]
    lb_rows += [
        logged("Barbell Squat", 205, [4, 3, 3], 9, "lbs"),
        logged("Barbell Squat", 205, [3, 3, 3], 12, "lbs"),
    ]
    lb = target_for("Barbell Squat", lb_rows, unit="lbs")
    # 205 x 0.9 = 184.5 -> 180 lb (5 lb steps), 5 fixed reps
    assert lb is not None and (lb.load, lb.reps, lb.rule) == (180, 5, "deload")


def test_low_fixed_reps_that_fell_short_are_misses_not_a_new_range() -> None:
    rows = [
        logged("Barbell Squat", 100, [5, 5, 5, 4, 3], 0),
        logged("Barbell Squat", 100, [5, 5, 4, 3, 3], 7),
    ]
    target = target_for("Barbell Squat", rows)
    assert target is not None
    assert (target.rep_low, target.rep_high) == (5, 5)
    assert (target.load, target.reps, target.rule) == (90, 5, "deload")


def test_rows_of_one_exercise_in_one_workout_are_one_session() -> None:
    rows = [
        logged("Barbell Curl", 20, [12, 12], 0),
        {**logged("Barbell Curl", 20, [12], 0), "performed_at": START + timedelta(minutes=20)},
    ]
    history = exercise_histories(rows, "kg")["barbell curl"]
    assert len(history.sessions) == 1 and len(history.sessions[0].sets) == 3


def test_sessions_are_local_days() -> None:
    late = logged("Barbell Curl", 20, [10], 0)
    late["performed_at"] = datetime(2026, 2, 3, 4, 30, tzinfo=UTC)  # 23:30 on 2 Feb in New York
    early = {**late, "performed_at": datetime(2026, 2, 2, 15, 0, tzinfo=UTC)}
    new_york = exercise_histories([early, late], "kg", ZoneInfo("America/New_York"))["barbell curl"]
    utc = exercise_histories([early, late], "kg")["barbell curl"]
    assert [s.day for s in new_york.sessions] == [date(2026, 2, 2)]
    assert len(utc.sessions) == 2


def test_other_units_are_converted_then_rounded() -> None:
    in_kg = target_for("Barbell Curl", [logged("Barbell Curl", 100, [8, 8], 0, "lbs")])
    # 100 lb = 45.36 kg -> 45 kg on 2.5 kg plate steps
    assert in_kg is not None and (in_kg.load, in_kg.reps, in_kg.unit) == (45, 9, "kg")
    in_lb = target_for("Dumbbell Bench Press", [logged("Dumbbell Bench Press", 20, [10, 10], 0)], unit="lbs")
    # 20 kg = 44.09 lb -> 45 lb on 5 lb dumbbell steps
    assert in_lb is not None and (in_lb.load, in_lb.reps) == (45, 11)


def test_dumbbells_use_their_own_steps_or_the_weights_listed() -> None:
    rows = [logged("Dumbbell Bicep Curl", 10, [r, r, r], d) for r, d in ((10, 0), (11, 3), (12, 6))]
    assert (t := target_for("Dumbbell Bicep Curl", rows)) is not None and (t.load, t.reps) == (12, 8)
    listed = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [5, 7.5, 10, 12.5], "unit": "kg"}])
    assert (t := target_for("Dumbbell Bicep Curl", rows, steps=listed)) is not None and t.load == 12.5
    lightest = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [5, 10], "unit": "kg"}])
    heaviest = target_for("Dumbbell Bicep Curl", rows, steps=lightest)
    assert heaviest is not None and (heaviest.load, heaviest.reps, heaviest.rule) == (10, 13, "more_reps")
    assert "heaviest weight here" in heaviest.reasoning


def test_small_plates_listed_make_smaller_steps() -> None:
    plates = LoadSteps.for_unit("kg", [{"name": "Weight Plates", "weights": [0.5, 1.25, 2.5, 20]}])
    assert plates.plate_step == 1.0
    target = target_for("Barbell Bench Press", [logged("Barbell Bench Press", 60, [5, 5], 0)], steps=plates)
    # The next total a 20 kg bar can carry with pairs of these plates: 20 + 2 x (2.5 x 3 + 0.5 x 1 x ...)
    # - plate math, not a fixed 2 x smallest-plate step.
    assert target is not None and target.load == 60.5
    assert 60.5 in plates.barbell_loads and 60.25 not in plates.barbell_loads


def test_related_exercise_gives_an_e1rm_based_start() -> None:
    rdl = [logged("Romanian Deadlift", 22.5, [10, 10, 10], 0)]
    # Epley: 22.5 x (1 + 10/30) = 30 kg; barbell -> one dumbbell x 0.4 = 12 kg; x 0.9 margin = 10.8
    five = target_for("Stiff-Legged Dumbbell Deadlift", rdl, reps=5)
    assert five is not None and five.rule == "related" and five.based_on == "Romanian Deadlift"
    # 10.8 / (1 + 5/30) = 9.26 -> 10 kg on 2 kg dumbbell steps, under the 12 / (7/6) = 10.29 ceiling
    assert (five.load, five.reps, five.reference_e1rm) == (10, 5, 12)
    assert five.reasoning == (
        "No history for Stiff-Legged Dumbbell Deadlift yet. From your Romanian Deadlift (22.5 kg x 10 on "
        "2 Feb), start at about 10 kg per hand for 5 reps."
    )
    home = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [5, 7.5, 10, 12.5, 15], "unit": "kg"}])
    ten = target_for("Stiff-Legged Dumbbell Deadlift", rdl, steps=home, reps=10)
    # 10.8 / (4/3) = 8.1 -> nearest listed weight under the 12 / (4/3) = 9 ceiling: 7.5 kg
    assert ten is not None and (ten.load, ten.reps) == (7.5, 10)


def test_unrelated_or_incomparable_exercises_give_no_target() -> None:
    rdl = [logged("Romanian Deadlift", 22.5, [10, 10, 10], 0)]
    assert target_for("Barbell Deadlift", rdl) is None  # hinge, but lower back is its primary muscle
    assert target_for("Lying Leg Curls", rdl) is None  # hamstrings, another pattern
    squat = [logged("Barbell Squat", 100, [5, 5], 0, muscles=[{"muscle": "Quadriceps", "share": 1.0}])]
    assert target_for("Leg Press", squat) is None  # a machine's loads are not a barbell's


def test_patterns_and_factors() -> None:
    assert movement_pattern("Stiff-Legged Dumbbell Deadlift") == movement_pattern("Romanian Deadlift")
    assert movement_pattern("Lying Leg Curls") == "knee flexion"
    assert movement_pattern("Split Squats") == "lunge"
    assert transfer_factor("barbell", "dumbbell") == 0.4 and transfer_factor("dumbbell", "barbell") == 2.5
    assert transfer_factor("machine", "barbell") is None and transfer_factor("cable", "cable") == 1.0
    profile = movement_profile("Stiff-Legged Dumbbell Deadlift")
    assert (profile.primary_muscle, profile.equipment_class) == ("Hamstrings", "dumbbell")


def test_targets_for_every_trained_exercise_newest_first() -> None:
    rows = [logged("Barbell Curl", 20, [10], 0), logged("Romanian Deadlift", 22.5, [10], 2)]
    targets = progression_targets(exercise_histories(rows, "kg"), LoadSteps.for_unit("kg"))
    assert [t.exercise_name for t in targets] == ["Romanian Deadlift", "Barbell Curl"]


def test_conservative_start_by_level() -> None:
    assert starting_load(["barbell", "bench"], "beginner", "kg") == 20.0
    assert starting_load(["dumbbell"], "intermediate", "lbs") == 15.0
    assert starting_load(["pull-up bar"], "expert", "kg") is None


def test_a_load_logged_in_the_users_unit_is_kept_as_set_up() -> None:
    assert movement_profile("Goblet Squat").equipment_class == "kettlebell"
    home = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [20, 22.5, 25], "unit": "kg"}])
    # 25 kg is not on 4 kg kettlebell steps, but the user lifted it; the dumbbell list serves a goblet squat
    goblet = target_for("Goblet Squat", [logged("Goblet Squat", 25, [10, 10], 0)], steps=home)
    assert goblet is not None and (goblet.load, goblet.reps) == (25, 11)
    odd = target_for("Barbell Bench Press", [logged("Barbell Bench Press", 99, [5, 5], 0)])
    assert odd is not None and (odd.last_load, odd.load, odd.reps) == (99, 102.5, 5)
