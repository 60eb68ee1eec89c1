"""Readiness and the loads a location can make, as properties:

- no prescribed exercise needs equipment the active location lacks (composed, then readiness-adjusted);
- every barbell load is the bar plus a sum of the location's plates, in pairs;
- every dumbbell load is a pair the location has;
- a readiness-adjusted workout never has more volume than the unadjusted one.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trainer.domain.catalog import load_catalog
from trainer.domain.composer import ComposerError, ComposerRequest, compose_workout
from trainer.domain.equipment import available_equipment, missing_equipment
from trainer.domain.loading import LoadSteps, barbell_totals
from trainer.domain.movements import equipment_class
from trainer.domain.readiness import CheckIn, adjust_workout, assess, workout_volume
from trainer.domain.workout import Workout
from trainer.offline.checkins import parse_check_in, parse_new_location

CATALOG = load_catalog()
NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
EQUIPMENT = [
    "Treadmill",
    "Flat Bench",
    "Squat Rack",
    "Pull-up Bar",
    "Cable Machine",
    "Resistance Bands",
    "Kettlebells",
]
KG_PLATES = [0.5, 1.25, 2.5, 5, 10, 15, 20, 25]
LB_PLATES = [2.5, 5, 10, 25, 35, 45]
REQUESTS = ["", "Give me a leg workout", "upper body workout", "a quick full body session", "chest and back"]


@st.composite
def locations(draw: Any) -> tuple[str, list[Any]]:
    """A unit and a location's equipment: some plain items, maybe a bar with plates, maybe dumbbells."""
    unit = draw(st.sampled_from(["kg", "lbs"]))
    items: list[Any] = draw(st.lists(st.sampled_from(EQUIPMENT), unique=True, max_size=5))
    if draw(st.booleans()):
        plates = draw(
            st.lists(
                st.sampled_from(KG_PLATES if unit == "kg" else LB_PLATES), min_size=1, max_size=5, unique=True
            )
        )
        bar = draw(st.sampled_from([15, 20] if unit == "kg" else [35, 45]))
        items += [
            {"name": "Barbell", "weights": [bar], "unit": unit},
            {"name": "Weight Plates", "weights": plates, "unit": unit},
        ]
    if draw(st.booleans()):
        pairs = draw(
            st.lists(st.integers(2, 40 if unit == "kg" else 90), min_size=1, max_size=8, unique=True)
        )
        items.append({"name": "Dumbbells", "weights": pairs, "unit": unit})
    return unit, items


@st.composite
def check_ins(draw: Any) -> CheckIn:
    maybe = st.none() | st.integers(1, 5)
    sore = draw(
        st.dictionaries(
            st.sampled_from(["Quadriceps", "Chest", "Back", "Shoulders", "Hamstrings", "Glutes"]),
            st.integers(0, 5),
            max_size=3,
        )
    )
    return CheckIn(
        sleep_hours=draw(st.none() | st.floats(2, 10).map(lambda h: round(h, 1))),
        sleep_quality=draw(maybe),
        energy=draw(maybe),
        stress=draw(maybe),
        soreness=sore,
        last_session_rpe=draw(st.none() | st.sampled_from([6.0, 8.0, 9.5, 10.0])),
    )


def _history(unit: str) -> list[dict[str, Any]]:
    """A few loaded sessions with loads no location necessarily makes (progression starts from them)."""
    rows = []
    for name, load in (("Barbell Squat", 61.0), ("Dumbbell Bench Press", 17.0), ("Barbell Deadlift", 93.0)):
        entry = CATALOG.get(name)
        assert entry is not None
        rows.append(
            {
                "exercise_name": name,
                "performed_at": NOW - timedelta(days=4),
                "sets": 3,
                "reps": [8, 8, 8],
                "weights": [load] * 3 if unit == "kg" else [round(load * 2.2)] * 3,
                "weight_unit": unit,
                "muscles": [{"muscle": m, "share": s} for m, s in entry.muscles],
                "equipment": list(entry.equipment),
            }
        )
    return rows


