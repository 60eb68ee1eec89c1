"""The examples of the review that held the coach's training math against published references, each
through the same public paths a user's request takes (the composer, the plan builder, the statistics,
a pasted workout, the catalogue): loads after failed sets, rep-range edges, estimates without a cap or
an effort, loads below the bar, steps that ignore the lift, unbalanced weekly volume, deloads, rest,
statistics and units. The rules and their sources: docs/training-model.md."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from trainer.domain.catalog import instructions, load_catalog
from trainer.domain.composer import ComposerRequest, prescribe_exercise
from trainer.domain.difficulty import step_changes
from trainer.domain.progress import plan_adherence, training_streaks
from trainer.domain.progression import exercise_histories, next_target
from trainer.domain.statistics import personal_records, row_volume, weekly_hard_sets
from trainer.programs.microcycle.week import build_week
from trainer.programs.plan.checks import validate_plan
from trainer.programs.plan.finalize import build_plan
from trainer.programs.plan.slots import make_slot
from trainer.programs.structure import structure_workout
from trainer.sources.training_facts import TrainingFacts
from trainer.tools.analytics import Streaks, WorkoutStatisticsResult, WorkoutStats
from trainer.tools.stats_answers import statistics_answer
from trainer.tools.wording import ReplyContext

from tests.unit.programs.programs_fixtures import NOW, after, completed, inputs, week_start_moment

GYM = {"barbell", "dumbbell", "bench", "rack", "cable", "pull-up bar"}


def lift(name: str, load: float, reps: list[int], days_ago: int, **extra: Any) -> dict[str, Any]:
    entry = load_catalog().get(name)
    assert entry is not None
    return {
        "exercise_name": name, "exercise_type": "reps", "sets": len(reps), "reps": reps,
        "load_each": [load] * len(reps), "load_unit": "kg",
        "performed_at": NOW - timedelta(days=days_ago, hours=1),
        "muscles": [{"muscle": m, "share": s} for m, s in entry.muscles], **extra,
    }  # fmt: skip


def prescribed(name: str, history: list[dict[str, Any]], goal: str) -> tuple[float, int]:
    """(top load, reps) the composer prescribes for `name` to a user with this history and goal."""
    entry = load_catalog().get(name)
    assert entry is not None
    request = ComposerRequest(available_equipment=GYM, category_goals={goal: 100.0}, now=NOW, history=history)
    ex = prescribe_exercise(request, entry)
    assert ex.load_each and ex.reps
    return max(ex.load_each), min(ex.reps)


def steps(unit: str, items: list[dict[str, Any]] | None = None) -> Any:
    """What the current location can load, as the facts every path reads build it."""
    facts = TrainingFacts(
        weight_unit=unit, distance_unit="km", equipment=None, category_goals={}, muscle_goals={},
        category_debt=[], muscle_debt=[], preferences=[], history=[], now=NOW, location_items=items or [],
    )  # fmt: skip
    return facts.load_steps()


# --- progression ---------------------------------------------------------------------------------


def test_failed_sets_never_raise_the_load() -> None:
    """100 kg x 5,5,5, then 102.5 x 4,4,4 twice on fives: a hold, then about 10% off, never 105 x 4
    (ACSM position stand 2009: the load goes up only once the target reps are done)."""
    history = [
        lift("Barbell Squat", 100, [5, 5, 5], 9),
        lift("Barbell Squat", 102.5, [4, 4, 4], 6),
        lift("Barbell Squat", 102.5, [4, 4, 4], 3),
    ]
    load, reps = prescribed("Barbell Squat", history, "Strength")
    assert load <= 102.5 and reps == 5
    assert (load, reps) == (92.5, 5)


def test_twelve_reps_at_the_top_of_eight_to_twelve_add_load() -> None:
    """3 x 12 in 8-12 is the top of the range: more load and 8 reps, not a 13th rep (ACSM 2009: 2-10%
    more once the target is done; NSCA Essentials 4th ed., ch. 17: hypertrophy 6-12 reps)."""
    bench = "Barbell Bench Press - Medium Grip"
    assert prescribed(bench, [lift(bench, 60, [12, 12, 12], 3)], "Hypertrophy") == (62.5, 8)


def test_twenty_reps_at_the_top_of_fifteen_to_twenty_add_load() -> None:
    """3 x 20 toward endurance is the top of 15-20, not the bottom of 20-30 (ACSM 2009: 2-10% more once
    the target is done; NSCA Essentials 4th ed., ch. 17: muscular endurance 12 reps or more)."""
    load, reps = prescribed("Barbell Squat", [lift("Barbell Squat", 30, [20, 20, 20], 3)], "Endurance")
    assert (load, reps) == (32.5, 15)


def test_the_load_step_grows_with_the_lift_and_the_reps_beyond_the_target() -> None:
    """ACSM 2009: 2-10% more once 1-2 reps over the target are done; 2.5 kg is 1.25% of 200 kg."""
    assert prescribed("Barbell Squat", [lift("Barbell Squat", 200, [5, 5, 5], 3)], "Strength") == (205, 5)
    assert prescribed("Barbell Squat", [lift("Barbell Squat", 200, [7, 7, 7], 3)], "Strength") == (215, 5)


def test_a_small_dumbbell_adds_reps_before_a_big_jump() -> None:
    """6 kg x 12 in 8-12 with 2, 4, 6, 8 and 10 kg dumbbells: 8 kg is 33% heavier, past the ACSM's 2-10%
    step (position stand 2009), so reps go up first."""
    history = exercise_histories([lift("Dumbbell Bicep Curl", 6, [12, 12, 12], 3)], "kg")[
        "dumbbell bicep curl"
    ]
    pairs = steps("kg", [{"name": "Dumbbells", "weights": [2, 4, 6, 8, 10], "unit": "kg"}])
    target = next_target(history, pairs, (8, 12))
    assert (target.load, target.reps) == (6, 13)


# --- estimates -------------------------------------------------------------------------------------


def test_a_thirty_rep_set_never_beats_a_five_rep_max() -> None:
    """60 x 30 is no 120 kg max: estimates hold to about 10-12 reps (LeSuer et al. 1997, J Strength Cond
    Res 11(4); the RTS chart's rows stop at 12), so 100 x 5 is the record."""
    rows = [lift("Barbell Squat", 60, [30], 5), lift("Barbell Squat", 100, [5], 3)]
    record = personal_records(rows)["Barbell Squat"]
    # the record comes from 100 x 5: Epley 100 x (1 + 5/30) = 116.7, not 60 x 30's 120
    assert record["epley_1rm"] == pytest.approx(116.7, abs=0.05)


def test_epley_and_brzycki_come_from_the_same_set() -> None:
    """100 x 2 has the better Epley (106.7), 88.75 x 6 the better Brzycki (103.1): one set is the record,
    both formulas read from it (Epley w x (1 + r/30); Brzycki 1993, w x 36 / (37 - r))."""
    record = personal_records([lift("Barbell Squat", 100, [2], 5), lift("Barbell Squat", 88.75, [6], 3)])
    best = record["Barbell Squat"]
    assert best["epley_1rm"] == pytest.approx(88.75 * 1.2, abs=0.05)
    assert best["brzycki_1rm"] == pytest.approx(88.75 * 36 / 31, abs=0.05)


def test_a_set_at_rpe_seven_is_not_a_set_to_failure() -> None:
    """RPE 7 is 3 reps in reserve (Helms et al. 2016): 100 x 5 @7 is 8 reps to failure, about 8% more."""
    record = personal_records([lift("Barbell Squat", 100, [5, 5, 5], 3, rpe=7)])["Barbell Squat"]
    assert record["epley_1rm"] == pytest.approx(100 * (1 + 8 / 30), abs=0.05)


# --- loads ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("unit", "bar"), [("kg", 20.0), ("lbs", 45.0)])
def test_nothing_goes_below_the_empty_bar(unit: str, bar: float) -> None:
    """An easier step from the empty bar stays on it: a men's Olympic bar weighs 20 kg (IWF Technical
    and Competition Rules), a standard US bar 45 lb; 17.5 kg or 40 lb cannot be loaded on one."""
    squat = {"exercise_name": "Barbell Squat", "exercise_type": "reps", "sets": 3, "reps": [5] * 3,
             "load_each": [bar] * 3, "load_unit": unit, "equipment": ["barbell"]}  # fmt: skip
    lighter = step_changes(squat, "easier", steps(unit))
    assert all(v >= bar for v in lighter.get("load_each", [bar]))
    assert steps(unit).nearest(bar - 2.5 if unit == "kg" else bar - 5, "barbell") == bar


def test_halfway_loads_round_the_same_way_with_a_plate_list_and_without() -> None:
    """61.25 kg is halfway between 60 and 62.5: the lighter one with a plate list and without. No
    source sets a rounding rule: one rule everywhere, the lighter load
    (docs/training-model.md#loads-you-can-make)."""
    plates = [{"name": "Weight Plates", "weights": [1.25, 2.5, 5, 10, 20], "unit": "kg"}]
    assert steps("kg").nearest(61.25, "barbell") == steps("kg", plates).nearest(61.25, "barbell") == 60


def test_a_converted_workout_keeps_real_implements() -> None:
    """1 lb = 0.45359237 kg (NIST SP 811): 25 lb is 11.3 kg, whose nearest kg dumbbell is 12 kg (kg
    dumbbells step by 2 kg past 10); 1 kg is 2.2 lb, the 2 lb dumbbell, never 0."""
    in_kg = structure_workout("Dumbbell curls 3x10 @ 25 lb", weight_unit="kg").exercises[0]
    in_lb = structure_workout("Dumbbell lateral raise 3x12 @ 1 kg", weight_unit="lbs").exercises[0]
    assert in_kg.load_each == [12.0] * 3  # 11.3 kg: the 12 kg dumbbell, not 12.5
    assert in_lb.load_each == [2.0] * 3  # 2.2 lb: the 2 lb dumbbell, never 0


# --- plans ----------------------------------------------------------------------------------------


def weekly_sets(slots: Iterable[Any]) -> dict[str, float]:
    """1 set for the primary muscle, 0.5 for each muscle with at least a 20% share."""
    totals: dict[str, float] = defaultdict(float)
    for slot in slots:
        entry = load_catalog().get(slot.exercise)
        if entry is None or slot.kind == "duration" or slot.role in ("mobility", "conditioning"):
            continue
        for muscle, share in entry.muscles:
            totals[muscle] += slot.sets * (
                1.0 if muscle == entry.primary_muscle else 0.5 if share >= 0.2 else 0
            )
    return totals


def test_weekly_volume_stays_inside_the_landmarks() -> None:
    """Schoenfeld et al. 2017 and Baz-Valle et al. 2022: about 10-20 weekly sets per muscle for size."""
    plan = build_plan(inputs(category_goals={"Hypertrophy": 100.0}))
    for cycle in plan.microcycles:
        sets = weekly_sets(s for d in cycle.weekly_pattern for s in d.slots)
        assert sets["Chest"] >= 10 and sets["Shoulders"] <= 20, (cycle.name, dict(sets))


def test_the_plan_validator_checks_the_weekly_sets() -> None:
    """A phase that gives chest 2 sets a week and shoulders 25.5 is rejected: about 10-20 weekly sets per
    muscle toward size (Schoenfeld et al. 2017; Baz-Valle et al. 2022, 12-20)."""
    given = inputs(category_goals={"Hypertrophy": 100.0})
    plan = build_plan(given)
    assert validate_plan(plan, given) == []
    first = plan.microcycles[0]
    sets = {"Barbell Bench Press - Medium Grip": 1, "Dumbbell Bench Press": 1, "Side Lateral Raise": 8,
            "Reverse Flyes": 8}  # fmt: skip
    pattern = [
        day.model_copy(update={"slots": [s.model_copy(update={"sets": sets.get(s.exercise, s.sets)})
                                         for s in day.slots]})
        for day in first.weekly_pattern
    ]  # fmt: skip
    lopsided = plan.model_copy(
        update={"microcycles": [first.model_copy(update={"weekly_pattern": pattern}), *plan.microcycles[1:]]}
    )
    problems = " ".join(validate_plan(lopsided, given))
    assert "Shoulders gets 25.5 hard sets a week, more than 20" in problems
    assert "Chest gets 2 hard sets a week, fewer than 10" in problems


def test_a_volume_peak_has_more_sets_than_the_phase_before() -> None:
    """A phase named for volume has more weekly sets: gains rise with weekly sets up to about 20
    (Schoenfeld, Ogborn & Krieger 2017, J Sports Sci 35(11))."""
    plan = build_plan(inputs(category_goals={"Hypertrophy": 100.0}, weeks=16))
    totals = [sum(s.sets for d in c.weekly_pattern for s in d.slots) for c in plan.microcycles]
    assert plan.microcycles[-1].name == "Volume Peak" and totals[-1] > totals[-2]


def test_a_six_week_plan_deloads_once_after_five_loading_weeks() -> None:
    """Rogerson et al. 2024: deloads every 5.6 +/- 2.3 weeks, not every 3."""
    assert build_plan(inputs(weeks=6)).deload_weeks == [6]


def test_a_deload_week_lightens_the_load_as_well_as_the_sets() -> None:
    """Rogerson et al. 2024 (Sports Med Open 10:26): surveyed deloads cut volume and load or effort,
    not sets alone at the same weight."""
    given = inputs(weeks=8)
    plan = build_plan(given)
    moment, weeks = given, {}
    for number in (1, 2, 3, 4):
        weeks[number] = build_week(plan, number, moment)
        moment = after(
            moment, completed(weeks[number]), week_start_moment(plan.start_date + timedelta(weeks=number))
        )
    loading, deload = (next(e for e in weeks[n].days[0].workout.exercises if e.load_each) for n in (3, 4))  # type: ignore[union-attr]
    assert weeks[4].deload
    assert max(deload.load_each) < max(loading.load_each)  # type: ignore[arg-type]


def test_sets_of_five_or_fewer_rest_at_least_two_minutes() -> None:
    """NSCA (Essentials, 4th ed., ch. 17): strength and power sets rest 2-5 minutes."""
    history = [lift("Barbell Squat", 100, [5, 5, 5], 3)]
    request = ComposerRequest(available_equipment=GYM, category_goals={"Hypertrophy": 100.0}, now=NOW,
                              history=history)  # fmt: skip
    entry = load_catalog().get("Barbell Squat")
    assert entry is not None
    squat = prescribe_exercise(request, entry)
    assert squat.reps and (min(squat.reps) > 5 or (squat.rest_sec or 0) >= 120)
    accessory = make_slot(entry, pattern=None, muscle="Quadriceps", role="accessory", sets=3, reps=(5, 5),
                          experience="intermediate", goal="strength")  # fmt: skip
    assert accessory.rest_sec >= 120


# --- statistics -----------------------------------------------------------------------------------


def test_hard_sets_leave_out_warm_ups_and_easy_sets() -> None:
    """A hard set is near failure (Baz-Valle et al. 2022, J Hum Kinet 81); RPE 5 is more than 4 reps in
    reserve (Helms et al. 2016, Strength Cond J 38(4)), and a 20-60 kg ramp to 100 kg is warm-up."""
    ramp = lift("Barbell Squat", 100, [10, 5, 3, 5, 5, 5], 3)
    ramp["load_each"] = [20, 40, 60, 100, 100, 100]
    easy = lift("Barbell Bench Press - Medium Grip", 60, [10, 10, 10, 10], 3, rpe_each=[5, 5, 8, 8])
    [week] = weekly_hard_sets([ramp, easy]).values()
    assert week["Quadriceps"] == 3 and week["Chest"] == 2


def test_volume_counts_both_dumbbells_of_a_pair() -> None:
    """Volume load is reps x load moved (NSCA Essentials 4th ed., ch. 17): 2 x 10 reps with two 20 kg
    dumbbells move 800 kg, not 400."""
    assert row_volume(lift("Dumbbell Bench Press", 20, [10, 10], 3), "kg") == 800


def test_a_three_day_a_week_lifter_hears_a_weekly_streak() -> None:
    """The ACSM recommends resistance training 2-3 days a week (Garber et al. 2011, Med Sci Sports Exerc
    43(7)): such a lifter is consistent by the week, never on a daily streak of 0."""
    tz = ZoneInfo("UTC")
    today = date(2026, 3, 12)  # a Thursday
    days = [today - timedelta(days=n) for n in (2, 4, 7, 9, 11, 14, 16, 18)]  # three days a week
    rows = [{"performed_at": datetime.combine(d, datetime.min.time(), tzinfo=UTC) + timedelta(hours=18)}
            for d in days]  # fmt: skip
    result = WorkoutStatisticsResult(
        time_period="month",
        stats=WorkoutStats(unit="kg", total_workouts=8, total_exercises=8, total_sets=24, total_volume=0,
                           total_duration_min=0, workouts_per_week=2.0, total_distance=0, distance_unit="km"),
        streaks=Streaks.model_validate(training_streaks(rows, today, tz)),
    )  # fmt: skip
    answer = statistics_answer(result, "streak", ReplyContext(text="Am I on a streak?", today=today))
    assert "daily streak is" not in answer and "4 weeks in a row" in answer


def test_a_session_moved_within_its_week_is_not_missed() -> None:
    """The ACSM's frequency is per week (Garber et al. 2011: 2-3 days a week): Friday's session done on
    Saturday of the same week is done, not missed."""
    tz = ZoneInfo("UTC")
    today = date(2026, 3, 12)  # a Thursday
    friday = today - timedelta(days=6)
    scheduled = [
        {"scheduled_date": datetime.combine(friday, datetime.min.time(), tzinfo=UTC), "status": "scheduled"}
    ]
    trained = [
        {"performed_at": datetime.combine(friday + timedelta(days=1), datetime.min.time(), tzinfo=UTC)}
    ]
    assert plan_adherence(scheduled, trained, today, tz)["missed_days"] == []


# --- catalogue -------------------------------------------------------------------------------------


def test_running_at_eight_mph_burns_about_400_kcal_in_half_an_hour() -> None:
    """2011 Compendium of Physical Activities: running 8 mph is 11.8 METs; 11.8 x 68 kg x 0.5 h = 401."""
    entry = load_catalog().get("Running, Treadmill")
    assert entry is not None
    text = " ".join(instructions(entry))
    assert "about 400 calories running 8 miles per hour" in text and "over 450" not in text
