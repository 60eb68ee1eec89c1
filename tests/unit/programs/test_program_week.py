"""A week of the plan: 7 days on the plan's training days, workouts in the app's schema with warm-up
and cool-down groups, loads and reps computed from logged history (progression, deloads, conservative
starts), recovery and injuries respected, and validators that fail on bad weeks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from trainer.domain.workout import Workout
from trainer.programs.microcycle.checks import (
    day_contexts,
    deload_volume,
    hard_problems,
    main_sets,
    plan_training_days,
    seven_days,
    validate_week,
    workout_checks_pass,
)
from trainer.programs.microcycle.dates import week_dates, week_due_at
from trainer.programs.microcycle.week import build_week, draft_week, finalize_week
from trainer.programs.models import PlanDay, PlanWeek, WeekDraft
from trainer.programs.plan.finalize import build_plan

from tests.unit.programs.programs_fixtures import NOW, after, completed, inputs, logged, week_start_moment


def _main(workout: Workout) -> list:  # type: ignore[type-arg]
    return [e for e in workout.exercises if e.group is None or e.group.type not in ("warmup", "cooldown")]


def test_a_week_is_seven_days_with_workouts_on_the_plan_days() -> None:
    given = inputs()
    plan = build_plan(given)
    week = build_week(plan, 1, given)
    assert [d.date for d in week.days] == week_dates(plan, 1)
    assert [d.kind for d in week.days] == [
        "training",
        "training",
        "rest",
        "training",
        "training",
        "rest",
        "rest",
    ]
    for day in week.days:
        if day.kind == "rest":
            assert day.workout is None and day.recovery_notes and "Rest day" in day.recovery_notes
            continue
        assert day.workout is not None
        groups = [
            e.group.type if e.group else "main" for e in sorted(day.workout.exercises, key=lambda e: e.order)
        ]
        assert groups[0] == "warmup" and groups[-1] == "cooldown"
        assert groups == sorted(groups, key=["warmup", "main", "cooldown"].index)
        assert day.workout.title == f"{day.focus} - Week 1"
    assert validate_week(week, plan, given) == []


def test_no_history_starts_conservatively() -> None:
    given = inputs()
    plan = build_plan(given)
    monday = build_week(plan, 1, given).days[0]
    assert monday.workout is not None
    bench = next(
        e for e in monday.workout.exercises if e.exercise_name == "Barbell Bench Press - Medium Grip"
    )
    assert bench.load_each == [30.0] * bench.sets and bench.reps == [8] * bench.sets
    assert bench.reasoning.startswith("New exercise: a conservative starting weight")


def test_history_sets_the_loads_and_a_completed_week_progresses() -> None:
    history = [
        logged("Barbell Bench Press - Medium Grip", 80, [12, 12, 12, 12], NOW - timedelta(days=3)),
        logged("Barbell Bench Press - Medium Grip", 77.5, [12, 11, 10, 10], NOW - timedelta(days=7)),
    ]
    given = inputs(history=history, progression_history=history)
    plan = build_plan(given)
    week1 = build_week(plan, 1, given)
    bench1 = next(e for e in week1.days[0].workout.exercises if e.exercise_name.startswith("Barbell Bench"))  # type: ignore[union-attr]
    # 80 x 12 is the top of the phase's 8-12: 2.5% more is 82 kg, the nearest load a bar takes 82.5 kg
    assert bench1.load_each == [82.5] * bench1.sets and bench1.reps == [8] * bench1.sets
    later = after(given, completed(week1), week_start_moment(week_dates(plan, 2)[0]))
    week2 = build_week(plan, 2, later)
    assert validate_week(week2, plan, later) == []
    for day1, day2 in zip(week1.days, week2.days, strict=True):
        if day1.workout is None or day2.workout is None:
            continue
        before = {e.exercise_name: e for e in _main(day1.workout)}
        for ex in _main(day2.workout):
            prev = before.get(ex.exercise_name)
            if prev is None or ex.exercise_type != "reps":
                continue
            more_load = (ex.load_each or [0])[0] > (prev.load_each or [0])[0]
            more_reps = (ex.load_each or [0])[0] == (prev.load_each or [0])[0] and ex.reps[0] > prev.reps[0]  # type: ignore[index]
            assert more_load or more_reps, (
                ex.exercise_name,
                prev.load_each,
                prev.reps,
                ex.load_each,
                ex.reps,
            )
    bench2 = next(e for e in week2.days[0].workout.exercises if e.exercise_name.startswith("Barbell Bench"))  # type: ignore[union-attr]
    assert bench2.load_each == [82.5] * bench2.sets and bench2.reps == [9] * bench2.sets


def test_a_missed_week_keeps_the_load() -> None:
    given = inputs()
    plan = build_plan(given)
    week1 = build_week(plan, 1, given)
    rows = completed(week1)
    for row in rows:
        if row["exercise_name"] == "Barbell Bench Press - Medium Grip":
            row["reps"] = [8, 7, 6, 6]
    later = after(given, rows, week_start_moment(week_dates(plan, 2)[0]))
    bench = next(
        e
        for e in build_week(plan, 2, later).days[0].workout.exercises  # type: ignore[union-attr]
        if e.exercise_name.startswith("Barbell Bench")
    )
    assert bench.load_each == [30.0] * bench.sets and bench.reps == [8] * bench.sets


def test_deload_weeks_cut_volume_and_load() -> None:
    """Rogerson et al. 2024 (Sports Med Open 10:26): a deload cuts sets, reps and the load."""
    given = inputs()
    plan = build_plan(given)
    moment = given
    weeks = {}
    for number in (1, 2, 3, 4):
        weeks[number] = build_week(plan, number, moment)
        assert validate_week(weeks[number], plan, moment) == []
        moment = after(moment, completed(weeks[number]), week_start_moment(week_dates(plan, number + 1)[0]))
    loading, deload = weeks[3], weeks[4]
    assert deload.deload and not loading.deload
    ratio = main_sets(deload) / main_sets(loading)
    assert 0.5 <= ratio <= 0.7
    bench3 = next(e for e in loading.days[0].workout.exercises if e.exercise_name.startswith("Barbell Bench"))  # type: ignore[union-attr]
    bench4 = next(e for e in deload.days[0].workout.exercises if e.exercise_name.startswith("Barbell Bench"))  # type: ignore[union-attr]
    # about 90% of the working weight (27 kg of 30), as a bar takes it: 25 kg, at the bottom of the range
    assert bench4.load_each[0] == 25.0 and bench3.load_each[0] == 30.0  # type: ignore[index]
    assert bench4.sets == round(0.6 * bench3.sets) and bench4.reps == [8] * bench4.sets
    assert "Deload week" in bench4.reasoning
    assert deload.days[0].workout.title.endswith("(deload)")  # type: ignore[union-attr]
    week5 = build_week(plan, 5, moment)
    bench5 = next(e for e in week5.days[0].workout.exercises if e.exercise_name.startswith("Barbell Bench"))  # type: ignore[union-attr]
    assert bench5.load_each[0] >= bench3.load_each[0]  # type: ignore[index]
    assert bench5.reps == [6] * bench5.sets


def test_recovering_muscles_are_not_trained_the_next_day() -> None:
    legs = [{"muscle": "Quadriceps", "share": 0.7}, {"muscle": "Glutes", "share": 0.3}]
    yesterday = [logged("Barbell Squat", 100, [5, 5, 5, 5, 5], NOW - timedelta(hours=20), legs)]
    given = inputs(training_days=["Monday", "Wednesday", "Friday"], history=yesterday)
    plan = build_plan(given)
    week = build_week(plan, 1, given)
    monday = week.days[0].workout
    assert monday is not None
    worked = {m.muscle for e in monday.exercises for m in e.muscles_utilized if m.share >= 0.2}
    assert not worked & {"Quadriceps", "Glutes"}
    assert any("still recovering" in n for n in week.days[0].notes)
    assert validate_week(week, plan, given) == []


def test_injuries_and_dislikes_are_respected_every_day() -> None:
    given = inputs(
        preferences=[
            {"type": "injury", "description": "lower back pain"},
            {"type": "exercise", "description": "I hate lunges"},
        ]
    )
    plan = build_plan(given)
    week = build_week(plan, 1, given)
    for day in week.days:
        for ex in day.workout.exercises if day.workout else []:
            assert "lunge" not in ex.exercise_name.lower()
            assert all(m.muscle != "Lower Back" for m in ex.muscles_utilized if m.share > 0)
    assert validate_week(week, plan, given) == []


def test_a_hotel_gym_week_swaps_what_is_not_there() -> None:
    given = inputs()
    plan = build_plan(given)
    hotel = given.model_copy(update={"equipment": ["dumbbell", "treadmill"]})
    week = build_week(plan, 1, hotel)
    monday = week.days[0]
    assert monday.workout is not None
    assert all(set(e.equipment) <= {"dumbbell", "treadmill"} for e in monday.workout.exercises)
    assert any("instead of Barbell Bench Press - Medium Grip" in n for n in monday.notes)
    assert validate_week(week, plan, hotel) == []


def test_a_temporary_time_budget_shortens_the_days() -> None:
    given = inputs()
    plan = build_plan(given)
    short = given.model_copy(
        update={
            "preferences": [{"type": "time", "description": "only 30 minutes this week", "temporary": True}]
        }
    )
    full = build_week(plan, 1, given)
    quick = build_week(plan, 1, short)
    assert main_sets(quick) < main_sets(full)


def test_a_models_week_draft_uses_its_allowed_choices_and_code_computes_the_numbers() -> None:
    given = inputs()
    plan = build_plan(given)
    draft = draft_week(plan, 1, given)
    monday = draft.days[0]
    chosen = ["Dumbbell Bench Press", *monday.exercises[1:]]
    days = [
        monday.model_copy(update={"exercises": chosen, "notes": "Big day!", "warmup": ["Arm Circles"]}),
        *draft.days[1:],
    ]
    week = finalize_week(WeekDraft(week_number=1, days=days), plan, 1, given)
    workout = week.days[0].workout
    assert workout is not None
    names = [e.exercise_name for e in workout.exercises]
    assert "Dumbbell Bench Press" in names and names[0] == "Arm Circles"
    dumbbell = next(e for e in workout.exercises if e.exercise_name == "Dumbbell Bench Press")
    slot = plan.microcycles[0].weekly_pattern[0].slots[0]
    assert dumbbell.sets == slot.sets and dumbbell.load_each and dumbbell.load_unit == "kg"
    assert week.days[0].notes[0] == "Big day!"


def test_week_validators_fail_on_bad_weeks() -> None:
    given = inputs()
    plan = build_plan(given)
    week = build_week(plan, 1, given)
    six = week.model_copy(update={"days": week.days[:6]})
    assert "the week needs exactly 7 days, has 6" in seven_days(six, plan, given)
    wrong = week.model_copy(
        update={"days": [week.days[0].model_copy(update={"weekday": "Sunday"}), *week.days[1:]]}
    )
    assert "2026-03-02 is a Monday, not a Sunday" in seven_days(wrong, plan, given)
    rest_monday = PlanDay(date=week.days[0].date, weekday="Monday", kind="rest", recovery_notes="rest")
    skipped = week.model_copy(update={"days": [rest_monday, *week.days[1:]]})
    assert plan_training_days(skipped, plan, given) == ["Monday is a training day in the plan"]
    wednesday = week.days[2].model_copy(update={"kind": "training", "workout": week.days[0].workout})
    extra = week.model_copy(update={"days": [*week.days[:2], wednesday, *week.days[3:]]})
    assert "Wednesday is a rest day in the plan" in plan_training_days(extra, plan, given)
    at_home = given.model_copy(update={"equipment": ["bodyweight"]})
    problems = workout_checks_pass(week, plan, at_home)
    assert any(p.startswith("Monday: #") and "not available at the current location" in p for p in problems)
    heavy = week.model_copy(update={"deload": True})
    assert deload_volume(heavy, plan, given)[0].startswith("a deload week keeps at most 70% of the sets")


def test_the_checks_count_the_weeks_earlier_days() -> None:
    given = inputs(training_days=["Monday", "Tuesday"])
    plan = build_plan(given)
    week = build_week(plan, 1, given)
    monday = week.days[0].workout
    assert monday is not None
    tuesday_as_monday = week.days[1].model_copy(update={"workout": monday})
    twice = PlanWeek.model_validate(
        {
            **week.model_dump(),
            "days": [
                week.days[0].model_dump(),
                tuesday_as_monday.model_dump(),
                *[d.model_dump() for d in week.days[2:]],
            ],
        }
    )
    contexts = day_contexts(twice, plan, given)
    assert contexts[1] is not None
    assert any("still recovering" in p for p in hard_problems(monday, contexts[1]))


def test_weeks_are_due_at_local_midnight_of_their_first_day() -> None:
    due = week_due_at(week_dates(build_plan(inputs()), 1)[0], 3, "America/New_York")
    assert due.astimezone(UTC) == datetime(2026, 3, 16, 4, 0, tzinfo=UTC)
