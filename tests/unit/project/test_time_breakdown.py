"""The end-of-run profile puts each test in its part of the suite."""

from tests.time_breakdown import part_of


def test_a_test_counts_in_its_directory_and_a_scenario_in_its_mode() -> None:
    assert part_of("tests/unit/tools/test_calendar.py::test_x") == "unit"
    assert part_of("tests/integration/api/test_calendar.py::test_x[a]") == "integration"
    assert part_of("tests/e2e/test_flow.py::test_x") == "e2e"
    assert part_of("tests/scenarios/test_scenarios.py::TestOffline::test_scenario[log-1]") == (
        "scenarios TestOffline"
    )
    assert part_of("tests/scenarios/test_runner.py::test_x") == "scenarios"
