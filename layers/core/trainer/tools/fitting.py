"""A generated workout fitted to the user in code before it is stored: today's readiness check-in
(trainer.domain.readiness: fewer sets, lighter loads, sore muscles spared, or a recovery session) and
every load set to one the current location can make (bar + plate pairs, an available dumbbell pair),
in the user's weight unit. Returns what changed, in words, for the reply."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trainer.domain.catalog import load_catalog
from trainer.domain.equipment import available_equipment
from trainer.domain.movements import equipment_class
from trainer.domain.progression import LoadSteps
from trainer.domain.readiness import CheckIn, adjust_workout, assess
from trainer.domain.units import convert_weight
from trainer.domain.workout import Exercise, Workout
from trainer.services.locations import load_steps_at
from trainer.tools.base import ToolContext

if TYPE_CHECKING:
    from trainer.services.user_data import UserData


@dataclass(frozen=True)
class Place:
    """Where the user trains now: their current location (None: none saved), its equipment, and the
    loads it can make in the user's weight unit."""

    location: Mapping[str, Any] | None
    items: list[Any]
    steps: LoadSteps


async def current_place(reads: UserData) -> Place:
    """The user's weight unit and current location, read once for fitting a workout."""
    settings = await reads.settings.get()
    location = await reads.locations.current()
    items: list[Any] = list(location["equipment"] or []) if location else []
    return Place(location, items, load_steps_at(settings.weight_unit, location))


async def fit_workout(workout: Workout, ctx: ToolContext) -> tuple[Workout, list[str]]:
    if ctx.db is None:
        return workout, []
    async with ctx.user_data.reading() as reads:
        place = await current_place(reads)
        check_in = await reads.readiness.today(ctx.now())
    changes: list[str] = []
    if check_in is not None:
        workout, changes = _to_readiness(workout, check_in, place)
    exercises = [_fitted(ex, place.steps) for ex in workout.exercises]
    return workout.model_copy(update={"exercises": exercises}), changes


async def fit_to_check_in(
    workout: Workout, check_in: Mapping[str, Any], ctx: ToolContext
) -> tuple[Workout, list[str]]:
    """A workout made before the check-in, fitted to it now (loads the location can make)."""
    if ctx.db is None:
        return workout, []
    async with ctx.user_data.reading() as reads:
        place = await current_place(reads)
    return _to_readiness(workout, check_in, place)


def _to_readiness(workout: Workout, check_in: Mapping[str, Any], place: Place) -> tuple[Workout, list[str]]:
    assessment = assess(CheckIn.from_row(check_in))
    if assessment.level == "ready" and not assessment.sore_muscles:
        return workout, []

    def lighter(load: float, ex: Exercise) -> float:
        return _settable(load, ex, place.steps, down=True)

    adjusted = adjust_workout(
        workout,
        assessment,
        catalog=load_catalog(),
        available=available_equipment(place.items) if place.location else None,
        lighter=lighter,
    )
    return adjusted.workout, adjusted.changes


def _settable(load: float, ex: Exercise, steps: LoadSteps, *, down: bool = False) -> float:
    """`load` (in the exercise's unit) as the nearest load the location can make, in that unit."""
    cls = equipment_class(ex.exercise_name, ex.equipment)
    if not steps.listed(cls):
        return load
    in_user = convert_weight(load, ex.load_unit or steps.unit, steps.unit)
    fitted = steps.down(in_user, cls) if down else steps.nearest(in_user, cls)
    return round(convert_weight(fitted, steps.unit, ex.load_unit or steps.unit), 2)


def _fitted(ex: Exercise, steps: LoadSteps) -> Exercise:
    """Loads in the user's unit, each one the location can make."""
    if not ex.load_each:
        return ex
    cls = equipment_class(ex.exercise_name, ex.equipment)
    unit = ex.load_unit or steps.unit
    if not steps.listed(cls) and unit == steps.unit:
        return ex
    loads = [convert_weight(v, unit, steps.unit) for v in ex.load_each]
    settable = bool(steps.listed(cls))
    loads = [steps.nearest(v, cls) if settable else round(v, 1) for v in loads]
    return ex.model_copy(update={"load_each": [round(v, 2) for v in loads], "load_unit": steps.unit})
