"""generate_workout, swap_exercise and add_exercise_to_workout take an exercise without muscles_utilized
and goals_addressed when its name resolves to a catalogue entry, and store the catalogue's (numbers come
from code: output tokens are the dearest a turn spends); an unknown name without them fails with an error
telling the model to give both; lists the model gives are stored as given. The schema the model is sent
shows both as optional."""

from __future__ import annotations

from typing import Any

import pytest
from trainer.agents.tools import ToolSet
from trainer.chat.agent import CHAT_TOOLS
from trainer.domain.workout import Exercise
from trainer.tools.base import ToolContext
from trainer.tools.communication import communication_tools
from trainer.tools.workout import workout_tools
from trainer_dev.testing.agent_harness import USER, chest_workout
from trainer_dev.testing.memory_store import InMemorySessionStore

PUSHUPS_MUSCLES = [
    {"muscle": "Chest", "share": 0.6},
    {"muscle": "Shoulders", "share": 0.2},
    {"muscle": "Triceps", "share": 0.2},
]
STRENGTH = [{"goal": "Strength", "share": 1.0}]
GIVEN_MUSCLES = [{"muscle": "Chest", "share": 0.7}, {"muscle": "Triceps", "share": 0.3}]
GIVEN_GOALS = [{"goal": "Hypertrophy", "share": 1.0}]


def registry() -> ToolSet:
    return ToolSet([*communication_tools(), *workout_tools()])


def context() -> ToolContext:
    store = InMemorySessionStore()
    return ToolContext(user_id=USER, session_id=store.new_session(USER).id, store=store)


def bare(name: str, order: int | None = 1, **fields: Any) -> dict[str, Any]:
    """A reps exercise without muscles or goals."""
    exercise: dict[str, Any] = {
        "exercise_name": name,
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 10, 10],
        "rest_sec": 60,
        "reasoning": "Compound push.",
        **fields,
    }
    if order is not None:
        exercise["order"] = order
    return exercise


def hamstring_stretch(order: int) -> dict[str, Any]:
    return {
        "exercise_name": "Hamstring Stretch",
        "exercise_type": "hold",
        "order": order,
        "sets": 2,
        "hold_sec": [30, 30],
        "rest_sec": 15,
        "reasoning": "Cool down.",
    }


async def current_exercises(ctx: ToolContext) -> dict[str, dict[str, Any]]:
    current = await ctx.get_state("current_workout")
    assert current is not None
    return {e["exercise_name"]: e for e in current["exercises"]}


async def test_generate_workout_fills_muscles_and_goals_from_the_catalogue() -> None:
    ctx, reg = context(), registry()
    workout = {"title": "Push", "exercises": [bare("Push-ups"), hamstring_stretch(2)]}
    outcome = await reg.execute("generate_workout", {"workout": workout}, ctx)
    assert outcome.success, outcome.formatted
    stored = await current_exercises(ctx)
    assert stored["Push-ups"]["muscles_utilized"] == PUSHUPS_MUSCLES
    assert stored["Push-ups"]["goals_addressed"] == STRENGTH
    assert stored["Hamstring Stretch"]["muscles_utilized"] == [{"muscle": "Hamstrings", "share": 1.0}]
    assert stored["Hamstring Stretch"]["goals_addressed"] == [{"goal": "Flexibility", "share": 1.0}]
    artifact = (await ctx.get_state("artifacts"))[outcome.result_json()["artifact_id"]]
    assert all(Exercise.model_validate(e) for e in artifact["payload"]["exercises"])
    assert outcome.result_json()["summary"]["muscles_targeted"] == [
        "Hamstrings",
        "Chest",
        "Shoulders",
        "Triceps",
    ]


async def test_swap_and_add_fill_muscles_and_goals_from_the_catalogue() -> None:
    ctx, reg = context(), registry()
    assert (await reg.execute("generate_workout", {"workout": chest_workout()}, ctx)).success
    swapped = await reg.execute(
        "swap_exercise", {"exercise_id": "1", "new_exercise": bare("Pushups", order=None)}, ctx
    )
    assert swapped.success, swapped.formatted
    added = await reg.execute("add_exercise_to_workout", {"exercise": bare("Zottman Curl", order=None)}, ctx)
    assert added.success, added.formatted
    stored = await current_exercises(ctx)
    assert stored["Pushups"]["muscles_utilized"] == PUSHUPS_MUSCLES
    assert stored["Pushups"]["goals_addressed"] == STRENGTH
    assert stored["Zottman Curl"]["muscles_utilized"] == [
        {"muscle": "Biceps", "share": 0.6},
        {"muscle": "Forearms", "share": 0.4},
    ]
    assert stored["Zottman Curl"]["goals_addressed"] == STRENGTH
    assert added.result_json()["exercise"]["muscles_utilized"][0]["muscle"] == "Biceps"


