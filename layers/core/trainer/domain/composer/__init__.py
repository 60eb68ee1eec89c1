"""The offline workout composer: a valid Workout from the catalog without a model, the way a coach
would (compose.py), what it relaxes when a request asks for more than the hard rules allow and how it
says so (relaxing.py), and one exercise swapped for another (replacement.py).

The request (request.py) is resolved once with the hard rules (session_plan.py); the exercises they
allow are ranked (ranking.py, goals.py, staples.py), prescribed with loads from the progression
targets (prescription.py) and fitted to the session's time (fitting.py)."""

from trainer.domain.composer.compose import compose_session, compose_workout
from trainer.domain.composer.prescription import prescribe_exercise, workout_seconds
from trainer.domain.composer.relaxing import ComposedWorkout, Relaxation
from trainer.domain.composer.replacement import compose_replacement
from trainer.domain.composer.request import ComposerError, ComposerRequest

__all__ = [
    "ComposedWorkout",
    "ComposerError",
    "ComposerRequest",
    "Relaxation",
    "compose_replacement",
    "compose_session",
    "compose_workout",
    "prescribe_exercise",
    "workout_seconds",
]
