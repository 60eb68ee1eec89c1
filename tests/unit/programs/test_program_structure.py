"""Pasted workouts into the app's structured workout: the common notations, warm-up / cool-down
sections, supersets, per-set values, units, a name on its own line, the markdown the app renders,
and lines that are not exercises."""

from __future__ import annotations

from typing import Any

import pytest
from trainer.domain.workout import Exercise, Workout
from trainer.programs.messages import render_workout_markdown
from trainer.programs.microcycle.week import build_week
from trainer.programs.models import WorkoutDraft
from trainer.programs.plan.finalize import build_plan
from trainer.programs.structure import (
    StructureError,
    finalize_structure,
    parse_line,
    parse_workout_text,
    structure_workout,
)

from tests.unit.programs.programs_fixtures import inputs


def _one(text: str, **units: Any) -> Exercise:
    workout = structure_workout(text, **units)
    assert len(workout.exercises) == 1, [e.exercise_name for e in workout.exercises]
    return workout.exercises[0]


@pytest.mark.parametrize(
    ("line", "name", "fields"),
    [
        ("Bench press 4x8 @ 60kg", "Barbell Bench Press - Medium Grip",
         {"sets": 4, "reps": [8] * 4, "load_each": [60.0] * 4, "load_unit": "kg"}),
        ("3 sets of 10 squats", "Barbell Squat", {"sets": 3, "reps": [10] * 3, "load_each": None}),
        ("Plank 3 x 45s", "Plank", {"exercise_type": "hold", "sets": 3, "hold_sec": [45] * 3}),
        ("Deadlift 5/3/1 @ 100/110/120 kg", "Barbell Deadlift",
         {"sets": 3, "reps": [5, 3, 1], "load_each": [100.0, 110.0, 120.0]}),
        ("Pull-ups 3x6-8 (rest 2 min)", "Pullups", {"sets": 3, "reps": [6] * 3, "rest_sec": 120}),
        ("Incline DB press: 3 sets x 10-12 reps @ 22.5 kg each, rest 90s", "Incline Dumbbell Press",
         {"sets": 3, "reps": [10] * 3, "load_each": [22.5] * 3, "rest_sec": 90}),
        ("- Leg press 4 x 12 @ 180 lbs", "Leg Press", {"load_each": [180.0] * 4, "load_unit": "lbs"}),
        ("Lateral raises 3x15 @ RPE 8", "Side Lateral Raise", {"sets": 3, "reps": [15] * 3}),
        ("Chin ups 3 x AMRAP", "Chin-Up", {"sets": 3, "reps": [8] * 3}),
        ("Squats 5x5 @ 100kg", "Barbell Squat", {"sets": 5, "reps": [5] * 5, "rest_sec": 180}),
        ("OHP 3x8", "Standing Military Press", {"sets": 3}),
        ("Run 5 km", "Running, Treadmill",
         {"exercise_type": "duration", "distance": 5.0, "duration_min": 30.0}),
        ("Treadmill 20 min @ 6:00/km", "Walking, Treadmill",
         {"exercise_type": "duration", "duration_min": 20.0, "target_pace": "6:00/km"}),
        ("8 rounds 20s on / 10s off mountain climbers", "Mountain Climbers",
         {"exercise_type": "intervals", "rounds": 8, "work_sec": 20, "rest_sec": 10}),
        ("Tabata bike", "Bicycling, Stationary", {"exercise_type": "intervals", "rounds": 8, "work_sec": 20}),
        ("4 x 6 bench press @ 80 kg", "Barbell Bench Press - Medium Grip", {"sets": 4, "reps": [6] * 4}),
        ("Goblet squat 3 sets of 12 with 16kg", "Goblet Squat", {"reps": [12] * 3, "load_each": [16.0] * 3}),
        ("Dips 3x10 (bodyweight)", "Dips - Triceps Version", {"load_each": None}),
        ("Romanian deadlift 3 x 8 @ 185-205 lbs", "Romanian Deadlift", {"load_each": [185.0] * 3}),
        ("Face pulls 3x15 @ 20", "Face Pull", {"load_each": [20.0] * 3, "load_unit": "kg"}),
    ],
)  # fmt: skip
def test_common_notations(line: str, name: str, fields: dict[str, Any]) -> None:
    ex = _one(line, weight_unit="kg" if "lbs" not in line else None)
    assert ex.exercise_name == name
    for key, value in fields.items():
        assert getattr(ex, key) == value, (key, getattr(ex, key))


