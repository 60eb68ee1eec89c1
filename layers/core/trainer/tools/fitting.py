"""A generated workout fitted to the user in code before it is stored: today's readiness (the check-in,
else the phone's health data: trainer.services.day_readiness; fewer sets, lighter loads, sore muscles
spared, or a recovery session, and fewer leg sets after another app's long run) and every load set to one
the current location can make (bar + plate pairs, an available dumbbell pair), in the user's weight unit.
Returns what changed, in words, for the reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainer.domain.loading import LoadSteps
from trainer.domain.movements import equipment_class
from trainer.domain.readiness import CheckIn, assess
from trainer.domain.units import convert_weight
from trainer.domain.workout import Exercise, Workout
from trainer.services.day_readiness import (
    DayFit,
    Place,
    current_place,
    day_readiness,
    fit_to_assessment,
    fit_to_day,
)
from trainer.tools.base import ToolContext

__all__ = ["Place", "current_place", "fit_to_check_in", "fit_workout"]


async def fit_workout(workout: Workout, ctx: ToolContext) -> tuple[Workout, DayFit | None]:
    """The workout fitted to today's readiness and the location's loads; with what changed (None: nothing
    to read without a database)."""
    if ctx.db is None:
        return workout, None
    async with ctx.user_data.reading() as reads:
        place = await current_place(reads)
        day = await day_readiness(reads, ctx.now())
    fit = fit_to_day(workout, day, place)
    exercises = [_fitted(ex, place.steps) for ex in fit.workout.exercises]
    return fit.workout.model_copy(update={"exercises": exercises}), fit


async def fit_to_check_in(
    workout: Workout, check_in: Mapping[str, Any], ctx: ToolContext
) -> tuple[Workout, list[str]]:
    """A workout made before the check-in, fitted to it now (loads the location can make)."""
    if ctx.db is None:
        return workout, []
    async with ctx.user_data.reading() as reads:
        place = await current_place(reads)
    assessment = assess(CheckIn.from_row(check_in))
    if assessment.level == "ready" and not assessment.sore_muscles:
        return workout, []
    return fit_to_assessment(workout, assessment, place)


def _fitted(ex: Exercise, steps: LoadSteps) -> Exercise:
    """Loads in the user's unit, each one the location can make (a load converted from the other unit
    becomes a real implement in this one: trainer.domain.loading)."""
    if not ex.load_each:
        return ex
    cls = equipment_class(ex.exercise_name, ex.equipment)
    unit = ex.load_unit or steps.unit
    if not steps.listed(cls) and unit == steps.unit:
        return ex
    loads = [steps.nearest(convert_weight(v, unit, steps.unit), cls) for v in ex.load_each]
    return ex.model_copy(update={"load_each": [round(v, 2) for v in loads], "load_unit": steps.unit})
