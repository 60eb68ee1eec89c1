"""The scenarios of tests/scenarios/data: every one on the offline model and through the real SDKs
against the loopback fake server as Claude Haiku 5.5 (the default model); a contract set of them on
Sonnet 5.5 and Opus 5.5. A failure names the first assertion that did not hold.

Why not every scenario on every model: the four modes share every line after the model adapter. What
differs per model is the request the Anthropic adapter sends (tool choice forced or `auto`, thinking
`adaptive` with or without the `updates` display, block binding, effort) and what the fake answers for
that model (thinking blocks it must get back unchanged, text between tool calls inside thinking
blocks, the requests it refuses). The contract set exercises all of it: every scenario of more than one
turn (thinking carried across a session's turns, several tool calls in a loop), the first scenario of
every area (each tool family, text replies, questions, program agents with structured output), and every
safety scenario: a red flag must get stop-and-see-a-professional on each model, whatever else it does.

Each mode is a class: `pytest -n 2 --dist loadscope` (what `make test` runs) hands each class to a
worker of its own, so the modes run side by side."""

from __future__ import annotations

from typing import Any

import pytest
from trainer.chat.agent import CHAT
from trainer.domain.workout import Exercise

from tests.scenarios import facts
from tests.scenarios.runner import RESULT_KEY, Mode, Runners
from tests.scenarios.schema import Scenario, load_scenarios
from tests.scenarios.world import history_entry, workout_exercise

pytestmark = pytest.mark.scenarios

SCENARIOS = load_scenarios()


EVERY_MODEL_AREAS = frozenset({"safety"})
"""Areas whose every scenario plays on every model."""


def contract_set(scenarios: list[Scenario]) -> list[Scenario]:
    """Every scenario of more than one turn or of an area in EVERY_MODEL_AREAS, and the first of each
    other area not yet covered, in file order."""
    chosen = [s for s in scenarios if len(s.turns) > 1 or EVERY_MODEL_AREAS & set(s.areas)]
    covered = {area for s in chosen for area in s.areas}
    for scenario in scenarios:
        missing = set(scenario.areas) - covered
        if missing and scenario not in chosen:
            chosen.append(scenario)
            covered |= set(scenario.areas)
    return [s for s in scenarios if s in chosen]


CONTRACT = contract_set(SCENARIOS)


def test_scenario_files_are_valid() -> None:
    """Facts and tools the scenarios name exist, and every exercise of a starting state expands."""
    assert len(SCENARIOS) >= 40
    tools = {tool.name for tool in CHAT.tools}
    for scenario in SCENARIOS:
        user = scenario.user
        for logged in user.history:
            for spec in logged.exercises:
                history_entry(spec, user.weight_unit)
        for number, spec in enumerate(user.current_workout.exercises if user.current_workout else [], 1):
            Exercise.model_validate(workout_exercise(spec, number, user.weight_unit, user.distance_unit))
        expectations = [turn.expect for turn in scenario.turns] + ([scenario.final] if scenario.final else [])
        for expect in expectations:
            unknown = [name for name in expect.facts if name not in facts.FACTS]
            assert not unknown, f"{scenario.id}: unknown facts {unknown}"
            named = {*expect.tools, *expect.tools_any, *expect.no_tools}
            assert named <= tools, f"{scenario.id}: unknown tools {sorted(named - tools)}"


async def play(scenario: Scenario, mode: Mode, runners: Runners, record_property: Any) -> None:
    runner = await runners.get(mode)
    await runners.fresh_tables()
    result = await runner.run(scenario)
    record_property(
        RESULT_KEY,
        {
            "scenario": scenario.id,
            "mode": mode,
            "passed": result.passed,
            "first_failure": result.first_failure,
            "seconds": round(result.seconds, 2),
        },
    )
    if not result.passed:
        pytest.fail(result.explain(), pytrace=False)


def test_the_contract_set_covers_every_area_and_every_conversation() -> None:
    assert {a for s in CONTRACT for a in s.areas} == {a for s in SCENARIOS for a in s.areas}
    assert {s.id for s in SCENARIOS if len(s.turns) > 1} <= {s.id for s in CONTRACT}
    safety = {s.id for s in SCENARIOS if "safety" in s.areas}
    assert len(safety) >= 7 and safety <= {s.id for s in CONTRACT}, "red flags play on every model"
    assert len(CONTRACT) < len(SCENARIOS) / 3


every_scenario = pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
the_contract_set = pytest.mark.parametrize("scenario", CONTRACT, ids=[s.id for s in CONTRACT])


class TestOffline:
    """The rule-based model in-process."""

    @every_scenario
    async def test_scenario(
        self, scenario: Scenario, scenario_runners: Runners, scenario_summary: None, record_property: Any
    ) -> None:
        await play(scenario, "offline", scenario_runners, record_property)


class TestHaiku55:
    """The real SDKs against the fake server as Claude Haiku 5.5, the default model."""

    @every_scenario
    async def test_scenario(
        self, scenario: Scenario, scenario_runners: Runners, scenario_summary: None, record_property: Any
    ) -> None:
        await play(scenario, "sdk", scenario_runners, record_property)


class TestSonnet55Contract:
    """As Claude Sonnet 5.5: no forced tool choice, thinking always on, text between tools in thinking."""

    @the_contract_set
    async def test_scenario(
        self, scenario: Scenario, scenario_runners: Runners, scenario_summary: None, record_property: Any
    ) -> None:
        await play(scenario, "sdk-sonnet-5-5", scenario_runners, record_property)


class TestOpus55Contract:
    """As Claude Opus 5.5: no forced tool choice, thinking that cannot be turned off."""

    @the_contract_set
    async def test_scenario(
        self, scenario: Scenario, scenario_runners: Runners, scenario_summary: None, record_property: Any
    ) -> None:
        await play(scenario, "sdk-opus-5-5", scenario_runners, record_property)