def _compose(unit: str, items: list[Any], text: str) -> Workout | None:
    steps = LoadSteps.for_unit(unit, items)
    request = ComposerRequest(
        request_text=text,
        weight_unit=unit,
        available_equipment=available_equipment(items),
        category_goals={"Strength": 50, "Hypertrophy": 50},
        history=_history(unit),
        now=NOW,
        load_steps=steps,
    )
    try:
        return compose_workout(request, CATALOG)
    except ComposerError:
        return None


def _assert_settable(workout: Workout, unit: str, items: list[Any]) -> None:
    steps = LoadSteps.for_unit(unit, items)
    for ex in workout.exercises:
        kind = equipment_class(ex.exercise_name, ex.equipment)
        for load in ex.load_each or []:
            if kind == "barbell" and steps.plates:
                assert steps.bar is not None
                extra = round(load - steps.bar, 2)
                assert extra >= 0 and _pairs_make(extra, steps.plates), (ex.exercise_name, load, steps.plates)
            if kind == "dumbbell" and steps.dumbbells:
                assert any(abs(load - pair) < 0.011 for pair in steps.dumbbells), (ex.exercise_name, load)


def _pairs_make(extra: float, plates: tuple[float, ...]) -> bool:
    """Independently: can pairs of these plates add up to `extra` (any number of each)?"""
    cents = round(extra * 100)
    pair_cents = sorted({round(2 * p * 100) for p in plates})
    reachable = {0}
    for total in range(1, cents + 1):
        if any(total - p in reachable for p in pair_cents if total - p >= 0):
            reachable.add(total)
    return cents in reachable


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(location=locations(), text=st.sampled_from(REQUESTS), check_in=check_ins())
def test_prescriptions_fit_the_location_and_readiness_never_adds_volume(
    location: tuple[str, list[Any]], text: str, check_in: CheckIn
) -> None:
    unit, items = location
    workout = _compose(unit, items, text)
    if workout is None:
        return
    have = available_equipment(items)
    steps = LoadSteps.for_unit(unit, items)
    adjusted = adjust_workout(
        workout,
        assess(check_in),
        catalog=CATALOG,
        available=have,
        lighter=lambda load, ex: steps.down(load, equipment_class(ex.exercise_name, ex.equipment)),
    ).workout
    for shown in (workout, adjusted):
        for ex in shown.exercises:
            assert not missing_equipment(ex.equipment, have), (ex.exercise_name, ex.equipment, sorted(have))
        _assert_settable(shown, unit, items)
    assert workout_volume(adjusted).at_most(workout_volume(workout))


@settings(max_examples=200, deadline=None)
@given(
    bar=st.sampled_from([15.0, 20.0, 45.0]),
    plates=st.lists(
        st.sampled_from([0.5, 1.25, 2.5, 5.0, 10.0, 25.0, 45.0]), min_size=1, max_size=6, unique=True
    ),
    wanted=st.floats(0, 300),
)
def test_every_barbell_load_is_the_bar_plus_plate_pairs(
    bar: float, plates: list[float], wanted: float
) -> None:
    steps = LoadSteps.for_unit(
        "kg", [{"name": "Barbell", "weights": [bar]}, {"name": "Plates", "weights": plates}]
    )
    for load in (steps.nearest(wanted, "barbell"), steps.down(wanted, "barbell")):
        assert load >= bar and _pairs_make(load - bar, tuple(plates))
    nearest = steps.nearest(wanted, "barbell")
    assert all(abs(nearest - wanted) <= abs(t - wanted) + 1e-9 for t in barbell_totals(bar, plates, 400))


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.integers(1, 50), min_size=1, max_size=10, unique=True), wanted=st.floats(0, 80))
def test_every_dumbbell_load_is_an_available_pair(pairs: list[int], wanted: float) -> None:
    steps = LoadSteps.for_unit("kg", [{"name": "Dumbbells", "weights": pairs}])
    assert steps.nearest(wanted, "dumbbell") in pairs
    assert steps.down(wanted, "dumbbell") in pairs


def test_a_bad_night_and_exhaustion_make_a_recovery_session_with_the_reason() -> None:
    workout = _compose("kg", ["Treadmill", {"name": "Dumbbells", "weights": [5, 10, 15, 20]}], "full body")
    assert workout is not None
    found = assess(CheckIn(sleep_quality=2, energy=1))
    assert found.level == "recover" and "energy 1/5" in found.advice
    adjusted = adjust_workout(workout, found, catalog=CATALOG, available=available_equipment(["Treadmill"]))
    assert adjusted.workout.title == "Recovery session"
    assert all(not ex.load_each for ex in adjusted.workout.exercises)
    assert "recovery session" in adjusted.changes[0] and "energy 1/5" in adjusted.changes[0]


