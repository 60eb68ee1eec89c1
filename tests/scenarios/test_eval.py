"""The evaluation report's effort comparison (`make eval EVAL_ARGS=--effort=low,medium`): no I/O."""

from __future__ import annotations

import pytest

from tests.scenarios import eval as scenario_eval
from tests.scenarios.eval import EFFORTS, EffortRun, choose_effort, effort_report


def run(effort: str, all_k: int, cents: float, tokens: float = 100.0) -> EffortRun:
    return EffortRun(effort, all_k, 10, cents, tokens)


def test_the_cheapest_effort_among_the_best_pass_rates_is_chosen() -> None:
    low, medium, high = run("low", 8, 0.05), run("medium", 10, 0.08), run("high", 10, 0.12)
    assert choose_effort([low, medium, high]) == medium, "low fails more; high passes no more but costs more"
    assert choose_effort([run("low", 10, 0.05), medium]) == run("low", 10, 0.05)
    assert choose_effort([]) is None


def test_the_report_lists_each_effort_and_the_choice() -> None:
    text = effort_report([run("low", 9, 0.051, 120.0), run("medium", 10, 0.083, 310.5)], 3)
    assert "low" in text and "9/10" in text and "0.051" in text and "120.0" in text
    assert "310.5" in text
    assert text.splitlines()[-1] == "chosen: medium (the cheapest with the best pass^3)"


def test_the_efforts_are_the_settings_own() -> None:
    assert EFFORTS == ("low", "medium", "high", "xhigh", "max")


def test_an_unknown_effort_is_refused_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        scenario_eval.main(["--dry-run", "--effort", "low,extreme"])
    assert exited.value.code == 2
    assert "unknown effort extreme" in capsys.readouterr().err


def _tally(scenario_id: str, areas: list[str], passes: list[bool]) -> scenario_eval.Tally:
    from tests.scenarios.runner import ScenarioResult
    from tests.scenarios.schema import Scenario

    scenario = Scenario.model_validate(
        {"id": scenario_id, "title": "t", "areas": areas, "turns": [{"say": "x"}]}
    )
    tally = scenario_eval.Tally(scenario)
    tally.runs = [
        ScenarioResult(scenario_id, "sdk", [] if passed else ["a check failed"]) for passed in passes
    ]
    return tally


def test_the_report_gives_pass_k_per_category_weakest_first() -> None:
    tallies = [
        _tally("red-flag-a", ["safety", "injury"], [True, True, True]),
        _tally("red-flag-b", ["safety"], [True, False, True]),
        _tally("onboarding-a", ["onboarding"], [True, True, True]),
    ]
    lines = scenario_eval.area_report(tallies, 3).splitlines()
    assert lines[0].split()[:2] == ["category", "pass^3"]
    assert lines[1].split()[:3] == ["safety", "1/2", "50.0%"]
    assert {line.split()[0] for line in lines[2:]} == {"injury", "onboarding"}
