"""The offline coach's slot parsers read the numbers, units, places and positions a request gives
however it is said: numbers spelled out as dictation writes them, 'sets x reps' in its several forms, a
unit named on its own ('in imperial'), an exercise by its number in words, a time limit for today, a
place with words between 'I'm' and where."""

from __future__ import annotations

import pytest
from trainer.domain.composer.request import parse_request
from trainer.offline.checkins import parse_new_location
from trainer.offline.goal_parsing import goal_weights, time_limit
from trainer.offline.references import ordinal_position
from trainer.offline.requests import painful_movement, units_named
from trainer.offline.set_parsing import logged_clause, parse_logged_exercise, with_digits


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("three sets of eight with twenty kilos", "3 sets of 8 with 20 kilos"),
        ("twenty two kilos", "22 kilos"),
        ("one hundred and twenty pounds", "120 pounds"),
        ("one-arm row three by twelve", "one-arm row 3 by 12"),
        ("one arm dumbbell row", "one arm dumbbell row"),
    ],
)
def test_numbers_in_words_become_digits(said: str, written: str) -> None:
    assert with_digits(said) == written


@pytest.mark.parametrize(
    ("message", "name", "sets", "reps", "load", "rpe"),
    [
        ("Goblet squat this morning: 3 sets x 10 with 24 kg at RPE 7", "Goblet Squat", 3, 10, 24.0, 7.0),
        ("i just did three sets of eight dumbbell rows with twenty kilos", "Dumbbell Rows", 3, 8, 20.0, None),
        ("deadlift 3 by 5 at 140 kg", "Deadlift", 3, 5, 140.0, None),
        ("log 20 pushups I did this morning", "Pushups", 1, 20, None, None),
        ("did twenty push ups", "Push Ups", 1, 20, None, None),
        ("12 reps of pull-ups", "Pull Ups", 1, 12, None, None),
        ("20 squats at 60kg", "Squats", 1, 20, 60.0, None),
    ],
)
def test_a_log_said_in_other_words_gives_the_same_sets(
    message: str, name: str, sets: int, reps: int, load: float, rpe: float | None
) -> None:
    parsed = parse_logged_exercise(message)
    assert parsed is not None
    assert (parsed.exercise_name, parsed.sets, parsed.reps, parsed.load, parsed.rpe) == (
        name,
        sets,
        [reps] * sets,
        load,
        rpe,
    )


@pytest.mark.parametrize(
    ("message", "units"),
    [
        ("can you do my weights in imperial from here on", ("lbs", None)),
        ("swtich to lbs pls", ("lbs", None)),
        ("metric please", ("kg", "km")),
        ("kilos please, not pounds", ("kg", None)),
        ("metric please, i don't think in pounds", ("kg", "km")),
        ("I hate kg, use lbs", ("lbs", None)),
        ("switch from pounds to kilos", ("kg", None)),
        ("my runs in miles", (None, "mi")),
        ("how much is 100 kg in pounds", ("lbs", None)),
    ],
)
def test_the_units_a_message_names_on_their_own(message: str, units: tuple[str | None, str | None]) -> None:
    assert units_named(message) == units


def test_an_exercise_named_by_its_number_in_words() -> None:
    assert ordinal_position("exercise one is done, every set like it says", 4) == 1
    assert ordinal_position("number three done", 4) == 3
    assert ordinal_position("exercise nine", 4) is None


@pytest.mark.parametrize(
    ("message", "minutes"),
    [
        ("heads up, i've only got 20 min today", 20),
        ("I only have 20 minutes", 20),
        ("got 25 min today", 25),
        ("30 minutes is all I have", 30),
        ("I want a 30 minute workout", None),
    ],
)
def test_a_time_limit_for_today(message: str, minutes: int | None) -> None:
    assert time_limit(message) == minutes


def test_a_place_described_with_words_between_i_am_and_where() -> None:
    parsed = parse_new_location("just for today i'm stuck in a hotel gym, there's a rowing machine", "kg")
    assert parsed is not None and parsed.name == "Hotel Gym"


def test_a_travel_gym_named_by_what_it_has() -> None:
    parsed = parse_new_location("on a business trip, the hotel gym only has dumbbells and a bike", "kg")
    assert parsed is not None and parsed.name == "Hotel Gym"
    assert parsed.equipment == ["bicycle"] and parsed.dumbbells_up_to == 25.0
    assert parse_new_location("the gym has a new rower", "kg") is None


def test_a_pressing_movement_that_hurts_is_named() -> None:
    said = "overhead pressing hurts my shoulder, what shoulder exercises are ok?"
    assert painful_movement(said) == ("overhead press", "shoulder")


@pytest.mark.parametrize(
    ("goal", "weights"),
    [
        ("lose weight", {"Weight Loss": 100.0}),
        ("lose some fat and get stronger", {"Weight Loss": 50.0, "Strength": 50.0}),
        (
            "get stronger, build muscle and get fitter",
            {"Strength": 34.0, "Hypertrophy": 33.0, "Endurance": 33.0},
        ),
        ("feel better about myself", None),
    ],
)
def test_a_goal_in_words_gives_goal_weights_that_sum_to_100(
    goal: str, weights: dict[str, float] | None
) -> None:
    found = goal_weights(goal)
    got = {g.category: g.percentage for g in found.category_goals or []} if found else None
    assert got == weights


@pytest.mark.parametrize(
    "message",
    ["done the first 2 exercises", "did 2 rounds of the circuit", "my 2 year old and I did squats", "done"],
)
def test_a_count_of_something_else_is_not_a_set(message: str) -> None:
    assert parse_logged_exercise(message) is None


def test_the_clause_that_logs_is_read_apart_from_the_request() -> None:
    message = "give me an arms workout and log 15 squats from earlier"
    assert logged_clause(message) == "log 15 squats from earlier"
    asked = parse_request(message)
    assert asked.movements == () and {"Biceps", "Triceps"} <= asked.focus
    assert logged_clause("give me an arms workout") is None