def test_a_short_night_takes_sets_and_load_off() -> None:
    workout = _compose(
        "kg", [{"name": "Dumbbells", "weights": [4, 8, 12, 16, 20, 24]}, "Flat Bench"], "upper body"
    )
    assert workout is not None
    found = assess(CheckIn(sleep_hours=5.5, energy=2))
    assert found.level == "reduce"
    adjusted = adjust_workout(workout, found, catalog=CATALOG, available=None).workout
    before, after = workout_volume(workout), workout_volume(adjusted)
    assert after.sets < before.sets and after.tonnage < before.tonnage


def test_sore_muscles_exercises_are_swapped_for_ones_that_spare_them() -> None:
    workout = _compose(
        "kg",
        ["Squat Rack", {"name": "Barbell", "weights": [20]}, {"name": "Plates", "weights": [2.5, 5, 10, 20]}],
        "legs",
    )
    assert workout is not None
    found = assess(CheckIn(soreness={"quadriceps": 4}))
    assert found.level == "ready" and found.sore_muscles == ("Quadriceps",)
    adjusted = adjust_workout(workout, found, catalog=CATALOG, available=None)
    for ex in adjusted.workout.exercises:
        assert next((m.share for m in ex.muscles_utilized if m.muscle == "Quadriceps"), 0.0) < 0.2
    assert any("Quadriceps" in change for change in adjusted.changes)


def test_a_sore_muscles_swap_keeps_what_else_the_exercise_trains_and_the_title_follows() -> None:
    """Training effects are specific to the muscles worked (ACSM position stand, progression models in
    resistance training, 2009: exercise selection by the muscle groups to be trained): a shoulder press
    swapped to spare sore shoulders keeps its triceps work, in the upper body, rather than becoming the
    catalog's first sit-up, and a title naming the sore muscle no longer does."""
    workout = compose_workout(
        ComposerRequest(request_text="give me a shoulder workout", available_equipment={"dumbbell", "bench"})
    )
    assert workout.title == "Shoulder Workout (45 min)"
    found = assess(CheckIn(soreness={"shoulders": 4}))
    adjusted = adjust_workout(workout, found, catalog=CATALOG, available={"dumbbell", "bench", "bodyweight"})
    press = next(ex for ex in workout.exercises if ex.exercise_name == "Dumbbell Shoulder Press")
    swapped = adjusted.workout.exercises[press.order - 1]
    assert swapped.exercise_name != press.exercise_name
    assert any(m.muscle == "Triceps" for m in swapped.muscles_utilized)
    for ex in adjusted.workout.exercises:
        entry = CATALOG.get(ex.exercise_name)
        assert entry is not None and entry.primary_muscle not in ("Abs", "Quadriceps", "Glutes"), (
            ex.exercise_name
        )
    assert adjusted.workout.title == "Arm Workout (45 min)"


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I slept badly and I'm exhausted, should I train?", {"sleep_quality": 2, "energy": 1}),
        ("Slept 4 hours, stress 5/5", {"sleep_hours": 4.0, "stress": 5}),
        (
            "my legs are really sore",
            {"soreness": {"Quadriceps": 4, "Hamstrings": 4, "Glutes": 4, "Calves": 4}},
        ),
        ("last session was rpe 9.5 and I feel great", {"last_session_rpe": 9.5, "energy": 5}),
    ],
)
def test_a_check_in_is_read_from_words(text: str, wanted: dict[str, Any]) -> None:
    assert parse_check_in(text).model_dump(exclude_defaults=True) == wanted


def test_a_hotel_gym_sentence_is_a_location_with_its_dumbbell_rack() -> None:
    parsed = parse_new_location("I'm at a hotel gym with a treadmill and dumbbells up to 25 kg", "lbs")
    assert parsed is not None
    assert (parsed.name, parsed.equipment, parsed.dumbbells_up_to, parsed.unit) == (
        "Hotel Gym",
        ["treadmill"],
        25,
        "kg",
    )
