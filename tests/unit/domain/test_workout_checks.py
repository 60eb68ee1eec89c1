from datetime import UTC, datetime, timedelta
from typing import Any

from trainer.domain.equipment import available_equipment, missing_equipment, normalise_equipment
from trainer.domain.progression import ExerciseHistory, exercise_histories
from trainer.domain.workout import Workout
from trainer.domain.workout_checks import (
    UserTrainingContext,
    check_workout,
    parse_time_budget,
    preference_constraints,
    review_workout,
)

NOW = datetime(2025, 3, 10, 12, tzinfo=UTC)


def _ex(
    order: int, name: str, muscles: dict[str, float], equipment: list[str], **extra: Any
) -> dict[str, Any]:
    return {
        "exercise_name": name,
        "exercise_type": "reps",
        "order": order,
        "sets": 1,
        "reps": [8],
        "rest_sec": 60,
        "muscles_utilized": [{"muscle": m, "share": s} for m, s in muscles.items()],
        "goals_addressed": [{"goal": "Strength", "share": 1}],
        "reasoning": "r",
        "equipment": equipment,
        **extra,
    }


WORKOUT = Workout.model_validate(
    {
        "exercises": [
            _ex(
                1,
                "Barbell Squat",
                {"Quadriceps": 0.7, "Glutes": 0.3},
                ["barbell"],
                load_each=[60],
                load_unit="kg",
            ),
            _ex(
                2,
                "Dumbbell Shoulder Press",
                {"Shoulders": 0.8, "Triceps": 0.2},
                ["Dumbbells"],
                load_each=[30],
                load_unit="lbs",
            ),
            _ex(3, "Burpees", {"Quadriceps": 0.5, "Chest": 0.5}, []),
        ]
    }
)


def test_clean_workout_has_no_problems() -> None:
    user = UserTrainingContext(available_equipment={"barbell", "dumbbell"}, weight_unit="kg")
    clean = Workout.model_validate({"exercises": [WORKOUT.exercises[0].model_dump()]})
    assert check_workout(clean, user) == []


def test_flags_each_problem_class() -> None:
    user = UserTrainingContext(
        available_equipment={"dumbbell", "bodyweight"},
        recovering_muscles={"Quadriceps": datetime(2025, 3, 11, 8, tzinfo=UTC)},
        preferences=[
            {"type": "injury", "description": "Left shoulder impingement", "guidance": "no overhead work"},
            {"type": "exercise", "description": "I hate burpees", "guidance": "never include them"},
        ],
        weight_unit="kg",
        now=NOW,
    )
    problems = check_workout(WORKOUT, user)
    text = "\n".join(problems)
    assert "#1 Barbell Squat needs barbell" in text
    assert (
        "#1 Barbell Squat works Quadriceps, still recovering until 2025-03-11 08:00 UTC (about 20 h left)"
        in text
    )
    assert (
        "#2 Dumbbell Shoulder Press works Shoulders, which conflicts with: Left shoulder impingement" in text
    )
    assert "#3 Burpees conflicts with the preference: I hate burpees" in text
    assert "mixed weight units in one workout (kg, lbs); use kg" in text


def test_explicit_request_silences_recovery_and_wrong_unit_is_flagged() -> None:
    user = UserTrainingContext(
        recovering_muscles={"Quadriceps": NOW}, requested_muscles={"Quadriceps"}, weight_unit="lbs"
    )
    single = Workout.model_validate({"exercises": [WORKOUT.exercises[0].model_dump()]})
    assert check_workout(single, user) == ["loads are in kg but the user's weight unit is lbs"]


def test_equipment_names_normalise() -> None:
    assert normalise_equipment("Dumbbells") == "dumbbell"
    assert normalise_equipment("Pull-up Bar") == "pull-up bar"
    assert normalise_equipment("body only") == "bodyweight" and normalise_equipment("none") == "bodyweight"
    assert normalise_equipment("Leg Press Machine") == "machine"
    have = available_equipment(
        [{"name": "Dumbbells"}, "Smith Machine", {"name": "Bench", "available": False}]
    )
    assert have == {"bodyweight", "dumbbell", "smith machine", "machine"}
    assert missing_equipment(["barbell", "Dumbbells", "body only"], have) == {"barbell"}
    assert "treadmill" in available_equipment(["Full gym"])