def test_sections_supersets_and_unrecognised_lines() -> None:
    text = """Push day from my coach
Warm-up (8 min)
- 5 min easy bike
- Arm circles x 10

Main
A1. Bench press 4x8 @ 60kg
A2. Barbell row 4x8 @ 50kg
B1) Incline DB press 3x10
B2) Cable flyes 3x12
B3) Push ups 2 x 15
Triceps pushdown 3x12

Cool down
- Hamstring stretch 2 x 30s
- Couch stretch

Notes: go easy on the last set
"""
    draft = parse_workout_text(text)
    assert "Couch stretch" in draft.unrecognised
    assert "Notes: go easy on the last set" in draft.unrecognised
    workout = finalize_structure(draft, weight_unit="kg")
    kinds = [(e.group.type if e.group else None) for e in workout.exercises]
    assert kinds == [
        "warmup",
        "warmup",
        "superset",
        "superset",
        "giant_set",
        "giant_set",
        "giant_set",
        None,
        "cooldown",
    ]
    first = workout.exercises[2]
    assert first.group is not None and first.group.name == "Superset A" and first.group.position == 1
    assert workout.exercises[3].group is not None and workout.exercises[3].group.name is None
    assert workout.exercises[0].exercise_name == "Bicycling, Stationary"
    assert workout.exercises[0].duration_min == 5


def test_a_name_on_its_own_line_takes_the_next_lines_numbers() -> None:
    text = """# Workout - Monday, February 16, 2026
## Warm-Up (8 min)
- Light cardio: 5 min rowing machine
- Band pull-aparts 2 x 15

## Main Workout
### 1. Bench Press
4 sets × 4-6 reps @ 185-205 lbs
Rest 3-4 min
### 2. Barbell Row
4 sets × 6-8 reps @ 155-165 lbs (rest 2-3 min)

Overhead Press
3 x 8 @ 95 lbs

## Cool Down
- Chest stretch 30s
"""
    workout = structure_workout(text, weight_unit="lbs")
    assert workout.title == "Monday, February 16, 2026"
    main = [e for e in workout.exercises if e.group is None]
    assert [(e.exercise_name, e.sets, e.reps[0], e.load_each[0], e.rest_sec) for e in main] == [  # type: ignore[index]
        ("Barbell Bench Press - Medium Grip", 4, 4, 185.0, 180),
        ("Bent Over Barbell Row", 4, 6, 155.0, 120),
        ("Standing Military Press", 3, 8, 95.0, 90),
    ]


def test_the_apps_own_markdown_round_trips() -> None:
    given = inputs()
    plan = build_plan(given)
    week = build_week(plan, 1, given)
    for day in week.days:
        if day.workout is None:
            continue
        back = structure_workout(render_workout_markdown(day.workout, day), weight_unit="kg")
        assert [e.exercise_name for e in back.exercises] == [e.exercise_name for e in day.workout.exercises]
        for a, b in zip(back.exercises, day.workout.exercises, strict=True):
            assert (a.sets, a.reps, a.load_each, a.hold_sec, a.duration_min) == (
                b.sets,
                b.reps,
                b.load_each,
                b.hold_sec,
                b.duration_min,
            )
            assert (a.group.type if a.group else None) == (b.group.type if b.group else None)


def test_loads_in_the_other_unit_are_converted() -> None:
    ex = _one("Bench press 3x5 @ 225 lbs", weight_unit="kg")
    assert ex.load_unit == "kg" and ex.load_each == [102.5] * 3
    ex = _one("Run 5 km", distance_unit="mi")
    assert ex.distance_unit == "mi" and ex.distance == pytest.approx(3.11, abs=0.01)


