"""A day's workout as a push/SMS text (at most 1,600 characters), the
enforce_length callback, rest days, and the workout as markdown."""

from __future__ import annotations

import re

from trainer.domain.workout import Workout
from trainer.programs.messages import (
    CLOSING,
    KEYCAPS,
    enforce_length,
    render_text,
    render_workout_markdown,
    workout_message,
)
from trainer.programs.microcycle.week import build_week
from trainer.programs.models import SMS_LIMIT, MessageInput, PlanDay
from trainer.programs.plan.finalize import build_plan

from tests.unit.programs.programs_fixtures import inputs


def _week():  # type: ignore[no-untyped-def]
    given = inputs()
    plan = build_plan(given)
    return plan, build_week(plan, 3, given)


def test_a_training_day_reads_in_the_message_format() -> None:
    plan, week = _week()
    monday = week.days[0]
    text = workout_message(MessageInput(day=monday, week_number=3, plan_title=plan.title))
    lines = text.splitlines()
    assert lines[0] == "🏋️ Monday Upper A - Week 3"
    assert lines[2].startswith("WARM-UP (") and lines[3].startswith("• ")
    assert "MAIN WORKOUT" in lines
    main = lines[lines.index("MAIN WORKOUT") + 1 :]
    bench = next(e for e in monday.workout.exercises if e.exercise_name.startswith("Barbell Bench"))  # type: ignore[union-attr]
    assert main[0].startswith(f"{KEYCAPS[0]} BB Bench Press - Medium Grip: {bench.sets}×8 @ 30 kg (rest 90s)")
    assert main[1].startswith(KEYCAPS[1])
    assert any(line.startswith("COOL DOWN (") for line in lines)
    assert lines[-1] == CLOSING
    assert len(text) <= SMS_LIMIT
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text)


def test_holds_cardio_and_per_set_loads_are_written_plainly() -> None:
    workout = Workout.model_validate(
        {
            "title": "Mixed",
            "exercises": [
                {
                    "exercise_name": "Barbell Deadlift",
                    "exercise_type": "reps",
                    "order": 1,
                    "sets": 3,
                    "reps": [5, 3, 1],
                    "load_each": [100, 110, 120],
                    "load_unit": "kg",
                    "rest_sec": 180,
                    "muscles_utilized": [{"muscle": "Lower Back", "share": 1.0}],
                    "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                    "reasoning": "x",
                },
                {
                    "exercise_name": "Plank",
                    "exercise_type": "hold",
                    "order": 2,
                    "sets": 3,
                    "hold_sec": [45, 45, 45],
                    "rest_sec": 45,
                    "muscles_utilized": [{"muscle": "Abs", "share": 1.0}],
                    "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                    "reasoning": "x",
                },
                {
                    "exercise_name": "Running, Treadmill",
                    "exercise_type": "duration",
                    "order": 3,
                    "duration_min": 20,
                    "muscles_utilized": [{"muscle": "Quadriceps", "share": 1.0}],
                    "goals_addressed": [{"goal": "Cardio", "share": 1.0}],
                    "reasoning": "x",
                },
            ],
        }
    )
    text = render_text(workout)
    assert "1️⃣ BB Deadlift: 3×5/3/1 @ 100/110/120 kg (rest 3 min)" in text
    assert "2️⃣ Plank: 3×45s hold (rest 45s)" in text
    assert "3️⃣ Running (treadmill): 20 min" in text


def test_long_workouts_are_compacted_then_cut_to_the_limit() -> None:
    _, week = _week()
    monday = week.days[0]
    assert monday.workout is not None
    many = [
        e.model_copy(update={"order": i + 1, "group": None, "reasoning": "x" * 300})
        for i, e in enumerate(monday.workout.exercises * 2)
    ][:30]
    huge = monday.model_copy(
        update={"workout": Workout(title="Huge", exercises=many), "notes": ["A long note " * 20] * 3}
    )
    text = workout_message(MessageInput(day=huge, week_number=1))
    assert len(text) <= SMS_LIMIT
    assert "(rest" not in text
    assert "📝" not in text


def test_enforce_length_cuts_at_a_line_break_with_an_ellipsis() -> None:
    short = "Hello\nworld"
    assert enforce_length(short) is short
    long = "\n".join(f"line {i} " + "x" * 50 for i in range(60))
    cut = enforce_length(long)
    assert len(cut) <= SMS_LIMIT
    assert cut.endswith("…")
    assert cut[:-1].rstrip().split("\n")[-1].startswith("line ")
    one_line = "y" * 3000
    assert enforce_length(one_line) == "y" * (SMS_LIMIT - 1) + "…"


def test_a_rest_day_message_carries_the_recovery_notes() -> None:
    _, week = _week()
    wednesday = week.days[2]
    assert wednesday.kind == "rest"
    text = workout_message(MessageInput(day=wednesday, week_number=3))
    assert text.startswith("😴 Wednesday rest day - Week 3")
    assert wednesday.recovery_notes and wednesday.recovery_notes in text
    bare = PlanDay(date=wednesday.date, weekday="Wednesday", kind="rest")
    assert "Rest day" in workout_message(MessageInput(day=bare))


def test_the_workout_as_markdown_has_the_seed_sections() -> None:
    _, week = _week()
    monday = week.days[0]
    assert monday.workout is not None
    markdown = render_workout_markdown(monday.workout, monday)
    assert markdown.startswith("# Workout - Monday, 16 March 2026\n")
    for section in (
        "## Warm-Up (",
        "## Main Workout",
        "### 1. Barbell Bench Press - Medium Grip",
        "## Cool Down (",
    ):
        assert section in markdown
    assert "4 sets x 8 reps @ 30 kg, rest 90 s" in markdown
