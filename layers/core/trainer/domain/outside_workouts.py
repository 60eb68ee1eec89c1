"""Workouts recorded by other apps (a run in Strava, a ride on a bike computer, read from the phone's health
data) as training load, in code (docs/health-data.md#other-apps-workouts):

- a long leg session (LONG_LEG_MINUTES per activity: a 45-minute run, a 90-minute ride) that ended
  yesterday or today lowers today's leg volume: each exercise mostly working the legs keeps two thirds of
  its sets (as a lighter day does), its loads unchanged;
- cardio minutes count toward a cardio goal: CARDIO_MINUTES_PER_UNIT minutes are one exercise's worth of
  work in the distribution (trainer.domain.distribution counts one unit per logged exercise, a 20-minute
  run as much as a 5-set squat).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from trainer.domain.composer.goals import GOAL_FIT, goal_kind
from trainer.domain.distribution import add_shares, normalise_weights
from trainer.domain.health_data import CARDIO_ACTIVITIES, LONG_LEG_MINUTES, activity_words
from trainer.domain.readiness import REDUCED_SETS, Adjusted
from trainer.domain.workout import Exercise, Workout

LEG_MUSCLES = frozenset({"Quadriceps", "Hamstrings", "Glutes", "Calves", "Adductors", "Abductors"})
LEG_SHARE = 0.5
"""An exercise works mostly the legs when their shares add up to at least this."""
CARDIO_MINUTES_PER_UNIT = 20.0


@dataclass(frozen=True)
class OutsideWorkout:
    activity: str
    start: datetime
    end: datetime
    minutes: float
    source: str
    distance_m: float | None = None
    average_heart_rate: float | None = None
    energy_kcal: float | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> OutsideWorkout:
        details: Mapping[str, Any] = row.get("details") or {}

        def number(key: str) -> float | None:
            value = details.get(key)
            return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

        return cls(
            activity=str(details.get("activity") or "other"),
            start=row["start_at"],
            end=row["end_at"],
            minutes=float(row["value"]),
            source=str(row["source"]),
            distance_m=number("distance_m"),
            average_heart_rate=number("average_heart_rate"),
            energy_kcal=number("energy_kcal"),
        )

    @property
    def is_long_leg_session(self) -> bool:
        threshold = LONG_LEG_MINUTES.get(self.activity)
        return threshold is not None and self.minutes >= threshold

    @property
    def is_cardio(self) -> bool:
        return self.activity in CARDIO_ACTIVITIES

    def words(self, today: date, tz: tzinfo) -> str:
        """`yesterday's 62-minute run (12.4 km, Strava)`."""
        day = self.end.astimezone(tz).date()
        when = (
            "today's"
            if day == today
            else "yesterday's"
            if day == today - timedelta(days=1)
            else day.isoformat()
        )
        extra = [f"{self.distance_m / 1000:.1f} km"] if self.distance_m else []
        extra.append(self.source)
        return f"{when} {self.minutes:.0f}-minute {activity_words(self.activity)} ({', '.join(extra)})"


def long_leg_sessions(
    workouts: Iterable[OutsideWorkout], today: date, tz: tzinfo, now: datetime
) -> list[OutsideWorkout]:
    """The long leg sessions that ended yesterday or today (before `now`), longest first."""
    found = [
        w
        for w in workouts
        if w.is_long_leg_session
        and w.end <= now
        and today - timedelta(days=1) <= w.end.astimezone(tz).date() <= today
    ]
    return sorted(found, key=lambda w: -w.minutes)


def leg_share(ex: Exercise) -> float:
    return sum(m.share for m in ex.muscles_utilized if m.muscle in LEG_MUSCLES)


def lighten_legs(workout: Workout, sessions: Sequence[OutsideWorkout], today: date, tz: tzinfo) -> Adjusted:
    """Two thirds of the sets (rounds, minutes) of each exercise mostly working the legs, after a long leg
    session yesterday or today; never more volume than before."""
    if not sessions:
        return Adjusted(workout, [])
    changed: list[str] = []
    exercises: list[Exercise] = []
    for ex in workout.exercises:
        if leg_share(ex) < LEG_SHARE:
            exercises.append(ex)
            continue
        lighter = _fewer_sets(ex)
        if lighter != ex:
            changed.append(ex.exercise_name)
        exercises.append(lighter)
    if not changed:
        return Adjusted(workout, [])
    why = sessions[0].words(today, tz)
    return Adjusted(
        workout.model_copy(update={"exercises": exercises}),
        [f"cut a third of the sets of {', '.join(changed)} after {why}, so your legs get some rest"],
    )


def _fewer_sets(ex: Exercise) -> Exercise:
    update: dict[str, Any] = {}
    if ex.sets is not None and ex.sets > 1 and ex.exercise_type in ("reps", "hold"):
        sets = min(ex.sets, max(1, int(ex.sets * REDUCED_SETS + 0.5)))
        update["sets"] = sets
        for name in ("reps", "hold_sec", "load_each"):
            values = getattr(ex, name)
            if values is not None:
                update[name] = list(values[:sets])
    if ex.exercise_type == "intervals" and ex.rounds and ex.rounds > 1:
        update["rounds"] = min(ex.rounds, max(1, int(ex.rounds * REDUCED_SETS + 0.5)))
    if ex.exercise_type == "duration" and ex.duration_min:
        update["duration_min"] = round(max(1.0, min(ex.duration_min, ex.duration_min * REDUCED_SETS)), 1)
        if ex.distance is not None:
            update["distance"] = round(ex.distance * REDUCED_SETS, 2)
    if not update:
        return ex
    return Exercise.model_validate({**ex.model_dump(), **update})


def cardio_minutes(workouts: Iterable[OutsideWorkout]) -> float:
    return sum(w.minutes for w in workouts if w.is_cardio)


def with_outside_cardio(
    totals: Mapping[str, float], goals: Mapping[str, float], minutes: float
) -> dict[str, float]:
    """The category totals of the distribution with other apps' cardio minutes added: split over the
    user's goals the way a catalog cardio exercise is (an endurance goal fully, a general one partly), at
    one unit of work per CARDIO_MINUTES_PER_UNIT minutes."""
    fits = {g: w * GOAL_FIT["cardio"].get(goal_kind(g), 0.0) for g, w in goals.items() if w > 0}
    shares = normalise_weights(fits)
    if minutes <= 0 or not shares:
        return dict(totals)
    return add_shares(totals, shares, minutes / CARDIO_MINUTES_PER_UNIT)
