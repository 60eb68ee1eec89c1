"""A workout of a leg exercise and an upper-body one, for the health-data readiness tests."""

from __future__ import annotations

from trainer.domain.workout import Workout

WORKOUT = Workout.model_validate(
    {
        "title": "Lower and upper",
        "exercises": [
            {
                "order": 1,
                "exercise_name": "Barbell Back Squat",
                "exercise_type": "reps",
                "sets": 4,
                "reps": [6, 6, 6, 6],
                "load_each": [100, 100, 100, 100],
                "load_unit": "kg",
                "rest_sec": 120,
                "muscles_utilized": [
                    {"muscle": "Quadriceps", "share": 0.6},
                    {"muscle": "Glutes", "share": 0.4},
                ],
                "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                "equipment": ["Barbell", "Squat Rack"],
                "reasoning": "The main lift.",
            },
            {
                "order": 2,
                "exercise_name": "Dumbbell Bench Press",
                "exercise_type": "reps",
                "sets": 3,
                "reps": [10, 10, 10],
                "load_each": [30, 30, 30],
                "load_unit": "kg",
                "rest_sec": 120,
                "muscles_utilized": [{"muscle": "Chest", "share": 0.7}, {"muscle": "Triceps", "share": 0.3}],
                "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                "equipment": ["Dumbbells", "Flat Bench"],
                "reasoning": "Upper-body pressing.",
            },
        ],
    }
)
