"""Exercise knowledge over the catalog: fuzzy names, search by muscle/equipment/level/category,
alternatives by movement pattern and equipment, instruction steps loaded lazily; the search_exercises
tool (without a database: equipment given or none), the exercise_info source's formatting and its
registration (initializer, deterministic selector, display names, prompts, tool registry)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError
from trainer.chat.agent import CHAT
from trainer.chat.initializer import display_name, is_covered, selection_params
from trainer.domain import catalog as catalog_module
from trainer.domain.catalog import instructions, load_catalog
from trainer.domain.equipment import available_equipment, missing_equipment
from trainer.domain.exercise_search import (
    ALIASES,
    alternatives,
    equipment_overview,
    exercise_guide,
    exercise_question,
    find_exercise,
    match_names,
    name_tokens,
    search_exercises,
)
from trainer.offline.selector import KNOWN_SOURCES, decide
from trainer.providers.openai import SYSTEM_PROMPT as INITIALIZER_PROMPT
from trainer.services.errors import UserDataError
from trainer.sources.formatters import format_exercise_info
from trainer.sources.registry import DISPLAY_NAMES, SOURCES, describe_sources
from trainer.store.models import KnowledgeRef
from trainer.store.prompt_files import read_prompt_files
from trainer.tools.base import ToolContext, ToolError
from trainer.tools.data import FetchData
from trainer.tools.exercises import SearchExercises, SearchExercisesResult
from trainer_dev.testing.agent_harness import selection
from trainer_dev.testing.memory_store import InMemorySessionStore

from scripts.build_catalog import build_instructions, render_instructions

HOME = available_equipment(["dumbbells", "bench"])
DIP_NAMES = ("Dips - Triceps Version", "Dips - Chest Version", "Parallel Bar Dip", "Ring Dips")


# --- names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("rdl", "Romanian Deadlift"),
        ("RDLs", "Romanian Deadlift"),
        ("ohp", "Standing Military Press"),
        ("barbell back squat", "Barbell Squat"),
        ("Romanian deadlift", "Romanian Deadlift"),
        ("romainian dead-lift", "Romanian Deadlift"),
        ("pull ups", "Pullups"),
        ("Pull-Ups", "Pullups"),
        ("push-ups", "Pushups"),
        ("dips", "Dips - Triceps Version"),
        ("bench press", "Barbell Bench Press - Medium Grip"),
        ("incline DB press", "Incline Dumbbell Press"),
        ("skull crushers", "EZ-Bar Skullcrusher"),
        ("farmers walk", "Farmer's Walk"),
        ("Goblet Squats", "Goblet Squat"),
    ],
)
def test_names_are_found_the_way_people_write_them(query: str, name: str) -> None:
    found = find_exercise(query)
    assert found is not None and found.name == name


def test_unknown_names_match_nothing_and_every_alias_is_in_the_catalog() -> None:
    assert find_exercise("zorbing") is None and match_names("") == []
    assert all(load_catalog().get(name) is not None for name in ALIASES.values())
    assert name_tokens("3/4 Sit-Ups") == ("3", "4", "situp")
    assert name_tokens("Farmer's Walk") == ("farmer", "walk")


# --- search and alternatives ------------------------------------------------------------------------


def test_search_by_muscle_equipment_level_and_category() -> None:
    found = search_exercises(muscle="glutes", available=HOME, max_level="beginner", limit=10)
    assert len(found) == 10
    assert all(
        e.share_of("Glutes") > 0 and not missing_equipment(e.equipment, HOME) and e.level == "beginner"
        for e in found
    )
    assert found[0].category == "strength"
    stretches = search_exercises(muscle="Hamstrings", category="stretching", limit=3)
    assert stretches and all(e.category == "stretching" for e in stretches)
    assert [e.name for e in search_exercises(query="goblet squat", limit=1)] == ["Goblet Squat"]
    assert search_exercises(query="barbell squat", available=HOME) == []
    with pytest.raises(ValueError, match="unknown muscle"):
        search_exercises(muscle="wings")


def test_alternatives_to_dips_with_home_equipment() -> None:
    dips = find_exercise("dips")
    assert dips is not None
    found = alternatives(dips, available=HOME, avoid_name="dips")
    names = [a.entry.name for a in found]
    assert len(found) == 5 and "Bench Dips" in names, "a dip variant on other equipment is an alternative"
    assert not set(names) & set(DIP_NAMES)
    for alt in found:
        assert not missing_equipment(alt.entry.equipment, HOME)
        assert alt.entry.share_of("Triceps") > 0
        assert "works Triceps" in alt.reason
    assert found[0].reason.startswith("same movement (compound push)")
    everywhere = [a.entry.name for a in alternatives(dips, avoid_name="dips", limit=50)]
    assert not set(everywhere) & set(DIP_NAMES), "same movement on the same equipment is not an alternative"


def test_alternatives_keep_the_kind_of_training_and_the_level() -> None:
    rdl = find_exercise("rdl")
    assert rdl is not None
    found = alternatives(rdl, available=HOME, max_level="beginner", limit=10)
    assert found and all(a.entry.level == "beginner" for a in found)
    assert all(
        a.entry.category in ("strength", "powerlifting", "olympic weightlifting", "strongman") for a in found
    )
    assert all(a.entry.share_of("Hamstrings") > 0 for a in found)


# --- instructions ---------------------------------------------------------------------------------


def test_instruction_steps_are_loaded_only_when_asked_for() -> None:
    catalog_module._instructions.cache_clear()
    load_catalog.cache_clear()
    load_catalog()
    assert catalog_module._instructions.cache_info().currsize == 0
    rdl = find_exercise("romanian deadlift")
    assert rdl is not None
    steps = instructions(rdl)
    assert len(steps) == 5 and steps[0].startswith("Put a barbell in front of you")
    assert catalog_module._instructions.cache_info().currsize == 1


def test_packaged_instructions_are_the_sources_steps_one_exercise_a_line() -> None:
    records = [
        {
            "id": "Plank",
            "name": "Plank",
            "primaryMuscles": ["abdominals"],
            "instructions": [" Get  down. ", ""],
        },
        {"id": "X", "name": "X", "primaryMuscles": ["chest"], "instructions": []},
    ]
    built = build_instructions(records)
    assert built["instructions"] == {"Plank": ["Get down."]}
    text = render_instructions(built)
    assert json.loads(text) == built and text.count("\n") == 3
    packaged = catalog_module._instructions()
    assert len(packaged) > 860 and set(packaged) <= {e.id for e in load_catalog().entries}


# --- exercise questions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("how do I do a Romanian deadlift?", ("how", "Romanian deadlift")),
        ("What can I do instead of dips?", ("alternatives", "dips")),
        ("alternatives to pull-ups at home", ("alternatives", "pull-ups")),
        ("what muscles do lunges work?", ("how", "lunges")),
        (
            "a good alternative to the barbell back squat with my knees?",
            ("alternatives", "barbell back squat"),
        ),
        ("form tips for the bench press please", ("how", "bench press")),
        ("Give me a chest workout", None),
        ("how do I get stronger", None),
        ("instead of running I'd like to rest", None),
    ],
)
def test_exercise_questions_name_a_catalog_exercise(message: str, expected: tuple[str, str] | None) -> None:
    assert exercise_question(message) == expected


def test_the_guide_has_steps_muscles_equipment_and_alternatives() -> None:
    guide = exercise_guide("how about an rdl", HOME, location="Home")
    assert guide["exercise"] is None and guide["similar"]
    guide = exercise_guide("rdl", HOME, location="Home")
    ex = guide["exercise"]
    assert ex["name"] == "Romanian Deadlift" and ex["equipment"] == ["barbell"]
    assert ex["missing_equipment"] == ["barbell"] and len(ex["steps"]) == 5
    assert ex["muscles"].startswith("Hamstrings")
    assert len(guide["alternatives"]) == 5 and all(a["why"] for a in guide["alternatives"])
    text = format_exercise_info(guide)
    lines = text.splitlines()
    assert lines[0] == '<exercise_info query="rdl">'
    assert lines[1] == "Romanian Deadlift: strength, intermediate, compound pull"
    assert lines[3] == "Equipment: barbell (not at the current location: barbell)"
    assert lines[4] == "Steps:" and lines[5].startswith("  1. Put a barbell")
    assert "Alternatives with the equipment at Home (bench, bodyweight, dumbbell):" in lines
    assert text.endswith("</exercise_info>")


def test_the_guide_without_a_match_or_without_a_query() -> None:
    text = format_exercise_info(exercise_guide("zorbing <b>", None))
    assert text.startswith('<exercise_info query="zorbing &lt;b&gt;">No catalog exercise matches')
    overview = equipment_overview(HOME, location="Home")
    assert overview["count"] > 100 and overview["muscles"][0]["examples"]
    text = format_exercise_info(overview)
    assert text.splitlines()[1].endswith(
        "with the equipment at Home (bench, bodyweight, dumbbell); by main muscle, easiest first:"
    )


# --- the tool -------------------------------------------------------------------------------------


def context() -> ToolContext:
    store = InMemorySessionStore()
    session = store.new_session("user-x")
    return ToolContext(user_id="user-x", session_id=session.id, store=store)


async def search(**args: Any) -> SearchExercisesResult:
    tool = SearchExercises()
    return await tool.execute(tool.Args.model_validate(args), context())


async def test_looking_up_an_exercise_gives_its_steps_muscles_and_equipment() -> None:
    result = await search(query="romanian deadlift", limit=2)
    first = result.exercises[0]
    assert first.name == "Romanian Deadlift" and first.equipment == ["barbell"]
    assert len(first.instructions) == 5 and result.exercises[1].instructions == []
    assert first.muscles[0].muscle == "Hamstrings"
    assert result.equipment is None and result.equipment_from == "any"
    text = SearchExercises().format(result)
    assert text.splitlines()[0] == "- Romanian Deadlift: strength, intermediate, compound pull"
    assert "  Steps:" in text and "    1. Put a barbell" in text


async def test_alternatives_with_the_equipment_given() -> None:
    result = await search(alternatives_to="dips", equipment=["dumbbells", "bench"])
    assert result.reference is not None and result.reference.name == "Dips - Triceps Version"
    assert result.equipment == ["bench", "bodyweight", "dumbbell"] and result.equipment_from == "given"
    assert result.reference.missing_equipment == ["dip station"]
    assert all(not e.missing_equipment and e.why for e in result.exercises)
    text = SearchExercises().format(result)
    assert text.startswith("Alternatives to Dips - Triceps Version: strength, beginner, compound push:")
    assert "Limited to the equipment (bench, bodyweight, dumbbell)" in text
    anywhere = await search(alternatives_to="dips", any_equipment=True, muscle="Chest", limit=10)
    assert anywhere.equipment is None and all(e.muscles for e in anywhere.exercises)
    assert all(any(m.muscle == "Chest" for m in e.muscles) for e in anywhere.exercises)


async def test_browsing_by_muscle_and_level() -> None:
    result = await search(muscle="Glutes", level="beginner", equipment=[], limit=3)
    assert len(result.exercises) == 3 and result.equipment == ["bodyweight"]
    assert all(e.level == "beginner" and e.equipment == [] and e.instructions == [] for e in result.exercises)


async def test_unknown_exercises_and_bad_arguments() -> None:
    with pytest.raises(ToolError, match="no catalog exercise matches 'zorbing'; closest names:"):
        await search(alternatives_to="zorbing")
    with pytest.raises(ToolError, match="no catalog exercise matches"):
        await search(query="zorbing")
    tool = SearchExercises()
    for args in (
        {},
        {"query": "dips", "alternatives_to": "dips"},
        {"muscle": "Wings"},
        {"query": "dips", "equipment": ["bench"], "any_equipment": True},
        {"query": "dips", "limit": 50},
    ):
        with pytest.raises(ValidationError):
            tool.Args.model_validate(args)


# --- registration ---------------------------------------------------------------------------------


def test_the_source_and_the_tool_are_registered_everywhere() -> None:
    assert "exercise_info" in SOURCES and DISPLAY_NAMES["exercise_info"] == "Exercise guide"
    assert display_name("exercise_info") == "Exercise guide"
    assert "exercise_info" in KNOWN_SOURCES and "| exercise_info |" in INITIALIZER_PROMPT
    assert "- exercise_info: One catalog exercise" in describe_sources()
    assert "query (text)" in describe_sources()
    assert "search_exercises" in [t.name for t in CHAT.tools]
    assert "search_exercises" in read_prompt_files()["chat"]


def test_exercise_knowledge_has_one_tool() -> None:
    """search_exercises answers exercise questions; fetch_data does not offer the exercise_info
    source (the initializer still loads it as knowledge), and says where to go when asked for it."""
    assert "exercise_info" not in FetchData().input_schema()["properties"]["sources"]["description"]
    with pytest.raises(ValidationError, match="search_exercises"):
        FetchData.Args.model_validate({"sources": ["exercise_info"]})


def test_the_query_parameter_is_text() -> None:
    source = SOURCES["exercise_info"]
    assert source.resolve_params({"query": "  romanian   deadlift "}) == {"query": "romanian deadlift"}
    assert source.resolve_params(None) == {"query": None}
    with pytest.raises(UserDataError, match="query must be text"):
        source.resolve_params({"query": 5})
    with pytest.raises(UserDataError, match="at most 120"):
        source.resolve_params({"query": "x" * 121})
    kept, notes = source.tolerated_params({"query": "dips", "days_back": 3})
    assert kept == {"query": "dips"} and notes == ["days_back is not a parameter of exercise_info"]


def test_the_selectors_pick_the_guide_for_the_exercise_asked_about() -> None:
    picked = decide("how do I do a Romanian deadlift?", [])
    assert [(s.source, s.query) for s in picked.append_knowledge] == [("exercise_info", "Romanian deadlift")]
    instead = decide("What can I do instead of dips?", [])
    assert ("exercise_info", "dips") in [(s.source, s.query) for s in instead.append_knowledge]
    again = decide(
        "how do I do a romanian deadlift",
        [{"source": "exercise_info", "params": {"query": "Romanian deadlift"}}],
    )
    assert again.append_knowledge == [] and again.use_existing == ["exercise_info"]
    other = decide(
        "how do I do a Romanian deadlift?", [{"source": "exercise_info", "params": {"query": "dips"}}]
    )
    assert [s.query for s in other.append_knowledge] == ["Romanian deadlift"]
    assert all(s.query is None for s in decide("give me a leg workout", []).append_knowledge)

    chosen = selection("exercise_info")
    chosen.query = "dips"
    assert selection_params(chosen) == {"query": "dips"}
    refs = [KnowledgeRef(source="exercise_info", params={"query": "Dips"})]
    assert is_covered("exercise_info", {"query": "dips"}, refs)
    assert not is_covered("exercise_info", {"query": "rdl"}, refs)
