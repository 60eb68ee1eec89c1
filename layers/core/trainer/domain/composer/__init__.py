"""The offline workout composer: a valid Workout from the catalog without a model, the way a coach
would (compose.py), and one exercise swapped for another (replacement.py).

The request (request.py) is resolved once with the hard rules (session_plan.py); the exercises they
allow are ranked (ranking.py, goals.py, staples.py), prescribed with loads from the progression
targets (prescription.py) and fitted to the session's time (fitting.py)."""

from trainer.domain.composer.compose import compose_workout
from trainer.domain.composer.prescription import prescribe_exercise, workout_seconds
from trainer.domain.composer.replacement import compose_replacement
from trainer.domain.composer.request import ComposerError, ComposerRequest

__all__ = [
    "ComposerError",
    "ComposerRequest",
    "compose_replacement",
    "compose_workout",
    "prescribe_exercise",
    "workout_seconds",
]