def test_preference_reading() -> None:
    prefs = preference_constraints(
        [
            {"type": "injury", "description": "bad knee", "guidance": "protect it"},
            {"type": "exercise", "description": "I don't like lunges", "guidance": ""},
            {"type": "equipment", "description": "I don't have a barbell", "guidance": ""},
            {"type": "time", "description": "an hour max", "guidance": "", "temporary": False},
            {"type": "time", "description": "only 20 minutes this week", "guidance": "", "temporary": True},
            {
                "type": "muscle_group",
                "description": "more glutes",
                "guidance": "",
                "expires_at": "2030-01-01",
            },
        ]
    )
    assert set(prefs.avoided_muscles) == {"Quadriceps", "Hamstrings"}
    assert "lunge" in prefs.excluded_exercises
    assert prefs.unavailable_equipment == {"barbell"}
    assert prefs.time_budget_min == 20
    assert prefs.temporary_muscles == {"Glutes"}


def test_no_equipment_at_all_leaves_only_bodyweight_wherever_the_user_is() -> None:
    said = {
        "type": "equipment",
        "description": "No equipment available",
        "guidance": "Bodyweight exercises only",
    }
    user = UserTrainingContext(
        available_equipment=available_equipment(["Dumbbells", "Bench"]), preferences=[said]
    )
    problems = check_workout(WORKOUT, user)
    assert any("Dumbbell Shoulder Press" in p and "dumbbell" in p for p in problems), problems
    assert not any("Burpees" in p for p in problems), problems
    assert preference_constraints([said]).unavailable_equipment >= {
        "dumbbell",
        "bench",
        "kettlebell",
        "other",
    }


def test_parse_time_budget() -> None:
    assert parse_time_budget("I have 30 minutes") == 30
    assert parse_time_budget("half an hour") == 30
    assert parse_time_budget("1.5 hours") == 90
    assert parse_time_budget("a quick 20-min session") == 20
    assert parse_time_budget("chest day") is None


def _history(*sessions: tuple[str, float, list[int], int]) -> dict[str, ExerciseHistory]:
    rows = [
        {
            "exercise_name": name,
            "exercise_type": "reps",
            "reps": reps,
            "load_each": [load] * len(reps),
            "load_unit": "kg",
            "performed_at": NOW - timedelta(days=days_ago),
            "muscles": [{"muscle": "Hamstrings", "share": 0.6}, {"muscle": "Glutes", "share": 0.4}],
        }
        for name, load, reps, days_ago in sessions
    ]
    return exercise_histories(rows, "kg")


def _loaded(name: str, load: float, reps: int, equipment: list[str]) -> Workout:
    muscles = {"Hamstrings": 0.6, "Glutes": 0.4}
    return Workout.model_validate(
        {"exercises": [_ex(1, name, muscles, equipment, sets=3, reps=[reps] * 3, load_each=[load] * 3,
                           load_unit="kg")]}
    )  # fmt: skip


def test_a_load_beyond_the_next_double_progression_step_is_flagged() -> None:
    user = UserTrainingContext(
        weight_unit="kg", exercise_history=_history(("Romanian Deadlift", 60, [10, 10, 10], 3))
    )
    # last 60 kg x 10 (8-12 range): the rule says 60 x 11; one plate step (62.5) is still accepted
    assert review_workout(_loaded("Romanian Deadlift", 62.5, 8, ["barbell"]), user).problems == []
    review = review_workout(_loaded("Romanian Deadlift", 70, 8, ["barbell"]), user)
    assert review.targets[0] is not None and (review.targets[0].load, review.targets[0].reps) == (60, 11)
    assert review.problems == [
        "#1 Romanian Deadlift jumps to 70 kg, more than one step above the last successful 60 kg x 10 "
        "(Mar 7); suggested 60 kg x 11"
    ]


def test_more_reps_and_more_load_at_once_is_an_e1rm_jump() -> None:
    user = UserTrainingContext(
        weight_unit="kg", exercise_history=_history(("Romanian Deadlift", 60, [10, 10, 10], 3))
    )
    # on the RTS chart: 62.5 x 12 implies 62.5 / 0.68 = 91.9 kg against the target's 60 x 11 =
    # 60 / 0.707 = 84.9 kg: +8%, accepted
    assert review_workout(_loaded("Romanian Deadlift", 62.5, 12, ["barbell"]), user).problems == []
    # 62.5 x 14: 62.5 / 0.626 = 99.8 kg, 18% over
    [problem] = review_workout(_loaded("Romanian Deadlift", 62.5, 14, ["barbell"]), user).problems
    assert problem.startswith("#1 Romanian Deadlift at 62.5 kg x 14 implies an estimated 1RM 18% above")


