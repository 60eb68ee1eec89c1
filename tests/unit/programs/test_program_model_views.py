"""What the program agents send a model: the input as compact JSON without nulls that reads back as the same
input; the week's model reads the plan's current phase and what choosing exercises depends on while code still
computes every number from the whole input; the plan leads the input and closes its stable part; the day
messages' input is the lines code wrote, from which the same texts come. And the day rules on every plan day:
a 5-10 minute warm-up, a 3-5 minute cool-down, at most 1,600 characters, whatever the equipment (there was
once a 2-minute warm-up for a 60-minute session)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from pydantic import BaseModel
from trainer.agents import run_agent
from trainer.agents.wire import parse_input, render_input, render_input_parts
from trainer.programs.agents import (
    HISTORY_VIEW_FIELDS,
    MICROCYCLE,
    WEEK_MESSAGES,
    week_input_view,
    week_messages_input,
)
from trainer.programs.messages import render_workout_markdown, workout_message
from trainer.programs.microcycle.week import build_week, draft_week, finalize_week
from trainer.programs.models import (
    SMS_LIMIT,
    MessageInput,
    PlanWeek,
    StructureInput,
    WeekInput,
)
from trainer.programs.plan.finalize import build_plan

from tests.unit.programs.programs_fixtures import NOW, inputs, logged
from tests.unit.programs.test_program_agents import Scripted, deps

HOME = ["bands", "bench", "bodyweight", "dumbbell", "pull-up bar"]
"""The demo user's home gym: no cardio machine, so no cardio warm-up."""


def _given(week_number: int = 6) -> WeekInput:
    history = [
        logged("Barbell Bench Press - Medium Grip", 60, [8, 8, 8], NOW - timedelta(days=2)),
        logged(
            "Barbell Squat", 80, [5, 5, 5], NOW - timedelta(days=3), [{"muscle": "Quadriceps", "share": 1.0}]
        ),
    ]
    given = inputs(
        history=history,
        progression_history=history,
        location_items=[{"name": "Dumbbells", "type": "free_weights", "unit": "kg", "weights": [5, 10, 15]}],
        muscle_goals={"Chest": 0.5, "Back": 0.5},
    )
    return WeekInput(plan=build_plan(given), week_number=week_number, inputs=given, plan_id="p1")


@pytest.mark.parametrize("value", ["week", "messages", "message", "structure", "plan"])
def test_the_rendered_input_reads_back_as_the_same_input(value: str) -> None:
    given = _given()
    week = build_week(given.plan, given.week_number, given.inputs)
    model: BaseModel = {
        "week": given,
        "messages": week_messages_input(week, given),
        "message": MessageInput(day=week.days[0], week_number=6, plan_title="P"),
        "structure": StructureInput(text="Bench 3x8 @ 60kg", weight_unit="kg"),
        "plan": given.inputs,
    }[value]
    text = render_input(model)
    assert len(text.splitlines()) == 3 and ":null" not in text  # one line of JSON between the tags
    read = type(model).model_validate(parse_input(text))
    assert read.model_dump(mode="json") == model.model_dump(mode="json")
    stable, rest = render_input_parts(model, ("plan",))
    assert stable + rest == text
    assert parse_input(f"{stable}\n\n{rest}") == parse_input(text)


async def test_the_week_model_reads_its_phase_and_what_choosing_needs_while_code_reads_everything() -> None:
    given = _given()
    view = week_input_view(given)
    assert len(given.plan.microcycles) > 1
    assert view.plan.microcycles == [given.plan.microcycle_for(given.week_number)]
    whole = build_week(given.plan, given.week_number, given.inputs)
    assert whole != build_week(view.plan, given.week_number, view.inputs)  # the numbers need the rest
    model = Scripted(draft_week(given.plan, given.week_number, given.inputs), *[{"messages": ["x"] * 7}])
    run = await run_agent(MICROCYCLE, given, deps(model))
    sent = model.requests[0]
    assert WeekInput.model_validate(parse_input(sent.input_text)).model_dump(mode="json") == view.model_dump(
        mode="json"
    )
    assert isinstance(sent.input, WeekInput) and sent.input == given
    read = parse_input(sent.input_text)["inputs"]
    assert "progression_history" not in sent.input_text.replace('"progression_history":[]', "")
    assert read["location_items"] == [] and read["muscle_goals"] == {}
    assert all(set(row) <= set(HISTORY_VIEW_FIELDS) for row in read["history"]) and read["history"]
    days = run.output_as(PlanWeek).days
    assert [d.workout for d in days] == [d.workout for d in whole.days]


