"""Progression rules against hand-computed cases: double progression in the prescribed range, fixed low
reps, proportional load steps and reps before load, misses and deloads, a new range from the estimate,
e1RM substitution from a related exercise, rounding in kg and lb. The published numbers behind the
rules are asserted in test_training_references.py."""

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from trainer.domain.loading import LoadSteps
from trainer.domain.movements import movement_pattern, movement_profile, transfer_factor
from trainer.domain.one_rep_max import implied_1rm
from trainer.domain.prescriptions import RepRange, rep_range
from trainer.domain.progression import (
    established_range,
    exercise_histories,
    next_target,
    progression_target,
    progression_targets,
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


def target_for(name: str, rows: list[dict[str, Any]], rep_range: RepRange = (8, 12), unit: str = "kg",
               steps: LoadSteps | None = None, **kwargs: Any):  # fmt: skip
    histories = exercise_histories(rows, unit)
    return progression_target(
        name, histories, steps or LoadSteps.for_unit(unit), rep_range=rep_range, **kwargs
    )


def test_standard_ranges_start_at_the_prescribed_reps() -> None:
    assert [rep_range(r) for r in (3, 5, 6, 7, 8, 11, 12, 15, 25)] == [
        (3, 3), (5, 5), (6, 8), (6, 8), (8, 12), (8, 12), (12, 15), (15, 20), (20, 30),
    ]  # fmt: skip


def test_double_progression_adds_a_rep_inside_the_range() -> None:
    target = target_for("Barbell Curl", [logged("Barbell Curl", 20, [10, 10, 10], 0)])
    assert target is not None
    assert (target.load, target.reps, target.sets, target.rule) == (20, 11, 3, "more_reps")
    assert (target.rep_low, target.rep_high, target.max_load) == (8, 12, 22.5)
    # the RTS chart: 11 reps at RPE 10 = 70.7% of the max
    assert target.reference_e1rm == pytest.approx(20 / 0.707, abs=0.01)
    assert target.reasoning == (
        "20 kg x 10 on 2 Feb, inside your 8-12 reps: same weight, 11 reps; add weight once you reach 12."
    )


def test_the_top_of_the_range_adds_load_and_resets_reps() -> None:
    rows = [
        logged("Barbell Curl", 20, [10, 10, 10], 0),
        logged("Barbell Curl", 20, [11, 11, 11], 3),
        logged("Barbell Curl", 20, [12, 12, 12], 6),
    ]
    target = target_for("Barbell Curl", rows)
    assert target is not None
    # 2.5% of 20 kg is 20.5: the nearest load above that a bar takes is 22.5 (12.5%), whose 8 reps ask
    # less of the lifter than 20 x 12 did (22.5 / 0.786 = 28.6 against 20 / 0.68 = 29.4 on the chart)
    assert (target.load, target.reps, target.rule, target.max_load) == (22.5, 8, "more_load", 22.5)
    assert "top of your 8-12 reps: go up to 22.5 kg for 8 reps" in target.reasoning


def test_every_working_set_must_reach_the_top() -> None:
    target = target_for("Barbell Curl", [logged("Barbell Curl", 20, [12, 12, 11], 0)])
    assert target is not None and (target.load, target.reps) == (20, 12)


def test_fixed_low_reps_progress_the_load_by_a_share_of_it() -> None:
    kg = target_for("Barbell Squat", [logged("Barbell Squat", 100, [5, 5, 5, 5, 5], 0)], (5, 5))
    assert kg is not None and (kg.load, kg.reps, kg.rule) == (102.5, 5, "more_load")
    heavy = target_for("Barbell Squat", [logged("Barbell Squat", 200, [5, 5, 5], 0)], (5, 5))
    assert heavy is not None and heavy.load == 205  # 2.5%, not the smallest plate's 1.25%
    lb = target_for("Barbell Squat", [logged("Barbell Squat", 225, [5, 5, 5], 0, "lbs")], (5, 5), unit="lbs")
    assert lb is not None and (lb.load, lb.reps, lb.unit) == (230, 5, "lbs")


def test_reps_past_the_top_make_a_bigger_step() -> None:
    one_over = target_for("Barbell Squat", [logged("Barbell Squat", 200, [6, 6, 6], 0)], (5, 5))
    two_over = target_for("Barbell Squat", [logged("Barbell Squat", 200, [7, 7, 7], 0)], (5, 5))
    far_over = target_for("Barbell Squat", [logged("Barbell Squat", 200, [12, 12, 12], 0)], (5, 5))
    assert one_over is not None and two_over is not None and far_over is not None
    assert (one_over.load, two_over.load, far_over.load) == (210, 215, 220)
    assert "7 reps on every set, past your 5 reps" in two_over.reasoning


def test_per_set_loads_use_the_heaviest_set() -> None:
    target = target_for("Barbell Curl", [logged("Barbell Curl", [30, 35, 40], [10, 8, 6], 0)], (6, 8))
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


def test_two_misses_in_a_row_deload_by_about_ten_percent() -> None:
    rows = [
        *ESTABLISHED,
        logged("Barbell Curl", 22.5, [7, 6, 6], 9),
        logged("Barbell Curl", 22.5, [6, 6, 5], 12),
    ]
    target = target_for("Barbell Curl", rows)
    assert target is not None
    # 22.5 x 0.9 = 20.25 -> the nearest load a bar takes: 20 kg, at the bottom of the 8-12 range
    assert (target.load, target.reps, target.rule) == (20, 8, "deload")
    assert "last 2 sessions stayed below 8 reps" in target.reasoning
    lb_rows = [logged("Barbell Squat", 200, [5, 5, 5], d, "lbs") for d in (0, 3, 6)]
    lb_rows += [
        logged("Barbell Squat", 210, [4, 3, 3], 9, "lbs"),
        logged("Barbell Squat", 210, [3, 3, 3], 12, "lbs"),
    ]
    lb = target_for("Barbell Squat", lb_rows, (5, 5), unit="lbs")
    # 210 x 0.9 = 189 -> 190 lb (5 lb steps), 5 fixed reps
    assert lb is not None and (lb.load, lb.reps, lb.rule) == (190, 5, "deload")


def test_misses_never_redefine_the_range() -> None:
    """100 x 5 then 102.5 x 4 twice, fives prescribed: a hold, then a reduction; never 105 x 4."""
    rows = [logged("Barbell Squat", 100, [5, 5, 5], 0), logged("Barbell Squat", 102.5, [4, 4, 4], 3)]
    once = target_for("Barbell Squat", rows, (5, 5))
    assert once is not None and (once.load, once.reps, once.rule) == (102.5, 5, "retry")
    twice = target_for("Barbell Squat", [*rows, logged("Barbell Squat", 102.5, [4, 4, 4], 6)], (5, 5))
    assert twice is not None and (twice.load, twice.reps, twice.rule) == (92.5, 5, "deload")
    assert (twice.rep_low, twice.rep_high) == (5, 5)


def test_a_first_short_session_in_a_range_is_held_not_cut() -> None:
    target = target_for("Barbell Squat", [logged("Barbell Squat", 100, [8, 7, 6], 0)])
    assert target is not None and (target.load, target.reps, target.rule) == (100, 8, "retry")


def test_a_range_the_sessions_never_aimed_at_starts_from_the_estimate() -> None:
    target = target_for("Barbell Squat", [logged("Barbell Squat", 100, [5, 5, 5], 0)], target_rpe=8)
    assert target is not None and target.rule == "new_range"
    # 100 x 5 at RPE 10: 100 / 0.863 = 115.9 kg; 8 reps at RPE 8 (10 to failure) = 73.9% = 85.6 -> 85 kg
    assert (target.load, target.reps) == (85, 8)
    assert target.reference_e1rm == pytest.approx(115.87, abs=0.01)


def test_small_implements_add_reps_before_a_big_jump() -> None:
    pairs = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [2, 4, 6, 8, 10], "unit": "kg"}])
    rows = [logged("Dumbbell Bicep Curl", 6, [12, 12, 12], 0)]
    first = target_for("Dumbbell Bicep Curl", rows, steps=pairs)
    # 8 kg x 8 would ask 8 / 0.786 = 10.2 kg of a lifter who showed 6 / 0.68 = 8.8: 15% more
    assert first is not None and (first.load, first.reps, first.rule) == (6, 13, "more_reps")
    assert "next weight here (8 kg) is a big jump: add a rep first (13)" in first.reasoning
    later = target_for(
        "Dumbbell Bicep Curl", [logged("Dumbbell Bicep Curl", 6, [14, 14, 14], 0)], steps=pairs
    )
    assert later is not None and (later.load, later.reps) == (8, 8)
    standard = target_for("Dumbbell Bicep Curl", rows)
    assert standard is not None and (standard.load, standard.reps) == (7, 8)  # a 7 kg dumbbell exists


