"""Every scenario of tests/scenarios/data, played on the offline model and through the real SDKs
against the loopback fake server as Claude Haiku 5.5 (the default), Sonnet 5.5 and Opus 5.5. A failure
names the first assertion that did not hold."""

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
MODES: tuple[Mode, ...] = ("offline", "sdk", "sdk-sonnet-5-5", "sdk-opus-5-5")
"""`sdk` runs on the default model (Claude Haiku 5.5); the others on Sonnet 5.5 and Opus 5.5."""


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


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
async def test_scenario(
    scenario: Scenario, mode: Mode, scenario_runners: Runners, scenario_summary: None, record_property: Any
) -> None:
    runner = await scenario_runners.get(mode)
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