def test_a_related_exercises_estimate_bounds_a_new_exercise() -> None:
    user = UserTrainingContext(
        weight_unit="kg", exercise_history=_history(("Romanian Deadlift", 22.5, [10, 10, 10], 3))
    )
    # the estimate: 22.5 / 0.739 = 30.4 kg on the RTS chart x 0.4 per dumbbell = 12.2 kg
    fine = review_workout(_loaded("Stiff-Legged Dumbbell Deadlift", 10, 5, ["dumbbell"]), user)
    assert fine.problems == [] and fine.targets[0] is not None and fine.targets[0].rule == "related"
    [problem] = review_workout(_loaded("Stiff-Legged Dumbbell Deadlift", 12, 8, ["dumbbell"]), user).problems
    # 12 / 0.786 = 15.3 kg: 25% above 12.2
    assert "implies an estimated 1RM 25% above what the progression rule supports from Romanian Deadlift" in (
        problem
    )
    assert check_workout(_loaded("Stiff-Legged Dumbbell Deadlift", 12, 8, ["dumbbell"]), user) == [problem]


def test_no_history_means_no_target_and_no_jump() -> None:
    user = UserTrainingContext(weight_unit="kg")
    review = review_workout(_loaded("Romanian Deadlift", 200, 8, ["barbell"]), user)
    assert review.problems == [] and review.targets == [None]


def test_a_composed_prescription_is_read_in_the_goals_range() -> None:
    """The composer prescribes in the goal's range (NSCA: fives for a strength goal's main lifts); the
    checks read the workout in that range too, or they flag the composer's own step as a jump."""
    history = _history(("Romanian Deadlift", 100, [8, 8, 8], 3))
    fives = _loaded("Romanian Deadlift", 110, 5, ["barbell"])
    # trained in 6-8: 100 x 8 tops it, the next step is 102.5 x 6, so 110 is a jump
    untold = UserTrainingContext(weight_unit="kg", exercise_history=history)
    [problem] = review_workout(fives, untold).problems
    assert problem.startswith("#1 Romanian Deadlift jumps to 110 kg")
    # for strength the same 100 x 8 is 3 reps past fives: +10% (ACSM 2009: 2-10%), 110 x 5
    strength = UserTrainingContext(weight_unit="kg", exercise_history=history, goal_style="strength")
    review = review_workout(fives, strength)
    assert review.problems == []
    assert review.targets[0] is not None and (review.targets[0].load, review.targets[0].reps) == (110, 5)
    # reps below the goal's range are read in the range the exercise is trained in
    eights = _loaded("Romanian Deadlift", 110, 8, ["barbell"])
    endurance = UserTrainingContext(weight_unit="kg", exercise_history=history, goal_style="endurance")
    [problem] = review_workout(eights, endurance).problems
    assert problem.startswith("#1 Romanian Deadlift jumps to 110 kg")


def test_a_new_users_bodyweight_reps_stay_in_the_goals_range() -> None:
    """Push-ups 4x48 for a user with no logged history is flagged; 4x10 or 4x20 is not (ACSM 2009: local
    muscular endurance is trained with light loads for more than 15 repetitions), nor 4x48 once the user
    has history to progress from."""

    def push_ups(reps: int) -> Workout:
        ex = _ex(1, "Pushups", {"Chest": 0.7, "Triceps": 0.3}, [], sets=4, reps=[reps] * 4)
        return Workout.model_validate({"exercises": [ex]})

    new = UserTrainingContext(weight_unit="kg")
    [problem] = review_workout(push_ups(48), new).problems
    assert problem.startswith("#1 Pushups asks 48 reps") and problem.endswith("at most 20 reps a set")
    assert review_workout(push_ups(10), new).problems == []
    endurance = UserTrainingContext(weight_unit="kg", goal_style="endurance")
    assert review_workout(push_ups(18), endurance).problems == []
    strength = UserTrainingContext(weight_unit="kg", goal_style="strength")
    assert review_workout(push_ups(10), strength).problems == []
    assert review_workout(push_ups(20), strength).problems == []
    assert review_workout(push_ups(21), strength).problems != []
    trained = UserTrainingContext(weight_unit="kg", exercise_history=_history(("Bench Press", 60, [8, 8], 3)))
    assert review_workout(push_ups(48), trained).problems == []