def test_microplates_make_the_small_step() -> None:
    plates = LoadSteps.for_unit("kg", [{"name": "Weight Plates", "weights": [0.5, 1.25, 2.5, 20]}])
    target = target_for("Barbell Bench Press", [logged("Barbell Bench Press", 60, [5, 5], 0)], (5, 5),
                        steps=plates)  # fmt: skip
    # 2.5% of 60 = 61.5: the nearest total the 20 kg bar takes with pairs of these plates
    assert target is not None and target.load == 61.5
    assert 61.5 in plates.barbell_loads and 61.25 not in plates.barbell_loads


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
    # 20 kg = 44.09 lb -> the 45 lb dumbbell
    assert in_lb is not None and (in_lb.load, in_lb.reps) == (45, 11)


def test_dumbbells_use_the_weights_listed_else_the_standard_ones() -> None:
    rows = [logged("Dumbbell Bicep Curl", 10, [r, r, r], d) for r, d in ((10, 0), (11, 3), (12, 6))]
    assert (t := target_for("Dumbbell Bicep Curl", rows)) is not None and (t.load, t.reps) == (12, 8)
    listed = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [5, 7.5, 10, 12.5], "unit": "kg"}])
    assert (t := target_for("Dumbbell Bicep Curl", rows, steps=listed)) is not None and t.load == 12.5
    lightest = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [5, 10], "unit": "kg"}])
    heaviest = target_for("Dumbbell Bicep Curl", rows, steps=lightest)
    assert heaviest is not None and (heaviest.load, heaviest.reps, heaviest.rule) == (10, 13, "more_reps")
    assert "heaviest weight here" in heaviest.reasoning


