from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trainer.domain.timers import SECONDS_PER_REP, SETUP_SEC, TRANSITION_SEC, exercise_timer, workout_timers
from trainer.domain.workout import Exercise, Workout

BASE: dict[str, Any] = {
    "muscles_utilized": [{"muscle": "Chest", "share": 1.0}],
    "goals_addressed": [{"goal": "Strength", "share": 1.0}],
    "reasoning": "r",
}


@st.composite
def exercise_dicts(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["reps", "hold", "duration", "intervals"]))
    data: dict[str, Any] = {
        **BASE,
        "exercise_name": draw(st.sampled_from(["Squat", "Plank", "Row", "Bike"])),
        "exercise_type": kind,
        "order": 1,
    }
    if kind in ("reps", "hold"):
        sets = draw(st.integers(1, 6))
        values = draw(st.lists(st.integers(1, 90), min_size=sets, max_size=sets))
        data.update(
            sets=sets,
            rest_sec=draw(st.integers(0, 300)),
            **{"reps" if kind == "reps" else "hold_sec": values},
        )
    elif kind == "duration":
        data.update(duration_min=draw(st.floats(0.5, 90).map(lambda v: round(v, 1))))
    else:
        data.update(
            rounds=draw(st.integers(1, 20)),
            work_sec=draw(st.integers(1, 120)),
            rest_sec=draw(st.integers(0, 90)),
        )
    return data


@st.composite
def workouts(draw: st.DrawFn) -> Workout:
    items = draw(st.lists(exercise_dicts(), min_size=1, max_size=8))
    exercises: list[dict[str, Any]] = []
    i = 0
    gid = 0
    while i < len(items):
        size = draw(st.sampled_from([1, 1, 2, 3]))
        chunk = items[i : i + size]
        if len(chunk) >= 2:
            gid += 1
            kind = "superset" if len(chunk) == 2 else "circuit"
            rounds = draw(st.none() | st.integers(1, 5))
            between = draw(st.none() | st.integers(0, 180))
            for pos, ex in enumerate(chunk, start=1):
                group: dict[str, Any] = {"id": f"g{gid}", "type": kind, "position": pos}
                if pos == 1:
                    group.update(name=f"Group {gid}", rounds=rounds, rest_between_rounds_sec=between)
                ex["group"] = group
        exercises.extend(chunk)
        i += size
    for n, ex in enumerate(exercises, start=1):
        ex["order"] = n
    return Workout.model_validate({"exercises": exercises})


@settings(max_examples=200, deadline=None)
@given(workouts())
def test_totals_equal_the_sum_of_phases(workout: Workout) -> None:
    timers = workout_timers(workout.exercises)
    grouped = {e.group.id for e in workout.exercises if e.group}
    assert len(timers) == len(grouped) + sum(1 for e in workout.exercises if e.group is None)
    for timer in timers:
        data = timer.to_dict()
        assert data["total_duration_sec"] == sum(p["duration_sec"] for p in data["phases"])
        assert all(p["duration_sec"] > 0 for p in data["phases"])
        assert data["phases"][-1]["phase_type"] != "rest"


@settings(max_examples=200, deadline=None)
@given(exercise_dicts())
def test_single_exercise_total_matches_its_prescription(data: dict[str, Any]) -> None:
    ex = Exercise.model_validate(data)
    total = exercise_timer(ex).total_duration_sec
    match ex.exercise_type:
        case "reps":
            expected = sum(r * SECONDS_PER_REP for r in ex.reps or [])
            expected += ((ex.sets or 1) - 1) * (ex.rest_sec or 0)
        case "hold":
            expected = sum(ex.hold_sec or []) + ((ex.sets or 1) - 1) * (ex.rest_sec or 0)
        case "duration":
            expected = max(1, round((ex.duration_min or 0) * 60))
        case _:
            expected = (ex.rounds or 1) * (ex.work_sec or 0) + ((ex.rounds or 1) - 1) * (ex.rest_sec or 0)
    assert total == expected + SETUP_SEC


def test_reps_phases_have_no_trailing_rest_and_show_loads() -> None:
    timer = exercise_timer(
        {
            **BASE,
            "exercise_name": "Bench",
            "exercise_type": "reps",
            "order": 1,
            "sets": 2,
            "reps": [8, 6],
            "rest_sec": 90,
            "load_each": [60, 65],
            "load_unit": "kg",
        }
    )
    kinds = [p.phase_type for p in timer.phases]
    assert kinds == ["transition", "work", "rest", "work"]
    assert timer.phases[1].detail == "8 reps at 60kg" and timer.phases[3].detail == "6 reps at 65kg"
    assert timer.phases[3].cue == "Bench - Set 2" and timer.phases[3].set_number == 2
    assert timer.total_duration_sec == 10 + 24 + 90 + 18


def test_circuit_goes_through_members_each_round_then_rests() -> None:
    members = [
        {
            **BASE,
            "exercise_name": n,
            "exercise_type": "reps",
            "order": i,
            "sets": 1,
            "reps": [10],
            "rest_sec": 0,
            "group": {
                "id": "c",
                "type": "circuit",
                "position": i,
                **({"name": "Finisher", "rounds": 2, "rest_between_rounds_sec": 60} if i == 1 else {}),
            },
        }
        for i, n in enumerate(["A", "B", "C"], start=1)
    ]
    (timer,) = workout_timers(Workout.model_validate({"exercises": members}).exercises)
    assert timer.exercise_name == "Finisher" and timer.exercise_type == "circuit"
    cues = [p.cue for p in timer.phases if p.phase_type == "work"]
    assert cues == [
        "A - Round 1 of 2",
        "B - Round 1 of 2",
        "C - Round 1 of 2",
        "A - Round 2 of 2",
        "B - Round 2 of 2",
        "C - Round 2 of 2",
    ]
    rests = [p.duration_sec for p in timer.phases if p.phase_type == "rest"]
    assert rests == [60]
    assert timer.total_duration_sec == SETUP_SEC + 6 * 30 + 4 * TRANSITION_SEC + 60


def test_loose_dict_errors_are_readable() -> None:
    with pytest.raises(ValueError, match="'reps' is required"):
        exercise_timer({"exercise_name": "Squat", "exercise_type": "reps", "sets": 3})
    with pytest.raises(ValueError, match="exercise_type must be"):
        exercise_timer({"exercise_name": "Squat", "exercise_type": "strength"})
    loose = exercise_timer(
        {"name": "Tabata", "type": "intervals", "rounds": 8, "work_sec": 20, "rest_sec": 10}
    )
    assert loose.total_duration_sec == SETUP_SEC + 8 * 20 + 7 * 10
