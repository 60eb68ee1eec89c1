"""The day's readiness and today's workout fitted to it, in one place for GET /today, GET /readiness, the
chat's workouts and the coach's explanation (docs/health-data.md#readiness):

- a check-in the user typed today (trainer.services.readiness) wins;
- else the phone's health data, when it has enough for a signal (trainer.domain.health_readiness);
- else none: the workout stays as planned;
- and other apps' long leg sessions of yesterday or today lower the leg volume of a day the readiness
  left as it was (trainer.domain.outside_workouts).

Loads of a lighter day are the ones the current location can make, at or below the planned ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, Literal

from trainer.domain.catalog import load_catalog
from trainer.domain.equipment import available_equipment
from trainer.domain.health_readiness import HealthReadiness, ReadinessSource, todays_assessment
from trainer.domain.loading import LoadSteps
from trainer.domain.movements import equipment_class
from trainer.domain.outside_workouts import OutsideWorkout, lighten_legs, long_leg_sessions
from trainer.domain.readiness import Assessment, CheckIn, adjust_workout, assess
from trainer.domain.units import convert_weight
from trainer.domain.workout import Exercise, Workout
from trainer.services.locations import load_steps_at
from trainer.services.rows import Row

if TYPE_CHECKING:
    from trainer.services.user_data import UserData

LEG_LOAD_HOURS = 48
"""How far back other apps' workouts are read for yesterday's and today's long leg sessions."""


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


@dataclass(frozen=True)
class DayReadiness:
    today: date
    tz: tzinfo
    source: ReadinessSource | None
    """Where today's readiness comes from: the check-in, the health data, or nowhere."""
    assessment: Assessment | None
    check_in: Row | None
    health: HealthReadiness | None
    leg_sessions: tuple[OutsideWorkout, ...] = ()
    """Other apps' long leg sessions of yesterday and today, longest first."""


async def day_readiness(reads: UserData, now: datetime) -> DayReadiness:
    """Today's readiness for the user at `now` (their local day)."""
    check_in = await reads.readiness.today(now)
    tz = await reads.health.timezone()
    today = now.astimezone(tz).date()
    health = await reads.health.readiness(today, tz)
    workouts = await reads.health.workouts(now - timedelta(hours=LEG_LOAD_HOURS), now + timedelta(seconds=1))
    typed = assess(CheckIn.from_row(check_in)) if check_in is not None else None
    source, assessment = todays_assessment(typed, health)
    return DayReadiness(
        today=today,
        tz=tz,
        source=source,
        assessment=assessment,
        check_in=check_in,
        health=health,
        leg_sessions=tuple(long_leg_sessions(workouts, today, tz, now)),
    )


FitBasis = Literal["check_in", "health_data", "other_workouts"]
BASIS_WORDS: dict[FitBasis, str] = {
    "check_in": "today's check-in",
    "health_data": "your phone's health data",
    "other_workouts": "your workouts in other apps",
}


@dataclass(frozen=True)
class DayFit:
    workout: Workout
    changes: list[str]
    """What changed and why, in words."""
    basis: FitBasis | None = None
    """What the changes answer: the readiness's source, else other apps' workouts (None: no change)."""

    @property
    def explanation(self) -> str | None:
        """The changes in one sentence for the user, naming where they come from."""
        if not self.changes or self.basis is None:
            return None
        return f"Adjusted to {BASIS_WORDS[self.basis]}: " + "; ".join(self.changes) + "."


def fit_to_day(workout: Workout, day: DayReadiness, place: Place) -> DayFit:
    """The workout fitted to the day: the readiness's adjustment (fewer sets and lighter loads, sore
    muscles spared, or a recovery session), then, on a day the readiness left as it was, fewer leg sets
    after a long leg session in another app."""
    changes: list[str] = []
    basis: FitBasis | None = None
    assessment = day.assessment
    if assessment is not None and (assessment.level != "ready" or assessment.sore_muscles):
        workout, changes = fit_to_assessment(workout, assessment, place)
        basis = day.source if changes else None
    if day.leg_sessions and (assessment is None or assessment.level == "ready"):
        legs = lighten_legs(workout, day.leg_sessions, day.today, day.tz)
        if legs.changes:
            workout, changes = legs.workout, [*changes, *legs.changes]
            basis = basis or "other_workouts"
    return DayFit(workout, changes, basis)


def fit_to_assessment(workout: Workout, assessment: Assessment, place: Place) -> tuple[Workout, list[str]]:
    """trainer.domain.readiness.adjust_workout with the location's equipment and settable loads."""

    def lighter(load: float, ex: Exercise) -> float:
        return settable(load, ex, place.steps, down=True)

    adjusted = adjust_workout(
        workout,
        assessment,
        catalog=load_catalog(),
        available=available_equipment(place.items) if place.location else None,
        lighter=lighter,
    )
    return adjusted.workout, adjusted.changes


def settable(load: float, ex: Exercise, steps: LoadSteps, *, down: bool = False) -> float:
    """`load` (in the exercise's unit) as the nearest load the location can make, in that unit."""
    cls = equipment_class(ex.exercise_name, ex.equipment)
    if not steps.listed(cls):
        return load
    in_user = convert_weight(load, ex.load_unit or steps.unit, steps.unit)
    fitted = steps.down(in_user, cls) if down else steps.nearest(in_user, cls)
    return round(convert_weight(fitted, steps.unit, ex.load_unit or steps.unit), 2)


LEVEL_EFFECT = {
    "reduce": "a lighter day: about a third fewer sets and roughly 10% less weight",
    "recover": "a recovery session: easy cardio and mobility, nothing heavy",
    "rest": "a rest day (an easy walk and some stretching at most)",
}
SOURCE_WORDS = {"check_in": "your check-in today", "health_data": "your phone's health data"}


def day_words(day: DayReadiness) -> str:
    """Why today is what it is, in words: the readiness and its source, the leg volume after another
    app's long session, and what the health data reads whatever it says."""
    parts: list[str] = []
    assessment = day.assessment
    if assessment is not None and day.source is not None and assessment.level != "ready":
        why = ", ".join(assessment.reasons) or "how you're feeling"
        parts.append(
            f"Today is {LEVEL_EFFECT[assessment.level]}, because of {why} (from {SOURCE_WORDS[day.source]})."
        )
    elif assessment is not None and day.source is not None:
        parts.append(f"Nothing lowers today's training (from {SOURCE_WORDS[day.source]}).")
    if day.leg_sessions and (assessment is None or assessment.level == "ready"):
        parts.append(
            f"Exercises that mostly work the legs get a third fewer sets after "
            f"{day.leg_sessions[0].words(day.today, day.tz)}."
        )
    readings = day.health.readings if day.health is not None else ()
    if readings:
        parts.append("Your phone's health data: " + "; ".join(readings) + ".")
    if not parts:
        return (
            "Nothing changes today: no check-in today, and not enough health data from your phone yet "
            "for a baseline (three weeks of HRV or resting heart rate, or last night's sleep)."
        )
    return " ".join(parts)
