"""The workout tools, in the order the model sees them: generate_workout
(trainer.tools.generate_workout), the edits of one exercise (trainer.tools.workout_edits: swap,
adjust, remove) and add_exercise_to_workout (trainer.tools.add_exercise). What they share, the
current workout in session state, is trainer.tools.current_workout."""

from __future__ import annotations

from trainer.tools.add_exercise import AddExerciseToWorkout
from trainer.tools.base import AnyTool
from trainer.tools.generate_workout import GenerateWorkout
from trainer.tools.workout_edits import AdjustExercise, RemoveExercise, SwapExercise


def workout_tools() -> list[AnyTool]:
    return [GenerateWorkout(), SwapExercise(), AdjustExercise(), RemoveExercise(), AddExerciseToWorkout()]


TOOLS: list[AnyTool] = workout_tools()