async def test_the_plan_leads_the_weeks_input_and_closes_its_stable_part() -> None:
    given = _given()
    model = Scripted(draft_week(given.plan, given.week_number, given.inputs), {"messages": ["x"] * 7})
    await run_agent(MICROCYCLE, given, deps(model))
    sent = model.requests[0]
    cut = sent.stable_input_chars
    plan_json = render_input(week_input_view(given).plan).split("\n")[1]
    assert sent.input_text[:cut] == '<agent_input>\n{"plan":' + plan_json + ","
    later = Scripted(draft_week(given.plan, 7, given.inputs), {"messages": ["x"] * 7})
    await run_agent(MICROCYCLE, given.model_copy(update={"week_number": 7}), deps(later))
    assert later.requests[0].input_text[: later.requests[0].stable_input_chars] == sent.input_text[:cut]


async def test_the_day_messages_input_is_the_lines_code_wrote_and_words_the_same_texts() -> None:
    given = _given()
    week = build_week(given.plan, given.week_number, given.inputs)
    asked = week_messages_input(week, given)
    text = render_input(asked)
    assert "muscles_utilized" not in text and "goals_addressed" not in text
    assert len(text) * 4 < len(render_input({"days": [d.model_dump(mode="json") for d in week.days]}))
    offline = await run_agent(WEEK_MESSAGES, asked, deps())
    expected = [
        workout_message(MessageInput(day=d, week_number=week.week_number, plan_title=given.plan.title))
        for d in week.days
    ]
    assert offline.output == expected


def _minutes(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, text
    return int(found.group(1))


@pytest.mark.parametrize("equipment", [HOME, ["bodyweight"], None], ids=["home", "bodyweight", "gym"])
def test_every_plan_day_warms_up_5_to_10_minutes_and_cools_down_3_to_5(equipment: list[str] | None) -> None:
    given = inputs(**({"equipment": equipment} if equipment else {}))
    plan = build_plan(given)
    for number in range(1, plan.weeks + 1):
        for day in build_week(plan, number, given).days:
            if day.workout is None:
                continue
            text = workout_message(MessageInput(day=day, week_number=number, plan_title=plan.title))
            assert len(text) <= SMS_LIMIT
            assert 5 <= _minutes(r"WARM-UP \((\d+) min\)", text) <= 10, text
            assert 3 <= _minutes(r"COOL DOWN \((\d+) min\)", text) <= 5, text
            markdown = render_workout_markdown(day.workout, day)
            assert 5 <= _minutes(r"## Warm-Up \((\d+) min\)", markdown) <= 10


def test_a_draft_naming_one_warm_up_move_and_one_stretch_still_fills_the_minutes() -> None:
    given = inputs(equipment=HOME)
    plan = build_plan(given)
    built = build_week(plan, 1, given)
    day = next(d for d in built.days if d.workout is not None)
    assert day.workout is not None
    warm = next(e.exercise_name for e in day.workout.exercises if e.group and e.group.type == "warmup")
    cool = next(e.exercise_name for e in day.workout.exercises if e.group and e.group.type == "cooldown")
    draft = draft_week(plan, 1, given)
    draft = draft.model_copy(
        update={"days": [d.model_copy(update={"warmup": [warm], "cooldown": [cool]}) for d in draft.days]}
    )
    days = [d for d in finalize_week(draft, plan, 1, given).days if d.workout is not None]
    first = days[0].workout
    assert first is not None
    grouped = [(e.group.type, e.exercise_name) for e in first.exercises if e.group]
    assert grouped[0] == ("warmup", warm) and next(g for g in grouped if g[0] == "cooldown") == (
        "cooldown",
        cool,
    )
    for planned in days:
        text = workout_message(MessageInput(day=planned, week_number=1))
        assert 5 <= _minutes(r"WARM-UP \((\d+) min\)", text) <= 10, text
        assert 3 <= _minutes(r"COOL DOWN \((\d+) min\)", text) <= 5, text