async def test_given_muscles_and_goals_are_kept_and_a_missing_one_is_filled() -> None:
    ctx, reg = context(), registry()
    workout = {
        "exercises": [
            bare("Push-ups", muscles_utilized=GIVEN_MUSCLES, goals_addressed=GIVEN_GOALS),
            bare("Pushups", 2, muscles_utilized=GIVEN_MUSCLES),
        ]
    }
    outcome = await reg.execute("generate_workout", {"workout": workout}, ctx)
    assert outcome.success, outcome.formatted
    stored = await current_exercises(ctx)
    assert stored["Push-ups"]["muscles_utilized"] == GIVEN_MUSCLES
    assert stored["Push-ups"]["goals_addressed"] == GIVEN_GOALS
    assert stored["Pushups"]["muscles_utilized"] == GIVEN_MUSCLES
    assert stored["Pushups"]["goals_addressed"] == STRENGTH

    added = await reg.execute(
        "add_exercise_to_workout",
        {"exercise": bare("Zottman Curl", None, muscles_utilized=GIVEN_MUSCLES, goals_addressed=GIVEN_GOALS)},
        ctx,
    )
    assert added.success, added.formatted
    assert (await current_exercises(ctx))["Zottman Curl"]["muscles_utilized"] == GIVEN_MUSCLES


async def test_given_shares_are_still_validated() -> None:
    ctx, reg = context(), registry()
    half = [{"muscle": "Chest", "share": 0.5}]
    outcome = await reg.execute(
        "generate_workout", {"workout": {"exercises": [bare("Push-ups", muscles_utilized=half)]}}, ctx
    )
    assert not outcome.success
    assert "muscles_utilized shares sum to 0.50" in outcome.body


UNKNOWN = "Zorblax Flow"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("generate_workout", {"workout": {"exercises": [bare(UNKNOWN)]}}),
        ("swap_exercise", {"exercise_id": "1", "new_exercise": bare(UNKNOWN, None)}),
        ("add_exercise_to_workout", {"exercise": bare(UNKNOWN, None)}),
        ("add_exercise_to_workout", {"exercise": bare(UNKNOWN, None, muscles_utilized=GIVEN_MUSCLES)}),
    ],
    ids=["generate", "swap", "add", "add-with-muscles-only"],
)
async def test_an_unknown_exercise_without_them_fails_asking_for_both(
    tool: str, arguments: dict[str, Any]
) -> None:
    ctx, reg = context(), registry()
    assert (await reg.execute("generate_workout", {"workout": chest_workout()}, ctx)).success
    before = await ctx.get_state("current_workout")
    outcome = await reg.execute(tool, arguments, ctx)
    assert not outcome.success
    assert f"'{UNKNOWN}' is not in the exercise catalogue" in outcome.body
    assert "give both muscles_utilized and goals_addressed" in outcome.body
    assert await ctx.get_state("current_workout") == before


async def test_an_unknown_exercise_with_both_is_accepted() -> None:
    ctx, reg = context(), registry()
    exercise = bare(UNKNOWN, muscles_utilized=GIVEN_MUSCLES, goals_addressed=GIVEN_GOALS)
    outcome = await reg.execute("generate_workout", {"workout": {"exercises": [exercise]}}, ctx)
    assert outcome.success, outcome.formatted
    assert (await current_exercises(ctx))[UNKNOWN]["goals_addressed"] == GIVEN_GOALS


def _exercise_schema(schema: dict[str, Any], tool: str) -> dict[str, Any]:
    defs = schema["$defs"]
    match tool:
        case "generate_workout":
            ref = defs["WorkoutInput"]["properties"]["exercises"]["items"]["$ref"]
        case "swap_exercise":
            ref = schema["properties"]["new_exercise"]["$ref"]
        case _:
            ref = schema["properties"]["exercise"]["$ref"]
    return defs[ref.rsplit("/", 1)[-1]]


@pytest.mark.parametrize("tool", ["generate_workout", "swap_exercise", "add_exercise_to_workout"])
def test_the_model_is_sent_both_lists_as_optional(tool: str) -> None:
    """As generate_workout sends them (swap_exercise and add_exercise_to_workout name its exercise
    schema rather than copy it), and as every tool that takes an exercise validates them."""
    (chosen,) = [t for t in CHAT_TOOLS if t.name == tool]
    sent = ToolSet([chosen]).definitions()[0]["input_schema"]
    schema = sent if tool == "generate_workout" else chosen.input_schema()
    exercise = _exercise_schema(schema, tool)
    assert "muscles_utilized" not in exercise["required"]
    assert "goals_addressed" not in exercise["required"]
    assert {"exercise_name", "exercise_type", "reasoning"} <= set(exercise["required"])
    for name in ("muscles_utilized", "goals_addressed"):
        field = exercise["properties"][name]
        assert field.get("type") == "array" or any(o.get("type") == "array" for o in field.get("anyOf", []))
        assert "catalogue" in field["description"]


def test_filled_goals_are_the_users_own_categories_when_they_have_some() -> None:
    """The goal distribution matches goal names: a filled exercise counts under the user's categories
    (the offline composer's shares), the catalogue category's goal only for a user without goals."""
    from trainer.tools.catalog_match import catalog_entry
    from trainer.tools.exercise_input import ExerciseInput, catalogue_goals

    entry = catalog_entry("Barbell Bench Press")
    assert entry is not None
    mine = catalogue_goals(entry, "reps", {"Hypertrophy": 0.6, "Strength": 0.4})
    assert {g["goal"] for g in mine} <= {"Hypertrophy", "Strength"}
    assert sum(g["share"] for g in mine) == pytest.approx(1.0)
    filled = ExerciseInput.model_validate(bare("Barbell Bench Press")).filled({"Hypertrophy": 1.0})
    assert filled["goals_addressed"] == [{"goal": "Hypertrophy", "share": 1.0}]
    assert catalogue_goals(entry, "reps", {}) == [{"goal": "Strength", "share": 1.0}]