def test_related_exercise_gives_an_estimate_based_start() -> None:
    rdl = [logged("Romanian Deadlift", 22.5, [10, 10, 10], 0)]
    # the RTS chart: 22.5 / 0.739 = 30.4 kg; barbell -> one dumbbell x 0.4 = 12.2 kg; 5 reps at RPE 7
    # (8 reps to failure, 78.6%) = 9.6 kg -> 10 kg, under the estimate at failure (12.2 x 0.863 = 10.5)
    five = target_for("Stiff-Legged Dumbbell Deadlift", rdl, (5, 5))
    assert five is not None and five.rule == "related" and five.based_on == "Romanian Deadlift"
    assert (five.load, five.reps, five.reference_e1rm) == (10, 5, 12.18)
    assert five.reasoning == (
        "No history for Stiff-Legged Dumbbell Deadlift yet. From your Romanian Deadlift (22.5 kg x 10 on "
        "2 Feb), start at about 10 kg per hand for 5 reps."
    )
    home = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [5, 7.5, 10, 12.5, 15], "unit": "kg"}])
    ten = target_for("Stiff-Legged Dumbbell Deadlift", rdl, (10, 12), steps=home)
    # 10 reps at RPE 7 (13 to failure, 65.3%) = 7.95 -> 7.5 kg, under 12.2 x 0.739 = 9 kg
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


def test_targets_for_every_trained_exercise_newest_first_in_their_ranges() -> None:
    rows = [logged("Barbell Curl", 20, [12], 0), logged("Romanian Deadlift", 22.5, [15], 2)]
    targets = progression_targets(exercise_histories(rows, "kg"), LoadSteps.for_unit("kg"), established_range)
    assert [t.exercise_name for t in targets] == ["Romanian Deadlift", "Barbell Curl"]
    assert [(t.rep_low, t.rep_high) for t in targets] == [(12, 15), (8, 12)]


def test_the_range_an_exercise_is_trained_in_never_comes_from_its_misses() -> None:
    def established(*sessions: tuple[float, list[int]]) -> tuple[int, int]:
        rows = [logged("Barbell Squat", load, reps, 3 * i) for i, (load, reps) in enumerate(sessions)]
        return established_range(exercise_histories(rows, "kg")["barbell squat"])

    assert established((100, [5, 5, 5]), (102.5, [4, 4, 4]), (102.5, [4, 4, 4])) == (5, 5)
    assert established((60, [12, 12, 12])) == (8, 12)  # the top of 8-12, not the bottom of 12-15
    assert established((30, [20, 20, 20])) == (15, 20)  # the top of 15-20, not the bottom of 20-30
    assert established((100, [8, 7, 6])) == (6, 8)
    # a session at a very different load was another range: 3 x 20 at 30 kg says nothing about fives at 80
    assert established((30, [20, 20, 20]), (80, [5, 5, 5])) == (5, 5)


def test_conservative_start_by_level() -> None:
    assert starting_load(["barbell", "bench"], "beginner", "kg") == 20.0
    assert starting_load(["dumbbell"], "intermediate", "lbs") == 15.0
    assert starting_load(["pull-up bar"], "expert", "kg") is None


def test_a_load_logged_in_the_users_unit_is_kept_as_set_up() -> None:
    assert movement_profile("Goblet Squat").equipment_class == "kettlebell"
    home = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": [20, 22.5, 25], "unit": "kg"}])
    # 25 kg is not a standard kettlebell, but the user lifted it; the dumbbell list serves a goblet squat
    goblet = target_for("Goblet Squat", [logged("Goblet Squat", 25, [10, 10], 0)], steps=home)
    assert goblet is not None and (goblet.load, goblet.reps) == (25, 11)
    odd = target_for("Barbell Bench Press", [logged("Barbell Bench Press", 99, [5, 5], 0)], (5, 5))
    assert odd is not None and (odd.last_load, odd.load, odd.reps) == (99, 102.5, 5)


def test_the_plan_path_and_the_standalone_path_are_one_model() -> None:
    rows = [logged("Barbell Squat", 100, [5, 5, 5], 0), logged("Barbell Squat", 102.5, [4, 4, 4], 3)]
    history = exercise_histories(rows, "kg")["barbell squat"]
    steps = LoadSteps.for_unit("kg")
    standalone = target_for("Barbell Squat", rows, (5, 5))
    assert standalone == next_target(history, steps, (5, 5))
    assert implied_1rm(standalone.load, standalone.reps) == pytest.approx(standalone.reference_e1rm, abs=0.01)