def test_unknown_but_plain_exercises_keep_their_name() -> None:
    ex = _one("Lat stretch 2 x 30s")
    assert ex.exercise_name == "Lat stretch" and ex.muscles_utilized[0].muscle == "Back"
    ex = _one("Burpees 3x10")
    assert ex.exercise_name == "Burpees" and ex.equipment == []


def test_text_without_exercises_is_refused() -> None:
    with pytest.raises(StructureError, match="No exercise could be read"):
        structure_workout("hello coach, how are you?\nsee you tomorrow")
    assert parse_line("", "main") is None
    empty = WorkoutDraft(title=None, exercises=[], unrecognised=["x"])
    with pytest.raises(StructureError):
        finalize_structure(empty)


def test_the_result_is_a_valid_workout() -> None:
    workout = structure_workout("A1. Pull-ups 3x8\nA2. Dips 3x10\nPlank 3 x 1 min\nRow 2000m")
    assert isinstance(Workout.model_validate(workout.model_dump()), Workout)
    plank = next(e for e in workout.exercises if e.exercise_name == "Plank")
    assert plank.hold_sec == [60, 60, 60]
    row = workout.exercises[-1]
    assert row.exercise_type == "duration" and row.distance == 2.0


def test_a_number_with_thousands_of_digits_is_listed_not_parsed() -> None:
    """int() refuses strings over 4,300 digits and the patterns backtrack for minutes on long digit
    runs: such a line is not read at all."""
    from trainer.programs.structure import MAX_DIGITS, parse_line, parse_workout_text

    draft = parse_workout_text("Squat " + "1" * 20_000 + "\nBench press 4x8 @ 60kg")
    assert [e.name for e in draft.exercises] == ["Bench press"]
    assert draft.unrecognised and draft.unrecognised[0].startswith("Squat 111")
    assert parse_line("Squat 5x" + "5" * (MAX_DIGITS + 1), "main") is None
    assert parse_line("Squat 5x" + "5" * MAX_DIGITS, "main") is not None


def test_long_lines_and_too_many_lines_are_bounded() -> None:
    from trainer.programs.structure import (
        MAX_LINE_CHARS,
        MAX_LINES,
        ImportTooLarge,
        check_text_size,
        parse_workout_text,
    )

    long_line = "Bench press 4x8 @ 60kg " + "x" * MAX_LINE_CHARS
    assert parse_workout_text(long_line).exercises == []
    check_text_size("Squat 3x5\n" * MAX_LINES)
    with pytest.raises(ImportTooLarge, match=f"at most {MAX_LINES}"):
        check_text_size("Squat 3x5\n" * (MAX_LINES + 1))


def test_a_name_query_reads_at_most_the_longest_catalog_name() -> None:
    from trainer.domain.exercise_search import MAX_QUERY_WORDS, match_names, name_tokens

    long_query = "barbell bench press " + " ".join(f"word{i}" for i in range(50))
    assert len(name_tokens(long_query)) > MAX_QUERY_WORDS
    found = match_names(long_query)
    assert found == match_names(" ".join(name_tokens(long_query)[:MAX_QUERY_WORDS]))


def test_not_understood_lines_are_quoted_in_the_refusal() -> None:
    from trainer.programs.models import WorkoutDraft
    from trainer.programs.structure import StructureError, finalize_structure

    refusal = r'Not understood: "Had a lovely walk", "x", "y" \(\+1 more line\)\.'
    with pytest.raises(StructureError, match=refusal):
        finalize_structure(
            WorkoutDraft(title=None, exercises=[], unrecognised=["Had a lovely walk", "x", "y", "z"])
        )


def test_reading_stops_at_the_time_limit_and_says_what_was_not_read() -> None:
    from trainer.programs.structure import parse_workout_text

    draft = parse_workout_text("Bench press 4x8 @ 60kg\nGoblet squat 3x12", time_limit_s=-1.0)
    assert draft.exercises == []
    assert all(line.startswith("(not read: past the") for line in draft.unrecognised)
    assert [e.name for e in parse_workout_text("Bench press 4x8 @ 60kg").exercises] == ["Bench press"]
